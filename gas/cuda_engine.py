"""The CUDA engine: the synchronous engine's semantics, on an NVIDIA GPU (numba-cuda).

:class:`CudaEngine` runs the same vertex programs as :class:`gas.SyncEngine`, superstep by
superstep with the same contract (gather reads the previous superstep's data, apply writes the
vertex, scatter signals the next superstep; see :mod:`gas.engine`). The program's rewritten
methods become CUDA device functions bound into the generic kernels of ``_template_cuda.py``
(:mod:`gas._codegen_cuda`), as the CPU engine binds them into its own.

How a superstep runs on the device:

- **Degree-aware gather.** The vertices are listed by gather degree, highest first, and cut
  into bins (:mod:`gas.cuda_layout`): a thread per vertex below 32 edges, a warp per vertex,
  a block per vertex, and for hubs above ``lb_degree`` equal chunks of edges, a block each,
  whose totals are folded afterwards, so no block serialises a hub. Vertices without gather
  edges (the hypersparse tail) get the zero.
- **Frontier.** A dynamic program's active vertices are compacted on the device by a prefix
  sum over the degree order (:mod:`gas.cuda_kernels`), so the compacted frontier falls into
  the same bins and a superstep costs the active vertices' edges (plus one pass over the
  vertex flags). Scatter is edge-balanced: each thread takes one edge of the frontier, found
  by a search over the prefix sum of the frontier's scatter degrees.
- **On the device for the whole run.** Columns are copied once before the first superstep
  (so values set in :attr:`columns` before :meth:`CudaEngine.run` count, as on the CPU) and
  back once after the last; each superstep sends the host a few scalars (the aggregates,
  the frontier's bin sizes, the bounds-check flag). A ``between`` hook is the exception: the
  columns are copied to the host before it runs and back after.

Examples
--------
>>> import numpy as np, gas
>>> from gas.algorithms.pagerank import PageRankProgram
>>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
>>> res = CudaEngine(g, PageRankProgram(), tuning=CudaTuning(block_threads=32)).run(20)
>>> np.round(res.output, 6).tolist()
[0.333333, 0.333333, 0.333333]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from gas import cuda_device
from gas.cuda_layout import BINS, adjacency, bin_bounds, degree_order, lb_chunk_offsets
from gas.cuda_support import check_gpu_program
from gas.cuda_tuning import SIMULATOR, CudaTuning
from gas.engine_base import Engine, Hook
from gas.engine_result import RunLog, RunResult
from gas.errors import GasError
from gas.exchange_protocol import Exchange
from gas.graph import Graph
from gas.local_part import Partition
from gas.program import EdgeDir, VertexProgram

__all__ = ["CudaEngine", "CudaTuning", "Frontier"]


@contextmanager
def _simulator_pace() -> Iterator[None]:
    """Under numba-cuda's simulator, a short GIL switch interval while a run lasts: its block
    manager polls the simulated threads while holding the GIL, so at Python's default 5 ms
    those threads hardly run (about 2.5x slower kernels, measured). No effect on a GPU."""
    if not cuda_device.is_simulator():
        yield
        return
    old = sys.getswitchinterval()
    sys.setswitchinterval(min(old, 1e-4))
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@dataclass
class Frontier:
    """A set of vertices on the device: ``verts[:count]`` in gather-degree order, cut into the
    bins of :data:`gas.cuda_layout.BINS` at the positions ``bins`` (six host integers);
    ``everyone``: it is every vertex (``verts`` is the degree order itself)."""

    verts: Any
    count: int
    bins: np.ndarray
    everyone: bool = False
    mask: np.ndarray | None = None  # the host copy, made by CudaEngine.host_mask when asked


class CudaEngine(Engine):
    """Runs a vertex program in supersteps on a GPU (see the module docstring).

    Parameters
    ----------
    graph : Graph or Partition
    program : VertexProgram
        Any program the synchronous engine runs whose fields are numbers or fixed-length
        vectors and whose gather total is a number (others are refused here, naming the
        method and the feature: :mod:`gas.cuda_support`).
    threads, exchange, checked
        As for :class:`gas.SyncEngine` (``threads`` only affects the host-side steps).
    debug : bool, default False
        Not available here (it means plain Python on the CPU: use ``engine="sync"``).
    tuning : CudaTuning, optional
        Threads per block and the bins' degree thresholds (default: :class:`CudaTuning()`;
        under the simulator :data:`gas.cuda_tuning.SIMULATOR`, one warp per block).

    Raises
    ------
    GasError
        numba-cuda is missing, no GPU is usable, or the graph does not fit in the free device
        memory (checked before anything is copied; the estimate is :attr:`device_bytes`).
    ProgramError
        The program uses what device code cannot run.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.components import ComponentsProgram
    >>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=5)
    >>> eng = CudaEngine(g, ComponentsProgram(), tuning=CudaTuning(block_threads=32))
    >>> eng.run().output.tolist(), eng.bin_counts["thread"] > 0
    ([0, 0, 2, 2, 4], True)
    """

    name = "cuda"

    def __init__(
        self,
        graph: Graph | Partition,
        program: VertexProgram,
        *,
        threads: int | None = None,
        debug: bool = False,
        exchange: Exchange | None = None,
        checked: bool | None = None,
        tuning: CudaTuning | None = None,
    ) -> None:
        if debug:
            raise GasError(
                "debug=True runs a program as plain Python on the CPU; use engine='sync' for it "
                "(the CUDA engine gives the same results)"
            )
        if tuning is not None and not isinstance(tuning, CudaTuning):
            raise GasError(
                f"Expected tuning to be a gas.cuda_tuning.CudaTuning (got {type(tuning).__name__})"
            )
        self.cuda = cuda_device.cuda_module()
        self.tuning = tuning or (SIMULATOR if cuda_device.is_simulator() else CudaTuning())
        cuda_device.require_gpu()
        #: vertices gathered per bin over the run (``bins`` in each superstep's statistics)
        self.bin_counts = dict.fromkeys(BINS, 0)
        super().__init__(graph, program, threads=threads, exchange=exchange, checked=checked)
        self._plan_layout()
        cuda_device.check_fits(self.device_bytes)
        self._upload()

    def _check_consistency(self) -> None:
        check_gpu_program(self.spec)

    def load_kernels(self) -> Any:
        """The program's CUDA kernels (:func:`gas._codegen_cuda.load_cuda_kernels`)."""
        from gas._codegen_cuda import load_cuda_kernels
        from gas.cuda_kernels import GenericKernels

        self.gk = GenericKernels(self.tuning)
        return load_cuda_kernels(self.spec, self.tuning)

    # -- layout and copies -----------------------------------------------------------------------

    def _plan_layout(self) -> None:
        """The host-side layout (adjacency, degree order, bins, chunk table) and the estimate
        of the device memory the run needs (:attr:`device_bytes`)."""
        g, tun, spec = self.graph, self.tuning, self.spec
        n = g.num_vertices
        self._gadj = adjacency(g, EdgeDir(self.program.gather_edges) if self.gathers else EdgeDir.NONE)
        self._sadj = adjacency(g, EdgeDir(self.program.scatter_edges) if self.scatters else EdgeDir.NONE)
        gdeg = self.gather_degree  # the length of each vertex's list in _gadj
        self._order = degree_order(gdeg)
        self._bounds = bin_bounds(gdeg[self._order], tun)
        hubs = self._order[self._bounds[0] : self._bounds[1]]
        self._cptr = lb_chunk_offsets(gdeg[hubs], tun.lb_chunk)
        gt = np.dtype(spec.gather_type).itemsize
        host = [*self.VC, *self.EC, *self._gadj, *self._sadj, self._order, self._cptr]
        work = n * (gt + 1 + 8 + 8 + 8) + 3 * 8 * (n + 1) + gt * int(self._cptr[-1])
        #: estimated device memory of the run, in bytes (columns, topology, work buffers)
        self.device_bytes = int(sum(a.nbytes for a in host) + work + self.params.nbytes + self.ctx.nbytes)

    def _upload(self) -> None:
        """Copy the columns, topology and work buffers to the device (once per engine)."""
        cuda, n = self.cuda, self.graph.num_vertices
        to = cuda.to_device
        self.dparams, self.dctx = to(self.params), to(self.ctx)
        # the vertex columns, then the program's arrays (copied once) and, when gather or
        # scatter takes it, the device's ctx itself (BoundProgram.extra_columns)
        dvc = [to(c) for c in self.VC]
        if self.spec.ctx_column is not None:
            dctx = self.dctx
            if cuda_device.is_simulator():  # its kernels see a record in a tuple without attributes
                dctx = sys.modules[type(dctx).__module__].FakeWithinKernelCUDAArray(dctx)
            dvc[self.spec.ctx_column] = dctx
        self.dVC = tuple(dvc)
        self.dEC = tuple(to(c) for c in self.EC)
        self.dacc = cuda.device_array(n, self.spec.gather_type)
        self.dzero = to(self.zero)
        self.dgadj = tuple(to(a) for a in self._gadj)
        self.dsadj = tuple(to(a) for a in self._sadj)
        self.dorder = to(self._order)
        self.dcptr = to(self._cptr)
        self.dpartial = cuda.device_array(max(1, int(self._cptr[-1])), self.spec.gather_type)
        self.dvisit = to(np.asarray(self.visit_degree, np.int64))
        self.dsignal = cuda.device_array(n, np.uint8)
        self.dfront = cuda.device_array(max(n, 1), np.int64)
        self.dpos = cuda.device_array(n + 1, np.int64)
        self.dscratch = cuda.device_array(max(n, 1), np.int64)
        self.doffs = cuda.device_array(n + 1, np.int64)
        ops = self.spec.agg_ops
        self._agg_identity = np.array([0.0 if op == 0 else (-np.inf if op == 1 else np.inf) for op in ops])
        self.dagg = cuda.device_array(max(1, len(ops)), np.float64)
        self._total_visit = int(self.visit_degree.sum())

    def upload_columns(self, edges: bool = False) -> None:
        """Copy the host's vertex columns (:attr:`columns`; with ``edges`` also
        :attr:`edge_columns`) to the device: what a caller set before :meth:`run`, or a
        ``between`` hook changed."""
        for host, dev in zip(self.VC[: len(self.spec.vertex_columns)], self.dVC):
            dev.copy_to_device(host)
        for host, dev in zip(self.EC if edges else (), self.dEC):
            dev.copy_to_device(host)

    def sync_host(self, names: tuple[str, ...] | None = None) -> None:
        """Copy the device's columns into :attr:`columns` / :attr:`edge_columns` (``names``:
        only these vertex columns)."""
        if names is None:
            self.download()
            return
        for (name, _), host, dev in zip(self.spec.vertex_columns, self.VC, self.dVC):
            if name in names:
                dev.copy_to_host(host)

    def download(self) -> None:
        """Copy the device's vertex and edge columns into :attr:`columns` / :attr:`edge_columns`."""
        for host, dev in zip(self.VC[: len(self.spec.vertex_columns)], self.dVC):
            dev.copy_to_host(host)
        for host, dev in zip(self.EC, self.dEC):
            dev.copy_to_host(host)

    def _launch(self, kernel: str, blocks: int, *args: Any) -> None:
        if blocks > 0:
            blocks = min(blocks, self.tuning.max_blocks)
            getattr(self.k, kernel)[blocks, self.tuning.block_threads](*args)

    def _blocks(self, threads: int) -> int:
        return -(-threads // self.tuning.block_threads)

    def _check_errors(self) -> None:
        """Raise the :class:`gas.ProgramError` a failed bounds check recorded on the device."""
        checks = self.spec.checks
        if checks is None:
            return
        self.dparams.copy_to_host(self.params)
        if self.params[0]["_gas_err"]:
            err = checks.error(self.params)
            if err is not None:
                raise err

    # -- vertex sets ----------------------------------------------------------------------------

    def active_mask(self, active: Any) -> Frontier:
        """The frontier of ``active`` (internal ids or a boolean mask; None: every vertex)."""
        n = self.graph.num_vertices
        if active is None:
            return Frontier(self.dorder, n, self._bounds.copy(), everyone=True)
        mask = super().active_mask(active)
        self.dsignal.copy_to_device(mask)
        return self.compact(self.dsignal)

    def compact(self, signal: Any) -> Frontier:
        """The frontier of the vertices flagged in the device array ``signal``: a prefix sum of
        the flags in degree order places each one; six scalars (its bins) reach the host."""
        n = self.graph.num_vertices
        if n == 0:
            return Frontier(self.dfront, 0, np.zeros(6, np.int64))
        self.gk._scan(signal, n, self.dorder, self.dpos)
        self.gk.launch("k_compact", n, self.dorder, signal, self.dpos, n, self.dfront)
        bins = self.gk.take(self.dpos, self._bounds)
        return Frontier(self.dfront, int(bins[-1]), bins)

    def host_mask(self, front: Frontier) -> np.ndarray:
        """The frontier as the CPU engines' vertex set (a byte per vertex), on the host; made
        once per frontier (a part's engine asks for it at each exchange of a superstep)."""
        if front.mask is not None:
            return front.mask
        n = self.graph.num_vertices
        if front.everyone:
            front.mask = np.ones(n, np.uint8)
            return front.mask
        mask = np.zeros(n, np.uint8)
        if front.count:
            mask[front.verts[: front.count].copy_to_host()] = 1
        front.mask = mask
        return mask

    def frontier_edges(self, front: Frontier) -> int:
        """Edges the updates of ``front`` visit (gather and scatter), summed on the device."""
        if front.everyone:
            return self._total_visit
        if front.count == 0:
            return 0
        return self.gk.exclusive_scan(self.dvisit, front.count, front.verts, self.doffs)[1]

    # -- the public steps -----------------------------------------------------------------------

    def init(self) -> None:
        """Run ``init`` on every vertex (``ctx.iteration`` as set)."""
        n = self.graph.num_vertices
        self.dctx.copy_to_device(self.ctx)
        self._launch("k_init", self._blocks(n), n, self.dVC, self.dEC, self.dparams, self.dctx)

    def gather(self, active: Frontier, everyone: bool = False) -> dict[str, int]:
        """Gather totals of the frontier ``active`` into the device's totals, bin by bin;
        returns the vertices each bin gathered."""
        counts = dict.fromkeys(BINS, 0)
        if not self.gathers or active.count == 0:
            if active.count:  # a program that gathers nothing: every total is the zero
                self.gk.launch("k_fill", self.graph.num_vertices, self.dacc, self.zero[0])
            return counts
        b = active.bins
        for j, name in enumerate(BINS):
            lo, hi = int(b[j]), int(b[j + 1])
            if hi > lo:
                getattr(self, f"_gather_{name}")(active, lo, hi)
                counts[name] = hi - lo
                self.bin_counts[name] += hi - lo
        return counts

    def _args(self) -> tuple[Any, ...]:
        return (self.dVC, self.dEC, self.dparams, *self.dgadj)

    def _gather_thread(self, f: Frontier, lo: int, hi: int) -> None:
        self._launch(
            "k_gather_thread", self._blocks(hi - lo), f.verts, lo, hi, *self._args(), self.dacc, self.dzero
        )

    def _gather_warp(self, f: Frontier, lo: int, hi: int) -> None:
        blocks = -(-(hi - lo) // self.tuning.warps_per_block)
        self._launch("k_gather_warp", blocks, f.verts, lo, hi, *self._args(), self.dacc, self.dzero)

    def _gather_block(self, f: Frontier, lo: int, hi: int) -> None:
        self._launch("k_gather_block", hi - lo, f.verts, lo, hi, *self._args(), self.dacc, self.dzero)

    def _gather_lb(self, f: Frontier, lo: int, hi: int) -> None:
        nh = hi - lo
        if f.everyone:
            cptr, chunks = self.dcptr, int(self._cptr[-1])
        else:  # the frontier's hubs: their chunk counts, then the prefix sum the search reads
            self.gk.launch(
                "k_chunks", nh, f.verts, lo, nh, self.dgadj[0], self.tuning.lb_chunk, self.dscratch
            )
            cptr, chunks = self.gk.exclusive_scan(self.dscratch, nh, out=self.doffs)
        args = self._args()
        self._launch("k_gather_lb", chunks, f.verts, lo, cptr, nh, *args, self.dpartial, self.dzero)
        self._launch("k_fold_lb", nh, f.verts, lo, cptr, nh, *args[:3], self.dpartial, self.dacc, self.dzero)

    def _gather_empty(self, f: Frontier, lo: int, hi: int) -> None:
        self._launch("k_gather_empty", self._blocks(hi - lo), f.verts, lo, hi, self.dacc, self.dzero)

    def apply(self, active: Frontier, all_ranges: bool = False) -> None:
        """Run ``apply`` on the frontier ``active`` with its totals."""
        use = not active.everyone
        self._launch(
            "k_apply", self._blocks(active.count), active.verts, use, active.count,
            self.dVC, self.dEC, self.dparams, self.dacc, self.dctx,
        )  # fmt: skip

    def scatter(self, active: Frontier, signal: Any, prio: Any = None) -> int:
        """Run ``scatter`` over the frontier's edges (edge-balanced), flagging the signalled
        vertices in the device array ``signal``; returns the edges scattered over."""
        if prio is not None:
            raise GasError("The CUDA engine has no signal priorities (the asynchronous engine's)")
        s_ptr = self.dsadj[0]
        if active.everyone:
            offs, count, total, use = s_ptr, self.graph.num_vertices, int(self._sadj[0][-1]), False
        else:
            count, use = active.count, True
            self.gk.launch("k_degrees", count, active.verts, 0, count, s_ptr, self.dscratch)
            offs, total = self.gk.exclusive_scan(self.dscratch, count, out=self.doffs)
        self._launch(
            "k_scatter", self._blocks(total), active.verts, use, offs, count, total,
            self.dVC, self.dEC, self.dparams, *self.dsadj, signal,
        )  # fmt: skip
        return total

    def local_share(self, part: np.ndarray | None = None) -> np.ndarray:
        """This engine's share of the aggregates, reduced on the device (its scalars only
        reach the host); ``part`` is ignored."""
        if not self.spec.agg_names:
            return np.zeros(0)
        out = self.dagg
        out.copy_to_device(self._agg_identity)
        verts, use, count = self._aggregate_set()
        blocks = -(-count // (self.tuning.block_threads * self.tuning.scan_items))
        self._launch("k_aggregate", blocks, verts, use, count, self.dVC, self.dEC, self.dparams, out)
        return out.copy_to_host()

    def _aggregate_set(self) -> tuple[Any, bool, int]:
        """The vertices the aggregates reduce over: every one (a part's engine: its masters)."""
        return self.dorder, False, self.graph.num_vertices

    def combine(self, rows: np.ndarray, incoming: np.ndarray) -> None:
        """Fold partial totals ``incoming[i]`` into vertex ``rows[i]`` with the program's ``sum``,
        on the device (what a master does with its mirrors' partial sums)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        incoming = np.ascontiguousarray(incoming, dtype=self.spec.gather_base)
        if incoming.shape != (rows.shape[0],):
            raise GasError(
                f"Expected {rows.shape[0]} partial totals (got an array of shape {incoming.shape})"
            )
        if rows.size:
            to = self.cuda.to_device
            args = (to(rows), rows.size, self.dacc, to(incoming), self.dVC, self.dEC, self.dparams)
            self._launch("k_combine", self._blocks(rows.size), *args)

    def refresh_aggregates(self) -> dict[str, float]:
        """Copy the host's vertex columns to the device, then recompute the aggregates (what a
        ``between`` hook that changed :attr:`columns` calls)."""
        self.upload_columns()
        return self.aggregate()

    def own_priorities(self, signal: Any) -> None:
        """Flag in ``signal`` every vertex whose own ``priority(v)`` is > 0."""
        n = self.graph.num_vertices
        self._launch("k_own_priority", self._blocks(n), n, self.dVC, self.dEC, self.dparams, signal)

    # -- the exchange (no-ops on one process; a part's engine stages through the host) ------------

    def exchange_gather(self, active: Frontier) -> None:
        """Fold other partitions' partial totals into this one's (nothing on one process)."""

    def exchange_vertices(self, active: Frontier) -> None:
        """Send masters' new data to their mirrors (nothing on one process)."""

    def exchange_signals(self, signal: Any) -> None:
        """Merge the signals of every replica of a vertex (nothing on one process)."""

    # -- supersteps and runs ----------------------------------------------------------------------

    def superstep(
        self, active: Frontier, everyone: bool = False
    ) -> tuple[Any, dict[str, float], dict[str, int]]:
        """One superstep over the frontier ``active``: gather, apply, scatter, aggregate.
        Returns the device signal flags (None for a program that signals nothing), the
        aggregates and the vertices each gather bin took."""
        self.dctx.copy_to_device(self.ctx)
        bins = self.gather(active, everyone)
        if self.gathers:
            self.exchange_gather(active)
        self.apply(active)
        self.exchange_vertices(active)
        signal = self._signals(active)
        aggs = self.aggregate()
        self._check_errors()
        return signal, aggs, bins

    def _signals(self, active: Frontier) -> Any:
        dynamic = bool(self.program.dynamic)
        own_prio = dynamic and self.spec.schedules_itself
        if not (self.scatters or own_prio):
            return None
        n = self.graph.num_vertices
        self.gk.launch("k_fill", n, self.dsignal, 0)
        if self.scatters:
            self.scatter(active, self.dsignal)
        if own_prio:
            self.own_priorities(self.dsignal)
        if dynamic:
            self.exchange_signals(self.dsignal)
        return self.dsignal

    def _staged(self, between: Hook) -> Hook:
        """``between`` with the columns on the host while it runs (copied there and back),
        unless the hook says ``device_aware = True``: it then calls :meth:`sync_host` before
        reading and :meth:`refresh_aggregates` after writing, for the columns and supersteps
        it needs."""
        if getattr(between, "device_aware", False):
            return between

        def hook(eng: Any, stat: dict[str, Any]) -> None:
            self.download()
            between(eng, stat)
            self.upload_columns()

        return hook

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
        """Run supersteps until no vertex is active, ``converged`` is True, or ``max_iter``
        (parameters and result as :meth:`gas.SyncEngine.run`; each superstep's statistics
        also hold ``bins``, the vertices each gather bin took)."""
        if max_iter < 0:
            raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
        with _simulator_pace():
            return self._run(max_iter, active, progress, first_iteration, init, between)

    def _run(
        self,
        max_iter: int,
        active: Any,
        progress: Callable[[dict[str, Any]], None] | None,
        first_iteration: int,
        init: bool,
        between: Hook | None,
    ) -> RunResult:
        n = self.graph.num_vertices
        everyone = self.active_mask(None)
        front = everyone if active is None else self.active_mask(active)
        dynamic = bool(self.program.dynamic)
        hook = self._staged(between) if between is not None else None
        log = RunLog(self, first_iteration=first_iteration, progress=progress, between=hook)
        self.upload_columns(edges=True)  # what the caller set in columns before the run
        self.ctx["iteration"] = log.iteration
        if init:
            self.init()
        log.aggregates = self.aggregate()
        count = self.exchange.allreduce_count(front.count)
        converged = False
        while log.iteration < max_iter:
            if count == 0:
                converged = True
                break
            t0 = time.perf_counter()
            self.ctx["iteration"] = log.iteration
            edges = self.frontier_edges(front)
            signal, aggs, bins = self.superstep(front, front.everyone)
            log.record(t0, count, edges, aggs, after={"bins": bins})
            if log.program_converged():
                converged = True
                break
            if dynamic:
                front = (
                    self.compact(signal)
                    if signal is not None
                    else Frontier(self.dfront, 0, np.zeros(6, np.int64))
                )
            else:
                front = everyone
            count = self.exchange.allreduce_count(front.count if dynamic else n)
        else:
            converged = count == 0
        self.download()
        return log.finish(converged)
