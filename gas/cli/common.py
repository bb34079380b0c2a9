"""What every subcommand of the ``gas`` command shares: options, loading, progress, output.

Each subcommand module (:mod:`gas.cli.analytics`, :mod:`gas.cli.mf`, ...) builds its parser
from the helpers here and reports through them, so that the same flag means the same thing
and prints the same way everywhere.

Examples
--------
>>> import argparse
>>> from gas.cli.common import HelpFormatter, add_common_options
>>> p = argparse.ArgumentParser(prog="demo", formatter_class=HelpFormatter)
>>> add_common_options(p)
>>> args = p.parse_args(["g.txt", "-q", "--skip-rows", "1"])
>>> args.file, args.quiet, args.skip_rows, args.output
('g.txt', True, 1, None)
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from gas.algorithms.registry import parse_id
from gas.cli.args import nonneg_int, positive_int
from gas.errors import ConvergenceError
from gas.io.atomic import atomic_open

__all__ = [
    "HelpFormatter",
    "add_async_options",
    "add_common_options",
    "add_device_option",
    "add_unconverged_option",
    "load_graph",
    "parse_id",
    "progress_printer",
    "unconverged_output",
    "write_output",
    "write_values",
]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows every default and keeps the descriptions' own line breaks.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="demo", formatter_class=HelpFormatter)
    >>> _ = p.add_argument("--k", type=int, default=3, help="how many")
    >>> "(default: 3)" in p.format_help()
    True
    """


def progress_printer(quiet: bool) -> Callable[[dict[str, Any]], None] | None:
    """A progress callback printing one line per superstep on stderr (None when ``quiet``).

    Parameters
    ----------
    quiet : bool
        No progress at all.

    Returns
    -------
    callable or None
        Takes an engine's per-superstep statistics (``iteration``, ``active``, ``edges``,
        ``seconds``, optionally ``change`` and ``extrapolated``).

    Examples
    --------
    >>> progress_printer(True) is None
    True
    >>> show = progress_printer(False)
    >>> show({"iteration": 1, "active": 5, "edges": 9, "seconds": 0.5})  # doctest: +SKIP
    iter    1  active          5  edges            9  0.500 s  (total 0.00 s)
    """
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


def load_graph(args: argparse.Namespace, check_weights: str | None = None) -> Any:
    """Load ``args.file`` as the options of :func:`add_common_options` say.

    Parameters
    ----------
    args : argparse.Namespace
        ``file``, ``keep_duplicates``, ``skip_rows``, ``undirected`` and ``quiet``.
    check_weights : str, optional
        As :func:`gas.io.load`'s (e.g. ``"nonnegative"``).

    Returns
    -------
    gas.Graph
        Symmetrized with ``--undirected``; a line on stderr says what was loaded unless quiet.

    Examples
    --------
    >>> import argparse, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("1 2\\n2 3\\n")
    >>> ns = argparse.Namespace(file=path, keep_duplicates=False, skip_rows=0, undirected=True, quiet=True)
    >>> load_graph(ns).num_edges
    4
    """
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
    """Write ``id<TAB>value`` lines atomically (``fmt`` is a %-format for the value).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "out.tsv")
    >>> write_values(path, np.array([10, 20]), np.array([0.25, 0.75]), "%.17g")
    >>> open(path).read()
    '10\\t0.25\\n20\\t0.75\\n'
    """
    line = "%s\t" + fmt + "\n"
    with atomic_open(path) as f:
        chunk = 1 << 16
        id_list = ids.tolist()
        val_list = values.tolist()
        for i in range(0, len(id_list), chunk):
            f.write("".join(line % p for p in zip(id_list[i : i + chunk], val_list[i : i + chunk])))


def write_output(args: argparse.Namespace, g: Any, values: np.ndarray, fmt: str) -> None:
    """With ``--output``: write one ``id<TAB>value`` line per vertex of ``g`` and say so.

    By the extension: ``.csv`` writes CSV with an ``id,value`` header, ``.parquet`` a Parquet
    table (pyarrow: ``pip install 'gaslab[parquet]'``), anything else TSV; always atomically
    (:func:`gas.frames.write_table`).

    Examples
    --------
    >>> import argparse
    >>> import numpy as np
    >>> write_output(argparse.Namespace(output=None, quiet=True), None, np.zeros(2), "%g")
    """
    if args.output:
        from gas.frames import table_format, write_table

        if table_format(args.output) == "tsv":
            write_values(args.output, g.ids, values, fmt)
        else:
            write_table(args.output, g.ids, values, fmt)
        if not args.quiet:
            print(f"wrote {g.num_vertices:,d} lines to {args.output}", file=sys.stderr)


@contextlib.contextmanager
def unconverged_output(args: argparse.Namespace, g: Any, fmt: str) -> Iterator[None]:
    """The CLI contract for a library call that raises :class:`gas.ConvergenceError`.

    Its partial ``result`` is written only with ``--allow-unconverged`` (never a missing one);
    the error is then re-raised (exit status 3).

    Examples
    --------
    >>> import argparse
    >>> with unconverged_output(argparse.Namespace(output=None), None, "%g"):
    ...     pass
    """
    try:
        yield
    except ConvergenceError as exc:
        if getattr(args, "allow_unconverged", False) and isinstance(exc.result, np.ndarray):
            write_output(args, g, exc.result, fmt)
        raise


def add_common_options(p: argparse.ArgumentParser, output: bool = True) -> None:
    """FILE and the loading, output and progress options of the graph subcommands.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    output : bool
        Also ``--output`` and ``--threads`` (not for ``gas info``).

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_common_options(p, output=False)
    >>> sorted(vars(p.parse_args(["g.txt"])))
    ['allow_unconverged', 'file', 'keep_duplicates', 'quiet', 'skip_rows', 'undirected']
    """
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
    """``--allow-unconverged``: write the output of a run that stopped short (exit status is still 3).

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_unconverged_option(p)
    >>> p.parse_args(["--allow-unconverged"]).allow_unconverged
    True
    """
    p.add_argument(
        "--allow-unconverged",
        action="store_true",
        help="when the run stops before its tolerance (exit status 3), still write its output",
    )


def add_async_options(p: argparse.ArgumentParser, default_scheduler: str = "fifo") -> None:
    """``--engine``, ``--scheduler`` and ``--consistency`` (see :class:`gas.AsyncEngine`).

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_async_options(p, default_scheduler="priority")
    >>> a = p.parse_args(["--engine", "async"])
    >>> a.engine, a.scheduler, a.consistency
    ('async', 'priority', None)
    """
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


def add_device_option(p: argparse.ArgumentParser) -> None:
    """``--device {cpu,cuda,auto}``: where the run executes (see :mod:`gas.cuda_device`).

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_device_option(p)
    >>> p.parse_args([]).device, p.parse_args(["--device", "auto"]).device
    ('cpu', 'auto')
    """
    from gas.cuda_device import AUTO_MIN_EDGES, DEVICES

    p.add_argument(
        "--device",
        choices=DEVICES,
        default="cpu",
        help=(
            "cuda: run on an NVIDIA GPU (needs pip install 'gaslab[cuda]'; with --procs N, one GPU "
            "per process); auto: the GPU when numba-cuda and a GPU are present and the graph has "
            f"at least {AUTO_MIN_EDGES:,d} edges, else the CPU"
        ),
    )
