"""Type each method of a vertex program alone, so errors name the method, not a kernel.

Numba's messages are long; :func:`typecheck` keeps the line that says what went wrong and the
user's file and line, and raises :class:`gas.ProgramError` with the fix. Return types are checked
against what the engine expects (``gather``/``sum`` → ``gather_type``, ``scatter`` → bool,
``aggregate`` → one number per declared aggregate).

Each method is only *typed* here (Numba's front end, type inference and the checks that precede
lowering, :mod:`gas._typecheck_pipeline`), not compiled to machine code: the kernels inline the
methods and compile them anyway, and compiling each one alone as well made a program's first
build up to a third slower.
"""

from __future__ import annotations

import re
from typing import Any

import numba
import numpy as np
from numba.core import types
from numba.core.errors import NumbaError

from gas.errors import ProgramError
from gas.program import BoundProgram

__all__ = ["typecheck"]

_NOISE = re.compile(
    r"^(Failed in .* pipeline|During: |No implementation of function|Resolution failure"
    r"|- Resolution|\^+$|\s*$)"
)


def _summarize(err: Exception) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(err))
    lines = [ln.rstrip() for ln in text.splitlines()]
    keep = [ln for ln in lines if not _NOISE.match(ln)]
    what = next(
        (ln.strip() for ln in keep if not ln.lstrip().startswith("File ") and "<source" not in ln),
        "",
    )
    loc = re.search(r'File "([^"]+)", line (\d+)', text) or re.search(r" at (\S+) \((\d+)\)", text)
    return f"{what} (at {loc.group(1)}:{loc.group(2)})" if loc else what


def _compile(fn: Any, argtypes: tuple) -> Any:
    """The return type ``fn`` has for ``argtypes`` in nopython mode (a NumbaError if it does
    not type): typed only (:mod:`gas._typecheck_pipeline`), or compiled whole where this
    Numba's internals differ from the ones that module was written against."""
    try:
        from gas._typecheck_pipeline import return_type
    except (ImportError, AttributeError):
        return_type = None
    if return_type is not None:
        try:
            return return_type(fn, argtypes)
        except NumbaError:
            raise
        except (TypeError, AttributeError):  # another Numba's pipeline API
            pass
    disp = numba.njit(fn)
    disp.compile(argtypes)
    return disp.nopython_signatures[-1].return_type


def _fits(ret: Any, want: np.dtype) -> bool:
    if isinstance(ret, types.Boolean):
        return want.kind in "biuf"
    if isinstance(ret, types.Integer):
        return want.kind in "iuf" if want.kind != "b" else False
    if isinstance(ret, types.Float):
        return want.kind == "f"
    return False


def typecheck(spec: BoundProgram, VC: tuple, EC: tuple, params: np.ndarray, ctx: np.ndarray) -> None:
    """Type every method of ``spec`` with the engine's argument types; raise ProgramError."""
    vc, ec = numba.typeof(VC), numba.typeof(EC)
    pt = numba.typeof(params).dtype
    ct = numba.typeof(ctx).dtype
    gt = numba.from_dtype(spec.gather_base)
    if spec.gather_shape:
        gt = types.Array(gt, len(spec.gather_shape), "C")
    i = types.int64
    argtypes = {
        "init": (pt, vc, ec, i, ct),
        "gather": (pt, vc, ec, i, i, i, gt) if spec.gather_shape else (pt, vc, ec, i, i, i),
        "sum": (pt, vc, ec, gt, gt),
        "apply": (pt, vc, ec, i, types.Array(gt, 1, "C") if spec.gather_slots else gt, ct),
        "scatter": (pt, vc, ec, i, i, i),
        "aggregate": (pt, vc, ec, i),
        "priority": (pt, vc, ec, i),
    }
    for name, fn in spec.functions.items():
        where = f"{spec.name}.{name}"
        try:
            ret = _compile(fn, argtypes[name])
        except NumbaError as exc:
            raise ProgramError(
                f"{where} cannot be compiled: {_summarize(exc)}. Fix: use numeric scalar code on the "
                f"declared fields (see gas.VertexProgram); run with debug=True to execute it as plain Python."
            ) from None
        if name in ("gather", "sum") and spec.gather_shape:
            if not isinstance(ret, types.NoneType):
                raise ProgramError(
                    f"{where} returns {ret}; with the array gather_type {spec.gather_type} it adds "
                    f"into its last argument in place and returns nothing. Fix: drop the return value"
                )
        elif name in ("gather", "sum"):
            if isinstance(ret, types.NoneType):
                raise ProgramError(
                    f"{where} returns nothing; it must return a {spec.gather_type} value (gather_type)"
                )
            if not _fits(ret, spec.gather_type):
                raise ProgramError(
                    f"{where} returns {ret}, which does not fit gather_type {spec.gather_type}. "
                    f"Fix: return a {spec.gather_type} value, or set gather_type = np.{ret} on the class"
                )
        elif name == "scatter" and not isinstance(ret, (types.Boolean, types.Integer, types.Float)):
            raise ProgramError(
                f"{where} returns {ret}; it must return True (signal the neighbour) or False, "
                f"or a number (> 0 signals; the asynchronous engine's priority scheduler uses it)"
            )
        elif name == "priority" and not isinstance(ret, (types.Boolean, types.Integer, types.Float)):
            raise ProgramError(
                f"{where} returns {ret}; it must return a number (> 0: the vertex is scheduled "
                f"with that priority; 0 or less: it waits for a signal)"
            )
        elif name == "aggregate":
            k = len(spec.agg_names)
            ok = (k == 1 and isinstance(ret, (types.Number, types.Boolean))) or (
                isinstance(ret, types.BaseTuple)
                and len(ret) == k
                and all(isinstance(t, (types.Number, types.Boolean)) for t in ret)
            )
            if not ok:
                raise ProgramError(
                    f"{where} returns {ret}; it must return {k} number(s), one per aggregate "
                    f"{spec.agg_names}, as a tuple in that order"
                )
