"""PageRank as a vertex program, with networkx's normalization and stopping rule.

Fixed point (``N`` vertices, ``d(u)`` out-degree or out-weight, ``D`` the dangling vertices)::

    x_v = (1 - alpha) / N + alpha * ( sum_{u -> v} x_u * w_uv / d(u) + sum_{u in D} x_u / N )

Iteration starts from ``x = 1/N`` and stops after the first superstep whose L1 change
``sum_v |x_v - x_v_prev|`` is below ``N * tol`` (networkx's rule), so the result sums to 1.
"""

from __future__ import annotations

import warnings

import numpy as np

from gas.async_engine import AsyncEngine
from gas.engine import RunResult, SyncEngine
from gas.graph import Graph
from gas.program import IN, NONE, OUT, VertexProgram

__all__ = [
    "PageRankProgram",
    "WeightedPageRankProgram",
    "DeltaPageRankProgram",
    "WeightedDeltaPageRankProgram",
    "ResidualPageRankProgram",
    "pagerank",
]


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


class DeltaPageRankProgram(VertexProgram):
    """PageRank for the asynchronous engine: unnormalized pull updates with change signals.

    Solves ``y_v = (1 - alpha) / N + alpha * sum_{u -> v} y_u / d(u)`` with dangling vertices
    passing nothing; ``y / sum(y)`` is networkx's PageRank (uniform teleport and uniform
    dangling redistribution make the two proportional), so no global term is needed and every
    update reads only its in-neighbours. A vertex whose value moved by ``delta`` signals each
    out-neighbour with priority ``alpha * |delta| / d`` (the change it causes there) when
    ``|delta|`` exceeds ``tol``.
    """

    vertex_data = {"rank": np.float64, "contrib": np.float64, "delta": np.float64, "out_weight": np.float64}
    gather_edges = IN
    scatter_edges = OUT

    def __init__(self, alpha: float = 0.85, tol: float = 1e-10) -> None:
        self.alpha = float(alpha)
        self.tol = float(tol)

    def init(self, v, ctx):
        if v.out_weight == 0.0:
            v.out_weight = v.out_degree
        v.rank = 1.0 / ctx.num_vertices
        v.contrib = v.rank / v.out_weight if v.out_weight != 0.0 else 0.0
        v.delta = 0.0

    def gather(self, v, e, nbr):
        return nbr.contrib

    def apply(self, v, total, ctx):
        new = (1.0 - self.alpha) / ctx.num_vertices + self.alpha * total
        v.delta = new - v.rank
        v.rank = new
        v.contrib = new / v.out_weight if v.out_weight != 0.0 else 0.0

    def scatter(self, v, e, nbr):
        d = abs(v.delta)
        return self.alpha * d / v.out_weight if d > self.tol else 0.0


class WeightedDeltaPageRankProgram(DeltaPageRankProgram):
    """:class:`DeltaPageRankProgram` with edge weights (``out_weight`` set before the run)."""

    def gather(self, v, e, nbr):
        return nbr.contrib * e.weight

    def scatter(self, v, e, nbr):
        d = abs(v.delta)
        return self.alpha * d * e.weight / v.out_weight if d > self.tol else 0.0


