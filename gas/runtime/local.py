"""Running a vertex program on several processes: spawned local workers, or a launcher's ranks.

:class:`LocalCluster` (what ``--procs N`` uses) spawns ``N - 1`` worker processes with the
``spawn`` start method (``fork`` breaks Numba's OpenMP layer); the calling process is rank 0.
They meet over loopback ZeroMQ with a random job secret, and each process gets
``cores // N`` Numba threads. A cluster runs any number of jobs: rank 0 partitions the graph
(:func:`gas.partition.partition`), sends every worker its part (edges, edge data, masters) over
the wire, and the ranks run :func:`gas.runtime.dispatch.run_part`. Kernels are compiled
(or loaded from the disk cache) by rank 0 on a tiny graph before the workers start, so workers
only load them.

The runtime settings of a job (staleness, snapshots, a state to restore, the asynchronous
engine's scheduler, ...) are one frozen :class:`gas.options.RunOptions`; the keywords of earlier
versions (``seed=``, ``staleness=``, ``checkpoint={...}``, ``restore={...}``, ...) are still
accepted and folded into it (:func:`fold_keywords`).

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
from dataclasses import replace
from typing import Any

import numpy as np

from gas.engine import RunResult, SyncEngine, active_mask
from gas.errors import GasError
from gas.graph import Graph
from gas.inputs import active_mask_of, starting_state, vertex_inputs
from gas.options import CheckpointOptions, Restore, RunOptions, Staleness
from gas.program import VertexProgram
from gas.program_spec import ProgramSpec
from gas.runtime.bsp import part_of_graph
from gas.runtime.comm import Comm
from gas.runtime.dispatch import job_note, run_part
from gas.runtime.protocol import DATA
from gas.runtime.ssp import ssp_job

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
from gas.runtime.worker import _worker_main, serve, threads_per_proc  # noqa: F401

__all__ = [
    "LocalCluster",
    "run_distributed",
    "run_launched",
    "device_job",
    "fold_keywords",
    "program_to_json",
    "program_from_json",
]

Progress = Callable[[dict[str, Any]], None] | None


def warm_kernels(program: VertexProgram, edge_columns: list[str]) -> None:
    """Compile (or load) every kernel a distributed run of ``program`` calls, on a tiny graph."""
    w = {k: np.ones(3) for k in edge_columns}
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=3, dedupe=False, edge_data=w)
    eng = SyncEngine(g, program)
    eng.run(1)
    eng.run(1, active=[0])
    eng.aggregate()
    eng.combine(np.zeros(0, np.int64), np.zeros((0, *eng.spec.gather_shape), eng.spec.gather_base))


def fold_keywords(options: RunOptions | None, **kw: Any) -> RunOptions:
    """``options`` with the run keywords of earlier versions folded in (those not None).

    ``staleness``/``straggler``/``fresh``/``sweeps`` become a :class:`gas.options.Staleness`,
    a ``checkpoint`` dict (``{"dir", "every", "meta"}``) a :class:`gas.options.CheckpointOptions`,
    a ``restore`` dict a :class:`gas.options.Restore`; ``seed``, ``edges``, ``scheduler``,
    ``consistency``, ``priority_ratio`` and ``max_work`` are the fields of the same names.

    Examples
    --------
    >>> o = fold_keywords(None, staleness=1, checkpoint={"dir": "d", "every": 2}, seed=3)
    >>> o.staleness.staleness, o.checkpoint.every, o.seed
    (1, 2, 3)
    """
    known = {"seed", "checkpoint", "restore", "staleness", "straggler", "fresh", "sweeps", "edges"}
    known |= {"scheduler", "consistency", "priority_ratio", "max_work", "threads", "debug"}
    unknown = set(kw) - known
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) {sorted(unknown)}")
    st = [kw.pop(k, None) for k in ("staleness", "straggler", "fresh", "sweeps")]
    if st[0] is not None or st[1] is not None:
        fresh = True if st[2] is None else bool(st[2])
        kw["staleness"] = Staleness(0 if st[0] is None else st[0], st[1], fresh, st[3] or 0)
    elif st[3]:  # local sweeps are a staleness setting: refused without one, as before
        raise GasError("local sweeps (sweeps=) need bounded staleness (staleness=)")
    ck, rs = kw.get("checkpoint"), kw.get("restore")
    if isinstance(ck, dict):
        kw["checkpoint"] = CheckpointOptions.from_json(ck) if ck else None
    if isinstance(rs, dict):
        kw["restore"] = Restore.from_dict(rs)
    return (options or RunOptions()).updated(**kw)


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

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.components import ComponentsProgram
    >>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=4)
    >>> with LocalCluster(1) as c:  # one process: no workers spawned
    ...     c.run(g, ComponentsProgram()).output.tolist()
    [0, 0, 2, 2]
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
            self.kill()
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
        engine: str = "sync",
        partition: str = "hdrf",
        max_iter: int = 100,
        active: Any = None,
        progress: Progress = None,
        options: RunOptions | None = None,
        assignment: Any = None,
        init: Any = None,
        init_edges: Any = None,
        **keywords: Any,
    ) -> RunResult:
        """Partition ``graph``, run ``program`` on every rank; the whole result (rank 0).

        ``active``, ``init`` and ``init_edges`` as in :func:`gas.run` (original vertex ids, or a
        boolean mask by internal id). ``engine="async"``: the asynchronous engine by chromatic steps
        (:mod:`gas.runtime.async_dist`). ``options``: the job's settings
        (:class:`gas.options.RunOptions`: ``seed`` of the partitioner, ``staleness``,
        ``checkpoint``, ``restore`` (global arrays to start from instead of ``init``), ``edges``
        (also return the program's edge fields), the asynchronous engine's ``scheduler``,
        ``consistency``, ``priority_ratio`` and ``max_work``); the keywords of earlier versions
        are folded into it (:func:`fold_keywords`). ``assignment``: a ready partition
        (``procs`` parts) instead of partitioning with ``partition``.
        """
        engine, opts = device_job(engine, fold_keywords(options, **keywords))
        active, opts = _with_inputs(graph, program, active, init, init_edges, opts)
        st = opts.staleness
        if st is not None:  # refused before any work
            ssp_job(
                program, None if st.staleness == 0 and st.straggler is not None else st.staleness,
                st.straggler, active=active, checkpoint=opts.checkpoint, restore=opts.restore,
                fresh=st.fresh, sweeps=st.sweeps,
            )  # fmt: skip
        color = _async_job(graph, program, engine, opts)
        assignment = self._assignment(graph, partition, assignment, opts.seed)
        act = None if active is None else np.flatnonzero(active_mask(active, graph.num_vertices))
        if self.procs > 1:
            self._announce(graph, program, assignment, opts, max_iter, act, color)
        part0 = part_of_graph(graph, assignment.master, assignment.edge_part, 0)
        try:
            return run_part(
                part0, program, self.comm, max_iter=max_iter, active=act, progress=progress,
                options=replace(opts, threads=threads_per_proc(self.procs)), color=color,
            )  # fmt: skip
        except BaseException:
            self.kill()
            raise

    def _assignment(self, graph: Graph, partition: str, assignment: Any, seed: int) -> Any:
        """``assignment`` checked against the cluster's size, or ``graph`` partitioned."""
        from gas.partition import partition as make_partition

        if assignment is None:
            return make_partition(graph, partition, num_parts=self.procs, seed=seed)
        if assignment.num_parts != self.procs:
            raise GasError(f"Expected an assignment of {self.procs} parts (got {assignment.num_parts})")
        return assignment

    def _announce(
        self,
        graph: Graph,
        program: VertexProgram,
        assignment: Any,
        opts: RunOptions,
        max_iter: int,
        act: np.ndarray | None,
        color: np.ndarray | None,
    ) -> None:
        """Warm the kernels, broadcast the job, send every worker its part (and colouring, snapshot)."""
        warm_kernels(program, sorted(graph.edata))
        t = self.comm.t
        assert t is not None
        self.comm.bcast_meta(
            job_note(program, opts, max_iter=max_iter, active=act, asynchronous=color is not None)
        )
        for r in range(1, self.procs):
            send_part(t, r, part_of_graph(graph, assignment.master, assignment.edge_part, r))
            if color is not None:
                t.send(r, DATA, 0, [color])
            if opts.restore is not None:
                send_restore(t, r, opts.restore.as_dict())

    def kill(self) -> None:
        """Stop the workers at once, without a goodbye (for a job that failed midway)."""
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
        self.kill()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def device_job(engine: str, opts: RunOptions) -> tuple[str, RunOptions]:
    """``engine="cuda"`` across processes: the synchronous engine's supersteps with each rank
    on its own GPU (``RunOptions.device``); other engines unchanged.

    Examples
    --------
    >>> device_job("cuda", RunOptions())[1].device
    'cuda'
    """
    if engine != "cuda":
        return engine, opts
    if opts.staleness is not None:
        raise GasError("Bounded staleness runs on the CPU engine: drop --staleness or use --device cpu")
    return "sync", replace(opts, device="cuda")


def _check_job(graph: Graph, program: VertexProgram, engine: str, opts: RunOptions) -> str | None:
    """Refuse what the process runtime does not run; the asynchronous engine's consistency model
    (None for the sync engine)."""
    model = None
    if engine == "async":
        if opts.staleness is not None:
            raise GasError(
                "The asynchronous engine has no supersteps to bound: --staleness/--straggler apply "
                "to the synchronous engine (drop --engine async)"
            )
        from gas.runtime.async_dist import check_async

        model = check_async(program, graph, opts.scheduler, opts.consistency)
    elif engine != "sync":
        raise GasError(f"Unknown engine {engine!r}; known: sync, async")
    if isinstance(program, VertexProgram):
        program_to_json(program)  # what cannot travel to the workers (an array attribute) is refused here
    if isinstance(program, VertexProgram) and ProgramSpec.of(program).has_priority:
        raise GasError(
            f"{type(program).__name__} schedules vertices through priority(v), which the process "
            "runtime does not read (its workers schedule by signals): run it on one process, or "
            "signal from scatter instead"
        )
    return model


def _async_job(graph: Graph, program: VertexProgram, engine: str, opts: RunOptions) -> np.ndarray | None:
    """The colouring that schedules an asynchronous run (None for the sync engine), after
    refusing what the process runtime does not run (:func:`_check_job`)."""
    model = _check_job(graph, program, engine, opts)
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
    engine: str = "sync",
    max_iter: int = 100,
    active: Any = None,
    progress: Progress = None,
    options: RunOptions | None = None,
    cluster: LocalCluster | None = None,
    initial: dict[str, dict[str, np.ndarray]] | None = None,
    init: Any = None,
    init_edges: Any = None,
    **keywords: Any,
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
    engine : {"sync", "async"}, default "sync"
        ``"async"``: the asynchronous engine across processes by chromatic steps
        (:mod:`gas.runtime.async_dist`; ``max_iter`` counts rounds).
    max_iter, progress, active, init, init_edges
        As in :func:`gas.run`; with ``init``, the program's ``init`` runs here on the whole
        graph with the inputs written over it, and the ranks start from that state.
    options : RunOptions, optional
        The job's settings (:class:`gas.options.RunOptions`): the partitioner's ``seed``,
        ``staleness`` (bounded staleness, static programs only), ``checkpoint`` (snapshots, see
        :mod:`gas.runtime.checkpoint`), ``restore``, ``edges`` (also return the program's edge
        fields, ``RunResult.edge_data`` by edge id), the asynchronous engine's ``scheduler``,
        ``consistency``, ``priority_ratio`` and ``max_work``, and ``timeout``. The keywords of
        earlier versions (``seed=``, ``staleness=``, ``checkpoint={...}``, ...) are folded in
        (:func:`fold_keywords`).
    cluster : LocalCluster, optional
        Reuse running workers (``procs`` is then the cluster's).
    initial : dict, optional
        ``{"vertex": {field: array}, "edges": {field: array}}``: starting values by internal
        vertex id and by edge id (``graph``'s order), e.g. a random start drawn by the caller.
        Written before the program's ``init`` runs, as on one process when the caller fills
        ``engine.columns`` before ``run`` (``init`` may set other fields, or overwrite these).

    Returns
    -------
    RunResult
        As one process would return it: every vertex's data, per-superstep statistics of rank 0
        (with ``exchange_seconds`` and ``bytes_sent``). A run that stops at ``max_iter`` (or
        ``max_work``) returns ``converged=False`` rather than raising, as
        :meth:`gas.SyncEngine.run` does; the bundled algorithms and the ``gas`` command turn it
        into a :class:`gas.ConvergenceError` (exit status 3).

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.components import ComponentsProgram
    >>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=4)
    >>> run_distributed(g, ComponentsProgram(), procs=1).output.tolist()
    [0, 0, 2, 2]
    """
    engine, opts = device_job(engine, fold_keywords(options, **keywords))
    _check_job(graph, program, engine, opts)  # what cannot run is refused before any worker is spawned
    if initial is not None:
        opts = replace(opts, restore=initial_state(graph, program, initial, active_mask_of(graph, active)))
        active = None
    active, opts = _with_inputs(graph, program, active, init, init_edges, opts)  # ids -> mask, once
    workers = (
        contextlib.nullcontext(cluster) if cluster is not None else LocalCluster(procs, timeout=opts.timeout)
    )
    with workers as c:
        return c.run(
            graph, program, engine=engine, partition=partition, max_iter=max_iter, active=active,
            progress=progress, options=opts,
        )  # fmt: skip


def initial_state(
    graph: Graph, program: VertexProgram, initial: dict[str, dict[str, np.ndarray]], active: Any = None
) -> Restore:
    """``initial`` checked against the program's fields, as a step-0 :class:`gas.options.Restore`.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])
    >>> initial_state(g, PageRankProgram(), {"vertex": {"rank": np.ones(3)}}).to_json()
    {'step': 0, 'done': False, 'init': True, 'vertex': ['rank'], 'edges': []}
    """
    unknown = set(initial) - {"vertex", "edges"}
    if unknown:
        raise GasError(
            f"Expected initial = {{'vertex': {{...}}, 'edges': {{...}}}} (got keys {sorted(unknown)})"
        )
    vfields, efields = set(program.vertex_data), set(program.edge_data)
    out: dict[str, dict[str, np.ndarray]] = {"vertex": {}, "edges": {}}
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
    act = np.ones(n, bool) if active is None else active_mask(active, n).view(np.bool_)
    return Restore(0, out["vertex"], out["edges"], active=act, done=False, init=True)


def _with_inputs(
    graph: Graph, program: VertexProgram, active: Any, init: Any, init_edges: Any, opts: RunOptions
) -> tuple[Any, RunOptions]:
    """``active`` as a mask by internal id, and ``opts`` with the state ``init``/``init_edges``
    start from (:func:`gas.inputs.starting_state`; the active set then travels in it)."""
    active = active_mask_of(graph, active)
    if init is None and init_edges is None:
        return active, opts
    inputs = vertex_inputs(graph, program, init, init_edges)
    if not inputs:
        return active, opts
    if opts.restore is not None:
        raise GasError(
            "init= and a state to restore (options.restore, initial=) both set the start: pass one"
        )
    if opts.staleness is not None:
        raise GasError("init= is not taken by a bounded-staleness run: drop staleness, or init=")
    return None, replace(opts, restore=starting_state(graph, program, inputs, active))


def run_launched(
    graph: Graph,
    program: VertexProgram,
    comm: Comm,
    *,
    engine: str = "sync",
    partition: str = "hdrf",
    max_iter: int = 100,
    active: Any = None,
    progress: Progress = None,
    options: RunOptions | None = None,
    init: Any = None,
    init_edges: Any = None,
    **keywords: Any,
) -> RunResult:
    """Every rank of a launcher-started job holds ``graph``; each runs its part (same seed).

    ``active``, ``init`` and ``init_edges`` as in :func:`gas.run` (original vertex ids, or a
    boolean mask by internal id; every rank computes the same starting state).

    Returns the whole result on rank 0, and the rank's local view on the others (its
    ``converged`` is the job's: every rank decides it on the same reduced values).
    ``engine`` and ``options``: as in :func:`run_distributed` (every rank computes the same
    colouring); the keywords of earlier versions are folded into ``options``.
    """
    from gas.partition import partition as make_partition

    engine, opts = device_job(engine, fold_keywords(options, **keywords))
    active, opts = _with_inputs(graph, program, active, init, init_edges, opts)
    st = opts.staleness
    if st is not None:
        ssp_job(
            program, None if st.staleness == 0 and st.straggler is not None else st.staleness,
            st.straggler, active=active, checkpoint=opts.checkpoint,
        )  # fmt: skip
    color = _async_job(graph, program, engine, opts)
    t0 = time.perf_counter()
    a = make_partition(graph, partition, num_parts=comm.size, seed=opts.seed)
    part = part_of_graph(graph, a.master, a.edge_part, comm.rank)
    if progress is not None and comm.rank == 0:
        print(
            f"partitioned ({partition}, {comm.size} parts) in {time.perf_counter() - t0:.2f} s",
            file=sys.stderr,
        )
    return run_part(
        part, program, comm, max_iter=max_iter, active=active,
        progress=progress if comm.rank == 0 else None, options=opts, color=color,
    )  # fmt: skip
