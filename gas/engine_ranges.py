"""The vertex sets and vertex ranges an engine's supersteps run over.

:func:`active_mask` turns the ``active`` argument of a run (vertex ids or a boolean mask) into the
byte-per-vertex mask the kernels take; :func:`balanced_chunks` cuts the vertex ids into contiguous ranges
of about equal total work, the units the Numba ``prange`` loops hand to threads. Both are
used by :mod:`gas.engine_base`; :func:`gas.threads.spread_step` orders the ranges within a
kernel so that each thread's share spans the whole vertex range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.errors import GasError

__all__ = ["active_mask", "balanced_chunks"]


def active_mask(active: Any, n: int) -> np.ndarray:
    """A byte per vertex, 1 for ``active`` (vertex ids, or a boolean mask of length ``n``).

    Examples
    --------
    >>> active_mask([2, 0], 4).tolist(), active_mask(np.array([False, True]), 2).tolist()
    ([1, 0, 1, 0], [0, 1])
    """
    act = np.zeros(n, np.uint8)
    a = np.asarray(active)
    if a.dtype == np.bool_ and a.shape == (n,):
        act[a] = 1
    else:
        ids = a.astype(np.int64).ravel()
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            raise GasError(f"Expected active vertex ids in 0..{n - 1} (got {ids.min()}..{ids.max()})")
        act[ids] = 1
    return act


def balanced_chunks(weight: np.ndarray, parts: int) -> np.ndarray:
    """Vertex range boundaries giving each range about the same total weight.

    Examples
    --------
    >>> balanced_chunks(np.array([1, 1, 1, 1]), 2).tolist()
    [0, 2, 4]
    """
    n = weight.shape[0]
    parts = max(1, min(parts, n))
    cum = np.cumsum(weight, dtype=np.int64)
    total = int(cum[-1]) if n else 0
    targets = (np.arange(1, parts, dtype=np.float64) * total / parts).astype(np.int64)
    cuts = np.searchsorted(cum, targets, side="left") + 1
    bounds = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    return np.unique(np.clip(bounds, 0, n)) if n else np.zeros(2, np.int64)
