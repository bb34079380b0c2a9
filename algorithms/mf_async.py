"""Matrix factorization on the asynchronous engine (:class:`gas.AsyncEngine`): ALS and SGD.

:func:`gas.algorithms.als` and :func:`gas.algorithms.sgd` call :func:`fit_async` for
``engine="async"``. The graph, the model and the starting vectors are those of the synchronous
runs (:mod:`gas.algorithms.mf_fit`); what changes is who runs when.

ALS (:class:`gas.algorithms.als.ALSAsyncProgram`)
    An update of a vertex solves its ridge regression from its neighbours' *current* factors
    (exactly, by Cholesky, as the synchronous half-step does), records how far its vector moved
    (``moved``: the Euclidean norm of the change of its factors and bias) and, when that
    exceeds ``tol``, signals its neighbours with the change as the priority: GraphLab's ALS
    toolkit's rule. The users alone are scheduled first. With ``tol=0`` and the ``fifo`` or
    ``sweep`` scheduler every update signals, so the rounds alternate users and items and
    repeat the synchronous half-steps exactly; the ``priority`` scheduler runs first the
    vertices whose neighbours moved most, and a vertex whose neighbours all moved less than
    ``tol`` is not run again. An update writes only its own vertex; the default consistency
    here is ``edge`` all the same (the engine's default would be ``vertex``), so that no user
    reads an item half-way through the item's solve when a round holds both sides.

SGD (:class:`gas.algorithms.sgd.SGDAsyncProgram`)
    Each side updates only its own factors: an update of user ``u`` walks its ratings in order
    and takes the SGD step of ``p_u`` and ``b_u`` for each (Funk's update, the item's vector
    read, not written); an update of item ``i`` does the same for ``q_i`` and ``c_i`` over its
    ratings. An epoch (a round: the program is static, every vertex runs in every round) so
    visits each rating twice, once from each side. Nothing is written by two updates, so no
    update can be lost under any consistency model; under ``edge`` consistency no neighbour is
    half-way through its update when read, so a run equals the sequential run in colour order
    (on a ratings graph, all users then all items: the one-thread run in id order) bit for bit.
    The synchronous :func:`gas.algorithms.sgd` (Hogwild) instead writes the item from the
    user's gather; on this engine that needs ``full`` consistency (two users of one item are
    not adjacent, so ``edge`` consistency runs them at once and one's write to the item can be
    lost: ``tests/test_mf_async.py`` counts them).

On several processes (``procs > 1``, :mod:`gas.runtime.async_dist`, ``edge`` or ``vertex``
consistency): ALS runs the same rounds as one process (floating-point sums aside); an SGD
update of a vertex whose ratings lie on several processes runs its steps on each process's share
from the same vector and adds up the changes, so its steps on one process do not see those on
another within a round (as the synchronous SGD's across processes).

Budgets: ``iters`` allows the vertex updates of ``iters`` synchronous iterations
(``iters * (users + items)``); an ALS run also stops when nothing is scheduled (every change
below ``tol``), and each SGD round is one epoch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.algorithms.mf_fit import _Diverged, _finite_state
from gas.algorithms.mf_model import MFModel
from gas.async_engine import CONSISTENCY, SCHEDULERS
from gas.errors import GasError
from gas.program import NONE, VertexProgram

__all__ = ["ENGINES", "check_engine", "fit_async"]

#: the engines :func:`gas.algorithms.als` and :func:`gas.algorithms.sgd` take
ENGINES = ("sync", "async")


def check_engine(
    algorithm: str, engine: str, scheduler: str, consistency: str | None, procs: int, **sync_only: Any
) -> None:
    """Refuse (:class:`gas.GasError`, naming the value and a fix) an unknown ``engine``,
    ``scheduler`` or ``consistency``, and options the asynchronous runs of ``algorithm`` do not
    take: ``sync_only`` maps such an option's name to its value (None or False: not given).

    Examples
    --------
    >>> check_engine("als", "async", "priority", "edge", 1)
    >>> check_engine("als", "asynch", "fifo", None, 1)
    Traceback (most recent call last):
    ...
    gas.errors.GasError: Unknown engine 'asynch' for ALS; known: sync, async
    """
    name = algorithm.upper()
    if engine not in ENGINES:
        raise GasError(f"Unknown engine {engine!r} for {name}; known: {', '.join(ENGINES)}")
    if engine == "sync":
        return
    if scheduler not in SCHEDULERS:
        raise GasError(f"Unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}")
    if consistency is not None and consistency not in CONSISTENCY:
        raise GasError(f"Unknown consistency model {consistency!r}; known: {', '.join(CONSISTENCY)}")
    if procs > 1 and consistency == "full":
        raise GasError(
            f"{name} with engine='async' and consistency='full' runs on one process only "
            f"(got procs={procs}); use consistency='edge' or procs=1"
        )
    for key, value in sync_only.items():
        if value not in (None, False):
            raise GasError(
                f"{key}={value!r} is for the synchronous {name} (engine='sync'); drop it with engine='async'"
            )


def fit_async(
    fit: Any,
    program: VertexProgram,
    budget: int,
    users_first: bool,
    debug: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    *,
    rounds: int | None = None,
    scheduler: str = "fifo",
    consistency: str | None = None,
    threads: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: Any = None,
    priority_ratio: float = 0.01,
) -> MFModel:
    """Run ``program`` on the asynchronous engine for ``fit`` (a :class:`gas.algorithms.mf_fit._Fit`)
    and build the model.

    ``budget``: most vertex updates; ``rounds``: most rounds (default ``budget``).
    ``users_first``: the users alone are scheduled at first (ALS: the program draws its own
    starting vectors in ``init``); otherwise every vertex, starting from ``fit.start()`` (SGD).
    One history record per round: ``iteration`` (the round), ``updates`` and ``edges``
    (cumulative: vertex updates and the edges they visited), ``seconds``, and the RMSEs when
    ``progress`` or a test set asks for them. ``procs > 1`` runs through :func:`gas.run` (the
    chromatic engine across processes, :mod:`gas.runtime.async_dist`); then only the final
    RMSEs are recorded. ``priority_ratio``: as :class:`gas.AsyncEngine`'s (one process).
    """
    if not np.isfinite(fit.mean):
        raise fit.divergence(0, "the mean rating is not finite (the ratings' sum overflows float64)")
    consistency = consistency or "edge"
    rounds = budget if rounds is None else rounds
    active = np.arange(fit.num_users) if users_first else None
    if procs > 1 or (options is not None and options.needs_runtime):
        model = _fit_procs(fit, program, budget, rounds, scheduler, consistency, progress, active, procs,
                           partition, options)  # fmt: skip
    else:
        how = (scheduler, consistency, threads, debug, priority_ratio)
        model = _fit_local(fit, program, budget, rounds, how, progress, active)
    w = np.concatenate([model.user_factors.ravel(), model.item_factors.ravel()])
    last = model.history[-1] if model.history else {}
    what = _finite_state(w, last.get("train_rmse"))
    if what is not None:
        raise fit.divergence(len(model.history), what)
    return model


def _fit_local(fit, program, budget, rounds, how, progress, active):
    """:func:`fit_async` on this process, checking after every round that the factors are finite."""
    from gas.async_engine import AsyncEngine

    scheduler, consistency, threads, debug, ratio = how
    eng = AsyncEngine(fit.graph, program, scheduler=scheduler, consistency=consistency, threads=threads,
                      debug=debug, priority_ratio=ratio)  # fmt: skip
    if active is None:
        w0 = fit.start()
        eng.columns["w"][:, : w0.shape[1]] = w0
    track = progress is not None or fit.test is not None
    train = fit._train() if track else None
    history: list[dict[str, Any]] = []
    total = {"updates": 0, "edges": 0}

    def record(stat: dict[str, Any]) -> None:
        total["updates"] += int(stat["active"])
        total["edges"] += int(stat["edges"])
        rec: dict[str, Any] = {"iteration": len(history) + 1, "seconds": float(stat["seconds"]), **total}
        fit.record_iteration(eng.columns["w"], rec, train, history, progress)

    t0 = time.perf_counter()
    try:
        res = eng.run(rounds, active=active, progress=record, max_updates=budget)
    except _Diverged as exc:
        raise fit.divergence(exc.iteration, exc.what) from None
    fit.params["async"] = _summary(scheduler, eng.consistency, res.converged, total, time.perf_counter() - t0)
    return fit.model(eng.columns["w"], history)


def _fit_procs(
    fit, program, budget, rounds, scheduler, consistency, progress, active, procs, partition, options
):
    """:func:`fit_async` on local worker processes: only the final RMSEs are recorded."""
    from dataclasses import replace

    from gas.api import run
    from gas.options import RunOptions
    from gas.runtime.local import initial_state

    opts = options or RunOptions()
    if active is None:  # the same random start as one process, drawn here
        opts = replace(opts, restore=initial_state(fit.graph, program, {"vertex": {"w": fit.start()}}))
    # the process runtime budgets work (updates plus edges visited), not updates: the work of
    # ``budget`` updates of every vertex in turn (gather over all edges, and scatter for ALS)
    g = fit.graph
    visits = 2 * g.num_edges * (1 if program.scatter_edges == NONE else 2)
    work = -(-budget // max(1, g.num_vertices)) * (g.num_vertices + visits)
    t0 = time.perf_counter()
    res = run(g, program, engine="async", procs=procs, partition=partition, max_iter=rounds, active=active,
              scheduler=scheduler, consistency=consistency, options=opts, max_work=work)  # fmt: skip
    total = {
        "updates": int(sum(int(st.get("active", 0)) for st in res.stats)),
        "edges": int(sum(int(st.get("edges", 0)) for st in res.stats)),
    }
    rec: dict[str, Any] = {
        "iteration": len(res.stats),
        "seconds": float(sum(st["seconds"] for st in res.stats)),
    }
    rec.update(total)
    model = fit.model(res.vertex_data["w"], [rec])
    rec["train_rmse"] = model._rmse_internal(*fit._train())
    if fit.test is not None:
        rec["test_rmse"] = model._rmse_internal(*fit._test)
    fit.params["async"] = _summary(scheduler, consistency, res.converged, total, time.perf_counter() - t0)
    model.params = dict(fit.params)
    if progress is not None:
        progress(rec)
    return model


def _summary(scheduler: str, consistency: str, converged: bool, total: dict[str, int], secs: float) -> dict:
    """What ``model.params["async"]`` records of an asynchronous run."""
    return {"scheduler": scheduler, "consistency": consistency, "converged": bool(converged),
            "updates": total["updates"], "edges": total["edges"], "seconds": float(secs)}  # fmt: skip
