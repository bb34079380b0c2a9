"""Typed, frozen runtime settings of a run: :class:`RunOptions` and its parts.

:func:`gas.run` (and the process runtime under it) takes one :class:`RunOptions` instead of a
dozen keywords: threads and debugging, the partitioner's seed, the asynchronous engine's
scheduler, consistency and budget, bounded staleness (:class:`Staleness`), snapshots
(:class:`CheckpointOptions`) and a state to start from (:class:`Restore`). Every class is a
frozen dataclass validated when it is built (a :class:`gas.GasError` says what was expected and
what was got), so a bad setting fails before any process starts, and an options object can be
shared and reused safely. Change one with :func:`dataclasses.replace`.

On the wire (rank 0 to its workers) the settings travel as JSON: ``to_json()`` gives plain
dicts, ``from_json()`` reads them back (never pickle).

Examples
--------
>>> import dataclasses
>>> opts = RunOptions(seed=3, staleness=Staleness(2, straggler="1:0.5"))
>>> opts.staleness.to_json()
{'staleness': 2, 'straggler': [1, 0.5]}
>>> RunOptions.from_json(opts.to_json()) == opts
True
>>> dataclasses.replace(opts, seed=4).seed
4
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from gas.errors import GasError
from gas.runtime.ssp_straggler import parse_straggler

__all__ = ["RunOptions", "Staleness", "CheckpointOptions", "Restore", "ENGINES", "SCHEDULERS"]

ENGINES = ("sync", "async", "cuda")
#: where the ranks of a process run compute
DEVICES = ("cpu", "cuda")
SCHEDULERS = ("fifo", "priority", "sweep")
CONSISTENCIES = ("vertex", "edge", "full")
LAUNCHERS = ("off", "auto")


def _whole(name: str, x: Any, low: int, *, optional: bool = False) -> None:
    """Refuse ``x`` unless it is an integer >= ``low`` (or None when ``optional``)."""
    if x is None and optional:
        return
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < low:
        raise GasError(f"Expected '{name}' to be an integer >= {low} (got {x!r})")


def _real(name: str, x: Any, low: float, high: float = math.inf) -> None:
    """Refuse ``x`` unless it is a finite number in ``(low, high]``."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise GasError(f"Expected '{name}' to be a number (got {x!r})")
    if not (math.isfinite(x) and low < x <= high):
        raise GasError(f"Expected '{name}' to be a finite number in ({low:g}, {high:g}] (got {x!r})")


def _one_of(name: str, x: Any, known: tuple[Any, ...]) -> None:
    if x not in known:
        raise GasError(f"Unknown {name} {x!r}; known: {', '.join(str(k) for k in known)}")


@dataclass(frozen=True, slots=True)
class Staleness:
    """Bounded staleness (SSP, :mod:`gas.runtime.ssp`) for a synchronous run on several ranks.

    Parameters
    ----------
    staleness : int, default 0
        The fastest rank runs at most this many supersteps ahead of the slowest; 0 is BSP.
    straggler : (int, float) or str, optional
        ``(rank, seconds)`` or ``"RANK:SECONDS"`` (``RANK`` may be ``any``): a delay added to
        each superstep of that rank. Stored as ``(rank, seconds)``, ``rank = -1`` for ``any``.
    fresh : bool, default True
        False: never read a peer's values from a superstep ahead of one's own.
    sweeps : int, default 0
        Local sweeps while waiting (programs with ``delta_fields`` only).

    Examples
    --------
    >>> Staleness(1, straggler="any:0.01").straggler
    (-1, 0.01)
    >>> Staleness.from_json(Staleness(2, fresh=False).to_json())
    Staleness(staleness=2, straggler=None, fresh=False, sweeps=0)
    """

    staleness: int = 0
    straggler: Any = None
    fresh: bool = True
    sweeps: int = 0

    def __post_init__(self) -> None:
        s = self.staleness
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise GasError(f"Expected a staleness bound s >= 0 supersteps (got {s!r})")
        _whole("sweeps", self.sweeps, 0)
        if not isinstance(self.fresh, bool):
            raise GasError(f"Expected 'fresh' to be True or False (got {self.fresh!r})")
        if self.straggler is not None:
            object.__setattr__(self, "straggler", parse_straggler(self.straggler))

    def to_json(self) -> dict[str, Any]:
        """The job note of :func:`gas.runtime.ssp.ssp_job` (keys left out at their defaults)."""
        note: dict[str, Any] = {
            "staleness": int(self.staleness),
            "straggler": None if self.straggler is None else list(self.straggler),
        }
        if not self.fresh:
            note["fresh"] = False
        if self.sweeps:
            note["sweeps"] = int(self.sweeps)
        return note

    @classmethod
    def from_json(cls, note: Mapping[str, Any]) -> Staleness:
        """Read back :meth:`to_json`."""
        strag = note.get("straggler")
        return cls(
            staleness=int(note.get("staleness", 0)),
            straggler=None if strag is None else tuple(strag),
            fresh=note.get("fresh") is not False,
            sweeps=int(note.get("sweeps", 0)),
        )


