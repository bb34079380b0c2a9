"""Accumulative (delta) PageRank for bounded staleness: every change is sent once, never re-read.

Power iteration recomputes each rank from the neighbours' *values*; under bounded staleness a
rank running ahead recomputes from the same stale boundary values, and a rank behind never reads
the newer values it was sent. The accumulative form (Maiter, Zhang et al., TPDS 2014) sends only
*changes*: a vertex that received mass ``r`` adds it to its value and passes ``alpha * r / d``
along each out-edge. Each piece of mass is delivered exactly once whatever the delivery order, so
a stale read only delays mass, and a rank running ahead still moves mass inside its own part.

It solves the unnormalized system (``N`` vertices, ``d(u)`` out-degree, dangling vertices pass
nothing on)::

    y = (1 - alpha) / N + alpha * P^T y,      pagerank = y / sum(y)

which equals networkx's PageRank (uniform teleport and uniform redistribution of dangling mass
make the two proportional), so no global dangling term is needed.

Stopping. Mass enters once (``1 - alpha`` in total, at init) and leaves where it lands: the
fraction ``1 - alpha`` at a vertex with out-edges, all of it at a dangling vertex. So the mass
still travelling is ``pending = (1 - alpha) - sum_v y_v * keep(v)`` with ``keep = 1 - alpha``
(or 1 if dangling): one sum over the masters, exact whatever is in flight. It adds at most
``pending / (1 - alpha)`` to ``y`` in L1, so :meth:`converged` stops once that is below
``N * tol * sum(y)`` (``tol`` per vertex as networkx; the normalized L1 error is then at most
``2 N tol``). The test holds on the aggregates of any complete superstep even when ranks read
stale data (``stale_safe_stop``), so a bounded-staleness run stops on its first passing
superstep instead of waiting ``s + 2`` in a row.

Under :mod:`gas.runtime.ssp` the field ``send`` is a *delta field* (``delta_fields``): a mirror
adds each received ``send`` to its row and clears it after gathering it, and masters add each
received partial total once, so every change is counted exactly once.

Examples
--------
>>> import networkx as nx, numpy as np, gas
>>> g = gas.Graph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 3, 0])
>>> res = gas.SyncEngine(g, AccumulativePageRankProgram(tol=1e-12)).run(500)
>>> ranks = res.output / res.output.sum()
>>> ref = nx.pagerank(nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 0)]), tol=1e-12)
>>> bool(np.abs(ranks - [ref[v] for v in range(4)]).sum() < 1e-9), res.converged
(True, True)
"""

from __future__ import annotations

import numpy as np

from gas.program import IN, VertexProgram

__all__ = ["AccumulativePageRankProgram"]


class AccumulativePageRankProgram(VertexProgram):
    """PageRank by accumulated deltas (unnormalized ``y``; divide the output by its sum).

    ``rank`` holds the mass received so far (``y``), ``send`` what each out-edge carries from
    the last apply (``alpha * received / d``). Static (every vertex runs every superstep), pull
    form: it runs on :class:`gas.SyncEngine`, on processes (BSP) and under bounded staleness.
    """

    vertex_data = {"rank": np.float64, "send": np.float64}
    gather_edges = IN
    dynamic = False
    aggregates = {"left": "sum", "mass": "sum"}
    #: fields whose mirror copies add what they receive and are cleared once gathered (SSP)
    delta_fields = ("send",)
    #: ``converged`` bounds the remaining error on any complete superstep, stale reads or not
    stale_safe_stop = True

    def __init__(self, alpha: float = 0.85, tol: float = 1e-6) -> None:
        self.alpha = float(alpha)
        self.tol = float(tol)

    def init(self, v, ctx):
        v.rank = (1.0 - self.alpha) / ctx.num_vertices
        v.send = self.alpha * v.rank / v.out_degree if v.out_degree > 0 else 0.0

    def gather(self, v, e, nbr):
        return nbr.send

    def apply(self, v, total, ctx):
        v.rank += total
        v.send = self.alpha * total / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):
        keep = (1.0 - self.alpha) if v.out_degree > 0 else 1.0
        return v.rank * keep, v.rank

    def converged(self, ctx):
        pending = (1.0 - self.alpha) - ctx.left
        return pending < (1.0 - self.alpha) * ctx.num_vertices * self.tol * ctx.mass
