"""Katz and eigenvector centrality as vertex programs, with networkx's iterates and stopping rules.

Both gather over in-edges (``u -> v`` carries ``u``'s score to ``v``; an undirected graph is
stored with both directions) and stop, as networkx does, after the first iteration whose L1
change ``sum_v |x_v - x_v_prev|`` is below ``N * tol``::

    katz:         x_v <- alpha * sum_{u -> v} w_uv x_u + beta_v          (from nstart, default 0)
    eigenvector:  y_v <- x_v + sum_{u -> v} w_uv x_u ;  x <- y / ||y||_2   (from nstart / sum)

Katz's answer is then divided by its L2 norm (``normalized=True``). The eigenvector iteration is
networkx's shifted power method on ``A^T + I``; its normalisation is a global sum of squares,
which the program reads as an aggregate: superstep ``t`` normalises the raw vector of superstep
``t - 1`` and forms the next raw one, so the stopping test of iteration ``t`` is made at
superstep ``t`` with networkx's iterates. A run that reaches ``max_iter`` without meeting its
rule raises :class:`gas.ConvergenceError` (catchable as networkx's
``PowerIterationFailedConvergence``) holding the partial scores; so does one whose scores are not
finite. Both run on ``procs > 1`` through :func:`gas.run`, the per-vertex starting values and
``beta`` travelling as the run's initial state. HITS, built on the same helpers, is in
:mod:`gas.algorithms.hits`.

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])   # a directed 3-cycle
>>> katz_centrality(g).round(6).tolist()
[0.57735, 0.57735, 0.57735]
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from gas.api import run
from gas.engine_base import engine_for
from gas.engine_result import RunResult
from gas.errors import GasError, InputError, convergence_error
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import IN, VertexProgram

__all__ = [
    "KatzProgram",
    "WeightedKatzProgram",
    "EigenvectorProgram",
    "WeightedEigenvectorProgram",
    "katz_centrality",
    "eigenvector_centrality",
    "per_vertex",
    "edge_weights",
    "check_iteration_args",
    "run_with_state",
    "check_scores",
]


class KatzProgram(VertexProgram):
    """``x_v <- alpha * sum_{u -> v} x_u + beta_v``; ``x`` and ``beta`` are set before the run."""

    vertex_data = {"x": np.float64, "beta": np.float64, "change": np.float64}
    gather_edges = IN
    dynamic = False
    aggregates = {"change": "sum"}
    checked = False  # bundled and tested: compiled without bounds checks

    def __init__(self, alpha: float = 0.1, tol: float = 1e-6) -> None:
        self.alpha = float(alpha)
        self.tol = float(tol)

    def init(self, v, ctx):
        v.change = 0.0

    def gather(self, v, e, nbr):
        return nbr.x

    def apply(self, v, total, ctx):
        new = self.alpha * total + v.beta
        v.change = abs(new - v.x)
        v.x = new

    def aggregate(self, v):
        return v.change

    def converged(self, ctx):
        return ctx.change < ctx.num_vertices * self.tol


class WeightedKatzProgram(KatzProgram):
    """:class:`KatzProgram` where edge ``u -> v`` carries ``weight * x_u``."""

    def gather(self, v, e, nbr):
        return nbr.x * e.weight


class EigenvectorProgram(VertexProgram):
    """networkx's power iteration on ``A^T + I`` with an L2 normalisation between supersteps.

    ``y`` holds the raw vector of the previous superstep and ``x`` the normalised one; the
    aggregate ``sumsq`` is ``||y||^2``. Superstep ``t`` sets ``x_t = y / ||y||`` (``y`` itself at
    ``t = 0``: the start, already divided by its sum), its L1 change from ``x_{t-1}``, and the
    next raw vector ``y = x_t + A^T x_t``, gathered from the raw ``y`` and scaled.
    """

    vertex_data = {"x": np.float64, "y": np.float64, "change": np.float64}
    gather_edges = IN
    dynamic = False
    aggregates = {"sumsq": "sum", "change": "sum"}
    checked = False

    def __init__(self, tol: float = 1e-6) -> None:
        self.tol = float(tol)

    def init(self, v, ctx):
        v.x = v.y
        v.change = 0.0

    def gather(self, v, e, nbr):
        return nbr.y

    def apply(self, v, total, ctx):
        s = 1.0
        if ctx.iteration > 0 and ctx.sumsq > 0.0:
            s = 1.0 / np.sqrt(ctx.sumsq)
        new = v.y * s
        v.change = abs(new - v.x)
        v.x = new
        v.y = new + total * s

    def aggregate(self, v):
        return v.y * v.y, v.change

    def converged(self, ctx):
        return ctx.iteration > 0 and ctx.change < ctx.num_vertices * self.tol


class WeightedEigenvectorProgram(EigenvectorProgram):
    """:class:`EigenvectorProgram` where edge ``u -> v`` carries ``weight * x_u``."""

    def gather(self, v, e, nbr):
        return nbr.y * e.weight


def per_vertex(G: Graph, value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array by internal id: a Mapping keyed by ORIGINAL id (every vertex,
    no other key) or an array of ``num_vertices`` values by internal id; all finite.

    Raises
    ------
    InputError
        A missing or unknown id, a wrong length, a non-number or a non-finite value.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([10, 20], [20, 30])
    >>> per_vertex(g, {30: 3.0, 10: 1.0, 20: 2.0}, "nstart").tolist()
    [1.0, 2.0, 3.0]
    """
    n = G.num_vertices
    if isinstance(value, Mapping):
        keys = list(value)
        try:
            idx = np.asarray(G.index_of(keys) if keys else np.zeros(0, np.int64), dtype=np.int64)
        except GasError as exc:
            raise InputError(f"'{name}' has a key that is not a vertex of the graph: {exc}") from None
        out = np.full(n, np.nan)
        try:
            out[idx] = np.asarray([float(value[k]) for k in keys], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"Expected the values of '{name}' to be numbers ({exc})") from None
        missing = np.flatnonzero(np.bincount(idx, minlength=n) == 0)
        if missing.size:
            raise InputError(
                f"'{name}' has no value for {missing.size} of the {n} vertices (first: id "
                f"{G.ids[missing[0]]!r})",
                hint="give every vertex a value, keyed by its original id",
            )
    else:
        try:
            out = np.array(value, dtype=np.float64).reshape(-1) if np.ndim(value) == 1 else None
        except (TypeError, ValueError) as exc:
            raise InputError(f"Expected '{name}' to hold numbers ({exc})") from None
        if out is None or out.shape[0] != n:
            raise InputError(
                f"Expected '{name}' to be a Mapping keyed by original id or an array of "
                f"{n} values by internal id (got {type(value).__name__} of shape {np.shape(value)})"
            )
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.size:
        raise InputError(f"'{name}' of vertex {G.ids[bad[0]]!r} is not finite (got {out[bad[0]]})")
    return out


