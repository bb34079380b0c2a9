"""The network exchange of a synchronous superstep, and the engine that runs one partition.

Layout of a worker (rank ``p``): only the edges of part ``p`` are stored, and only the vertices
they need. A vertex is *local* if it has an edge here or is mastered here; a local vertex
mastered elsewhere is a *mirror* (with an edge-cut assignment these are the ghosts). Local
vertices are renumbered ``0..n_local-1`` (:func:`build_partition`); :attr:`Partition.global_ids`
maps them back. Degrees and ``ctx`` are the whole graph's. Three numberings:

* ``masters_first``: masters, then the mirrors grouped by master rank (each group in global id
  order, so the rows a peer syncs are one slice, received in place). Used when the order of
  visits cannot matter (:func:`order_free`, e.g. PageRank).
* ``sorted``: global id order, so a worker visits its vertices in the order one process would
  (programs that write neighbours from gather, like SGD, rely on it).
* ``global``: every global vertex, local id = global id, for programs that read ``v.vid`` (the
  local index in the kernels).

Apply and the aggregates run on masters only, so mirrors receive from their masters only the
fields that ``gather``, ``sum`` and ``scatter`` read (:func:`mirror_fields`); a mirror's other
fields are never read.

Setup (once): every rank sends each master rank the sorted global ids of its mirrors of that
rank's vertices, flagging those with local gather edges. Both sides then hold the same ordered
lists, so supersteps send values only, never ids. Every list is filtered by the active set,
which is identical on all replicas (signals are reduced), so both sides agree on the subset.

One superstep, in the order :class:`gas.engine.SyncEngine` calls the :class:`gas.exchange_protocol.Exchange`:

1. ``reduce_gather``: mirrors with local gather edges send their partial totals to the master,
   which folds them in with the program's ``sum`` (:meth:`SyncEngine.combine`), peers in rank
   order (deterministic).
2. apply runs on masters.
3. ``sync_vertices``: masters send the new data of their *active* vertices (the only ones apply
   changed) to their mirrors, the fields mirrors read only.
4. ``reduce_signals``: mirrors send their signal bits to the master, which ORs them and sends
   the result back, so every replica has the same next active set.
5. ``allreduce``: aggregates summed / maxed / minned over masters, in rank order.

Examples
--------
>>> import threading, numpy as np, gas
>>> from gas.runtime.transport import InProcHub
>>> from gas.algorithms.pagerank import PageRankProgram
>>> g = gas.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 1])
>>> hub = InProcHub(2)
>>> parts = [part_of_graph(g, np.array([0, 1, 0]), g.src % 2, r) for r in range(2)]
>>> out = [None, None]
>>> def work(r):
...     out[r] = run_partition(parts[r], PageRankProgram(), Comm(hub.transport(r)), max_iter=50)
>>> ts = [threading.Thread(target=work, args=(r,)) for r in range(2)]
>>> for t in ts: t.start()
>>> for t in ts: t.join()
>>> bool(np.allclose(out[0].output, gas.algorithms.pagerank(g)))
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.config import CONFIG
from gas.engine import RunResult, SyncEngine, active_mask
from gas.errors import GasError
from gas.local_part import Partition
from gas.program import EdgeDir, VertexProgram
from gas.runtime.comm import Comm
from gas.runtime.program_analysis import layout_for, mirror_fields, order_free, reads_vid
from gas.runtime.protocol import DATA
from gas.runtime.worker_graph import WorkerPart, build_partition, part_of_graph

__all__ = [
    "WorkerPart",
    "part_of_graph",
    "build_partition",
    "mirror_fields",
    "reads_vid",
    "order_free",
    "layout_for",
    "NetworkExchange",
    "DistEngine",
    "run_partition",
    "collect_masters",
    "collect_edges",
    "restore_into",
    "snapshot",
    "part_engine",
    "local_active",
]


def _as_slice(ids: np.ndarray) -> slice | None:
    """``ids`` as a slice if they are consecutive increasing integers, else None."""
    if ids.size == 0:
        return slice(0, 0)
    lo = int(ids[0])
    if int(ids[-1]) - lo + 1 != ids.size or (ids.size > 1 and not bool(np.all(np.diff(ids) == 1))):
        return None
    return slice(lo, lo + ids.size)


class NetworkExchange:
    """The :class:`gas.exchange_protocol.Exchange` of one rank over a :class:`Comm` (module docstring).

    Attributes
    ----------
    bytes_sent : int
        Payload bytes this rank sent in supersteps (setup excluded).
    seconds : float
        Time spent inside exchange steps (waiting included).
    """

    def __init__(
        self,
        comm: Comm,
        partition: Partition,
        owner: np.ndarray,
        gathers: np.ndarray,
        sync_names: list[str],
    ) -> None:
        self.comm = comm
        self.owner = owner
        self.t = comm.t
        self.rank = comm.rank
        self.engine: SyncEngine | None = None
        self.sync_names = sync_names
        self.bytes_sent = 0
        self.seconds = 0.0
        self.step = 0
        self.pending_active: np.ndarray | None = None
        self.partition = partition
        g = partition.graph
        master = partition.is_master
        self.is_master = master
        self.master_ids = np.flatnonzero(master)
        self.master_gids = partition.global_ids[self.master_ids]
        # runs of consecutive masters: chunk boundaries for aggregates over masters only
        m8 = np.concatenate([[0], master.view(np.uint8), [0]]).astype(np.int8)
        d = np.diff(m8)
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        self.master_runs = np.stack([starts, ends], 1).reshape(-1).astype(np.int64)
        local = (g.out_degree + g.in_degree) > 0
        self._setup(local, gathers)

    def _setup(self, local: np.ndarray, gathers: np.ndarray) -> None:
        P, me = self.comm.size, self.rank
        gids = self.partition.global_ids
        mirrors = np.flatnonzero(local & ~self.is_master)
        mowner = self.owner[gids[mirrors]]
        # mirror_lists[q]: my mirrors mastered by q, in local order (the order of q's layout
        # when compacted, see build_partition); mirror_gather[q]: those with local gather edges
        self.mirror_lists: dict[int, np.ndarray] = {}
        self.mirror_gather: dict[int, np.ndarray] = {}
        for q in range(P):
            if q != me:
                ids = mirrors[mowner == q]
                self.mirror_lists[q] = ids
                self.mirror_gather[q] = ids[gathers[ids]]
        tag = self.comm._tag()
        if self.t is not None:
            for q in self.comm.peers():
                self.t.send(q, DATA, tag, [gids[self.mirror_lists[q]], gids[self.mirror_gather[q]]])
        # master_lists[p]: my masters mirrored on p, in p's order; master_gather[p]: those p gathers
        self.master_lists: dict[int, np.ndarray] = {}
        self.master_gather: dict[int, np.ndarray] = {}
        if self.t is not None:
            owner = self.owner
            for p in self.comm.peers():
                a, b = self.t.recv(p, DATA, tag).arrays
                for ids in (a, b):
                    if ids.size and (
                        ids.min() < 0 or ids.max() >= owner.shape[0] or np.any(owner[ids] != me)
                    ):
                        raise GasError(f"rank {p} claims mirrors of vertices that rank {me} does not master")
                self.master_lists[p] = self.partition.local_ids(a)
                self.master_gather[p] = self.partition.local_ids(b)
        # the same lists as slices where they are runs of consecutive local ids (None otherwise):
        # those rows are copied or received in one piece
        self.slices = {
            name: {r: _as_slice(ids) for r, ids in lists.items()}
            for name, lists in (
                ("mirror_lists", self.mirror_lists),
                ("mirror_gather", self.mirror_gather),
                ("master_lists", self.master_lists),
            )
        }

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _active(ids: np.ndarray, active: np.ndarray, everyone: bool) -> np.ndarray:
        return ids if everyone else ids[active[ids] != 0]

    def _take(
        self, col: np.ndarray, name: str, r: int, ids: np.ndarray, active: np.ndarray, everyone: bool
    ) -> np.ndarray:
        """A fresh copy of ``col``'s rows of list ``name`` for rank ``r`` (active ones only)."""
        sl = self.slices[name][r] if everyone else None
        return col[sl].copy() if sl is not None else col[self._active(ids, active, everyone)]

    def _send(self, dst: int, arrays: list[np.ndarray]) -> None:
        assert self.t is not None
        self.bytes_sent += self.t.send(dst, DATA, self.step, arrays)

    # ------------------------------------------------------------------ Exchange protocol
    def reduce_gather(self, acc: np.ndarray, active: np.ndarray, combine_op: int) -> None:
        if self.t is None:
            return
        t0 = time.perf_counter()
        self.step += 1
        everyone = bool(active.all())
        for q, ids in self.mirror_gather.items():
            if ids.size:
                self._send(q, [self._take(acc, "mirror_gather", q, ids, active, everyone)])
        assert self.engine is not None
        for p, ids in self.master_gather.items():
            if ids.size:
                rows = self._active(ids, active, everyone)
                incoming = self.t.recv(p, DATA, self.step).arrays[0]
                if rows.size:
                    self.engine.combine(rows, incoming)
        self.seconds += time.perf_counter() - t0

    def sync_vertices(self, vdata: Any, active: np.ndarray) -> None:
        if self.t is None:
            return
        t0 = time.perf_counter()
        self.step += 1
        assert self.engine is not None
        if not self.sync_names:  # mirrors read no vertex field (both sides know it)
            return
        cols = [self.engine.columns[k] for k in self.sync_names]
        everyone = bool(active.all())
        for p, ids in self.master_lists.items():
            if ids.size:
                self._send(p, [self._take(c, "master_lists", p, ids, active, everyone) for c in cols])
        for q, ids in self.mirror_lists.items():
            if ids.size:
                sl = self.slices["mirror_lists"][q]
                if everyone and sl is not None:  # straight into the mirrors' rows
                    self.t.recv(q, DATA, self.step, into=[c[sl] for c in cols])
                    continue
                rows = self._active(ids, active, everyone)
                got = self.t.recv(q, DATA, self.step).arrays
                for c, vals in zip(cols, got):
                    c[rows] = vals
        self.seconds += time.perf_counter() - t0

    def reduce_signals(self, signal: np.ndarray, prio: np.ndarray | None = None) -> None:
        """OR every replica's signals at the master and send the result back to the mirrors;
        with ``prio``, the signals' priorities travel along and the master keeps the largest."""
        if self.t is not None:
            t0 = time.perf_counter()
            self.step += 1
            for q, ids in self.mirror_lists.items():
                if ids.size:
                    self._send(q, [signal[ids]] if prio is None else [signal[ids], prio[ids]])
            for p, ids in self.master_lists.items():
                if ids.size:
                    got = self.t.recv(p, DATA, self.step).arrays
                    signal[ids] |= got[0]
                    if prio is not None:
                        prio[ids] = np.maximum(prio[ids], got[1])
            self.step += 1
            for p, ids in self.master_lists.items():
                if ids.size:
                    self._send(p, [signal[ids]] if prio is None else [signal[ids], prio[ids]])
            for q, ids in self.mirror_lists.items():
                if ids.size:
                    got = self.t.recv(q, DATA, self.step).arrays
                    signal[ids] = got[0]
                    if prio is not None:
                        prio[ids] = got[1]
            self.seconds += time.perf_counter() - t0
        self.pending_active = signal

    def allreduce(self, values: np.ndarray, ops: tuple[int, ...]) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.comm.allreduce(np.asarray(values, np.float64), tuple(ops))
        self.seconds += time.perf_counter() - t0
        return out

    def allreduce_count(self, count: int) -> int:
        """Active masters over all ranks (the engine's local count includes mirrors)."""
        if count and self.pending_active is not None:
            count = int(np.count_nonzero(self.pending_active[self.master_ids]))
        elif count:
            count = int(self.master_ids.shape[0])
        self.pending_active = None
        t0 = time.perf_counter()
        out = int(self.comm.allreduce(np.array([count], np.int64))[0])
        self.seconds += time.perf_counter() - t0
        return out


