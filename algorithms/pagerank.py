"""PageRank as a vertex program, with networkx's normalization and stopping rule.

Fixed point (``N`` vertices, ``d(u)`` out-degree or out-weight, ``D`` the dangling vertices)::

    x_v = (1 - alpha) / N + alpha * ( sum_{u -> v} x_u * w_uv / d(u) + sum_{u in D} x_u / N )

Iteration starts from ``x = 1/N`` and stops after the first superstep whose L1 change
``sum_v |x_v - x_v_prev|`` is below ``N * tol`` (networkx's rule), so the result sums to 1.
A run that ends without meeting its rule raises :class:`gas.ConvergenceError` (catchable as
``networkx.PowerIterationFailedConvergence``) holding the partial ranks; so does one whose ranks
are not finite (with no ranks).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numba import njit

from gas.api import run
from gas.async_engine import AsyncEngine, superstep_work
from gas.cuda_device import device_engine
from gas.engine import RunResult
from gas.engine_base import engine_for
from gas.errors import GasError, GraphError, InputError, convergence_error
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import IN, NONE, OUT, VertexProgram

from .pagerank_extrapolate import _Extrapolation
from .pagerank_personal import personal_pagerank
from .pagerank_programs import PageRankProgram, WeightedPageRankProgram

__all__ = [
    "PageRankProgram",
    "WeightedPageRankProgram",
    "DeltaPageRankProgram",
    "WeightedDeltaPageRankProgram",
    "ResidualPageRankProgram",
    "pagerank",
    "check_weights",
    "power_step_change",
    "shortfall_message",
    "ASYNC_WORK_FACTOR",
]

#: The asynchronous engines' budget is this many times the work of ``max_iter`` synchronous
#: supersteps (``num_edges + num_vertices`` each). Measured to ``tol=1e-13`` on the graphs of
#: ../shared (bench/RESULTS.md, "Hardening"): one process (push form) needed at most 32
#: supersteps' work, two processes (pull form: an update visits its in- and out-edges) at most
#: 201 (email-Enron), so 5 x 100 leaves a margin of 2.5x where it is tightest.
ASYNC_WORK_FACTOR = 5


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
    nothing and an edge costs one add. Residuals turn signed when :func:`pagerank` moves their
    mean into the final normalisation between rounds (``_ResidualShift``). The ranks converge to
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


@njit(cache=True)
def _shift_residuals(res: np.ndarray, inv_d1: np.ndarray, c: float) -> float:
    """``res -= c`` in place; returns the new highest ``|res| * inv_d1`` (one pass, not four)."""
    top = 0.0
    for i in range(res.shape[0]):
        r = res[i] - c
        res[i] = r
        q = abs(r) * inv_d1[i]
        if q > top:
            top = q
    return top


class _ResidualShift:
    """Between-rounds hook for :class:`ResidualPageRankProgram` (``run(..., between=hook)``):
    after each round, moves the mean
    residual ``c`` into the final normalisation, so the residuals sum to zero again.

    With ``b = (1 - alpha) / N`` on every vertex, the unnormalized answer is
    ``y* = rank + R res`` with ``R = (I - alpha P^T)^-1``, and ``R 1 = y* / b``. Writing
    ``res = c 1 + res'`` gives ``y* (1 - c / b) = rank + R res'``: the ranks, once ``res'`` is
    pushed out, are proportional to ``y*``, so a uniform part of the residual never needs
    pushing. Subtracting ``c`` leaves signed residuals (pushed like positive ones); the program
    schedules itself from them (``priority``), and the engine is told the new highest priority.
    The shifted share of ``y*`` (the sum of ``c / b``, either sign) is kept within ``limit``
    (precision).

    Why the mean. The push form drops the mass of dangling vertices where power iteration
    spreads it evenly; the two residuals differ by a uniform vector, so after this shift both
    sum to zero, which is what power iteration's residual does once its iterate is normalised.
    The shift gives the push form, between rounds, the normalisation that makes power
    iteration converge at ``alpha * |lambda_2|`` rather than at the slower rate of the
    dangling-absorbing system, and takes fewer edge visits than no shift or a shift by the
    median of the residuals (figures: bench/RESULTS.md, sections "Asynchronous engine" and
    "Figures formerly in docstrings").
    """

    def __init__(self, G: Graph, prog: ResidualPageRankProgram, limit=0.9):
        self.prog, self.limit = prog, float(limit)
        self.b = (1.0 - prog.alpha) / G.num_vertices
        self.shifted = 0.0

    def __call__(self, eng: AsyncEngine, stat):
        res = eng.columns["res"]
        c = float(res.sum()) / res.shape[0] if res.shape[0] else 0.0
        if c != 0.0 and abs(self.shifted + c / self.b) <= self.limit:
            self.shifted += c / self.b
            top = _shift_residuals(res, eng.columns["inv_d1"], c)
            eng.raise_top_priority(top)


def _pagerank_async(G, alpha, tol, max_iter, weight, threads, debug, progress, scheduler, consistency):
    """Asynchronous PageRank; returns the normalized ranks and the run's result. ``max_iter``
    is a budget of supersteps' work: ``ASYNC_WORK_FACTOR * max_iter`` times
    :func:`gas.async_engine.superstep_work`."""
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
    # the push form: a round runs every vertex above 0.03 of the highest priority. With the
    # mean shift, lower ratios push nearly every vertex each round: to L1 1e-10, 0.001 needed
    # 102 m edge visits on soc-Slashdot0811 and 20.7 m on R-MAT-20, 0.03 needs 18 m and 9.5 m
    # (soc-Epinions1: 19 m either way, but 143 rounds against 82, each a scan of every vertex)
    pull = isinstance(prog, DeltaPageRankProgram)
    ratio, fraction = (0.0, 0.5) if pull else (0.03, 1.0)
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
    hook = _ResidualShift(G, prog) if isinstance(prog, ResidualPageRankProgram) else None
    budget = ASYNC_WORK_FACTOR * int(max_iter) * superstep_work(G)  # bounds rounds too (>= 1 each)
    res = eng.run(max_iter=budget, progress=progress, max_work=budget, between=hook)
    y = res.output
    return y / y.sum(), res


def check_weights(G: Graph, weight: str) -> np.ndarray:
    """The edge column ``weight``, refused unless every value is finite and non-negative.

    Raises
    ------
    GraphError
        Naming how many weights are bad, the first one and its edge (original ids).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.0, -2.0, float("nan")])
    >>> try:
    ...     check_weights(g, "weight")
    ... except gas.GraphError as exc:
    ...     print(str(exc)[:64])
    PageRank needs finite, non-negative edge weights: 2 of 3 are not
    """
    w = np.asarray(G.edata[weight])
    if not np.issubdtype(w.dtype, np.number):
        raise GraphError(f"PageRank needs numeric edge weights (got a column of {w.dtype})")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        e = int(bad[0])
        raise GraphError(
            f"PageRank needs finite, non-negative edge weights: {bad.size} of {w.size} are not "
            f"(first: {float(w[e])!r} on edge {G.ids[G.src[e]]} -> {G.ids[G.dst[e]]}); hint: fix the "
            "input, or run without weights"
        )
    with np.errstate(over="ignore"):
        out = np.bincount(G.src, weights=w, minlength=G.num_vertices)
    over = np.flatnonzero(~np.isfinite(out))
    if over.size:
        raise GraphError(
            f"PageRank's out-weight of vertex {G.ids[over[0]]} (the sum of its edge weights) "
            f"overflows to {out[over[0]]} ({over.size} such vertices); hint: scale the weights down"
        )
    return w


def power_step_change(G: Graph, ranks: np.ndarray, alpha: float, weight: str | None = None) -> float:
    """L1 change ``|G(x) - x|`` of one power-iteration step from ``x = ranks / sum(ranks)``:
    networkx's stopping test, measured on any answer (how far an unconverged run got)."""
    x = ranks / ranks.sum()
    n = G.num_vertices
    w = None if weight is None else G.edata[weight]
    d = np.bincount(G.src, weights=w, minlength=n).astype(np.float64)
    share = np.divide(x, d, out=np.zeros(n), where=d != 0)
    per_edge = share[G.src] if w is None else share[G.src] * w
    total = np.bincount(G.dst, weights=per_edge, minlength=n)
    new = (1.0 - alpha) / n + alpha * (total + x[d == 0].sum() / n)
    return float(np.abs(new - x).sum())


