"""The runner of one rank's part, and the job note that tells a worker what to run.

:func:`run_part` picks the driver of a rank from the typed settings of the run
(:class:`gas.options.RunOptions`): :func:`gas.runtime.async_dist.run_partition_async` when a
colouring schedules an asynchronous run, :func:`gas.runtime.ssp.run_partition_ssp` under bounded
staleness, else :func:`gas.runtime.bsp.run_partition`. Rank 0 announces each job to its workers
as JSON (:func:`job_note`); a worker reads the settings back with :func:`job_options`.

Examples
--------
>>> from gas.options import RunOptions, Staleness
>>> from gas.algorithms.pagerank import PageRankProgram
>>> note = job_note(PageRankProgram(), RunOptions(staleness=Staleness(1)), max_iter=5, active=None)
>>> note["ssp"], note["max_iter"]
({'staleness': 1, 'straggler': None}, 5)
>>> job_options(note).staleness
Staleness(staleness=1, straggler=None, fresh=True, sweeps=0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gas.engine_result import RunResult
from gas.errors import GasError
from gas.options import CheckpointOptions, Restore, RunOptions, Staleness
from gas.program import VertexProgram
from gas.runtime.bsp import WorkerPart, run_partition
from gas.runtime.comm import Comm
from gas.runtime.wire import program_to_json

__all__ = ["run_part", "job_note", "job_options"]


def run_part(
    part: WorkerPart,
    program: VertexProgram,
    comm: Comm,
    *,
    max_iter: int = 100,
    active: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    options: RunOptions | None = None,
    color: np.ndarray | None = None,
) -> RunResult:
    """Run this rank's ``part`` with the driver ``options`` and ``color`` call for.

    Parameters
    ----------
    part : WorkerPart
        This rank's edges and masters.
    program : VertexProgram
    comm : Comm
        The job's communicator.
    max_iter, active, progress
        As in :func:`gas.run` (``active``: global vertex ids; ``progress`` on rank 0).
    options : RunOptions, optional
        ``threads`` (this rank's), ``staleness``, ``checkpoint``, ``restore``, ``edges`` and the
        asynchronous engine's ``scheduler``, ``priority_ratio`` and ``max_work``.
    color : ndarray, optional
        Every global vertex's group (:func:`gas.runtime.async_dist.async_groups`): run the
        asynchronous engine by chromatic steps.

    Returns
    -------
    RunResult
        The whole result on rank 0, the rank's local view on the others.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.components import ComponentsProgram
    >>> from gas.runtime.bsp import part_of_graph
    >>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=4)
    >>> part = part_of_graph(g, np.zeros(4, np.int32), np.zeros(2, np.int32), 0)
    >>> run_part(part, ComponentsProgram(), Comm(None)).output.tolist()
    [0, 0, 2, 2]
    """
    opts = options or RunOptions()
    checkpoint = None if opts.checkpoint is None else opts.checkpoint.to_json()
    restore = None if opts.restore is None else opts.restore.as_dict()
    if opts.device != "cpu" and (color is not None or opts.staleness is not None):
        raise GasError(
            f"device={opts.device!r} runs the synchronous engine's supersteps: drop "
            f"{'--engine async' if color is not None else '--staleness'} or use --device cpu"
        )
    if color is not None:
        from gas.runtime.async_dist import run_partition_async

        return run_partition_async(
            part, program, comm, color=color, scheduler=opts.scheduler,
            priority_ratio=float(opts.priority_ratio), max_iter=max_iter, active=active,
            threads=opts.threads, progress=progress, checkpoint=checkpoint, restore=restore,
            edges=opts.edges, max_work=opts.max_work,
        )  # fmt: skip
    if opts.staleness is None:
        return run_partition(
            part, program, comm, max_iter=max_iter, active=active, threads=opts.threads,
            progress=progress, checkpoint=checkpoint, restore=restore, edges=opts.edges,
            device=opts.device,
        )  # fmt: skip
    for k, v in (("active", active), ("checkpoint", checkpoint), ("restore", restore), ("edges", opts.edges)):
        if v is not None and v is not False:
            raise GasError(f"bounded staleness does not take {k!r}")
    from gas.runtime.ssp import run_partition_ssp

    st = opts.staleness
    return run_partition_ssp(
        part, program, comm, max_iter=max_iter, staleness=int(st.staleness),
        straggler=None if st.straggler is None else list(st.straggler), threads=opts.threads,
        progress=progress, fresh=None if st.fresh else False, sweeps=int(st.sweeps),
    )  # fmt: skip


def job_note(
    program: VertexProgram,
    options: RunOptions,
    *,
    max_iter: int,
    active: np.ndarray | None,
    asynchronous: bool = False,
) -> dict[str, Any]:
    """The JSON rank 0 broadcasts to announce a run (the arrays of a restore travel apart).

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> note = job_note(PageRankProgram(), RunOptions(device="cuda"), max_iter=5, active=None)
    >>> sorted(note)[:5], note["device"]
    (['active', 'async', 'checkpoint', 'device', 'edges'], 'cuda')
    """
    o = options
    return {
        "op": "run",
        "program": program_to_json(program),
        "max_iter": int(max_iter),
        "max_work": None if o.max_work is None else int(o.max_work),
        "active": None if active is None else active.tolist(),
        "checkpoint": None if o.checkpoint is None else o.checkpoint.to_json(),
        "ssp": None if o.staleness is None else o.staleness.to_json(),
        "edges": bool(o.edges),
        "async": {"scheduler": o.scheduler, "priority_ratio": o.priority_ratio} if asynchronous else None,
        "restore": None if o.restore is None else o.restore.to_json(),
        "device": o.device,
    }


def job_options(
    job: dict[str, Any], restore: Restore | None = None, threads: int | None = None
) -> RunOptions:
    """The settings of a job announced by :func:`job_note` (``restore``: its arrays, received apart)."""
    asynchronous = job.get("async") or {}
    return RunOptions(
        threads=threads,
        scheduler=str(asynchronous.get("scheduler", "fifo")),
        priority_ratio=float(asynchronous.get("priority_ratio", 0.01)),
        max_work=job.get("max_work"),
        staleness=Staleness.from_json(job["ssp"]) if job.get("ssp") else None,
        checkpoint=CheckpointOptions.from_json(job["checkpoint"]) if job.get("checkpoint") else None,
        restore=restore,
        edges=bool(job.get("edges")),
        device=str(job.get("device", "cpu")),
    )
