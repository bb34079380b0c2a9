"""Numba kernels that turn edge arrays into CSR/CSC arrays (counting sorts, dedupe, id remap).

The sorts and the gathers after them run on every thread, which builds a large graph's CSR and
CSC markedly faster than one thread (figures: bench/RESULTS.md, "Figures formerly in docstrings").
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from gas._hash_ids import hash_number, run_starts
from gas.config import CONFIG

__all__ = [
    "compact_ids",
    "compact_ids_by_sort",
    "build_csr",
    "build_csr_by_two_sorts",
    "build_csc",
    "degree_order",
    "take_into",
]


@njit(cache=True)
def _mark_new(sorted_vals: np.ndarray) -> np.ndarray:
    n = sorted_vals.shape[0]
    keep = np.empty(n, np.bool_)
    if n:
        keep[0] = True
    for i in range(1, n):
        keep[i] = sorted_vals[i] != sorted_vals[i - 1]
    return keep


def _first_of_runs(sorted_vals: np.ndarray) -> np.ndarray:
    """Where each run of equal values starts (:func:`_mark_new`; numpy below
    :data:`NUMPY_MAX_EDGES` values)."""
    n = sorted_vals.shape[0]
    if n >= _numpy_max():
        return _mark_new(sorted_vals)
    keep = np.empty(n, np.bool_)
    keep[:1] = True
    np.not_equal(sorted_vals[1:], sorted_vals[:-1], out=keep[1:])
    return keep


def compact_ids_by_sort(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`compact_ids` returns, by a sort and two binary searches (``O(m log m)``):
    the reference it is tested and measured against (bench/load.py)."""
    allv = np.concatenate([src, dst])
    allv.sort(kind="stable")
    ids = allv[_first_of_runs(allv)]
    s = np.searchsorted(ids, src).astype(np.int64)
    d = np.searchsorted(ids, dst).astype(np.int64)
    return ids, s, d


