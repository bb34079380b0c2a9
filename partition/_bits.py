"""Low-level helpers for the jitted kernels: count and select set bits, prefetch a row."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

__all__ = ["popcount", "select_bit", "lowest_bit", "prefetch_row", "ONE"]

ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def popcount(x: np.uint64) -> np.int64:
    """Number of set bits (SWAR; LLVM lowers it to ``popcnt`` where available)."""
    x = x - ((x >> ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True, inline="always")
def lowest_bit(x: np.uint64) -> np.int64:
    """Index of the lowest set bit of a non-zero word."""
    return np.int64(trailing_zeros(x))


@njit(cache=True, inline="always")
def select_bit(x: np.uint64, r: np.int64) -> np.int64:
    """Index of the ``r``-th set bit of ``x`` (0-based, from the low end; ``r < popcount``)."""
    for _ in range(r):
        x &= x - ONE
    return np.int64(trailing_zeros(x))


_PREFETCH = "llvm.prefetch.p0" if llvm_version_info[0] >= 17 else "llvm.prefetch.p0i8"


@intrinsic
def prefetch_row(typingctx, arr, row):
    """Hint the CPU to fetch ``arr[row, 0]`` (2-D array) into cache; no effect on results.

    Streaming kernels call it a few dozen items ahead so that the random reads of per-vertex
    state overlap with computation instead of stalling it (LLVM's ``llvm.prefetch``).
    """
    sig = types.void(arr, row)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        r = context.cast(builder, args[1], signature.args[1], types.intp)
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer2(
            context,
            builder,
            data=ary.data,
            shape=cgutils.unpack_tuple(builder, ary.shape),
            strides=cgutils.unpack_tuple(builder, ary.strides),
            layout=aryty.layout,
            inds=[r, zero],
            wraparound=False,
            boundscheck=False,
        )
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep, data
        return context.get_dummy_value()

    return sig, codegen