class DistEngine(SyncEngine):
    """:class:`SyncEngine` on one part: global degrees; apply and aggregates on masters only.

    ``apply_chunks`` are the vertex ranges apply runs over: even splits of the masters when they
    come first (``"masters_first"`` layout), else the runs of consecutive masters with the
    ranges between them (whose results are never read); ``master_chunk`` selects the chunks of
    masters, whose partial aggregates make this rank's share.
    """

    def __init__(
        self,
        partition: Partition,
        program: VertexProgram,
        comm: Comm,
        out_degree: np.ndarray,
        in_degree: np.ndarray,
        master: np.ndarray,
        threads: int | None = None,
    ) -> None:
        super().__init__(partition, program, threads=threads)
        for name, deg in (("out_degree", out_degree), ("in_degree", in_degree)):
            if name in self.columns:
                self.columns[name][:] = deg
        gdir = EdgeDir(program.gather_edges)
        fields = [k for k, _ in self.spec.vertex_columns if k not in self.spec.builtin_columns]
        sync = mirror_fields(program, fields)
        gathers = (
            self._gather_deg > 0 if gdir != EdgeDir.NONE else np.zeros(partition.graph.num_vertices, bool)
        )
        ex = NetworkExchange(comm, partition, master, gathers, sync)
        ex.engine = self
        self.exchange = ex
        nm = ex.master_ids.shape[0]
        if nm == 0 or int(ex.master_ids[-1]) == nm - 1:  # masters are 0..nm-1
            parts = max(1, min(nm, self._nthreads * CONFIG["chunks_per_thread"]))
            self.apply_chunks = (np.arange(parts + 1, dtype=np.int64) * nm) // parts
            self.master_chunk = slice(None)
        else:
            self.apply_chunks = ex.master_runs
            self.master_chunk = slice(0, None, 2)  # chunk 2i: the i-th run of masters

    def local_share(self, part: np.ndarray | None = None) -> np.ndarray:
        """This rank's share of the aggregates (over its masters), from the per-chunk partials
        ``part`` of ``apply_chunks`` (computed here when None)."""
        spec = self.spec
        vals = np.zeros(len(spec.agg_names), np.float64)
        for j, op in enumerate(spec.agg_ops):
            vals[j] = 0.0 if op == 0 else (-np.inf if op == 1 else np.inf)
        ch = self.apply_chunks
        if ch.shape[0] > 1 and spec.agg_names:
            if part is None:
                part = np.empty((ch.shape[0] - 1, len(spec.agg_names)), np.float64)
                self.k.k_aggregate(ch, self.VC, self.EC, self.params, part)
            mine = part[self.master_chunk]
            for j, op in enumerate(spec.agg_ops):
                col = mine[:, j]
                vals[j] = col.sum() if op == 0 else (col.max() if op == 1 else col.min())
        return vals

    def _aggregate(self, part: np.ndarray | None = None) -> dict[str, float]:
        spec = self.spec
        if not spec.agg_names:
            return {}
        ex: NetworkExchange = self.exchange  # type: ignore[assignment]
        vals = ex.allreduce(self.local_share(part), spec.agg_ops)
        res = {}
        for j, name in enumerate(spec.agg_names):
            self.ctx[name] = vals[j]
            res[name] = float(vals[j])
        return res


