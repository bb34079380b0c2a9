"""Bounded staleness (SSP, stale synchronous parallel) across workers, for static programs.

Each rank keeps a *clock*: the number of supersteps it has completed. Under a staleness bound
``s`` a rank at clock ``c`` (running superstep ``c``) never waits at a global barrier; it waits
only until every other rank has completed superstep ``c - 1 - s`` (the SSP rule of Ho et al.,
NIPS'13: the fastest rank runs at most ``s`` supersteps ahead of the slowest), and it reads the
freshest values it holds, which are then at most ``s`` supersteps older than the ones a
bulk-synchronous run would read.

Messages, per rank and superstep ``k``, tagged with ``k`` (per-sender order is kept by the
transport):

* *partial* (after the local gather): the partial gather totals of this rank's mirrors, to each
  master rank that gathers them (what ``reduce_gather`` sends in a BSP superstep);
* *values* (after apply): the new data of this rank's masters to each rank mirroring them,
  together with this rank's share of the aggregates (over its masters), to every rank.

Before each wait a rank takes every message that has arrived (without blocking), and with
``s > 0`` it consumes them all in order, those of supersteps ahead of its own too (*fresh*
reads: the SSP model guarantees data at most ``s`` supersteps old and allows newer; a straggler
then reads what its peers computed while it was slow, not what they had ``s`` supersteps ago).
With ``s = 0`` (or ``fresh=False``) it consumes only messages not from the future: partials of
superstep ``<= c`` and values of superstep ``<= c - 1``. Consumed values overwrite the mirror
rows at once; consumed partials replace the peer's last partial, which the master folds into
its own total (peers in rank order) before apply; ``ctx`` aggregates are the rank-ordered fold
of every rank's latest share. With ``s = 0`` every rank reads exactly superstep ``c - 1``'s
values and ``c``'s partials, so the run is the BSP run, bit for bit.

*Delta mode*, for programs that send changes rather than values (``delta_fields``, e.g.
:class:`gas.algorithms.pagerank_delta.AccumulativePageRankProgram`): a consumed value of a delta
field is *added* to the mirror row, which is cleared once the local gather has read it, and
consumed partials add up until the master folds them in (then they are dropped). Every change
is so counted exactly once, however late or early it is read: a stale read only delays it.
Gathers of such programs must be sums. Such a program may also run *local sweeps*
(``sweeps=K``, ``s > 0``): while a rank must wait for its peers it runs up to ``K`` extra gathers
and applies on its own part with the data it holds (Maiter's point: an accumulative update may
run whenever it has something to pass on), instead of idling. A sweep's changes for peers (the
mirrors' partial totals, the masters' new deltas) are added into the next partial and values
messages; with sweeps a rank waits for the partials of ``c - s`` before its gather of ``c``
(not after it), so that every wait falls between an apply and the next gather.

Stopping: every rank sees every share of the aggregates, so each evaluates ``converged`` on
each *complete* superstep (all shares present) in order; the first superstep ``K`` that ends a
run of ``s + 2`` passing supersteps (1 for ``s = 0``, or for a program with
``stale_safe_stop = True`` whose test bounds the error on any complete superstep) is the same
everywhere. One passing
superstep is not enough under staleness: a rank may read the same stale peer data for up to
``s + 1`` supersteps in a row, and then reports a change near zero without having converged;
within ``s + 2`` supersteps every rank has read newer data from every peer. A rank stops as
soon as it knows ``K`` (or reaches ``max_iter``), then says *done* and drains the others'
messages up to their *done*; fast ranks may have run up to ``s`` supersteps past ``K`` (their
masters keep the newer values).

Observed staleness of a superstep: the largest lag, in supersteps, of any peer data it read
behind what BSP would read (values of ``c - 1``, partials of ``c``; 0 when fresh reads got
newer data). The run statistics give it
per superstep, and :attr:`SSPRunResult.ssp` its mean and max over every rank's supersteps.

Only programs with ``dynamic = False`` and no scatter run here (signals would need the active
set agreed every superstep, which is a barrier); others are rejected with a clear error.

Examples
--------
>>> import threading, numpy as np, gas
>>> from gas.runtime.comm import Comm
>>> from gas.runtime.worker_graph import part_of_graph
>>> from gas.runtime.transport import InProcHub
>>> from gas.algorithms.pagerank import PageRankProgram
>>> g = gas.Graph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 3, 0])
>>> hub = InProcHub(2)
>>> out = [None, None]
>>> def work(r):
...     part = part_of_graph(g, np.array([0, 0, 1, 1]), g.src % 2, r)
...     out[r] = run_partition_ssp(part, PageRankProgram(tol=1e-12), Comm(hub.transport(r)),
...                                max_iter=500, staleness=2, straggler=(1, 0.001))
>>> ts = [threading.Thread(target=work, args=(r,)) for r in range(2)]
>>> for t in ts: t.start()
>>> for t in ts: t.join()
>>> bool(np.abs(out[0].output - gas.algorithms.pagerank(g, tol=1e-12)).sum() < 1e-6)
True
>>> out[0].converged, out[0].ssp["staleness_max"] <= 2
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas.engine_result import RunLog, RunResult
from gas.errors import GasError
from gas.program import EdgeDir, VertexProgram
from gas.runtime.bsp import collect_masters
from gas.runtime.comm import Comm, reduce_ranks
from gas.runtime.dist_engine import DistEngine, part_engine
from gas.runtime.network_exchange import NetworkExchange
from gas.runtime.ssp_state import (  # noqa: F401  (re-exported: the old import paths keep working)
    _TAG_BASE,
    DONE,
    PARTIAL,
    VALUES,
    _SSPState,
    _tag,
    _untag,
)
from gas.runtime.ssp_straggler import (  # noqa: F401  (re-exported)
    ANY_RANK,
    MAX_STRAGGLER_SECONDS,
    parse_straggler,
    slow_rank,
    straggler_delay,
)
from gas.runtime.worker_graph import WorkerPart

__all__ = [
    "SSPRunResult",
    "run_partition_ssp",
    "ssp_job",
    "check_ssp",
    "delta_fields",
    "parse_straggler",
    "slow_rank",
    "straggler_delay",
]


@dataclass
class SSPRunResult(RunResult):
    """A :class:`RunResult` plus the run's staleness summary.

    Attributes
    ----------
    ssp : dict
        ``staleness`` (the bound), ``staleness_mean`` and ``staleness_max`` (observed, over every
        rank's supersteps), ``clocks`` (supersteps completed by each rank), ``wait_seconds``
        (time each rank spent blocked), ``stop_superstep`` (the agreed converged superstep, or
        None).
    """

    ssp: dict[str, Any] = field(default_factory=dict)


def delta_fields(program: VertexProgram) -> tuple[str, ...]:
    """The program's ``delta_fields`` (validated): vertex fields that carry changes, not values.

    Examples
    --------
    >>> from gas.algorithms.pagerank_delta import AccumulativePageRankProgram
    >>> delta_fields(AccumulativePageRankProgram())
    ('send',)
    """
    names = tuple(getattr(program, "delta_fields", ()) or ())
    fields = dict(program.vertex_data)
    for f in names:
        if f not in fields:
            raise GasError(
                f"{type(program).__name__}.delta_fields names {f!r}, which is not in its vertex_data "
                f"({', '.join(fields)})"
            )
        if np.dtype(fields[f] if not isinstance(fields[f], tuple) else fields[f][0]).kind != "f":
            raise GasError(f"{type(program).__name__}.delta_fields: {f!r} must be a float field")
    return names


def check_ssp(program: VertexProgram, staleness: int | None, straggler: Any = None) -> None:
    """Reject what bounded staleness cannot run, with the reason (before any work starts)."""
    if staleness is None:
        if straggler is not None:
            parse_straggler(straggler)
        return
    if isinstance(staleness, bool) or not isinstance(staleness, (int, np.integer)) or staleness < 0:
        raise GasError(f"Expected a staleness bound s >= 0 supersteps (got {staleness!r})")
    if program.dynamic or EdgeDir(program.scatter_edges) != EdgeDir.NONE:
        raise GasError(
            f"{type(program).__name__} signals vertices (dynamic or scatter), which needs the active "
            "set agreed every superstep; bounded staleness runs static programs only (e.g. PageRank). "
            "Hint: drop --staleness"
        )
    if getattr(program, "inner_steps", 1) != 1:
        raise GasError(
            f"{type(program).__name__} sets inner_steps = {program.inner_steps}; bounded staleness runs one "
            "gather and apply per superstep. Hint: drop --staleness, or set inner_steps = 1"
        )
    if straggler is not None:
        parse_straggler(straggler)


def run_partition_ssp(
    part: WorkerPart,
    program: VertexProgram,
    comm: Comm,
    *,
    max_iter: int = 100,
    staleness: int = 0,
    straggler: Any = None,
    threads: int | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    fresh: bool | None = None,
    sweeps: int = 0,
) -> SSPRunResult:
    """Run a static ``program`` on this rank's part with staleness bound ``staleness``.

    Like :func:`gas.runtime.bsp.run_partition` (rank 0 returns every vertex's data), with
    ``straggler = (rank, seconds)`` (or ``"RANK:SECONDS"``) adding a delay to each superstep
    of that rank (``"any:SECONDS"``: to one rank per superstep, :func:`slow_rank`). Statistics
    per superstep (rank 0's) give the aggregates the superstep read
    (under BSP, those at the end of the superstep before: a complete one is only known later)
    and gain ``staleness`` (observed), ``wait_seconds`` and ``bytes_sent``;
    :attr:`SSPRunResult.ssp` sums up every rank, and ``aggregates`` are those of the agreed
    converged superstep.

    A program with ``delta_fields`` runs in delta mode (module docstring). ``fresh`` (the
    default with ``s > 0``; ignored with ``s = 0``, which stays BSP) consumes every peer message
    as soon as it is delivered, those of supersteps ahead of this one too; ``fresh=False``
    keeps to messages not from the future (reads exactly ``s`` supersteps behind a peer that
    is ahead).

    ``sweeps`` (delta programs, ``s > 0``): while a rank must wait for its peers it runs up to
    that many *local sweeps* per superstep, each a gather and apply on its own part with the
    data it holds (module docstring), instead of idling.
    """
    check_ssp(program, staleness, straggler)
    s = int(staleness)
    if max_iter < 0:
        raise GasError(f"Expected 'max_iter' >= 0 (got {max_iter})")
    delta = delta_fields(program)
    fresh = s > 0 and (fresh is None or bool(fresh))
    sweeps = int(sweeps)
    if sweeps < 0 or (sweeps and not delta):
        raise GasError(
            f"Expected sweeps >= 0, and local sweeps only for a program with delta_fields "
            f"(got {sweeps} for {type(program).__name__}): applying a vertex twice between exchanges "
            "is only sound when the exchanged values are changes, each counted once"
        )
    eng, _ = part_engine(part, program, comm, threads)
    log = RunLog(eng, progress=progress)
    with eng.thread_scope():
        run = _SSPRun(eng, comm, s, delta, fresh, sweeps, straggler)
        while log.iteration < max_iter:
            if not run.superstep(log):
                break
            if run.st.stop_at is not None and run.single:
                break
        if not run.single:
            run.st.drain()
    converged = run.st.stop_at is not None
    if converged:
        log.aggregates = run.st.final
    res = SSPRunResult(**vars(log.finish(converged)), ssp=run.summary(log.iteration))
    return collect_masters(res, eng, comm, eng.partition.num_global_vertices)


class _SSPRun:
    """One rank's bounded-staleness run: the supersteps of :func:`run_partition_ssp` built from
    the engine's public steps, the SSP messages of :class:`_SSPState`, and the local sweeps."""

    def __init__(
        self,
        eng: DistEngine,
        comm: Comm,
        s: int,
        delta: tuple[str, ...],
        fresh: bool,
        sweeps: int,
        straggler: Any,
    ) -> None:
        self.eng, self.comm, self.s, self.straggler = eng, comm, s, straggler
        ex: NetworkExchange = eng.exchange  # type: ignore[assignment]
        self.ex = ex
        partition = eng.partition
        n = eng.graph.num_vertices
        self.act = np.ones(n, np.uint8)
        self.masters = partition.is_master.astype(np.uint8)
        self.gathers = eng.gathers
        self.total_visit = int(eng.visit_degree.sum())
        self.lag_sum, self.lag_max, self.lag_n, self.waited = 0, 0, 0, 0.0
        eng.ctx["iteration"] = 0
        eng.init()
        # every rank's share after init (all-gathered: the same fold as BSP's all-reduce)
        shares = [a[0] for a in comm.allgather([eng.local_share()])]
        self.st = st = _SSPState(comm, eng, shares, s, delta, fresh)
        # delta mode: mirror rows of delta fields, cleared after each gather has read them
        self.clear = [eng.columns[f] for f in delta if f in ex.sync_names] if comm.t is not None else []
        self.mirror_rows = np.flatnonzero(~partition.is_master)
        self.single = comm.t is None
        self.need = [p for p, ids in ex.master_gather.items() if ids.size] if self.gathers else []
        # local sweeps (delta mode): their changes for peers wait in these buffers and travel,
        # added, with the next partial / values message
        self.budget = sweeps if (sweeps and s > 0 and not self.single and self.gathers) else 0
        self.pbuf: dict[int, np.ndarray] = {}
        self.vbuf: dict[int, list[np.ndarray]] = {}
        self.adds = st.adds
        self.nsweep, self.total_sweeps = 0, 0

    def gather_all(self) -> None:
        """The local gather of every vertex; delta mirrors cleared once read."""
        self.eng.gather(self.act, everyone=True)
        for col in self.clear:
            col[self.mirror_rows] = 0.0

    def sweep(self) -> None:
        """One local gather and apply between exchanges; every change still counted once."""
        eng, ex, st, pbuf, vbuf = self.eng, self.ex, self.st, self.pbuf, self.vbuf
        self.gather_all()
        for q, ids in ex.mirror_gather.items():
            if ids.size:
                pbuf[q] = eng.acc[ids] + pbuf[q] if q in pbuf else eng.acc[ids]
        for p in self.need:
            if p in st.partials:
                eng.combine(ex.master_gather[p], st.partials.pop(p))
        eng.apply(self.masters)
        for q in st.peers:
            rows = ex.master_lists[q]
            if rows.size:
                new = [col[rows] for col, add in zip(st.cols, self.adds) if add]
                vbuf[q] = [a + b for a, b in zip(vbuf[q], new)] if q in vbuf else new
        self.nsweep += 1

    def _ready(self, c: int) -> Callable[[], bool]:
        """The SSP rule for superstep ``c``: every peer has completed superstep ``c - 1 - s``."""
        st, s, need, budget = self.st, self.s, self.need, self.budget

        def ready() -> bool:
            if not all(st.vclock[q] >= c - 1 - s for q in st.peers):
                return False
            # with sweeps the partials of c - s are awaited here too, so that the
            # wait (and its sweeps) falls between an apply and the next gather
            return not budget or all(st.pclock[p] >= c - s or p in st.done for p in need)

        return ready

    def _gather_and_fold(self, c: int) -> tuple[float, int] | None:
        """Gather, send the mirrors' partials, wait for the peers' (``c - s``) and fold them
        in; returns the wait and the partials' lag (None: the run stops)."""
        eng, ex, st, need, pbuf = self.eng, self.ex, self.st, self.need, self.pbuf
        self.gather_all()
        for q, ids in ex.mirror_gather.items():
            if ids.size:
                st.send(q, PARTIAL, c, [eng.acc[ids] + pbuf.pop(q) if q in pbuf else eng.acc[ids]])
        lo = max(c - self.s, 0)
        w = st.wait(lambda: all(st.pclock[p] >= lo or p in st.done for p in need), c)
        if st.stop_at is not None:
            return None
        lag = max((c - st.pclock[p] for p in need), default=0)
        for p in need:
            if not st.delta:
                eng.combine(ex.master_gather[p], st.partials[p])
            elif p in st.partials:  # each delivered partial folded in once
                eng.combine(ex.master_gather[p], st.partials.pop(p))
        return w, lag

    def _send_values(self, c: int) -> None:
        """This rank's share of the aggregates and its masters' new data, to every peer."""
        ex, st, vbuf = self.ex, self.st, self.vbuf
        mine = self.eng.local_share()
        for q in st.peers:
            rows = ex.master_lists[q]
            vals = [col[rows] for col in st.cols]
            if q in vbuf:  # the sweeps' changes since the last values message, added
                extra = iter(vbuf.pop(q))
                vals = [v + next(extra) if add else v for v, add in zip(vals, self.adds)]
            st.send(q, VALUES, c, [mine, *vals])
        st.record_share(self.comm.rank, c, mine)

    def superstep(self, log: RunLog) -> bool:
        """Superstep ``log.iteration`` of this rank; False when the run stops inside it."""
        eng, st, comm, C, spec = self.eng, self.st, self.comm, self.eng.ctx, self.eng.spec
        t0 = time.perf_counter()
        c = log.iteration
        delay = straggler_delay(self.straggler, comm.rank, comm.size, c)
        if delay:
            time.sleep(delay)
        w = 0.0
        self.nsweep = 0
        if not self.single:
            w += st.wait(self._ready(c), c, self.sweep if self.budget else None, self.budget)
            if st.stop_at is not None:
                return False
        lag = max([c - 1 - st.vclock[q] for q in st.peers] + [0])  # fresh reads: never below 0
        if spec.agg_names:
            eng.set_aggregates(reduce_ranks(st.shares, st.ops))
        C["iteration"] = c
        if self.gathers:
            got = self._gather_and_fold(c)
            if got is None:
                return False
            w, lag = w + got[0], max(lag, got[1])
        else:
            eng.acc.fill(eng.zero[0])
        # masters only: a mirror's row keeps its master's last values until newer ones arrive
        eng.apply(self.masters)
        self._send_values(c)
        # the aggregates this superstep read (BSP: those at the end of the superstep before)
        aggs = {name: float(C[name][0]) for name in spec.agg_names}
        self.lag_sum, self.lag_max, self.lag_n = self.lag_sum + lag, max(self.lag_max, lag), self.lag_n + 1
        self.waited += w
        self.total_sweeps += self.nsweep
        after = {"staleness": lag, "wait_seconds": w, "sweeps": self.nsweep, "bytes_sent": st.bytes_sent}
        st.bytes_sent = 0
        log.record(t0, eng.partition.num_global_vertices, self.total_visit, aggs, after=after)
        return True

    def summary(self, clock: int) -> dict[str, Any]:
        """:attr:`SSPRunResult.ssp`, over every rank (complete on rank 0)."""
        st = self.st
        summary = np.array(
            [clock, self.lag_sum, self.lag_n, self.lag_max, self.waited, self.total_sweeps], np.float64
        )
        got = self.comm.gather([summary])
        ssp: dict[str, Any] = {"staleness": self.s, "stop_superstep": st.stop_at}
        if got is not None:
            per = np.array([a[0] for a in got])
            ssp["clocks"] = per[:, 0].astype(int).tolist()
            ssp["staleness_mean"] = float(per[:, 1].sum() / max(per[:, 2].sum(), 1))
            ssp["staleness_max"] = int(per[:, 3].max())
            ssp["wait_seconds"] = per[:, 4].round(4).tolist()
            ssp["sweeps"] = per[:, 5].astype(int).tolist()
        return ssp


def ssp_job(
    program: VertexProgram,
    staleness: int | None,
    straggler: Any,
    *,
    active: Any = None,
    checkpoint: Any = None,
    restore: Any = None,
    fresh: bool = True,
    sweeps: int = 0,
) -> dict[str, Any] | None:
    """The job note for :func:`gas.runtime.dispatch.run_part` (None: a plain BSP run), validated
    before any work.

    A straggler alone runs the ``s = 0`` loop (BSP, bit for bit) with the delay.
    ``fresh=False``: reads never from a peer's future supersteps; ``sweeps``: local sweeps while
    waiting (see :func:`run_partition_ssp`).

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> ssp_job(PageRankProgram(), 2, "1:0.5")
    {'staleness': 2, 'straggler': [1, 0.5]}
    """
    if staleness is None and straggler is None:
        return None
    check_ssp(program, 0 if staleness is None else staleness, straggler)
    what = "--staleness" if staleness is not None else "--straggler"
    if active is not None:
        raise GasError(f"{what} runs every vertex in every superstep; an initial active set is not supported")
    if checkpoint or restore:
        raise GasError(f"{what} cannot be combined with checkpoints (snapshots need a barrier)")
    strag = None if straggler is None else list(parse_straggler(straggler))
    note: dict[str, Any] = {"staleness": int(staleness or 0), "straggler": strag}
    if not fresh:
        note["fresh"] = False
    if sweeps:
        if not delta_fields(program):
            raise GasError(
                f"local sweeps need a program with delta_fields ({type(program).__name__} has none)"
            )
        note["sweeps"] = int(sweeps)
    return note
