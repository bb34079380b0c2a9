"""``gas coloring``: greedy graph colouring on the asynchronous engine."""

from __future__ import annotations

import argparse


def _cmd_coloring(args: argparse.Namespace) -> int:
    from gas.algorithms.coloring import coloring, count_conflicts
    from gas.cli import _finish, _load, _progress
    from gas.errors import GasError

    if args.procs > 1:
        from gas.partition import available_methods

        if args.partition not in available_methods():
            known = ", ".join(available_methods())
            raise GasError(f"Unknown --partition {args.partition!r}; known: {known}")
    g = _load(args)
    colors = coloring(
        g,
        consistency=args.consistency,
        scheduler=args.scheduler,
        repair=args.repair,
        threads=args.threads,
        progress=_progress(args.quiet),
        procs=args.procs,
        partition=args.partition,
    )
    print(f"colors\t{int(colors.max()) + 1 if colors.size else 0}")
    print(f"conflicting_edges\t{count_conflicts(g, colors)}")
    _finish(args, g, colors, "%d")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``gas coloring`` to the ``gas`` command."""
    from gas.async_engine import CONSISTENCY, SCHEDULERS
    from gas.cli import _common, _Fmt
    from gas.cli_args import procs

    p = sub.add_parser(
        "coloring",
        help="greedy graph colouring (asynchronous engine)",
        formatter_class=_Fmt,
        description="Each vertex takes the smallest colour no neighbour holds; prints the number of "
        "colours and of conflicting edges, writes id<TAB>colour with --output.",
    )
    _common(p)
    p.add_argument("--consistency", choices=CONSISTENCY, default="edge", help="consistency model")
    p.add_argument("--scheduler", choices=SCHEDULERS, default="fifo", help="order of updates")
    p.add_argument("--repair", action="store_true", help="recolour vertices that end in a conflict")
    p.add_argument(
        "--procs",
        type=procs,
        default=1,
        help="run on N local processes (chromatic steps; scheduler fifo or sweep; edge or vertex)",
    )
    p.add_argument("--partition", default="hdrf", metavar="METHOD", help="partitioner for --procs")
    p.set_defaults(func=_cmd_coloring)


__all__ = ["register"]