class ResidualPageRankProgram(VertexProgram):
    """PageRank in residual (push) form for the asynchronous engine with ``full`` consistency.

    Each vertex holds its settled value ``rank`` and an unpropagated ``res`` (initially
    ``(1 - alpha) / N``). An update settles ``res`` into ``rank`` and pushes ``alpha * res / d``
    to each out-neighbour's ``res`` (a write to the neighbour: ``full`` consistency). A vertex
    schedules itself through ``priority`` while ``|res|`` exceeds ``tol * scale * (d + 1)``,
    with priority ``|res| / (d + 1)`` (mass moved per edge visited), so the scatter signals
    nothing and an edge costs one add. Residuals turn signed when :func:`pagerank` moves their common
    level into the final normalisation between rounds (``_ResidualShift``). The ranks converge to
    the same unnormalized ``y`` as :class:`DeltaPageRankProgram` (up to a factor); with
    ``scale = N / (M + N)`` (what :func:`pagerank` passes) the thresholds sum to ``N * tol`` and
    the remaining error is at most ``N * tol / (1 - alpha)`` (divided by the unshifted share).
    Only the scatter visits edges: an update costs its out-degree.
    """

    vertex_data = {"rank": np.float64, "res": np.float64, "sent": np.float64, "inv_d1": np.float64}
    gather_edges = NONE
    scatter_edges = OUT

    def __init__(self, alpha: float = 0.85, tol: float = 1e-10, scale: float = 1.0) -> None:
        self.alpha = float(alpha)
        self.tol = float(tol)
        self.scale = float(scale)
        self.cut = self.tol * self.scale

    def init(self, v, ctx):
        v.rank = 0.0
        v.res = (1.0 - self.alpha) / ctx.num_vertices
        v.inv_d1 = 1.0 / (v.out_degree + 1.0)

    def apply(self, v, total, ctx):
        # the share each out-edge carries, computed once per update rather than once per edge
        v.sent = self.alpha * v.res / v.out_degree if v.out_degree > 0 else 0.0
        v.rank += v.res
        v.res = 0.0

    def scatter(self, v, e, nbr):
        # no signal: the neighbour's residual is its priority (``priority``), read when the
        # scheduler reaches it, so an edge costs one add
        nbr.res += v.sent
        return False

    def priority(self, v):
        # degree-proportional threshold (as Andersen-Chung-Lang's push): pushing from v costs
        # d(v) edge visits, so small residuals wait at high-degree vertices; the thresholds sum
        # to N * tol when scale = N / (M + N). Residuals are signed once _ResidualShift has
        # moved a uniform part into the normalisation
        q = abs(v.res) * v.inv_d1
        return q if q > self.cut else 0.0