def part_engine(
    part: WorkerPart, program: VertexProgram, comm: Comm, threads: int | None = None
) -> tuple[DistEngine, np.ndarray]:
    """The engine of this rank's part (numbered by :func:`layout_for`) and the global edge id of
    each local edge: what every runner of a part starts from."""
    partition, outd, ind, eid = build_partition(
        part, comm, layout=layout_for(program), gather_edges=program.gather_edges
    )
    return DistEngine(partition, program, comm, outd, ind, part.master, threads=threads), eid


def local_active(active: Any, eng: DistEngine, num_vertices: int) -> np.ndarray:
    """``active`` (global ids or a global boolean mask) as a boolean mask of this part's vertices."""
    return active_mask(active, num_vertices).view(np.bool_)[eng.partition.global_ids]


def collect_masters(res: RunResult, eng: DistEngine, comm: Comm, num_vertices: int) -> RunResult:
    """On rank 0, make ``res`` hold every vertex's final data by global id (the masters' rows,
    gathered from all ranks); other ranks keep their local view. Returns ``res``."""
    ex: NetworkExchange = eng.exchange  # type: ignore[assignment]
    ids = ex.master_ids
    names = list(res.vertex_data.dtype.names or ())
    got = comm.gather([ex.master_gids, *[res.vertex_data[k][ids] for k in names]])
    if got is not None:
        vdata = np.zeros(num_vertices, res.vertex_data.dtype)
        for arrays in got:
            rows = arrays[0]
            for k, vals in zip(names, arrays[1:]):
                vdata[k][rows] = vals
        res.vertex_data = vdata
        res.output = vdata[eng.spec.output].copy()
    return res


