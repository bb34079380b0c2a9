"""The fit driver ALS and SGD share: argument checks, the ratings graph, the run, the model.

:class:`_Fit` turns the training ratings into the bipartite graph the programs run on (users
``0..U-1``, items ``U..U+I-1``), draws the starting vectors, runs the program on one process or
on local worker processes while tracking the RMSEs, refuses a diverging run
(:class:`gas.ConvergenceError`), and builds the :class:`~gas.algorithms.mf_model.MFModel`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from gas.algorithms.mf_model import MFModel, _lookup
from gas.api import run
from gas.errors import ConvergenceError, InputError, convergence_error
from gas.graph import Graph
from gas.options import RunOptions, Staleness

__all__ = ["check_dtype", "check_real", "check_whole"]


def check_whole(name: str, x: Any, low: int) -> int:
    """``x`` as an int, refused (InputError) unless a whole number ``>= low``."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < low:
        raise InputError(f"Expected {name} to be a whole number >= {low} (got {x!r})")
    return int(x)


def check_real(name: str, x: Any, low: float, *, strict: bool = False, high: float | None = None) -> float:
    """``x`` as a float, refused (InputError) unless finite and ``>= low`` (``> low`` when
    ``strict``) and ``<= high``. NaN and infinities are refused."""
    ok = isinstance(x, (int, float, np.number)) and not isinstance(x, bool) and np.isfinite(x)
    if ok:
        ok = (x > low if strict else x >= low) and (high is None or x <= high)
    if not ok:
        where = f"{'>' if strict else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")
        raise InputError(f"Expected {name} to be a finite number {where} (got {x!r})")
    return float(x)


