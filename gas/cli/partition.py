"""``gas partition``: partition a graph file, print the quality report, write the assignment.

Registered into the ``gas`` command by :func:`register`; :func:`run` executes a parsed command.
Method options that do not apply to the chosen method are announced and ignored. Everything
that can be checked without the file (method name, options, part count, grid shape, output
flags) is checked before the file is read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from gas.cli.args import finite_float, nonneg_int
from gas.cli.common import HelpFormatter
from gas.errors import InputError
from gas.partition.base import Partitioner, available_methods, get_partitioner
from gas.partition.report import format_table

__all__ = ["register", "run"]

# defaults of the method-option flags (equal to the methods' own defaults)
_FLAG_DEFAULTS: dict[str, Any] = {
    "lam": 1.0,
    "threshold": 100,
    "grid_shape": None,
    "order": "shuffle",
    "alpha": 1.0,
    "gamma": 1.5,
    "slack": 1.05,
    "balance": "edges",
}
# CLI flag (argparse dest) -> method option name
_OPTION_FLAGS = {
    "lam": "lam",
    "threshold": "threshold",
    "grid_shape": "shape",
    "order": "order",
    "alpha": "alpha",
    "gamma": "gamma",
    "slack": "slack",
    "balance": "balance",
}


def _describe_methods() -> str:
    rows = [f"  {name:<10} {cls.kind:<10} {cls.summary}" for name, cls in available_methods().items()]
    return "methods:\n" + "\n".join(rows)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``partition`` subcommand to an ``argparse`` subparsers object.

    The subcommand's parser gets ``func=run`` as a default, so a main program can dispatch
    with ``args.func(args)``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> p = register(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["partition", "g.txt", "--method", "dbh", "--parts", "4"])
    >>> args.method, args.parts, args.func is run
    ('dbh', 4, True)
    """
    p = subparsers.add_parser(
        "partition",
        help="split a graph into parts (vertex-cut or edge-cut) and report the quality",
        description=(
            "Partition FILE and print replication factor, balance and traffic per superstep.\n"
            "Vertex-cut output lines: src<TAB>dst<TAB>part (one per edge); edge-cut output lines:\n"
            "vertex_id<TAB>part (one per vertex); ids are the file's.\n\n" + _describe_methods()
        ),
        formatter_class=HelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="edge list (.txt/.tsv/.csv, .gz/.bz2/.zip) or .npz")
    p.add_argument("--method", "-m", default="hdrf", help="partitioning method (listed above)")
    p.add_argument("--parts", "-k", type=int, default=8, help="number of parts (checked by the method)")
    p.add_argument("--seed", type=nonneg_int, default=0, help="seed of every random choice")
    p.add_argument(
        "--output", "-o", metavar="PATH", default=None, help="write the assignment here as TSV (atomically)"
    )
    p.add_argument(
        "--compare", action="store_true", help="run every method on FILE and print one table (no --output)"
    )
    p.add_argument("--json", action="store_true", help="print the report(s) as JSON")
    p.add_argument(
        "--gather-bytes",
        type=nonneg_int,
        default=8,
        help="bytes per gathered value, for the traffic estimate (mirrors x bytes)",
    )
    _add_method_options(p)
    _add_input_options(p)
    p.set_defaults(func=run)
    return p


def _add_method_options(p: argparse.ArgumentParser) -> None:
    """The method-option flags (each applies to the methods its help names)."""
    g = p.add_argument_group("method options (each applies to the methods named)")
    g.add_argument(
        "--lambda",
        dest="lam",
        type=finite_float,
        default=_FLAG_DEFAULTS["lam"],
        help="balance weight (hdrf, oblivious)",
    )
    g.add_argument(
        "--threshold",
        type=nonneg_int,
        default=_FLAG_DEFAULTS["threshold"],
        help="in-degree above which a vertex is high-degree (hybrid)",
    )
    g.add_argument(
        "--grid-shape",
        metavar="RxC",
        default=_FLAG_DEFAULTS["grid_shape"],
        help="grid rows x cols, e.g. 5x6 (grid; default near-square)",
    )
    g.add_argument(
        "--order",
        choices=("shuffle", "input"),
        default=_FLAG_DEFAULTS["order"],
        help="stream order: seeded shuffle or file order (oblivious, hdrf, ne, ldg, fennel)",
    )
    g.add_argument(
        "--alpha",
        type=finite_float,
        default=_FLAG_DEFAULTS["alpha"],
        help="edge budget per part as a multiple of m/P (ne)",
    )
    g.add_argument(
        "--gamma", type=finite_float, default=_FLAG_DEFAULTS["gamma"], help="size penalty exponent (fennel)"
    )
    g.add_argument(
        "--slack",
        type=finite_float,
        default=_FLAG_DEFAULTS["slack"],
        help="part capacity as a multiple of the mean (ldg, fennel)",
    )
    g.add_argument(
        "--balance",
        choices=("edges", "vertices"),
        default=_FLAG_DEFAULTS["balance"],
        help="what edge-cut parts balance (range, ldg, fennel)",
    )