def run_partition(
    part: WorkerPart,
    program: VertexProgram,
    comm: Comm,
    *,
    max_iter: int = 100,
    active: Any = None,
    threads: int | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    checkpoint: dict[str, Any] | None = None,
    restore: dict[str, Any] | None = None,
    edges: bool = False,
) -> RunResult:
    """Run ``program`` on this rank's part; rank 0 returns the whole graph's result.

    ``checkpoint = {"dir": D, "every": K, "meta": {...}}`` snapshots every K supersteps (see
    :mod:`gas.runtime.checkpoint`); ``restore = {"step", "vertex", "active", "edges"}`` (global
    arrays from :func:`gas.runtime.checkpoint.load`) continues a snapshot instead of ``init``
    (with ``"init": True``, the arrays are a starting state and ``init`` still runs after them).

    The returned :class:`RunResult` on rank 0 holds every vertex's final data (masters' rows
    gathered from all ranks); other ranks return their local view. ``stats`` gain
    ``exchange_seconds`` and ``bytes_sent`` (this rank's). ``edges=True``: rank 0's result also
    holds the program's edge fields by global edge id (``RunResult.edge_data``).
    """
    t_setup = time.perf_counter()
    eng, eid = part_engine(part, program, comm, threads)
    ex: NetworkExchange = eng.exchange  # type: ignore[assignment]
    n = part.num_vertices
    gids = eng.partition.global_ids
    first = 0
    if restore is not None:
        first = restore_into(eng, restore, gids, eid)
        active = restore["active"]
        if restore.get("done"):
            max_iter = first
    if active is not None:
        active = local_active(active, eng, n)
        ex.pending_active = active.astype(np.uint8)
    setup = time.perf_counter() - t_setup
    last = [0.0, 0]

    every = int(checkpoint["every"]) if checkpoint else 0

    def track(stat: dict[str, Any]) -> None:
        stat["exchange_seconds"] = ex.seconds - last[0]
        stat["bytes_sent"] = ex.bytes_sent - last[1]
        last[0], last[1] = ex.seconds, ex.bytes_sent
        if progress is not None:
            progress(stat)
        step = stat["iteration"] + 1
        if every and step % every == 0 and step < max_iter:
            snapshot(checkpoint, step, part, eng, ex, eid, comm, stat)

    res = eng.run(
        max_iter,
        active=active,
        progress=track,
        first_iteration=first,
        init=restore is None or bool(restore.get("init")),
    )
    res.stats and res.stats[0].setdefault("setup_seconds", setup)
    collect_masters(res, eng, comm, n)
    if edges:
        collect_edges(res, eng, eid, comm, part.num_edges)
    return res


