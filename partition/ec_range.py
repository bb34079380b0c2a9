"""``range``: edge-cut into ``P`` contiguous ranges of vertex ids.

With ``balance="edges"`` (default) each vertex weighs ``1 + in-degree`` (itself plus the edges
stored with it, as an edge-cut stores an edge with its target) and the ranges cut the running
total into ``P`` equal shares; with ``balance="vertices"`` the ranges hold equal vertex counts.
Ids that number neighbours close together (BFS orders, sorted crawls) keep most edges inside a
range; arbitrary ids do no better than hashing.
"""

from __future__ import annotations

import numpy as np

from gas.errors import InputError
from gas.partition.base import EdgeInput, Partitioner, register


@register
class RangeEdgeCut(Partitioner):
    """Edge-cut into contiguous id ranges of equal weight.

    Parameters
    ----------
    balance : {"edges", "vertices"}, default "edges"
        What the ranges balance (see the module docstring).

    Examples
    --------
    >>> from gas.partition import partition
    >>> partition(([0, 1, 2, 3], [1, 2, 3, 0]), "range", 2).vertex_part.tolist()
    [0, 0, 1, 1]
    """

    name = "range"
    kind = "edge-cut"
    summary = "contiguous id ranges of equal weight"
    defaults = {"balance": "edges"}

    def check_options(self) -> None:
        super().check_options()
        if self.options["balance"] not in ("edges", "vertices"):
            raise InputError(f"Expected balance 'edges' or 'vertices' (got {self.options['balance']!r})")

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        n = inp.num_vertices
        if self.options["balance"] == "edges":
            w = np.asarray(inp.in_degree, dtype=np.int64) + 1
        else:
            w = np.ones(n, dtype=np.int64)
        before = np.cumsum(w) - w  # weight of the vertices ahead of v
        total = int(w.sum())
        # integer arithmetic: part = floor(P * (before + w/2) / total), the midpoint's share
        mid2 = 2 * before + w
        parts = (mid2 * num_parts) // (2 * total)
        return np.minimum(parts, num_parts - 1).astype(np.int32)
