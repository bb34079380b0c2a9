"""An atomic maximum for the kernels' signal priorities.

Several threads can signal the same vertex in one parallel step (two members of a colour class
may share a neighbour), and a plain ``if r > prio[u]: prio[u] = r`` can then keep the smaller of
two priorities. A priority is never negative and never NaN, and for such doubles the order of
their IEEE-754 bit patterns read as signed 64-bit integers is the order of the values, so one
``atomicrmw max`` on those bits keeps the largest, whatever the interleaving.

>>> import numpy as np
>>> from gas._atomic_max import atomic_max_nonneg
>>> a = np.array([0.5, 2.0])
>>> atomic_max_nonneg(a, 0, 1.5)
>>> atomic_max_nonneg(a, 1, 1.0)
>>> a.tolist()
[1.5, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _max_bits(typingctx: Any, arr: Any, idx: Any, val: Any) -> Any:
    """``arr[idx] = max(arr[idx], val)`` as one atomic read-modify-write (``arr``: a C-contiguous
    1-d float64 array, ``val`` >= 0)."""
    if not (
        isinstance(arr, types.Array)
        and arr.dtype == types.float64
        and arr.ndim == 1
        and isinstance(idx, types.Integer)
        and val == types.float64
    ):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        arrty, idxty, _ = signature.args
        ary = context.make_array(arrty)(context, builder, args[0])
        i = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [i], wraparound=False)
        i64 = ir.IntType(64)
        bits = builder.bitcast(args[2], i64)
        builder.atomic_rmw("max", builder.bitcast(ptr, i64.as_pointer()), bits, "monotonic")
        return context.get_dummy_value()

    return types.void(arr, idx, val), codegen


@njit(cache=True, inline="always")
def atomic_max_nonneg(arr: np.ndarray, idx: int, val: float) -> None:
    """Raise ``arr[idx]`` to ``val`` if it is larger, atomically with respect to other threads.

    ``val`` and ``arr[idx]`` must be >= 0 and not NaN (signal priorities are). Called from
    compiled kernels; also callable from Python (see the module docstring).
    """
    if val > arr[idx]:  # most signals find a priority at least as high: no locked instruction
        _max_bits(arr, idx, val)


def atomic_max_py(arr: np.ndarray, idx: int, val: float) -> None:
    """Plain-Python ``atomic_max_nonneg`` for the debug path (one thread: no race)."""
    if val > arr[idx]:
        arr[idx] = val
