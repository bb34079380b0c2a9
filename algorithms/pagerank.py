"""PageRank as a vertex program, with networkx's normalization and stopping rule.

Fixed point (``N`` vertices, ``d(u)`` out-degree or out-weight, ``D`` the dangling vertices)::

    x_v = (1 - alpha) / N + alpha * ( sum_{u -> v} x_u * w_uv / d(u) + sum_{u in D} x_u / N )

Iteration starts from ``x = 1/N`` and stops after the first superstep whose L1 change
``sum_v |x_v - x_v_prev|`` is below ``N * tol`` (networkx's rule), so the result sums to 1.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit, prange

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
        v.change = new - v.rank  # signed: pagerank()'s extrapolation reads the step
        v.rank = new
        v.contrib = new / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_degree == 0 else 0.0), abs(v.change)

    def converged(self, ctx):
        return ctx.change < ctx.num_vertices * self.tol


@njit(parallel=True, cache=True)
def _gram(F: np.ndarray, d: np.ndarray, blocks: int) -> np.ndarray:
    """``H[i, j] = <f_i, f_j>`` for the rows ``f_0 .. f_{m-1}`` of ``F`` and ``f_m = d``, in one
    pass over the vertices (``blocks`` partial sums, added at the end)."""
    m, n = F.shape
    k = m + 1
    part = np.zeros((blocks, k, k))
    for b in prange(blocks):
        col = np.empty(k)
        for v in range(b * n // blocks, (b + 1) * n // blocks):
            for i in range(m):
                col[i] = F[i, v]
            col[m] = d[v]
            for i in range(k):
                for j in range(i, k):
                    part[b, i, j] += col[i] * col[j]
    H = np.zeros((k, k))
    for b in range(blocks):
        H += part[b]
    for i in range(k):
        for j in range(i):
            H[i, j] = H[j, i]
    return H


@njit(parallel=True, cache=True)
def _anderson_ranks(rank, d, F, c, contrib, degree):
    """``rank -= s`` with ``s = sum_i c[i - 1] f_i`` over ``f_1 .. f_{m-1}`` (rows of ``F``) and
    ``f_m = d``; ``d -= s`` (the whole step from the iterate before the last superstep) and
    ``contrib = rank / degree`` as ``apply`` computes it (0 where the degree is 0)."""
    m = F.shape[0]
    for v in prange(rank.shape[0]):
        s = c[m - 1] * d[v]
        for i in range(1, m):
            s += c[i - 1] * F[i, v]
        r = rank[v] - s
        rank[v] = r
        d[v] -= s
        contrib[v] = r / degree[v] if degree[v] != 0 else 0.0


def _anderson_weights(H: np.ndarray, ridge: float = 1e-10) -> tuple[np.ndarray, float]:
    """Weights ``a`` (summing to 1) minimising ``|sum_j a_j f_j|`` given the Gram matrix ``H``
    of the steps, and that norm. A ridge of ``ridge * trace(H) / k`` keeps the solve finite when
    the steps are nearly parallel (the weights then barely matter)."""
    k = H.shape[0]
    scale = float(np.trace(H)) / k
    if not np.isfinite(scale) or scale <= 0.0:
        return np.full(k, np.nan), np.inf
    try:
        w = np.linalg.solve(H + ridge * scale * np.eye(k), np.ones(k))
    except np.linalg.LinAlgError:
        return np.full(k, np.nan), np.inf
    a = w / w.sum()
    return a, float(np.sqrt(max(float(a @ H @ a), 0.0)))


class _Extrapolation:
    """Progress hook for the synchronous :class:`PageRankProgram` (or the weighted one): an
    Anderson extrapolation every ``every`` supersteps, over the last ``m + 1`` steps
    (``m = min(4, every - 2)``).

    A superstep maps the ranks ``y_j`` to ``y_{j+1} = G(y_j)``; call its step
    ``f_j = y_{j+1} - y_j`` (the program's signed ``change``). Anderson acceleration (type II,
    Walker and Ni, SIAM J. Numer. Anal. 2011) picks weights ``a_j`` summing to 1 that minimise
    ``|sum_j a_j f_j|`` and moves to ``sum_j a_j G(y_j)``. Power iteration is linear, so that
    combination is close to the fixed point whenever the error lies mostly in a few eigenvectors
    of the Google matrix, whatever their eigenvalues (Aitken's process, which this replaced,
    handles one). Here it runs periodically rather than after every superstep: after
    supersteps ``every - m .. every - 1`` of each cycle the hook copies the step; after superstep
    ``every`` it forms the ``(m+1) x (m+1)`` Gram matrix of the steps in one pass, solves for
    the weights, and moves to ``y_{m+1} - sum_{i>=1} A_i f_i`` with ``A_i = a_0 + ... + a_{i-1}``
    (the combination written with the steps alone, so no iterate is copied). It moves only when
    the combined step is at most half the last one (``|sum_j a_j f_j| <= |f_m| / 2``): otherwise
    the steps do not predict the error. Every plain step sums to 0, so the new ranks still sum
    to 1. The hook writes ``contrib`` and ``change`` (the whole step) to match and has the
    engine recompute its aggregates, so the next superstep reads the new dangling mass and the
    stopping test sees the jump (an extrapolating superstep never passes it); that superstep's
    statistics say ``extrapolated: True`` (``gas pagerank`` marks its progress line).

    Cost: ``m`` copies, one Gram pass and one update pass per cycle, ``m`` extra columns of
    memory; no work inside the supersteps. Supersteps with ``every=6`` against plain power
    iteration (bench/RESULTS.md): to an L1 error of 1e-6, R-MAT-20 7 against 16,
    soc-Slashdot0811 24 against 66, soc-Epinions1 30 against 57 (section "PageRank to a
    tolerance: extrapolation"); to 1e-10, 16 against 26, 37 against 122, 55 against 116
    (section "Asynchronous engine"). R-MAT-20 has one dominant error mode, and Aitken's step
    reached 1e-10 there in 13.
    """

    def __init__(self, eng: SyncEngine, degree: np.ndarray, every: int, progress, shrink=0.5):
        if every < 3:
            raise ValueError(f"Expected extrapolate_every >= 3 supersteps, or 0 for none (got {every})")
        self.eng, self.every = eng, int(every)
        self.m = min(4, self.every - 2)
        self.shrink = float(shrink)
        self.progress = progress
        self.degree = degree
        self.F: np.ndarray | None = None  # the copied steps, one row each
        self.have = 0  # rows copied in this cycle
        self.count = 0  # extrapolations made
        self.blocks = int(min(64, max(1, degree.shape[0] // 8192)))

    def __call__(self, stat):
        phase = (stat["iteration"] + 1) % self.every
        d = self.eng.columns["change"]
        if phase >= self.every - self.m:
            row = phase - (self.every - self.m)
            if self.F is None:
                self.F = np.empty((self.m, d.shape[0]))
            if row == self.have:
                np.copyto(self.F[row], d)
                self.have += 1
        elif phase == 0 and self.have == self.m:
            if self._extrapolate(d):
                stat.update(self.eng.refresh_aggregates())
                stat["extrapolated"] = True
        if phase == 0:
            self.have = 0
        if self.progress is not None:
            self.progress(stat)

    def _extrapolate(self, d: np.ndarray) -> bool:
        """The Anderson step, when the combined step is small enough; True if it moved."""
        H = _gram(self.F, d, self.blocks)
        a, rho = _anderson_weights(H)
        if not (np.all(np.isfinite(a)) and rho <= self.shrink * np.sqrt(H[-1, -1])):
            return False
        cols = self.eng.columns
        _anderson_ranks(cols["rank"], d, self.F, np.cumsum(a)[:-1], cols["contrib"], self.degree)
        self.count += 1
        return True


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
    """Progress hook for :class:`ResidualPageRankProgram`: after each round, moves the mean
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
    dangling-absorbing system (0.4 against 0.7-0.8 per pass on R-MAT-20, where 48 % of the
    vertices are dangling). Measured to L1 1e-10 (bench/RESULTS.md, "Asynchronous engine"):
    with the mean, soc-Epinions1 needs 19 m edge visits (45.8 m without a shift), R-MAT-20
    9.5 m (53 m with the median of the residuals, the rule this replaced).
    """

    def __init__(self, G: Graph, eng: AsyncEngine, prog: ResidualPageRankProgram, progress, limit=0.9):
        self.eng, self.prog, self.progress, self.limit = eng, prog, progress, float(limit)
        self.b = (1.0 - prog.alpha) / G.num_vertices
        self.shifted = 0.0

    def __call__(self, stat):
        res = self.eng.columns["res"]
        c = float(res.sum()) / res.shape[0] if res.shape[0] else 0.0
        if c != 0.0 and abs(self.shifted + c / self.b) <= self.limit:
            self.shifted += c / self.b
            top = _shift_residuals(res, self.eng.columns["inv_d1"], c)
            self.eng.raise_top_priority(top)
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
    extrapolate_every: int = 6,
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
    extrapolate_every : int, default 6
        Synchronous engine: every this many supersteps (at least 3), an Anderson extrapolation
        over the last ``min(4, every - 2) + 1`` steps, made when the combined step is at most
        half the last one (see ``_Extrapolation``). To an L1 error of 1e-6 it took R-MAT-20 7
        supersteps instead of 16, soc-Slashdot0811 24 instead of 66 and soc-Epinions1 30
        instead of 57. It costs 4 copies of the step and 2 passes over the vertices per cycle
        and 4 columns of memory; the stopping rule is unchanged. 0 runs plain power iteration,
        as networkx does.

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
        degree = np.bincount(G.src, weights=G.edata[weight], minlength=G.num_vertices)
        eng.columns["out_weight"][:] = degree
    else:
        eng = SyncEngine(G, PageRankProgram(alpha, tol), threads=threads, debug=debug)
        degree = G.out_degree
    if extrapolate_every:
        progress = _Extrapolation(eng, degree, extrapolate_every, progress)
    res = eng.run(max_iter, progress=progress)
    if not res.converged:
        warnings.warn(
            f"PageRank did not reach tol={tol} in {max_iter} iterations "
            f"(last L1 change {res.aggregates.get('change', float('nan')):.3e}); raise max_iter",
            RuntimeWarning,
            stacklevel=2,
        )
    return (res.output, res) if return_result else res.output
