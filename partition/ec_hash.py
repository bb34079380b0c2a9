"""``hash``: edge-cut placing each vertex on the part given by a seeded hash of its id."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import hash_vertex, reduce_range, seed_to_uint


@njit(cache=True, parallel=True)
def hash_vertices(n, num_parts, seed):
    out = np.empty(n, np.int32)
    for v in prange(n):
        out[v] = reduce_range(hash_vertex(v, seed), num_parts)
    return out


@register
class HashEdgeCut(Partitioner):
    """Edge-cut by vertex hash (Pregel's default placement).

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 1, 2], [1, 2, 3]), "hash", 2, seed=0)
    >>> a.vertex_part.shape, a.kind
    ((4,), 'edge-cut')
    """

    name = "hash"
    kind = "edge-cut"
    summary = "vertex to hash(id) mod P"

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        return hash_vertices(inp.num_vertices, num_parts, seed_to_uint(seed))
