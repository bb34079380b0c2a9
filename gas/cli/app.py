"""The ``gas`` command's parser and its ``main``: subcommands, exit statuses, one-line errors.

The subcommands come from one module per group (:mod:`gas.cli.analytics`, ...), each adding its
own with ``register(subparsers)``, in the ``--help`` order of :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gas.cli import analytics, centrality, coloring, diameter, lda, mf, partition, resume, toolkits, warmup
from gas.cli.common import HelpFormatter
from gas.cli.hints import cli_message, convergence_hint, subcommand_options
from gas.errors import ConvergenceError, GasError
from gas.io.atomic import check_output_path

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

# modules that add their own subcommands with register(subparsers), in --help order
SUBCOMMANDS = (analytics, toolkits, centrality, diameter, partition, coloring, mf, lda, resume, warmup)

# options naming a path the run writes: checked before any work (folders for the last three)
_OUTPUTS = ("output", "output_topics", "stats", "plot", "save_model", "checkpoint_dir", "dir")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gas`` command, every subcommand registered.

    Examples
    --------
    >>> args = build_parser().parse_args(["cc", "g.txt", "--top", "3"])
    >>> args.command, args.top
    ('cc', 3)
    """
    parser = argparse.ArgumentParser(
        prog="gas",
        description="gaslab: Gather-Apply-Scatter graph analytics compiled with Numba.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gaslab {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in SUBCOMMANDS:
        module.register(sub)
    return parser


def _version() -> str:
    """The installed gaslab's version (the top-level package's ``__version__``)."""
    return sys.modules["gas"].__version__  # loaded: this module is inside it


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output path, checked before any work: snapshot folders on every rank, output
    files on rank 0 (under a launcher, only rank 0 writes them)."""
    given = [(name, getattr(args, name)) for name in _OUTPUTS if getattr(args, name, None)]
    if not given:
        return
    from gas.runtime.launch import detect_world

    rank = detect_world()[0]
    for name, path in given:
        if rank == 0 or name in ("checkpoint_dir", "dir"):
            check_output_path(path, folder=name in ("save_model", "checkpoint_dir", "dir"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gas`` command; returns the exit status.

    0 on success; 2 for bad input (a bad argument, file or output path; one line on stderr with
    a hint); 3 when a run stops short of its tolerance; 1 for an internal error; 130 when
    interrupted.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("1 2\\n2 3\\n")
    >>> main(["cc", path, "-q"])
    components	1
    largest	3
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    # the subcommand's flags: library keywords in messages are said as these (gas.cli.common.cli_message)
    options = args.cli_options = subcommand_options(parser, args.command)
    try:
        _check_outputs(args)
        return int(args.func(args) or 0)
    except ConvergenceError as exc:
        print(f"gas: error: {cli_message(str(exc), options)}", file=sys.stderr)
        if not getattr(args, "allow_unconverged", False):
            print(f"  hint: {convergence_hint(options)}", file=sys.stderr)
        return 3
    except GasError as exc:
        print(f"gas: error: {cli_message(str(exc), options)}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"gas: error: {exc.filename or exc}: file not found", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `gas pagerank FILE | head`: the reader left; not an error
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
    if os.environ.get("GAS_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exception(exc)
    print(
        f"gas: internal error: {type(exc).__name__}: {exc}\n  hint: this is a bug in gaslab, not in "
        "your input; please report it with the command line (GAS_DEBUG=1 shows the traceback)",
        file=sys.stderr,
    )
    return 1
