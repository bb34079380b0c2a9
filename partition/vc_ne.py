"""``ne``: Neighbourhood Expansion (Zhang et al., KDD 2017), the in-memory vertex-cut.

Parts are grown one after another. Part ``p`` keeps a boundary set ``S`` and a core ``C``
inside it. Repeatedly the boundary vertex outside the core with the fewest unassigned edges
(all of which lead out of ``S``) joins the core, and each of its outside neighbours ``y``
joins ``S``; on joining, every still unassigned edge between ``y`` and ``S`` goes to ``p``.
When the boundary is empty a new seed vertex is taken from a seeded random vertex order. Part
``p`` stops at ``ceil(alpha * m / P)`` edges; the last part takes every edge left. Edges are
assigned only between vertices already in ``S``, so new replicas are created only at the
boundary, which is what keeps the replication factor low.

Cost: a binary min-heap keyed by the unassigned-edge count (with decrease-key), so
``O((m + replicas) log n)`` plus one scan of the adjacency of each vertex per part it joins.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gas.errors import InputError
from gas.partition._stream import vertex_order
from gas.partition.base import EdgeInput, Partitioner, register


@njit(cache=True, inline="always")
def _less(key, heap, i, j):
    a = heap[i]
    b = heap[j]
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@njit(cache=True)
def _sift_up(key, heap, pos, i):
    while i > 0:
        parent = (i - 1) >> 1
        if not _less(key, heap, i, parent):
            break
        heap[i], heap[parent] = heap[parent], heap[i]
        pos[heap[i]] = i
        pos[heap[parent]] = parent
        i = parent


@njit(cache=True)
def _sift_down(key, heap, pos, size, i):
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        c = left
        if left + 1 < size and _less(key, heap, left + 1, left):
            c = left + 1
        if not _less(key, heap, c, i):
            break
        heap[i], heap[c] = heap[c], heap[i]
        pos[heap[i]] = i
        pos[heap[c]] = c
        i = c


@njit(cache=True)
def _join_boundary(y, p, o_ptr, o_nbr, o_eid, i_ptr, i_nbr, i_eid, part, in_s, rest, heap, pos):
    """Put ``y`` in S of part ``p``; give ``p`` the unassigned edges from ``y`` into S."""
    in_s[y] = p
    got = 0
    for side in range(2):
        ptr = o_ptr if side == 0 else i_ptr
        nbr = o_nbr if side == 0 else i_nbr
        eid = o_eid if side == 0 else i_eid
        for k in range(ptr[y], ptr[y + 1]):
            f = eid[k]
            z = nbr[k]
            if part[f] >= 0 or in_s[z] != p:
                continue
            part[f] = p
            got += 1
            rest[y] -= 1
            rest[z] -= 1
            if z != y and pos[z] >= 0:
                _sift_up(rest, heap, pos, pos[z])
    return got


@njit(cache=True)
def _ne_parts(n, m, o_ptr, o_nbr, o_eid, i_ptr, i_nbr, i_eid, num_parts, limit, seeds):
    part = np.full(m, -1, np.int32)
    rest = np.empty(n, np.int64)
    for v in range(n):
        rest[v] = (o_ptr[v + 1] - o_ptr[v]) + (i_ptr[v + 1] - i_ptr[v])
    in_s = np.full(n, -1, np.int32)
    heap = np.empty(n, np.int64)
    pos = np.full(n, -1, np.int64)
    nxt = 0
    done = 0
    for p in range(num_parts - 1):
        size = 0
        got = 0
        while got < limit and done < m:
            if size == 0:
                while rest[seeds[nxt]] == 0:
                    nxt += 1
                x = seeds[nxt]
                k = _join_boundary(
                    x, p, o_ptr, o_nbr, o_eid, i_ptr, i_nbr, i_eid, part, in_s, rest, heap, pos
                )
                got += k
                done += k
                if rest[x] == 0:
                    continue
                heap[0] = x
                pos[x] = 0
                size = 1
            x = heap[0]
            size -= 1
            pos[x] = -1
            if size > 0:
                heap[0] = heap[size]
                pos[heap[0]] = 0
                _sift_down(rest, heap, pos, size, 0)
            for side in range(2):
                ptr = o_ptr if side == 0 else i_ptr
                nbr = o_nbr if side == 0 else i_nbr
                eid = o_eid if side == 0 else i_eid
                for j in range(ptr[x], ptr[x + 1]):
                    if got >= limit:
                        break
                    y = nbr[j]
                    if part[eid[j]] >= 0 or in_s[y] == p:
                        continue
                    k = _join_boundary(
                        y, p, o_ptr, o_nbr, o_eid, i_ptr, i_nbr, i_eid, part, in_s, rest, heap, pos
                    )
                    got += k
                    done += k
                    if rest[y] > 0:
                        heap[size] = y
                        pos[y] = size
                        size += 1
                        _sift_up(rest, heap, pos, size - 1)
        for i in range(size):
            pos[heap[i]] = -1
    for e in range(m):
        if part[e] < 0:
            part[e] = num_parts - 1
    return part


@register
class NeighbourhoodExpansion(Partitioner):
    """Neighbourhood Expansion: grow each part from its boundary (in memory, not streaming).

    Parameters
    ----------
    alpha : float, default 1.0
        Edge budget of each part but the last is ``ceil(alpha * m / P)``; must be >= 1.
    order : {"shuffle", "input"}, default "shuffle"
        Order in which seed vertices are tried when a boundary runs empty.

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]), "ne", 2)
    >>> a.report().replication_factor  # the two triangles split cleanly
    1.0
    """

    name = "ne"
    kind = "vertex-cut"
    summary = "Neighbourhood Expansion (in memory, high quality)"
    defaults = {"alpha": 1.0, "order": "shuffle"}

    def check_options(self) -> None:
        super().check_options()
        a = self.options["alpha"]
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not a >= 1.0:
            raise InputError(f"Expected alpha to be a number >= 1 (got {a!r})")

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        limit = max(1, math.ceil(float(self.options["alpha"]) * inp.num_edges / num_parts))
        seeds = vertex_order(inp.num_vertices, self.options["order"], seed)
        o_ptr, o_nbr, o_eid = inp.out_adj
        i_ptr, i_nbr, i_eid = inp.in_adj
        return _ne_parts(
            inp.num_vertices,
            inp.num_edges,
            o_ptr,
            o_nbr,
            o_eid,
            i_ptr,
            i_nbr,
            i_eid,
            num_parts,
            limit,
            seeds.astype(np.int64),
        )
