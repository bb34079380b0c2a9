"""``gas pagerank``, ``gas cc``, ``gas sssp`` and ``gas info``: graph analytics on an edge list.

Each loads FILE, runs on one process (or several, see :mod:`gas.cli.distributed`), prints a
summary on stdout and writes ``id<TAB>value`` per vertex with ``--output``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from gas.cli.args import nonneg_int, positive_int, tolerance, unit_interval
from gas.cli.common import (
    HelpFormatter,
    add_async_options,
    add_common_options,
    add_deprecated_flag,
    add_device_option,
    load_graph,
    parse_id,
    progress_printer,
    run_summary,
    unconverged_output,
    write_output,
)
from gas.cli.distributed import (
    add_runtime_options,
    maybe_distributed,
    maybe_distributed_file,
)
from gas.cli.hints import cli_message
from gas.cli.stats import StatsRecorder, add_stats_options, finish_pagerank, recording, use_max_error
from gas.cuda_device import device_engine
from gas.errors import ConvergenceError, GasError, GraphError, InputError

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


#: ``gas pagerank``'s per-vertex input files: option -> pagerank()'s argument
PERSONAL_FLAGS = {"--personalization": "personalization", "--nstart": "nstart", "--dangling": "dangling"}


def read_vertex_weights(path: str, g: Any, flag: str = "--personalization") -> np.ndarray:
    """A file of ``id<TAB>weight`` lines (``#`` comments, blank lines) as weights by internal id.

    Vertices not listed weigh 0. Each line is checked (two fields, an id of the graph, a finite
    weight >= 0, no id twice), and the file must give some vertex a positive weight.

    Raises
    ------
    gas.InputError
        Naming the file, the line and the value, with a hint.

    Examples
    --------
    >>> import os, tempfile, gas
    >>> path = os.path.join(tempfile.mkdtemp(), "p.tsv")
    >>> _ = open(path, "w").write("# id\\tweight\\n30\\t2\\n10\\t1.5\\n")
    >>> read_vertex_weights(path, gas.Graph.from_edges([10, 20], [20, 30])).tolist()
    [1.5, 0.0, 2.0]
    """
    hint = f"{flag} takes lines 'id<TAB>weight': an original vertex id and a number >= 0"
    keys: list[Any] = []
    weights: list[float] = []
    lines: list[int] = []
    seen: dict[Any, int] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for no, raw in enumerate(f, 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                key, w = _weight_line(line, g, path, no, hint)
                if key in seen:
                    raise InputError(
                        f"vertex {key!r} is listed twice (first on line {seen[key]})",
                        path=path,
                        line=no,
                        hint=hint,
                    )
                seen[key] = no
                keys.append(key)
                weights.append(w)
                lines.append(no)
    except UnicodeDecodeError:
        raise InputError(
            "expected a text file of 'id<TAB>weight' lines (not UTF-8)", path=path, hint=hint
        ) from None
    out = np.zeros(g.num_vertices)
    out[_vertex_lines(g, keys, lines, path, hint)] = weights
    if not out.sum() > 0.0:
        raise InputError(
            "expected some vertex with a weight > 0 (every weight is 0, or none is listed)",
            path=path,
            hint=hint,
        )
    return out


def _weight_line(line: str, g: Any, path: str, no: int, hint: str) -> tuple[Any, float]:
    """``(original id, weight)`` of one data line of :func:`read_vertex_weights`."""
    parts = line.split()
    if len(parts) != 2:
        raise InputError(
            f"expected 2 fields, id and weight, found {len(parts)}", path=path, line=no, text=line, hint=hint
        )
    key: Any = parts[0]
    if g.ids.dtype != object:
        try:
            key = int(key)
        except ValueError:
            raise InputError(
                f"expected an integer vertex id, found {key!r}", path=path, line=no, text=line, hint=hint
            ) from None
    try:
        w = float(parts[1])
    except ValueError:
        raise InputError(
            f"expected a number as the weight, found {parts[1]!r}", path=path, line=no, text=line, hint=hint
        ) from None
    if not (np.isfinite(w) and w >= 0.0):
        raise InputError(
            f"expected a finite weight >= 0, found {parts[1]!r}", path=path, line=no, text=line, hint=hint
        )
    return key, w


def _vertex_lines(g: Any, keys: list[Any], lines: list[int], path: str, hint: str) -> np.ndarray:
    """Internal ids of ``keys``; an id not in the graph is named with its line."""
    if not keys:
        return np.zeros(0, np.int64)
    try:
        q = np.array(keys, dtype=object if g.ids.dtype == object else g.ids.dtype)
        return np.atleast_1d(g.index_of(q))
    except (GraphError, OverflowError):
        known = set(g.ids.tolist())
        for key, no in zip(keys, lines):
            if key not in known:
                raise InputError(
                    f"vertex {key!r} is not in the graph", path=path, line=no, hint=hint
                ) from None
        raise


def _personal_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The per-vertex input files given (``{pagerank argument: path}``), refused where the
    runs that take them cannot go (they run through :func:`gas.algorithms.pagerank`)."""
    given = {arg: getattr(args, arg) for arg in PERSONAL_FLAGS.values() if getattr(args, arg, None)}
    if not given:
        return given
    from gas.runtime.launch import detect_world

    flags = "/".join(f for f, a in PERSONAL_FLAGS.items() if a in given)
    if args.engine == "async" and "dangling" in given:
        raise GasError(
            "--engine async runs with the dangling rank following --personalization: drop --dangling"
        )
    if args.checkpoint_dir or args.staleness is not None or args.straggler or detect_world()[1] > 1:
        raise GasError(
            f"{flags} runs on one process or --procs N local processes: drop --checkpoint-dir, "
            "--staleness, --straggler or the launcher"
        )
    if args.extrapolate_every and args.procs > 1:
        raise GasError("--extrapolate-every runs in one process only: drop it, or --procs")
    return given


def _cmd_pagerank(args: argparse.Namespace) -> int:
    from gas.algorithms import pagerank
    from gas.options import RunOptions

    every = args.extrapolate_every
    if every is not None and (every < 0 or 0 < every < 3):
        raise GasError(f"Expected --extrapolate-every 0 (none) or at least 3 (got {every})")
    if every and args.engine == "async":
        raise GasError("--extrapolate-every is for the synchronous engine; drop it or --engine async")
    files = _personal_inputs(args)
    use_max_error(args)  # --max-error's rule, before any work (a file job's ranks finish it)
    if not files and (status := _whole_file_job(args, "pagerank")) is not None:
        return status
    g = load_graph(args, check_weights="finite-nonnegative", weights=args.weighted)
    _resolve_device(args, g)
    use_max_error(args, g.num_vertices, rec := StatsRecorder(args, "pagerank", args.alpha))
    if not files and (status := maybe_distributed(args, g, "pagerank")) is not None:
        return status
    flag = {a: f for f, a in PERSONAL_FLAGS.items()}
    vectors = {a: read_vertex_weights(path, g, flag[a]) for a, path in files.items()}
    if files and args.procs > 1:  # the rest (seed) of a local-process run, as maybe_distributed's
        vectors.update(procs=args.procs, partition=args.partition, options=RunOptions(seed=args.seed))
    progress = progress_printer(args.quiet)
    with warnings.catch_warnings(record=True) as caught, unconverged_output(args, g, "%.17g"), recording(rec):
        warnings.simplefilter("always")
        ranks, res = pagerank(
            g,
            alpha=args.alpha,
            tol=args.tol,
            max_iter=args.max_iter,
            weight="weight" if args.weighted else None,
            threads=args.threads,
            progress=rec.wrap(progress),
            return_result=True,
            engine=args.engine,
            scheduler=args.scheduler,
            consistency=args.consistency,
            device=args.device,
            # pagerank()'s own default unless the flag was given
            **({} if every is None else {"extrapolate_every": every}),
            **vectors,
        )
        finish_pagerank(rec, args, g, ranks, res, personalized=bool(files))
    for w in caught:
        text = cli_message(str(w.message), getattr(args, "cli_options", {}))
        print(f"gas: warning: {text}", file=sys.stderr)
    if not args.quiet:
        print(run_summary(res.iterations, "iterations", res.stats, progress), file=sys.stderr)
    write_output(args, g, ranks, "%.17g")
    if args.top:
        order = np.argsort(-ranks, kind="stable")[: args.top]
        print("id\tscore")
        for v in order.tolist():
            print(f"{g.ids[v]}\t{ranks[v]:.17g}")
    return 0


@contextlib.contextmanager
def _original_labels(g: Any) -> Iterator[None]:
    """A partial component labelling (internal ids) carried by a ConvergenceError, turned into
    original ids before the CLI writes it."""
    try:
        yield
    except ConvergenceError as exc:
        if isinstance(exc.result, np.ndarray):
            exc.result = g.ids[exc.result]
        raise


def _cmd_cc(args: argparse.Namespace) -> int:
    from gas.algorithms import connected_components

    if (status := _whole_file_job(args, "cc")) is not None:
        return status
    g = load_graph(args)
    _resolve_device(args, g)
    if (status := maybe_distributed(args, g, "cc")) is not None:
        return status
    rec = StatsRecorder(args, "cc")
    with unconverged_output(args, g, "%s"), _original_labels(g), recording(rec):
        comp = connected_components(
            g, threads=args.threads, progress=rec.wrap(progress_printer(args.quiet)), device=args.device
        )
    rec.finish()
    comp = g.ids[comp]  # each component labelled by its smallest ORIGINAL id
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

    if args.hops and args.weighted:
        raise GasError("--hops (deprecated: hop counts are the default) contradicts --weighted: drop one")
    args.hops = not args.weighted  # what the process runtime and the snapshots' manifest read
    if (status := _whole_file_job(args, "sssp")) is not None:
        return status
    g = load_graph(args, check_weights="nonnegative", weights=args.weighted)
    _resolve_device(args, g)
    if (status := maybe_distributed(args, g, "sssp")) is not None:
        return status
    src = parse_id(args.source, g)
    rec = StatsRecorder(args, "sssp")
    with unconverged_output(args, g, "%.17g"), recording(rec):
        dist = sssp(
            g,
            src,
            weight="weight" if args.weighted else None,
            threads=args.threads,
            progress=rec.wrap(progress_printer(args.quiet)),
            device=args.device,
        )
    rec.finish()
    reach = np.isfinite(dist)
    kind = "weighted" if args.weighted else "hops"
    print(f"source\t{args.source}\nmode\t{kind}\nreachable\t{int(reach.sum())}")
    if reach.any():
        print(f"max_distance\t{float(dist[reach].max()):.17g}")
    write_output(args, g, dist, "%.17g")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    g = load_graph(args, weights=None)  # describes the file: weights when it has them
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
        "--max-error",
        type=tolerance,
        default=1e-6,
        help=(
            "stop once the L1 distance to the fixed point is provably below this: the last L1 "
            "change times alpha / (1 - alpha) (see gas.cli.error_bound; --engine async: checked "
            "after the run by one more power step); the bound is printed at the end"
        ),
    )
    p.add_argument(
        "--tol",
        type=tolerance,
        default=None,
        help=(
            "instead of --max-error, networkx's rule: stop when the L1 change < num_vertices * tol "
            "(networkx's default 1e-6 can leave an L1 error far above tol on large graphs)"
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
    g = p.add_argument_group("personalized PageRank (files of 'id<TAB>weight' lines, '#' comments)")
    g.add_argument(
        "--personalization",
        metavar="FILE",
        help="teleport to these vertices in proportion to their weights (others: 0)",
    )
    g.add_argument("--nstart", metavar="FILE", help="start the iteration from these weights")
    g.add_argument(
        "--dangling",
        metavar="FILE",
        help="send the rank of vertices without out-edges here; none: as --personalization",
    )
    add_runtime_options(p)
    add_stats_options(p)
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
    add_stats_options(p)
    p.set_defaults(func=_cmd_cc)

    p = sub.add_parser(
        "sssp",
        help="single-source shortest paths",
        formatter_class=HelpFormatter,
        description="Distances from --source: hop counts, or with --weighted the sums of the third "
        "column's edge weights (>= 0); unreachable = inf.",
    )
    add_common_options(p)
    p.add_argument("--source", required=True, metavar="ID", help="original id of the source vertex")
    p.add_argument(
        "--weighted", action="store_true", help="use the third column as edge lengths (else: hop counts)"
    )
    add_deprecated_flag(
        p, "--hops", dest="hops", const=True, note="hop counts are the default; drop it (--weighted: weights)"
    )
    p.set_defaults(hops=False)
    add_device_option(p)
    add_runtime_options(p)
    add_stats_options(p)
    p.set_defaults(func=_cmd_sssp)

    p = sub.add_parser(
        "info",
        help="graph statistics",
        formatter_class=HelpFormatter,
        description="Vertices, edges, self-loops, duplicates, degrees, memory.",
    )
    add_common_options(p, output=False)
    p.set_defaults(func=_cmd_info)