def shortfall_message(res: RunResult, engine: str, max_iter: int, change: float, work: int, n: int) -> str:
    """How far an unconverged PageRank got (its error's message, without the target): the
    synchronous engine's last L1 change, or the asynchronous engine's ``work`` (edge visits
    and updates), rounds, vertices still scheduled and ``change`` (one power step's L1)."""
    if engine != "async":  # the synchronous engine, on the CPU or a GPU ("cuda")
        return f"PageRank stopped after {res.iterations} supersteps with L1 change {change:.1e}"
    left = int(res.stats[-1].get("scheduled", 0)) if res.stats else n
    return (
        f"Asynchronous PageRank stopped at its budget of {ASYNC_WORK_FACTOR} x {max_iter} "
        f"supersteps' work ({work:,d} edge visits and updates in {res.iterations} rounds) with "
        f"{left:,d} vertices still scheduled; one power-iteration step from its ranks changes "
        f"them by L1 {change:.1e}"
    )


def _check_result(G, ranks, res, alpha, tol, max_iter, weight, engine) -> None:
    """Raise :class:`gas.ConvergenceError` for non-finite ranks or a run that stopped short."""
    n = G.num_vertices
    target = n * tol
    bad = np.flatnonzero(~np.isfinite(ranks))
    if bad.size:
        raise convergence_error(
            f"PageRank produced {bad.size} non-finite scores (first at vertex {G.ids[bad[0]]}: "
            f"{ranks[bad[0]]}): the iteration diverged; check the edge weights",
            iterations=res.iterations,
            target=target,
        )
    if res.converged:
        return
    if engine == "sync":
        change = float(res.aggregates.get("change", float("nan")))
        work = 0
    else:
        change = power_step_change(G, ranks, alpha, weight)
        work = res.edge_updates + res.updates
    msg = shortfall_message(res, engine, max_iter, change, work, n)
    raise convergence_error(
        f"{msg}, target N*tol = {target:.1e}",
        iterations=res.iterations,
        residual=change,
        target=target,
        result=ranks,
        run=res,
    )


