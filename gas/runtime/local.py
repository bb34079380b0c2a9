"""Running a vertex program on several processes: spawned local workers, or a launcher's ranks.

:class:`LocalCluster` (what ``--procs N`` uses) spawns ``N - 1`` worker processes with the
``spawn`` start method (``fork`` breaks Numba's OpenMP layer); the calling process is rank 0.
They meet over loopback ZeroMQ with a random job secret, and each process gets
``cores // N`` Numba threads. A cluster runs any number of jobs: rank 0 partitions the graph
(:func:`gas.partition.partition`), sends every worker its part (edges, edge data, masters) over
the wire, and the ranks run :func:`gas.runtime.bsp.run_partition`. Kernels are compiled
(or loaded from the disk cache) by rank 0 on a tiny graph before the workers start, so workers
only load them.

Programs travel as their class's import path and their instance attributes as JSON (numbers,
strings, field-type dicts): a program must be importable by the workers (defined in a module,
not in ``__main__`` of an interactive session).

:func:`run_launched` is the same job when every rank was started by a launcher (``mpiexec``,
``srun``, torchrun-style env): each rank already holds the graph or its share of it.

Examples
--------
>>> import gas
>>> from gas.algorithms.pagerank import PageRankProgram
>>> program_from_json(program_to_json(PageRankProgram(alpha=0.5))).alpha
0.5
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import secrets
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.engine import RunResult, SyncEngine, active_mask
from gas.errors import GasError
from gas.graph import Graph
from gas.program import VertexProgram
from gas.runtime.bsp import part_of_graph
from gas.runtime.comm import Comm
from gas.runtime.protocol import DATA
from gas.runtime.ssp import run_part, ssp_job

# moved to gas.runtime.wire and gas.runtime.worker; re-exported for existing import paths
from gas.runtime.wire import (  # noqa: F401
    _dec,
    _enc,
    program_from_json,
    program_to_json,
    recv_part,
    recv_restore,
    send_part,
    send_restore,
)
from gas.runtime.worker import _threads_per_proc, _worker_main, serve  # noqa: F401

__all__ = ["LocalCluster", "run_distributed", "run_launched", "program_to_json", "program_from_json"]


def warm_kernels(program: VertexProgram, edge_columns: list[str]) -> None:
    """Compile (or load) every kernel a distributed run of ``program`` calls, on a tiny graph."""
    w = {k: np.ones(3) for k in edge_columns}
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=3, dedupe=False, edge_data=w)
    eng = SyncEngine(g, program)
    eng.run(1)
    eng.run(1, active=[0])
    SyncEngine._aggregate(eng)
    eng.combine(np.zeros(0, np.int64), np.zeros((0, *eng.spec.gather_shape), eng.spec.gather_base))


# ---------------------------------------------------------------------- local cluster
def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LocalCluster:
    """``procs`` processes on this machine: this one (rank 0) and ``procs - 1`` spawned workers.

    Use as a context manager, or call :meth:`close`. Workers are reused across :meth:`run` calls.
    """

    def __init__(self, procs: int, *, timeout: float = 120.0) -> None:
        if procs < 1:
            raise GasError(f"Expected procs >= 1 (got {procs})")
        self.procs = procs
        self.comm = Comm(None)
        self.workers: list[Any] = []
        if procs == 1:
            return
        from gas.runtime.launch import connect_world

        port = _free_port()
        secret = secrets.token_hex(16)
        ctx = mp.get_context("spawn")
        for r in range(1, procs):
            p = ctx.Process(target=_worker_main, args=(r, procs, port, secret), daemon=True)
            p.start()
            self.workers.append(p)
        env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "GAS_JOB_SECRET": secret}
        try:
            t = connect_world(0, procs, env=env, timeout=timeout, alive=self._workers_alive)
        except BaseException:
            self._kill()
            raise
        self.comm = Comm(t)

    def _workers_alive(self) -> str | None:
        """Why the spawned workers cannot join (one exited before the rendezvous), or None."""
        dead = [(r, p.exitcode) for r, p in enumerate(self.workers, 1) if p.exitcode is not None]
        if not dead:
            return None
        codes = ", ".join(f"rank {r} exited with code {c}" for r, c in dead)
        return (
            f"{codes} before joining (its error is printed above); hint: a spawned worker imports "
            "the script that started the cluster, so guard the script's top-level code with "
            "`if __name__ == '__main__':`"
        )

    def run(
        self,
        graph: Graph,
        program: VertexProgram,
        *,
        partition: str = "hdrf",
        seed: int = 0,
        max_iter: int = 100,
        active: Any = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        checkpoint: dict[str, Any] | None = None,
        assignment: Any = None,
        restore: dict[str, Any] | None = None,
        staleness: int | None = None,
        straggler: Any = None,
        edges: bool = False,
        engine: str = "sync",
        scheduler: str = "fifo",
        consistency: str | None = None,
        priority_ratio: float = 0.01,
        fresh: bool = True,
        sweeps: int = 0,
        max_work: int | None = None,
    ) -> RunResult:
        """Partition ``graph``, run ``program`` on every rank; the whole result (rank 0).

        ``staleness``/``straggler``/``fresh``/``sweeps``: bounded staleness (see
        :mod:`gas.runtime.ssp`; ``fresh=False`` never reads a peer's future supersteps; ``sweeps``:
        local sweeps while waiting, delta programs only).
        ``restore``: global vertex and edge arrays to start from instead of ``init`` (a snapshot,
        or :func:`run_distributed`'s ``initial``). ``edges``: also return the program's edge fields.
        ``engine="async"``: the asynchronous engine by chromatic steps
        (:mod:`gas.runtime.async_dist`) with ``scheduler`` and ``consistency``; ``max_work``
        its budget by work (edges visited plus vertex updates over every rank).
        """
        from gas.partition import partition as make_partition

        ssp = ssp_job(
            program,
            staleness,
            straggler,
            active=active,
            checkpoint=checkpoint,
            restore=restore,
            fresh=fresh,
            sweeps=sweeps,
        )
        color = _async_job(graph, program, engine, scheduler, consistency, ssp)
        P = self.procs
        if assignment is None:
            assignment = make_partition(graph, partition, num_parts=P, seed=seed)
        elif assignment.num_parts != P:
            raise GasError(f"Expected an assignment of {P} parts (got {assignment.num_parts})")
        act = None if active is None else np.flatnonzero(active_mask(active, graph.num_vertices))
        if P > 1:
            warm_kernels(program, sorted(graph.edata))
            t = self.comm.t
            assert t is not None
            job = {
                "op": "run",
                "program": program_to_json(program),
                "max_iter": int(max_iter),
                "max_work": None if max_work is None else int(max_work),
                "active": None if act is None else act.tolist(),
                "checkpoint": checkpoint,
                "ssp": ssp,
                "edges": bool(edges),
                "async": None
                if color is None
                else {"scheduler": scheduler, "priority_ratio": priority_ratio},
                "restore": None
                if restore is None
                else {
                    "step": int(restore["step"]),
                    "done": bool(restore.get("done")),
                    "init": bool(restore.get("init")),
                    "vertex": sorted(restore["vertex"]),
                    "edges": sorted(restore["edges"]),
                },
            }
            self.comm.bcast_meta(job)
            for r in range(1, P):
                send_part(t, r, part_of_graph(graph, assignment.master, assignment.edge_part, r))
                if color is not None:
                    t.send(r, DATA, 0, [color])
                if restore is not None:
                    send_restore(t, r, restore)
        part0 = part_of_graph(graph, assignment.master, assignment.edge_part, 0)
        try:
            return run_part(
                ssp,
                part0,
                program,
                self.comm,
                color=color,
                scheduler=scheduler,
                priority_ratio=priority_ratio,
                max_iter=max_iter,
                active=act,
                threads=_threads_per_proc(P),
                progress=progress,
                checkpoint=checkpoint,
                restore=restore,
                edges=edges,
                max_work=max_work,
            )
        except BaseException:
            self._kill()
            raise

    def _kill(self) -> None:
        if self.comm.t is not None:
            self.comm.t.close()
            self.comm = Comm(None)
        for p in self.workers:
            if p.is_alive():
                p.kill()
            p.join(5)
        self.workers = []

    def close(self) -> None:
        """Stop the workers (a clean goodbye; killed if they do not answer)."""
        if self.comm.t is not None:
            try:
                self.comm.bcast_meta({"op": "stop"})
                self.comm.t.shutdown(timeout=30)
            except GasError:
                pass
            self.comm = Comm(None)
        for p in self.workers:
            p.join(10)
        self._kill()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _check_job(
    graph: Graph,
    program: VertexProgram,
    engine: str,
    scheduler: str,
    consistency: str | None,
    ssp: Any,
) -> str | None:
    """Refuse what the process runtime does not run; the asynchronous engine's consistency model
    (None for the sync engine)."""
    from gas.program_spec import overridden as _overridden

    model = None
    if engine == "async":
        if ssp:
            raise GasError(
                "The asynchronous engine has no supersteps to bound: --staleness/--straggler apply "
                "to the synchronous engine (drop --engine async)"
            )
        from gas.runtime.async_dist import check_async

        model = check_async(program, graph, scheduler, consistency)
    elif engine != "sync":
        raise GasError(f"Unknown engine {engine!r}; known: sync, async")
    if isinstance(program, VertexProgram) and _overridden(program, "priority") is not None:
        raise GasError(
            f"{type(program).__name__} schedules vertices through priority(v), which the process "
            "runtime does not read (its workers schedule by signals): run it on one process, or "
            "signal from scatter instead"
        )
    return model


def _async_job(
    graph: Graph,
    program: VertexProgram,
    engine: str,
    scheduler: str,
    consistency: str | None,
    ssp: Any,
) -> np.ndarray | None:
    """The colouring that schedules an asynchronous run (None for the sync engine), after
    refusing what the process runtime does not run (:func:`_check_job`)."""
    model = _check_job(graph, program, engine, scheduler, consistency, ssp)
    if model is None:
        return None
    from gas.runtime.async_dist import async_groups

    return async_groups(graph, model)


def run_distributed(
    graph: Graph,
    program: VertexProgram,
    procs: int = 2,
    partition: str = "hdrf",
    *,
    seed: int = 0,
    max_iter: int = 100,
    active: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    checkpoint: dict[str, Any] | None = None,
    cluster: LocalCluster | None = None,
    staleness: int | None = None,
    straggler: Any = None,
    initial: dict[str, dict[str, np.ndarray]] | None = None,
    edges: bool = False,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
    priority_ratio: float = 0.01,
    max_work: int | None = None,
) -> RunResult:
    """Run ``program`` on ``graph`` split over ``procs`` local processes (see the module docstring).

    Parameters
    ----------
    graph : Graph
    program : VertexProgram
        Any program whose class is importable by a fresh process.
    procs : int, default 2
    partition : str, default "hdrf"
        A :func:`gas.partition.available_methods` name.
    seed, max_iter, active, progress
        As in :func:`gas.partition.partition` and :meth:`gas.SyncEngine.run`.
    checkpoint : dict, optional
        ``{"dir": D, "every": K}``: snapshot every K supersteps (see :mod:`gas.runtime.checkpoint`).
    cluster : LocalCluster, optional
        Reuse running workers (``procs`` is then the cluster's).
    staleness : int, optional
        Bounded staleness ``s >= 0`` (SSP, :mod:`gas.runtime.ssp`): the fastest worker runs at
        most ``s`` supersteps ahead of the slowest; 0 is BSP. Static programs only.
    straggler : (int, float) or str, optional
        ``(rank, seconds)`` or ``"RANK:SECONDS"``: delay added to each superstep of that rank.
    initial : dict, optional
        ``{"vertex": {field: array}, "edges": {field: array}}``: starting values by internal
        vertex id and by edge id (``graph``'s order), e.g. a random start drawn by the caller.
        Written before the program's ``init`` runs, as on one process when the caller fills
        ``engine.columns`` before ``run`` (``init`` may set other fields, or overwrite these).
    edges : bool, default False
        Also return the program's edge fields (``RunResult.edge_data``, by edge id).
    engine : {"sync", "async"}, default "sync"
        ``"async"``: the asynchronous engine across processes by chromatic steps
        (:mod:`gas.runtime.async_dist`; ``max_iter`` counts rounds).
    scheduler : {"fifo", "priority", "sweep"}, default "fifo"
    consistency : {"vertex", "edge"}, optional
        For ``engine="async"`` (default: the weakest model the program is safe under).
    priority_ratio : float, default 0.01
        ``scheduler="priority"``: a round runs the scheduled vertices whose priority is at least
        this share of the highest (as :class:`gas.AsyncEngine`'s).
    max_work : int, optional
        ``engine="async"``: stop once the edges visited plus the vertex updates, over every
        rank, reach this (:func:`gas.async_engine.superstep_work` is one superstep's worth).

    Returns
    -------
    RunResult
        As one process would return it: every vertex's data, per-superstep statistics of rank 0
        (with ``exchange_seconds`` and ``bytes_sent``). A run that stops at ``max_iter`` (or
        ``max_work``) returns ``converged=False`` rather than raising, as
        :meth:`gas.SyncEngine.run` does; the bundled algorithms and the ``gas`` command turn it
        into a :class:`gas.ConvergenceError` (exit status 3).
    """
    # what cannot run is refused before any worker is spawned
    _check_job(graph, program, engine, scheduler, consistency, staleness is not None or straggler is not None)
    restore = None
    if initial is not None:
        restore = _initial_state(graph, program, initial, active)
        active = None
    workers = contextlib.nullcontext(cluster) if cluster is not None else LocalCluster(procs)
    with workers as c:
        return c.run(
            graph,
            program,
            partition=partition,
            seed=seed,
            max_iter=max_iter,
            active=active,
            progress=progress,
            checkpoint=checkpoint,
            staleness=staleness,
            straggler=straggler,
            restore=restore,
            edges=edges,
            engine=engine,
            scheduler=scheduler,
            consistency=consistency,
            priority_ratio=priority_ratio,
            max_work=max_work,
        )


def _initial_state(
    graph: Graph, program: VertexProgram, initial: dict[str, dict[str, np.ndarray]], active: Any
) -> dict[str, Any]:
    """``initial`` checked against the program's fields, as a step-0 snapshot (the restore form)."""
    unknown = set(initial) - {"vertex", "edges"}
    if unknown:
        raise GasError(
            f"Expected initial = {{'vertex': {{...}}, 'edges': {{...}}}} (got keys {sorted(unknown)})"
        )
    vfields, efields = set(program.vertex_data), set(program.edge_data)
    out: dict[str, Any] = {"step": 0, "done": False, "init": True, "vertex": {}, "edges": {}}
    for kind, names, size in (("vertex", vfields, graph.num_vertices), ("edges", efields, graph.num_edges)):
        for k, vals in initial.get(kind, {}).items():
            if k not in names:
                raise GasError(
                    f"initial {kind} field {k!r} is not one of "
                    f"{program.__class__.__name__}'s: {sorted(names)}"
                )
            a = np.ascontiguousarray(vals)
            if a.shape[:1] != (size,):
                raise GasError(f"initial {kind} field {k!r} has {a.shape[:1]} rows (expected {size})")
            out[kind][k] = a
    n = graph.num_vertices
    out["active"] = np.ones(n, bool) if active is None else active_mask(active, n).view(np.bool_)
    return out


def run_launched(
    graph: Graph,
    program: VertexProgram,
    comm: Comm,
    *,
    partition: str = "hdrf",
    seed: int = 0,
    max_iter: int = 100,
    active: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    checkpoint: dict[str, Any] | None = None,
    staleness: int | None = None,
    straggler: Any = None,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
    priority_ratio: float = 0.01,
    max_work: int | None = None,
) -> RunResult:
    """Every rank of a launcher-started job holds ``graph``; each runs its part (same seed).

    Returns the whole result on rank 0, and the rank's local view on the others (its
    ``converged`` is the job's: every rank decides it on the same reduced values).
    ``engine="async"`` and ``max_work``: as in :func:`run_distributed` (every rank computes the
    same colouring).
    """
    from gas.partition import partition as make_partition

    ssp = ssp_job(program, staleness, straggler, active=active, checkpoint=checkpoint)
    color = _async_job(graph, program, engine, scheduler, consistency, ssp)
    t0 = time.perf_counter()
    a = make_partition(graph, partition, num_parts=comm.size, seed=seed)
    part = part_of_graph(graph, a.master, a.edge_part, comm.rank)
    if progress is not None and comm.rank == 0:
        print(
            f"partitioned ({partition}, {comm.size} parts) in {time.perf_counter() - t0:.2f} s",
            file=sys.stderr,
        )
    res = run_part(
        ssp,
        part,
        program,
        comm,
        color=color,
        scheduler=scheduler,
        priority_ratio=priority_ratio,
        max_iter=max_iter,
        active=active,
        threads=None,
        progress=progress if comm.rank == 0 else None,
        checkpoint=checkpoint,
        max_work=max_work,
    )
    return res