@dataclass(frozen=True, slots=True)
class CheckpointOptions:
    """Consistent snapshots of a process run (see :mod:`gas.runtime.checkpoint`).

    Parameters
    ----------
    folder : str
        Where the ``step-<s>`` folders go.
    every : int, default 1
        Snapshot every ``every`` supersteps (rounds for the asynchronous engine).
    keep : int, default 2
        Complete snapshots kept (the newest ones).
    meta : dict, optional
        JSON-able facts written into each manifest (e.g. the command that made it, to resume).

    Examples
    --------
    >>> CheckpointOptions("snaps", every=5).to_json()
    {'dir': 'snaps', 'every': 5, 'meta': {}}
    >>> CheckpointOptions("snaps", every=0)
    Traceback (most recent call last):
    ...
    gas.errors.GasError: Expected 'every' to be an integer >= 1 (got 0)
    """

    folder: str
    every: int = 1
    keep: int = 2
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.folder, (str, os.PathLike)) or not str(self.folder):
            raise GasError(f"Expected 'folder' to be a folder path (got {self.folder!r})")
        object.__setattr__(self, "folder", str(self.folder))
        _whole("every", self.every, 1)
        _whole("keep", self.keep, 1)
        if not isinstance(self.meta, Mapping):
            raise GasError(f"Expected 'meta' to be a dict (got {type(self.meta).__name__})")

    def to_json(self) -> dict[str, Any]:
        """The form the drivers read: ``{"dir", "every", "meta"}`` (and ``"keep"`` if not 2)."""
        out: dict[str, Any] = {"dir": self.folder, "every": int(self.every), "meta": dict(self.meta)}
        if self.keep != 2:
            out["keep"] = int(self.keep)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CheckpointOptions:
        """Read back :meth:`to_json` (the ``checkpoint`` dict of earlier versions too)."""
        return cls(str(d["dir"]), int(d.get("every", 1)), int(d.get("keep", 2)), dict(d.get("meta") or {}))


