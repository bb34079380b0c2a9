"""Bit tricks on ``uint64`` words for the jitted kernels: count and select set bits."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

__all__ = ["popcount", "select_bit", "lowest_bit", "ONE"]

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
