"""Jitted kernels that derive the per-vertex and per-part views of an assignment.

Replica sets are kept as a bit matrix ``bits[v, w]`` (``W = ceil(P / 64)`` words per vertex)
while they are built, then packed into CSR form (``indptr``, sorted part ids).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gas.partition._bits import lowest_bit, popcount
from gas.partition.hashing import hash_vertex, reduce_range

_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _bit(p: np.int64) -> np.uint64:
    return _ONE << np.uint64(p & 63)


@njit(cache=True)
def edge_replica_bits(src, dst, edge_part, n, num_parts):
    """``bits[v]`` = set of parts holding at least one edge incident to ``v``."""
    w = (num_parts + 63) // 64
    bits = np.zeros((n, w), np.uint64)
    for e in range(src.shape[0]):
        p = np.int64(edge_part[e])
        b = _bit(p)
        bits[src[e], p >> 6] |= b
        bits[dst[e], p >> 6] |= b
    return bits


@njit(cache=True)
def ghost_bits(src, dst, vertex_part, n, num_parts):
    """``bits[v]`` = own part plus every part owning a neighbour of ``v`` (either direction)."""
    w = (num_parts + 63) // 64
    bits = np.zeros((n, w), np.uint64)
    for v in range(n):
        p = np.int64(vertex_part[v])
        bits[v, p >> 6] |= _bit(p)
    for e in range(src.shape[0]):
        u = src[e]
        v = dst[e]
        pu = np.int64(vertex_part[u])
        pv = np.int64(vertex_part[v])
        bits[u, pv >> 6] |= _bit(pv)
        bits[v, pu >> 6] |= _bit(pu)
    return bits


@njit(cache=True)
def set_own_bits(bits, owner):
    """Add each vertex's own part to its set (edge-cut: the owner is always a replica)."""
    for v in range(owner.shape[0]):
        p = np.int64(owner[v])
        bits[v, p >> 6] |= _bit(p)


@njit(cache=True)
def choose_masters(bits, num_parts, seed):
    """One master per vertex among its replicas, keeping master counts per part even.

    Pass 1 fixes vertices with a single replica. Pass 2 gives each replicated vertex (in id
    order) the replica part holding the fewest masters so far; ties go to the first candidate at
    or after a hashed offset, so no part is favoured. Pass 3 places vertices without edges on the
    part with the fewest masters and adds that part to their replica set.
    """
    n, w = bits.shape
    master = np.empty(n, np.int32)
    count = np.zeros(num_parts, np.int64)
    nrep = np.empty(n, np.int64)
    for v in range(n):
        c = 0
        for k in range(w):
            c += popcount(bits[v, k])
        nrep[v] = c
        if c == 1:
            for k in range(w):
                x = bits[v, k]
                if x:
                    p = k * 64 + lowest_bit(x)
                    master[v] = p
                    count[p] += 1
    for v in range(n):
        if nrep[v] < 2:
            continue
        # fewest masters among the replicas; ties to the first at or after a hashed start
        start = reduce_range(hash_vertex(v, seed), num_parts)
        best = -1
        best_key = 0
        for k in range(w):
            x = bits[v, k]
            while x:
                p = k * 64 + lowest_bit(x)
                x &= x - _ONE
                key = count[p] * num_parts + (p - start if p >= start else p - start + num_parts)
                if best < 0 or key < best_key:
                    best = p
                    best_key = key
        master[v] = best
        count[best] += 1
    for v in range(n):
        if nrep[v] != 0:
            continue
        start = reduce_range(hash_vertex(v, seed), num_parts)
        best = start
        for i in range(num_parts):
            p = start + i
            if p >= num_parts:
                p -= num_parts
            if count[p] < count[best]:
                best = p
        master[v] = best
        count[best] += 1
        bits[v, best >> 6] |= _bit(best)
    return master


@njit(cache=True)
def bits_to_csr(bits, num_parts):
    """Pack a bit matrix into CSR: ``indptr`` (int64, n + 1) and sorted ``parts`` (int32)."""
    n, w = bits.shape
    indptr = np.zeros(n + 1, np.int64)
    for v in range(n):
        c = 0
        for k in range(w):
            c += popcount(bits[v, k])
        indptr[v + 1] = indptr[v] + c
    parts = np.empty(indptr[n], np.int32)
    for v in range(n):
        j = indptr[v]
        for k in range(w):
            x = bits[v, k]
            while x:
                parts[j] = k * 64 + lowest_bit(x)
                j += 1
                x &= x - _ONE
    return indptr, parts


@njit(cache=True)
def group_by_key(keys, num_keys):
    """Stable counting sort of ``0..len(keys)-1`` by key: ``(indptr, ids)``."""
    indptr = np.zeros(num_keys + 1, np.int64)
    for i in range(keys.shape[0]):
        indptr[keys[i] + 1] += 1
    for k in range(num_keys):
        indptr[k + 1] += indptr[k]
    pos = indptr[:-1].copy()
    ids = np.empty(keys.shape[0], np.int64)
    for i in range(keys.shape[0]):
        k = keys[i]
        ids[pos[k]] = i
        pos[k] += 1
    return indptr, ids


@njit(cache=True)
def transpose_csr(indptr, parts, num_parts):
    """Per part, the sorted vertices listing it: the transpose of a vertex -> parts CSR."""
    n = indptr.shape[0] - 1
    out_ptr = np.zeros(num_parts + 1, np.int64)
    for j in range(parts.shape[0]):
        out_ptr[parts[j] + 1] += 1
    for p in range(num_parts):
        out_ptr[p + 1] += out_ptr[p]
    pos = out_ptr[:-1].copy()
    verts = np.empty(parts.shape[0], np.int64)
    for v in range(n):
        for j in range(indptr[v], indptr[v + 1]):
            p = parts[j]
            verts[pos[p]] = v
            pos[p] += 1
    return out_ptr, verts


@njit(cache=True)
def count_cut(src, edge_part, vertex_part):
    """Edges whose source's owner differs from the part of the edge (its target's owner)."""
    c = 0
    for e in range(src.shape[0]):
        c += vertex_part[src[e]] != edge_part[e]
    return c
