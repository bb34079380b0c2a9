"""The synchronous PageRank programs (pull form, networkx's normalization and stopping rule),
in a module of their own so that :mod:`.pagerank_personal`'s programs can extend them
(:mod:`.pagerank` imports :mod:`.pagerank_personal`).

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
>>> gas.run(g, PageRankProgram(), max_iter=100).output.round(4).tolist()
[0.3333, 0.3333, 0.3333]
"""

from __future__ import annotations

import numpy as np

from gas.program import IN, VertexProgram

__all__ = ["PageRankProgram", "WeightedPageRankProgram"]


class PageRankProgram(VertexProgram):
    """Pull PageRank: each vertex gathers ``contrib = rank / out_degree`` of its in-neighbours.

    ``contrib`` is kept in the vertex data so the gather reads one value per edge; the dangling
    mass and the L1 change are global aggregates read by the next superstep.
    """

    vertex_data = {"rank": np.float64, "contrib": np.float64, "change": np.float64}
    gather_edges = IN
    dynamic = False
    aggregates = {"dangling": "sum", "change": "sum"}
    checked = False  # bundled and tested: compiled without bounds checks (gas.VertexProgram)

    def __init__(self, alpha: float = 0.85, tol: float = 1e-6) -> None:
        self.alpha = float(alpha)
        self.tol = float(tol)

    def init(self, v, ctx):
        v.rank = 1.0 / ctx.num_vertices
        v.contrib = v.rank / v.out_degree if v.out_degree > 0 else 0.0

    def gather(self, v, e, nbr):
        return nbr.contrib

    def apply(self, v, total, ctx):
        n = ctx.num_vertices
        new = (1.0 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
        v.change = new - v.rank  # signed: pagerank()'s extrapolation reads the step
        v.rank = new
        v.contrib = new / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_degree == 0 else 0.0), abs(v.change)

    def converged(self, ctx):
        return ctx.change < ctx.num_vertices * self.tol


class WeightedPageRankProgram(PageRankProgram):
    """PageRank where edge ``u -> v`` carries ``weight / out_weight(u)`` of ``u``'s rank."""

    vertex_data = {**PageRankProgram.vertex_data, "out_weight": np.float64}

    def init(self, v, ctx):
        v.rank = 1.0 / ctx.num_vertices
        v.contrib = v.rank / v.out_weight if v.out_weight != 0.0 else 0.0

    def gather(self, v, e, nbr):
        return nbr.contrib * e.weight

    def apply(self, v, total, ctx):
        n = ctx.num_vertices
        new = (1.0 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
        v.change = new - v.rank
        v.rank = new
        v.contrib = new / v.out_weight if v.out_weight != 0.0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_weight == 0.0 else 0.0), abs(v.change)
