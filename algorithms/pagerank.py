"""PageRank as a vertex program, with networkx's normalization and stopping rule.

Fixed point (``N`` vertices, ``d(u)`` out-degree or out-weight, ``D`` the dangling vertices)::

    x_v = (1 - alpha) / N + alpha * ( sum_{u -> v} x_u * w_uv / d(u) + sum_{u in D} x_u / N )

Iteration starts from ``x = 1/N`` and stops after the first superstep whose L1 change
``sum_v |x_v - x_v_prev|`` is below ``N * tol`` (networkx's rule), so the result sums to 1.
"""

from __future__ import annotations

import warnings

import numpy as np

from gas.engine import RunResult, SyncEngine
from gas.graph import Graph
from gas.program import IN, VertexProgram

__all__ = ["PageRankProgram", "WeightedPageRankProgram", "pagerank"]


class PageRankProgram(VertexProgram):
    """Pull PageRank: each vertex gathers ``contrib = rank / out_degree`` of its in-neighbours.

    ``contrib`` is kept in the vertex data so the gather reads one value per edge; the dangling
    mass and the L1 change are global aggregates read by the next superstep.
    """

    vertex_data = {"rank": np.float64, "contrib": np.float64, "change": np.float64}
    gather_edges = IN
    dynamic = False
    aggregates = {"dangling": "sum", "change": "sum"}

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
        v.change = abs(new - v.rank)
        v.rank = new
        v.contrib = new / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_degree == 0 else 0.0), v.change

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
        v.change = abs(new - v.rank)
        v.rank = new
        v.contrib = new / v.out_weight if v.out_weight != 0.0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_weight == 0.0 else 0.0), v.change


def pagerank(
    G: Graph,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    weight: str | None = None,
    *,
    threads: int | None = None,
    debug: bool = False,
    progress=None,
    return_result: bool = False,
) -> np.ndarray | tuple[np.ndarray, RunResult]:
    """PageRank of every vertex, indexed by internal vertex id (``G.ids`` maps back).

    Parameters
    ----------
    G : Graph
    alpha : float, default 0.85
        Damping factor.
    tol : float, default 1e-6
        Stop when the L1 change of one iteration is below ``num_vertices * tol`` (networkx).
    max_iter : int, default 100
        Most iterations; a :class:`RuntimeWarning` is issued if the tolerance was not reached.
    weight : str, optional
        Edge column holding weights (``"weight"``); ``None`` treats every edge as weight 1.
    threads : int, optional
        Numba threads.
    debug : bool, default False
        Run the program as plain Python.
    progress : callable, optional
        Called with each iteration's statistics (``iteration``, ``active``, ``change``, ...).
    return_result : bool, default False
        Also return the engine's :class:`~gas.engine.RunResult` (statistics, iterations).

    Returns
    -------
    ndarray of float64
        Ranks summing to 1, as ``networkx.pagerank`` (dangling vertices spread their rank evenly).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([1, 2, 3], [2, 3, 1])
    >>> gas.algorithms.pagerank(g).round(4).tolist()
    [0.3333, 0.3333, 0.3333]
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"Expected 'alpha' in [0, 1] (got {alpha})")
    if G.num_vertices == 0:
        empty = np.zeros(0, np.float64)
        return (empty, RunResult(np.zeros(0), empty, 0, True)) if return_result else empty
    if weight is not None:
        if weight != "weight" or weight not in G.edata:
            raise ValueError(
                f"Expected weight='weight' on a graph with a weight column (got {weight!r}; "
                f"edge columns: {sorted(G.edata)})"
            )
        eng = SyncEngine(G, WeightedPageRankProgram(alpha, tol), threads=threads, debug=debug)
        eng.columns["out_weight"][:] = np.bincount(G.src, weights=G.edata[weight], minlength=G.num_vertices)
    else:
        eng = SyncEngine(G, PageRankProgram(alpha, tol), threads=threads, debug=debug)
    res = eng.run(max_iter, progress=progress)
    if not res.converged:
        warnings.warn(
            f"PageRank did not reach tol={tol} in {max_iter} iterations "
            f"(last L1 change {res.aggregates.get('change', float('nan')):.3e}); raise max_iter",
            RuntimeWarning,
            stacklevel=2,
        )
    return (res.output, res) if return_result else res.output