def restore_into(eng: DistEngine, restore: dict[str, Any], gids: np.ndarray, eid: np.ndarray) -> int:
    """Copy a snapshot's (or a caller's starting state's) global arrays into this rank's columns:
    vertex rows by global id ``gids``, edge rows by global edge id ``eid``; returns its step."""
    for k, vals in restore["vertex"].items():
        if k in eng.columns and k not in eng.spec.builtin_columns:
            eng.columns[k][:] = vals[gids]
    for k, vals in restore["edges"].items():
        if k in eng.edge_columns:
            eng.edge_columns[k][:] = vals[eid]
    return int(restore["step"])


def collect_edges(res: RunResult, eng: DistEngine, eid: np.ndarray, comm: Comm, num_edges: int) -> None:
    """Gather the program's edge fields on rank 0 into ``res.edge_data`` (by global edge id)."""
    names_e = sorted(k for k in eng.edge_columns if k not in eng.spec.graph_edge_fields)
    got_e = comm.gather([eid, *[eng.edge_columns[k] for k in names_e]])
    if got_e is not None:
        for j, k in enumerate(names_e):
            col = eng.edge_columns[k]
            out = np.zeros((num_edges, *col.shape[1:]), col.dtype)
            for arrays in got_e:
                out[arrays[0]] = arrays[1 + j]
            res.edge_data[k] = out


