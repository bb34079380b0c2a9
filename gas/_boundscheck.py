"""Bounds checks of compiled vertex programs: the check functions and the table of checked sites.

In a checked build (the default) :mod:`gas._rewrite` routes every integer index a user method
writes through :func:`check_index`, and a ``for j in range(lo, hi)`` loop whose accesses run on
every iteration through one :func:`check_range`/:func:`check_fixed` at its start. A failed
check leaves its site code, index and length in the program's parameter record
(:data:`ERROR_FIELDS`) instead of raising inside a parallel loop; :meth:`BoundsChecks.error`
turns that record into the :class:`gas.ProgramError` the engine raises after the kernel
returns. Each check is a Python function (run as is by the uncompiled methods) with a Numba
overload of the same behaviour for the compiled kernels. The three checks are compiled once per
argument types and called (LLVM inlines them: they take integers and the record, never an
array), not inlined at Numba IR level: an IR-inlined overload is re-parsed and re-typed at every
site of every kernel, which cost about a fifth of a checked program's cold compile (LDA: 39 ->
31 CPU-s). :func:`extent` stays IR-inlined: it takes the array, and an array handed to a call
costs reference-count updates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba.core import types as nbtypes
from numba.extending import overload

from gas.errors import ProgramError

__all__ = [
    "ERROR_FIELDS",
    "BoundsChecks",
    "CheckSite",
    "MethodChecks",
    "check_fixed",
    "check_index",
    "check_range",
    "extent",
]


# fields a checked program's parameter record gains: the first failing check's site code (1-based;
# 0: no error), its index and the length it was checked against
ERROR_FIELDS: tuple[tuple[str, type], ...] = (
    ("_gas_err", np.int64),
    ("_gas_idx", np.int64),
    ("_gas_len", np.int64),
)


@dataclass(frozen=True)
class CheckSite:
    """One checked index of a user method (``axis`` of the subscript ``text``)."""

    where: str
    filename: str
    line: int
    text: str
    what: str
    axis: int
    hint: str


@dataclass
class BoundsChecks:
    """The checked index sites of one program, numbered across its methods (code = position + 1).

    The codes are compiled into the rewritten methods; :meth:`error` turns the code a failed check
    left in the parameter record into the :class:`gas.ProgramError` to raise.
    """

    sites: list[CheckSite] = field(default_factory=list)

    def add(self, site: CheckSite) -> int:
        self.sites.append(site)
        return len(self.sites)

    def error(self, params: np.ndarray) -> ProgramError | None:
        """The error a failed check recorded in ``params`` (None if none), and reset the record."""
        rec = params[0]
        code = int(rec["_gas_err"])
        if code == 0:
            return None
        idx, n = int(rec["_gas_idx"]), int(rec["_gas_len"])
        for name, _ in ERROR_FIELDS:
            params[name] = 0
        if not 0 < code <= len(self.sites):  # pragma: no cover - codes come from this table
            return ProgramError(f"an index check failed (code {code}, index {idx}, length {n})")
        s = self.sites[code - 1]
        axis = f" (axis {s.axis})" if s.axis else ""
        return ProgramError(
            f"{s.where} ({s.filename}:{s.line}): index {idx} is out of range for {s.what}{axis}, "
            f"of length {n}, in '{s.text}' (valid: {-n}..{n - 1}; a negative index counts from the "
            f"end, as in Python). The bounds check stopped the run; vertex data may be partly "
            f"updated. Fix: {s.hint.format(last=n - 1)}"
        )


@dataclass
class MethodChecks:
    """What :func:`rewrite_method` needs to insert bounds checks into one method.

    ``labels`` describes each parameter after ``self`` that holds an array (the accumulator of an
    array ``gather_type``), ``""`` for the others; ``field_dtypes`` maps ``"vertex"``/``"edge"`` to
    the declared fields' dtypes (for messages).
    """

    table: BoundsChecks
    labels: tuple[str, ...] = ()
    field_dtypes: dict[str, dict[str, np.dtype]] = field(default_factory=dict)
    gather_ndim: int = 0  # dimensions of the labelled gather totals


def extent(X: Any, axis: int) -> int | None:
    """The length of ``X`` along ``axis``, or None if ``X`` is not an array with that axis (its
    indexing is then not checked; compiled, None is a type, so a constant index into a tuple
    stays a constant). Checks take lengths, not arrays: a row view handed to a check
    costs reference-count updates shared by every thread (figures: bench/RESULTS.md, "Figures
    formerly in docstrings")."""
    if isinstance(X, np.ndarray) and axis < X.ndim:
        return X.shape[axis]
    return None


@overload(extent, inline="always", prefer_literal=True)
def _extent_jit(X, axis):  # noqa: ANN001, ANN202 (Numba types)
    ax = getattr(axis, "literal_value", None)
    if isinstance(X, nbtypes.Array) and ax is not None and ax < X.ndim:
        return lambda X, axis: X.shape[ax]
    return lambda X, axis: None


def _is_int(i: Any) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _record(p: Any, code: int, i: int, n: int) -> None:
    """Keep the first failed check's site code, index and length in the parameter record."""
    if p["_gas_err"] == 0:
        p["_gas_err"], p["_gas_idx"], p["_gas_len"] = code, i, n


def check_index(p: Any, n: int | None, i: Any, code: int) -> Any:
    """``i`` if it indexes a length ``n`` (``-n <= i < n``), else 0 after recording ``code``,
    ``i`` and ``n`` in the parameter record ``p`` (the first failure only). No length (not an
    array) or an index that is not an integer passes through. Compiled, a Numba overload
    does the same."""
    if n is not None and _is_int(i) and not -n <= i < n:
        _record(p, code, i, n)
        return 0
    return i


def check_range(p: Any, n: int | None, code: int, lo: int, hi: int) -> int:
    """The stop of a loop ``for j in range(lo, hi)`` whose body indexes a length ``n`` with ``j``
    on every iteration: ``hi`` if every ``j`` fits, else ``lo`` (the loop runs no iteration)
    after recording the first index out of range. One check per loop instead of one per access
    keeps the loop body as the user wrote it, which Numba vectorizes."""
    if n is not None and lo < hi and (lo < -n or hi > n):
        _record(p, code, lo if lo < -n else max(lo, n), n)
        return lo
    return hi


def check_fixed(p: Any, n: int | None, code: int, i: Any, lo: int, hi: int) -> int:
    """The stop of a loop ``for j in range(lo, hi)`` whose body indexes a length ``n`` with ``i``
    (which the loop does not change) on every iteration: ``hi`` if ``i`` fits or the loop is
    empty, else ``lo`` after recording ``i``."""
    if n is not None and lo < hi and _is_int(i) and not -n <= i < n:
        _record(p, code, i, n)
        return lo
    return hi


@overload(check_index, inline="never", prefer_literal=True)
def _check_index_jit(p, n, i, code):  # noqa: ANN001, ANN202 (Numba types)
    # literal arguments: a constant index into a heterogeneous tuple stays a constant (``t[0]``
    # must be static there)
    if isinstance(i, nbtypes.Integer) and isinstance(n, nbtypes.Integer):

        def impl(p, n, i, code):
            if i < -n or i >= n:
                if p._gas_err == 0:
                    p._gas_err = code
                    p._gas_idx = i
                    p._gas_len = n
                return 0
            return i

        return impl
    return lambda p, n, i, code: i


@overload(check_range, inline="never")
def _check_range_jit(p, n, code, lo, hi):  # noqa: ANN001, ANN202 (Numba types)
    if not isinstance(n, nbtypes.Integer):
        return lambda p, n, code, lo, hi: hi

    def impl(p, n, code, lo, hi):
        if lo < hi and (lo < -n or hi > n):
            if p._gas_err == 0:
                p._gas_err = code
                p._gas_idx = max(lo, n)
                if lo < -n:
                    p._gas_idx = lo
                p._gas_len = n
            return lo
        return hi

    return impl


@overload(check_fixed, inline="never")
def _check_fixed_jit(p, n, code, i, lo, hi):  # noqa: ANN001, ANN202 (Numba types)
    if not (isinstance(i, nbtypes.Integer) and isinstance(n, nbtypes.Integer)):
        return lambda p, n, code, i, lo, hi: hi

    def impl(p, n, code, i, lo, hi):
        if lo < hi and (i < -n or i >= n):
            if p._gas_err == 0:
                p._gas_err = code
                p._gas_idx = i
                p._gas_len = n
            return lo
        return hi

    return impl
