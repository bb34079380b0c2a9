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
through an :class:`~gas.exchange_protocol.Exchange` (a no-op for one process).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas._codegen import is_known_good, load_kernels, mark_good
from gas._segments import Segments, build_segments, permute
from gas._typecheck import typecheck
from gas.config import CONFIG
from gas.engine_ranges import _chunks, active_mask
from gas.engine_result import RunResult, require_converged
from gas.errors import GasError, ProgramError
from gas.exchange_protocol import Exchange, LocalExchange
from gas.graph import Graph
from gas.local_part import Partition
from gas.program import EdgeDir, VertexProgram, validate
from gas.threads import num_threads

__all__ = ["SyncEngine", "RunResult", "run", "engine_for", "active_mask", "require_converged"]


class SyncEngine:
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

    def __init__(
        self,
        graph: Graph | Partition,
        program: VertexProgram,
        *,
        threads: int | None = None,
        debug: bool = False,
        exchange: Exchange | None = None,
        checked: bool | None = None,
    ) -> None:
        self.partition = graph if isinstance(graph, Partition) else Partition.whole(graph)
        g = self.partition.graph
        self.graph = g
        self.program = program
        self.spec = validate(program, g, checked)
        self._check_consistency()
        self.threads = threads
        self.debug = debug
        self.exchange = exchange or LocalExchange()
        self._alloc()
        self._checked = debug or is_known_good(self.spec)
        # copies of neighbour-read columns for the relabelled blocked layout (_relabelled_columns)
        self._perm_layout: Segments | None = None
        self._perm_bufs: dict[str, np.ndarray] = {}
        self._all_ids: np.ndarray | None = None  # every vertex id, for _own_priority
        if not self._checked:
            typecheck(self.spec, self.VC, self.EC, self.params, self.ctx)
        self.k = load_kernels(self.spec, jit=not debug)
        gdir = EdgeDir(program.gather_edges)
        sdir = EdgeDir(program.scatter_edges)
        deg_in, deg_out = g.in_degree, g.out_degree
        self._gather_deg = np.zeros(g.num_vertices, np.int64)
        if gdir & EdgeDir.IN:
            self._gather_deg += deg_in
        if gdir & EdgeDir.OUT:
            self._gather_deg += deg_out
        # edges an update visits (gather and scatter): the work measure in the statistics
        self._visit_deg = self._gather_deg.copy()
        if sdir & EdgeDir.IN:
            self._visit_deg += deg_in
        if sdir & EdgeDir.OUT:
            self._visit_deg += deg_out
        work = (
            np.asarray(
                self._gather_deg
                + (deg_in if sdir & EdgeDir.IN else 0)
                + (deg_out if sdir & EdgeDir.OUT else 0),
                np.int64,
            )
            + 1
        )
        work = np.broadcast_to(work, (g.num_vertices,))
        import numba

        self._nthreads = threads or numba.get_num_threads()
        per = CONFIG["chunks_per_thread"]
        self.chunks = _chunks(np.ascontiguousarray(work), 1 if debug else self._nthreads * per)
        # vertex ranges apply (and the fused aggregate) run over; a partition's engine narrows
        # them to its masters (gas.runtime.bsp.DistEngine)
        self.apply_chunks = self.chunks
        seg = CONFIG["segment_size"]
        self._use_segments = (
            not debug
            and gdir == EdgeDir.IN
            and not self.spec.gather_shape
            and seg > 0
            and g.num_vertices > seg
        )

    def _check_consistency(self) -> None:
        if self.spec.consistency_needed == "full":
            raise ProgramError(
                f"{self.spec.name} writes neighbour data ({', '.join(self.spec.write_sites('nbr'))}), "
                f"which the synchronous engine cannot order. Fix: run it with engine='async', "
                f"consistency='full' (gas.AsyncEngine), or write only the vertex and its edges"
            )

    def _own_priority(self, idx: np.ndarray | None = None) -> np.ndarray:
        """The program's ``priority(v)`` of each vertex in ``idx`` (default: every vertex)."""
        if idx is None:
            if self._all_ids is None:
                self._all_ids = np.arange(self.graph.num_vertices, dtype=np.int64)
            idx = self._all_ids
        out = np.empty(idx.shape[0], np.float64)
        if idx.size:
            self.k.k_priorities(idx, self.VC, self.EC, self.params, out)
        return out

    def _gather(self, active: np.ndarray, everyone: bool = False) -> None:
        """Gather totals of the ``active`` vertices (a uint8 mask) into :attr:`acc`, on this
        part's edges; ``everyone`` (all active) may use the cache-blocked layout."""
        k, g, VC, EC, P = self.k, self.graph, self.VC, self.EC, self.params
        if everyone and self._use_segments:
            sg = self._segments()
            eids = sg.seg_eid if EC else sg.seg_src  # unused ids: no second stream
            if sg.order is not None:
                VC = self._relabelled_columns(sg)
            k.k_gather_seg(
                sg.bounds, sg.blk_dst, sg.blk_ptr, sg.seg_src, eids, VC, EC, P, self.acc, self.zero
            )
            return
        topo = (g.out_indptr, g.dst, g.in_indptr, g.in_src, g.in_eid if EC else g.in_src)
        kern = k.k_gather_array if self.spec.gather_shape else k.k_gather
        kern(self.chunks, active, VC, EC, P, *topo, self.acc, self.zero)

    def _segments(self) -> Segments:
        """The cache-blocked in-edge layout, built once per graph and kept on it; its sources
        are renumbered by degree when ``gather`` reads neighbours only through fields it does
        not read on ``v`` (:attr:`ProgramSpec.gather_nbr_fields`)."""
        g = self.graph
        relabel = bool(CONFIG["relabel"]) and self.spec.gather_nbr_fields is not None
        key = (CONFIG["segment_size"], self._nthreads * 4, relabel)
        cache = g.__dict__.setdefault("_gas_segments", {})
        if key not in cache:
            cache.clear()
            cache[key] = build_segments(g, *key)
        return cache[key]

    def _relabelled_columns(self, sg: Segments) -> tuple[np.ndarray, ...]:
        """The vertex columns with those ``gather`` reads on ``nbr`` copied into the relabelled
        layout's order (``sg.order[i]`` is the vertex numbered ``i``). Built-in degree columns
        never change, so their copies are made once; the others are copied on every call."""
        fields = self.spec.gather_nbr_fields or frozenset()
        if self._perm_layout is not sg:
            self._perm_bufs.clear()
            self._perm_layout = sg
        bufs = self._perm_bufs
        out = []
        for (name, _), col in zip(self.spec.vertex_columns, self.VC):
            if name not in fields:
                out.append(col)
                continue
            buf = bufs.get(name)
            fresh = buf is None
            if fresh:
                buf = bufs[name] = np.empty_like(col)
            if fresh or name not in self.spec.builtin_columns:
                permute(sg, col, buf)
            out.append(buf)
        return tuple(out)

    def _alloc(self) -> None:
        g, spec = self.graph, self.spec
        n = g.num_vertices
        cols: dict[str, np.ndarray] = {}
        for name, dt in spec.vertex_columns:
            if name == "out_degree":
                cols[name] = g.out_degree.astype(np.int64)
            elif name == "in_degree":
                cols[name] = g.in_degree.astype(np.int64)
            else:
                cols[name] = np.zeros(n, dt)
        ecols: dict[str, np.ndarray] = {}
        for name, dt in spec.edge_columns:
            if name in spec.graph_edge_fields:
                ecols[name] = np.ascontiguousarray(g.edata[name], dtype=dt)
            else:
                ecols[name] = np.zeros(g.num_edges, dt)
        self.columns = cols
        self.edge_columns = ecols
        self.VC = tuple(cols[k] for k, _ in spec.vertex_columns)
        self.EC = tuple(ecols[k] for k, _ in spec.edge_columns)
        self.params = spec.params()
        self.ctx = np.zeros(1, spec.ctx_dtype)
        self.ctx["num_vertices"] = self.partition.num_global_vertices
        self.ctx["num_edges"] = self.partition.num_global_edges
        self.acc = np.zeros(n, spec.gather_type)  # shape (n, *gather_shape) for an array gather
        self.zero = np.array([spec.gather_zero], spec.gather_base)
        if self.debug:
            self.params = self.params.view(np.recarray)
            self.ctx = self.ctx.view(np.recarray)

    def combine(self, rows: np.ndarray, incoming: np.ndarray) -> None:
        """Fold partial gather totals ``incoming[i]`` into vertex ``rows[i]`` with the program's
        ``sum`` (what a master does with its mirrors' partial sums); ``rows`` has no repeats."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        incoming = np.ascontiguousarray(incoming, dtype=self.spec.gather_base)
        if incoming.shape != (rows.shape[0], *self.spec.gather_shape):
            raise GasError(
                f"Expected {rows.shape[0]} partial totals of shape {self.spec.gather_shape} "
                f"(got an array of shape {incoming.shape})"
            )
        with num_threads(1 if self.debug else self.threads):
            self.k.k_combine(rows, self.acc, incoming, self.VC, self.EC, self.params)

    def _aggregate(self, part: np.ndarray | None = None) -> dict[str, float]:
        """Reduce the aggregates over all vertices (``part``: per-chunk partials already made)."""
        spec = self.spec
        if not spec.agg_names:
            return {}
        if part is None:
            part = np.empty((self.chunks.shape[0] - 1, len(spec.agg_names)), np.float64)
            self.k.k_aggregate(self.chunks, self.VC, self.EC, self.params, part)
        vals = np.zeros(len(spec.agg_names), np.float64)
        if part.shape[0]:
            for j, op in enumerate(spec.agg_ops):
                col = part[:, j]
                vals[j] = col.sum() if op == 0 else (col.max() if op == 1 else col.min())
        vals = self.exchange.allreduce(vals, spec.agg_ops)
        out = {}
        for j, name in enumerate(spec.agg_names):
            self.ctx[name] = vals[j]
            out[name] = float(vals[j])
        return out

    def refresh_aggregates(self) -> dict[str, float]:
        """Recompute the program's aggregates from the vertex data as it is now, for a
        ``progress`` callback that changed it between supersteps: the next superstep's ``ctx``
        and the ``converged`` test after the callback read the new values (on processes, every
        rank must call it). Returns them by name.

        Examples
        --------
        >>> import gas
        >>> from gas.algorithms import PageRankProgram
        >>> eng = gas.SyncEngine(gas.Graph.from_edges([0, 1], [1, 2]), PageRankProgram())
        >>> _ = eng.run(1)
        >>> eng.columns["rank"][2] = 0.5  # vertex 2 has no out-edge: dangling mass
        >>> round(eng.refresh_aggregates()["dangling"], 3)
        0.5
        """
        return self._aggregate()

    def run(
        self,
        max_iter: int = 100,
        *,
        active: Any = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        first_iteration: int = 0,
        init: bool = True,
    ) -> RunResult:
        """Run supersteps until no vertex is active, ``converged`` is True, or ``max_iter``.

        Stopping at ``max_iter`` is not an error here: the result says ``converged=False``
        (see "When a run does not converge" in the module docstring).

        Parameters
        ----------
        max_iter : int
            Most supersteps to run.
        active : array_like, optional
            Internal ids (or a boolean mask) of the vertices active in superstep 0 (default all).
        progress : callable, optional
            Called with each superstep's statistics dict.
        first_iteration : int, default 0
            Number of the first superstep (``ctx.iteration``); a resumed run continues the count
            and stops at ``max_iter`` in total.
        init : bool, default True
            Run ``init`` first; False keeps the vertex data already in :attr:`columns` (resume).
        """
        if max_iter < 0:
            raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
        g, k, prog = self.graph, self.k, self.program
        n = g.num_vertices
        all_on = np.ones(n, np.uint8)
        act = all_on if active is None else self._active_mask(active)
        dynamic = bool(prog.dynamic)
        gathers = prog.gather_edges != EdgeDir.NONE
        scatters = prog.scatter_edges != EdgeDir.NONE
        conv_fn = getattr(prog, "converged", None)
        ctx_view = self.ctx.view(np.recarray)[0]
        total_visit = int(self._visit_deg.sum())
        # a program's own ``priority(v) > 0`` schedules ``v`` as a signal would
        own_prio = dynamic and self.spec.schedules_itself
        signal = np.zeros(n, np.uint8) if (scatters or own_prio) else None
        stats: list[dict[str, Any]] = []
        converged = False
        it = int(first_iteration)
        VC, EC, P, C, ch = self.VC, self.EC, self.params, self.ctx, self.chunks
        # graph arrays every edge kernel takes; edge ids are unused when there is no edge data
        topo = (g.out_indptr, g.dst, g.in_indptr, g.in_src, g.in_eid if EC else g.in_src)
        with num_threads(1 if self.debug else self.threads):
            self.ctx["iteration"] = it
            if init:
                k.k_init(ch, VC, EC, P, C)
            aggs = self._aggregate()
            count = self.exchange.allreduce_count(int(np.count_nonzero(act)))
            while it < max_iter:
                if count == 0:
                    converged = True
                    break
                t0 = time.perf_counter()
                self.ctx["iteration"] = it
                everyone = act is all_on
                edges = total_visit if everyone else int(self._visit_deg[act.view(np.bool_)].sum())
                if gathers:
                    self._gather(act, everyone)
                    self.exchange.reduce_gather(self.acc, act, 0)
                else:
                    self.acc.fill(self.zero[0])
                fused = everyone and bool(self.spec.agg_names) and not scatters
                if fused:
                    ach = self.apply_chunks
                    part = np.empty((ach.shape[0] - 1, len(self.spec.agg_names)), np.float64)
                    k.k_apply_aggregate_all(ach, VC, EC, P, self.acc, C, part)
                else:
                    k.k_apply(self.apply_chunks, act, VC, EC, P, self.acc, C)
                self.exchange.sync_vertices(VC, act)
                if scatters or own_prio:
                    signal = np.zeros(n, np.uint8)
                    if scatters:
                        k.k_scatter(ch, act, VC, EC, P, *topo, signal)
                    if own_prio:
                        signal |= self._own_priority() > 0.0
                    if dynamic:  # a static program's next superstep runs everyone anyway
                        self.exchange.reduce_signals(signal)
                aggs = self._aggregate(part if fused else None)
                stat = {
                    "iteration": it,
                    "active": count,
                    "edges": edges,
                    "seconds": time.perf_counter() - t0,
                    **aggs,
                }
                stats.append(stat)
                it += 1
                if progress is not None:
                    progress(stat)
                if conv_fn is not None and bool(conv_fn(ctx_view)):
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
        return self._result(it, converged, stats, aggs)

    def _active_mask(self, active: Any) -> np.ndarray:
        """A byte per vertex, 1 for the ``active`` ids (or boolean mask) a run starts from."""
        return active_mask(active, self.graph.num_vertices)

    def _result(
        self, iterations: int, converged: bool, stats: list[dict[str, Any]], aggs: dict[str, float]
    ) -> RunResult:
        """The run's :class:`RunResult`; also remembers that this program's kernels work."""
        if not self._checked:
            mark_good(self.spec)
            self._checked = True
        vdata = np.zeros(self.graph.num_vertices, self.spec.vertex_dtype)
        for name in vdata.dtype.names:
            vdata[name] = self.columns[name]
        return RunResult(
            vertex_data=vdata,
            output=self.columns[self.spec.output].copy(),
            iterations=iterations,
            converged=converged,
            stats=stats,
            aggregates=aggs,
        )


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


def engine_for(
    graph: Graph | Partition,
    program: VertexProgram,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
    threads: int | None = None,
    debug: bool = False,
) -> SyncEngine:
    """A :class:`SyncEngine` (``engine="sync"``) or a :class:`gas.AsyncEngine` (``"async"``)."""
    if engine == "sync":
        return SyncEngine(graph, program, threads=threads, debug=debug)
    if engine == "async":
        from gas.async_engine import AsyncEngine

        return AsyncEngine(
            graph, program, scheduler=scheduler, consistency=consistency, threads=threads, debug=debug
        )
    raise GasError(f"Unknown engine {engine!r}; known: sync, async")
