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
* ``priority``: a round runs the scheduled vertices of highest priority (the top
  ``priority_fraction`` of them, at least ``min_batch``); the others wait.
* ``sweep``: a round is an ordered pass over the vertex groups (colour classes, or id blocks
  under ``vertex`` consistency); each group runs the vertices scheduled at the moment the pass
  reaches it, so signals to later groups are served in the same pass (Gauss-Seidel order).

After each round the aggregates are recomputed (``ctx.<name>`` is at most one round old),
``ctx.iteration`` is the round number, and ``converged(ctx)`` may stop the run. The run stops
when nothing is scheduled, when ``converged`` says so, after ``max_iter`` rounds, or after
``max_updates`` vertex updates. A program with ``dynamic = False`` schedules every vertex in
every round.

Consistency models and how they are enforced
--------------------------------------------
``vertex``
    An update writes only its own vertex. Any two vertices may run at the same time, so a
    gather may see a neighbour half-way through its own update (for scalar fields: an old or a
    new value). The batch runs in one parallel loop.
``edge``
    No two adjacent vertices run at the same time; an update may also write its adjacent edges.
    Enforced by chromatic execution: a greedy distance-1 colouring (:mod:`gas.coloring`) splits
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

Signals are byte stores and priorities a racy maximum: two updates signalling the same vertex at
once can lose the larger priority, never the signal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.coloring import color_classes, distance2_cost, greedy_coloring
from gas.engine import RunResult, SyncEngine
from gas.errors import GasError, ProgramError
from gas.graph import Graph
from gas.partitioned import Partition
from gas.program import VertexProgram
from gas.threads import num_threads

__all__ = ["AsyncEngine", "SCHEDULERS", "CONSISTENCY"]

SCHEDULERS = ("fifo", "priority", "sweep")
CONSISTENCY = ("vertex", "edge", "full")
_STRENGTH = {m: i for i, m in enumerate(CONSISTENCY)}
FULL_COLORING_LIMIT = 200_000_000


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
    priority_fraction : float, default 0.5
        Share of the scheduled vertices a ``priority`` round runs (the highest first).
    min_batch : int, default 1024
        Smallest ``priority`` round.

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
        priority_fraction: float = 0.5,
        min_batch: int = 1024,
    ) -> None:
        if scheduler not in SCHEDULERS:
            raise GasError(f"Unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}")
        if consistency is not None and consistency not in CONSISTENCY:
            raise GasError(f"Unknown consistency model {consistency!r}; known: {', '.join(CONSISTENCY)}")
        if not 0.0 < priority_fraction <= 1.0:
            raise GasError(f"Expected 0 < priority_fraction <= 1 (got {priority_fraction})")
        self.scheduler = scheduler
        self._asked = consistency
        self.priority_fraction = float(priority_fraction)
        self.min_batch = max(1, int(min_batch))
        super().__init__(graph, program, threads=threads, debug=debug)
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
    ) -> RunResult:
        """Run rounds until nothing is scheduled, ``converged`` is True, ``max_iter`` rounds or
        ``max_updates`` vertex updates.

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
        rnd = 0

        def run_batch(batch: np.ndarray) -> int:
            if batch.size:
                kern(batch, VC, EC, P, *topo, self.acc, self.zero, C, queued, prio)
            return int(self._visit_deg[batch].sum())

        threads = 1 if (self.debug or sequential) else self.threads
        with num_threads(threads):
            self.ctx["iteration"] = 0
            k.k_init(self.chunks, VC, EC, P, C)
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
                        batch = members[queued[members] != 0]
                        queued[batch] = 0
                        prio[batch] = 0.0
                        edges += run_batch(batch)
                        ran += batch.size
                else:
                    cand = np.flatnonzero(queued)
                    if self.scheduler == "priority":
                        take = max(self.min_batch, int(np.ceil(cand.size * self.priority_fraction)))
                        if cand.size > take:
                            top = np.argpartition(-prio[cand], take - 1)[:take]
                            cand = np.sort(cand[top])
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
                aggs = self._aggregate()
                stat = {
                    "iteration": rnd,
                    "active": ran,
                    "edges": edges,
                    "scheduled": int(np.count_nonzero(queued)),
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
                if dynamic and not queued.any():
                    converged = True
                    break
                if max_updates is not None and updates >= max_updates:
                    break
        return self._result(rnd, converged, stats, aggs)
