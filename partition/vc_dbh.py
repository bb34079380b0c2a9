"""``dbh``: degree-based hashing (Xie et al., NIPS 2014).

Each edge goes to the hash of its endpoint with the smaller total degree (ties: the smaller
id), so low-degree vertices keep their edges together and high-degree vertices are the ones
cut. Degrees are the full degrees of the input (one pass, before assigning).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import hash_vertex, reduce_range, seed_to_uint


@njit(cache=True, parallel=True)
def _dbh_parts(src, dst, degree, num_parts, seed):
    out = np.empty(src.shape[0], np.int32)
    for e in prange(src.shape[0]):  # independent per edge: any thread count, same result
        u = src[e]
        v = dst[e]
        du = degree[u]
        dv = degree[v]
        w = u if (du < dv or (du == dv and u <= v)) else v
        out[e] = reduce_range(hash_vertex(w, seed), num_parts)
    return out


def _compact_counts(counts: np.ndarray) -> np.ndarray:
    """Degrees as int32 when they fit: half the bytes, so more of them stay in cache."""
    if counts.size and int(counts.max()) >= 2**31:
        return np.ascontiguousarray(counts, dtype=np.int64)
    return counts.astype(np.int32)


@register
class DegreeBasedHashing(Partitioner):
    """Vertex-cut by hashing the lower-degree endpoint.

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 0, 0, 1], [1, 2, 3, 2]), "dbh", 2)
    >>> len(set(a.edge_part[:3].tolist())) <= 3  # the hub 0 is the one cut
    True
    """

    name = "dbh"
    kind = "vertex-cut"
    summary = "hash of the endpoint with the smaller degree"

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        deg = _compact_counts(inp.degree)
        return _dbh_parts(inp.src, inp.dst, deg, num_parts, seed_to_uint(seed))