@dataclass(frozen=True, slots=True)
class Restore:
    """A state to start from instead of ``init``: a snapshot, or starting values.

    Parameters
    ----------
    step : int
        Supersteps already run (0 for starting values).
    vertex : dict of str to ndarray
        Vertex fields by internal vertex id (every vertex).
    edges : dict of str to ndarray
        Edge fields by edge id (the graph's order).
    active : ndarray of bool, optional
        The vertices active in the next superstep (default: every vertex; required when
        ``vertex`` is empty).
    done : bool, default False
        The snapshot's run had already stopped.
    init : bool, default False
        The arrays are starting values: ``init`` still runs after them (it may overwrite them).

    Examples
    --------
    >>> import numpy as np
    >>> r = Restore(0, {"x": np.zeros(3)}, {}, init=True)
    >>> r.to_json()
    {'step': 0, 'done': False, 'init': True, 'vertex': ['x'], 'edges': []}
    >>> bool(r.as_dict()["active"].all())
    True
    """

    step: int
    vertex: Mapping[str, np.ndarray]
    edges: Mapping[str, np.ndarray] = field(default_factory=dict)
    active: np.ndarray | None = None
    done: bool = False
    init: bool = False

    def __post_init__(self) -> None:
        _whole("step", self.step, 0)
        if not isinstance(self.vertex, Mapping) or not isinstance(self.edges, Mapping):
            raise GasError("Expected Restore 'vertex' and 'edges' to be dicts of arrays")
        rows = {np.shape(a)[:1] for a in self.vertex.values()}
        if len(rows) > 1:
            raise GasError(f"Expected every restored vertex field to have the same rows (got {sorted(rows)})")
        if self.active is None:
            if not rows or not next(iter(rows)):
                raise GasError("Expected Restore 'active' (every vertex's mask) without vertex fields")
            object.__setattr__(self, "active", np.ones(next(iter(rows))[0], bool))

    def to_json(self) -> dict[str, Any]:
        """The job note (the arrays travel apart, see :func:`gas.runtime.wire.send_restore`)."""
        return {
            "step": int(self.step),
            "done": bool(self.done),
            "init": bool(self.init),
            "vertex": sorted(self.vertex),
            "edges": sorted(self.edges),
        }

    def as_dict(self) -> dict[str, Any]:
        """The dict the drivers read (``step``, ``done``, ``init``, ``active``, ``vertex``, ``edges``)."""
        return {
            "step": int(self.step),
            "done": bool(self.done),
            "init": bool(self.init),
            "active": self.active,
            "vertex": dict(self.vertex),
            "edges": dict(self.edges),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Restore:
        """From the restore dict of :func:`gas.runtime.checkpoint.restore_state` (or :meth:`as_dict`)."""
        act = d.get("active")
        return cls(
            step=int(d["step"]),
            vertex=dict(d["vertex"]),
            edges=dict(d.get("edges") or {}),
            active=None if act is None else np.asarray(act).astype(bool, copy=False),
            done=bool(d.get("done")),
            init=bool(d.get("init")),
        )


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The runtime settings of :func:`gas.run`, one frozen object.

    Parameters
    ----------
    threads : int, optional
        Numba threads of a one-process run (default: all; a process run gives each rank its
        share of the cores).
    debug : bool, default False
        Run the program uncompiled, one thread (one process only).
    seed : int, default 0
        Seed of the partitioner (process runs).
    timeout : float, default 120
        Seconds spawned workers have to join.
    scheduler : {"fifo", "priority", "sweep"}, default "fifo"
        The asynchronous engine's scheduler.
    consistency : {"vertex", "edge", "full"}, optional
        The asynchronous engine's consistency model (default: the weakest the program is safe
        under; ``"full"`` on one process only).
    priority_ratio : float, default 0.01
        ``scheduler="priority"`` on several processes: a round runs the scheduled vertices whose
        priority is at least this share of the highest.
    max_work : int, optional
        The asynchronous engine's budget: edges visited plus vertex updates.
    staleness : Staleness, optional
        Bounded staleness (process runs, synchronous engine).
    checkpoint : CheckpointOptions, optional
        Snapshots (process runs).
    restore : Restore, optional
        A state to start from (process runs).
    edges : bool, default False
        Also return the program's edge fields (``RunResult.edge_data``, by edge id; a process run).
    device : {"cpu", "cuda"}, default "cpu"
        Where each rank of a process run computes: ``"cuda"`` gives each rank one GPU
        (:class:`gas.cuda_engine.CudaEngine`; ``gas.run(..., engine="cuda", procs=N)`` sets it).
    launcher : {"off", "auto"}, default "off"
        ``"auto"``: when a launcher (``mpiexec``, ``srun``, torchrun-style env) started several
        ranks, join them and run this rank's part (:func:`gas.runtime.local.run_launched`).

    Examples
    --------
    >>> RunOptions(threads=2).threads
    2
    >>> RunOptions(scheduler="lifo")
    Traceback (most recent call last):
    ...
    gas.errors.GasError: Unknown scheduler 'lifo'; known: fifo, priority, sweep
    """

    threads: int | None = None
    debug: bool = False
    seed: int = 0
    timeout: float = 120.0
    scheduler: str = "fifo"
    consistency: str | None = None
    priority_ratio: float = 0.01
    max_work: int | None = None
    staleness: Staleness | None = None
    checkpoint: CheckpointOptions | None = None
    restore: Restore | None = None
    edges: bool = False
    device: str = "cpu"
    launcher: str = "off"

    def __post_init__(self) -> None:
        _whole("threads", self.threads, 1, optional=True)
        _whole("seed", self.seed, 0)
        _whole("max_work", self.max_work, 0, optional=True)
        _real("timeout", self.timeout, 0.0)
        _real("priority_ratio", self.priority_ratio, 0.0, 1.0)
        _one_of("scheduler", self.scheduler, SCHEDULERS)
        if self.consistency is not None:
            _one_of("consistency model", self.consistency, CONSISTENCIES)
        _one_of("launcher", self.launcher, LAUNCHERS)
        _one_of("device", self.device, DEVICES)
        for name in ("debug", "edges"):
            if not isinstance(getattr(self, name), bool):
                raise GasError(f"Expected '{name}' to be True or False (got {getattr(self, name)!r})")
        for name, kind in (("staleness", Staleness), ("checkpoint", CheckpointOptions), ("restore", Restore)):
            x = getattr(self, name)
            if x is not None and not isinstance(x, kind):
                raise GasError(f"Expected '{name}' to be a {kind.__name__} (got {type(x).__name__})")

    @property
    def needs_runtime(self) -> bool:
        """Whether only the process runtime runs these settings (staleness, snapshots, a
        restore, edge fields in the result): :func:`gas.run` then uses it even for one process."""
        return (
            self.staleness is not None
            or self.checkpoint is not None
            or self.restore is not None
            or self.edges
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (a restore's arrays are left out: they travel apart)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            x = getattr(self, f.name)
            out[f.name] = x.to_json() if hasattr(x, "to_json") else x
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RunOptions:
        """Read back :meth:`to_json` (without a restore: its arrays are not in the JSON)."""
        kw = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        if kw.get("staleness") is not None:
            kw["staleness"] = Staleness.from_json(kw["staleness"])
        if kw.get("checkpoint") is not None:
            kw["checkpoint"] = CheckpointOptions.from_json(kw["checkpoint"])
        kw.pop("restore", None)
        return cls(**kw)

    def updated(self, **changes: Any) -> RunOptions:
        """A copy with the settings in ``changes`` that are not None (the rest kept).

        Examples
        --------
        >>> o = RunOptions(seed=2).updated(seed=None, threads=1)
        >>> o.seed, o.threads
        (2, 1)
        """
        return replace(self, **{k: v for k, v in changes.items() if v is not None})
