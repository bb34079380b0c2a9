"""Compiled helpers for the neighbour lists a vertex program reads (``v.nbrs``, ``nbr.nbrs``):
sorted arrays of vertex ids, to be combined inside ``gather``, ``apply`` or ``scatter``.

Examples
--------
>>> import numpy as np
>>> count_common(np.array([1, 3, 5, 7]), np.array([3, 4, 5]))
2
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["count_common"]

# from this ratio of lengths on, each element of the shorter list is found by a binary search in
# the longer one (O(short * log long)) instead of a merge of both (O(short + long))
_GALLOP = 16


@njit(cache=True)
def count_common(a: np.ndarray, b: np.ndarray) -> int:
    """How many values two sorted arrays without repeats share (a merge, or a binary search per
    element of the shorter one when the other is more than 16 times longer: a triangle count
    then costs ``O(min(d_u, d_v) log max(d_u, d_v))`` per edge, not ``O(d_u + d_v)``)."""
    if a.shape[0] > b.shape[0]:
        a, b = b, a
    na, nb = a.shape[0], b.shape[0]
    count = 0
    if na == 0:
        return 0
    if nb > _GALLOP * na:
        lo = 0
        for i in range(na):
            x = a[i]
            lo = np.searchsorted(b[lo:], x) + lo
            if lo >= nb:
                break
            if b[lo] == x:
                count += 1
        return count
    i = j = 0
    while i < na and j < nb:
        x, y = a[i], b[j]
        if x == y:
            count += 1
            i += 1
            j += 1
        elif x < y:
            i += 1
        else:
            j += 1
    return count
