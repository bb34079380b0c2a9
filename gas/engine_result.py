"""What an engine run returns, and the check the bundled algorithms make on it.

:class:`RunResult` carries a run's final vertex data, its output field, the supersteps (or
rounds) run, whether it converged, per-superstep statistics and the final aggregates; every
engine (:class:`gas.SyncEngine`, :class:`gas.AsyncEngine` and the distributed runtimes) returns
one. :func:`require_converged` turns a run that stopped at ``max_iter`` into a
:class:`gas.ConvergenceError` carrying the partial answer. Both are re-exported by
:mod:`gas.engine`. :class:`RunLog` is the bookkeeping every engine and process driver shares:
one statistics record per superstep (or round), the between-supersteps hook and the
``progress`` callback, the program's stopping test and the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas.errors import convergence_error

__all__ = ["RunResult", "RunLog", "require_converged"]


@dataclass
class RunResult:
    """What a run returns.

    Attributes
    ----------
    vertex_data : ndarray (structured)
        Final vertex data, one record per internal vertex id.
    output : ndarray
        The program's output field (``program.output``, default the first field).
    iterations : int
        Supersteps run.
    converged : bool
        True if the run stopped because no vertex was active or ``converged`` said so.
    stats : list of dict
        Per superstep: ``iteration``, ``active``, ``edges`` (edges visited by gather and
        scatter), ``seconds`` and the aggregates.
    aggregates : dict
        Aggregates after the last superstep.
    edge_data : dict
        Final values of the program's own edge fields, by global edge id, when a distributed run
        was asked for them (``run_distributed(..., edges=True)``); empty otherwise (one process:
        read ``engine.edge_columns``).
    """

    vertex_data: np.ndarray
    output: np.ndarray
    iterations: int
    converged: bool
    stats: list[dict[str, Any]] = field(default_factory=list)
    aggregates: dict[str, float] = field(default_factory=dict)
    edge_data: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def updates(self) -> int:
        """Vertex updates (gather-apply-scatter runs) over the whole run."""
        return int(sum(s.get("active", 0) for s in self.stats))

    @property
    def edge_updates(self) -> int:
        """Edges visited by gather and scatter over the whole run (the work the benchmarks compare)."""
        return int(sum(s.get("edges", 0) for s in self.stats))


def require_converged(res: RunResult, what: str, result: Any = None, rounds: bool | None = None) -> None:
    """Raise :class:`gas.ConvergenceError` unless ``res`` converged (the bundled algorithms'
    check; ``result``, default ``res``, is the partial answer the error carries; ``rounds``:
    the run was asynchronous, default: guessed from its statistics).

    The message says how far the run got: the vertices still active (a superstep) or still
    scheduled (a round of the asynchronous engines) when it stopped, the error's ``residual``
    (its ``target`` is 0).

    Examples
    --------
    >>> import numpy as np, gas
    >>> res = RunResult(np.zeros(0), np.zeros(0), 2, False, [{"active": 5}])
    >>> try:
    ...     require_converged(res, "Label propagation")
    ... except gas.ConvergenceError as exc:
    ...     print(exc)
    Label propagation stopped after 2 supersteps with 5 vertices still active (raise max_iter)
    """
    if res.converged:
        return
    last = res.stats[-1] if res.stats else {}
    rounds = "scheduled" in last if rounds is None else rounds
    left = int(last.get("scheduled", last.get("active", 0))) if res.stats else -1
    if left < 0:  # no superstep ran (max_iter=0)
        raise convergence_error(
            f"{what} stopped before its first {'round' if rounds else 'superstep'} (max_iter=0)",
            iterations=0,
            result=res if result is None else result,
        )
    raise convergence_error(
        f"{what} stopped after {res.iterations} {'rounds' if rounds else 'supersteps'} with "
        f"{left:,d} vertices still {'scheduled' if rounds else 'active'} (raise max_iter)",
        iterations=res.iterations,
        residual=float(left),
        target=0.0,
        result=res if result is None else result,
    )


class RunLog:
    """The statistics, hooks, stopping test and outcome of one run (every engine and driver).

    Parameters
    ----------
    engine : Engine
        The engine whose ``ctx`` the stopping test reads, passed to ``between`` and whose
        :meth:`~gas.engine_base.Engine.result` :meth:`finish` calls.
    first_iteration : int, default 0
        Number of the first superstep (a resumed run continues the count).
    progress : callable, optional
        ``progress(stat)`` after each superstep; reads only.
    between : callable, optional
        ``between(engine, stat)`` after each superstep, before ``progress`` and the stopping
        test; may change the run's state (and add to ``stat``).

    Attributes
    ----------
    iteration : int
        The next superstep's number.
    stats : list of dict
        One record per superstep: ``iteration``, ``active``, ``edges``, the caller's extra
        entries, ``seconds`` and the aggregates.
    aggregates : dict
        The aggregates of the last superstep recorded (or set by the caller).

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> eng = gas.SyncEngine(gas.Graph.from_edges([0, 1], [1, 0]), PageRankProgram())
    >>> log = RunLog(eng, between=lambda e, stat: stat.update(seen=True))
    >>> t0 = time.perf_counter()
    >>> sorted(log.record(t0, 2, 2, {"dangling": 0.0}))
    ['active', 'dangling', 'edges', 'iteration', 'seconds', 'seen']
    >>> log.finish(True).iterations
    1
    """

    def __init__(
        self,
        engine: Any,
        *,
        first_iteration: int = 0,
        progress: Callable[[dict[str, Any]], None] | None = None,
        between: Callable[[Any, dict[str, Any]], None] | None = None,
    ) -> None:
        self.engine = engine
        self.iteration = int(first_iteration)
        self.progress = progress
        self.between = between
        self.stats: list[dict[str, Any]] = []
        self.aggregates: dict[str, float] = {}
        self._converged = getattr(engine.program, "converged", None)
        self._ctx = engine.ctx.view(np.recarray)[0]

    def record(
        self,
        t0: float,
        active: int,
        edges: int,
        aggregates: dict[str, float],
        before: dict[str, Any] | None = None,
        after: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Record the superstep begun at ``t0`` (``time.perf_counter()``) with its updates
        (``active``), edges visited and aggregates (``before`` / ``after``: more entries, placed
        before / after ``seconds``), then call ``between`` and ``progress``. Returns the record."""
        stat = {"iteration": self.iteration, "active": active, "edges": edges}
        if before:
            stat.update(before)
        stat["seconds"] = time.perf_counter() - t0
        if after:
            stat.update(after)
        stat.update(aggregates)
        self.stats.append(stat)
        self.aggregates = aggregates
        self.iteration += 1
        if self.between is not None:
            self.between(self.engine, stat)
        if self.progress is not None:
            self.progress(stat)
        return stat

    def program_converged(self) -> bool:
        """The program's own stopping test, ``converged(ctx)`` (False without one)."""
        return self._converged is not None and bool(self._converged(self._ctx))

    def finish(self, converged: bool) -> RunResult:
        """The run's :class:`RunResult` (the engine's, with these statistics)."""
        return self.engine.result(self.iteration, converged, self.stats, self.aggregates)
