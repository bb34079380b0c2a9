"""Numba kernels that turn edge arrays into CSR/CSC arrays (counting sorts, dedupe, id remap)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["compact_ids", "build_csr", "build_csc"]


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


@njit(cache=True)
def _counting_order(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable counting sort: returns (indptr, order) with keys[order] non-decreasing."""
    m = keys.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    for i in range(m):
        indptr[keys[i] + 1] += 1
    for v in range(n):
        indptr[v + 1] += indptr[v]
    pos = indptr[:-1].copy()
    order = np.empty(m, np.int64)
    for i in range(m):
        k = keys[i]
        order[pos[k]] = i
        pos[k] += 1
    return indptr, order


@njit(cache=True)
def _sorted_edge_order(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """Order of edges sorted by (src, dst), stable for equal pairs (LSD: dst pass, then src)."""
    _, by_dst = _counting_order(dst, n)
    keys = np.empty_like(src)
    for i in range(by_dst.shape[0]):
        keys[i] = src[by_dst[i]]
    _, by_src = _counting_order(keys, n)
    out = np.empty_like(by_src)
    for i in range(by_src.shape[0]):
        out[i] = by_dst[by_src[i]]
    return out


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
    s = src[order]
    d = dst[order]
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
    indptr, order = _counting_order(dst_sorted, n)
    return indptr, src_sorted[order], order
