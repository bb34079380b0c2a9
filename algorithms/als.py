"""Alternating least squares for explicit ratings, as a vertex program on the bipartite graph.

Model: ``r_ui ~ mean + b_u + c_i + p_u . q_i`` (``b``, ``c`` only with ``biases=True``), fitted by
minimising over the observed ratings::

    sum_(u,i) (r_ui - mean - b_u - c_i - p_u . q_i)^2
        + sum_u lam_u (|p_u|^2 + b_u^2) + sum_i lam_i (|q_i|^2 + c_i^2)

with ``lam_v = reg * n_v`` (weighted-lambda regularization, Zhou et al. 2008; ``n_v`` is the
number of ratings of ``v``) or ``lam_v = reg``. With the items fixed each user's problem is a
ridge regression, solved exactly; then the items with the users fixed; one iteration is both
half-steps.

As GAS: users are vertices ``0..U-1`` and items ``U..U+I-1``, one edge ``user -> item`` per
rating with the rating as its weight. A vertex stores ``w``: its ``rank`` factors, then its bias
(with ``biases``), then zeros up to a multiple of 4 (aligned rows). One half-step is one
superstep with one side active, the users first:

* **init** draws each vertex's starting factors from a hash of ``(seed, vertex id, j)``, so any
  number of processes starts from the same point;
* **gather** adds, over the vertex's edges, the feature ``f = [q_i, 1]`` (the neighbour's
  factors and a constant for the bias) and the target ``t = r_ui - mean - c_i`` into an array
  accumulator: the normal matrix ``sum f f^T``, the right-hand side ``sum t f`` and the number
  of ratings. Features are staged four at a time and added as one rank-4 update, which reads
  and writes the ``d x d`` matrix a quarter as often as four rank-1 updates (figures:
  bench/RESULTS.md, "Figures formerly in docstrings"); **sum** folds two partial accumulators
  (staged features included), so partial gathers from several partitions combine exactly;
* **apply** adds the staged remainder and ``lam_v I`` and solves by a Cholesky factorization
  written out in Numba (no LAPACK at run time);
* **scatter** signals every neighbour, so the other side runs in the next superstep (dynamic
  scheduling).

The sync engine's semantics make each half-step exact: a gather reads only the other side's
factors, fixed during that superstep.

``solver="cg"`` (:class:`ALSCGProgram`, kernels in :mod:`gas.algorithms.als_cg`) solves each
ridge regression by a few conjugate-gradient steps from the previous factors instead: ``O(k)``
per rating and pass, ``cg_steps + 1`` supersteps per half-step, no ``k x k`` accumulator.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from gas.algorithms.als_cg import _cg_step
from gas.algorithms.mf_async import check_engine, fit_async
from gas.algorithms.mf_fit import _Fit, _staleness_options, check_dtype, check_real, check_whole
from gas.algorithms.mf_model import MFModel
from gas.errors import InputError
from gas.io.ratings import Ratings
from gas.options import RunOptions
from gas.program import ALL, NONE, OUT, VertexProgram
from gas.splitmix import GOLDEN, M1, M2, finalize64

__all__ = ["ALSCGProgram", "ALSProgram", "ALSStaticProgram", "als"]


_STAGE = 4  # ratings staged before one rank-4 update of the normal matrix


def layout(rank: int, biases: bool) -> tuple[int, int]:
    """``(d, width)``: unknowns per vertex and the stored row width (``d`` rounded up to 4)."""
    d = int(rank) + (1 if biases else 0)
    return d, (d + 3) // 4 * 4


_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def start_value(seed, vid, j):
    """A standard normal draw fixed by ``(seed, vid, j)``: two SplitMix64 words, Box-Muller.

    Every process computes the same starting vector for a vertex, whatever the partitioning.
    """
    key = np.uint64(seed) * GOLDEN + np.uint64(vid) * M1 + np.uint64(j) * M2
    a = finalize64(key + GOLDEN)
    b = finalize64(key ^ M2)
    u1 = (float(a >> np.uint64(11)) + 1.0) * _TO_UNIT  # in (0, 1]
    u2 = float(b >> np.uint64(11)) * _TO_UNIT
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
def _start(w, seed, vid, k, std):
    """``w[:k]`` = ``std`` times the normals of :func:`start_value`; the rest (bias, padding) 0."""
    for j in range(w.shape[0]):
        w[j] = std * start_value(seed, vid, j) if j < k else 0.0


@njit(cache=True)
def _rank1(acc, d, f):
    """``acc[:d, :] += f f^T`` (``f`` a row of the accumulator or a feature vector)."""
    w = acc.shape[1]
    for a in range(d):
        fa = f[a]
        row = acc[a]
        for b in range(w):
            row[b] += fa * f[b]


@njit(cache=True)
def _rank4(acc, d):
    """Add the 4 staged features to the normal matrix in one pass over it (4x fewer loads and
    stores of ``acc`` than four rank-1 updates), and clear the stage count."""
    w = acc.shape[1]
    r0 = acc[d + 1]
    r1 = acc[d + 2]
    r2 = acc[d + 3]
    r3 = acc[d + 4]
    for a in range(d):
        f0 = r0[a]
        f1 = r1[a]
        f2 = r2[a]
        f3 = r3[a]
        row = acc[a]
        for b in range(w):
            row[b] += f0 * r0[b] + f1 * r1[b] + f2 * r2[b] + f3 * r3[b]
    acc[d + 5, 0] = 0.0


@njit(cache=True, inline="always")
def _normal_add(acc, x, t, k, biases):
    """Add one rating to a normal-equation accumulator (inlined into the gather at Numba IR
    level: called per rating with the neighbour's row, a compiled call cost reference-count
    updates of the row and made the pass 2-5x slower, bench/RESULTS.md).

    Layout of ``acc`` (``d`` unknowns, ``width`` >= ``d`` columns, unused columns stay 0):
    rows ``0..d-1`` the normal matrix ``sum f f^T``, row ``d`` the right-hand side
    ``sum t f``, rows ``d+1..d+4`` features staged for the next rank-4 update,
    ``acc[d+5, 0]`` how many are staged and ``acc[d+5, 1]`` how many ratings were added.
    ``x`` is the neighbour's stored vector (``k`` factors, then its bias when ``biases``);
    the feature is ``f = [x[:k], 1]`` with biases (else ``x[:k]``) and the target ``t``
    minus the neighbour's bias.
    """
    d = acc.shape[0] - 6
    if biases:
        t -= x[k]
    nb = int(acc[d + 5, 0])
    f = acc[d + 1 + nb]
    rhs = acc[d]
    for b in range(k):
        xb = x[b]
        f[b] = xb
        rhs[b] += t * xb
    if biases:
        f[k] = 1.0
        rhs[k] += t
    acc[d + 5, 1] += 1.0
    if nb == _STAGE - 1:
        _rank4(acc, d)
    else:
        acc[d + 5, 0] = nb + 1.0


@njit(cache=True)
def _flush(acc):
    """Add the staged features (fewer than 4) to the normal matrix."""
    d = acc.shape[0] - 6
    for j in range(int(acc[d + 5, 0])):
        _rank1(acc, d, acc[d + 1 + j])
    acc[d + 5, 0] = 0.0


@njit(cache=True)
def _merge(a, b):
    """Fold accumulator ``b`` into ``a`` (the program's ``sum``): ``b``'s staged features go
    straight into ``a``'s normal matrix; ``a``'s own stay staged."""
    d = a.shape[0] - 6
    for j in range(int(b[d + 5, 0])):
        _rank1(a, d, b[d + 1 + j])
    for r in range(d + 1):
        for c in range(a.shape[1]):
            a[r, c] += b[r, c]
    a[d + 5, 1] += b[d + 5, 1]


@njit(cache=True)
def _cholesky_solve(acc, d, lam, out):
    """Solve ``(A + lam I) w = rhs`` into ``out[:d]``; ``A = acc[:d, :d]`` (symmetric; its upper
    triangle is read), ``rhs = acc[d, :d]``. The Cholesky factor ``L`` overwrites the lower
    triangle and the diagonal of ``acc``.

    Returns False (``out`` untouched) when the matrix is not positive definite (``lam = 0`` and
    too few ratings); with ``lam > 0`` it always is.
    """
    for j in range(d):
        s = acc[j, j] + lam
        for p in range(j):
            s -= acc[j, p] * acc[j, p]
        if not s > 0.0:
            return False
        ljj = np.sqrt(s)
        acc[j, j] = ljj
        for i in range(j + 1, d):
            s = acc[j, i]
            for p in range(j):
                s -= acc[i, p] * acc[j, p]
            acc[i, j] = s / ljj
    # forward: L y = rhs (y kept in acc[d]); back: L^T w = y
    for i in range(d):
        s = acc[d, i]
        for p in range(i):
            s -= acc[i, p] * acc[d, p]
        acc[d, i] = s / acc[i, i]
    for i in range(d - 1, -1, -1):
        s = acc[d, i]
        for p in range(i + 1, d):
            s -= acc[p, i] * out[p]
        out[i] = s / acc[i, i]
    return True


class ALSProgram(VertexProgram):
    """One ALS half-step per superstep on a bipartite ratings graph (see the module docstring).

    Parameters
    ----------
    rank : int
    reg : float
        ``lam_v = reg * n_v`` when ``weighted`` (``n_v`` = ratings of ``v``), else ``reg``.
    weighted : bool
    biases : bool
        Learn a bias per user and item (stored as the last entry of ``w``).
    mean : float
        Subtracted from every rating (the global mean); kept as ``self.mu`` (``mean`` would clash
        with the numpy record method in debug mode).
    seed, init_std : int, float
        ``init`` gives every vertex factors ``init_std * N(0, 1)`` from :func:`start_value`
        (the same on any number of processes) and bias 0.
    dtype : numpy float type, default numpy.float64
        Storage of the factors ``w`` (``numpy.float32``: half the bytes each gather reads; the
        sums and solves stay in float64).
    two_way : bool, default False
        The graph holds each rating twice, ``user -> item`` and ``item -> user`` (as
        :func:`als` builds it): gather and scatter over out-edges, so the items read their
        ratings in order, not through the in-edge index.

    Run it with the users (vertices ``0..U-1``) active in superstep 0: each side's scatter
    signals the other, so ``2 * iters`` supersteps make ``iters`` iterations.
    """

    gather_edges = ALL
    scatter_edges = ALL
    dynamic = True

    def __init__(
        self,
        rank: int = 20,
        reg: float = 0.1,
        weighted: bool = True,
        biases: bool = True,
        mean: float = 0.0,
        seed: int = 0,
        init_std: float = 0.1,
        dtype: Any = np.float64,
        two_way: bool = False,
    ) -> None:
        self.rank = check_whole("rank", rank, 1)
        self.reg = check_real("reg", reg, 0.0)
        self.weighted = bool(weighted)
        self.biases = bool(biases)
        self.mu = float(mean)
        self.seed = int(seed)
        self.init_std = float(init_std)
        self.dim, width = layout(rank, biases)
        self.vertex_data = {"w": (check_dtype(dtype), width)}
        self.gather_type = (np.float64, (self.dim + 6, width))
        if two_way:  # each rating is an edge each way: every vertex reads its ratings in order
            self.gather_edges = self.scatter_edges = OUT

    def init(self, v, ctx):
        _start(v.w, self.seed, v.vid, self.rank, self.init_std)

    def gather(self, v, e, nbr, acc):
        _normal_add(acc, nbr.w, e.weight - self.mu, self.rank, self.biases)

    def sum(self, a, b):
        _merge(a, b)

    def apply(self, v, total, ctx):
        _flush(total)
        # n_v counted by the gather (not the local degree, which a partition would cut short)
        lam = self.reg * total[self.dim + 5, 1] if self.weighted else self.reg
        _cholesky_solve(total, self.dim, lam, v.w)

    def scatter(self, v, e, nbr):
        return True


class ALSStaticProgram(ALSProgram):
    """:class:`ALSProgram` with every vertex active in every superstep, for bounded staleness.

    Superstep ``t`` solves the users when ``t`` is even and the items when it is odd (the other
    side keeps its vectors), so it makes the same half-steps as :class:`ALSProgram` without
    signals, which :mod:`gas.runtime.ssp` cannot carry. Its gathers run on both sides in every
    superstep (twice the edge work); use it only for SSP runs.
    """

    scatter_edges = NONE
    dynamic = False

    def __init__(self, *args: Any, num_users: int = 0, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.num_users = int(num_users)

    def apply(self, v, total, ctx):
        if (v.vid < self.num_users) == (ctx.iteration % 2 == 0):
            _flush(total)
            lam = self.reg * total[self.dim + 5, 1] if self.weighted else self.reg
            _cholesky_solve(total, self.dim, lam, v.w)


@njit(cache=True)
def _solve_moved(total, d, lam, w):
    """:func:`_cholesky_solve` into ``w[:d]``, returning how far ``w[:d]`` moved (Euclidean norm;
    0 when the matrix is not positive definite and ``w`` is kept)."""
    old = w[:d].copy()
    if not _cholesky_solve(total, d, lam, w):
        return 0.0
    return np.sqrt(np.sum((w[:d] - old) ** 2))


class ALSAsyncProgram(ALSProgram):
    """:class:`ALSProgram` for the asynchronous engine (:mod:`gas.algorithms.mf_async`): an
    update records how far its vector moved (``moved``) and, when that exceeds ``tol``, signals
    its neighbours with the change as the priority (GraphLab's ALS toolkit's rule).

    Parameters
    ----------
    tol : float, default 1e-3
        Smallest change that reschedules the neighbours; the others as :class:`ALSProgram`.
    """

    def __init__(self, *args: Any, tol: float = 1e-3, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.tol = check_real("tol", tol, 0.0)
        self.vertex_data = {"w": self.vertex_data["w"], "moved": np.float64}

    def apply(self, v, total, ctx):
        _flush(total)
        lam = self.reg * total[self.dim + 5, 1] if self.weighted else self.reg
        v.moved = _solve_moved(total, self.dim, lam, v.w)

    def scatter(self, v, e, nbr):
        return v.moved if v.moved > self.tol else 0.0


class ALSCGProgram(ALSProgram):
    """ALS whose half-steps solve each vertex's ridge regression by conjugate gradients.

    A half-step is one superstep of ``cg_steps + 1`` inner steps (``inner_steps``,
    :mod:`gas.engine_steps`): the first round gathers the residual at the vertex's current
    factors (warm start: the factors of the previous half-step), each later one gathers ``A p``
    for the search direction ``p`` and takes one CG step. Only one side is active, so the engine
    runs a vertex's rounds back to back while its neighbours' rows are in cache. Every pass
    costs ``O(k)`` per rating (Takacs et al. 2011 for explicit ALS; implicit's ALS solves its
    objective the same way), where the normal matrix of :class:`ALSProgram` costs ``O(k^2)``
    per rating, and the accumulator is one row instead of ``k + 7``. ``v.cg[2]`` counts the
    steps a vertex has left (0: the next round starts a solve); the scatter after the last one
    signals the other side. ``cg_steps = d`` (``rank``, plus one with biases) solves exactly up
    to rounding; fewer steps solve approximately, from a better start every iteration.

    Parameters
    ----------
    cg_steps : int
        CG steps per half-step (>= 1); the other parameters as :class:`ALSProgram`.
    """

    def __init__(self, *args: Any, cg_steps: int = 3, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.cg_steps = check_whole("cg_steps", cg_steps, 1)
        self.inner_steps = self.cg_steps + 1  # one superstep per half-step
        self.fastmath = True  # the dot products and sums in vector registers (order of sums free)
        self.half_step_supersteps = 1  # read by the fit driver (mf_fit)
        width = self.vertex_data["w"][1]
        self.vertex_data = {
            "w": self.vertex_data["w"],
            "r": (np.float64, width),
            "p": (np.float64, width),
            "cg": (np.float64, 3),  # r . r, lam, steps left in the solve
        }
        self.gather_type = (np.float64, (1, width))
        # ratings per vertex from its degree (one process, where CG runs: a partition would cut it
        # short): a count kept by the gather stored into the total at every rating, which cost a
        # third of the pass (bench/RESULTS.md, "ALS: a half-step in one superstep")
        self.both_ways = self.gather_edges == OUT

    def init(self, v, ctx):
        _start(v.w, self.seed, v.vid, self.rank, self.init_std)
        for j in range(self.dim):
            v.p[j] = v.w[j]  # a solve's first pass reads p = w (see _cg_step)
        v.cg[2] = 0.0  # no steps left: the first round starts a solve

    def gather(self, v, e, nbr, acc):
        # written out, reading p (= w in the first pass): a helper called per edge with the rows
        # as arguments, choosing between w and p, made each pass 2-3x slower (bench/RESULTS.md)
        x = nbr.w
        me = v.p
        k = self.rank
        s = 0.0
        for b in range(k):
            s += x[b] * me[b]
        t = e.weight - self.mu
        if self.biases:
            t -= x[k]
            s += me[k]
        if v.cg[2] == 0.0:  # a solve's first round: the residual
            s = t - s
        out = acc[0]
        for b in range(k):
            out[b] += s * x[b]
        if self.biases:
            out[k] += s

    def sum(self, a, b):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                a[i, j] += b[i, j]

    def apply(self, v, total, ctx):
        rounds = self.cg_steps + 1
        phase = (rounds - int(v.cg[2])) % rounds  # 0 with no steps left, then 1, 2, ...
        ratings = v.out_degree if self.both_ways else v.out_degree + v.in_degree  # a user's or an item's
        lam = self.reg * ratings if self.weighted else self.reg
        _cg_step(v.w, v.r, v.p, v.cg, total, self.dim, lam, phase == 0, phase == self.cg_steps)
        v.cg[2] = self.cg_steps - phase

    def scatter(self, v, e, nbr):
        return True  # after the half-step's last round: the other side solves next


def als(
    ratings: Ratings | str | os.PathLike,
    rank: int = 20,
    reg: float = 0.1,
    iters: int = 10,
    *,
    weighted: bool = True,
    biases: bool = True,
    init_std: float = 0.1,
    seed: int = 0,
    test: Ratings | None = None,
    threads: int | None = None,
    debug: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    procs: int = 1,
    partition: str = "hdrf",
    staleness: int | None = None,
    straggler: Any = None,
    options: RunOptions | None = None,
    solver: str = "cholesky",
    cg_steps: int = 3,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
    tol: float = 1e-3,
    priority_ratio: float = 0.01,
    dtype: Any = np.float64,
) -> MFModel:
    """Factorize a ratings matrix by alternating least squares (see the module docstring).

    Parameters
    ----------
    ratings : Ratings or path
        Training ratings (a path is read with :func:`gas.io.ratings.read_ratings`).
    rank, reg, iters, weighted, biases : default 20, 0.1, 10, True, True
        Latent factors; regularization (per vertex ``reg * n_v`` when ``weighted``, Zhou et al.);
        iterations (every user solved, then every item); a bias per user and per item.
    init_std, seed, test, threads, debug, progress
        Item factors start as ``init_std`` times :func:`start_value` draws; held-out ratings (RMSE
        recorded per iteration); Numba threads; plain Python; called per iteration with ``iteration``,
        ``seconds``, ``train_rmse``, ``test_rmse`` (the RMSEs only after the last with ``procs > 1``).
    procs, partition, options, staleness, straggler
        As in :func:`gas.run` (same factors up to the order of sums); with ``procs > 1``, bounded
        staleness ``s`` (:class:`ALSStaticProgram`; 0 is BSP) and a delay ``"RANK:SECONDS"``.
    solver, cg_steps, dtype : default "cholesky", 3, numpy.float64
        Exact solves or ``cg_steps`` warm-started CG steps (:class:`ALSCGProgram`); factor storage.
    engine, scheduler, consistency, tol, priority_ratio : default "sync", "fifo", None, 1e-3, 0.01
        ``"async"``: :class:`ALSAsyncProgram` on :class:`gas.AsyncEngine` (``"edge"`` consistency by
        default) with ``iters * (users + items)`` updates at most; a vertex that moved more than
        ``tol`` reschedules its neighbours (:mod:`gas.algorithms.mf_async`).

    Returns
    -------
    MFModel
        Factors, biases, original ids, the per-iteration ``history`` (InputError: a bad parameter,
        no ratings, too little memory; ConvergenceError: factors or RMSE not finite).

    Examples
    --------
    >>> import numpy as np  # a rank-3 matrix plus a constant, fully observed, is recovered
    >>> from gas.io.ratings import Ratings
    >>> rng = np.random.default_rng(0)
    >>> P, Q = rng.normal(size=(6, 3)), rng.normal(size=(5, 3))
    >>> u, i = np.divmod(np.arange(30), 5)
    >>> r = Ratings.from_arrays(u, i, 3.0 + np.sum(P[u] * Q[i], axis=1))
    >>> bool(als(r, rank=3, reg=1e-9, iters=30, weighted=False).rmse(r) < 1e-6)
    True
    """
    check_engine("als", engine, scheduler, consistency, procs, staleness=staleness, straggler=straggler)
    opts = _staleness_options(options, staleness, straggler, procs, iters, reg)
    fit = _Fit(ratings, "als", rank, init_std, seed, test, biases, two_way=_two_way_ok(engine, procs, opts))
    cg, dt = _solver_memory(fit, rank, biases, solver, cg_steps, _static(opts), engine, procs, dtype)
    fit.params.update(reg=float(reg), iters=int(iters), weighted=bool(weighted), biases=bool(biases))
    args = (rank, reg, weighted, biases, fit.mean, seed, init_std, dt)
    if engine == "async":
        how = dict(scheduler=scheduler, consistency=consistency, threads=threads, procs=procs, options=opts)
        how.update(partition=partition, priority_ratio=priority_ratio)
        return _als_async(fit, args, iters, tol, debug, progress, how)
    prog = _sync_program(args, fit, _static(opts), cg, cg_steps)
    return fit.run(prog, iters, threads, debug, progress, True, procs, partition, opts)  # alternating


def _static(opts: RunOptions | None) -> bool:
    """Whether the run is under bounded staleness (:class:`ALSStaticProgram`)."""
    return opts is not None and opts.staleness is not None


def _two_way_ok(engine: str, procs: int, opts: RunOptions | None) -> bool:
    """Whether the run is one process on the synchronous engine (where ALS runs ``two_way``)."""
    return engine == "sync" and procs == 1 and not (opts is not None and opts.needs_runtime)


def _sync_program(args: tuple, fit: _Fit, static: bool, cg: bool, cg_steps: int) -> ALSProgram:
    """The synchronous engine's program: static (bounded staleness), CG or exact."""
    if static:
        return ALSStaticProgram(*args, num_users=fit.num_users)
    return ALSCGProgram(*args, fit.two_way, cg_steps=cg_steps) if cg else ALSProgram(*args, fit.two_way)


def _als_async(
    fit: _Fit, args: tuple, iters: int, tol: float, debug: bool, progress: Any, how: dict
) -> MFModel:
    """:class:`ALSAsyncProgram` on the asynchronous engine with a budget of the vertex updates of
    ``iters`` synchronous iterations (:func:`gas.algorithms.mf_async.fit_async`)."""
    prog = ALSAsyncProgram(*args, tol=tol)
    return fit_async(fit, prog, iters * fit.graph.num_vertices, True, debug, progress, **how)


def _solver_memory(
    fit: _Fit,
    rank: int,
    biases: bool,
    solver: str,
    cg_steps: int,
    static: bool,
    engine: str,
    procs: int,
    dtype: Any = np.float64,
) -> tuple[bool, type]:
    """Check the solver (:func:`check_solver`: True for CG) and the dtype, refuse a run too large
    for memory (accumulators, ``w`` and CG's ``r``, ``p``, model copies), record both in
    ``fit.params``; return ``(cg, dtype)``."""
    cg = check_solver(solver, cg_steps, static, engine, procs)
    dt = check_dtype(dtype)
    fit.params["dtype"] = np.dtype(dt).name
    d, width = layout(rank, biases)
    per_rating = 96 * (2 if fit.two_way else 1)
    fit.check_memory(8 * (2 * (1 if cg else d + 6) * width + (6 if cg else 4) * width), per_rating)
    fit.params.update(solver=solver, **({"cg_steps": int(cg_steps)} if cg else {}))
    return cg, dt


def check_solver(solver: str, cg_steps: int, static: bool, engine: str = "sync", procs: int = 1) -> bool:
    """True for ``solver="cg"``, False for ``"cholesky"``; InputError for anything else, for
    ``cg_steps < 1`` and for CG under bounded staleness, on the asynchronous engine (their
    programs solve exactly) or on several processes (whose workers schedule by signals only)."""
    if solver not in ("cholesky", "cg"):
        raise InputError(
            f"Expected solver 'cholesky' or 'cg' (got {solver!r})",
            hint="solver='cholesky' solves exactly, 'cg' iteratively",
        )
    check_whole("cg_steps", cg_steps, 1)
    if solver == "cg" and (static or engine == "async" or procs > 1):
        what = "on the asynchronous engine" if engine == "async" else "under bounded staleness"
        what = f"on {procs} processes" if procs > 1 and not static else what
        raise InputError(
            f"solver='cg' cannot run {what} (its half-steps span several synchronous supersteps)",
            hint="use solver='cholesky' there",
        )
    return solver == "cg"