def _add_input_options(p: argparse.ArgumentParser) -> None:
    """How FILE is read."""
    i = p.add_argument_group("input")
    i.add_argument("--skip-rows", type=nonneg_int, default=0, help="skip this many leading lines")
    i.add_argument("--keep-duplicates", action="store_true", help="keep repeated edges as parallel edges")
    i.add_argument(
        "--undirected", action="store_true", help="treat each line as an undirected edge (add the reverse)"
    )
    i.add_argument(
        "--simple",
        action="store_true",
        help="partition the simple undirected edge set: each {u,v} once, no self-loops "
        "(how published replication factors are computed)",
    )
    i.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def _grid_shape(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        r, c = text.lower().split("x")
        return int(r), int(c)
    except ValueError:
        raise InputError(f"Expected --grid-shape as ROWSxCOLS, e.g. 5x6 (got {text!r})") from None


def _build(name: str, args: argparse.Namespace, announce: bool) -> Partitioner:
    """The partitioner ``name`` with the CLI options that apply to it."""
    methods = available_methods()
    if name not in methods:
        get_partitioner(name)  # raises, listing the known methods
    accepted = methods[name].defaults
    values = {opt: getattr(args, flag) for flag, opt in _OPTION_FLAGS.items()}
    values["shape"] = _grid_shape(args.grid_shape)
    options = {k: v for k, v in values.items() if k in accepted}
    if announce:
        for flag, opt in _OPTION_FLAGS.items():
            if opt not in accepted and getattr(args, flag) != _FLAG_DEFAULTS[flag]:
                cli = "--" + ("lambda" if flag == "lam" else flag.replace("_", "-"))
                print(f"note: {cli} does not apply to method {name!r}; ignored", file=sys.stderr)
    return get_partitioner(name, **options)


def run(args: argparse.Namespace) -> int:
    """Execute a parsed ``gas partition`` command; returns the exit status (0).

    Raises
    ------
    gas.GasError
        Bad method, options or part count (before the file is read), or a bad file.
    """
    if args.compare and args.output:
        raise InputError("--output cannot be combined with --compare (which runs every method)")
    if args.gather_bytes < 0:
        raise InputError(f"Expected --gather-bytes >= 0 (got {args.gather_bytes})")
    names = list(available_methods()) if args.compare else [args.method]
    parts = [_build(n, args, announce=not args.compare and not args.quiet) for n in names]
    for pt in parts:
        pt.check_num_parts(args.parts)

    graph = _load(args)
    from gas.partition.base import EdgeInput

    inp = EdgeInput(graph)
    reports = []
    for pt in parts:
        pt.check_parts(args.parts, inp.num_edges, inp.num_vertices)
    for pt in parts:
        if not args.quiet:
            print(f"partitioning with {pt.name} into {args.parts} parts ...", file=sys.stderr)
        a = _partition(pt, inp, args)
        reports.append(a.report(args.gather_bytes))
        if args.output:
            t0 = time.perf_counter()
            a.write(args.output, ids=graph.ids)
            if not args.quiet:
                print(f"wrote {args.output} in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    if args.json:
        out: Any = [r.as_dict() for r in reports] if args.compare else reports[0].as_dict()
        print(json.dumps(out, indent=2))
    elif args.compare:
        print(format_table(reports))
    else:
        print(reports[0])
    return 0


def _partition(pt: Partitioner, inp: Any, args: argparse.Namespace) -> Any:
    """``pt.partition``; an option so large that its arithmetic overflows is an InputError."""
    try:
        return pt.partition(inp, args.parts, args.seed)
    except OverflowError as exc:
        raise InputError(
            f"method {pt.name!r} cannot compute with options {pt.options} ({exc})",
            hint="use option values near the defaults (--alpha, --gamma, --slack, --lambda)",
        ) from None


def _load(args: argparse.Namespace) -> Any:
    from gas.io import load

    t0 = time.perf_counter()
    g = load(
        args.file,
        weights=False,
        dedupe=not args.keep_duplicates,
        skip_rows=args.skip_rows,
        labels=getattr(args, "labels", False),
    )
    if args.undirected:
        g = g.symmetrized()
    if args.simple:
        from gas.partition.graphs import undirected_simple

        g = undirected_simple(g)
    if not args.quiet:
        print(
            f"loaded {args.file}: {g.num_vertices:,d} vertices, {g.num_edges:,d} edges "
            f"in {time.perf_counter() - t0:.2f} s",
            file=sys.stderr,
        )
    return g