def compact_ids(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map arbitrary non-negative integer ids to 0..n-1 in increasing order of the original id.

    Returns ``(ids, src_internal, dst_internal)`` where ``ids[internal] == original`` and ``ids``
    is sorted. From :data:`LINEAR_MIN_EDGES` edges on, linear in the number of edges (below, it is
    :func:`compact_ids_by_sort`): a direct-address table over ``min..max`` when that
    range is within :data:`DIRECT_FACTOR` times the number of endpoints (every thread marks,
    one prefix sum numbers, every thread maps), else an open-addressing hash map (one pass
    numbers the ids in order of appearance, then only the distinct ids are sorted and every
    thread renumbers the edges).

    Examples
    --------
    >>> import numpy as np
    >>> ids, s, d = compact_ids(np.array([30, 10]), np.array([10, 2**40]))
    >>> ids.tolist(), s.tolist(), d.tolist()
    ([10, 30, 1099511627776], [1, 0], [0, 2])
    """
    if src.shape[0] < max(LINEAR_MIN_EDGES, 1):
        return compact_ids_by_sort(src, dst)
    lo, hi = min(src.min(), dst.min()), max(src.max(), dst.max())
    span = int(hi) - int(lo)
    if span < DIRECT_FACTOR * 2 * src.shape[0] + 1024:
        table = np.zeros(span + 1, np.int32 if span < 2**31 - 1 else np.int64)  # int32: half the cache misses
        _mark(src, dst, lo, table)
        pos = np.flatnonzero(table)
        table[pos] = np.arange(pos.shape[0], dtype=table.dtype)  # number the ids present in order
        ids = pos.astype(src.dtype) + lo
        return ids, _lookup(src, lo, table, _empty(src)), _lookup(dst, lo, table, _empty(dst))
    prov_s, prov_d = _empty(src), _empty(dst)
    uniq = hash_number(src, dst, prov_s, prov_d)
    order = np.argsort(uniq, kind="stable")
    rank = np.empty(order.shape[0], np.int64)
    rank[order] = np.arange(order.shape[0], dtype=np.int64)
    take_into(rank, prov_s, prov_s)  # in place: each slot reads its own entry before writing it
    take_into(rank, prov_d, prov_d)
    return uniq[order], prov_s, prov_d


# direct addressing when max - min < DIRECT_FACTOR * (number of endpoints): the table then
# takes at most DIRECT_FACTOR times the memory of the id arrays themselves
DIRECT_FACTOR = 2

# Below this many edges the id mapping and the CSR/CSC builds take the sort-based paths
# (compact_ids_by_sort, build_csr_by_two_sorts): same results, and a first run (the bundled
# graph, cold caches) compiles only their few kernels instead of the linear paths' as well.
LINEAR_MIN_EDGES = 1 << 20

# Below this many edges (or ids) the sorts, gathers and run marks of the builds are numpy's: a few
# milliseconds at this size, and a first run on a small graph (the bundled one, cold caches)
# compiles none of the build's kernels (about 3 s of compiling on this machine: bench/RESULTS.md,
# "Start-up").
NUMPY_MAX_EDGES = 1 << 18


def _numpy_max() -> int:
    """:data:`NUMPY_MAX_EDGES`, or 0 when ``CONFIG["numpy_small"]`` is 0 (kernels at every size)."""
    return NUMPY_MAX_EDGES if CONFIG["numpy_small"] else 0


@njit(parallel=True, cache=True)
def _mark(src: np.ndarray, dst: np.ndarray, lo, table: np.ndarray) -> None:
    """``table[id - lo] = 1`` for every id present (threads write the same value: no race)."""
    for i in prange(src.shape[0]):
        table[src[i] - lo] = 1
        table[dst[i] - lo] = 1


def _empty(a: np.ndarray) -> np.ndarray:
    """An int64 array as long as ``a``, allocated by numpy: numpy asks for transparent huge pages
    on large arrays and Numba's allocator does not, so first-touch page faults cost less (see
    gas.io._parse.parse_edges). Every large array of this module is made here or by numpy."""
    return np.empty(a.shape[0], np.int64)


@njit(parallel=True, cache=True)
def _lookup(a: np.ndarray, lo, table: np.ndarray, out: np.ndarray) -> np.ndarray:
    for i in prange(a.shape[0]):
        out[i] = table[a[i] - lo]
    return out


@njit(parallel=True, cache=True)
def _fill_starts(keys: np.ndarray, shift: int, start: np.ndarray) -> np.ndarray:
    """The counting pass of a stable counting sort of ``keys`` into buckets ``keys >> shift``,
    over ``parts = start.shape[0]`` runs of the input (``start``: zeros, one row per run, one
    column per bucket, of any integer type wide enough for the key count). Fills ``start[t, b]``
    with where run ``t``'s first entry of bucket ``b`` goes (after those of runs ``< t``) and
    returns the buckets' ``indptr``."""
    m = keys.shape[0]
    parts = start.shape[0]
    for t in prange(parts):
        for i in range((m * t) // parts, (m * (t + 1)) // parts):
            start[t, keys[i] >> shift] += 1
    return run_starts(start)


@njit(cache=True)
def _bucket_starts(keys: np.ndarray, n: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` of the ``n`` buckets of ``keys`` and the 64-bit ``start`` table of
    :func:`_fill_starts` (``parts`` between 1 and the length)."""
    start = np.zeros((parts, n), np.int64)
    return _fill_starts(keys, 0, start), start


@njit(parallel=True, cache=True)
def _counting_order(keys: np.ndarray, n: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable counting sort: returns (indptr, order) with keys[order] non-decreasing.

    Parallel: ``parts`` runs of the input are counted and placed at once, part ``t``'s entries
    in every bucket after those of parts ``< t``, so the order is the serial one."""
    m = keys.shape[0]
    parts = max(1, min(parts, m))
    indptr, hist = _bucket_starts(keys, n, parts)
    order = np.empty(m, np.int64)
    for t in prange(parts):
        for i in range((m * t) // parts, (m * (t + 1)) // parts):
            k = keys[i]
            order[hist[t, k]] = i
            hist[t, k] += 1
    return indptr, order


@njit(parallel=True, cache=True)
def take_into(a: np.ndarray, idx: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = a[idx]`` on every thread (``out`` may be a narrower type than ``a``)."""
    for i in prange(idx.shape[0]):
        out[i] = a[idx[i]]


def _take(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``a[idx]`` on every thread (numpy's take below :data:`NUMPY_MAX_EDGES` entries)."""
    if idx.shape[0] < _numpy_max():
        return a[idx]
    out = np.empty(idx.shape[0], a.dtype)
    take_into(a, idx, out)
    return out


def counting_order(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_counting_order` of ``keys`` below ``n`` with the threads :func:`_parts` gives:
    ``(indptr, order)``, ``keys[order]`` non-decreasing and equal keys in input order. Below
    :data:`NUMPY_MAX_EDGES` keys, numpy's stable argsort and a bincount give the same arrays.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, order = counting_order(np.array([2, 0, 2, 1]), 3)
    >>> indptr.tolist(), order.tolist()
    ([0, 1, 2, 4], [1, 3, 0, 2])
    """
    m = keys.shape[0]
    if m >= _numpy_max():
        return _counting_order(keys, n, _parts(m, n))
    indptr = np.zeros(n + 1, np.int64)
    if m:
        np.cumsum(np.bincount(keys, minlength=n), out=indptr[1:])
    return indptr, np.argsort(keys, kind="stable").astype(np.int64, copy=False)


def degree_order(indptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows by length (``indptr``'s degrees), longest first, ties in id order, and the inverse:
    ``order[i]`` is the row numbered ``i``, ``newid[order[i]] == i`` (a stable counting sort)."""
    n = indptr.shape[0] - 1
    deg = np.diff(indptr)
    top = int(deg.max()) if n else 0
    _, order = counting_order(top - deg, top + 1)
    newid = np.empty(n, np.int64)
    newid[order] = np.arange(n, dtype=np.int64)
    return order, newid


def _parts(m: int, n: int) -> int:
    """Threads for a counting sort of ``m`` keys below ``n``: each needs its own ``n`` counts,
    so one thread when there are fewer keys than buckets (a huge ``num_vertices``)."""
    return get_num_threads() if m >= n else 1


def _sorted_edge_order(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """Order of edges sorted by (src, dst), stable for equal pairs (LSD: dst pass, then src)."""
    _, by_dst = counting_order(dst, n)
    _, by_src = counting_order(_take(src, by_dst), n)
    return _take(by_dst, by_src)


def _last_pairs(s: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Where each run of equal ``(s, d)`` pairs ends (:func:`_last_of_runs`; numpy below
    :data:`NUMPY_MAX_EDGES` pairs)."""
    m = s.shape[0]
    if m >= _numpy_max():
        return _last_of_runs(s, d)
    keep = np.empty(m, np.bool_)
    keep[m - 1 :] = True
    np.logical_or(s[:-1] != s[1:], d[:-1] != d[1:], out=keep[:-1])
    return keep


@njit(cache=True)
def _last_of_runs(s: np.ndarray, d: np.ndarray) -> np.ndarray:
    m = s.shape[0]
    keep = np.empty(m, np.bool_)
    for i in range(m - 1):
        keep[i] = not (s[i] == s[i + 1] and d[i] == d[i + 1])
    if m:
        keep[m - 1] = True
    return keep


@njit(parallel=True, cache=True)
def _scatter_rows(src: np.ndarray, dst: np.ndarray, n: int, parts: int, keys: np.ndarray) -> np.ndarray:
    """A counting sort of the edges by ``src`` placing each edge's key ``dst << 32 | i`` (``i``
    its input index) into ``keys``: returns ``indptr`` (see :func:`build_csr`; :func:`build_csc`
    passes the targets as ``src``)."""
    m = src.shape[0]
    parts = max(1, min(parts, m))
    indptr, hist = _bucket_starts(src, n, parts)
    for t in prange(parts):
        for i in range((m * t) // parts, (m * (t + 1)) // parts):
            r = src[i]
            pos = hist[t, r]
            keys[pos] = (np.int64(dst[i]) << 32) | i
            hist[t, r] = pos + 1
    return indptr


@njit(cache=True)
def _insertion_sort(a: np.ndarray, lo: int, hi: int) -> None:
    for k in range(lo + 1, hi):
        x = a[k]
        j = k - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True)
def _quick_sort(a: np.ndarray, lo: int, hi: int) -> None:
    """Sort ``a[lo:hi]`` in place: quicksort (median of three, the smaller side first from an
    explicit stack of at most 64 ranges) down to runs of 16, then insertion sort. Plain loops:
    Numba compiles them in a fraction of the time its ``ndarray.sort`` takes."""
    stack = np.empty(128, np.int64)
    top = 0
    while True:
        while hi - lo > 16:
            mid = (lo + hi) // 2
            x, y, z = a[lo], a[mid], a[hi - 1]
            pivot = max(min(x, y), min(max(x, y), z))
            i, j = lo, hi - 1
            while i <= j:
                while a[i] < pivot:
                    i += 1
                while a[j] > pivot:
                    j -= 1
                if i <= j:
                    a[i], a[j] = a[j], a[i]
                    i += 1
                    j -= 1
            if j + 1 - lo < hi - i:  # recurse into the smaller side: the stack stays short
                stack[top], stack[top + 1] = i, hi
                hi = j + 1
            else:
                stack[top], stack[top + 1] = lo, j + 1
                lo = i
            top += 2
        _insertion_sort(a, lo, hi)
        if top == 0:
            return
        top -= 2
        lo, hi = stack[top], stack[top + 1]


@njit(parallel=True, cache=True)
def _sort_rows(
    indptr: np.ndarray, keys: np.ndarray, dedupe: bool, d: np.ndarray, take: np.ndarray
) -> np.ndarray:
    """Sort each row's keys (in place) and unpack them into ``d`` and ``take`` (left alone when
    empty): row ``r``'s ``count[r]`` edges at the start of its slots ``indptr[r]:``, only the
    last of each run of equal destinations with ``dedupe``. Returns ``count``."""
    n = indptr.shape[0] - 1
    with_take = take.shape[0] > 0
    count = np.empty(n, np.int64)
    for r in prange(n):
        a, b = indptr[r], indptr[r + 1]
        if b - a > 16:
            _quick_sort(keys, a, b)
        else:  # most rows are short
            _insertion_sort(keys, a, b)
        j = a
        for k in range(a, b):
            key = keys[k]
            v = key >> 32
            if dedupe and k + 1 < b and (keys[k + 1] >> 32) == v:
                continue
            d[j] = v
            if with_take:
                take[j] = key & 0xFFFFFFFF
            j += 1
        count[r] = j - a
    return count


@njit(cache=True)
def _close_rows(
    indptr: np.ndarray, new_indptr: np.ndarray, d: np.ndarray, take: np.ndarray, s: np.ndarray
) -> None:
    """Move row ``r``'s first ``new_indptr[r + 1] - new_indptr[r]`` slots of ``d`` (and of
    ``take`` unless it is empty) from ``indptr[r]`` down to ``new_indptr[r]``, in place (rows in
    increasing order: no row moves past the start of its own slots), and set ``s`` to each
    slot's row. ``s`` may share memory with nothing it reads."""
    with_take = take.shape[0] > 0
    for r in range(indptr.shape[0] - 1):
        a, c = indptr[r], new_indptr[r]
        for j in range(new_indptr[r + 1] - c):
            if a != c:
                d[c + j] = d[a + j]
                if with_take:
                    take[c + j] = take[a + j]
            s[c + j] = r


def _prefix(a: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` entries: a view when that is most of ``a``, else a copy (frees the rest)."""
    return a[:k] if 4 * k >= 3 * a.shape[0] else a[:k].copy()


def build_csr(
    src: np.ndarray, dst: np.ndarray, n: int, dedupe: bool, with_take: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Sort edges by (src, dst) and optionally collapse duplicate pairs.

    Returns ``(indptr, src_sorted, dst_sorted, take)`` where ``take`` indexes the input edges kept,
    in CSR order (None when ``with_take`` is False: a graph without edge columns needs none). With
    ``dedupe`` the LAST occurrence of a duplicate pair is kept, as repeated
    ``networkx.DiGraph.add_edge`` calls leave the last attribute values.

    One counting sort by source places each edge as the key ``dst << 32 | input index``, then
    every row sorts its own keys in cache: one random pass over the edges, where sorting by
    destination and then by source takes six. Graphs past ``2**31`` vertices or ``2**32``
    edges, or below :data:`LINEAR_MIN_EDGES` edges, take :func:`build_csr_by_two_sorts`.
    """
    m = src.shape[0]
    if n >= 2**31 or m >= 2**32 or n == 0 or m < LINEAR_MIN_EDGES:
        return build_csr_by_two_sorts(src, dst, n, dedupe)
    keys = _empty(src)
    indptr = _scatter_rows(src, dst, n, _parts(m, n), keys)
    d, take = _empty(src), _empty(src) if with_take else np.empty(0, np.int64)
    count = _sort_rows(indptr, keys, dedupe, d, take)
    new_indptr = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=new_indptr[1:])
    k = int(new_indptr[n])
    s = keys[:k]  # the keys are spent: their memory holds each slot's source
    _close_rows(indptr, new_indptr, d, take, s)  # duplicates collapsed: close the gaps in place
    if k < m:
        s, d = _prefix(s, k), _prefix(d, k)
        take = _prefix(take, k) if with_take else take
    return new_indptr, s, d, take if with_take else None


def build_csr_by_two_sorts(
    src: np.ndarray, dst: np.ndarray, n: int, dedupe: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`build_csr` returns, by two stable counting sorts (destination, then source):
    the general path, and the reference the faster one is tested against.

    Returns ``(indptr, src_sorted, dst_sorted, take)`` where ``take`` indexes the input edges kept,
    in CSR order. With ``dedupe`` the LAST occurrence of a duplicate pair is kept, as repeated
    ``networkx.DiGraph.add_edge`` calls leave the last attribute values.
    """
    order = _sorted_edge_order(src, dst, n)
    s = _take(src, order)
    d = _take(dst, order)
    if dedupe and s.shape[0] > 1:
        keep = _last_pairs(s, d)
        if not keep.all():
            order = order[keep]
            s = s[keep]
            d = d[keep]
    indptr = np.zeros(n + 1, np.int64)
    if n:
        np.cumsum(np.bincount(s, minlength=n), out=indptr[1:])
    return indptr, s, d, order


def build_csc(src_sorted: np.ndarray, dst_sorted: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """In-edge (CSC) arrays from CSR-ordered edges: ``(indptr, in_src, in_eid)``.

    From :data:`LINEAR_MIN_EDGES` edges on, one counting sort places ``src << 32 | edge id`` by
    target (one random write per edge, unpacked in place after), else the edge ids and then the
    sources are placed (two)."""
    m = dst_sorted.shape[0]
    if LINEAR_MIN_EDGES <= m < 2**32 and n < 2**31 and src_sorted.dtype == np.int64:
        eid = _empty(dst_sorted)  # src << 32 | edge id, placed by target: one random write each
        indptr = _scatter_rows(dst_sorted, src_sorted, n, _parts(m, n), eid)
        in_src = np.right_shift(eid, 32)
        np.bitwise_and(eid, 0xFFFFFFFF, out=eid)
        return indptr, in_src, eid
    indptr, order = counting_order(dst_sorted, n)
    return indptr, _take(src_sorted, order), order
