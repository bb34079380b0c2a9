"""Checked argument types for the ``gas`` command: bad values become argparse errors (exit 2).

Each function here is an ``argparse`` ``type=``: it turns the text into a value or raises
:class:`argparse.ArgumentTypeError`, which argparse prints as ``argument --x: ...`` with the
usage line and exit status 2, never a traceback.

Examples
--------
>>> import argparse
>>> from gas.cli.args import positive_int, unit_interval
>>> p = argparse.ArgumentParser()
>>> _ = p.add_argument("--alpha", type=unit_interval)
>>> _ = p.add_argument("--iters", type=positive_int)
>>> p.parse_args(["--alpha", "0.85", "--iters", "3"])
Namespace(alpha=0.85, iters=3)
"""

from __future__ import annotations

import argparse
import math
import os

__all__ = [
    "finite_float",
    "max_procs",
    "nonneg_float",
    "nonneg_int",
    "plot_path",
    "positive_float",
    "positive_int",
    "procs",
    "stats_path",
    "tolerance",
    "unit_interval",
]


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


_INT64_MAX = 2**63 - 1


def _integer(text: str) -> int:
    """A whole number that fits compiled code's int64."""
    try:
        x = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if abs(x) > _INT64_MAX:
        raise argparse.ArgumentTypeError(f"expected a whole number below 2**63, got {text!r}")
    return x


def finite_float(text: str) -> float:
    """Any finite number (no ``nan``/``inf``).

    Examples
    --------
    >>> finite_float("-1.5")
    -1.5
    >>> finite_float("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a finite number, got 'inf'
    """
    x = _number(text)
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return x


def nonneg_float(text: str) -> float:
    """A finite number ``>= 0`` (a regularization, a prior).

    Examples
    --------
    >>> nonneg_float("0")
    0.0
    """
    x = finite_float(text)
    if x < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return x


def positive_float(text: str) -> float:
    """A finite number ``> 0`` (a learning rate, a prior).

    Examples
    --------
    >>> positive_float("0.02")
    0.02
    """
    x = finite_float(text)
    if x <= 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return x


def unit_interval(text: str) -> float:
    """A probability in ``[0, 1]`` (PageRank's damping factor).

    Examples
    --------
    >>> unit_interval("1")
    1.0
    >>> unit_interval("1.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number in [0, 1], got '1.5'
    """
    x = finite_float(text)
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return x


def tolerance(text: str) -> float:
    """A stopping tolerance: finite and ``> 0``.

    Examples
    --------
    >>> tolerance("1e-6")
    1e-06
    """
    x = finite_float(text)
    if x <= 0:
        raise argparse.ArgumentTypeError(f"expected a tolerance > 0, got {text!r}")
    return x


def positive_int(text: str) -> int:
    """A whole number ``>= 1``.

    Examples
    --------
    >>> positive_int("3")
    3
    >>> positive_int("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number >= 1, got '0'
    """
    x = _integer(text)
    if x < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return x


def nonneg_int(text: str) -> int:
    """A whole number ``>= 0``.

    Examples
    --------
    >>> nonneg_int("0")
    0
    """
    x = _integer(text)
    if x < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return x


def max_procs() -> int:
    """Most local processes ``--procs`` accepts: twice the usable cores, at least 4.

    ``GAS_MAX_PROCS`` overrides it (each local process holds sockets, a Numba runtime and its
    share of the graph; far more processes than cores only adds overhead).

    Examples
    --------
    >>> max_procs() >= 1
    True
    """
    env = os.environ.get("GAS_MAX_PROCS")
    if env is not None and env.strip().isdigit() and int(env) > 0:
        return int(env)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(4, 2 * cores)


def procs(text: str) -> int:
    """``--procs N``: ``1 <= N <= max_procs()``.

    Examples
    --------
    >>> procs("2")
    2
    """
    x = positive_int(text)
    limit = max_procs()
    if x > limit:
        cores = os.cpu_count() or 1
        raise argparse.ArgumentTypeError(
            f"{x} processes on a machine with {cores} cores: at most {limit} are allowed "
            f"(set GAS_MAX_PROCS={x} to override)"
        )
    return x


#: ``--stats FILE``: the file formats, by extension
STATS_FORMATS = {".csv": "csv", ".json": "json"}
#: ``--plot FILE``: the image formats matplotlib writes without extra packages
PLOT_FORMATS = (".png", ".svg", ".pdf")


def stats_path(text: str) -> str:
    """``--stats FILE``: a path ending in ``.csv`` or ``.json`` (the format), checked at parse time.

    Examples
    --------
    >>> stats_path("run.json")
    'run.json'
    >>> stats_path("run.txt")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a file name ending in .csv or .json (the format), got 'run.txt'
    """
    if os.path.splitext(text)[1].lower() not in STATS_FORMATS:
        raise argparse.ArgumentTypeError(
            f"expected a file name ending in .csv or .json (the format), got {text!r}"
        )
    return text


def plot_path(text: str) -> str:
    """``--plot FILE.png``: an image path (``.png``, ``.svg`` or ``.pdf``), refused at parse time
    when matplotlib, the optional ``plot`` extra, is not installed.

    Examples
    --------
    >>> plot_path("conv.gif")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an image file name ending in .png, .svg or .pdf, got 'conv.gif'
    """
    if os.path.splitext(text)[1].lower() not in PLOT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"expected an image file name ending in .png, .svg or .pdf, got {text!r}"
        )
    if not _installed("matplotlib"):
        raise argparse.ArgumentTypeError(
            "drawing a plot needs matplotlib, which is not installed: pip install 'gaslab[plot]' "
            "(or drop --plot; --stats FILE.csv records the same numbers)"
        )
    return text


def _installed(module: str) -> bool:
    """Whether ``import module`` would find it, without importing it (``sys.modules[module] =
    None``, the standard way to hide a module, counts as missing)."""
    import importlib.util
    import sys

    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
