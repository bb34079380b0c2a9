"""Atomic read-modify-writes on one element of a column, for compiled kernels and vertex programs.

Two threads that update the same element with a plain ``a[i] += x`` can lose one of the two
additions: each reads the old value, adds, and stores, and the second store overwrites the
first. The functions here make the read, the change and the store one indivisible hardware
instruction (LLVM's ``atomicrmw`` and ``cmpxchg``), so concurrent updates all land, in some order:

* :func:`fetch_add` adds and returns the value found (CUDA's ``atomicAdd``; integers and
  float64);
* :func:`compare_swap` stores ``new`` only if the element still equals ``expected`` and returns
  the value found (CUDA's ``atomicCAS``; integers): a loop around it makes any update atomic, e.g.
  "lower by one unless already at ``k``", which no single add can;
* :func:`swap_byte_if` does the same on a ``uint8`` column (the engine's scheduling states).

Vertex programs reach the first two as ``nbr.fetch_add("field", x)`` and
``nbr.compare_swap("field", expected, new)`` in ``scatter`` (:mod:`gas._rewrite_atomics`). Called
from Python (the engines' debug path) they are compiled like any ``njit`` function.

Examples
--------
>>> import numpy as np
>>> a = np.array([5, 7], dtype=np.int32)
>>> fetch_add(a, 0, -1), compare_swap(a, 1, 7, 6), compare_swap(a, 1, 7, 0)
(5, 7, 6)
>>> a.tolist()
[4, 6]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["fetch_add", "compare_swap", "swap_byte_if", "atomic_or_byte"]


def _pointer(context: Any, builder: Any, arrty: Any, arr: Any, idxty: Any, idx: Any) -> Any:
    ary = context.make_array(arrty)(context, builder, arr)
    i = context.cast(builder, idx, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, arrty, ary, [i], wraparound=False)


def _one_d(arr: Any, idx: Any) -> bool:
    return isinstance(arr, types.Array) and arr.ndim == 1 and isinstance(idx, types.Integer)


@intrinsic
def _add(typingctx: Any, arr: Any, idx: Any, val: Any) -> Any:
    if not (_one_d(arr, idx) and (isinstance(arr.dtype, types.Integer) or arr.dtype == types.float64)):
        return None
    dt = arr.dtype

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        arrty, idxty, valty = signature.args
        ptr = _pointer(context, builder, arrty, args[0], idxty, args[1])
        v = context.cast(builder, args[2], valty, dt)
        op = "fadd" if isinstance(dt, types.Float) else "add"
        return builder.atomic_rmw(op, ptr, v, "seq_cst")

    return dt(arr, idx, val), codegen


@intrinsic
def _cas(typingctx: Any, arr: Any, idx: Any, expected: Any, new: Any) -> Any:
    if not (_one_d(arr, idx) and isinstance(arr.dtype, types.Integer)):
        return None
    dt = arr.dtype

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        arrty, idxty, ety, nty = signature.args
        ptr = _pointer(context, builder, arrty, args[0], idxty, args[1])
        want = context.cast(builder, args[2], ety, dt)
        put = context.cast(builder, args[3], nty, dt)
        pair = builder.cmpxchg(ptr, want, put, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return dt(arr, idx, expected, new), codegen


@njit(cache=True, inline="always")
def fetch_add(arr: np.ndarray, idx: int, val: Any) -> Any:
    """Add ``val`` to ``arr[idx]`` atomically; returns the value it held before (``arr``: a 1-d
    integer or float64 array; ``val`` is converted to its type)."""
    return _add(arr, idx, val)


@njit(cache=True, inline="always")
def compare_swap(arr: np.ndarray, idx: int, expected: Any, new: Any) -> Any:
    """Store ``new`` in ``arr[idx]`` if it holds ``expected``, atomically; returns the value it
    held (equal to ``expected``: the store happened). ``arr``: a 1-d integer array."""
    return _cas(arr, idx, expected, new)


@njit(cache=True, inline="always")
def swap_byte_if(arr: np.ndarray, idx: int, expected: int, new: int) -> bool:
    """``compare_swap`` on a ``uint8`` column; True if the store happened."""
    return _cas(arr, idx, np.uint8(expected), np.uint8(new)) == np.uint8(expected)


@njit(cache=True, inline="always")
def atomic_or_byte(arr: np.ndarray, idx: int, bits: int) -> int:
    """``arr[idx] |= bits`` on a ``uint8`` column, atomically (a compare-and-swap loop);
    returns the value it held before."""
    old = arr[idx]
    while True:
        found = _cas(arr, idx, old, old | np.uint8(bits))
        if found == old:
            return found
        old = found