def check_dtype(dtype: Any) -> type:
    """``numpy.float64`` or ``numpy.float32`` for ``dtype`` (a type or its name); InputError else."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise InputError(
            f"Expected dtype float64 or float32 (got {dtype!r})",
            hint="dtype='float32' stores the factors in half the bytes",
        )
    return dt.type


#: Past this magnitude a squared error overflows float64 (sqrt of its largest value, 1.8e308).
_SQUARE_MAX = 1.3e154


def _two_way(g: Graph) -> Graph:
    """``g`` (edges ``user -> item``) with each edge also the other way, ``item -> user``, same
    weight; the ``user -> item`` edges stay first and in their order (users have the smaller ids)."""
    w = g.edata["weight"]
    src, dst = g.src, g.dst
    both = Graph.from_edges(
        np.concatenate([src, dst]),
        np.concatenate([dst, src]),
        num_vertices=g.num_vertices,
        weights=np.concatenate([w, w]),
        dedupe=False,
    )
    return both


class _Diverged(Exception):
    """Raised by the per-iteration check to stop a run at its first non-finite iteration."""

    def __init__(self, iteration: int, what: str) -> None:
        super().__init__(what)
        self.iteration = iteration
        self.what = what


def _finite_state(w: np.ndarray, rmse: float | None) -> str | None:
    """What is not finite (the factors or the RMSE), or None when both are finite."""
    if not np.isfinite(w).all():
        return "the factors are not finite" + ("" if rmse is None else f" (training RMSE {rmse})")
    if rmse is not None and not np.isfinite(rmse):
        return f"the training RMSE is {rmse}"
    return None


class _Fit:
    """What ALS and SGD share: the bipartite graph, starting vectors, tracking, the model.

    Vertices ``0..U-1`` are users and ``U..U+I-1`` items; each program keeps a vertex field
    ``w`` of ``rank`` factors followed by the bias when ``biases``.
    """

    def __init__(
        self,
        ratings: Any,
        algorithm: str,
        rank: int,
        init_std: float,
        seed: int,
        test: Any,
        biases: bool,
        two_way: bool = False,
    ) -> None:
        from gas.io.ratings import Ratings, read_ratings

        if not isinstance(ratings, Ratings):
            ratings = read_ratings(ratings)
        if len(ratings) == 0:
            raise InputError("no training ratings", path=ratings.path)
        check_whole("rank", rank, 1)
        check_real("init_std", init_std, 0.0)
        check_whole("seed", seed, 0)
        self.ratings = ratings
        self.algorithm = algorithm
        self.rank = int(rank)
        self.biases = bool(biases)
        self.graph = ratings.graph()
        self.num_users = ratings.num_users
        #: the first ``num_ratings`` edges are the ratings, ``user -> item``
        self.num_ratings = self.graph.num_edges
        self.two_way = bool(two_way)
        if two_way:
            self.graph = _two_way(self.graph)
        g = self.graph
        r = g.edata["weight"][: self.num_ratings]
        with np.errstate(over="ignore"):
            self.mean = float(r.mean())  # inf when the ratings' sum overflows: see run()
        self.range = (float(r.min()), float(r.max()))
        self.max_abs = max(abs(self.range[0]), abs(self.range[1]))
        self.seed = int(seed)
        self.init_std = float(init_std)
        self.params: dict[str, Any] = {"rank": self.rank, "init_std": self.init_std, "seed": self.seed}
        self.test = test
        if test is not None:
            tu, ti, tr = test.original()
            self._test = (_lookup(ratings.user_ids, tu), _lookup(ratings.item_ids, ti), tr)

    def check_memory(self, bytes_per_vertex: int, bytes_per_rating: int = 96) -> None:
        """Refuse (InputError) a run whose vertex and edge arrays would need more than the
        available memory (:func:`gas.io.limits.available_memory`), before allocating them."""
        from gas.io.limits import available_memory

        g = self.graph
        need = g.num_vertices * int(bytes_per_vertex) + self.num_ratings * int(bytes_per_rating)
        avail = available_memory()
        if need > avail:
            raise InputError(
                f"{self.algorithm.upper()} with rank {self.rank:,d} on {self.num_users:,d} users, "
                f"{g.num_vertices - self.num_users:,d} items and {self.num_ratings:,d} ratings would need "
                f"about {need / 2**30:,.1f} GiB; {avail / 2**30:,.1f} GiB are available",
                path=self.ratings.path,
                hint="use a smaller --rank",
            )

    def divergence(self, iteration: int, what: str) -> ConvergenceError:
        """The error of a run whose factors or RMSE stopped being finite, naming likely causes."""
        causes = []
        if self.max_abs > _SQUARE_MAX:
            causes.append(
                f"ratings too large (up to |r| = {self.max_abs:.3g}; a squared error overflows float64 "
                f"past {_SQUARE_MAX:.1e}): rescale them"
            )
        lr = self.params.get("lr")
        if lr is not None:
            causes.append(f"a learning rate too high (lr={lr:g}; try lr={lr / 10:g})")
        reg = self.params.get("reg")
        if reg is not None:
            causes.append(f"too little regularization (reg={reg:g})")
        if self.init_std > 1.0:
            causes.append(f"starting factors too large (init_std={self.init_std:g})")
        when = f"after iteration {iteration}" if iteration else "before the first iteration"
        return convergence_error(
            f"{self.algorithm.upper()} diverged {when}: {what} (ratings up to |r| = {self.max_abs:.3g}). "
            f"Likely cause: {'; or '.join(causes)}. Nothing was written: non-finite factors are no answer.",
            iterations=iteration,
            residual=float("nan"),
            target=None,
            result=None,
        )

    def start(self) -> np.ndarray:
        """Starting vectors: factors ``N(0, init_std^2)`` from ``default_rng(seed)``, biases 0."""
        g = self.graph
        d = self.rank + (1 if self.biases else 0)
        w = np.zeros((g.num_vertices, d), np.float64)
        w[:, : self.rank] = np.random.default_rng(self.seed).normal(
            0.0, self.init_std, (g.num_vertices, self.rank)
        )
        return w

    def model(self, w: np.ndarray, history: list[dict[str, Any]] | None = None) -> MFModel:
        """An :class:`MFModel` from the vertex vectors ``w`` (copied; float64)."""
        w = np.asarray(w, np.float64)
        u, k = self.num_users, self.rank
        g = self.graph
        zeros = np.zeros(g.num_vertices)
        bias = np.ascontiguousarray(w[:, k]) if self.biases else zeros
        indptr = np.ascontiguousarray(g.out_indptr[: u + 1])
        return MFModel(
            user_factors=np.ascontiguousarray(w[:u, :k]),
            item_factors=np.ascontiguousarray(w[u:, :k]),
            user_bias=bias[:u].copy(),
            item_bias=bias[u:].copy(),
            global_mean=self.mean,
            user_ids=self.ratings.user_ids,
            item_ids=self.ratings.item_ids,
            rating_range=self.range,
            algorithm=self.algorithm,
            params=dict(self.params),
            seen_indptr=indptr,
            seen_items=(g.dst[: indptr[-1]] - u).astype(np.int32 if g.num_vertices < 2**31 else np.int64),
            history=list(history or []),
        )

    def run(
        self,
        program: Any,
        iters: int,
        threads: int | None,
        debug: bool,
        progress: Callable[[dict[str, Any]], None] | None,
        alternate: bool,
        procs: int = 1,
        partition: str = "hdrf",
        options: RunOptions | None = None,
    ) -> MFModel:
        """Run ``program`` for ``iters`` iterations and build the model.

        ``alternate``: an iteration is two supersteps, the users active in the first (they
        signal the items for the second) and the program sets its own starting vectors in
        ``init``; otherwise one superstep per iteration with every vertex active, starting from
        :meth:`start`. ``procs > 1`` (or ``options`` the process runtime runs) runs through
        :func:`gas.run` on local worker processes; then only the final RMSEs are known.
        ``options.staleness``: a static ``program`` under bounded staleness (every vertex active
        in every superstep, the program picks the side that solves).

        Raises :class:`gas.ConvergenceError` (from :meth:`divergence`, ``result`` None) when the
        mean rating, the factors or the training RMSE are not finite: after every iteration on
        one process (the run stops there), at the end on several.
        """
        if not np.isfinite(self.mean):
            raise self.divergence(0, "the mean rating is not finite (the ratings' sum overflows float64)")
        if procs > 1 or (options is not None and options.needs_runtime):
            model = self._run_procs(program, iters, progress, alternate, procs, partition, options)
        else:
            model = self._run_local(program, iters, threads, debug, progress, alternate)
        last = model.history[-1] if model.history else {}
        rmse = last.get("train_rmse")
        if rmse is None:
            rmse = model._rmse_internal(*self._train())
        what = _finite_state(np.concatenate([model.user_factors.ravel(), model.item_factors.ravel()]), rmse)
        if what is None:
            what = _finite_state(np.concatenate([model.user_bias, model.item_bias]), None)
        if what is not None:
            raise self.divergence(len(model.history), what)
        return model

    def _run_procs(
        self,
        program: Any,
        iters: int,
        progress: Callable[[dict[str, Any]], None] | None,
        alternate: bool,
        procs: int,
        partition: str,
        options: RunOptions | None,
    ) -> MFModel:
        """:meth:`run` on local worker processes (:func:`gas.run`): only the final RMSEs are known."""
        from gas.runtime.local import initial_state

        per = 2 * getattr(program, "half_step_supersteps", 1) if alternate else 1
        opts = options or RunOptions()
        if not alternate:  # the same random start as one process, drawn here
            opts = replace(opts, restore=initial_state(self.graph, program, {"vertex": {"w": self.start()}}))
        static = opts.staleness is not None
        res = run(
            self.graph,
            program,
            procs=procs,
            partition=partition,
            max_iter=per * iters,
            active=None if static else (np.arange(self.num_users) if alternate else None),
            options=opts,
        )
        if getattr(res, "ssp", None):
            self.params["ssp"] = dict(res.ssp)
        secs = [st["seconds"] for st in res.stats]
        history: list[dict[str, Any]] = []
        for j in range(len(secs) // per):
            history.append({"iteration": j + 1, "seconds": float(sum(secs[per * j : per * j + per]))})
        model = self.model(res.vertex_data["w"], history)
        if history:
            history[-1]["train_rmse"] = model._rmse_internal(*self._train())
            if self.test is not None:
                history[-1]["test_rmse"] = model._rmse_internal(*self._test)
            what = _finite_state(res.vertex_data["w"], history[-1]["train_rmse"])
            if what is not None:  # found at the end: the workers do not check each iteration
                raise self.divergence(len(history), what + " at the end of the run")
        if progress is not None:
            for rec in history:
                progress(rec)
        return model

    def _run_local(
        self,
        program: Any,
        iters: int,
        threads: int | None,
        debug: bool,
        progress: Callable[[dict[str, Any]], None] | None,
        alternate: bool,
    ) -> MFModel:
        """:meth:`run` on this process, checking after every iteration that the factors (and the
        training RMSE, when tracked) are finite: a diverging run stops at once."""
        from gas.engine import SyncEngine

        per = 2 * getattr(program, "half_step_supersteps", 1) if alternate else 1
        eng = SyncEngine(self.graph, program, threads=threads, debug=debug)
        if not alternate:
            w0 = self.start()
            eng.columns["w"][:, : w0.shape[1]] = w0  # columns past the unknowns (padding) stay 0
        track = progress is not None or self.test is not None
        train = self._train() if track else None
        pending = {"seconds": 0.0}
        history: list[dict[str, Any]] = []

        def record(stat: dict[str, Any]) -> None:
            pending["seconds"] += stat["seconds"]
            if (stat["iteration"] + 1) % per:
                return
            rec: dict[str, Any] = {"iteration": len(history) + 1, "seconds": pending["seconds"]}
            pending["seconds"] = 0.0
            self.record_iteration(eng.columns["w"], rec, train, history, progress)

        active = np.arange(self.num_users) if alternate else None
        try:
            eng.run(per * iters, active=active, progress=record)
        except _Diverged as exc:
            raise self.divergence(exc.iteration, exc.what) from None
        return self.model(eng.columns["w"], history)

    def record_iteration(
        self,
        w: np.ndarray,
        rec: dict[str, Any],
        train: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
        history: list[dict[str, Any]],
        progress: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        """Close one iteration's record ``rec`` on the factors ``w``: add the training and test
        RMSEs (when ``train``, from :meth:`_train`, is given), raise :class:`_Diverged` on a state
        that is not finite, then keep the record in ``history`` and pass it to ``progress``."""
        if train is not None:
            m = self.model(w)
            rec["train_rmse"] = m._rmse_internal(*train)
            if self.test is not None:
                rec["test_rmse"] = m._rmse_internal(*self._test)
        what = _finite_state(w, rec.get("train_rmse"))
        if what is not None:
            raise _Diverged(rec["iteration"], what)
        history.append(rec)
        if progress is not None:
            progress(rec)

    def _train(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Internal (user, item, rating) arrays of the training graph's edges."""
        g, u, m = self.graph, self.num_users, self.num_ratings
        return g.src[:m], g.dst[:m] - u, g.edata["weight"][:m]


def _staleness_options(
    options: RunOptions | None, staleness: int | None, straggler: Any, procs: int, iters: int, reg: float
) -> RunOptions | None:
    """After checking ``iters``, ``procs`` and ``reg``: ``options`` with ``staleness`` and
    ``straggler`` folded in, refused on one process."""
    check_whole("iters", iters, 0)
    check_whole("procs", procs, 1)
    check_real("reg", reg, 0.0)
    if staleness is not None:
        check_whole("staleness", staleness, 0)
    if staleness is not None or straggler is not None:
        options = (options or RunOptions()).updated(staleness=Staleness(staleness or 0, straggler))
    if options is not None and options.staleness is not None and procs < 2:
        raise ValueError("staleness and straggler need several processes (procs > 1)")
    return options
