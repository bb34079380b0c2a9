"""Command-line glue of the process runtime: ``--procs``/``--partition``/``--checkpoint-*`` on
the algorithm subcommands, launcher-started ranks, and ``gas resume``.

A subcommand runs distributed when ``--procs N`` (N > 1) is given, or when a launcher started
it as one of several ranks (see :mod:`gas.runtime.launch`). Rank 0 prints and writes the
output; the other ranks print nothing.

A run that ends without meeting its stopping rule (PageRank's L1 change above ``N * tol`` at
``--max-iter``; the asynchronous engine still scheduling vertices when its budget by work,
``5 * max_iter * (num_edges + num_vertices)`` edge visits and updates, is spent; components or
distances still changing) raises :class:`gas.ConvergenceError`, which the ``gas`` command turns
into exit status 3 on every rank (rank 0 says how far the run got). The output is written only
with ``--allow-unconverged``; non-finite scores or distances are never written.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from gas.errors import ConvergenceError, GasError, convergence_error

__all__ = ["register", "add_runtime_options", "maybe_distributed", "maybe_distributed_file"]


def add_runtime_options(p: argparse.ArgumentParser) -> None:
    """The process-runtime options every algorithm subcommand takes."""
    from gas.cli_args import nonneg_int, positive_int, procs
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


def _program(command: str, args: argparse.Namespace, g: Any) -> tuple[Any, int, Any, dict[str, Any]]:
    """Program, max_iter, active set, and what resume needs to rebuild them."""
    if command == "pagerank":
        from gas.algorithms.pagerank import DeltaPageRankProgram, PageRankProgram

        if getattr(args, "weighted", False) and g.weights is not None:
            raise GasError("--weighted PageRank does not run on several processes yet; drop --procs")
        _refuse_extrapolation(args)
        if _engine(args)[0] == "async":  # the pull form: it writes only its own vertex
            return DeltaPageRankProgram(args.alpha, args.tol), args.max_iter, None, {}
        return PageRankProgram(args.alpha, args.tol), args.max_iter, None, {}
    if command == "cc":
        from gas.algorithms.components import ComponentsProgram

        return ComponentsProgram(), g.num_vertices + 1, None, {}
    if command == "sssp":
        from gas.algorithms.sssp import HopsProgram, SSSPProgram
        from gas.cli import _parse_id

        s = int(g.index_of(_parse_id(args.source, g)))
        weighted = not args.hops and "weight" in g.edata
        # min() is NaN when a weight is: "not >= 0" refuses both
        if weighted and g.edata["weight"].size and not g.edata["weight"].min() >= 0:
            raise GasError(
                "SSSP needs non-negative edge weights (got a negative or NaN weight, the smallest "
                f"{g.edata['weight'].min()}); use --hops or fix the input"
            )
        prog = SSSPProgram(s) if weighted else HopsProgram(s)
        return prog, g.num_vertices + 1, np.array([s]), {"source": args.source}
    raise GasError(f"{command} has no distributed runner")


def _engine(args: argparse.Namespace) -> tuple[str, str, str | None]:
    """``(engine, scheduler, consistency)`` for a run on several processes, checked."""
    engine = getattr(args, "engine", "sync") or "sync"
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


def _check_ssp_args(args: argparse.Namespace, procs: int, size: int) -> None:
    """--staleness/--straggler need several ranks and sane values (checked before loading)."""
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
    """The asynchronous engine's budget for ``--max-iter K``: the work (edges visited plus
    vertex updates) of ``ASYNC_WORK_FACTOR * K`` synchronous supersteps of
    ``num_edges + num_vertices`` each, as :func:`gas.algorithms.pagerank` on one process."""
    from gas.algorithms.pagerank import ASYNC_WORK_FACTOR

    return ASYNC_WORK_FACTOR * int(args.max_iter) * (int(g.num_edges) + int(g.num_vertices))


def _budgeted(command: str, engine: str, args: argparse.Namespace, g: Any, max_iter: int) -> dict[str, Any]:
    """``max_iter``/``max_work`` for a run: asynchronous PageRank is budgeted by work, its
    rounds bounded by the same number (each round costs at least one update)."""
    if command == "pagerank" and engine == "async":
        budget = work_budget(args, g)
        return {"max_iter": budget, "max_work": budget}
    return {"max_iter": max_iter}


def _what(command: str, engine: str) -> str:
    names = {"pagerank": "PageRank", "cc": "Connected components", "sssp": "SSSP"}
    return ("Asynchronous " if engine == "async" and command == "pagerank" else "") + names[command]


def _nonfinite(command: str, g: Any, res: Any) -> ConvergenceError | None:
    """An error for scores or distances that are not numbers (PageRank: not finite)."""
    values = res.output
    if command == "cc" or not np.issubdtype(values.dtype, np.floating):
        return None
    bad = np.flatnonzero(np.isnan(values) if command == "sssp" else ~np.isfinite(values))
    if not bad.size:
        return None
    return convergence_error(
        f"{_what(command, 'sync')} produced {bad.size} non-finite values (first at vertex "
        f"{g.ids[bad[0]]}: {values[bad[0]]}): the run diverged; nothing is written",
        iterations=res.iterations,
    )


def _unconverged(
    command: str, args: argparse.Namespace, g: Any, res: Any, engine: str
) -> ConvergenceError | None:
    """The error a run that did not meet its stopping rule ends with (None if it did): how far
    it got, the residual against the target, the partial output in ``result``."""
    if res.converged:
        return None
    if command == "pagerank":
        msg, change = _pagerank_shortfall(args, g, res, engine)
        target = g.num_vertices * args.tol
        return convergence_error(
            f"{msg}, target N*tol = {target:.1e}",
            iterations=res.iterations,
            residual=change,
            target=target,
            result=res,
        )
    last = res.stats[-1] if res.stats else {}
    left = int(last.get("scheduled", last.get("active", 0)))
    msg = (
        f"{_what(command, engine)} stopped after {res.iterations} "
        f"{'rounds' if engine == 'async' else 'supersteps'} with {left:,d} vertices still "
        f"{'scheduled' if engine == 'async' else 'active'}"
    )
    return convergence_error(msg, iterations=res.iterations, residual=float(left), target=0.0, result=res)


def _pagerank_shortfall(args: argparse.Namespace, g: Any, res: Any, engine: str) -> tuple[str, float]:
    """How far an unconverged PageRank got: a message and its L1 change (the synchronous
    engine's last one; for the asynchronous engine, one power-iteration step from its ranks)."""
    from gas.algorithms.pagerank import power_step_change, shortfall_message
    from gas.graph import Graph

    if engine == "sync":
        change = float(res.aggregates.get("change", float("nan")))
    else:
        change = power_step_change(g, res.output, args.alpha) if isinstance(g, Graph) else float("nan")
    work = sum(int(s.get("edges", 0)) + int(s.get("active", 0)) for s in res.stats)
    return shortfall_message(res, engine, args.max_iter, change, work, g.num_vertices), change


def _report(command: str, args: argparse.Namespace, g: Any, res: Any, engine: str = "sync") -> int:
    """What the single-process subcommands print and write, from a distributed result.

    Raises the run's :class:`gas.ConvergenceError` when it did not converge, after writing the
    output only with ``--allow-unconverged``; non-finite values raise before anything is printed.
    """
    if (bad := _nonfinite(command, g, res)) is not None:
        raise bad
    err = _unconverged(command, args, g, res, engine)
    if err is not None and not getattr(args, "allow_unconverged", False):
        raise err
    _print_and_write(command, args, g, res)
    if err is not None:
        raise err
    return 0


def _peer_status(rank: int, res: Any) -> int:
    """Exit status of a launcher rank other than 0 (which reports): 0, or the job's
    :class:`gas.ConvergenceError` when the run did not converge (every rank agrees on that)."""
    if res.converged:
        return 0
    raise convergence_error(
        f"rank {rank}: the run stopped without converging after {res.iterations} steps "
        "(rank 0 reports how far it got)",
        iterations=res.iterations,
    )


def _print_and_write(command: str, args: argparse.Namespace, g: Any, res: Any) -> None:
    """The summary on stdout and stderr, and the ``--output`` file."""
    from gas.cli import write_values

    if not args.quiet:
        secs = sum(s["seconds"] for s in res.stats)
        sent = sum(s.get("bytes_sent", 0) for s in res.stats)
        print(
            f"{res.iterations} {'rounds' if res.stats and 'steps' in res.stats[0] else 'supersteps'} "
            f"in {secs:.2f} s; rank 0 sent {sent / 1e6:.1f} MB",
            file=sys.stderr,
        )
        ssp = getattr(res, "ssp", None)
        if ssp:
            print(
                f"staleness bound {ssp['staleness']}: observed mean {ssp.get('staleness_mean', 0):.2f}, "
                f"max {ssp.get('staleness_max', 0)}; supersteps per worker {ssp.get('clocks')}; "
                f"blocked seconds per worker {ssp.get('wait_seconds')}",
                file=sys.stderr,
            )
    if command == "pagerank":
        values, fmt = res.output, "%.17g"
        top = getattr(args, "top", 0)
        if top:
            print("id\tscore")
            for v in np.argsort(-values, kind="stable")[:top].tolist():
                print(f"{g.ids[v]}\t{values[v]:.17g}")
    elif command == "cc":
        values, fmt = g.ids[res.output], "%s"
        labels, sizes = np.unique(values, return_counts=True)
        print(f"components\t{labels.size}")
        if sizes.size:
            print(f"largest\t{int(sizes.max())}")
    else:
        values, fmt = res.output, "%.17g"
        reach = np.isfinite(values)
        print(f"reachable\t{int(reach.sum())}")
        if reach.any():
            print(f"max_distance\t{float(values[reach].max()):.17g}")
    if args.output:
        write_values(args.output, g.ids, values, fmt)
        if not args.quiet:
            print(f"wrote {g.num_vertices:,d} lines to {args.output}", file=sys.stderr)


def _checkpoint(args: argparse.Namespace, command: str, extra: dict[str, Any]) -> dict[str, Any] | None:
    if not args.checkpoint_dir:
        return None
    if args.checkpoint_every < 1:
        raise GasError(f"Expected --checkpoint-every >= 1 (got {args.checkpoint_every})")
    import os

    keep = ("alpha", "tol", "max_iter", "hops", "skip_rows", "keep_duplicates", "undirected")
    keep += ("partition", "seed", "engine", "scheduler", "consistency")
    meta = {
        "command": command,
        "file": os.path.abspath(args.file),
        "args": {k: getattr(args, k) for k in keep if hasattr(args, k)},
        **extra,
    }
    return {"dir": args.checkpoint_dir, "every": args.checkpoint_every, "meta": meta}


def maybe_distributed(args: argparse.Namespace, g: Any, command: str) -> int | None:
    """Run ``command`` on several processes if asked to (exit status), else None."""
    from gas.cli import _progress
    from gas.runtime.launch import connect_world, detect_world

    procs = getattr(args, "procs", 1) or 1
    _, size, source = detect_world()
    if procs < 1:
        raise GasError(f"Expected --procs >= 1 (got {procs})")
    if size > 1 and procs > 1:
        raise GasError(
            f"--procs {procs} inside a launcher job ({source} gives {size} ranks): use one or the other"
        )
    _check_ssp_args(args, procs, size)
    if procs == 1 and size == 1 and not args.checkpoint_dir:
        return None
    engine, scheduler, consistency = _engine(args)
    program, max_iter, active, extra = _program(command, args, g)
    ck = _checkpoint(args, command, extra)
    progress = _progress(args.quiet)
    run_kw = dict(
        partition=args.partition,
        seed=args.seed,
        **_budgeted(command, engine, args, g, max_iter),
        active=active,
        progress=progress,
        checkpoint=ck,
        staleness=getattr(args, "staleness", None),
        straggler=getattr(args, "straggler", None),
        engine=engine,
        scheduler=scheduler,
        consistency=consistency,
    )
    if size > 1:
        from gas.runtime.comm import Comm
        from gas.runtime.local import run_launched

        t = connect_world()
        comm = Comm(t)
        try:
            res = run_launched(g, program, comm, **run_kw)
        except BaseException as exc:
            if t is not None:
                t.report_error(f"{type(exc).__name__}: {exc}")
                t.close()
            raise
        if t is not None:
            t.shutdown(timeout=60)
        if comm.rank:
            return _peer_status(comm.rank, res)
        return _report(command, args, g, _normalized(command, engine, res), engine)
    from gas.runtime.local import run_distributed

    res = run_distributed(g, program, procs, **run_kw)
    return _report(command, args, g, _normalized(command, engine, res), engine)


def _normalized(command: str, engine: str, res: Any) -> Any:
    """Asynchronous PageRank solves an unnormalized system: scale its output to sum 1."""
    if command == "pagerank" and engine == "async" and res.output.size:
        res.output = res.output / res.output.sum()
    return res


def maybe_distributed_file(args: argparse.Namespace, command: str) -> int | None:
    """Scaled-out load and run (exit status) when several ranks will run ``command``, else None.

    Under a launcher (and with ``--procs N``) every rank reads only its share of a text edge list
    (see :mod:`gas.runtime.ingest`); a binary ``.npz`` graph still goes through the whole-graph
    path (None here).
    """
    import os

    from gas.cli import _progress
    from gas.io.load import is_saved_graph
    from gas.runtime.ingest import file_job, run_file_job
    from gas.runtime.launch import connect_world, detect_world

    procs = getattr(args, "procs", 1) or 1
    _, size, source = detect_world()
    _check_ssp_args(args, procs, size)
    if (procs <= 1 and size == 1) or procs < 1:
        return None
    if getattr(args, "engine", "sync") == "async":
        return None  # the colouring needs the whole graph: the whole-graph path (maybe_distributed)
    if size > 1 and procs > 1:
        raise GasError(
            f"--procs {procs} inside a launcher job ({source} gives {size} ranks): use one or the other"
        )
    path = args.file
    if os.path.isfile(path) and (path.lower().endswith(".npz") or is_saved_graph(path)):
        return None
    if getattr(args, "weighted", False) and command == "pagerank":
        raise GasError("--weighted PageRank does not run on several processes yet; drop --procs")
    if command == "pagerank":
        _refuse_extrapolation(args)
    extra = {"source": args.source} if command == "sssp" else {}
    job = file_job(args, command, _checkpoint(args, command, extra))
    progress = _progress(args.quiet)
    if size > 1:
        from gas.runtime.comm import Comm

        t = connect_world()
        comm = Comm(t)
        try:
            view, res = run_file_job(comm, job, progress=progress)
        except BaseException as exc:
            if t is not None:
                t.report_error(f"{type(exc).__name__}: {exc}")
                t.close()
            raise
        if t is not None:
            t.shutdown(timeout=60)
        return _peer_status(comm.rank, res) if comm.rank else _report(command, args, view, res)
    from gas.runtime.local import LocalCluster, _threads_per_proc, warm_kernels

    with LocalCluster(procs) as c:
        try:
            from gas.io.ranges import detect_weighted
            from gas.runtime.ingest import IdView

            dummy = argparse.Namespace(**{**job["args"], "source": "0"})
            ids = np.array([0], np.int64)
            prog = _program(command, dummy, IdView(ids, False, 0.0))[0]
            warm_kernels(prog, ["weight"] if detect_weighted(path, getattr(args, "skip_rows", 0)) else [])
            c.comm.bcast_meta(job)
            view, res = run_file_job(c.comm, job, threads=_threads_per_proc(procs), progress=progress)
        except BaseException:
            c._kill()
            raise
    return _report(command, args, view, res)


def _check_snapshot_fields(root: str, command: str, program: Any, restore: dict[str, Any]) -> None:
    """Refuse a snapshot whose vertex fields are not the program's (a manifest naming another
    command than the one that wrote it)."""
    vertex = restore.get("vertex")
    names = set(getattr(vertex, "dtype", np.dtype([])).names or ()) if vertex is not None else set()
    if hasattr(vertex, "keys"):
        names = set(vertex.keys())
    wanted = set(program.vertex_data)
    if names and not wanted <= names:
        raise GasError(
            f"{root}: the snapshot holds the vertex fields {sorted(names)}, but {command!r} needs "
            f"{sorted(wanted)}: the manifest's command does not match its snapshot"
        )


def _cmd_resume(args: argparse.Namespace) -> int:
    from gas.cli import _load, _progress
    from gas.runtime import checkpoint as ckpt
    from gas.runtime.local import LocalCluster

    manifest, restore = ckpt.restore_state(args.dir)
    meta = manifest.get("meta", {})
    if not (isinstance(meta.get("command"), str) and isinstance(meta.get("file"), str)):
        raise GasError(  # a snapshot written through the library, not by `gas ... --checkpoint-dir`
            f"{args.dir}: the checkpoint's manifest names no command and input file; resume it "
            "from Python with gas.runtime.checkpoint.restore_state()"
        )
    command = meta.get("command")
    saved = dict(meta.get("args", {}))
    ns = argparse.Namespace(
        file=meta.get("file"),
        quiet=args.quiet,
        output=args.output,
        top=0,
        weighted=False,
        hops=saved.get("hops", False),
        source=meta.get("source"),
        **{k: v for k, v in saved.items() if k != "hops"},
    )
    for k, default in (("skip_rows", 0), ("keep_duplicates", False), ("undirected", False)):
        if not hasattr(ns, k):
            setattr(ns, k, default)
    g = _load(ns)
    if g.num_vertices != manifest["num_vertices"] or g.num_edges != manifest["num_edges"]:
        raise GasError(
            f"{ns.file} has {g.num_vertices} vertices and {g.num_edges} edges; the checkpoint was "
            f"taken on {manifest['num_vertices']} and {manifest['num_edges']}: not the same graph"
        )
    try:
        program, max_iter, _, _ = _program(command, ns, g)
    except (AttributeError, KeyError, TypeError) as exc:  # arguments saved by another command
        raise GasError(
            f"{args.dir}: the manifest's command {command!r} does not fit its saved arguments "
            f"({exc}); the manifest was edited or written by another version"
        ) from None
    _check_snapshot_fields(args.dir, command, program, restore)
    engine, scheduler, consistency = _engine(ns)
    ns.allow_unconverged = args.allow_unconverged
    ns.checkpoint_dir, ns.checkpoint_every = args.dir, args.checkpoint_every
    ck = _checkpoint(ns, command, {"source": meta["source"]} if "source" in meta else {})
    if not args.quiet:
        print(
            f"resuming {command} on {ns.file} after {'round' if engine == 'async' else 'superstep'} "
            f"{manifest['step']} "
            f"with {args.procs} process(es)",
            file=sys.stderr,
        )
    t0 = time.perf_counter()
    with LocalCluster(args.procs) as c:
        res = c.run(
            g,
            program,
            partition=ns.partition,
            seed=ns.seed,
            **_budgeted(command, engine, ns, g, max_iter),
            progress=_progress(args.quiet),
            checkpoint=ck,
            restore=restore,
            engine=engine,
            scheduler=scheduler,
            consistency=consistency,
        )
    if not args.quiet:
        print(f"resumed run finished in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return _report(command, ns, g, _normalized(command, engine, res), engine)


def register(sub: Any) -> None:
    """Add ``gas resume``."""
    from gas.cli import _Fmt
    from gas.cli_args import positive_int, procs

    p = sub.add_parser(
        "resume",
        help="continue a run from its last checkpoint",
        formatter_class=_Fmt,
        description="Continue the run whose snapshots are in DIR (written with --checkpoint-dir) "
        "from the last complete one, on the same or another number of processes.",
    )
    p.add_argument("dir", metavar="DIR", help="the --checkpoint-dir of the interrupted run")
    p.add_argument("--procs", type=procs, default=1, help="number of local processes")
    p.add_argument("--output", "-o", metavar="PATH", default=None, help="write id<TAB>value lines here")
    p.add_argument(
        "--checkpoint-every", type=positive_int, default=10, metavar="K", help="keep snapshotting every K"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    from gas.cli import add_unconverged_option

    add_unconverged_option(p)
    p.set_defaults(func=_cmd_resume)
