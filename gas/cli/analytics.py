"""``gas pagerank``, ``gas cc``, ``gas sssp`` and ``gas info``: graph analytics on an edge list.

Each loads FILE, runs on one process (or several, see :mod:`gas.cli.distributed`), prints a
summary on stdout and writes ``id<TAB>value`` per vertex with ``--output``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

import numpy as np

from gas.cli.args import nonneg_int, positive_int, tolerance, unit_interval
from gas.cli.common import (
    HelpFormatter,
    add_async_options,
    add_common_options,
    add_device_option,
    load_graph,
    parse_id,
    progress_printer,
    unconverged_output,
    write_output,
)
from gas.cli.distributed import (
    add_runtime_options,
    maybe_distributed,
    maybe_distributed_file,
)
from gas.cuda_device import device_engine
from gas.errors import GasError

__all__ = ["register"]


def _whole_file_job(args: argparse.Namespace, command: str) -> int | None:
    """:func:`maybe_distributed_file` on the CPU. A ``--device cuda|auto`` run loads the whole
    graph first (``auto`` needs its edge count) and goes through :func:`gas.run`."""
    if args.device != "cpu":
        return None
    return maybe_distributed_file(args, command)


def _resolve_device(args: argparse.Namespace, g: Any) -> None:
    """Turn ``args.device`` into ``"cpu"`` or ``"cuda"`` for the loaded graph (checked against
    ``--engine``), so that the one-process and the process runs use the same device."""
    engine = device_engine(args.device, g.num_edges, getattr(args, "engine", "sync"))
    args.device = "cuda" if engine == "cuda" else "cpu"


def _cmd_pagerank(args: argparse.Namespace) -> int:
    from gas.algorithms import pagerank

    every = args.extrapolate_every
    if every is not None and (every < 0 or 0 < every < 3):
        raise GasError(f"Expected --extrapolate-every 0 (none) or at least 3 (got {every})")
    if every and args.engine == "async":
        raise GasError("--extrapolate-every is for the synchronous engine; drop it or --engine async")
    if (status := _whole_file_job(args, "pagerank")) is not None:
        return status
    g = load_graph(args, check_weights="finite-nonnegative" if args.weighted else None)
    _resolve_device(args, g)
    if (status := maybe_distributed(args, g, "pagerank")) is not None:
        return status
    with warnings.catch_warnings(record=True) as caught, unconverged_output(args, g, "%.17g"):
        warnings.simplefilter("always")
        ranks, res = pagerank(
            g,
            alpha=args.alpha,
            tol=args.tol,
            max_iter=args.max_iter,
            weight="weight" if (args.weighted and g.weights is not None) else None,
            threads=args.threads,
            progress=progress_printer(args.quiet),
            return_result=True,
            engine=args.engine,
            scheduler=args.scheduler,
            consistency=args.consistency,
            device=args.device,
            # pagerank()'s own default unless the flag was given
            **({} if every is None else {"extrapolate_every": every}),
        )
    for w in caught:
        print(f"gas: warning: {w.message}", file=sys.stderr)
    if not args.quiet:
        secs = sum(s["seconds"] for s in res.stats)
        print(f"{res.iterations} iterations in {secs:.2f} s", file=sys.stderr)
    write_output(args, g, ranks, "%.17g")
    if args.top:
        order = np.argsort(-ranks, kind="stable")[: args.top]
        print("id\tscore")
        for v in order.tolist():
            print(f"{g.ids[v]}\t{ranks[v]:.17g}")
    return 0


def _cmd_cc(args: argparse.Namespace) -> int:
    from gas.algorithms import connected_components

    if (status := _whole_file_job(args, "cc")) is not None:
        return status
    g = load_graph(args)
    _resolve_device(args, g)
    if (status := maybe_distributed(args, g, "cc")) is not None:
        return status
    with unconverged_output(args, g, "%s"):
        comp = connected_components(
            g, threads=args.threads, progress=progress_printer(args.quiet), device=args.device
        )
    labels, sizes = np.unique(comp, return_counts=True)
    print(f"components\t{labels.size}")
    if sizes.size:
        print(f"largest\t{int(sizes.max())}")
    if args.top:
        order = np.argsort(-sizes, kind="stable")[: args.top]
        print("component\tsize")
        for i in order.tolist():
            print(f"{labels[i]}\t{sizes[i]}")
    write_output(args, g, comp, "%s")
    return 0


def _cmd_sssp(args: argparse.Namespace) -> int:
    from gas.algorithms import sssp

    if (status := _whole_file_job(args, "sssp")) is not None:
        return status
    g = load_graph(args, check_weights=None if args.hops else "nonnegative")
    _resolve_device(args, g)
    if (status := maybe_distributed(args, g, "sssp")) is not None:
        return status
    src = parse_id(args.source, g)
    with unconverged_output(args, g, "%.17g"):
        dist = sssp(
            g,
            src,
            weight=None if args.hops else "weight",
            threads=args.threads,
            progress=progress_printer(args.quiet),
            device=args.device,
        )
    reach = np.isfinite(dist)
    kind = "hops" if (args.hops or g.weights is None) else "weighted"
    print(f"source\t{args.source}\nmode\t{kind}\nreachable\t{int(reach.sum())}")
    if reach.any():
        print(f"max_distance\t{float(dist[reach].max()):.17g}")
    write_output(args, g, dist, "%.17g")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    g = load_graph(args)
    info = g.info()
    rows = [
        ("vertices", f"{info['vertices']:,d}"),
        ("edges", f"{info['edges']:,d}"),
        ("self_loops", f"{info['self_loops']:,d}"),
        (
            "duplicate_edges",
            f"{info['duplicate_edges']:,d}" + (" (collapsed)" if not args.keep_duplicates else ""),
        ),
        ("weighted", str(info["weighted"])),
    ]
    for key in ("out_degree", "in_degree", "degree"):
        lo, med, hi = info[key]
        rows.append((key, f"min {lo}  median {med:g}  max {hi}"))
    rows.append(("memory", f"{info['memory_bytes'] / 2**20:.2f} MiB"))
    for k, v in rows:
        print(f"{k}\t{v}")
    return 0


def _add_pagerank(sub: Any) -> None:
    p = sub.add_parser(
        "pagerank",
        help="PageRank (networkx normalization)",
        formatter_class=HelpFormatter,
        description="PageRank of every vertex; scores sum to 1.",
    )
    add_common_options(p)
    p.add_argument("--alpha", type=unit_interval, default=0.85, help="damping factor, in [0, 1]")
    p.add_argument(
        "--tol",
        type=tolerance,
        default=1e-6,
        help=(
            "stop when the L1 change < num_vertices * tol (networkx's rule and default; the L1 "
            "error left can be far above tol, about 1e-2 on ego-Facebook; for tight ranks use a "
            "smaller tol and a larger --max-iter)"
        ),
    )
    p.add_argument(
        "--max-iter", type=positive_int, default=100, help="most supersteps (async: 5x their work)"
    )
    p.add_argument(
        "--extrapolate-every",
        type=nonneg_int,
        default=None,
        metavar="N",
        help=(
            "synchronous engine, one process: an Anderson extrapolation over the last steps "
            "every N supersteps (default 6; 0: plain power iteration)"
        ),
    )
    add_async_options(p, default_scheduler="priority")
    add_device_option(p)
    p.add_argument("--top", type=nonneg_int, default=10, help="print the top K vertices (0: none)")
    p.add_argument("--weighted", action="store_true", help="use the third column as edge weights")
    add_runtime_options(p)
    p.set_defaults(func=_cmd_pagerank)


def register(sub: Any) -> None:
    """Add ``pagerank``, ``cc``, ``sssp`` and ``info`` to the ``gas`` command's subparsers.

    Parameters
    ----------
    sub : argparse subparsers
        What ``ArgumentParser.add_subparsers`` returned.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["sssp", "g.txt", "--source", "7"])
    >>> args.command, args.source, args.procs
    ('sssp', '7', 1)
    """
    _add_pagerank(sub)
    p = sub.add_parser(
        "cc",
        help="weakly connected components",
        formatter_class=HelpFormatter,
        description="Component of every vertex = smallest original id in it.",
    )
    add_common_options(p)
    p.add_argument("--top", type=nonneg_int, default=0, help="print the K largest components")
    add_device_option(p)
    add_runtime_options(p)
    p.set_defaults(func=_cmd_cc)

    p = sub.add_parser(
        "sssp",
        help="single-source shortest paths",
        formatter_class=HelpFormatter,
        description="Distances from --source (weighted if the file has a third column, "
        "else hop counts); unreachable = inf.",
    )
    add_common_options(p)
    p.add_argument("--source", required=True, metavar="ID", help="original id of the source vertex")
    p.add_argument("--hops", action="store_true", help="count hops even if the file has weights")
    add_device_option(p)
    add_runtime_options(p)
    p.set_defaults(func=_cmd_sssp)

    p = sub.add_parser(
        "info",
        help="graph statistics",
        formatter_class=HelpFormatter,
        description="Vertices, edges, self-loops, duplicates, degrees, memory.",
    )
    add_common_options(p, output=False)
    p.set_defaults(func=_cmd_info)
