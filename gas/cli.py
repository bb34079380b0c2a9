"""The ``gas`` command: one entry point, a subcommand per workload.

Every subcommand loads FILE (an edge list, optionally compressed, or a ``.npz`` saved by
``gas.save``), shows progress per superstep on stderr, and writes ``id<TAB>value`` for every
vertex with ORIGINAL ids, atomically, when ``--output`` is given. Errors are one line on stderr
(with a hint) and exit status 2: a bad argument (the checked argparse types of :mod:`gas.cli_args`
refuse it before anything is read), a bad input file (named with its line), an output path that
cannot be written (checked before any work). A run that stops short of its tolerance exits with
status 3. Anything else escaping a subcommand is a bug: "internal error", exit status 1, with the
traceback only when ``GAS_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from gas.cli_args import nonneg_int, positive_int, tolerance, unit_interval
from gas.errors import ConvergenceError, GasError
from gas.io.atomic import atomic_open, check_output_path

__all__ = ["main", "build_parser"]


class _Fmt(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass


def _progress(quiet: bool) -> Callable[[dict[str, Any]], None] | None:
    if quiet:
        return None
    start = time.perf_counter()

    def show(stat: dict[str, Any]) -> None:
        extra = ""
        if "change" in stat:
            extra = f"  residual {stat['change']:.3e}"
        if stat.get("extrapolated"):
            extra += " (extrapolated)"
        print(
            f"iter {stat['iteration']:4d}  active {stat['active']:>10,d}  edges {stat['edges']:>12,d}"
            f"{extra}  {stat['seconds']:.3f} s  (total {time.perf_counter() - start:.2f} s)",
            file=sys.stderr,
            flush=True,
        )

    return show


def _load(args: argparse.Namespace, check_weights: str | None = None) -> Any:
    """Load ``args.file`` as the subcommand's options say; ``check_weights`` as gas.io.load's."""
    from gas.io import load

    t0 = time.perf_counter()
    g = load(
        args.file,
        dedupe=not args.keep_duplicates,
        skip_rows=args.skip_rows,
        check_weights=check_weights,
    )
    if args.undirected:
        g = g.symmetrized()
    if not args.quiet:
        print(
            f"loaded {args.file}: {g.num_vertices:,d} vertices, {g.num_edges:,d} edges"
            f"{' (weighted)' if g.weights is not None else ''} in {time.perf_counter() - t0:.2f} s",
            file=sys.stderr,
        )
    return g


def write_values(path: str, ids: np.ndarray, values: np.ndarray, fmt: str) -> None:
    """Write ``id<TAB>value`` lines atomically (``fmt`` is a %-format for the value)."""
    line = "%s\t" + fmt + "\n"
    with atomic_open(path) as f:
        chunk = 1 << 16
        id_list = ids.tolist()
        val_list = values.tolist()
        for i in range(0, len(id_list), chunk):
            f.write("".join(line % p for p in zip(id_list[i : i + chunk], val_list[i : i + chunk])))


def _finish(args: argparse.Namespace, g: Any, values: np.ndarray, fmt: str) -> None:
    if args.output:
        write_values(args.output, g.ids, values, fmt)
        if not args.quiet:
            print(f"wrote {g.num_vertices:,d} lines to {args.output}", file=sys.stderr)


@contextlib.contextmanager
def _unconverged_output(args: argparse.Namespace, g: Any, fmt: str) -> Iterator[None]:
    """The CLI contract for a library call that raises :class:`gas.ConvergenceError`: write its
    partial ``result`` only with ``--allow-unconverged`` (never a missing one), then re-raise
    (exit status 3)."""
    try:
        yield
    except ConvergenceError as exc:
        if getattr(args, "allow_unconverged", False) and isinstance(exc.result, np.ndarray):
            _finish(args, g, exc.result, fmt)
        raise


def _cmd_pagerank(args: argparse.Namespace) -> int:
    from gas.algorithms import pagerank

    every = args.extrapolate_every
    if every is not None and (every < 0 or 0 < every < 3):
        raise GasError(f"Expected --extrapolate-every 0 (none) or at least 3 (got {every})")
    if every and args.engine == "async":
        raise GasError("--extrapolate-every is for the synchronous engine; drop it or --engine async")
    if (status := _distributed_file(args, "pagerank")) is not None:
        return status
    g = _load(args, check_weights="finite-nonnegative" if args.weighted else None)
    if (status := _distributed(args, g, "pagerank")) is not None:
        return status
    import warnings

    with warnings.catch_warnings(record=True) as caught, _unconverged_output(args, g, "%.17g"):
        warnings.simplefilter("always")
        ranks, res = pagerank(
            g,
            alpha=args.alpha,
            tol=args.tol,
            max_iter=args.max_iter,
            weight="weight" if (args.weighted and g.weights is not None) else None,
            threads=args.threads,
            progress=_progress(args.quiet),
            return_result=True,
            engine=args.engine,
            scheduler=args.scheduler,
            consistency=args.consistency,
            # pagerank()'s own default unless the flag was given
            **({} if every is None else {"extrapolate_every": every}),
        )
    for w in caught:
        print(f"gas: warning: {w.message}", file=sys.stderr)
    if not args.quiet:
        secs = sum(s["seconds"] for s in res.stats)
        print(f"{res.iterations} iterations in {secs:.2f} s", file=sys.stderr)
    _finish(args, g, ranks, "%.17g")
    if args.top:
        order = np.argsort(-ranks, kind="stable")[: args.top]
        print("id\tscore")
        for v in order.tolist():
            print(f"{g.ids[v]}\t{ranks[v]:.17g}")
    return 0


def _cmd_cc(args: argparse.Namespace) -> int:
    from gas.algorithms import connected_components

    if (status := _distributed_file(args, "cc")) is not None:
        return status
    g = _load(args)
    if (status := _distributed(args, g, "cc")) is not None:
        return status
    with _unconverged_output(args, g, "%s"):
        comp = connected_components(g, threads=args.threads, progress=_progress(args.quiet))
    labels, sizes = np.unique(comp, return_counts=True)
    print(f"components\t{labels.size}")
    if sizes.size:
        print(f"largest\t{int(sizes.max())}")
    if args.top:
        order = np.argsort(-sizes, kind="stable")[: args.top]
        print("component\tsize")
        for i in order.tolist():
            print(f"{labels[i]}\t{sizes[i]}")
    _finish(args, g, comp, "%s")
    return 0


def _cmd_sssp(args: argparse.Namespace) -> int:
    from gas.algorithms import sssp

    if (status := _distributed_file(args, "sssp")) is not None:
        return status
    g = _load(args, check_weights=None if args.hops else "nonnegative")
    if (status := _distributed(args, g, "sssp")) is not None:
        return status
    src = _parse_id(args.source, g)
    with _unconverged_output(args, g, "%.17g"):
        dist = sssp(
            g,
            src,
            weight=None if args.hops else "weight",
            threads=args.threads,
            progress=_progress(args.quiet),
        )
    reach = np.isfinite(dist)
    kind = "hops" if (args.hops or g.weights is None) else "weighted"
    print(f"source\t{args.source}\nmode\t{kind}\nreachable\t{int(reach.sum())}")
    if reach.any():
        print(f"max_distance\t{float(dist[reach].max()):.17g}")
    _finish(args, g, dist, "%.17g")
    return 0


def _distributed_file(args: argparse.Namespace, command: str) -> int | None:
    """Several ranks (--procs, a launcher): each reads only its share of the file (gas.runtime.cli)."""
    from gas.runtime.cli import maybe_distributed_file

    return maybe_distributed_file(args, command)


def _distributed(args: argparse.Namespace, g: Any, command: str) -> int | None:
    """Run on several processes (--procs, a launcher, --checkpoint-dir): gas.runtime.cli."""
    from gas.runtime.cli import maybe_distributed

    return maybe_distributed(args, g, command)


def _parse_id(text: str, g: Any) -> Any:
    if g.ids.dtype == object:
        return text
    try:
        return int(text)
    except ValueError:
        raise GasError(f"Expected --source to be an integer vertex id (got {text!r})") from None


def _cmd_info(args: argparse.Namespace) -> int:
    g = _load(args)
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


def _common(p: argparse.ArgumentParser, output: bool = True) -> None:
    p.add_argument("file", metavar="FILE", help="edge list (.txt/.tsv/.csv, .gz/.bz2) or .npz")
    if output:
        p.add_argument(
            "--output",
            "-o",
            metavar="PATH",
            default=None,
            help="write id<TAB>value lines here (atomically)",
        )
        p.add_argument(
            "--threads", type=positive_int, default=None, help="Numba threads (default: all cores)"
        )
    p.add_argument(
        "--skip-rows", type=nonneg_int, default=0, help="skip this many leading lines (e.g. a CSV header)"
    )
    p.add_argument("--keep-duplicates", action="store_true", help="keep repeated edges as parallel edges")
    p.add_argument(
        "--undirected",
        action="store_true",
        help="treat each line as an undirected edge (add the reverse)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    add_unconverged_option(p)


def add_unconverged_option(p: argparse.ArgumentParser) -> None:
    """``--allow-unconverged``: write the output of a run that stopped short (exit status is still 3)."""
    p.add_argument(
        "--allow-unconverged",
        action="store_true",
        help="when the run stops before its tolerance (exit status 3), still write its output",
    )


# modules that add their own subcommands with register(subparsers), in --help order
_PLUGINS = (
    "gas.partition.cli",
    "gas.algorithms.coloring_cli",
    "gas.algorithms.mf_cli",
    "gas.algorithms.lda_cli",
    "gas.runtime.cli",
)
_PLUGINS = tuple(
    m
    for m in _PLUGINS
    if importlib.util.find_spec(m.rsplit(".", 1)[0]) is not None and importlib.util.find_spec(m) is not None
)


def add_async_options(p: argparse.ArgumentParser, default_scheduler: str = "fifo") -> None:
    """``--engine``, ``--scheduler`` and ``--consistency`` (see gas.AsyncEngine)."""
    from gas.async_engine import CONSISTENCY, SCHEDULERS

    p.add_argument("--engine", choices=("sync", "async"), default="sync", help="execution engine")
    p.add_argument(
        "--scheduler", choices=SCHEDULERS, default=default_scheduler, help="async engine: order of updates"
    )
    p.add_argument(
        "--consistency",
        choices=CONSISTENCY,
        default=None,
        help="async engine: consistency model (default: the weakest the program is safe under)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gas`` command (subcommands registered here)."""
    parser = argparse.ArgumentParser(
        prog="gas",
        description="gaslab: Gather-Apply-Scatter graph analytics compiled with Numba.",
        formatter_class=_Fmt,
    )
    from gas import __version__
    from gas.runtime.cli import add_runtime_options

    parser.add_argument("--version", action="version", version=f"gaslab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser(
        "pagerank",
        help="PageRank (networkx normalization)",
        formatter_class=_Fmt,
        description="PageRank of every vertex; scores sum to 1.",
    )
    _common(p)
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
    p.add_argument("--top", type=nonneg_int, default=10, help="print the top K vertices (0: none)")
    p.add_argument("--weighted", action="store_true", help="use the third column as edge weights")
    add_runtime_options(p)
    p.set_defaults(func=_cmd_pagerank)

    p = sub.add_parser(
        "cc",
        help="weakly connected components",
        formatter_class=_Fmt,
        description="Component of every vertex = smallest original id in it.",
    )
    _common(p)
    p.add_argument("--top", type=nonneg_int, default=0, help="print the K largest components")
    add_runtime_options(p)
    p.set_defaults(func=_cmd_cc)

    p = sub.add_parser(
        "sssp",
        help="single-source shortest paths",
        formatter_class=_Fmt,
        description="Distances from --source (weighted if the file has a third column, "
        "else hop counts); unreachable = inf.",
    )
    _common(p)
    p.add_argument("--source", required=True, metavar="ID", help="original id of the source vertex")
    p.add_argument("--hops", action="store_true", help="count hops even if the file has weights")
    add_runtime_options(p)
    p.set_defaults(func=_cmd_sssp)

    p = sub.add_parser(
        "info",
        help="graph statistics",
        formatter_class=_Fmt,
        description="Vertices, edges, self-loops, duplicates, degrees, memory.",
    )
    _common(p, output=False)
    p.set_defaults(func=_cmd_info)

    for modname in _PLUGINS:
        importlib.import_module(modname).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gas`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        # every output path, checked before any work: snapshot folders on every rank, output
        # files on rank 0 (under a launcher, only rank 0 writes them)
        outputs = ("output", "output_topics", "save_model", "checkpoint_dir", "dir")
        given = [(name, getattr(args, name)) for name in outputs if getattr(args, name, None)]
        if given:
            from gas.runtime.launch import detect_world

            rank = detect_world()[0]
        for name, path in given:
            if rank == 0 or name in ("checkpoint_dir", "dir"):
                check_output_path(path, folder=name in ("save_model", "checkpoint_dir", "dir"))
        return int(args.func(args) or 0)
    except ConvergenceError as exc:
        print(f"gas: error: {exc}", file=sys.stderr)
        if not getattr(args, "allow_unconverged", False):
            print(
                "  hint: raise --max-iter (or --iters), loosen --tol, or pass --allow-unconverged to "
                "write the partial result anyway",
                file=sys.stderr,
            )
        return 3
    except GasError as exc:
        print(f"gas: error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"gas: error: {exc.filename or exc}: file not found", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `gas pagerank FILE | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MemoryError:
        print(
            "gas: error: out of memory\n  hint: the input is too large for this machine; use a "
            "smaller graph, or --procs/a launcher to spread it over several processes or hosts",
            file=sys.stderr,
        )
        return 2
    except OSError as exc:  # permissions, a full disk, a path that is a folder, ...
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gas: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug, not bad input: say so; the traceback only when asked
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    """Report an unexpected exception (exit status 1); ``GAS_DEBUG=1`` prints its traceback."""
    import os

    if os.environ.get("GAS_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exception(exc)
    print(
        f"gas: internal error: {type(exc).__name__}: {exc}\n  hint: this is a bug in gaslab, not in "
        "your input; please report it with the command line (GAS_DEBUG=1 shows the traceback)",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
