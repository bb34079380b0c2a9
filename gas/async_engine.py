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
  vertices are fixed when it begins and run as colour-class batches. ``priority_ratio=1`` gives
  exact max-priority-first (a round runs only the vertices of highest priority; a scan of all
  vertices per round). With ``priority_fraction < 1`` a round also runs at most the
  ``max(min_batch, ceil(priority_fraction * scheduled))`` highest of those vertices, as one
  batch.
* ``sweep``: a round is an ordered pass over the vertex groups (colour classes, or id blocks
  under ``vertex`` consistency); each group runs the vertices scheduled at the moment the pass
  reaches it, so signals to later groups are served in the same pass (Gauss-Seidel order).

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
previous pass, so a ``progress`` callback that changes the data ``priority`` reads reports the
new highest value with :meth:`AsyncEngine.raise_top_priority`.

After each round the aggregates are recomputed (``ctx.<name>`` is at most one round old),
``ctx.iteration`` is the round number, and ``converged(ctx)`` may stop the run. The run stops
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
from typing import Any

import numpy as np

from gas.engine import RunResult, SyncEngine
from gas.errors import GasError, ProgramError
from gas.graph import Graph
from gas.greedy_coloring import color_classes, distance2_cost, greedy_coloring
from gas.local_part import Partition
from gas.program import VertexProgram
from gas.threads import num_threads

__all__ = ["AsyncEngine", "SCHEDULERS", "CONSISTENCY", "superstep_work"]

SCHEDULERS = ("fifo", "priority", "sweep")
CONSISTENCY = ("vertex", "edge", "full")
_STRENGTH = {m: i for i, m in enumerate(CONSISTENCY)}
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