def pagerank(
    G: Graph,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    weight: str | None = None,
    *,
    personalization: dict | np.ndarray | None = None,
    nstart: dict | np.ndarray | None = None,
    dangling: dict | np.ndarray | None = None,
    threads: int | None = None,
    debug: bool = False,
    progress=None,
    return_result: bool = False,
    engine: str = "sync",
    scheduler: str = "priority",
    consistency: str | None = None,
    extrapolate_every: int = 6,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
    device: str = "cpu",
) -> np.ndarray | tuple[np.ndarray, RunResult]:
    """PageRank of every vertex, indexed by internal vertex id (``G.ids`` maps back).

    Parameters
    ----------
    G : Graph
    alpha, tol, max_iter : default 0.85, 1e-6, 100
        Damping factor; stop once an iteration's L1 change is below ``N * tol``, or after ``max_iter``
        supersteps (async: edge visits and updates of ``ASYNC_WORK_FACTOR`` (5) x ``max_iter * (M + N)``).
    weight : str, optional
        Edge column holding weights (``"weight"``); ``None`` treats every edge as weight 1.
    personalization, nstart, dangling : Mapping or ndarray, optional
        networkx's teleport, starting and dangling distributions (``dangling`` defaults to the teleport),
        by original id ``{id: weight}`` or arrays by internal id; sync engine (:mod:`.pagerank_personal`).
    threads, debug, progress, return_result
        Numba threads; plain Python; called with each iteration's statistics; return the RunResult too.
    engine, scheduler, consistency : default "sync", "priority", None
        ``"async"``: :class:`gas.AsyncEngine`, a vertex rescheduled while its pending change exceeds ``tol``;
        push :class:`ResidualPageRankProgram` under ``"full"`` (one process's default), else pull
        :class:`DeltaPageRankProgram`.
    extrapolate_every : int, default 6
        One process, sync engine: an Anderson extrapolation every this many supersteps (``_Extrapolation``);
        0 runs plain power iteration, as networkx and several processes do.
    procs, partition, options, device
        As in :func:`gas.run` (``procs > 1``: local processes). ``device``: ``"cpu"``, ``"cuda"`` (a
        GPU, same answer) or ``"auto"`` (:func:`gas.cuda_device.device_engine` says what each runs).

    Returns
    -------
    ndarray of float64
        Ranks summing to 1, as ``networkx.pagerank``.

    Raises
    ------
    gas.ConvergenceError
        The run missed its stopping rule (``result``: the partial ranks, ``residual`` and
        ``target``: the last L1 change and ``N * tol``), or its ranks are not finite.
    GraphError, InputError
        A weight negative, NaN or infinite; ``alpha`` outside [0, 1]; ``tol`` negative or not finite;
        an unknown id or a bad weight in ``personalization``, ``nstart`` or ``dangling``.

    Examples
    --------
    >>> g = Graph.from_edges([1, 2, 3], [2, 3, 1])
    >>> pagerank(g).round(4).tolist(), pagerank(g, personalization={1: 1.0}).round(4).tolist()
    ([0.3333, 0.3333, 0.3333], [0.3887, 0.3304, 0.2809])
    """
    if options is not None:  # the one-process settings may come in the options too
        threads, debug = threads if threads is not None else options.threads, debug or options.debug
    run_engine = _check_args(G, alpha, tol, weight, engine, device, debug)
    if G.num_vertices == 0:
        empty = np.zeros(0, np.float64)
        return (empty, RunResult(np.zeros(0), empty, 0, True)) if return_result else empty
    how = (run_engine, scheduler, consistency, extrapolate_every, procs, partition, options)
    vectors = (personalization, nstart, dangling)
    ranks, res = _pagerank_with(G, alpha, tol, max_iter, weight, threads, debug, progress, how, vectors)
    _check_result(G, ranks, res, alpha, tol, max_iter, weight, engine)
    return (ranks, res) if return_result else ranks


