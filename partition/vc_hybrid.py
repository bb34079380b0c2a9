"""``hybrid``: PowerLyra's hybrid-cut (Chen et al., EuroSys 2015).

An edge ``u -> v`` whose target has in-degree at most ``threshold`` goes to the hash of ``v``:
all in-edges of a low-degree vertex stay together, so its gather is local (an edge-cut for
the many low-degree vertices). When ``v`` has a higher in-degree the edge goes to the hash of
``u`` instead: the in-edges of the few high-degree vertices are spread (a vertex-cut).
In-degrees are those of the input as given (direction matters).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gas.errors import InputError
from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import hash_vertex, reduce_range, seed_to_uint
from gas.partition.vc_dbh import _compact_counts


@njit(cache=True, parallel=True)
def _hybrid_parts(src, dst, in_degree, threshold, num_parts, seed):
    out = np.empty(src.shape[0], np.int32)
    for e in prange(src.shape[0]):  # independent per edge: any thread count, same result
        v = dst[e]
        w = v if in_degree[v] <= threshold else src[e]
        out[e] = reduce_range(hash_vertex(w, seed), num_parts)
    return out


@register
class HybridCut(Partitioner):
    """Low-degree targets keep their in-edges together; high-degree targets are cut by source.

    Parameters
    ----------
    threshold : int, default 100
        In-degree above which a vertex counts as high-degree.

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 1, 2], [3, 3, 3]), "hybrid", 2, threshold=5)
    >>> len(set(a.edge_part.tolist()))  # vertex 3 has in-degree 3 <= 5: one part
    1
    """

    name = "hybrid"
    kind = "vertex-cut"
    summary = "PowerLyra: low-degree in-edges together, high-degree ones cut"
    defaults = {"threshold": 100}

    def check_options(self) -> None:
        super().check_options()
        t = self.options["threshold"]
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t < 0:
            raise InputError(f"Expected threshold to be an integer >= 0 (got {t!r})")

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        indeg = _compact_counts(inp.in_degree)
        t = int(self.options["threshold"])
        return _hybrid_parts(inp.src, inp.dst, indeg, t, num_parts, seed_to_uint(seed))
