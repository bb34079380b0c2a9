"""The asynchronous engine (GraphLab's): a vertex runs as soon as it is scheduled and reads the
freshest data of its neighbours, under a chosen consistency model.

Execution semantics
-------------------
An *update* of vertex ``v`` is its gather, apply and scatter run back to back: gather reads the
neighbours' current data (including updates made earlier in the same round), apply writes ``v``,
scatter may write ``v``'s edges (and, under ``full`` consistency, its neighbours) and signals
neighbours. ``scatter`` returns True or a number: a value > 0 signals ``nbr``, and for the
``priority`` scheduler it is the signal's priority (a vertex signalled several times keeps the
largest). A vertex signalled several times before it runs runs once.

Work proceeds in *rounds*. Initially the ``active`` vertices (default all) are scheduled.

* ``fifo``: a round runs every vertex scheduled when the round began, in colour-class order;
  signals raised during the round schedule vertices for the next round (a breadth-first
  wavefront: first signalled, first run).
* ``priority``: relaxed max-priority-first. A round sets the threshold
  ``t = priority_ratio * p_max``, where ``p_max`` is the highest priority among the scheduled
  vertices when the round begins, and runs the scheduled vertices whose priority is ``>= t``;
  the others wait. So a vertex of priority ``p_max`` always runs in the current round and no
  vertex below ``priority_ratio * p_max`` runs before it. On one thread the round is a pass in
  id order that also runs a vertex signalled earlier in the same pass once its priority reaches
  ``t`` (Gauss-Seidel order, no heap: no ``log n`` per signal); on several threads the round's
  vertices are fixed when it begins and run as colour-class batches, except with ``cascade``
  under ``vertex`` consistency, where each thread makes such a pass over a block of ids.
  ``priority_ratio=1`` gives exact max-priority-first (a round runs only the vertices of
  highest priority; a scan of all vertices per round). With ``priority_fraction < 1`` a round
  also runs at most the ``max(min_batch, ceil(priority_fraction * scheduled))`` highest of
  those vertices, as one batch.
* ``sweep``: a round is an ordered pass over the vertex groups (colour classes, or id blocks
  under ``vertex`` consistency); each group runs the vertices scheduled at the moment the pass
  reaches it, so signals to later groups are served in the same pass (Gauss-Seidel order). The
  whole round is one compiled call: a group whose scheduled vertices visit fewer than
  ``SWEEP_SMALL_EDGES`` edges runs as one piece, a larger one is split between the threads
  into runs of about equal edges.

A program may also schedule vertices from their own data: with a method ``priority(self, v)``
(vertex-local, read-only), a vertex whose ``priority(v) > 0`` counts as scheduled with that
priority (a signal on it counts too: the larger wins), whether or not anything signalled it. The
scheduler reads it when it picks a round's vertices, and the one-thread ``priority`` pass and
``sweep`` read it when they reach the vertex, so a value raised earlier in the pass counts. A
scatter that writes its neighbours' data (``full`` consistency) then need not signal at all: in
residual-push PageRank the neighbour's residual is its priority, and an edge costs one add
instead of an add, a threshold test and a maximum (bench/RESULTS.md, "Asynchronous
engine"). This is PowerGraph's message priority without the message: the pending value
lives in a vertex field. On one thread the ``priority`` pass takes ``p_max`` from the end of the
previous pass, so a between-rounds hook (``run(..., between=hook)``) that changes the data
``priority`` reads reports the new highest value with :meth:`AsyncEngine.raise_top_priority`.

After each round the aggregates are recomputed (``ctx.<name>`` is at most one round old),
``ctx.iteration`` is the round number, the ``between`` hook may change the state (vertex data,
:meth:`AsyncEngine.schedule`, :meth:`AsyncEngine.raise_top_priority`), ``progress`` reads the
round's statistics, and ``converged(ctx)`` may stop the run. The run stops
when nothing is scheduled, when ``converged`` says so, after ``max_iter`` rounds, after
``max_updates`` vertex updates, or once the work (edges visited plus vertex updates) reaches
``max_work``. A program with ``dynamic = False`` schedules every vertex in every round.

Rounds are not supersteps: a round may run a handful of vertices or all of them, so a budget in
rounds says little about how far a run got. A budget by work does: one superstep of the
synchronous engine over every vertex of a program that gathers over in-edges costs
``num_edges + num_vertices`` (:func:`superstep_work`), and ``max_work = K *`` that allows the
work of ``K`` supersteps. :meth:`AsyncEngine.run` only reports whether it stopped by its own
rule (:attr:`gas.RunResult.converged`); the bundled algorithms raise
:class:`gas.ConvergenceError` when it did not.

Consistency models and how they are enforced
--------------------------------------------
``vertex``
    An update writes only its own vertex. Any two vertices may run at the same time, so a
    gather may see a neighbour half-way through its own update (for scalar fields: an old or a
    new value). The batch runs in one parallel loop.
``edge``
    No two adjacent vertices run at the same time; an update may also write its adjacent edges.
    Enforced by chromatic execution: a greedy distance-1 colouring (:mod:`gas.greedy_coloring`) splits
    each batch into colour classes, which run one after another, each class in parallel.
``full``
    No two vertices within distance 2 run at the same time; an update may write its neighbours.
    Enforced with a distance-2 colouring. When that colouring would cost more than
    ``FULL_COLORING_LIMIT`` edge visits (sum of squared degrees; power-law hubs), the batch
    runs on one thread in id order instead, which is sequential and so satisfies every model.

With one thread (``threads=1`` or ``debug=True``) every model holds trivially and no colouring is
computed. The weakest safe model is derived from the program's source: writing ``nbr.<field>``
needs ``full``, writing ``e.<field>`` needs ``edge``; asking for less is a
:class:`gas.ProgramError` that names the model to use. The default is the weakest safe model.

Signals are byte stores and priorities an atomic maximum: updates signalling the same vertex at
once keep the largest priority, so a run's schedule does not depend on how threads interleave.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gas.engine_base import Engine, Hook
from gas.engine_ranges import balanced_chunks
from gas.engine_result import RunLog, RunResult
from gas.errors import GasError, ProgramError
from gas.graph import Graph
from gas.greedy_coloring import check_coloring, color_classes, distance2_cost, greedy_coloring
from gas.local_part import Partition
from gas.program import VertexProgram
from gas.threads import num_threads

__all__ = ["AsyncEngine", "SCHEDULERS", "CONSISTENCY", "STRENGTH", "superstep_work"]

SCHEDULERS = ("fifo", "priority", "sweep")

#: a ``sweep`` group whose scheduled vertices visit fewer edges runs as one piece, not split
#: between the threads: the split costs more than it saves (measured, bench/RESULTS.md)
SWEEP_SMALL_EDGES = 4096
CONSISTENCY = ("vertex", "edge", "full")
#: consistency models by strength (a model protects what every weaker one does)
STRENGTH = {m: i for i, m in enumerate(CONSISTENCY)}
FULL_COLORING_LIMIT = 200_000_000


def superstep_work(graph: Graph | Partition) -> int:
    """The work of one synchronous superstep over every vertex gathering over in-edges,
    ``num_edges + num_vertices``: the unit of the asynchronous engines' budgets (``max_work``).

    Examples
    --------
    >>> import gas
    >>> superstep_work(gas.Graph.from_edges([0, 1, 2], [1, 2, 0]))
    6
    """
    if isinstance(graph, Partition):
        return int(graph.num_global_edges) + int(graph.num_global_vertices)
    return int(graph.num_edges) + int(graph.num_vertices)


class AsyncEngine(Engine):
    """Runs a vertex program asynchronously (see the module docstring for the semantics).

    Parameters
    ----------
    graph : Graph
    program : VertexProgram
    scheduler : {"fifo", "priority", "sweep"}, default "fifo"
    consistency : {"vertex", "edge", "full"}, optional
        Default: the weakest model the program is safe under.
    threads : int, optional
        Numba threads (default: Numba's current setting).
    debug : bool, default False
        Run the program uncompiled, as plain Python, one thread.
    priority_ratio : float, default 0.01
        ``priority`` scheduler: a round runs the scheduled vertices whose priority is at least
        this share of the highest scheduled priority (0: all of them; 1: only the highest).
    priority_fraction : float, default 1.0
        ``priority`` scheduler: a round runs at most this share of the scheduled vertices (the
        highest first; 1: no cap).
    min_batch : int, default 1024
        Smallest capped ``priority`` round.
    checked : bool, optional
        Bounds-check the program's array indexing (see :class:`gas.SyncEngine`).
    cascade : bool, default False
        ``priority`` scheduler on one thread: a vertex the pass has gone past that a signal
        raises to the round's threshold runs in the same pass, right after the update that
        signalled it (a worklist), instead of waiting for the next pass. A chain of signals
        above the threshold then takes one pass whatever the vertex ids (k-core peeling, SCC's
        reaches); a program whose rule is one pass per sweep (label propagation) keeps False.
        On several threads under ``vertex`` consistency the pass is split too: each thread
        walks a block of ids and runs the vertices its own signals raise to the threshold
        from a worklist of its own (``k_async_pass_par`` in the kernels).
    colors : array_like, optional
        The colour classes to run in (``edge`` and ``full`` consistency on several threads,
        and the ``sweep`` scheduler's groups on one thread too), instead of the engine's greedy
        colouring in id order: one colour per vertex, classes run in increasing colour. Checked
        once: no two neighbours (``full``: nor two vertices with a common neighbour) may share
        a colour. A program whose rule fixes the order of the classes (label propagation) gives
        its own.

    Examples
    --------
    Greedy colouring under edge consistency: no two neighbours ever run at once, so no edge
    ends up with both ends the same colour.

    >>> import gas
    >>> from gas.algorithms.coloring import ColoringProgram
    >>> g = gas.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3])
    >>> eng = AsyncEngine(g, ColoringProgram(g), consistency="edge")
    >>> eng.run().output.tolist()
    [0, 1, 2, 0]
    """

    name = "async"
    options = ("scheduler", "consistency")

    def __init__(
        self,
        graph: Graph | Partition,
        program: VertexProgram,
        *,
        scheduler: str = "fifo",
        consistency: str | None = None,
        threads: int | None = None,
        debug: bool = False,
        priority_ratio: float = 0.01,
        priority_fraction: float = 1.0,
        min_batch: int = 1024,
        checked: bool | None = None,
        cascade: bool = False,
        colors: Any = None,
    ) -> None:
        if scheduler not in SCHEDULERS:
            raise GasError(f"Unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}")
        if consistency is not None and consistency not in CONSISTENCY:
            raise GasError(f"Unknown consistency model {consistency!r}; known: {', '.join(CONSISTENCY)}")
        if not 0.0 < priority_fraction <= 1.0:
            raise GasError(f"Expected 0 < priority_fraction <= 1 (got {priority_fraction})")
        if not 0.0 <= priority_ratio <= 1.0:
            raise GasError(f"Expected 0 <= priority_ratio <= 1 (got {priority_ratio})")
        self.priority_ratio = float(priority_ratio)
        self.cascade = bool(cascade)
        self._colors = colors  # the caller's classes, checked on first use (then int32)
        self._colors_checked = False
        self.scheduler = scheduler
        self._asked = consistency
        self.priority_fraction = float(priority_fraction)
        self.min_batch = max(1, int(min_batch))
        super().__init__(graph, program, threads=threads, debug=debug, checked=checked)
        if isinstance(graph, Partition) and graph.num_parts > 1:
            raise GasError("AsyncEngine runs on one partition; the process runtime runs it across workers")
        if self.spec.gather_slots:  # an update gathers into its vertex's slots, passed as the totals
            self.acc = self.slots

    def _check_consistency(self) -> None:
        need = self.spec.consistency_needed
        self.consistency = self._asked or need
        if STRENGTH[self.consistency] < STRENGTH[need]:
            role = "nbr" if need == "full" else "e"
            what = "neighbour" if need == "full" else "edge"
            raise ProgramError(
                f"{self.spec.name} writes {what} data ({', '.join(self.spec.write_sites(role))}), which "
                f"{self.consistency!r} consistency does not protect. Fix: consistency={need!r}"
            )

    # -- scheduling ------------------------------------------------------------------------------

    def schedule(self, mask: np.ndarray, priority: np.ndarray | float = np.inf) -> None:
        """Schedule the vertices where ``mask`` is True, from the ``between`` hook of a running
        :meth:`run` (between two rounds), as a signal would: a vertex keeps the larger of its
        priority and ``priority`` (an array over all vertices, or one value).

        Parameters
        ----------
        mask : ndarray of bool
            One entry per vertex.
        priority : ndarray or float, default inf
            Positive priorities (``inf``: before any signalled vertex).
        """
        queued, prio = self._running("schedule")
        mask = np.asarray(mask, dtype=np.bool_)
        if mask.shape != queued.shape:
            raise GasError(f"Expected a mask of {queued.shape[0]} vertices (got shape {mask.shape})")
        p = np.broadcast_to(np.asarray(priority, np.float64), mask.shape)[mask]
        if p.size == 0:
            return
        if not (p > 0.0).all():
            raise GasError("Expected positive priorities")
        idx = np.flatnonzero(mask)
        queued[idx] = 1
        prio[idx] = np.maximum(prio[idx], p)
        self._top = max(self._top, float(p.max()))

    def _running(self, method: str) -> tuple[np.ndarray, np.ndarray]:
        """The running :meth:`run`'s queued flags and priorities; an error outside a run."""
        queued, prio = getattr(self, "_queued", None), getattr(self, "_prio", None)
        if queued is None or prio is None:
            raise GasError(f"AsyncEngine.{method} is for the between hook of a running run()")
        return queued, prio

    def raise_top_priority(self, value: float) -> None:
        """Tell the relaxed priority scheduler, from the ``between`` hook of a running
        :meth:`run`, that a vertex's own ``priority(v)`` may now be as high as ``value``.

        A callback that changes the vertex data a program's ``priority`` reads needs no
        :meth:`schedule` (the engine reads ``priority(v)`` on every pass), but the next round's
        threshold is ``priority_ratio`` times the highest priority the engine last saw; this
        raises that highest value. It never lowers it.

        Parameters
        ----------
        value : float
            A non-negative priority.
        """
        self._running("raise_top_priority")
        value = float(value)
        if not value >= 0.0:
            raise GasError(f"Expected a non-negative priority (got {value})")
        self._top = max(self._top, value)

    def _groups(self) -> tuple[np.ndarray | None, bool]:
        """Colour of every vertex (None: one group) and whether to run on one thread."""
        g = self.graph
        if self.consistency == "vertex":
            return None, False
        # the caller's classes fix a sweep's order (a program's rule, label propagation's): kept
        # on one thread too, so that the answer does not depend on the thread count
        given = self._colors is not None and self.scheduler == "sweep"
        if (self.debug or self.nthreads == 1) and not given:
            return None, False
        if self._colors is not None:
            if not self._colors_checked:
                self._colors = check_coloring(g, self._colors, 1 if self.consistency == "edge" else 2)
                self._colors_checked = True
            return self._colors, False
        if self.consistency == "edge":
            return greedy_coloring(g, 1), False
        if distance2_cost(g) > FULL_COLORING_LIMIT:
            return None, True
        return greedy_coloring(g, 2), False

    def run(
        self,
        max_iter: int = 1000,
        *,
        active: Any = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        max_updates: int | None = None,
        max_work: int | None = None,
        between: Hook | None = None,
        priority: Any = None,
    ) -> RunResult:
        """Run rounds until nothing is scheduled, ``converged`` is True, ``max_iter`` rounds,
        ``max_updates`` vertex updates or ``max_work`` work.

        A run that stops at a budget returns normally with ``converged=False`` (a program with
        no stopping rule of its own runs for its budget; the bundled algorithms raise
        :class:`gas.ConvergenceError` then).

        Parameters
        ----------
        max_iter : int
            Most rounds.
        active : array_like, optional
            Internal ids (or a boolean mask) scheduled first (default all vertices): the engines
            are the low level and take internal ids; :func:`gas.run` takes original ids.
        progress : callable, optional
            Called after each round with its statistics (``iteration``, ``active``: updates in
            the round, ``edges``: edges visited by gather and scatter, ``scheduled``: vertices
            still waiting, ``seconds``, aggregates); reads only.
        max_updates : int, optional
            Stop once this many vertex updates have run.
        max_work : int, optional
            Stop once the edges visited plus the vertex updates reach this (checked after each
            round); :func:`superstep_work` is one synchronous superstep's worth.
        between : callable, optional
            ``between(engine, stat)`` after each round, before ``progress`` and the stopping
            tests: may change the vertex data, :meth:`schedule` vertices and
            :meth:`raise_top_priority`.
        priority : array_like, optional
            Every vertex's first priority (by internal id, finite, ``>= 0``: GraphLab's
            ``signal(v, priority)`` before the run); only ``active`` ones above 0 are scheduled.
            Default: the ``active`` vertices run first, before any signalled one.
        """
        if max_iter < 0:
            raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
        n = self.graph.num_vertices
        dynamic = bool(self.program.dynamic)
        r = self._rounds(active, priority)
        log = RunLog(self, progress=progress, between=between)
        converged = False
        updates = work = 0
        with num_threads(r.threads):
            self._start(r, log)
            while log.iteration < max_iter:
                if not dynamic:
                    r.queued[:] = 1
                t0 = time.perf_counter()
                self.ctx["iteration"] = log.iteration
                ran, edges = self._round(r, n if max_updates is None else max(1, max_updates - updates))
                if ran == 0:
                    converged = True
                    break
                updates += ran
                work += ran + edges
                aggs = self.aggregate()
                waiting = int(r.pass_out[2]) if r.one_pass or r.par_args is not None else self._waiting(r)
                log.record(t0, ran, edges, aggs, before={"scheduled": waiting})
                if dynamic and waiting == 0 and (progress is not None or between is not None):
                    waiting = self._waiting(r)  # the hook may have scheduled vertices
                if log.program_converged() or (dynamic and waiting == 0):
                    converged = True
                    break
                if (max_updates is not None and updates >= max_updates) or (
                    max_work is not None and work >= max_work
                ):
                    break
        self._queued = self._prio = None
        return log.finish(converged)

    def _start(self, r: _Rounds, log: RunLog) -> None:
        """Before the first round: ``init``, the first highest priority and the aggregates."""
        self._queued, self._prio = r.queued, r.prio
        # highest scheduled priority (the initial vertices hold inf unless the run set theirs)
        self._top = float(r.prio.max(initial=0.0))
        self.ctx["iteration"] = 0
        self.init()
        if r.own_prio and self._top < np.inf:
            # no vertex waits at infinity: the program's own priorities count too
            self._top = max(self._top, float(self.own_priority().max(initial=0.0)))
        log.aggregates = self.aggregate()

    def _rounds(self, active: Any, first: Any = None) -> _Rounds:
        """What every round of a run uses: the schedule, groups, kernels and thread count."""
        k, n = self.k, self.graph.num_vertices
        queued = np.ones(n, np.uint8) if active is None else self.active_mask(active)
        prio = np.zeros(n, np.float64)
        if first is None:
            prio[queued.view(np.bool_)] = np.inf  # the initial vertices run before any signalled one
        else:
            pr = np.asarray(first, dtype=np.float64)
            if pr.shape != (n,) or not np.all(np.isfinite(pr)) or (pr < 0).any():
                raise GasError(
                    f"Expected 'priority' to hold one finite value >= 0 per vertex ({n}); "
                    f"got shape {pr.shape}"
                )
            queued &= pr > 0.0
            np.copyto(prio, pr, where=queued.view(np.bool_))
        color, sequential = self._groups()
        if color is not None:
            order, bounds = color_classes(color)
        else:
            blocks = 1 if self.scheduler != "sweep" else int(min(256, max(1, n // 4096)))
            if self._all_ids is None:  # kept: the rounds only read it
                self._all_ids = np.arange(n, dtype=np.int64)
            order = self._all_ids
            bounds = (np.arange(blocks + 1, dtype=np.int64) * n) // blocks
        threads = 1 if (self.debug or sequential) else self.threads
        dynamic = bool(self.program.dynamic)
        pass_out = np.zeros(4, np.float64)
        nthreads = threads or self.nthreads
        one_pass = self.scheduler == "priority" and self.priority_fraction >= 1.0 and nthreads == 1
        stack = np.empty(n if one_pass and self.cascade else 0, np.int64)  # the one-pass worklist
        par_args = None
        if self.cascade and not one_pass and self._par_pass_ok(nthreads):
            # several threads, each walking a block of ids and draining its own worklist
            par_args = (np.empty((nthreads, n), np.int64), balanced_chunks(self.visit_degree + 1, nthreads))
        return _Rounds(
            queued=queued,
            prio=prio,
            color=color,
            order=order,
            bounds=bounds,
            threads=threads,
            # the relaxed priority scheduler walks the vertices in one compiled pass when the
            # round runs on one thread and is not capped
            one_pass=one_pass,
            ratio=self.priority_ratio if dynamic else 0.0,  # a static program runs every vertex
            own_prio=dynamic and self.spec.schedules_itself,
            par_args=par_args,
            kern=k.k_async,
            topo=self.topology(),
            pass_out=pass_out,
            pass_args=(self.acc, self.zero, self.ctx, queued, prio, self.visit_degree, stack, pass_out),
            sweep=(np.empty((2, n), np.int64), np.empty(nthreads + 1, np.int64))
            if self.scheduler == "sweep"
            else None,
        )

    def _par_pass_ok(self, nthreads: int) -> bool:
        """Whether a cascading ``priority`` round runs as :func:`k_async_pass_par`: several
        threads, no cap, and a program that writes only its own vertex (or its neighbours
        through atomic calls), so that any two vertices may run at once."""
        return (
            self.scheduler == "priority"
            and self.priority_fraction >= 1.0
            and not self.debug
            and nthreads > 1
            and self.consistency == "vertex"
        )

    def _round(self, r: _Rounds, budget: int) -> tuple[int, int]:
        """One round of the scheduler (``budget``: most updates of a one-pass round); returns
        the updates run and the edges they visited."""
        if self.scheduler == "sweep":
            return self._sweep_round(r)
        thr = self._top * r.ratio if r.ratio > 0.0 else 0.0  # the passes' threshold
        if r.par_args is not None:
            args = (self.acc, self.zero, self.ctx, r.queued, r.prio, self.visit_degree, *r.par_args)
            out = r.pass_out
            self.k.k_async_pass_par(thr, budget, self.VC, self.EC, self.params, *r.topo, *args, out)
            self._top = float(out[3])
            return int(out[0]), int(out[1])
        if r.one_pass:
            self.k.k_async_pass(
                thr, budget, int(self.cascade), self.VC, self.EC, self.params, *r.topo, *r.pass_args
            )
            out = r.pass_out
            if not r.own_prio:  # ``prio`` is 0 wherever ``queued`` is
                out[2] = np.count_nonzero(r.queued)
                out[3] = r.prio.max(initial=0.0)
            self._top = float(out[3])
            return int(out[0]), int(out[1])
        return self._batch_round(r)

    def _run_batch(self, r: _Rounds, batch: np.ndarray) -> int:
        """Update the vertices of ``batch`` (ids, no two conflicting); returns the edges visited."""
        if batch.size:
            VC, EC, P, C = self.VC, self.EC, self.params, self.ctx
            r.kern(batch, VC, EC, P, *r.topo, self.acc, self.zero, C, r.queued, r.prio)
        return int(self.visit_degree[batch].sum())

    def _sweep_round(self, r: _Rounds) -> tuple[int, int]:
        """An ordered pass over the groups, each running the vertices scheduled when reached
        (one compiled call: :func:`k_async_sweep`)."""
        out = r.pass_out
        self.k.k_async_sweep(
            r.order, r.bounds, SWEEP_SMALL_EDGES, int(r.own_prio), self.VC, self.EC, self.params, *r.topo,
            self.acc, self.zero, self.ctx, r.queued, r.prio, self.visit_degree, *r.sweep, out,
        )  # fmt: skip
        return int(out[0]), int(out[1])

    def _batch_round(self, r: _Rounds) -> tuple[int, int]:
        """A round of the vertices scheduled when it begins (``priority``: those at least
        ``priority_ratio`` of the highest, capped by ``priority_fraction``), by colour class."""
        queued, prio, ratio = r.queued, r.prio, r.ratio
        own = self.own_priority() if r.own_prio else None
        cand = np.flatnonzero(queued if own is None else (queued != 0) | (own > 0.0))
        if self.scheduler == "priority" and cand.size:
            pc = prio[cand] if own is None else np.maximum(prio[cand], own[cand])
            top = self._top = float(pc.max())
            if ratio > 0.0:
                keep = pc >= top * ratio
                cand, pc = cand[keep], pc[keep]
            take = max(self.min_batch, int(np.ceil(cand.size * self.priority_fraction)))
            if cand.size > take:
                best = np.argpartition(-pc, take - 1)[:take]
                cand = np.sort(cand[best])
        queued[cand] = 0
        prio[cand] = 0.0
        edges = 0
        if r.color is None:
            edges += self._run_batch(r, cand)
        else:
            cc = r.color[cand]
            idx = np.argsort(cc, kind="stable")
            cand, cc = cand[idx], cc[idx]
            cuts = np.flatnonzero(np.diff(cc)) + 1
            for batch in np.split(cand, cuts):
                edges += self._run_batch(r, batch)
        return cand.size, edges

    def _waiting(self, r: _Rounds) -> int:
        """Vertices scheduled now (signalled, or with a positive own priority)."""
        if not r.own_prio:
            return int(np.count_nonzero(r.queued))
        return int(np.count_nonzero((r.queued != 0) | (self.own_priority() > 0.0)))


@dataclass
class _Rounds:
    """What every round of one :meth:`AsyncEngine.run` uses."""

    queued: np.ndarray
    prio: np.ndarray
    color: np.ndarray | None
    order: np.ndarray
    bounds: np.ndarray
    threads: int | None
    one_pass: bool
    ratio: float
    own_prio: bool
    kern: Any
    topo: tuple[np.ndarray, ...]
    pass_out: np.ndarray
    pass_args: tuple[Any, ...]
    #: the worklists and id blocks of a several-thread cascading pass (else None)
    par_args: tuple[np.ndarray, np.ndarray] | None = None
    #: the ``sweep`` scheduler's scratch: one group's scheduled ids and their running work, and
    #: the threads' cuts of it (one entry more than the threads the round runs on)
    sweep: tuple[np.ndarray, np.ndarray] | None = None
