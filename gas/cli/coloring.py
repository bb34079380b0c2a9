"""``gas coloring``: greedy graph colouring on the asynchronous engine."""

from __future__ import annotations

import argparse
from typing import Any

from gas.cli.args import procs
from gas.cli.common import (
    HelpFormatter,
    add_common_options,
    load_graph,
    progress_printer,
    write_output,
)
from gas.cli.stats import StatsRecorder, add_stats_options
from gas.errors import GasError

__all__ = ["register"]


def _cmd_coloring(args: argparse.Namespace) -> int:
    from gas.algorithms.coloring import coloring, count_conflicts

    if args.procs > 1:
        from gas.partition import available_methods

        if args.partition not in available_methods():
            known = ", ".join(available_methods())
            raise GasError(f"Unknown --partition {args.partition!r}; known: {known}")
    g = load_graph(args)
    rec = StatsRecorder(args, "coloring")
    colors = coloring(
        g,
        consistency=args.consistency,
        scheduler=args.scheduler,
        repair=args.repair,
        threads=args.threads,
        progress=rec.wrap(progress_printer(args.quiet)),
        procs=args.procs,
        partition=args.partition,
    )
    rec.finish()
    print(f"colors\t{int(colors.max()) + 1 if colors.size else 0}")
    print(f"conflicting_edges\t{count_conflicts(g, colors)}")
    write_output(args, g, colors, "%d")
    return 0


def register(sub: Any) -> None:
    """Add ``gas coloring`` to the ``gas`` command's subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> a = parser.parse_args(["coloring", "g.txt", "--repair"])
    >>> a.consistency, a.scheduler, a.repair
    ('edge', 'fifo', True)
    """
    from gas.async_engine import CONSISTENCY, SCHEDULERS

    p = sub.add_parser(
        "coloring",
        help="greedy graph colouring (asynchronous engine)",
        formatter_class=HelpFormatter,
        description="Each vertex takes the smallest colour no neighbour holds; prints the number of "
        "colours and of conflicting edges, writes id<TAB>colour with --output.",
    )
    add_common_options(p)
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
    add_stats_options(p)
    p.set_defaults(func=_cmd_coloring)
