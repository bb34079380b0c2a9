"""The bulk-synchronous driver of one rank's part, and what every driver of a part shares.

:func:`run_partition` runs :class:`gas.runtime.dist_engine.DistEngine` (a
:class:`gas.SyncEngine` on one part) over a :class:`gas.runtime.network_exchange.NetworkExchange`
(that module describes a worker's layout and the messages of a superstep); the supersteps are
:meth:`gas.SyncEngine.run`'s, the statistics gain the exchange's. Shared by the three drivers
(this one, :mod:`gas.runtime.ssp` and :mod:`gas.runtime.async_dist`): :func:`collect_masters`
and :func:`collect_edges` gather the result on rank 0, :func:`restore_into` and
:func:`snapshot` read and write checkpoints. The names of the modules this one was split into
are re-exported here.

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

from gas.engine_base import Hook
from gas.engine_result import RunResult
from gas.program import NBR_DST, VertexProgram
from gas.runtime.comm import Comm
from gas.runtime.dist_engine import DistEngine, local_active, part_engine
from gas.runtime.network_exchange import NetworkExchange
from gas.runtime.program_analysis import layout_for, mirror_fields, order_free, reads_vid
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
    between: Hook | None = None,
    device: str = "cpu",
) -> RunResult:
    """Run ``program`` on this rank's part; rank 0 returns the whole graph's result.

    ``checkpoint = {"dir": D, "every": K, "meta": {...}}`` snapshots every K supersteps (see
    :mod:`gas.runtime.checkpoint`); ``restore = {"step", "vertex", "active", "edges"}`` (global
    arrays from :func:`gas.runtime.checkpoint.load`) continues a snapshot instead of ``init``
    (with ``"init": True``, the arrays are a starting state and ``init`` still runs after them).

    The returned :class:`RunResult` on rank 0 holds every vertex's final data (masters' rows
    gathered from all ranks); other ranks return their local view. ``stats`` gain
    ``exchange_seconds`` and ``bytes_sent`` (this rank's). ``edges=True``: rank 0's result also
    holds the program's edge fields by global edge id (``RunResult.edge_data``). ``between``
    is :meth:`gas.SyncEngine.run`'s hook (every rank calls it with its own engine).
    ``device="cuda"``: this rank's part runs on one GPU
    (:class:`gas.runtime.dist_cuda.DistCudaEngine`), the exchange staged through the host.
    """
    t_setup = time.perf_counter()
    eng, eid = part_engine(part, program, comm, threads, device=device)
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
    every = int(checkpoint["every"]) if checkpoint else 0

    def track(stat: dict[str, Any]) -> None:
        stat.update(ex.meter())
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
        between=between,
    )
    res.stats and res.stats[0].setdefault("setup_seconds", setup)
    collect_masters(res, eng, comm, n)
    if edges:
        collect_edges(res, eng, eid, comm, part.num_edges)
    return res


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
    names_e = sorted(k for k in eng.edge_columns if k not in eng.spec.graph_edge_fields and k != NBR_DST)
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
    eng.sync_host()
    vcols = {k: eng.columns[k][ids] for k, _ in spec.vertex_columns if k not in spec.builtin_columns}
    vcols.update({k: v[ids] for k, v in (extra or {}).items()})
    ecols = {k: v for k, v in eng.edge_columns.items() if k not in spec.graph_edge_fields and k != NBR_DST}
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
        ck.write_manifest(cfg["dir"], step, manifest, keep=int(cfg.get("keep", 2)))
