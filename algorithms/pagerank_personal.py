"""Personalized PageRank: networkx's ``personalization``, ``nstart`` and ``dangling``.

Fixed point (``p`` the teleport distribution, ``q`` where dangling vertices ``D`` send their
rank, ``d(u)`` the out-degree or out-weight)::

    x_v = (1 - alpha) * p_v + alpha * ( sum_{u -> v} x_u * w_uv / d(u) + q_v * sum_{u in D} x_u )

Iteration starts from ``nstart`` (default ``1/N``); ``q`` defaults to ``p`` and ``p`` to
``1/N``, so with none of the three this is :func:`gas.algorithms.pagerank`'s plain fixed point.
Each argument is a mapping ``{original id: weight}`` (missing vertices 0) or an array of
``num_vertices`` weights by internal id; it is normalised to sum 1, as networkx does.
:func:`gas.algorithms.pagerank` calls :func:`personal_pagerank` when any of them is given.

The programs keep ``p_v`` and ``q_v`` in vertex fields (``tele``, ``dang``) and the dangling
mass as an aggregate, as :class:`PageRankProgram` does; the starting ranks are set in the
``rank`` column before the run (one process) or travel in :func:`gas.runtime.local.initial_state`
(several processes), and ``init`` keeps them. The asynchronous engine runs
:class:`PersonalDeltaPageRankProgram` (unnormalized pull updates) when ``dangling`` is not given
or equals ``personalization``; another ``dangling`` is refused there.

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([1, 2, 3], [2, 3, 1])
>>> gas.algorithms.pagerank(g, personalization={1: 1.0}).round(4).tolist()
[0.3887, 0.3304, 0.2809]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from gas.api import run
from gas.async_engine import AsyncEngine, superstep_work
from gas.engine import RunResult
from gas.engine_base import engine_for
from gas.errors import GasError, GraphError, InputError, convergence_error
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import IN, OUT, VertexProgram

from .pagerank_extrapolate import _Extrapolation
from .pagerank_programs import PageRankProgram, WeightedPageRankProgram

__all__ = [
    "PersonalPageRankProgram",
    "WeightedPersonalPageRankProgram",
    "PersonalDeltaPageRankProgram",
    "WeightedPersonalDeltaPageRankProgram",
    "vertex_weights",
    "personal_vectors",
    "personal_pagerank",
]


class PersonalPageRankProgram(PageRankProgram):
    """Pull PageRank with a per-vertex teleport share ``tele`` and dangling share ``dang``.

    As :class:`gas.algorithms.pagerank.PageRankProgram` (``contrib = rank / out_degree`` in the
    vertex data, the dangling mass and the L1 change as aggregates, networkx's stopping rule),
    but ``rank``, ``tele`` and ``dang`` are set before the run (each a distribution summing to
    1): ``init`` keeps them and derives ``contrib``.
    """

    vertex_data = {**PageRankProgram.vertex_data, "tele": np.float64, "dang": np.float64}

    def init(self, v, ctx):
        v.contrib = v.rank / v.out_degree if v.out_degree > 0 else 0.0

    def apply(self, v, total, ctx):
        new = (1.0 - self.alpha) * v.tele + self.alpha * (total + ctx.dangling * v.dang)
        v.change = new - v.rank  # signed: the extrapolation reads the step
        v.rank = new
        v.contrib = new / v.out_degree if v.out_degree > 0 else 0.0


class WeightedPersonalPageRankProgram(PersonalPageRankProgram, WeightedPageRankProgram):
    """:class:`PersonalPageRankProgram` with edge weights (``out_weight`` set before the run; the
    weighted gather and dangling test of :class:`gas.algorithms.pagerank.WeightedPageRankProgram`);
    a vertex whose out-weight is 0 is dangling, as in networkx."""

    vertex_data = {**PersonalPageRankProgram.vertex_data, "out_weight": np.float64}

    def init(self, v, ctx):
        v.contrib = v.rank / v.out_weight if v.out_weight != 0.0 else 0.0

    def apply(self, v, total, ctx):
        new = (1.0 - self.alpha) * v.tele + self.alpha * (total + ctx.dangling * v.dang)
        v.change = new - v.rank
        v.rank = new
        v.contrib = new / v.out_weight if v.out_weight != 0.0 else 0.0


class PersonalDeltaPageRankProgram(VertexProgram):
    """Personalized PageRank for the asynchronous engine: unnormalized pull updates with signals.

    Solves ``y_v = (1 - alpha) * p_v + alpha * sum_{u -> v} y_u * w_uv / d(u)`` with dangling
    vertices passing nothing, as :class:`gas.algorithms.pagerank.DeltaPageRankProgram` does for
    ``p = 1/N``. When the dangling rank follows the teleport (``q = p``), networkx's answer is
    ``x = alpha P^T x + c p`` with the scalar ``c = 1 - alpha + alpha * sum_{u in D} x_u``, so
    ``x = y / sum(y)``. ``rank`` (the start), ``tele`` and ``out_weight`` (the out-degree or
    out-weight, 0 for a dangling vertex) are set before the run. A vertex whose value moved by
    ``delta`` signals each out-neighbour with priority ``alpha * |delta| * w / d`` when
    ``|delta|`` exceeds ``tol``.
    """

    vertex_data = {
        "rank": np.float64,
        "contrib": np.float64,
        "delta": np.float64,
        "out_weight": np.float64,
        "tele": np.float64,
    }
    gather_edges = IN
    scatter_edges = OUT
    checked = False  # bundled and tested: compiled without bounds checks (gas.VertexProgram)

    def __init__(self, alpha: float = 0.85, tol: float = 1e-10) -> None:
        self.alpha = float(alpha)
        self.tol = float(tol)

    def init(self, v, ctx):
        v.contrib = v.rank / v.out_weight if v.out_weight != 0.0 else 0.0
        v.delta = 0.0

    def gather(self, v, e, nbr):
        return nbr.contrib

    def apply(self, v, total, ctx):
        new = (1.0 - self.alpha) * v.tele + self.alpha * total
        v.delta = new - v.rank
        v.rank = new
        v.contrib = new / v.out_weight if v.out_weight != 0.0 else 0.0

    def scatter(self, v, e, nbr):
        d = abs(v.delta)
        return self.alpha * d / v.out_weight if d > self.tol and v.out_weight != 0.0 else 0.0


class WeightedPersonalDeltaPageRankProgram(PersonalDeltaPageRankProgram):
    """:class:`PersonalDeltaPageRankProgram` with edge weights."""

    def gather(self, v, e, nbr):
        return nbr.contrib * e.weight

    def scatter(self, v, e, nbr):
        d = abs(v.delta)
        return self.alpha * d * e.weight / v.out_weight if d > self.tol and v.out_weight != 0.0 else 0.0


def _internal_ids(G: Graph, keys: list, name: str) -> np.ndarray:
    """Internal ids of the original ids ``keys``; :class:`InputError` naming an unknown one."""
    if G.ids.dtype != object:
        for k in keys:
            if isinstance(k, bool) or not isinstance(k, int | np.integer):
                raise InputError(
                    f"{name}: unknown vertex id {k!r}: this graph's ids are integers",
                    hint=f"key {name} by original vertex id",
                )
        q = np.asarray(keys) if all(int(k) < 2**63 for k in keys) else np.array(keys, dtype=object)
    else:
        q = np.array(keys, dtype=object)
    try:
        return np.asarray(G.index_of(q), dtype=np.int64)
    except GraphError as exc:
        raise InputError(f"{name}: {exc}", hint=f"key {name} by original vertex id") from None


def vertex_weights(G: Graph, values: Any, name: str = "personalization") -> np.ndarray:
    """``values`` as a distribution over the vertices: float64 by internal id, summing to 1.

    Parameters
    ----------
    G : Graph
    values : Mapping or array_like
        ``{original id: weight}`` (vertices left out weigh 0; also a pandas Series indexed by
        original id), or ``num_vertices`` weights by internal id. Weights must be finite and
        non-negative, not all zero.
    name : str
        The argument's name, for messages.

    Raises
    ------
    InputError
        An unknown id, a wrong length, a weight that is negative or not finite, or all zero.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([10, 20], [20, 30])
    >>> vertex_weights(g, {30: 3.0, 10: 1.0}).tolist()
    [0.25, 0.0, 0.75]
    """
    n = G.num_vertices
    if not isinstance(values, Mapping | np.ndarray) and hasattr(values, "items"):
        values = dict(values.items())  # a pandas Series: its index holds original ids
    try:
        if isinstance(values, Mapping):
            keys = list(values.keys())
            out = np.zeros(n)
            w = np.asarray(list(values.values()), dtype=np.float64)
            idx = _internal_ids(G, keys, name) if keys else np.zeros(0, np.int64)
            out[idx] = w
        else:
            out = np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"Expected '{name}' to hold numbers ({exc})") from None
    if out.shape != (n,):
        raise InputError(
            f"Expected '{name}' as {{original id: weight}} or an array of {n} weights by internal id "
            f"(got shape {out.shape})"
        )
    bad = np.flatnonzero(~np.isfinite(out) | (out < 0))
    if bad.size:
        v = int(bad[0])
        vid = G.ids[v : v + 1].tolist()[0]
        raise InputError(
            f"Expected '{name}' weights finite and >= 0 (got {out[v].item()!r} for vertex {vid!r}, "
            f"{bad.size} such)",
            hint="give each vertex a non-negative weight; the weights are normalised to sum 1",
        )
    total = out.sum()
    if not total > 0.0:
        raise InputError(
            f"Expected '{name}' to give some vertex a positive weight (got all zero: the "
            "distribution is undefined; networkx raises ZeroDivisionError)",
            hint="give at least one vertex of the graph a weight > 0",
        )
    return out / total


def personal_vectors(G: Graph, personalization: Any = None, nstart: Any = None, dangling: Any = None):
    """``(start, teleport, dangling)`` distributions as networkx sets them up (uniform where
    not given; ``dangling`` defaults to the teleport vector).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])
    >>> [v.tolist() for v in personal_vectors(g, personalization={2: 1.0})][1:]
    [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    """
    uniform = np.full(G.num_vertices, 1.0 / max(G.num_vertices, 1))
    p = uniform if personalization is None else vertex_weights(G, personalization, "personalization")
    x = uniform.copy() if nstart is None else vertex_weights(G, nstart, "nstart")
    q = p if dangling is None else vertex_weights(G, dangling, "dangling")
    return x, p, q


def personal_pagerank(
    G: Graph,
    alpha: float,
    tol: float,
    max_iter: int,
    weight: str | None,
    vectors: tuple[Any, Any, Any],
    how: tuple,
    threads: int | None = None,
    debug: bool = False,
    progress=None,
    work_factor: int = 5,
) -> tuple[np.ndarray, RunResult]:
    """Personalized PageRank's ranks and run (arguments checked by :func:`gas.algorithms.pagerank`).

    ``vectors`` is ``(personalization, nstart, dangling)`` as the user gave them (see
    :func:`personal_vectors`); ``how`` is ``pagerank``'s ``(engine, scheduler, consistency,
    extrapolate_every, procs, partition, options)``. Synchronous, one process: the engine (or
    ``"cuda"``) with the Anderson extrapolation every ``extrapolate_every`` supersteps (the
    iteration is affine and keeps the sum 1, so it reaches the same fixed point); several
    processes, or settings only :func:`gas.run` runs: plain power iteration through it.
    ``engine="async"``: :class:`PersonalDeltaPageRankProgram` within ``work_factor`` times
    ``max_iter`` supersteps' work (``pagerank`` passes ``ASYNC_WORK_FACTOR``), when the dangling
    distribution is the teleport's.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
    >>> how = ("sync", None, None, 6, 1, "hdrf", None)
    >>> ranks, res = personal_pagerank(g, 0.85, 1e-10, 100, None, (None, {0: 1.0}, None), how)
    >>> ranks.round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """
    engine, _scheduler, _consistency, every, procs, partition, options = how
    x, p, q = personal_vectors(G, *vectors)
    weighted = weight is not None
    n = G.num_vertices
    degree = np.bincount(G.src, weights=G.edata[weight], minlength=n) if weighted else G.out_degree
    processes = procs != 1 or (options is not None and (options.needs_runtime or options.launcher != "off"))
    where = (procs, partition, options, threads, debug) if processes else None
    if engine == "async":
        if q is not p and not np.array_equal(q, p):
            raise InputError(
                "engine='async' runs personalized PageRank when the dangling vertices' rank follows "
                "the teleport (dangling=None or equal to personalization)",
                hint="use engine='sync' for another dangling distribution",
            )
        budget = int(work_factor) * int(max_iter) * superstep_work(G)
        one = (threads, debug, progress)
        ranks, res = _personal_async(G, alpha, tol, weighted, (x, p, degree), budget, how, where, one)
        if not res.converged:
            raise _shortfall(G, ranks, res, alpha, tol, weight, (p, q), budget)
        return ranks, res
    prog = (WeightedPersonalPageRankProgram if weighted else PersonalPageRankProgram)(alpha, tol)
    cols = {"rank": x, "tele": p, "dang": q, **({"out_weight": degree} if weighted else {})}
    if where is not None:
        res = _personal_run(G, prog, cols, progress, where, engine=engine, max_iter=max_iter)
        return res.output, res
    eng = engine_for(G, prog, engine, threads=threads, debug=debug)
    for k, a in cols.items():
        eng.columns[k][:] = a  # the CUDA engine's run copies them to the device
    hook = _Extrapolation(degree, every) if every else None
    res = eng.run(max_iter, progress=progress, between=hook)
    return res.output, res


def _personal_async(G, alpha, tol, weighted, start, budget, how, where, one):
    """Normalized ranks and run of :class:`PersonalDeltaPageRankProgram` on the asynchronous
    engine (one process, as ``pagerank``'s pull form; ``one``: threads, debug, progress) or
    through :func:`gas.run` (``where``)."""
    x, p, degree = start
    threads, debug, progress = one
    _, scheduler, consistency = how[:3]
    prog = (WeightedPersonalDeltaPageRankProgram if weighted else PersonalDeltaPageRankProgram)(alpha, tol)
    cols = {"rank": x, "tele": p, "out_weight": np.asarray(degree, np.float64)}
    if where is not None:
        if consistency == "full":
            raise GasError("consistency='full' runs on one process only (procs=1); use 'edge' or 'vertex'")
        kw = dict(max_iter=budget, max_work=budget, scheduler=scheduler, consistency=consistency)
        res = _personal_run(G, prog, cols, progress, where, engine="async", **kw)
    else:
        eng = AsyncEngine(
            G,
            prog,
            scheduler=scheduler,
            consistency=consistency,
            threads=threads,
            debug=debug,
            priority_ratio=0.0,  # the top half of the scheduled vertices per round (pagerank's pull form)
            priority_fraction=0.5,
        )
        for k, a in cols.items():
            eng.columns[k][:] = a
        res = eng.run(max_iter=budget, progress=progress, max_work=budget)
    y = res.output
    return y / y.sum(), res


def _shortfall(G, ranks, res, alpha, tol, weight, pq, budget) -> Exception:
    """The :class:`gas.ConvergenceError` of an asynchronous run that stopped at its budget, with
    the L1 change of one power-iteration step from its ranks (networkx's test)."""
    p, q = pq
    n = G.num_vertices
    w = None if weight is None else G.edata[weight]
    d = np.bincount(G.src, weights=w, minlength=n).astype(np.float64)
    share = np.divide(ranks, d, out=np.zeros(n), where=d != 0)
    total = np.bincount(G.dst, weights=share[G.src] if w is None else share[G.src] * w, minlength=n)
    new = (1.0 - alpha) * p + alpha * (total + ranks[d == 0].sum() * q)
    change = float(np.abs(new - ranks).sum())
    return convergence_error(
        f"Asynchronous personalized PageRank stopped at its budget of {budget:,d} edge visits and "
        f"updates ({res.iterations} rounds); one power-iteration step from its ranks changes them by "
        f"L1 {change:.1e}, target N*tol = {n * tol:.1e}",
        iterations=res.iterations,
        residual=change,
        target=n * tol,
        result=ranks,
        run=res,
    )


def _personal_run(G, prog, cols, progress, where, **kw) -> RunResult:
    """A run through :func:`gas.run` (``where``: procs, partition, options, threads, debug); the
    starting ranks, teleport and dangling shares and out-weights travel as each vertex's initial
    fields (:func:`gas.runtime.local.initial_state`)."""
    from gas.runtime.local import initial_state

    procs, partition, options, threads, debug = where
    opts = options or RunOptions()
    if opts.restore is not None:
        raise InputError(
            "personalization, nstart and dangling set the run's starting state: drop options.restore"
        )
    opts = replace(opts, restore=initial_state(G, prog, {"vertex": cols}))
    return run(
        G,
        prog,
        procs=procs,
        partition=partition,
        options=opts,
        threads=threads,
        debug=debug,
        progress=progress,
        **kw,
    )