class AsyncEngine(SyncEngine):
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
        self.scheduler = scheduler
        self._asked = consistency
        self.priority_fraction = float(priority_fraction)
        self.min_batch = max(1, int(min_batch))
        super().__init__(graph, program, threads=threads, debug=debug, checked=checked)
        if isinstance(graph, Partition) and graph.num_parts > 1:
            raise GasError("AsyncEngine runs on one partition; the process runtime runs it across workers")

    def _check_consistency(self) -> None:
        need = self.spec.consistency_needed
        self.consistency = self._asked or need
        if _STRENGTH[self.consistency] < _STRENGTH[need]:
            role = "nbr" if need == "full" else "e"
            what = "neighbour" if need == "full" else "edge"
            raise ProgramError(
                f"{self.spec.name} writes {what} data ({', '.join(self.spec.write_sites(role))}), which "
                f"{self.consistency!r} consistency does not protect. Fix: consistency={need!r}"
            )

    # -- scheduling ------------------------------------------------------------------------------

    def schedule(self, mask: np.ndarray, priority: np.ndarray | float = np.inf) -> None:
        """Schedule the vertices where ``mask`` is True, from a ``progress`` callback of a running
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
            raise GasError(f"AsyncEngine.{method} is for progress callbacks of a running run()")
        return queued, prio

    def raise_top_priority(self, value: float) -> None:
        """Tell the relaxed priority scheduler, from a ``progress`` callback of a running
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
        if self.debug or self._nthreads == 1 or self.consistency == "vertex":
            return None, False
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
    ) -> RunResult:
        """Run rounds until nothing is scheduled, ``converged`` is True, ``max_iter`` rounds,
        ``max_updates`` vertex updates or ``max_work`` work.

        A run that stops at a budget returns normally with ``converged=False`` (a program with
        no stopping rule of its own is run for its budget); the bundled algorithms turn that
        into a :class:`gas.ConvergenceError`.

        Parameters
        ----------
        max_iter : int
            Most rounds.
        active : array_like, optional
            Internal ids (or a boolean mask) scheduled first (default all vertices).
        progress : callable, optional
            Called after each round with its statistics (``iteration``, ``active``: updates in
            the round, ``edges``: edges visited by gather and scatter, ``scheduled``: vertices still waiting,
            ``seconds``, aggregates).
        max_updates : int, optional
            Stop once this many vertex updates have run.
        max_work : int, optional
            Stop once the edges visited plus the vertex updates reach this (checked after each
            round); :func:`superstep_work` is one synchronous superstep's worth.
        """
        if max_iter < 0:
            raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
        g, k, prog = self.graph, self.k, self.program
        n = g.num_vertices
        queued = np.ones(n, np.uint8) if active is None else self._active_mask(active)
        prio = np.zeros(n, np.float64)
        prio[queued.view(np.bool_)] = np.inf  # the initial vertices run before any signalled one
        dynamic = bool(prog.dynamic)
        conv_fn = getattr(prog, "converged", None)
        ctx_view = self.ctx.view(np.recarray)[0]
        VC, EC, P, C = self.VC, self.EC, self.params, self.ctx
        topo = (g.out_indptr, g.dst, g.in_indptr, g.in_src, g.in_eid if EC else g.in_src)
        kern = k.k_async_array if self.spec.gather_shape else k.k_async
        kern_pass = k.k_async_pass
        pass_out = np.zeros(4, np.float64)
        pass_args = (self.acc, self.zero, C, queued, prio, self._visit_deg, pass_out)
        color, sequential = self._groups()
        if color is not None:
            order, bounds = color_classes(color)
        else:
            blocks = 1 if self.scheduler != "sweep" else int(min(256, max(1, n // 4096)))
            order = np.arange(n, dtype=np.int64)
            bounds = (np.arange(blocks + 1, dtype=np.int64) * n) // blocks
        ngroups = bounds.shape[0] - 1
        stats: list[dict[str, Any]] = []
        converged = False
        updates = 0
        work = 0
        rnd = 0

        def run_batch(batch: np.ndarray) -> int:
            if batch.size:
                kern(batch, VC, EC, P, *topo, self.acc, self.zero, C, queued, prio)
            return int(self._visit_deg[batch].sum())

        def count_waiting() -> int:
            if not own_prio:
                return int(np.count_nonzero(queued))
            return int(np.count_nonzero((queued != 0) | (self._own_priority() > 0.0)))

        threads = 1 if (self.debug or sequential) else self.threads
        # the relaxed priority scheduler walks the vertices in one compiled pass when the round
        # runs on one thread and is not capped
        one_pass = (
            self.scheduler == "priority"
            and self.priority_fraction >= 1.0
            and (threads or self._nthreads) == 1
        )
        ratio = self.priority_ratio if dynamic else 0.0  # a static program runs every vertex
        own_prio = dynamic and self.spec.schedules_itself
        self._queued, self._prio = queued, prio
        self._top = np.inf  # highest scheduled priority (the initial vertices hold inf)
        with num_threads(threads):
            self.ctx["iteration"] = 0
            k.k_init(self.chunks, VC, EC, P, C)
            if own_prio and not queued.any():
                # nothing signalled: the first round's highest priority is the program's own
                self._top = float(self._own_priority().max(initial=0.0))
            aggs = self._aggregate()
            while rnd < max_iter:
                if not dynamic:
                    queued[:] = 1
                t0 = time.perf_counter()
                self.ctx["iteration"] = rnd
                edges = 0
                ran = 0
                if self.scheduler == "sweep":
                    for c in range(ngroups):
                        members = order[bounds[c] : bounds[c + 1]]
                        wait = queued[members] != 0
                        if own_prio:
                            wait |= self._own_priority(members) > 0.0
                        batch = members[wait]
                        queued[batch] = 0
                        prio[batch] = 0.0
                        edges += run_batch(batch)
                        ran += batch.size
                elif one_pass:
                    thr = self._top * ratio if ratio > 0.0 else 0.0
                    budget = n if max_updates is None else max(1, max_updates - updates)
                    kern_pass(thr, budget, VC, EC, P, *topo, *pass_args)
                    ran, edges, self._top = int(pass_out[0]), int(pass_out[1]), float(pass_out[3])
                else:
                    own = self._own_priority() if own_prio else None
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
                    if color is None:
                        edges += run_batch(cand)
                    else:
                        cc = color[cand]
                        idx = np.argsort(cc, kind="stable")
                        cand, cc = cand[idx], cc[idx]
                        cuts = np.flatnonzero(np.diff(cc)) + 1
                        for batch in np.split(cand, cuts):
                            edges += run_batch(batch)
                    ran = cand.size
                if ran == 0:
                    converged = True
                    break
                updates += ran
                work += ran + edges
                aggs = self._aggregate()
                waiting = int(pass_out[2]) if one_pass else count_waiting()
                stat = {
                    "iteration": rnd,
                    "active": ran,
                    "edges": edges,
                    "scheduled": waiting,
                    "seconds": time.perf_counter() - t0,
                    **aggs,
                }
                stats.append(stat)
                rnd += 1
                if progress is not None:
                    progress(stat)
                if conv_fn is not None and bool(conv_fn(ctx_view)):
                    converged = True
                    break
                if dynamic and waiting == 0 and progress is not None:
                    waiting = count_waiting()  # the callback may have scheduled vertices
                if dynamic and waiting == 0:
                    converged = True
                    break
                if max_updates is not None and updates >= max_updates:
                    break
                if max_work is not None and work >= max_work:
                    break
        self._queued = self._prio = None
        return self._result(rnd, converged, stats, aggs)
