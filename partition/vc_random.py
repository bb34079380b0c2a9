"""``random``: each edge to a part chosen by a seeded hash of its canonical (min, max) pair.

As in PowerGraph's random ingress, the two directions of an undirected edge land together.
Expected replicas of a vertex of degree ``d`` over ``P`` parts: ``P (1 - (1 - 1/P)**d)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import hash_pair, reduce_range, seed_to_uint


@njit(cache=True, parallel=True)
def random_parts(src, dst, num_parts, seed):
    out = np.empty(src.shape[0], np.int32)
    for e in prange(src.shape[0]):  # independent per edge: any thread count, same result
        u = src[e]
        v = dst[e]
        if u > v:
            u, v = v, u
        out[e] = reduce_range(hash_pair(u, v, seed), num_parts)
    return out


@register
class RandomCut(Partitioner):
    """Vertex-cut by hashing the unordered endpoint pair (PowerGraph ``random``).

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 1, 2], [1, 0, 0]), "random", 2, seed=1)
    >>> bool(a.edge_part[0] == a.edge_part[1])  # (0,1) and (1,0) hash alike
    True
    """

    name = "random"
    kind = "vertex-cut"
    summary = "hash of the canonical (min, max) endpoint pair"

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        return random_parts(inp.src, inp.dst, num_parts, seed_to_uint(seed))
