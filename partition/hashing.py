"""Seeded integer hashing and a tiny PRNG for the jitted partitioners (arrays and scalars only).

All arithmetic is done in ``uint64`` so that Numba never promotes a mixed signed/unsigned
expression to ``float64``. The mixer is the SplitMix64 finaliser (a public-domain construction);
range reduction to ``0..k-1`` uses the high half of a 64x64 product (Lemire's multiply-shift)
rather than ``%`` so that it is cheap and free of modulo bias for small ``k``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["mix64", "hash_vertex", "hash_pair", "reduce_range", "seed_state", "next_random"]

from gas.splitmix import GOLDEN as _GOLDEN
from gas.splitmix import finalize64

_S32 = np.uint64(32)


@njit(cache=True, inline="always")
def mix64(x: np.uint64) -> np.uint64:
    """SplitMix64 finaliser: a bijection on 64-bit words with good avalanche."""
    return finalize64(x + _GOLDEN)


@njit(cache=True, inline="always")
def hash_vertex(v: np.int64, seed: np.uint64) -> np.uint64:
    """Hash of one vertex id under a seed."""
    return mix64(np.uint64(v) ^ mix64(seed))


@njit(cache=True, inline="always")
def hash_pair(a: np.int64, b: np.int64, seed: np.uint64) -> np.uint64:
    """Hash of the ordered pair ``(a, b)`` under a seed (callers canonicalise the order)."""
    return mix64(mix64(np.uint64(a) ^ mix64(seed)) + np.uint64(b))


@njit(cache=True, inline="always")
def reduce_range(h: np.uint64, k: np.int64) -> np.int64:
    """Map a 64-bit hash to ``0..k-1`` (``k < 2**32``) from its high 32 bits."""
    return np.int64(((h >> _S32) * np.uint64(k)) >> _S32)


@njit(cache=True, inline="always")
def seed_state(seed: np.uint64, stream: np.int64) -> np.uint64:
    """Initial state of an independent random stream number ``stream`` under ``seed``."""
    return mix64(mix64(seed) ^ np.uint64(stream))


@njit(cache=True, inline="always")
def next_random(state: np.ndarray) -> np.uint64:
    """Next 64-bit value of the SplitMix64 sequence kept in ``state[0]`` (advances it)."""
    state[0] = state[0] + _GOLDEN
    return finalize64(state[0])


def seed_to_uint(seed: int) -> np.uint64:
    """A user seed (any Python int) as the ``uint64`` the kernels take.

    Examples
    --------
    >>> int(seed_to_uint(-1)) == 2**64 - 1
    True
    """
    return np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)