def _pagerank_with(G, alpha, tol, max_iter, weight, threads, debug, progress, how, vectors=(None,) * 3):
    """The ranks and the run's result, by the path ``how`` picks: several processes (or settings
    only the process runtime runs) through :func:`gas.run`, else one process's engine; given any
    of ``vectors`` (personalization, nstart, dangling), :func:`personal_pagerank`."""
    if any(a is not None for a in vectors):
        args = (G, alpha, tol, max_iter, weight, vectors, how, threads, debug, progress, ASYNC_WORK_FACTOR)
        return personal_pagerank(*args)
    engine, scheduler, consistency, every, procs, partition, options = how
    if procs != 1 or _needs_run(options):
        where = dict(procs=procs, partition=partition, options=options, threads=threads, debug=debug)
        return _pagerank_run(G, alpha, tol, max_iter, weight, progress, engine, scheduler, consistency, where)
    if engine == "async":
        args = (G, alpha, tol, max_iter, weight, threads, debug, progress, scheduler, consistency)
        return _pagerank_async(*args)
    return _pagerank_sync(G, alpha, tol, max_iter, weight, threads, debug, progress, every, engine)


def _needs_run(options: RunOptions | None) -> bool:
    """Whether ``options`` ask for what only :func:`gas.run`'s process runtime or launcher does."""
    return options is not None and (options.needs_runtime or options.launcher != "off")


