"""The asynchronous engine across processes, by chromatic steps (GraphLab's chromatic engine).

Semantics are those of :class:`gas.AsyncEngine` on several threads (read its module docstring)
with the ``fifo``, ``priority`` or ``sweep`` scheduler, run on masters and mirrors:

* A *round* takes the vertices scheduled when it begins (``fifo``), those of them whose
  priority is at least ``priority_ratio`` times the highest scheduled priority (``priority``;
  the highest is an all-reduce over the masters), or the ones scheduled when the pass reaches
  each group (``sweep``), and runs them group by group. Under ``edge``
  consistency the groups are the colour classes of one greedy distance-1 colouring of the whole
  graph (:func:`gas.greedy_coloring.greedy_coloring`, the one :class:`gas.AsyncEngine` uses), so no two
  adjacent vertices run at the same time *on any process*; under ``vertex`` consistency there is
  one group.
* A group runs as one *chromatic step* on every rank: each replica of a member gathers over its
  local edges, mirrors send their partial totals to the master (``reduce_gather``), masters
  apply and send the new data to their mirrors (``sync_vertices``), then every replica scatters
  over its local edges and the signals are OR-ed at the master and sent back
  (``reduce_signals``; under ``priority`` each signal's priority travels with it and the master
  keeps the largest, as one process keeps the largest of a vertex's signals). Signals schedule
  vertices: for the next round (``fifo``, ``priority``), or for a later group of the same pass
  (``sweep``).

Why this is the single-process result: within a colour class no member is adjacent to another,
so a member's gather reads only neighbours that are not running, whose data the previous steps
made current everywhere; running the class as gather-all, apply-all, scatter-all therefore does
what running the members one by one would (the edges a member's scatter writes are adjacent to
no other member). The steps of one round follow the same colour order on every rank, and every
replica of a vertex holds the same schedule bit. So a run on P processes equals
:class:`gas.AsyncEngine` on one process with the same colouring (floating-point sums may differ
in their last bits: partial totals are added per process).

What it costs: one barrier-like exchange per non-empty colour class per round (a chromatic
engine's price); vertex programs on different processes run without any lock.

Snapshots (``checkpoint``) are taken between rounds, with the schedule: the scheduled vertices
and, under ``priority``, their priorities.

Not supported across processes: ``full`` consistency (a program that writes its neighbours
would need those writes folded into the masters), and ``priority_fraction`` (the cap on a
round's size); ``full`` is refused before any work starts.

Examples
--------
>>> import threading, numpy as np, gas
>>> from gas.runtime.comm import MAX, Comm
>>> from gas.runtime.worker_graph import part_of_graph
>>> from gas.runtime.transport import InProcHub
>>> from gas.algorithms.coloring import ColoringProgram
>>> from gas.greedy_coloring import greedy_coloring
>>> g = gas.Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 0])
>>> color = greedy_coloring(g, 1)
>>> hub = InProcHub(2)
>>> out = [None, None]
>>> def work(r):
...     part = part_of_graph(g, np.array([0, 1, 0, 1]), g.src % 2, r)
...     out[r] = run_partition_async(part, ColoringProgram(g), Comm(hub.transport(r)), color=color)
>>> ts = [threading.Thread(target=work, args=(r,)) for r in range(2)]
>>> for t in ts: t.start()
>>> for t in ts: t.join()
>>> one = gas.AsyncEngine(g, ColoringProgram(g), consistency="edge", threads=2).run()
>>> out[0].output.tolist() == one.output.tolist()
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.async_engine import CONSISTENCY, STRENGTH
from gas.engine_base import Hook
from gas.engine_result import RunLog, RunResult
from gas.errors import GasError
from gas.graph import Graph
from gas.greedy_coloring import color_classes, greedy_coloring
from gas.program import VertexProgram
from gas.program_spec import ProgramSpec
from gas.runtime.bsp import collect_edges, collect_masters, restore_into, snapshot
from gas.runtime.comm import MAX, Comm
from gas.runtime.dist_engine import DistEngine, local_active, part_engine
from gas.runtime.network_exchange import NetworkExchange
from gas.runtime.worker_graph import WorkerPart

__all__ = ["DIST_SCHEDULERS", "check_async", "async_groups", "run_partition_async"]

DIST_SCHEDULERS = ("fifo", "priority", "sweep")
PRIO_COLUMN = "__priority"  # the schedule's priorities in a snapshot of a priority run


def check_async(program: VertexProgram, graph: Graph, scheduler: str, consistency: str | None) -> str:
    """The consistency model a run across processes will use; refuses what it cannot run.

    The default is the weakest model the program is safe under, as for :class:`gas.AsyncEngine`.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.pagerank import DeltaPageRankProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 0])
    >>> check_async(DeltaPageRankProgram(), g, "fifo", "edge")
    'edge'
    """
    if scheduler not in DIST_SCHEDULERS:
        raise GasError(
            f"Unknown scheduler {scheduler!r}; the asynchronous engine runs {', '.join(DIST_SCHEDULERS)} "
            "across processes"
        )
    if consistency is not None and consistency not in CONSISTENCY:
        raise GasError(f"Unknown consistency model {consistency!r}; known: {', '.join(CONSISTENCY)}")
    if ProgramSpec.of(program).gather_slots:
        raise GasError(
            f"{type(program).__name__} keeps its gather values in slots (gas.Slots), which the "
            "asynchronous engine runs on one process only: use procs=1, or engine='sync' across processes"
        )
    need = ProgramSpec.of(program).consistency_needed  # the analysis alone: the engine validates
    model = consistency or need
    if STRENGTH[model] < STRENGTH[need]:
        raise GasError(
            f"{type(program).__name__} writes {'neighbour' if need == 'full' else 'edge'} data, which "
            f"{model!r} consistency does not protect. Fix: consistency={need!r}"
        )
    if model == "full":
        raise GasError(
            f"{type(program).__name__} needs full consistency (it writes its neighbours), which the "
            "asynchronous engine does not run across processes (a neighbour's master would miss the "
            "write); run it on one process, or use a pull form that writes only its own vertex"
        )
    return model


def async_groups(graph: Graph, consistency: str) -> np.ndarray:
    """Group (colour) of every vertex for a run across processes: a distance-1 colouring under
    ``edge`` consistency, one group (all 0) under ``vertex``."""
    if consistency == "edge":
        return np.ascontiguousarray(greedy_coloring(graph, 1), dtype=np.int32)
    return np.zeros(graph.num_vertices, np.int32)


def run_partition_async(
    part: WorkerPart,
    program: VertexProgram,
    comm: Comm,
    *,
    color: np.ndarray,
    scheduler: str = "fifo",
    priority_ratio: float = 0.01,
    max_iter: int = 1000,
    active: Any = None,
    threads: int | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    checkpoint: dict[str, Any] | None = None,
    restore: dict[str, Any] | None = None,
    edges: bool = False,
    max_work: int | None = None,
    between: Hook | None = None,
) -> RunResult:
    """Run ``program`` asynchronously on this rank's part (see the module docstring).

    ``color`` is the group of every global vertex (:func:`async_groups`), the same on every rank.
    Rank 0 returns every vertex's data; statistics are per round (``active``: updates in the
    round over all ranks, ``edges``: edges visited by gather and scatter over all ranks,
    ``scheduled``, ``steps``: chromatic steps run, ``seconds``, ``exchange_seconds``,
    ``bytes_sent`` of this rank, aggregates).

    ``checkpoint``, ``restore`` and ``edges`` are those of
    :func:`gas.runtime.bsp.run_partition`, with rounds for supersteps: between two rounds
    every replica holds its master's data and schedule bit, so a snapshot taken there (vertex
    rows, the vertices scheduled for the next round, program-written edge data) is consistent,
    and a run resumed from it (on any number of processes) does the rounds the uninterrupted run
    would have done.

    ``max_work``: stop once the work of every rank (edges visited plus vertex updates, as
    :meth:`gas.AsyncEngine.run` counts it) reaches this, checked after each round; every rank
    sees the same totals, so all stop together. A resumed run counts its work afresh. A run that
    stops at a budget returns ``converged=False``; deciding what that means is the caller's (the
    ``gas`` command exits with status 3). ``between`` is :meth:`gas.AsyncEngine.run`'s hook,
    called on every rank with its own engine after each round.
    """
    if scheduler not in DIST_SCHEDULERS:
        raise GasError(f"Expected a scheduler in {DIST_SCHEDULERS} (got {scheduler!r})")
    if not 0.0 <= priority_ratio <= 1.0:
        raise GasError(f"Expected 0 <= priority_ratio <= 1 (got {priority_ratio})")
    if max_iter < 0:
        raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
    eng, eid = part_engine(part, program, comm, threads)
    first, converged, run_init = 0, False, True
    if restore is not None:
        first, active, run_init = _resume(eng, restore, eid)
        if restore.get("done"):
            max_iter, converged = first, True
    run = _AsyncRun(eng, comm, part, color, scheduler, priority_ratio, active, restore)
    log = RunLog(eng, first_iteration=first, progress=progress, between=between)
    every = int(checkpoint["every"]) if checkpoint else 0
    work = 0
    with eng.thread_scope():
        eng.ctx["iteration"] = first
        if run_init:
            eng.init()
        log.aggregates = eng.aggregate()
        run.ex.meter()  # a round's exchange statistics start here
        while log.iteration < max_iter:
            stat = run.round(log)
            if stat is None:  # nothing ran
                converged = True
                break
            if log.program_converged() or (run.dynamic and stat["scheduled"] == 0):
                converged = True
                break
            work += stat["active"] + stat["edges"]
            if max_work is not None and work >= max_work:
                break
            if every and log.iteration % every == 0 and log.iteration < max_iter:
                run.snapshot(checkpoint, log.iteration, eid, stat)
    res = log.finish(converged)
    collect_masters(res, eng, comm, part.num_vertices)
    if edges:
        collect_edges(res, eng, eid, comm, part.num_edges)
    return res


def _resume(eng: DistEngine, restore: dict[str, Any], eid: np.ndarray) -> tuple[int, Any, bool]:
    """Load a snapshot (or a starting state) into ``eng``: its round, scheduled vertices and
    whether ``init`` still runs."""
    first = restore_into(eng, restore, eng.partition.global_ids, eid)
    return first, restore["active"], bool(restore.get("init"))


class _AsyncRun:
    """One rank's asynchronous run: its colour groups, schedule and the rounds of chromatic
    steps of :func:`run_partition_async`, built from the engine's public steps."""

    def __init__(
        self,
        eng: DistEngine,
        comm: Comm,
        part: WorkerPart,
        color: np.ndarray,
        scheduler: str,
        priority_ratio: float,
        active: Any,
        restore: dict[str, Any] | None,
    ) -> None:
        self.eng, self.comm, self.part, self.scheduler = eng, comm, part, scheduler
        self.ex: NetworkExchange = eng.exchange  # type: ignore[assignment]
        partition = eng.partition
        n = eng.graph.num_vertices
        gids = partition.global_ids  # local id -> global id (the identity when not compacted)
        color = np.asarray(color)
        if color.shape != (part.num_vertices,):
            raise GasError(
                f"rank {comm.rank}: expected a colour per vertex ({part.num_vertices}), "
                f"got shape {color.shape}"
            )
        self.ngroups = ngroups = int(color.max()) + 1 if color.size else 0  # the same on every rank
        order, bounds = color_classes(color[gids])  # this part may lack the last colours: pad
        bounds = np.concatenate([bounds, np.full(max(ngroups + 1 - bounds.size, 0), bounds[-1])])
        self.members = [order[bounds[c] : bounds[c + 1]] for c in range(ngroups)]
        self.dynamic = bool(eng.program.dynamic)
        self.is_master = partition.is_master
        self.queued = np.ones(n, np.uint8)
        if active is not None:  # global ids or a global mask, like SyncEngine.run's
            self.queued = local_active(active, eng, part.num_vertices).astype(np.uint8)
        # priorities (``priority``): the initial vertices run before any signalled one, as on one
        # process; a resumed run takes the snapshot's
        self.prio = np.where(self.queued != 0, np.inf, 0.0)
        if restore is not None and PRIO_COLUMN in restore["vertex"]:
            self.prio = np.ascontiguousarray(restore["vertex"][PRIO_COLUMN][gids], np.float64)
        self.by_priority = scheduler == "priority"
        self.ratio = priority_ratio if self.dynamic else 0.0  # a static program runs every vertex
        self.mask = np.zeros(n, np.uint8)  # the step's members, and its masters (reset after each step)
        self.own = np.zeros(n, np.uint8)

    def step(self, batch: np.ndarray) -> tuple[int, int]:
        """One chromatic step over ``batch`` (local ids of one group; every replica of a vertex
        agrees on whether it is in); returns the updates and edges over all ranks."""
        eng, ex, mask, own, is_master = self.eng, self.ex, self.mask, self.own, self.is_master
        counts = self.comm.allreduce(
            np.array([np.count_nonzero(is_master[batch]), eng.visit_degree[batch].sum()], np.int64)
        )
        if counts[0] == 0:
            return 0, 0
        mask[batch] = 1
        own[batch] = is_master[batch]
        eng.gather(mask)
        if eng.gathers:
            ex.reduce_gather(eng.acc, mask, 0)
        eng.apply(own, all_ranges=True)  # masters; sync_vertices brings mirrors up to date
        ex.sync_vertices(eng.VC, mask)
        if eng.scatters:
            signal = np.zeros(mask.shape[0], np.uint8)
            if self.by_priority:
                sprio = np.zeros(mask.shape[0], np.float64)
                eng.scatter(mask, signal, sprio)
                ex.reduce_signals(signal, sprio)  # ... and the largest priority of each
                np.maximum(self.prio, sprio, out=self.prio)
            else:
                eng.scatter(mask, signal)
                ex.reduce_signals(signal)  # every replica now holds the master's OR of the signals
            ex.pending_active = None
            self.queued[signal != 0] = 1
        mask[batch] = 0
        own[batch] = 0
        return int(counts[0]), int(counts[1])

    def _pass(self) -> tuple[int, int, int]:
        """The groups of a ``fifo`` or ``priority`` round, fixed when it begins."""
        queued, prio, members = self.queued, self.prio, self.members
        ran = edges = steps = 0
        cand = queued.astype(bool)
        if self.by_priority and self.ratio > 0.0:
            # every replica holds its master's priority: the same threshold and the same
            # candidates everywhere (the highest priority is taken over masters)
            mine = prio[cand & self.is_master]
            top = self.comm.allreduce(np.array([mine.max() if mine.size else 0.0]), MAX)[0]
            cand &= prio >= top * self.ratio
        queued[cand] = 0
        prio[cand] = 0.0
        for c in range(self.ngroups):
            u, e = self.step(members[c][cand[members[c]]])
            ran, edges, steps = ran + u, edges + e, steps + (u > 0)
        return ran, edges, steps

    def _sweep(self) -> tuple[int, int, int]:
        """A ``sweep`` round: each group runs the vertices scheduled when the pass reaches it."""
        queued, members = self.queued, self.members
        ran = edges = steps = 0
        for c in range(self.ngroups):
            batch = members[c][queued[members[c]] != 0]
            queued[batch] = 0
            u, e = self.step(batch)
            ran, edges, steps = ran + u, edges + e, steps + (u > 0)
        return ran, edges, steps

    def round(self, log: RunLog) -> dict[str, Any] | None:
        """Round ``log.iteration``, recorded in ``log``; None when nothing ran."""
        eng = self.eng
        if not self.dynamic:
            self.queued[:] = 1
        t0 = time.perf_counter()
        eng.ctx["iteration"] = log.iteration
        ran, edges, steps = self._sweep() if self.scheduler == "sweep" else self._pass()
        if ran == 0:
            return None
        aggs = eng.aggregate()
        left = int(
            self.comm.allreduce(np.array([np.count_nonzero(self.queued[self.is_master])], np.int64))[0]
        )
        before = {"scheduled": left, "steps": steps}
        return log.record(t0, ran, edges, aggs, before=before, after=self.ex.meter())

    def snapshot(self, checkpoint: dict[str, Any], step: int, eid: np.ndarray, stat: dict[str, Any]) -> None:
        """Write this rank's snapshot after round ``step - 1``, with the schedule."""
        ex = self.ex
        nxt = self.queued[ex.master_ids] if self.dynamic else None
        extra = {PRIO_COLUMN: self.prio} if self.by_priority else None
        snapshot(checkpoint, step, self.part, self.eng, ex, eid, self.comm, stat, nxt, extra)
