"""Compiled helpers for the neighbour lists a vertex program reads (``v.nbrs``, ``nbr.nbrs``):
sorted arrays of vertex ids, to be combined inside ``gather``, ``apply`` or ``scatter``.

Examples
--------
>>> import numpy as np
>>> count_common(np.array([1, 3, 5, 7]), np.array([3, 4, 5]))
2
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

__all__ = ["count_common", "is_undirected_simple", "nbr_marks", "marked_row", "is_marked"]

# from this ratio of lengths on, each element of the shorter list is found by a galloping
# (exponential, then binary) search in the longer one, from where the previous one stopped
# (O(short * log(long / short))), instead of a merge of both (O(short + long))
_GALLOP = 4


@njit(cache=True)
def count_common(a: np.ndarray, b: np.ndarray) -> int:
    """How many values two sorted arrays without repeats share (a branch-free merge, or a
    galloping search per element of the shorter one when the other is more than 4 times longer:
    a triangle count then costs ``O(min(d_u, d_v) log max(d_u, d_v))`` per edge, not
    ``O(d_u + d_v)``)."""
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
            hi, step = lo, 1
            while hi < nb and b[hi] < x:  # gallop: b[lo - 1] < x, b[hi] >= x or hi = nb
                lo = hi + 1
                hi += step
                step <<= 1
            hi = min(hi, nb)
            while lo < hi:
                mid = (lo + hi) >> 1
                if b[mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            if lo >= nb:
                break
            if b[lo] == x:
                count += 1
                lo += 1
        return count
    i = j = 0
    while i < na and j < nb:
        x, y = a[i], b[j]
        count += x == y
        i += x <= y
        j += y <= x
    return count


@njit(cache=True)
def is_undirected_simple(
    out_indptr: np.ndarray, dst: np.ndarray, in_indptr: np.ndarray, in_src: np.ndarray
) -> bool:
    """Whether a graph's CSR (``out_indptr``, ``dst``) and CSC (``in_indptr``, ``in_src``) already
    are an undirected simple view: every edge in both directions, no repeats, no self-loops (one
    pass; the algorithms then use the graph as it is instead of building
    :meth:`gas.Graph.simple_undirected`).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([0, 1, 2])
    >>> is_undirected_simple(p, np.array([1, 0]), p, np.array([1, 0]))
    True
    """
    n = out_indptr.shape[0] - 1
    if dst.shape[0] != in_src.shape[0]:
        return False
    for v in range(n + 1):
        if out_indptr[v] != in_indptr[v]:
            return False
    for v in range(n):
        prev = -1
        for k in range(out_indptr[v], out_indptr[v + 1]):
            x = dst[k]
            # in-lists are sorted too (sources in CSR order): equal lists mean symmetric
            if x != in_src[k] or x <= prev or x == v:
                return False
            prev = x
    return True


def nbr_marks(threads: int, num_ids: int) -> np.ndarray:
    """The table behind ``v.has_nbr(w)``: one row of ``num_ids + 1`` marks per thread (the
    last entry names the vertex whose neighbours the row marks, as ``-2 - v``), all unmarked
    (-1); 32-bit when the ids fit (half the cache lines for the random probes). Make it here before any
    :func:`marked_row` call: this also starts Numba's threading layer.

    Examples
    --------
    >>> nbr_marks(2, 3).shape
    (2, 4)
    """
    numba.get_num_threads()  # starts the threading layer, which numba.get_thread_id() asks
    dtype = np.int32 if num_ids < 2**31 - 1 else np.int64
    return np.full((max(int(threads), 1), int(num_ids) + 1), -1, dtype)


@njit(cache=True, inline="always")
def marked_row(marks: np.ndarray, v: int, start: int, deg: int, nbrs: np.ndarray) -> np.ndarray:
    """The calling thread's row of a :func:`nbr_marks` table, holding ``v`` at each of ``v``'s
    neighbours ``nbrs[start : start + deg]``: what a method that calls ``v.has_nbr`` takes on
    entry. The row is written only when the thread last marked another vertex (``O(deg)``
    then; its last entry names the vertex marked, as ``-2 - v``, a value no vertex id has), so
    each question costs ``O(1)``
    (:func:`is_marked`), as networkit's and Ligra's triangle counts mark one list and probe it.
    An entry equal to ``v`` can only have been written by ``v``'s marking, and neighbour lists
    never change during a run, so a stale row never answers wrongly. A thread beyond the
    table's rows gets a fresh row of its own.

    Examples
    --------
    >>> import numpy as np
    >>> row = marked_row(nbr_marks(64, 5), 0, 0, 3, np.array([1, 3, 4]))  # vertex 0: 1, 3, 4
    >>> row.tolist()
    [-1, 0, -1, 0, 0, -2]
    """
    t = numba.get_thread_id()
    size = marks.shape[1] - 1
    row = marks[t] if t < marks.shape[0] else np.full_like(marks[0], -1)
    tag = -2 - v
    if row[size] != tag:
        for k in range(start, start + deg):
            x = nbrs[k]
            if 0 <= x < size:
                row[x] = v
        row[size] = tag
    return row


@njit(cache=True, inline="always")
def is_marked(row: np.ndarray, v: int, w: int) -> bool:
    """Whether ``w`` is one of ``v``'s neighbours, from ``v``'s :func:`marked_row` (what
    ``v.has_nbr(w)`` compiles to; an id outside the row is not).

    Examples
    --------
    >>> import numpy as np
    >>> row = marked_row(nbr_marks(64, 5), 0, 0, 3, np.array([1, 3, 4]))
    >>> bool(is_marked(row, 0, 3)), bool(is_marked(row, 0, 2)), bool(is_marked(row, 0, 9))
    (True, False, False)
    """
    size = row.shape[0] - 1
    # no branch (the probe loops of a gather then run 1.6x faster than with "0 <= w < size and
    # ..."): an id outside the row reads the last entry instead, which holds -2 - v, never v (and
    # no second test: the triangle count's probe loop runs 1.1-1.17x faster than with "i != size")
    i = w if np.uint64(w) < np.uint64(size) else size
    return row[i] == v
