"""The engine family: the public steps every engine is built from, and the engine registry.

An engine runs a :class:`~gas.program.VertexProgram` on a :class:`~gas.local_part.Partition`.
:class:`Engine` holds what every engine shares: the program's analysis (``spec``), the vertex
and edge columns, the compiled kernels, the per-vertex work measures, and these public steps:

* :meth:`Engine.init` runs the program's ``init`` on every vertex;
* :meth:`Engine.gather` computes the gather totals of a set of vertices (an active mask) on
  this partition's edges into :attr:`Engine.acc`; :meth:`Engine.combine` folds in partial
  totals from elsewhere (a master's mirrors);
* :meth:`Engine.apply` runs ``apply`` on a set of vertices;
* :meth:`Engine.scatter` runs ``scatter`` on a set of vertices into a signal mask;
* :meth:`Engine.aggregate` reduces the program's aggregates over the vertices this partition
  owns and, through the :class:`~gas.exchange_protocol.Exchange`, over every partition
  (:meth:`Engine.local_share` is this partition's share, :meth:`Engine.set_aggregates`
  publishes reduced values to ``ctx``);
* :meth:`Engine.result` builds the :class:`~gas.engine_result.RunResult`.

Runs record their supersteps (or rounds) with a :class:`~gas.engine_result.RunLog`, which also
calls the run's *between* hook (``run(..., between=hook)``): ``hook(engine, stat)`` runs after
each superstep's statistics are made and before the ``progress`` callback and the stopping
test, and it is the one place where code outside the engine may change the run's state (vertex
columns, :meth:`Engine.refresh_aggregates`, an asynchronous engine's schedule). ``progress``
callbacks only read.

The step signatures take and give the engine's own vertex sets (:meth:`Engine.active_mask`;
a byte per vertex on the CPU) and columns (:attr:`Engine.columns`): an engine whose columns live
on another device keeps them there and overrides the steps; which kernel runs each step is the
engine's choice (the CPU engines here use the Numba kernels of :mod:`gas._codegen`).

Engines register under a name (a ``name`` class attribute); :func:`engine_for` builds one by
name, so this module imports no engine.

Examples
--------
>>> import gas
>>> from gas.algorithms.pagerank import PageRankProgram
>>> eng = engine_for(gas.Graph.from_edges([0, 1], [1, 0]), PageRankProgram(), "sync")
>>> isinstance(eng, Engine), type(eng).__name__
(True, 'SyncEngine')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

from gas._codegen import is_known_good, load_kernels, mark_good
from gas._segments import Segments, build_segments, permute
from gas._typecheck import typecheck
from gas.config import CONFIG
from gas.engine_ranges import active_mask, balanced_chunks
from gas.engine_result import RunResult
from gas.engine_steps import check_inner_steps
from gas.errors import GasError
from gas.exchange_protocol import Exchange, LocalExchange
from gas.graph import Graph
from gas.local_part import Partition
from gas.program import NBR_DST, NBR_START, EdgeDir, VertexProgram, validate
from gas.setops import nbr_marks
from gas.threads import num_threads

__all__ = ["Engine", "ENGINES", "engine_for", "Hook"]

#: engine classes by name (``"sync"``, ``"async"``, ...), filled as they are defined
ENGINES: dict[str, type[Engine]] = {}

#: a between-supersteps hook: ``hook(engine, stat)`` may change the run's state
Hook = Callable[[Any, dict[str, Any]], None]


class Engine:
    """What every engine shares: columns, kernels, work measures and the public steps.

    Subclasses set ``name`` (their key in :data:`ENGINES`), ``options`` (the :func:`engine_for`
    options they take) and implement :meth:`run`; they state their execution semantics in their
    docstrings.

    Parameters
    ----------
    graph : Graph or Partition
    program : VertexProgram
    threads : int, optional
        Numba threads for this engine's runs (default: Numba's current setting).
    debug : bool, default False
        Run the program uncompiled, as plain Python, one thread.
    exchange : Exchange, optional
        How partitions talk; :class:`~gas.exchange_protocol.LocalExchange` for one process.
    checked : bool, optional
        Bounds-check the program's array indexing (default: the program's ``checked``).

    Examples
    --------
    A bulk-synchronous loop from the public steps (what :class:`gas.SyncEngine` runs, minus
    signals and statistics):

    >>> import numpy as np, gas
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> eng = gas.SyncEngine(gas.Graph.from_edges([0, 1], [1, 0]), PageRankProgram())
    >>> everyone = eng.active_mask(None)
    >>> eng.init(); _ = eng.aggregate()
    >>> for _ in range(3):
    ...     eng.gather(everyone); eng.apply(everyone); _ = eng.aggregate()
    >>> eng.result(3, False, [], {}).output.tolist()
    [0.5, 0.5]
    """

    name = ""
    options: tuple[str, ...] = ()
    #: the engine's supersteps call :meth:`apply_aggregate` when every vertex is active and the
    #: program does not scatter: its other aggregates then run that kernel without the apply
    fused_aggregates = False
    #: whether the engine runs a program's ``inner_steps`` above 1 (gas.engine_steps)
    runs_inner_steps = False

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.__dict__.get("name"):
            ENGINES.setdefault(cls.name, cls)

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
        self.graph = g = self.partition.graph
        self.program = program
        self.spec = validate(program, g, checked)
        self._check_consistency()
        #: rounds of gather and apply per superstep (``VertexProgram.inner_steps``)
        self.inner_steps = check_inner_steps(program, self.name, self.runs_inner_steps)
        self.threads = threads
        self.debug = debug
        self.exchange = exchange or LocalExchange()
        #: starting values written right after ``init`` (:meth:`write_inputs`); None: none
        self.inputs: Any = None
        self.allocate()
        self._checked = debug or is_known_good(self.spec)
        # copies of neighbour-read columns for the relabelled blocked layout (_relabelled_columns)
        self._perm_layout: Segments | None = None
        self._perm_bufs: dict[str, np.ndarray] = {}
        self._all_ids: np.ndarray | None = None  # every vertex id, for own_priority
        if not self._checked:
            typecheck(self.spec, self.VC, self.EC, self.params, self.ctx)
        self.k = self.load_kernels()
        self._degrees_and_chunks()

    def _degrees_and_chunks(self) -> None:
        """The work measures (:attr:`gather_degree`, :attr:`visit_degree`) and vertex ranges."""
        g, program, debug = self.graph, self.program, self.debug
        gdir = EdgeDir(program.gather_edges)
        sdir = EdgeDir(program.scatter_edges)
        deg_in, deg_out = g.in_degree, g.out_degree
        #: edges each vertex's gather visits
        self.gather_degree = np.zeros(g.num_vertices, np.int64)
        if gdir & EdgeDir.IN:
            self.gather_degree += deg_in
        if gdir & EdgeDir.OUT:
            self.gather_degree += deg_out
        #: edges an update visits (gather and scatter): the work measure in the statistics
        self.visit_degree = self.gather_degree.copy()
        if sdir & EdgeDir.IN:
            self.visit_degree += deg_in
        if sdir & EdgeDir.OUT:
            self.visit_degree += deg_out
        work = np.asarray(self.visit_degree, np.int64) + 1
        work = np.broadcast_to(work, (g.num_vertices,))
        self.nthreads = self.threads or numba.get_num_threads()
        per = CONFIG["chunks_per_thread"]
        # one range on one thread: the kernels then visit the vertices in id order (the ranges
        # of several threads run in a spread order, gas.threads.spread_step)
        parts = 1 if debug or self.nthreads == 1 else self.nthreads * per
        self.chunks = balanced_chunks(np.ascontiguousarray(work), parts)
        # vertex ranges apply (and the fused aggregate) run over; a partition's engine narrows
        # them to its masters (gas.runtime.dist_engine.DistEngine)
        self.apply_chunks = self.chunks
        seg = CONFIG["segment_size"]
        if self.spec.gather_slots:  # each vertex's scratch: its gather edges' values
            self.slot_ptr = np.zeros(g.num_vertices + 1, np.int64)
            np.cumsum(self.gather_degree, out=self.slot_ptr[1:])
            self.slots = np.zeros(int(self.slot_ptr[-1]), self.spec.gather_type)
        self._use_segments = (
            not debug
            and not self.spec.gather_slots
            and gdir == EdgeDir.IN
            and not self.spec.gather_shape
            and seg > 0
            and g.num_vertices > seg
        )
        self.gathers = gdir != EdgeDir.NONE
        self.scatters = sdir != EdgeDir.NONE

    def _check_consistency(self) -> None:
        """Refuse a program this engine cannot run safely (a subclass's rule; none here)."""

    def load_kernels(self) -> Any:
        """The kernels this engine's steps call (here: the program's Numba CPU kernels from
        :mod:`gas._codegen`, plain Python with ``debug``); a device engine loads its own."""
        return load_kernels(self.spec, jit=not self.debug)

    def allocate(self) -> None:
        """Make the vertex and edge columns (:attr:`columns`, :attr:`edge_columns`), ``params``,
        ``ctx`` and the gather totals :attr:`acc` (here numpy arrays in host memory; a device
        engine allocates them where its kernels run)."""
        g, spec = self.graph, self.spec
        n = g.num_vertices
        cols: dict[str, np.ndarray] = {}
        adj = self.partition.adjacency  # a part's whole neighbour lists (v.nbrs), if it has them
        for name, dt in spec.vertex_columns:
            if name == "out_degree":
                cols[name] = g.out_degree.astype(np.int64)
            elif name == NBR_START:
                start = g.out_indptr[:-1] if adj is None else adj[0]
                cols[name] = np.ascontiguousarray(start, dtype=np.int64)
            elif name == "in_degree":
                cols[name] = g.in_degree.astype(np.int64)
            else:
                cols[name] = np.zeros(n, dt)
        ecols: dict[str, np.ndarray] = {}
        for name, dt in spec.edge_columns:
            if name in spec.graph_edge_fields:
                ecols[name] = np.ascontiguousarray(g.edata[name], dtype=dt)
            elif name == NBR_DST:
                ecols[name] = np.ascontiguousarray(g.dst if adj is None else adj[1], dtype=np.int64)
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
        # the program's array attributes (read-only) and, for a gather/scatter that takes it,
        # ctx itself follow the vertex columns (kernel arguments: BoundProgram.extra_columns)
        self.VC += spec.extra_columns(self.ctx)
        if spec.marks_column is not None:  # v.has_nbr: a row of marks per thread, over every id
            ids = max(n, self.partition.num_global_vertices)
            self.VC += (nbr_marks(self.threads or numba.get_num_threads(), ids),)

    # -- the public steps ------------------------------------------------------------------------

    @contextmanager
    def thread_scope(self) -> Iterator[None]:
        """The Numba thread count of this engine's runs, restored on exit (wrap the steps in it)."""
        with num_threads(1 if self.debug else self.threads):
            yield

    def active_mask(self, active: Any) -> np.ndarray:
        """The engine's vertex set for ``active`` (ids or a boolean mask; None: every vertex)."""
        if active is None:
            return np.ones(self.graph.num_vertices, np.uint8)
        return active_mask(active, self.graph.num_vertices)

    def visited_edges(self, active: np.ndarray) -> int:
        """Edges the updates of the vertices in ``active`` (a mask or ids) visit."""
        sel = active.view(np.bool_) if active.dtype == np.uint8 else active
        return int(self.visit_degree[sel].sum())

    def init(self) -> None:
        """Run the program's ``init`` on every vertex (``ctx.iteration`` as set), then write the
        run's starting values (:meth:`write_inputs`)."""
        if "init" in self.spec.functions:  # without one, init does nothing: no kernel to compile
            self.k.k_init(self.chunks, self.VC, self.EC, self.params, self.ctx)
        self.write_inputs()

    def write_inputs(self) -> None:
        """Write :attr:`inputs` (per-vertex and per-edge starting values by internal id, a
        :class:`gas.inputs.VertexInputs` that :func:`gas.run` sets from its ``init=``) over the
        columns ``init`` made; nothing when None. An engine whose columns live elsewhere
        overrides :meth:`init` and writes them its own way."""
        if self.inputs is not None:
            self.inputs.write(self.columns, self.edge_columns)

    def topology(self) -> tuple[np.ndarray, ...]:
        """The graph arrays the kernels walk: ``out_indptr``, ``dst``, ``in_indptr``, ``in_src`` and
        ``in_eid`` (``in_src`` again, unused, for a program without edge columns)."""
        g = self.graph
        return (g.out_indptr, g.dst, g.in_indptr, g.in_src, g.in_eid if self.EC else g.in_src)

    def gather(self, active: np.ndarray, everyone: bool = False) -> None:
        """Gather totals of the ``active`` vertices into :attr:`acc` on this partition's edges
        (``gather_zero`` everywhere for a program that gathers nothing); ``everyone`` (all
        active) may use the cache-blocked layout. Partial totals from other partitions are
        folded in by the exchange (:meth:`combine`)."""
        if not self.gathers:
            self.acc.fill(self.zero[0])
            return
        k, VC, EC, P = self.k, self.VC, self.EC, self.params
        if everyone and self._use_segments:
            sg = self._segments()
            eids = sg.seg_eid if EC else sg.seg_src  # unused ids: no second stream
            if sg.order is not None:
                VC = self._relabelled_columns(sg)
            k.k_gather_seg(
                sg.bounds, sg.blk_dst, sg.blk_ptr, sg.seg_src, eids, VC, EC, P, self.acc, self.zero
            )
            return
        topo = self.topology()
        if self.spec.gather_slots:
            k.k_gather_slots(self.chunks, active, VC, EC, P, *topo, self.slot_ptr, self.slots)
            return
        kern = k.k_gather_array if self.spec.gather_shape else k.k_gather
        kern(self.chunks, active, VC, EC, P, *topo, self.acc, self.zero)

    def apply(self, active: np.ndarray, all_ranges: bool = False) -> None:
        """Run ``apply`` on the ``active`` vertices with their totals: those in
        :attr:`apply_chunks` (the vertices this partition applies), or with ``all_ranges`` in
        :attr:`chunks` (every vertex range; better balanced for a small scattered set)."""
        chunks = self.chunks if all_ranges else self.apply_chunks
        if self.spec.gather_slots:
            args = (self.slot_ptr, self.slots, self.ctx)
            self.k.k_apply_slots(chunks, active, self.VC, self.EC, self.params, *args)
            return
        self.k.k_apply(chunks, active, self.VC, self.EC, self.params, self.acc, self.ctx)

    def apply_aggregate(self) -> np.ndarray:
        """Apply on every vertex and make the aggregates' per-range partials in the same pass
        (pass them to :meth:`aggregate`)."""
        ach = self.apply_chunks
        part = np.empty((ach.shape[0] - 1, len(self.spec.agg_names)), np.float64)
        if self.spec.gather_slots:  # apply with the slots, then the partials (two passes)
            self.apply(np.ones(self.graph.num_vertices, np.uint8))
            self.k.k_aggregate(ach, self.VC, self.EC, self.params, part)
            return part
        self.k.k_apply_aggregate_all(ach, self.VC, self.EC, self.params, self.acc, self.ctx, part, True)
        return part

    def scatter(self, active: np.ndarray, signal: np.ndarray, prio: np.ndarray | None = None) -> None:
        """Run ``scatter`` from the ``active`` vertices, setting ``signal`` on the vertices it
        signals (and, with ``prio``, keeping each one's largest signal priority)."""
        args = (self.chunks, active, self.VC, self.EC, self.params, *self.topology(), signal)
        if prio is None:
            self.k.k_scatter(*args)
        else:
            self.k.k_scatter_prio(*args, prio)

    def own_priority(self, idx: np.ndarray | None = None) -> np.ndarray:
        """The program's ``priority(v)`` of each vertex in ``idx`` (default: every vertex)."""
        if idx is None:
            if self._all_ids is None:
                self._all_ids = np.arange(self.graph.num_vertices, dtype=np.int64)
            idx = self._all_ids
        out = np.empty(idx.shape[0], np.float64)
        if idx.size:
            self.k.k_priorities(idx, self.VC, self.EC, self.params, out)
        return out

    def sync_host(self, names: tuple[str, ...] | None = None) -> None:
        """Make :attr:`columns` (and :attr:`edge_columns`; ``names``: only these vertex
        columns) current: a device engine copies them back, here they always are. A
        ``between`` hook marked ``device_aware = True`` calls it before reading them (and
        :meth:`refresh_aggregates` after writing them)."""

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

    def local_share(self, part: np.ndarray | None = None) -> np.ndarray:
        """This partition's share of the aggregates, from per-range partials ``part`` (made
        here over :attr:`chunks` when None)."""
        spec = self.spec
        if part is None:
            part = np.empty((self.chunks.shape[0] - 1, len(spec.agg_names)), np.float64)
            if self.fused_aggregates and not self.scatters and not spec.gather_slots:
                # the kernel apply_aggregate runs, without apply: one kernel to compile, not two
                args = (self.acc, self.ctx, part, False)
                self.k.k_apply_aggregate_all(self.chunks, self.VC, self.EC, self.params, *args)
            else:
                self.k.k_aggregate(self.chunks, self.VC, self.EC, self.params, part)
        vals = np.zeros(len(spec.agg_names), np.float64)
        if part.shape[0]:
            for j, op in enumerate(spec.agg_ops):
                col = part[:, j]
                vals[j] = col.sum() if op == 0 else (col.max() if op == 1 else col.min())
        return vals

    def set_aggregates(self, vals: np.ndarray) -> dict[str, float]:
        """Publish reduced aggregate values to ``ctx``; returns them by name."""
        out = {}
        for j, name in enumerate(self.spec.agg_names):
            self.ctx[name] = vals[j]
            out[name] = float(vals[j])
        return out

    def aggregate(self, part: np.ndarray | None = None) -> dict[str, float]:
        """Reduce the aggregates over every partition's vertices (``part``: this partition's
        per-range partials, already made) into ``ctx``; returns them by name."""
        if not self.spec.agg_names:
            return {}
        vals = self.exchange.allreduce(self.local_share(part), self.spec.agg_ops)
        return self.set_aggregates(vals)

    def refresh_aggregates(self) -> dict[str, float]:
        """Recompute the program's aggregates from the vertex data as it is now, for a
        between-supersteps hook (``run(..., between=hook)``) that changed it: the next
        superstep's ``ctx`` and the ``converged`` test after the hook read the new values (on
        processes, every rank must call it). Returns them by name.

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
        return self.aggregate()

    def result(
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

    def run(self, max_iter: int = 100, **kw: Any) -> RunResult:
        """Run the program (each engine's own loop over the steps)."""
        raise NotImplementedError

    # -- the CPU gather's cache-blocked layout ---------------------------------------------------

    def _segments(self) -> Segments:
        """The cache-blocked in-edge layout, built once per graph and kept on it; its sources
        are renumbered by degree when ``gather`` reads neighbours only through fields it does
        not read on ``v`` (:attr:`ProgramSpec.gather_nbr_fields`)."""
        g = self.graph
        relabel = bool(CONFIG["relabel"]) and self.spec.gather_nbr_fields is not None
        key = (CONFIG["segment_size"], self.nthreads * 4, relabel)
        cache = g.__dict__.setdefault("_gas_segments", {})
        sg = cache.get(key)
        if sg is None or (self.EC and sg.seg_eid is sg.seg_src):  # edge ids only when read
            cache.clear()
            sg = cache[key] = build_segments(g, *key, edge_ids=bool(self.EC))
        return sg

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
        return tuple(out) + self.VC[len(out) :]  # the program's arrays and ctx, as they are


def engine_for(
    graph: Graph | Partition,
    program: VertexProgram,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
    threads: int | None = None,
    debug: bool = False,
) -> Engine:
    """The engine registered as ``engine`` (``"sync"``: :class:`gas.SyncEngine`, ``"async"``:
    :class:`gas.AsyncEngine`), given the options it takes.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.pagerank import DeltaPageRankProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 0])
    >>> type(engine_for(g, DeltaPageRankProgram(), "async", scheduler="priority")).__name__
    'AsyncEngine'
    """
    cls = ENGINES.get(engine)
    if cls is None:  # engines register when their module is imported: import the bundled ones
        import importlib

        for module in ("gas.engine", "gas.async_engine", "gas.cuda_engine"):
            importlib.import_module(module)
        cls = ENGINES.get(engine)
    if cls is None:
        raise GasError(f"Unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    given = {"scheduler": scheduler, "consistency": consistency}
    opts = {k: v for k, v in given.items() if k in cls.options}
    return cls(graph, program, threads=threads, debug=debug, **opts)
