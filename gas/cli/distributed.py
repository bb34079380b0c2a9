"""The process-runtime side of the graph subcommands: ``--procs``/``--partition``/``--checkpoint-*``.

A subcommand runs distributed when ``--procs N`` (N > 1) is given, or when a launcher started
it as one of several ranks (see :mod:`gas.runtime.launch`). Rank 0 prints and writes the
output (:mod:`gas.cli.report`); the other ranks print nothing. The program comes from the
algorithms' registry (:func:`gas.algorithms.registry.program_for`); a text edge list read in
shares by every rank is a file job whose program the runtime builds through the registry's
dotted name (:data:`gas.algorithms.registry.PROGRAM_FOR_JOB`).

A run that ends without meeting its stopping rule (PageRank's L1 change above ``N * tol`` at
``--max-iter``; the asynchronous engine still scheduling vertices when its budget by work,
``5 * max_iter * (num_edges + num_vertices)`` edge visits and updates, is spent; components or
distances still changing) raises :class:`gas.ConvergenceError`, which the ``gas`` command turns
into exit status 3 on every rank (rank 0 says how far the run got). The output is written only
with ``--allow-unconverged``; non-finite scores or distances are never written.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np

from gas.algorithms.registry import PROGRAM_FOR_JOB, program_for, program_for_job
from gas.cli.args import nonneg_int, positive_int, procs
from gas.cli.common import parse_id, progress_printer
from gas.cli.report import normalized, peer_status, report
from gas.errors import GasError
from gas.options import CheckpointOptions, RunOptions, Staleness

__all__ = [
    "add_runtime_options",
    "check_ssp_args",
    "checkpoint_spec",
    "run_options",
    "engine_choice",
    "iteration_budget",
    "maybe_distributed",
    "maybe_distributed_file",
    "program_from_args",
    "work_budget",
]


def add_runtime_options(p: argparse.ArgumentParser) -> None:
    """The process-runtime options every graph subcommand takes.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_runtime_options(p)
    >>> a = p.parse_args(["--procs", "2"])
    >>> a.procs, a.partition, a.staleness
    (2, 'hdrf', None)
    """
    from gas.partition import available_methods

    g = p.add_argument_group("process runtime")
    g.add_argument(
        "--procs",
        type=procs,
        default=1,
        help="run on N local processes (spawned; each gets cores/N Numba threads)",
    )
    g.add_argument(
        "--partition",
        default="hdrf",
        choices=list(available_methods()),
        metavar="METHOD",
        help="partitioner for --procs and launcher runs: " + ", ".join(available_methods()),
    )
    g.add_argument("--seed", type=nonneg_int, default=0, help="partitioner seed")
    g.add_argument("--checkpoint-dir", default=None, metavar="D", help="write snapshots to this folder")
    g.add_argument(
        "--checkpoint-every", type=positive_int, default=10, metavar="K", help="snapshot every K supersteps"
    )
    g.add_argument(
        "--staleness",
        type=int,
        default=None,
        metavar="S",
        help="bounded staleness (SSP) with --procs: the fastest worker runs at most S supersteps ahead "
        "of the slowest, reading mirror values at most S supersteps old; 0 is BSP (static programs "
        "such as pagerank); default: BSP",
    )
    g.add_argument(
        "--straggler",
        default=None,
        metavar="RANK:SECONDS",
        help="slow down one worker: add SECONDS to every superstep of RANK; any:SECONDS slows one "
        "rank per superstep, a different one each time (tests, benchmarks)",
    )


def _refuse_extrapolation(args: argparse.Namespace) -> None:
    """``gas pagerank --extrapolate-every N`` (N > 0) runs in one process: the process runtime
    runs plain power iteration."""
    if getattr(args, "extrapolate_every", None):
        raise GasError(
            "--extrapolate-every runs in one process only, without --checkpoint-dir (the process "
            "runtime runs plain power iteration): drop it, or --procs/the launcher/--checkpoint-dir"
        )


def program_from_args(command: str, args: argparse.Namespace, g: Any) -> tuple[Any, int, Any]:
    """``(program, max_iter, active)`` of ``command`` on several processes, from its options.

    Reads only the options ``command`` has (a resumed run's saved ones may be another's).

    Examples
    --------
    >>> import argparse, gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])
    >>> program, max_iter, active = program_from_args("cc", argparse.Namespace(), g)
    >>> type(program).__name__, max_iter, active
    ('ComponentsProgram', 4, None)
    """
    if command == "pagerank":
        if getattr(args, "weighted", False):
            raise GasError("--weighted PageRank does not run on several processes yet; drop --procs")
        _refuse_extrapolation(args)
        engine = engine_choice(args)[0]
        return program_for(command, g, alpha=args.alpha, tol=args.tol, max_iter=args.max_iter, engine=engine)
    if command == "sssp":
        return program_for(command, g, source=parse_id(args.source, g), hops=args.hops)
    return program_for(command, g)


def engine_choice(args: argparse.Namespace) -> tuple[str, str, str | None]:
    """``(engine, scheduler, consistency)`` for a run on several processes, checked.

    Examples
    --------
    >>> import argparse
    >>> engine_choice(argparse.Namespace(engine="sync"))
    ('sync', 'fifo', None)
    """
    engine = getattr(args, "engine", "sync") or "sync"
    if getattr(args, "device", "cpu") == "cuda":  # resolved by gas.cli.analytics (--device)
        return "cuda", "fifo", None
    if engine != "async":
        return "sync", "fifo", None
    from gas.runtime.async_dist import DIST_SCHEDULERS

    scheduler = getattr(args, "scheduler", "fifo")
    if scheduler not in DIST_SCHEDULERS:
        raise GasError(f"Unknown --scheduler {scheduler}; known: {', '.join(DIST_SCHEDULERS)}")
    consistency = getattr(args, "consistency", None)
    if consistency == "full":
        raise GasError(
            "--consistency full runs on one process only; across processes the asynchronous engine "
            "offers edge (chromatic steps) or vertex"
        )
    return engine, scheduler, consistency


def check_ssp_args(args: argparse.Namespace, procs: int, size: int) -> None:
    """--staleness/--straggler need several ranks and sane values (checked before loading).

    Examples
    --------
    >>> import argparse
    >>> check_ssp_args(argparse.Namespace(staleness=1, straggler=None), 1, 1)
    Traceback (most recent call last):
    ...
    gas.errors.GasError: --staleness needs several workers: add --procs N (N > 1) or run under a launcher
    """
    s, strag = getattr(args, "staleness", None), getattr(args, "straggler", None)
    if s is None and strag is None:
        return
    what = "--staleness" if s is not None else "--straggler"
    if procs <= 1 and size == 1:
        raise GasError(f"{what} needs several workers: add --procs N (N > 1) or run under a launcher")
    if s is not None and s < 0:
        raise GasError(f"Expected --staleness S >= 0 supersteps (got {s}); 0 is BSP")
    if strag is not None:
        from gas.runtime.ssp import parse_straggler

        rank, _ = parse_straggler(strag)
        if rank >= max(procs, size):
            raise GasError(f"--straggler rank {rank} does not exist ({max(procs, size)} ranks)")


def work_budget(args: argparse.Namespace, g: Any) -> int:
    """The asynchronous engine's budget for ``--max-iter K``.

    The work (edges visited plus vertex updates) of ``ASYNC_WORK_FACTOR * K`` synchronous
    supersteps of ``num_edges + num_vertices`` each, as :func:`gas.algorithms.pagerank` on one
    process.

    Examples
    --------
    >>> import argparse, gas
    >>> work_budget(argparse.Namespace(max_iter=2), gas.Graph.from_edges([0, 1], [1, 2]))
    50
    """
    from gas.algorithms.pagerank import ASYNC_WORK_FACTOR

    return ASYNC_WORK_FACTOR * int(args.max_iter) * (int(g.num_edges) + int(g.num_vertices))


def iteration_budget(
    command: str, engine: str, args: argparse.Namespace, g: Any, max_iter: int
) -> dict[str, Any]:
    """``max_iter``/``max_work`` for a run.

    Asynchronous PageRank is budgeted by work, its rounds bounded by the same number (each
    round costs at least one update).

    Examples
    --------
    >>> import argparse
    >>> iteration_budget("cc", "sync", argparse.Namespace(), None, 7)
    {'max_iter': 7}
    """
    if command == "pagerank" and engine == "async":
        budget = work_budget(args, g)
        return {"max_iter": budget, "max_work": budget}
    return {"max_iter": max_iter}


def checkpoint_spec(args: argparse.Namespace, command: str, extra: dict[str, Any]) -> dict[str, Any] | None:
    """The snapshot settings of ``--checkpoint-dir``, with what ``gas resume`` needs (or None).

    Examples
    --------
    >>> import argparse
    >>> checkpoint_spec(argparse.Namespace(checkpoint_dir=None), "cc", {}) is None
    True
    """
    if not args.checkpoint_dir:
        return None
    if args.checkpoint_every < 1:
        raise GasError(f"Expected --checkpoint-every >= 1 (got {args.checkpoint_every})")
    keep = ("alpha", "tol", "max_iter", "hops", "skip_rows", "keep_duplicates", "undirected", "labels")
    keep += ("partition", "seed", "engine", "scheduler", "consistency", "device", "max_error_target")
    meta = {
        "command": command,
        "file": os.path.abspath(args.file),
        "args": {k: getattr(args, k) for k in keep if hasattr(args, k)},
        **extra,
    }
    return {"dir": args.checkpoint_dir, "every": args.checkpoint_every, "meta": meta}


def _world(args: argparse.Namespace) -> tuple[int, int, str]:
    """``(--procs, launcher ranks, launcher name)``."""
    from gas.runtime.launch import detect_world

    _, size, source = detect_world()
    return getattr(args, "procs", 1) or 1, size, source


def _both(nprocs: int, size: int, source: str) -> None:
    if size > 1 and nprocs > 1:
        raise GasError(
            f"--procs {nprocs} inside a launcher job ({source} gives {size} ranks): use one or the other"
        )


def run_options(
    args: argparse.Namespace,
    command: str,
    engine: tuple[str, str, str | None],
    max_work: int | None,
    launched: bool,
    extra: dict[str, Any],
) -> RunOptions:
    """The :class:`gas.options.RunOptions` of a subcommand's run on several processes.

    Parameters
    ----------
    args : argparse.Namespace
        ``seed``, ``staleness``, ``straggler`` and the ``--checkpoint-*`` options.
    command : str
        The subcommand (written into the snapshots' manifest, for ``gas resume``).
    engine : tuple
        ``(engine, scheduler, consistency)`` as :func:`engine_choice` gives.
    max_work : int or None
        The asynchronous engine's budget (:func:`iteration_budget`).
    launched : bool
        A launcher started the ranks (``launcher="auto"``).
    extra : dict
        More facts for the manifest (SSSP's ``source``).

    Examples
    --------
    >>> import argparse
    >>> ns = argparse.Namespace(seed=2, staleness=1, straggler=None, checkpoint_dir=None)
    >>> o = run_options(ns, "pagerank", ("sync", "fifo", None), None, False, {})
    >>> o.seed, o.staleness.staleness, o.checkpoint, o.launcher
    (2, 1, None, 'off')
    """
    s, strag = getattr(args, "staleness", None), getattr(args, "straggler", None)
    ck = checkpoint_spec(args, command, extra)
    return RunOptions(
        seed=args.seed,
        scheduler=engine[1],
        consistency=engine[2],
        max_work=max_work,
        staleness=None if s is None and strag is None else Staleness(0 if s is None else s, strag),
        checkpoint=None if ck is None else CheckpointOptions.from_json(ck),
        launcher="auto" if launched else "off",
    )


def maybe_distributed(args: argparse.Namespace, g: Any, command: str) -> int | None:
    """Run ``command`` on several processes if asked to (exit status), else None.

    The run goes through :func:`gas.api.run`, as a library call on several processes would.

    Examples
    --------
    >>> import argparse
    >>> ns = argparse.Namespace(procs=1, checkpoint_dir=None)
    >>> maybe_distributed(ns, None, "cc") is None  # one process: the caller runs it
    True
    """
    from gas.api import run
    from gas.runtime.launch import detect_world

    nprocs, size, source = _world(args)
    if nprocs < 1:
        raise GasError(f"Expected --procs >= 1 (got {nprocs})")
    _both(nprocs, size, source)
    check_ssp_args(args, nprocs, size)
    if nprocs == 1 and size == 1 and not args.checkpoint_dir:
        return None
    engine = engine_choice(args)
    program, max_iter, active = program_from_args(command, args, g)
    budget = iteration_budget(command, engine[0], args, g, max_iter)
    extra = {"source": args.source} if command == "sssp" else {}
    res = run(
        g,
        program,
        engine=engine[0],
        procs=nprocs,
        partition=args.partition,
        max_iter=budget["max_iter"],
        active=active,
        progress=progress_printer(args.quiet),
        options=run_options(args, command, engine, budget.get("max_work"), size > 1, extra),
    )
    rank = detect_world()[0] if size > 1 else 0
    if rank:
        return peer_status(rank, res)
    return report(command, args, g, normalized(command, engine[0], res), engine[0])


def maybe_distributed_file(args: argparse.Namespace, command: str) -> int | None:
    """Scaled-out load and run (exit status) when several ranks will run ``command``, else None.

    Under a launcher (and with ``--procs N``) every rank reads only its share of a text edge list
    (see :mod:`gas.runtime.ingest`); a binary ``.npz`` graph still goes through the whole-graph
    path (None here).

    Examples
    --------
    >>> import argparse
    >>> maybe_distributed_file(argparse.Namespace(procs=1), "cc") is None
    True
    """
    from gas.io.load import is_saved_graph

    nprocs, size, source = _world(args)
    check_ssp_args(args, nprocs, size)
    if (nprocs <= 1 and size == 1) or nprocs < 1:
        return None
    if getattr(args, "engine", "sync") == "async":
        return None  # the colouring needs the whole graph: the whole-graph path (maybe_distributed)
    if getattr(args, "labels", False):
        return None  # the ranks read byte ranges with integer ids: labels take the whole-graph path
    _both(nprocs, size, source)
    path = args.file
    if os.path.isfile(path) and (path.lower().endswith(".npz") or is_saved_graph(path)):
        return None
    if getattr(args, "weighted", False) and command == "pagerank":
        raise GasError("--weighted PageRank does not run on several processes yet; drop --procs")
    if command == "pagerank":
        _refuse_extrapolation(args)
    from gas.runtime.file_job import file_job

    extra = {"source": args.source} if command == "sssp" else {}
    job = file_job(args, command, checkpoint_spec(args, command, extra))
    job["builder"] = PROGRAM_FOR_JOB
    if getattr(args, "max_error_target", None) is not None:  # gas pagerank --max-error: each rank's tol
        job["args"]["max_error_target"] = args.max_error_target
        job["builder"] = "gas.cli.error_bound:program_for_job"
    if size > 1:
        return _run_file_launched(command, args, job)
    return _run_file_local(command, args, job, nprocs)


def _run_file_launched(command: str, args: argparse.Namespace, job: dict[str, Any]) -> int:
    """This rank's share of a launcher's file job; rank 0 reports."""
    from gas.runtime.comm import Comm
    from gas.runtime.file_job import run_file_job
    from gas.runtime.launch import connect_world, reporting_errors

    progress = progress_printer(args.quiet)
    t = connect_world()
    comm = Comm(t)
    with reporting_errors(t):
        view, res = run_file_job(comm, job, progress=progress)
    return peer_status(comm.rank, res) if comm.rank else report(command, args, view, res)


def _run_file_local(command: str, args: argparse.Namespace, job: dict[str, Any], nprocs: int) -> int:
    """A file job on ``nprocs`` spawned local processes (kernels compiled once, first)."""
    from gas.runtime.file_job import IdView, run_file_job
    from gas.runtime.local import LocalCluster, warm_kernels
    from gas.runtime.worker import threads_per_proc

    progress = progress_printer(args.quiet)
    with LocalCluster(nprocs) as c:
        try:
            ids = np.array([0], np.int64)
            weighted = bool(getattr(args, "weighted", False))  # weights only with --weighted
            prog = program_for_job(command, {**job["args"], "source": "0"}, IdView(ids, weighted, 0.0))[0]
            warm_kernels(prog, ["weight"] if weighted else [])
            c.comm.bcast_meta(job)
            view, res = run_file_job(c.comm, job, threads=threads_per_proc(nprocs), progress=progress)
        except BaseException:
            c.kill()  # workers may be mid-job: no goodbye
            raise
    return report(command, args, view, res)
