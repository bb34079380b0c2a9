"""``gas resume DIR``: continue a graph run from the last complete snapshot of ``--checkpoint-dir``.

The snapshot's manifest names the command, the input file and the options it ran with; the
run goes on with the same program on the same or another number of local processes.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from gas.cli.args import positive_int, procs
from gas.cli.common import (
    HelpFormatter,
    add_unconverged_option,
    load_graph,
    progress_printer,
)
from gas.cli.distributed import (
    checkpoint_spec,
    engine_choice,
    iteration_budget,
    program_from_args,
)
from gas.cli.report import normalized, report
from gas.errors import GasError
from gas.options import CheckpointOptions, Restore, RunOptions

__all__ = ["register"]


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


def _saved_options(args: argparse.Namespace, manifest: dict[str, Any]) -> tuple[str, argparse.Namespace]:
    """The command and the options of the run that wrote the snapshot, as a subcommand's."""
    meta = manifest.get("meta", {})
    if not (isinstance(meta.get("command"), str) and isinstance(meta.get("file"), str)):
        raise GasError(  # a snapshot written through the library, not by `gas ... --checkpoint-dir`
            f"{args.dir}: the checkpoint's manifest names no command and input file; resume it "
            "from Python with gas.runtime.checkpoint.restore_state()"
        )
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
    return meta["command"], ns


def _program(args: argparse.Namespace, command: str, ns: argparse.Namespace, g: Any) -> tuple[Any, int]:
    """The saved command's program and superstep limit, or a GasError naming the mismatch."""
    try:
        program, max_iter, _ = program_from_args(command, ns, g)
    except (AttributeError, KeyError, TypeError) as exc:  # arguments saved by another command
        raise GasError(
            f"{args.dir}: the manifest's command {command!r} does not fit its saved arguments "
            f"({exc}); the manifest was edited or written by another version"
        ) from None
    return program, max_iter


def _cmd_resume(args: argparse.Namespace) -> int:
    from gas.api import run
    from gas.runtime import checkpoint as ckpt

    manifest, restore = ckpt.restore_state(args.dir)
    command, ns = _saved_options(args, manifest)
    # SSSP saved hops=False when it ran with --weighted (before issue 21: when the file had weights)
    weighted = command == "sssp" and not ns.hops
    g = load_graph(ns, check_weights="nonnegative", weights=None if weighted else False)
    if g.num_vertices != manifest["num_vertices"] or g.num_edges != manifest["num_edges"]:
        raise GasError(
            f"{ns.file} has {g.num_vertices} vertices and {g.num_edges} edges; the checkpoint was "
            f"taken on {manifest['num_vertices']} and {manifest['num_edges']}: not the same graph"
        )
    if getattr(ns, "max_error_target", None) is not None:  # gas pagerank --max-error: tol from N
        from gas.cli.stats import use_max_error

        use_max_error(ns, g.num_vertices)
    program, max_iter = _program(args, command, ns, g)
    _check_snapshot_fields(args.dir, command, program, restore)
    engine, scheduler, consistency = engine_choice(ns)
    ns.allow_unconverged = args.allow_unconverged
    ns.checkpoint_dir, ns.checkpoint_every = args.dir, args.checkpoint_every
    meta = manifest["meta"]
    ck = checkpoint_spec(ns, command, {"source": meta["source"]} if "source" in meta else {})
    if not args.quiet:
        print(
            f"resuming {command} on {ns.file} after {'round' if engine == 'async' else 'superstep'} "
            f"{manifest['step']} "
            f"with {args.procs} process(es)",
            file=sys.stderr,
        )
    budget = iteration_budget(command, engine, ns, g, max_iter)
    opts = RunOptions(
        seed=ns.seed,
        scheduler=scheduler,
        consistency=consistency,
        max_work=budget.get("max_work"),
        checkpoint=None if ck is None else CheckpointOptions.from_json(ck),
        restore=Restore.from_dict(restore),
    )
    t0 = time.perf_counter()
    res = run(
        g,
        program,
        engine=engine,
        procs=args.procs,
        partition=ns.partition,
        max_iter=budget["max_iter"],
        progress=progress_printer(args.quiet),
        options=opts,
    )
    if not args.quiet:
        print(f"resumed run finished in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return report(command, ns, g, normalized(command, engine, res), engine)


def register(sub: Any) -> None:
    """Add ``gas resume`` to the ``gas`` command's subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> a = parser.parse_args(["resume", "snaps", "--procs", "2"])
    >>> a.dir, a.procs, a.checkpoint_every
    ('snaps', 2, 10)
    """
    p = sub.add_parser(
        "resume",
        help="continue a run from its last checkpoint",
        formatter_class=HelpFormatter,
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
    add_unconverged_option(p)
    p.set_defaults(func=_cmd_resume)
