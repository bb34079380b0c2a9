"""Numba kernels that turn edge arrays into CSR/CSC arrays (counting sorts, dedupe, id remap).

The sorts and the gathers after them run on every thread, which builds a large graph's CSR and
CSC markedly faster than one thread (figures: bench/RESULTS.md, "Figures formerly in docstrings").
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

__all__ = ["compact_ids", "build_csr", "build_csc", "degree_order", "take_into"]


@njit(cache=True)
def _mark_new(sorted_vals: np.ndarray) -> np.ndarray:
    n = sorted_vals.shape[0]
    keep = np.empty(n, np.bool_)
    if n:
        keep[0] = True
    for i in range(1, n):
        keep[i] = sorted_vals[i] != sorted_vals[i - 1]
    return keep


def compact_ids(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map arbitrary ids to 0..n-1 in increasing order of the original id.

    Returns ``(ids, src_internal, dst_internal)`` where ``ids[internal] == original``.
    Uses sort + neighbour mask (``np.unique`` is an order of magnitude slower on large inputs).
    """
    allv = np.concatenate([src, dst])
    allv.sort(kind="stable")
    ids = allv[_mark_new(allv)]
    s = np.searchsorted(ids, src).astype(np.int64)
    d = np.searchsorted(ids, dst).astype(np.int64)
    return ids, s, d


@njit(parallel=True, cache=True)
def _counting_order(keys: np.ndarray, n: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable counting sort: returns (indptr, order) with keys[order] non-decreasing.

    Parallel: ``parts`` runs of the input are counted and placed at once, part ``t``'s entries
    in every bucket after those of parts ``< t``, so the order is the serial one."""
    m = keys.shape[0]
    parts = max(1, min(parts, m))
    hist = np.zeros((parts, n), np.int64)
    for t in prange(parts):
        for i in range((m * t) // parts, (m * (t + 1)) // parts):
            hist[t, keys[i]] += 1
    indptr = np.empty(n + 1, np.int64)
    run = 0
    for b in range(n):
        indptr[b] = run
        for t in range(parts):
            c = hist[t, b]
            hist[t, b] = run
            run += c
    indptr[n] = run
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
    """``a[idx]`` on every thread."""
    out = np.empty(idx.shape[0], a.dtype)
    take_into(a, idx, out)
    return out


def degree_order(indptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows by length (``indptr``'s degrees), longest first, ties in id order, and the inverse:
    ``order[i]`` is the row numbered ``i``, ``newid[order[i]] == i`` (a stable counting sort)."""
    n = indptr.shape[0] - 1
    deg = np.diff(indptr)
    top = int(deg.max()) if n else 0
    _, order = _counting_order(top - deg, top + 1, _parts(n, top + 1))
    newid = np.empty(n, np.int64)
    newid[order] = np.arange(n, dtype=np.int64)
    return order, newid


def _parts(m: int, n: int) -> int:
    """Threads for a counting sort of ``m`` keys below ``n``: each needs its own ``n`` counts,
    so one thread when there are fewer keys than buckets (a huge ``num_vertices``)."""
    return get_num_threads() if m >= n else 1


def _sorted_edge_order(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """Order of edges sorted by (src, dst), stable for equal pairs (LSD: dst pass, then src)."""
    parts = _parts(src.shape[0], n)
    _, by_dst = _counting_order(dst, n, parts)
    _, by_src = _counting_order(_take(src, by_dst), n, parts)
    return _take(by_dst, by_src)


@njit(cache=True)
def _last_of_runs(s: np.ndarray, d: np.ndarray) -> np.ndarray:
    m = s.shape[0]
    keep = np.empty(m, np.bool_)
    for i in range(m - 1):
        keep[i] = not (s[i] == s[i + 1] and d[i] == d[i + 1])
    if m:
        keep[m - 1] = True
    return keep


def build_csr(
    src: np.ndarray, dst: np.ndarray, n: int, dedupe: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sort edges by (src, dst) and optionally collapse duplicate pairs.

    Returns ``(indptr, src_sorted, dst_sorted, take)`` where ``take`` indexes the input edges kept,
    in CSR order. With ``dedupe`` the LAST occurrence of a duplicate pair is kept, as repeated
    ``networkx.DiGraph.add_edge`` calls leave the last attribute values.
    """
    order = _sorted_edge_order(src, dst, n)
    s = _take(src, order)
    d = _take(dst, order)
    if dedupe and s.shape[0] > 1:
        keep = _last_of_runs(s, d)
        if not keep.all():
            order = order[keep]
            s = s[keep]
            d = d[keep]
    indptr = np.zeros(n + 1, np.int64)
    if n:
        np.cumsum(np.bincount(s, minlength=n), out=indptr[1:])
    return indptr, s, d, order


def build_csc(src_sorted: np.ndarray, dst_sorted: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """In-edge (CSC) arrays from CSR-ordered edges: ``(indptr, in_src, in_eid)``."""
    indptr, order = _counting_order(dst_sorted, n, _parts(dst_sorted.shape[0], n))
    return indptr, _take(src_sorted, order), order
