"""What an engine run returns, and the check the bundled algorithms make on it.

:class:`RunResult` carries a run's final vertex data, its output field, the supersteps (or
rounds) run, whether it converged, per-superstep statistics and the final aggregates; every
engine (:class:`gas.SyncEngine`, :class:`gas.AsyncEngine` and the distributed runtimes) returns
one. :func:`require_converged` turns a run that stopped at ``max_iter`` into a
:class:`gas.ConvergenceError` carrying the partial answer. Both are re-exported by
:mod:`gas.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas.errors import convergence_error

__all__ = ["RunResult", "require_converged"]


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
