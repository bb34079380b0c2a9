"""The synchronous (bulk-synchronous, PowerGraph "sync") engine.

Execution semantics
-------------------
Before the first superstep ``init`` runs on every vertex and the aggregates are computed. Then,
in superstep ``t = 0, 1, ...`` over the set ``A_t`` of active vertices:

1. **gather**: for each ``v`` in ``A_t``, ``total_v = sum(gather(v, e, nbr) for e in gather edges)``
   starting from ``gather_zero``. Gather reads the vertex data left by superstep ``t-1`` and
   writes nothing.
2. **apply**: for each ``v`` in ``A_t``, ``apply(v, total_v, ctx)`` may write ``v`` only;
   ``ctx.<aggregate>`` holds the aggregates computed at the end of superstep ``t-1``.
3. **scatter**: for each ``v`` in ``A_t`` and each scatter edge, ``scatter(v, e, nbr)`` sees the
   new data of every vertex, may write ``e`` (an edge scattered from both ends in the same
   superstep is a race: scatter over one direction when writing edges), and returns True to
   signal ``nbr``.
4. **aggregate**: the declared aggregates are reduced over all vertices.

Signals take effect in the next superstep: ``A_{t+1}`` is the set of signalled vertices (a vertex
signalled several times runs once), plus, for a program that defines ``priority(v)``, every
vertex whose priority is > 0 after the scatter; or every vertex for programs with
``dynamic = False``. The run stops when ``A_{t+1}`` is empty, when ``program.converged(ctx)``
returns True, or after ``max_iter`` supersteps.

When a run does not converge. :meth:`SyncEngine.run` and :func:`run` return normally at
``max_iter`` with :attr:`RunResult.converged` False: a program without a stopping rule of its own
runs for exactly its budget, and deciding is the caller's. The bundled algorithms
(``gas.algorithms.pagerank``, ``connected_components``, ``sssp``, ``coloring``) check it and
raise :class:`gas.ConvergenceError` (also a ``networkx.PowerIterationFailedConvergence``), with
the partial answer in its ``result``; a program of your own can do the same with
:func:`gas.errors.convergence_error`.

Each phase is a Numba ``prange`` over degree-balanced vertex ranges; a vertex's data and its
gather total are written only by the thread owning its range, so there are no racy updates.
When every vertex is active and the program gathers over in-edges only, the gather runs over a
cache-blocked layout (:mod:`gas._segments`: sources split into segments of
``gas.config.CONFIG["segment_size"]`` vertices) on graphs larger than one segment. If
``gather`` reads neighbours only through scalar fields it does not also read on ``v`` (and
not ``nbr.vid``), the layout numbers the sources by out-degree, highest first, and the gather reads
those fields from copies in that order, made before each blocked gather (once for the built-in
degrees): the sources most edges read then share a few cache lines. The sum is then taken in a
different order (with two partial totals per vertex), which the GAS contract (a commutative,
associative ``sum`` with ``gather_zero`` its identity) allows. With aggregates and no scatter,
apply and aggregate run in one fused pass.
The engine runs on a :class:`~gas.local_part.Partition` and talks to other partitions only
through an :class:`~gas.exchange_protocol.Exchange` (a no-op for one process). It is built from
the public steps of :class:`gas.engine_base.Engine` (:meth:`SyncEngine.superstep` is one
superstep of them); a ``between`` hook (``run(..., between=hook)``) runs after each superstep's
statistics, before ``progress`` and the stopping test, and may change the vertex data (then
call :meth:`~gas.engine_base.Engine.refresh_aggregates`): the next superstep reads the change.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.engine_base import Engine, Hook, engine_for
from gas.engine_ranges import active_mask
from gas.engine_result import RunLog, RunResult, require_converged
from gas.engine_steps import gathers_from_active
from gas.errors import GasError, ProgramError
from gas.exchange_protocol import LocalExchange
from gas.graph import Graph
from gas.local_part import Partition
from gas.program import EdgeDir, VertexProgram
from gas.threads import num_threads

__all__ = ["SyncEngine", "RunResult", "run", "engine_for", "active_mask", "require_converged"]


class SyncEngine(Engine):
    """Runs a vertex program synchronously (see the module docstring for the semantics).

    Parameters
    ----------
    graph : Graph or Partition
    program : VertexProgram
    threads : int, optional
        Numba threads for this engine's runs (default: Numba's current setting).
    debug : bool, default False
        Run the program uncompiled, as plain Python, one thread (same results, slow).
    exchange : Exchange, optional
        How partitions talk; :class:`LocalExchange` for one process.
    checked : bool, optional
        Bounds-check the program's array indexing (an index out of range raises
        :class:`gas.ProgramError` naming the method); default: the program's ``checked``
        attribute (True unless the program opts out, as the bundled ones do).

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 0])
    >>> SyncEngine(g, PageRankProgram()).run(max_iter=50).output.round(3).tolist()
    [0.5, 0.5]
    """

    name = "sync"
    fused_aggregates = True  # superstep: apply_aggregate when everyone is active (no scatter)
    runs_inner_steps = True

    def _check_consistency(self) -> None:
        if self.spec.consistency_needed == "full":
            raise ProgramError(
                f"{self.spec.name} writes neighbour data ({', '.join(self.spec.write_sites('nbr'))}), "
                f"which the synchronous engine cannot order. Fix: run it with engine='async', "
                f"consistency='full' (gas.AsyncEngine), or write only the vertex and its edges"
            )

    def superstep(
        self, active: np.ndarray, everyone: bool = False
    ) -> tuple[np.ndarray | None, dict[str, float]]:
        """One superstep over ``active`` (``everyone``: it is every vertex): gather, the
        exchange's ``reduce_gather``, apply, ``sync_vertices``, scatter (and ``reduce_signals``),
        aggregate. Returns the next superstep's signals (None for a program that signals
        nothing) and the aggregates.

        Examples
        --------
        >>> import gas
        >>> from gas.algorithms.pagerank import PageRankProgram
        >>> eng = SyncEngine(gas.Graph.from_edges([0, 1], [1, 2]), PageRankProgram())
        >>> eng.init()
        >>> signal, aggs = eng.superstep(eng.active_mask(None), everyone=True)
        >>> signal is None, sorted(aggs)
        (True, ['change', 'dangling'])
        """
        ex = self.exchange
        part = None
        if self.inner_steps > 1 and self._steps_back_to_back(active):
            args = (self.VC, self.EC, self.params, *self.topology(), self.acc, self.zero, self.ctx)
            self.k.k_gather_apply_steps(self.chunks, active, self.inner_steps, *args)
            return self._signals(active), self.aggregate()
        for _ in range(self.inner_steps):  # one round of gather and apply (inner_steps: several)
            self.gather(active, everyone)
            if self.gathers:
                ex.reduce_gather(self.acc, active, 0)
            if everyone and self.spec.agg_names and not self.scatters and self.inner_steps == 1:
                part = self.apply_aggregate()  # apply and aggregate fused in one pass
            else:
                self.apply(active)
            ex.sync_vertices(self.VC, active)
        return self._signals(active), self.aggregate(part)

    def _steps_back_to_back(self, active: np.ndarray) -> bool:
        """Whether this superstep's inner steps may run as one kernel, each vertex's rounds back
        to back (:mod:`gas.engine_steps`): one process, a program that gathers into a total (not
        slots), compiled, and no active vertex gathering from another one."""
        if self.debug or not self.gathers or self.spec.gather_slots:
            return False
        if not isinstance(self.exchange, LocalExchange) or self.apply_chunks is not self.chunks:
            return False
        gdir = EdgeDir(self.program.gather_edges)
        topo = self.topology()[:4]
        with num_threads(self.threads):
            sides = (bool(gdir & EdgeDir.IN), bool(gdir & EdgeDir.OUT))
            clash = gathers_from_active(self.chunks, active, *topo, *sides)
        return clash == 0

    def _signals(self, active: np.ndarray) -> np.ndarray | None:
        """The vertices signalled for the next superstep (a program's own ``priority(v) > 0``
        schedules ``v`` as a signal would), reduced over the replicas; None when none can be."""
        dynamic = bool(self.program.dynamic)
        own_prio = dynamic and self.spec.schedules_itself
        if not (self.scatters or own_prio):
            return None
        signal = np.zeros(self.graph.num_vertices, np.uint8)
        if self.scatters:
            self.scatter(active, signal)
        if own_prio:
            signal |= self.own_priority() > 0.0
        if dynamic:  # a static program's next superstep runs everyone anyway
            self.exchange.reduce_signals(signal)
        return signal

    def run(
        self,
        max_iter: int = 100,
        *,
        active: Any = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        first_iteration: int = 0,
        init: bool = True,
        between: Hook | None = None,
    ) -> RunResult:
        """Run supersteps until no vertex is active, ``converged`` is True, or ``max_iter``.

        Stopping at ``max_iter`` is not an error here: the result says ``converged=False``
        (see "When a run does not converge" in the module docstring).

        Parameters
        ----------
        max_iter : int
            Most supersteps to run.
        active : array_like, optional
            Internal ids (or a boolean mask) of the vertices active in superstep 0 (default all):
            the engines are the low level and take internal ids; :func:`gas.run` takes original ids.
        progress : callable, optional
            Called with each superstep's statistics dict (read only).
        first_iteration : int, default 0
            Number of the first superstep (``ctx.iteration``); a resumed run continues the count
            and stops at ``max_iter`` in total.
        init : bool, default True
            Run ``init`` first; False keeps the vertex data already in :attr:`columns` (resume).
        between : callable, optional
            ``between(engine, stat)`` after each superstep, before ``progress`` and the stopping
            test: may change the vertex data (calling :meth:`refresh_aggregates` if the
            aggregates depend on it); the next superstep reads the change.
        """
        if max_iter < 0:
            raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
        n = self.graph.num_vertices
        all_on = np.ones(n, np.uint8)
        act = all_on if active is None else self.active_mask(active)
        dynamic = bool(self.program.dynamic)
        total_visit = int(self.visit_degree.sum())
        log = RunLog(self, first_iteration=first_iteration, progress=progress, between=between)
        converged = False
        with self.thread_scope():
            self.ctx["iteration"] = log.iteration
            if init:
                self.init()
            log.aggregates = self.aggregate()
            count = self.exchange.allreduce_count(int(np.count_nonzero(act)))
            while log.iteration < max_iter:
                if count == 0:
                    converged = True
                    break
                t0 = time.perf_counter()
                self.ctx["iteration"] = log.iteration
                everyone = act is all_on
                edges = total_visit if everyone else self.visited_edges(act)
                signal, aggs = self.superstep(act, everyone)
                log.record(t0, count, edges, aggs)
                if log.program_converged():
                    converged = True
                    break
                if dynamic:
                    act = signal if signal is not None else np.zeros(n, np.uint8)
                    count = self.exchange.allreduce_count(int(np.count_nonzero(act)))
                else:
                    act = all_on
                    count = self.exchange.allreduce_count(n)
            else:
                converged = count == 0
        return log.finish(converged)


def run(
    graph: Graph | Partition,
    program: VertexProgram,
    *,
    max_iter: int = 100,
    threads: int | None = None,
    debug: bool = False,
    active: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Build a :class:`SyncEngine` and run ``program`` on ``graph``.

    Returns the :class:`RunResult` whether or not the run converged (check
    ``result.converged``); the bundled algorithms raise :class:`gas.ConvergenceError` instead.

    Examples
    --------
    >>> import numpy as np, gas
    >>> class Degree(gas.VertexProgram):
    ...     vertex_data = {"deg": np.float64}
    ...     gather_edges = gas.ALL
    ...     def gather(self, v, e, nbr):
    ...         return 1.0
    ...     def apply(self, v, total, ctx):
    ...         v.deg = total
    >>> gas.run(gas.Graph.from_edges([0, 0], [1, 2]), Degree()).output.tolist()
    [2.0, 1.0, 1.0]
    """
    return SyncEngine(graph, program, threads=threads, debug=debug).run(
        max_iter, active=active, progress=progress
    )
