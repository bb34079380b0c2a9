"""One entry point for every run: :func:`run` picks the engine, the processes and the launcher.

``gas.run(graph, program)`` runs ``program`` on this process with the synchronous engine;
``engine="async"`` picks :class:`gas.AsyncEngine`; ``procs=N`` splits the graph over ``N`` local
processes (:class:`gas.runtime.local.LocalCluster`, partitioned by ``partition``); under a
launcher (``mpiexec``, ``srun``, torchrun-style env) with ``RunOptions(launcher="auto")`` every
rank runs its part (:func:`gas.runtime.local.run_launched`). The runtime settings (threads,
staleness, snapshots, a state to restore, ...) travel in one frozen :class:`gas.options.RunOptions`;
the common ones may also be given as keywords, which override the options object's.

Examples
--------
>>> import numpy as np, gas
>>> from gas.algorithms.components import ComponentsProgram
>>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=5)
>>> run(g, ComponentsProgram()).output.tolist()
[0, 0, 2, 2, 4]
>>> run(ComponentsProgram(), g, engine="async").output.tolist()  # either order
[0, 0, 2, 2, 4]

Vertices go in as original ids (``active=``, ``init=`` by id), results come out by internal id
(``g.ids`` maps back):

>>> g = gas.Graph.from_edges([10, 20], [20, 30])
>>> run(g, ComponentsProgram(), init={"label": {30: -1}}, active=[30]).output.tolist()
[-1, -1, -1]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gas.async_engine import AsyncEngine
from gas.cuda_engine import CudaEngine
from gas.engine import SyncEngine
from gas.engine_base import Engine, engine_for
from gas.engine_result import RunResult
from gas.errors import GasError
from gas.graph import Graph
from gas.inputs import VertexInputs, active_mask_of, vertex_inputs
from gas.options import ENGINES, RunOptions
from gas.program import VertexProgram

__all__ = ["run", "RunOptions"]

#: the engines ``engine=`` picks among (importing them registers them with :func:`engine_for`)
_REGISTERED = (SyncEngine, AsyncEngine, CudaEngine)


def _graph_and_program(a: Any, b: Any) -> tuple[Any, VertexProgram]:
    """``(graph, program)`` from the two positional arguments, in either order."""
    if isinstance(b, VertexProgram):
        return a, b
    if isinstance(a, VertexProgram):
        return b, a
    raise GasError(
        f"Expected a graph and a VertexProgram instance, in either order (got {type(a).__name__} "
        f"and {type(b).__name__}); hint: pass an instance, e.g. PageRankProgram(), not the class"
    )


def _options(options: RunOptions | None, engine: str, procs: int, **overrides: Any) -> RunOptions:
    """``options`` with the shorthand keywords that are not None applied, after checking
    ``engine`` and ``procs``."""
    if options is not None and not isinstance(options, RunOptions):
        raise GasError(f"Expected 'options' to be a gas.options.RunOptions (got {type(options).__name__})")
    if engine not in ENGINES:
        raise GasError(f"Unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
        raise GasError(f"Expected procs >= 1 (got {procs!r})")
    return (options or RunOptions()).updated(**overrides)


def run(
    graph: Any,
    program: Any,
    *,
    engine: str = "sync",
    procs: int = 1,
    partition: str = "hdrf",
    max_iter: int = 100,
    active: Any = None,
    init: Any = None,
    init_edges: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    scheduler: str | None = None,
    consistency: str | None = None,
    options: RunOptions | None = None,
    threads: int | None = None,
    debug: bool | None = None,
    seed: int | None = None,
    max_work: int | None = None,
) -> RunResult:
    """Run ``program`` on ``graph``: one process, local processes, or a launcher's ranks.

    Parameters
    ----------
    graph, program : Graph, VertexProgram
        In either order (told apart by type); one process also takes a partition view.
    engine : {"sync", "async"}, default "sync"
        :class:`gas.SyncEngine` (supersteps) or :class:`gas.AsyncEngine` (rounds).
    procs : int, default 1
        Local processes; ``procs > 1`` (or snapshots, staleness, a restore in ``options``) runs
        on the process runtime, whose program class must be importable by a fresh process.
    partition : str, default "hdrf"
        Partitioner of a process run (:func:`gas.partition.available_methods`).
    max_iter : int, default 100
        Most supersteps (rounds for ``engine="async"``).
    active : array_like, optional
        Original vertex ids (``graph.ids``) active first, or a boolean mask of length
        ``num_vertices`` by internal id; default all. A partition view (not a :class:`gas.Graph`)
        takes internal ids or a mask, as the engines do.
    init, init_edges : dict, optional
        ``{field: values}`` written over the program's ``init`` before the first superstep, on
        any engine and process count (:func:`gas.inputs.vertex_inputs`): vertex values as an
        array by internal id or a dict / pandas Series by original id; edge values by edge id.
    progress : callable, optional
        Called with each superstep's statistics dict (rank 0's on several processes).
    scheduler, consistency, threads, debug, seed, max_work
        Shorthands for the :class:`gas.options.RunOptions` fields of the same names; when
        given they override ``options``'.
    options : RunOptions, optional
        Every runtime setting (threads, staleness, checkpoint, restore, launcher, ...).

    Returns
    -------
    RunResult
        Every vertex's data and per-superstep statistics, converged or not (``converged``).

    Raises
    ------
    GasError
        Neither argument is a VertexProgram, an unknown engine, ``procs < 1``, a bad setting, a
        bad ``init`` (an undeclared field, a wrong length, an unsafe cast); :class:`GraphError`
        for an ``active`` or ``init`` id not in the graph.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.sssp import SSSPProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 2], edge_data={"weight": [2.0, 3.0]})
    >>> gas.run(SSSPProgram(0), g, active=[0]).output.tolist()
    [0.0, 2.0, 5.0]
    """
    graph, program = _graph_and_program(graph, program)
    shorthands = dict(scheduler=scheduler, consistency=consistency, threads=threads, debug=debug)
    opts = _options(options, engine, procs, **shorthands, seed=seed, max_work=max_work)
    active = active_mask_of(graph, active)  # original ids -> a mask by internal id, once
    inputs = vertex_inputs(graph, program, init, init_edges)  # by internal id, once
    return _dispatch(graph, program, engine, procs, partition, max_iter, active, inputs, progress, opts)


def _dispatch(
    graph: Any,
    program: VertexProgram,
    engine: str,
    procs: int,
    partition: str,
    max_iter: int,
    active: Any,
    inputs: VertexInputs,
    progress: Callable[[dict[str, Any]], None] | None,
    opts: RunOptions,
) -> RunResult:
    """A launcher's ranks, local processes or this one, by ``procs`` and ``opts`` (``active``:
    a mask by internal id; ``inputs`` by internal id)."""
    world = _launcher_size(opts)
    if world > 1:
        if procs > 1:
            raise GasError(f"procs={procs} inside a launcher job of {world} ranks: use one or the other")
        return _run_launched(graph, program, engine, partition, max_iter, active, inputs, progress, opts)
    if procs > 1 or opts.needs_runtime:
        from gas.runtime.local import run_distributed

        return run_distributed(
            graph, program, procs, partition, engine=engine, max_iter=max_iter, active=active,
            init=inputs, progress=progress, options=opts,
        )  # fmt: skip
    return _run_here(graph, program, engine, max_iter, active, inputs, progress, opts)


def _launcher_size(opts: RunOptions) -> int:
    """Ranks a launcher started (1 when ``opts.launcher`` is ``"off"`` or no launcher did)."""
    if opts.launcher == "off":
        return 1
    from gas.runtime.launch import detect_world

    return detect_world()[1]


def _run_here(
    graph: Any,
    program: VertexProgram,
    engine: str,
    max_iter: int,
    active: Any,
    inputs: VertexInputs | None,
    progress: Callable[[dict[str, Any]], None] | None,
    opts: RunOptions,
) -> RunResult:
    """One process: the engine factory's engine, run (``active``: internal ids or a mask)."""
    if opts.max_work is not None and engine != "async":
        raise GasError("max_work is the asynchronous engine's budget: pass engine='async' (or drop it)")
    eng = engine_for(graph, program, engine, opts.scheduler, opts.consistency, opts.threads, opts.debug)
    eng.inputs = inputs
    if inputs and type(eng).init is not Engine.init:
        # an engine with its own init (columns on a device): init, write the inputs on the host,
        # and run from those columns
        with eng.thread_scope():
            eng.init()
        eng.sync_host()
        inputs.write(eng.columns, eng.edge_columns)
        return eng.run(max_iter, active=active, progress=progress, init=False)
    if opts.max_work is not None:
        return eng.run(max_iter, active=active, progress=progress, max_work=opts.max_work)
    return eng.run(max_iter, active=active, progress=progress)


def _run_launched(
    graph: Graph,
    program: VertexProgram,
    engine: str,
    partition: str,
    max_iter: int,
    active: Any,
    inputs: VertexInputs | None,
    progress: Callable[[dict[str, Any]], None] | None,
    opts: RunOptions,
) -> RunResult:
    """Join the launcher's ranks and run this rank's part (the whole result on rank 0)."""
    from gas.runtime.comm import Comm
    from gas.runtime.launch import connect_world, reporting_errors
    from gas.runtime.local import run_launched

    t = connect_world()
    with reporting_errors(t):
        return run_launched(
            graph, program, Comm(t), engine=engine, partition=partition, max_iter=max_iter,
            active=active, init=inputs, progress=progress, options=opts,
        )  # fmt: skip