class _ResidualShift:
    """Progress hook for :class:`ResidualPageRankProgram`: after each round, moves a common
    residual level ``c``, the median residual of the vertices with out-edges, into the final
    normalisation.

    With ``b = (1 - alpha) / N`` on every vertex, the unnormalized answer is
    ``y* = rank + R res`` with ``R = (I - alpha P^T)^-1``, and ``R 1 = y* / b``. Writing
    ``res = c 1 + res'`` gives ``y* (1 - c / b) = rank + R res'``: the ranks, once ``res'`` is
    pushed out, are proportional to ``y*``, so a uniform part of the residual never needs
    pushing. Subtracting ``c`` leaves signed residuals (pushed like positive ones) and
    reschedules the vertices whose ``|res| / (d + 1)`` now exceeds the program's cut. The
    shifted share of ``y*`` (the sum of ``c / b``, either sign) is kept within ``limit``
    (precision). Measured to L1 1e-10: soc-Slashdot0811 needs half the pushes; graphs where most
    residuals are already 0 (soc-Epinions1) see a median of 0 and no shift.
    """

    def __init__(self, G: Graph, eng: AsyncEngine, prog: ResidualPageRankProgram, progress, limit=0.9):
        self.eng, self.prog, self.progress, self.limit = eng, prog, progress, float(limit)
        self.has_out = G.out_degree > 0
        self.buf = np.empty(int(self.has_out.sum()), np.float64)
        self.b = (1.0 - prog.alpha) / G.num_vertices
        self.shifted = 0.0

    def __call__(self, stat):
        k = self.buf.shape[0]
        if k:
            res = self.eng.columns["res"]
            # a median of 0 (at least half the residuals settled) is found without a partition,
            # and usually without the copy: fewer nonzero residuals overall than half of k
            zero = np.count_nonzero(res) <= k // 2
            if not zero:
                np.compress(self.has_out, res, out=self.buf)
                zero = np.count_nonzero(self.buf) <= k // 2
            c = 0.0 if zero else float(np.partition(self.buf, k // 2)[k // 2])
            if c != 0.0 and abs(self.shifted + c / self.b) <= self.limit:
                res -= c
                self.shifted += c / self.b
                q = np.abs(res) * self.eng.columns["inv_d1"]
                self.eng.schedule(q > self.prog.cut, q)
        if self.progress is not None:
            self.progress(stat)


def _pagerank_async(G, alpha, tol, max_iter, weight, threads, debug, progress, scheduler, consistency):
    """Asynchronous PageRank; returns the normalized ranks and the run's result."""
    n = G.num_vertices
    weighted = weight is not None
    # networkx stops when the L1 change of an iteration is below N * tol (error about
    # N * tol * alpha / (1 - alpha)); here a vertex is rescheduled only while its own pending
    # change exceeds tol (error at most N * tol / (1 - alpha)): the same order
    if consistency in (None, "full") and not weighted:
        prog: VertexProgram = ResidualPageRankProgram(alpha, tol, n / (G.num_edges + n))
        consistency = "full"
    else:
        prog = (WeightedDeltaPageRankProgram if weighted else DeltaPageRankProgram)(alpha, tol)
    # the pull form under ``priority``: the top half of the scheduled vertices per round (fewer
    # edge visits for it than the relaxed 0.01-of-the-highest rule on soc-Epinions1 and
    # soc-Slashdot0811, bench/RESULTS.md "Asynchronous engine")
    # the push form: a round runs every vertex above 0.003 of the highest priority (about as
    # few edge visits as 0.01 and a third fewer rounds, each a scan of every vertex, on
    # soc-Epinions1 and soc-Slashdot0811)
    pull = isinstance(prog, DeltaPageRankProgram)
    ratio, fraction = (0.0, 0.5) if pull else (0.003, 1.0)
    eng = AsyncEngine(
        G,
        prog,
        scheduler=scheduler,
        consistency=consistency,
        threads=threads,
        debug=debug,
        priority_ratio=ratio,
        priority_fraction=fraction,
    )
    if weighted:
        eng.columns["out_weight"][:] = np.bincount(G.src, weights=G.edata[weight], minlength=n)
    if isinstance(prog, ResidualPageRankProgram):
        progress = _ResidualShift(G, eng, prog, progress)
    res = eng.run(max_iter=max_iter, progress=progress)
    y = res.output
    return y / y.sum(), res


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
    engine: str = "sync",
    scheduler: str = "priority",
    consistency: str | None = None,
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
    engine : {"sync", "async"}, default "sync"
        ``"async"`` runs on :class:`gas.AsyncEngine`: a vertex is rescheduled while its own
        pending change exceeds ``tol``; ``max_iter`` counts rounds. With ``consistency="full"``
        (the default) the residual push form :class:`ResidualPageRankProgram`; with
        ``"edge"`` or ``"vertex"`` (or weights) the pull form :class:`DeltaPageRankProgram`.
    scheduler : {"priority", "fifo", "sweep"}, default "priority"
        Asynchronous engine only.
    consistency : {"vertex", "edge", "full"}, optional
        Asynchronous engine only (see ``engine``).

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
    if weight is not None and (weight != "weight" or weight not in G.edata):
        raise ValueError(
            f"Expected weight='weight' on a graph with a weight column (got {weight!r}; "
            f"edge columns: {sorted(G.edata)})"
        )
    if engine not in ("sync", "async"):
        raise ValueError(f"Expected engine 'sync' or 'async' (got {engine!r})")
    if engine == "async":
        ranks, res = _pagerank_async(
            G, alpha, tol, max_iter, weight, threads, debug, progress, scheduler, consistency
        )
        if not res.converged:
            warnings.warn(
                f"Asynchronous PageRank still had scheduled vertices after {max_iter} rounds; raise max_iter",
                RuntimeWarning,
                stacklevel=2,
            )
        return (ranks, res) if return_result else ranks
    if weight is not None:
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
