"""``gas diameter``: approximate diameter and neighbourhood function (HyperANF sketches).

Prints the estimated diameter (a lower bound: the last superstep in which a vertex's
HyperLogLog counter changed), the effective diameter and ``N(t)``, the estimated number of
pairs within ``t`` hops, on stdout; ``--output`` writes ``id<TAB>eccentricity`` (each vertex's
estimate, a lower bound) with the original ids. See :mod:`gas.algorithms.diameter`.
"""

from __future__ import annotations

import argparse
from typing import Any

from gas.cli.args import nonneg_int, positive_int, procs
from gas.cli.common import (
    HelpFormatter,
    add_common_options,
    load_graph,
    progress_printer,
    unconverged_output,
    write_output,
)
from gas.cli.stats import StatsRecorder, add_stats_options, recording

__all__ = ["register"]

#: ``N(t)`` rows printed in full up to this many; longer tables show their head and tail
_FULL_TABLE = 30


def _cmd_diameter(args: argparse.Namespace) -> int:
    from gas.algorithms.diameter import approximate_diameter

    g = load_graph(args)
    with unconverged_output(args, g, "%d"), recording(rec := StatsRecorder(args, "diameter")):
        est = approximate_diameter(
            g,
            registers=args.registers,
            seed=args.seed,
            max_iter=args.max_iter,
            threads=args.threads,
            procs=args.procs,
            partition=args.partition,
            progress=rec.wrap(progress_printer(args.quiet)),
        )
    rec.finish()
    print(f"diameter\t{est.diameter}")
    print(f"effective_diameter\t{est.effective_diameter:.4f}")
    print("t\tpairs_within_t")
    nf = est.neighborhood.tolist()
    rows = list(range(len(nf)))
    if len(rows) > _FULL_TABLE:
        rows = rows[: _FULL_TABLE - 5] + [-1] + rows[-4:]
    for t in rows:
        print("...\t..." if t < 0 else f"{t}\t{nf[t]:.1f}")
    write_output(args, g, est.eccentricity, "%d")
    return 0


def register(sub: Any) -> None:
    """Add ``gas diameter`` to the ``gas`` command's subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> a = parser.parse_args(["diameter", "g.txt", "--registers", "1024"])
    >>> a.registers, a.seed, a.procs
    (1024, 0, 1)
    """
    from gas.partition import available_methods

    p = sub.add_parser(
        "diameter",
        help="approximate diameter and neighbourhood function (HyperANF)",
        formatter_class=HelpFormatter,
        description="HyperLogLog counters of every vertex's ball, grown over out-edges (all edges with "
        "--undirected) until none changes. Prints the estimated diameter (a lower bound), the effective "
        "diameter (90% of the reachable pairs) and N(t), the pairs within t hops; --output writes "
        "id<TAB>eccentricity (an estimate, a lower bound).",
    )
    add_common_options(p)
    p.add_argument(
        "--registers",
        type=int,
        default=128,
        choices=[1 << k for k in range(4, 17)],
        metavar="M",
        help="HyperLogLog registers per vertex, a power of two from 16 to 65536 "
        "(relative error about 1.04/sqrt(M); 2*M bytes per vertex)",
    )
    p.add_argument("--seed", type=nonneg_int, default=0, help="seed of the vertex hash")
    p.add_argument(
        "--max-iter",
        type=positive_int,
        default=None,
        help="most supersteps (default: vertices + 1, always enough)",
    )
    p.add_argument("--procs", type=procs, default=1, help="run on N local processes (same answer)")
    p.add_argument(
        "--partition",
        default="hdrf",
        choices=list(available_methods()),
        metavar="METHOD",
        help="partitioner for --procs: " + ", ".join(available_methods()),
    )
    add_stats_options(p)
    p.set_defaults(func=_cmd_diameter)
