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
from collections.abc import Iterator
from typing import Any

import numpy as np

from gas.algorithms.registry import parse_id
from gas.cli.args import nonneg_int, positive_int
from gas.errors import ConvergenceError
from gas.io.atomic import atomic_open

__all__ = [
    "DeprecatedFlag",
    "HelpFormatter",
    "ProgressPrinter",
    "add_async_options",
    "add_common_options",
    "add_deprecated_flag",
    "add_device_option",
    "add_unconverged_option",
    "load_graph",
    "parse_id",
    "progress_printer",
    "run_summary",
    "unconverged_output",
    "write_output",
    "write_values",
]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each meaningful default once and keeps the descriptions' own line breaks.

    ``(default: X)`` is added to an option's help unless the help already states its default
    (``(default ...`` or ``default:``), the default is ``None`` (not given: the help says what happens then),
    or the option is an on/off switch that is off by default (``store_true``). A
    ``--x/--no-x`` pair shows the one in effect by default: ``(default: --x)``.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="demo", formatter_class=HelpFormatter)
    >>> _ = p.add_argument("--k", type=int, default=3, help="how many")
    >>> _ = p.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    >>> _ = p.add_argument("--fast", action="store_true", help="go fast")
    >>> text = " ".join(p.format_help().split())
    >>> "(default: 3)" in text, text.count("(default:"), "(default: None)" in text
    (True, 2, False)
    """

    def _split_lines(self, text: str, width: int) -> list[str]:
        """Wrap option help at spaces only: a flag such as ``--weighted-lambda`` stays whole."""
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if isinstance(action, argparse.BooleanOptionalAction) and isinstance(action.default, bool):
            if "%(default)" in text or "(default" in text:
                return action.help
            on, off = action.option_strings[0], action.option_strings[-1]  # --x, --no-x
            return f"{text} (default: {on if action.default else off})"
        if (
            "%(default)" in text
            or "(default" in text
            or "default:" in text
            or action.default is None
            or action.default is argparse.SUPPRESS
            or isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
            or action.nargs == 0
        ):
            return action.help
        return super()._get_help_string(action)


class ProgressPrinter:
    """The per-superstep progress line on stderr, and the clock the run's summary uses.

    Each line shows the superstep's own seconds and ``(total X s)``, the running sum of those
    seconds: the supersteps alone, the same sum the summary line reports (:meth:`summary`).
    The time before the first superstep (compiling the kernels, building the run) is not in
    any column; the summary states it separately, measured on the wall clock from the
    printer's creation.

    Examples
    --------
    >>> show = ProgressPrinter()
    >>> show({"iteration": 1, "active": 5, "edges": 9, "seconds": 0.5})  # doctest: +SKIP
    iter    1  active          5  edges            9  0.500 s  (total 0.50 s)
    >>> show.total = 0.5  # as after that line
    >>> show.summary(1, "supersteps", wall=2.0)
    '1 supersteps in 0.50 s (sum of the per-step times; 1.50 s outside them: compilation, set-up)'
    """

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.total = 0.0

    def __call__(self, stat: dict[str, Any]) -> None:
        self.total += float(stat["seconds"])
        extra = ""
        if "change" in stat:
            extra = f"  residual {stat['change']:.3e}"
        if stat.get("extrapolated"):
            extra += " (extrapolated)"
        print(
            f"iter {stat['iteration']:4d}  active {stat['active']:>10,d}  edges {stat['edges']:>12,d}"
            f"{extra}  {stat['seconds']:.3f} s  (total {self.total:.2f} s)",
            file=sys.stderr,
            flush=True,
        )

    def summary(self, steps: int, unit: str, seconds: float | None = None, wall: float | None = None) -> str:
        """``"N <unit> in X s ..."``: X the summed per-step seconds (``seconds``, default what
        the lines summed), and the wall-clock rest (``wall``, default: now) outside them."""
        secs = self.total if seconds is None else seconds
        elapsed = (time.perf_counter() - self.start) if wall is None else wall
        return (
            f"{steps} {unit} in {secs:.2f} s (sum of the per-step times; "
            f"{max(elapsed - secs, 0.0):.2f} s outside them: compilation, set-up)"
        )


def progress_printer(quiet: bool) -> ProgressPrinter | None:
    """A progress callback printing one line per superstep on stderr (None when ``quiet``).

    Parameters
    ----------
    quiet : bool
        No progress at all.

    Returns
    -------
    ProgressPrinter or None
        Takes an engine's per-superstep statistics (``iteration``, ``active``, ``edges``,
        ``seconds``, optionally ``change`` and ``extrapolated``); its ``(total X s)`` column
        is the running sum of the ``seconds`` column.

    Examples
    --------
    >>> progress_printer(True) is None
    True
    >>> show = progress_printer(False)
    >>> show({"iteration": 1, "active": 5, "edges": 9, "seconds": 0.5})  # doctest: +SKIP
    iter    1  active          5  edges            9  0.500 s  (total 0.50 s)
    """
    return None if quiet else ProgressPrinter()


def run_summary(steps: int, unit: str, stats: list[dict[str, Any]], progress: Any = None) -> str:
    """The end-of-run line: steps and their summed seconds (the progress lines' ``total``).

    Parameters
    ----------
    steps : int
        Supersteps (rounds, iterations) run.
    unit : str
        Their name (``"iterations"``, ``"supersteps"``, ``"rounds"``).
    stats : list of dict
        The run's per-step statistics (``seconds`` each).
    progress : ProgressPrinter, optional
        The run's printer: adds the time spent before the first step.

    Examples
    --------
    >>> run_summary(2, "iterations", [{"seconds": 0.25}, {"seconds": 0.5}])
    '2 iterations in 0.75 s'
    """
    secs = sum(float(s["seconds"]) for s in stats)
    if isinstance(progress, ProgressPrinter):
        return progress.summary(steps, unit, seconds=secs)
    return f"{steps} {unit} in {secs:.2f} s"


def load_graph(
    args: argparse.Namespace, check_weights: str | None = None, *, weights: bool | None = False
) -> Any:
    """Load ``args.file`` as the options of :func:`add_common_options` say.

    Parameters
    ----------
    args : argparse.Namespace
        ``file``, ``keep_duplicates``, ``skip_rows``, ``undirected`` and ``quiet``.
    check_weights : str, optional
        As :func:`gas.io.load`'s (e.g. ``"nonnegative"``); only with ``weights``.
    weights : bool or None, default False
        The subcommand's ``--weighted``: True reads the third column as edge weights (and
        requires one), False ignores any column past the second (a ``.npz``'s weights are
        dropped), None reads weights when the file has them (``gas info``, which uses none).

    Returns
    -------
    gas.Graph
        Symmetrized with ``--undirected``; a line on stderr says what was loaded unless quiet.

    Raises
    ------
    gas.InputError
        With ``weights=True``, a file without weights.

    Examples
    --------
    >>> import argparse, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("1 2 0.5\\n2 3 -1\\n")
    >>> ns = argparse.Namespace(file=path, keep_duplicates=False, skip_rows=0, undirected=True, quiet=True)
    >>> g = load_graph(ns)
    >>> g.num_edges, g.weights is None
    (4, True)
    >>> sorted(load_graph(ns, weights=True).weights.tolist())
    [-1.0, -1.0, 0.5, 0.5]
    """
    from gas.io import load

    t0 = time.perf_counter()
    g = load(
        args.file,
        weights=weights,
        dedupe=not args.keep_duplicates,
        skip_rows=args.skip_rows,
        check_weights=check_weights if weights else None,
        labels=getattr(args, "labels", False),
    )
    if weights is False and g.weights is not None:  # a .npz keeps its weights whatever the option
        g = _without_weights(g)
    if weights and g.weights is None:
        from gas.errors import InputError

        raise InputError(
            "expected edge weights (--weighted), found none", path=str(args.file), hint="drop --weighted"
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


def _without_weights(g: Any) -> Any:
    """``g`` without its ``"weight"`` edge column: a shallow copy sharing the structure."""
    import copy

    out = copy.copy(g)
    out.edata = {k: v for k, v in g.edata.items() if k != "weight"}
    return out


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
    ['allow_unconverged', 'file', 'keep_duplicates', 'labels', 'quiet', 'skip_rows', 'undirected']
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
        "--labels",
        action="store_true",
        help="vertices are named by text labels (any token), not integer ids; output uses the labels",
    )
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


class DeprecatedFlag(argparse.Action):
    """A hidden old spelling of a flag: sets ``dest`` to ``const`` and prints a one-line note.

    Add it with :func:`add_deprecated_flag`; the note names the spelling to use instead.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="demo")
    >>> _ = p.add_argument("--new", action="store_true")
    >>> add_deprecated_flag(p, "--old", dest="new", const=True, note="use --new")
    >>> p.parse_args(["--old"]).new  # doctest: +SKIP
    gas: note: --old is deprecated: use --new
    True
    """

    def __init__(self, option_strings: list[str], dest: str, note: str = "", **kwargs: Any) -> None:
        self.note = note
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        print(f"gas: note: {option_string} is deprecated: {self.note}", file=sys.stderr)
        setattr(namespace, self.dest, self.const)


def add_deprecated_flag(p: argparse.ArgumentParser, flag: str, *, dest: str, const: Any, note: str) -> None:
    """Accept ``flag`` as a hidden, deprecated way to set ``dest`` to ``const`` (see :class:`DeprecatedFlag`).

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="demo")
    >>> _ = p.add_argument("--count", type=int, default=0)
    >>> add_deprecated_flag(p, "--one", dest="count", const=1, note="use --count 1")
    >>> "--one" in p.format_help()
    False
    """
    p.add_argument(flag, action=DeprecatedFlag, dest=dest, const=const, note=note, help=argparse.SUPPRESS)
