"""Command-line glue of the process runtime: ``--procs``/``--partition``/``--checkpoint-*`` on
the algorithm subcommands, launcher-started ranks, and ``gas resume``.

A subcommand runs distributed when ``--procs N`` (N > 1) is given, or when a launcher started
it as one of several ranks (see :mod:`gas.runtime.launch`). Rank 0 prints and writes the
output; the other ranks print nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from gas.errors import GasError

__all__ = ["register", "add_runtime_options", "maybe_distributed", "maybe_distributed_file"]


def add_runtime_options(p: argparse.ArgumentParser) -> None:
    """The process-runtime options every algorithm subcommand takes."""
    from gas.partition import available_methods

    g = p.add_argument_group("process runtime")
    g.add_argument(
        "--procs",
        type=int,
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
    g.add_argument("--seed", type=int, default=0, help="partitioner seed")
    g.add_argument("--checkpoint-dir", default=None, metavar="D", help="write snapshots to this folder")
    g.add_argument(
        "--checkpoint-every", type=int, default=10, metavar="K", help="snapshot every K supersteps"
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
        if weighted and g.edata["weight"].size and g.edata["weight"].min() < 0:
            raise GasError("SSSP needs non-negative edge weights; use --hops or fix the input")
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


def _report(command: str, args: argparse.Namespace, g: Any, res: Any) -> int:
    """What the single-process subcommands print and write, from a distributed result."""
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
    return 0


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
        max_iter=max_iter,
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
        return 0 if res is None else _report(command, args, g, _normalized(command, engine, res))
    from gas.runtime.local import run_distributed

    res = run_distributed(g, program, procs, **run_kw)
    return _report(command, args, g, _normalized(command, engine, res))


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
    from gas.io.load import _is_saved_graph
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
    if os.path.isfile(path) and (path.lower().endswith(".npz") or _is_saved_graph(path)):
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
        return 0 if comm.rank else _report(command, args, view, res)
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


def _cmd_resume(args: argparse.Namespace) -> int:
    from gas.cli import _load, _progress
    from gas.runtime import checkpoint as ckpt
    from gas.runtime.local import LocalCluster

    manifest, restore = ckpt.restore_state(args.dir)
    meta = manifest.get("meta", {})
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
    program, max_iter, _, _ = _program(command, ns, g)
    engine, scheduler, consistency = _engine(ns)
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
            max_iter=max_iter,
            progress=_progress(args.quiet),
            checkpoint=ck,
            restore=restore,
            engine=engine,
            scheduler=scheduler,
            consistency=consistency,
        )
    if not args.quiet:
        print(f"resumed run finished in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return _report(command, ns, g, _normalized(command, engine, res))


def register(sub: Any) -> None:
    """Add ``gas resume``."""
    from gas.cli import _Fmt

    p = sub.add_parser(
        "resume",
        help="continue a run from its last checkpoint",
        formatter_class=_Fmt,
        description="Continue the run whose snapshots are in DIR (written with --checkpoint-dir) "
        "from the last complete one, on the same or another number of processes.",
    )
    p.add_argument("dir", metavar="DIR", help="the --checkpoint-dir of the interrupted run")
    p.add_argument("--procs", type=int, default=1, help="number of local processes")
    p.add_argument("--output", "-o", metavar="PATH", default=None, help="write id<TAB>value lines here")
    p.add_argument("--checkpoint-every", type=int, default=10, metavar="K", help="keep snapshotting every K")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_cmd_resume)