def snapshot(
    cfg: dict[str, Any],
    step: int,
    part: WorkerPart,
    eng: DistEngine,
    ex: NetworkExchange,
    eid: np.ndarray,
    comm: Comm,
    stat: dict[str, Any],
    nxt: np.ndarray | None = None,
    extra: dict[str, np.ndarray] | None = None,
) -> None:
    """Write this rank's share of the snapshot after superstep (or round) ``step - 1``, when all
    replicas agree; ``nxt`` flags the masters scheduled next (default: the sync engine's);
    ``extra`` are more per-vertex arrays (local ids) saved with the masters' rows."""
    from gas.runtime import checkpoint as ck

    ids = ex.master_ids
    spec = eng.spec
    prog = eng.program
    if nxt is not None:
        nxt = np.asarray(nxt, np.uint8)
    elif not prog.dynamic:
        nxt = np.ones(ids.shape[0], np.uint8)
    elif ex.pending_active is not None:
        nxt = ex.pending_active[ids]
    else:
        nxt = np.zeros(ids.shape[0], np.uint8)
    vcols = {k: eng.columns[k][ids] for k, _ in spec.vertex_columns if k not in spec.builtin_columns}
    vcols.update({k: v[ids] for k, v in (extra or {}).items()})
    ecols = {k: v for k, v in eng.edge_columns.items() if k not in spec.graph_edge_fields}
    ck.save_rank(cfg["dir"], step, comm.rank, ex.master_gids, vcols, nxt, eid, ecols)
    conv = getattr(prog, "converged", None)
    done = bool(conv(eng.ctx.view(np.recarray)[0])) if conv is not None else False
    done = done or not bool(int(comm.allreduce(np.array([int(nxt.any())], np.int64))[0]))
    comm.barrier()
    if comm.rank == 0:
        manifest = {
            "ranks": comm.size,
            "num_vertices": part.num_vertices,
            "num_edges": part.num_edges,
            "done": done,
            "aggregates": {k: float(stat[k]) for k in spec.agg_names if k in stat},
            "meta": cfg.get("meta", {}),
        }
        ck.write_manifest(cfg["dir"], step, manifest)
