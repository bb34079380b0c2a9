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
    """The table behind ``v.has_nbr(w)``: one row of bits per thread, a bit per id in
    ``(num_ids + 63) // 64`` words (a million ids in 128 KiB, which stays in a core's cache
    where a word per id would not), then a word that stays zero and a word naming the vertex
    whose neighbours the row marks (``v + 1``; 0: none). Make it here before any
    :func:`marked_row` call: this also starts Numba's threading layer.

    Examples
    --------
    >>> nbr_marks(2, 130).shape  # 3 words of bits, the zero word, the owner
    (2, 5)
    """
    numba.get_num_threads()  # starts the threading layer, which numba.get_thread_id() asks
    words = (int(num_ids) + 63) >> 6
    return np.zeros((max(int(threads), 1), words + 2), np.uint64)


@njit(cache=True, inline="always")
def marked_row(
    marks: np.ndarray, v: int, starts: np.ndarray, degs: np.ndarray, nbrs: np.ndarray
) -> np.ndarray:
    """The calling thread's row of a :func:`nbr_marks` table, with the bits of ``v``'s
    neighbours ``nbrs[starts[v] : starts[v] + degs[v]]`` set and no others: what a method that
    calls ``v.has_nbr`` takes on entry. The row changes only when the thread last marked
    another vertex: that vertex's words are zeroed (``O(its degree)``) and ``v``'s bits set
    (``O(deg)``); so each question costs ``O(1)`` (:func:`is_marked`), as networkit's and
    Ligra's triangle counts mark one list and probe it. Neighbour lists never change during a
    run, so a row that names ``v`` holds exactly ``v``'s neighbours. A thread beyond the
    table's rows gets a fresh row of its own.

    Examples
    --------
    >>> import numpy as np
    >>> nbrs, starts, degs = np.array([1, 3, 4, 0]), np.array([0, 3]), np.array([3, 1])
    >>> marks = nbr_marks(64, 5)
    >>> int(marked_row(marks, 0, starts, degs, nbrs)[0])  # vertex 0: bits 1, 3 and 4
    26
    >>> int(marked_row(marks, 1, starts, degs, nbrs)[0])  # vertex 1: bit 0 only
    1
    """
    t = numba.get_thread_id()
    row = marks[t] if t < marks.shape[0] else np.zeros_like(marks[0])
    owner = row.shape[0] - 1
    words = owner - 1  # row[words]: the zero word, read by ids outside the row
    if row[owner] != np.uint64(v + 1):
        if row[owner] != 0:  # clear the last vertex's words (only its bits are set in them)
            p = np.int64(row[owner]) - 1
            for k in range(starts[p], starts[p] + degs[p]):
                x = nbrs[k]
                if 0 <= x < (words << 6):
                    row[x >> 6] = 0
        for k in range(starts[v], starts[v] + degs[v]):
            x = nbrs[k]
            if 0 <= x < (words << 6):
                row[x >> 6] |= np.uint64(1) << np.uint64(x & 63)
        row[owner] = np.uint64(v + 1)
    return row


@njit(cache=True, inline="always")
def is_marked(row: np.ndarray, v: int, w: int) -> bool:
    """Whether ``w`` is one of ``v``'s neighbours, from ``v``'s :func:`marked_row` (what
    ``v.has_nbr(w)`` compiles to; an id outside the row is not).

    Examples
    --------
    >>> import numpy as np
    >>> nbrs, starts, degs = np.array([1, 3, 4]), np.array([0]), np.array([3])
    >>> row = marked_row(nbr_marks(64, 5), 0, starts, degs, nbrs)
    >>> bool(is_marked(row, 0, 3)), bool(is_marked(row, 0, 2)), bool(is_marked(row, 0, 9))
    (True, False, False)
    """
    words = row.shape[0] - 2
    # no branch (a probe loop runs faster without one): an id outside the row reads the zero
    # word instead
    i = w >> 6 if np.uint64(w) < np.uint64(words << 6) else words
    return (row[i] >> np.uint64(w & 63)) & np.uint64(1) != 0