def edge_weights(G: Graph, weight: str | None) -> np.ndarray | None:
    """The edge weights ``weight`` names, checked finite; None when unweighted.

    As networkx, where an edge without the attribute counts 1, ``weight="weight"`` on a graph
    without a weight column is the unweighted graph; a gaslab graph has no other edge column.

    Examples
    --------
    >>> import gas
    >>> edge_weights(gas.Graph.from_edges([0], [1]), "weight") is None
    True
    """
    if weight is None or (weight == "weight" and weight not in G.edata):
        return None
    if weight != "weight":
        raise InputError(
            f"Expected weight=None or 'weight' (got {weight!r}; edge columns: {sorted(G.edata)})",
            hint="a gaslab graph keeps its edge weights in the 'weight' column",
        )
    w = np.asarray(G.edata[weight], dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        e = int(bad[0])
        raise InputError(
            f"Expected finite edge weights: {bad.size} of {w.size} are not (first: {w[e]!r} on edge "
            f"{G.ids[G.src[e]]} -> {G.ids[G.dst[e]]})",
            hint="fix the input, or run without weights",
        )
    return w


def check_iteration_args(G: Any, max_iter: Any, tol: Any) -> int:
    """Refuse a graph that is not a :class:`gas.Graph`, ``max_iter`` not an integer >= 0, or
    ``tol`` not finite and >= 0; returns ``max_iter`` as an int.

    Examples
    --------
    >>> import gas
    >>> check_iteration_args(gas.Graph.from_edges([0], [1]), 5, 1e-6)
    5
    """
    if not isinstance(G, Graph):
        raise InputError(
            f"Expected a gas.Graph (got {type(G).__name__})", hint="convert with gas.Graph.from_networkx(G)"
        )
    try:
        steps = operator.index(max_iter)
    except TypeError:
        steps = -1
    if isinstance(max_iter, bool) or steps < 0:
        raise InputError(f"Expected 'max_iter' to be an integer >= 0 (got {max_iter!r})")
    if not isinstance(tol, (int, float, np.number)) or not (np.isfinite(tol) and tol >= 0):
        raise InputError(f"Expected 'tol' finite and >= 0 (got {tol!r})")
    return int(steps)


def run_with_state(
    G: Graph, prog: VertexProgram, state: dict[str, np.ndarray], max_iter: int, how: dict[str, Any]
) -> RunResult:
    """Run ``prog`` on ``G`` from the vertex fields ``state`` (by internal id, written before the
    program's ``init``) for at most ``max_iter`` supersteps. ``how``: ``threads``, ``debug``,
    ``progress``, ``procs``, ``partition``, ``options`` (:func:`gas.run`'s). One process runs the
    synchronous engine here; several processes (or options only the process runtime runs) go
    through :func:`gas.run` with ``state`` as the initial state."""
    options: RunOptions | None = how.get("options")
    procs, threads, debug = how.get("procs", 1), how.get("threads"), bool(how.get("debug", False))
    if procs == 1 and (options is None or not (options.needs_runtime or options.launcher != "off")):
        if options is not None:
            threads = threads if threads is not None else options.threads
            debug = debug or bool(options.debug)
        eng = engine_for(G, prog, "sync", threads=threads, debug=debug)
        for k, a in state.items():
            eng.columns[k][:] = a
        return eng.run(max_iter, progress=how.get("progress"))
    from gas.runtime.local import initial_state

    opts = replace(options or RunOptions(), restore=initial_state(G, prog, {"vertex": state}))
    return run(
        G, prog, procs=procs, partition=how.get("partition", "hdrf"), max_iter=max_iter,
        progress=how.get("progress"), options=opts, threads=threads, debug=debug or None,
    )  # fmt: skip


def check_scores(
    G: Graph,
    what: str,
    scores: np.ndarray,
    res: RunResult,
    target: float,
    limit: int,
    steps: int,
    result: Any = None,
) -> None:
    """Raise :class:`gas.ConvergenceError` for non-finite ``scores`` or a run that stopped short
    (``limit``: the ``max_iter`` asked for; ``steps``: the iterations the run made; ``result``:
    the partial answer the error carries, default ``scores``). ``scores`` may hold several
    blocks of ``num_vertices`` values (HITS: hubs, then authorities).

    Examples
    --------
    >>> import numpy as np, gas
    >>> from gas.engine_result import RunResult
    >>> g = gas.Graph.from_edges([0], [1])
    >>> done = RunResult(np.zeros(2), np.ones(2), 3, True)
    >>> check_scores(g, "Katz centrality", np.ones(2), done, 2e-6, 5, 3)
    """
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        raise convergence_error(
            f"{what} produced {bad.size} non-finite scores (first at vertex "
            f"{G.ids[bad[0] % G.num_vertices]!r}: "
            f"{scores[bad[0]]}): the iteration diverged; check alpha and the edge weights",
            iterations=steps,
            target=target,
            run=res,
        )
    if res.converged:
        return
    change = float(res.aggregates.get("change", float("nan")))
    raise convergence_error(
        f"{what} stopped after {steps} iterations (max_iter={limit}) with L1 change {change:.1e}, "
        f"target {target:.1e}; hint: raise max_iter or tol",
        iterations=steps,
        residual=change,
        target=target,
        result=scores if result is None else result,
        run=res,
    )


def katz_centrality(
    G: Graph,
    alpha: float = 0.1,
    beta: float | Mapping | np.ndarray = 1.0,
    max_iter: int = 1000,
    tol: float = 1e-6,
    nstart: Mapping | np.ndarray | None = None,
    normalized: bool = True,
    weight: str | None = None,
    *,
    threads: int | None = None,
    debug: bool = False,
    progress: Any = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
) -> np.ndarray:
    """Katz centrality of every vertex (by internal id), as ``networkx.katz_centrality``.

    Iterates ``x_v <- alpha * sum_{u -> v} w_uv x_u + beta_v`` (in-edges: what points at ``v``)
    from ``nstart`` (default 0) and stops after the first iteration whose L1 change is below
    ``num_vertices * tol``; the series converges when ``alpha < 1 / lambda_max``.

    Parameters
    ----------
    G : Graph
    alpha : float, default 0.1
        Attenuation factor.
    beta : float, Mapping or array, default 1.0
        Weight of every vertex's own term: one number, a Mapping keyed by ORIGINAL id (every
        vertex) or an array by internal id.
    max_iter, tol : int, float, default 1000, 1e-6
        Most iterations; the stopping rule above.
    nstart : Mapping or array, optional
        Starting values (Mapping keyed by original id, or array by internal id).
    normalized : bool, default True
        Divide the answer by its L2 norm (left as is when that is 0).
    weight : str, optional
        ``"weight"``: edge weights from the graph's weight column (a graph without one is
        unweighted, as networkx's default of 1); None: every edge counts 1.
    threads, debug, progress, procs, partition, options
        As in :func:`gas.run` (``procs > 1``: local processes, the same answer).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    gas.ConvergenceError
        ``max_iter`` reached (``result``: the partial scores), or scores not finite.
    InputError
        A bad ``alpha``, ``beta``, ``nstart``, ``weight``, ``max_iter`` or ``tol``.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
    >>> katz_centrality(g, alpha=0.5, normalized=False).round(4).tolist()  # 1 / (1 - alpha)
    [2.0, 2.0, 2.0]
    """
    steps = check_iteration_args(G, max_iter, tol)
    how = dict(
        threads=threads, debug=debug, progress=progress, procs=procs, partition=partition, options=options
    )
    b = _katz_beta(G, alpha, beta)
    x0 = np.zeros(G.num_vertices) if nstart is None else per_vertex(G, nstart, "nstart")
    w = edge_weights(G, weight)
    if G.num_vertices == 0:
        return np.zeros(0)
    prog = (KatzProgram if w is None else WeightedKatzProgram)(alpha, tol)
    res = run_with_state(G, prog, {"x": x0, "beta": b}, steps, how)
    x = np.array(res.vertex_data["x"], dtype=np.float64)
    check_scores(G, "Katz centrality", x, res, G.num_vertices * tol, steps, res.iterations)
    norm = float(np.sqrt(np.dot(x, x))) if normalized else 0.0
    return x / norm if norm > 0.0 else x


def _katz_beta(G: Graph, alpha: Any, beta: Any) -> np.ndarray:
    """``beta`` as one value per vertex, after checking ``alpha`` and ``beta``."""
    if not isinstance(alpha, (int, float, np.number)) or not np.isfinite(alpha):
        raise InputError(f"Expected 'alpha' to be a finite number (got {alpha!r})")
    if isinstance(beta, (int, float, np.number)) and not isinstance(beta, bool):
        if not np.isfinite(beta):
            raise InputError(f"Expected 'beta' to be finite (got {beta!r})")
        return np.full(G.num_vertices, float(beta))
    return per_vertex(G, beta, "beta")


def eigenvector_centrality(
    G: Graph,
    max_iter: int = 100,
    tol: float = 1e-6,
    nstart: Mapping | np.ndarray | None = None,
    weight: str | None = None,
    *,
    threads: int | None = None,
    debug: bool = False,
    progress: Any = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
) -> np.ndarray:
    """Eigenvector centrality of every vertex (by internal id), as
    ``networkx.eigenvector_centrality``: the left Perron vector of the adjacency matrix (scores
    flow along in-edges), unit L2 norm.

    networkx's power iteration ``x <- (x + A^T x) / ||x + A^T x||_2`` from ``nstart / sum(nstart)``
    (default all ones), stopping after the first iteration whose L1 change is below
    ``num_vertices * tol``; the same iterates here, one superstep each (plus one to start).

    Parameters
    ----------
    G : Graph
    max_iter, tol : int, float, default 100, 1e-6
        Most iterations; the stopping rule above.
    nstart : Mapping or array, optional
        Starting values (Mapping keyed by original id, or array by internal id); not all zero,
        with a non-zero sum.
    weight : str, optional
        ``"weight"``: edge weights (as :func:`katz_centrality`); None: every edge counts 1.
    threads, debug, progress, procs, partition, options
        As in :func:`gas.run`.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    gas.ConvergenceError
        ``max_iter`` reached (``result``: the partial scores), or scores not finite.
    InputError
        An empty graph (networkx: ``NetworkXPointlessConcept``), a bad ``nstart`` (all zero, or
        summing to 0), ``weight``, ``max_iter`` or ``tol``.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
    >>> eigenvector_centrality(g).round(6).tolist()
    [0.57735, 0.57735, 0.57735]
    """
    steps = check_iteration_args(G, max_iter, tol)
    how = dict(
        threads=threads, debug=debug, progress=progress, procs=procs, partition=partition, options=options
    )
    n = G.num_vertices
    if n == 0:
        raise InputError("Eigenvector centrality is undefined for the null graph (no vertices)")
    x0 = np.ones(n) if nstart is None else per_vertex(G, nstart, "nstart")
    if not x0.any():
        raise InputError("Expected 'nstart' with a non-zero value (the initial vector is all zero)")
    total = float(x0.sum())
    if total == 0.0:
        raise InputError("Expected 'nstart' whose values do not sum to 0 (it is divided by its sum)")
    w = edge_weights(G, weight)
    prog = (EigenvectorProgram if w is None else WeightedEigenvectorProgram)(tol)
    # superstep 0 normalises nothing; superstep t is networkx's iteration t
    res = run_with_state(G, prog, {"y": x0 / total}, steps + 1, how)
    x = np.array(res.vertex_data["x"], dtype=np.float64)
    check_scores(G, "Eigenvector centrality", x, res, n * tol, steps, max(res.iterations - 1, 0))
    return x