def _check_args(
    G: Graph, alpha: float, tol: float, weight: str | None, engine: str, device: str, debug: bool
) -> str:
    """Refuse a bad ``alpha``, ``tol``, ``weight`` column (or weights), ``engine`` or ``device``;
    returns the engine the run uses (``"cuda"`` for ``device="cuda"``)."""
    run_engine = device_engine(device, G.num_edges, engine, debug=debug)
    if not 0.0 <= alpha <= 1.0:
        raise InputError(f"Expected 'alpha' in [0, 1] (got {alpha})")
    if not (np.isfinite(tol) and tol >= 0.0):
        raise InputError(f"Expected 'tol' finite and >= 0 (got {tol})")
    if G.num_vertices == 0:
        return run_engine
    if weight is not None and (weight != "weight" or weight not in G.edata):
        raise ValueError(
            f"Expected weight='weight' on a graph with a weight column (got {weight!r}; "
            f"edge columns: {sorted(G.edata)})"
        )
    if engine not in ("sync", "async"):
        raise ValueError(f"Expected engine 'sync' or 'async' (got {engine!r})")
    if weight is not None:
        check_weights(G, weight)
    return run_engine


def _pagerank_run(G, alpha, tol, max_iter, weight, progress, engine, scheduler, consistency, where):
    """PageRank through :func:`gas.run` (``where``: ``procs``, ``partition``, ``options``,
    ``threads``, ``debug``): plain power iteration, or the asynchronous pull form budgeted by
    work. Weights travel as each vertex's starting ``out_weight``."""
    from gas.runtime.local import initial_state

    weighted = weight is not None
    kw: dict = {"max_iter": max_iter}
    if engine == "async":
        if consistency == "full":
            raise GasError("consistency='full' runs on one process only (procs=1); use 'edge' or 'vertex'")
        prog: VertexProgram = (WeightedDeltaPageRankProgram if weighted else DeltaPageRankProgram)(alpha, tol)
        budget = ASYNC_WORK_FACTOR * int(max_iter) * superstep_work(G)
        kw = {"max_iter": budget, "max_work": budget, "scheduler": scheduler, "consistency": consistency}
    else:
        prog = (WeightedPageRankProgram if weighted else PageRankProgram)(alpha, tol)
    opts = where.pop("options") or RunOptions()
    if weighted:
        out_weight = np.bincount(G.src, weights=G.edata[weight], minlength=G.num_vertices)
        opts = replace(opts, restore=initial_state(G, prog, {"vertex": {"out_weight": out_weight}}))
    res = run(G, prog, engine=engine, progress=progress, options=opts, **where, **kw)
    y = res.output
    return (y / y.sum() if engine == "async" else y), res


def _pagerank_sync(G, alpha, tol, max_iter, weight, threads, debug, progress, every, engine="sync"):
    """Synchronous PageRank (power iteration, extrapolated every ``every`` supersteps) on the
    engine ``engine``: ``"sync"`` (the CPU) or ``"cuda"`` (the same supersteps on a GPU)."""
    if weight is not None:
        eng = engine_for(G, WeightedPageRankProgram(alpha, tol), engine, threads=threads, debug=debug)
        degree = np.bincount(G.src, weights=G.edata[weight], minlength=G.num_vertices)
        eng.columns["out_weight"][:] = degree  # the CUDA engine's run copies it to the device
    else:
        eng = engine_for(G, PageRankProgram(alpha, tol), engine, threads=threads, debug=debug)
        degree = G.out_degree
    hook = _Extrapolation(degree, every) if every else None
    res = eng.run(max_iter, progress=progress, between=hook)
    return res.output, res
