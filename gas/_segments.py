"""Cache-blocked in-edge layout for the all-active pull gather ("segmenting", Zhang et al. 2017).

A pull gather reads ``nbr``'s data at random; once a column no longer fits in cache every read
misses. Splitting the source vertices into segments of ``segment_size`` ids and gathering one
segment at a time keeps the column slice being read in cache. Per segment the in-edges are
grouped by destination (a doubly compressed CSC): block ``b`` is destination ``blk_dst[b]`` with
edges ``blk_ptr[b]:blk_ptr[b+1]`` of ``seg_src`` / ``seg_eid``. A destination appears at most once
per segment, so threads that split a segment's blocks never write the same total.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["Segments", "build_segments"]


@dataclass
class Segments:
    segment_size: int
    seg_blk: np.ndarray  # (num_segments + 1,) block range of each segment
    blk_dst: np.ndarray
    blk_ptr: np.ndarray  # (num_blocks + 1,)
    seg_src: np.ndarray
    seg_eid: np.ndarray
    bounds: np.ndarray  # (num_segments, chunks + 1) block boundaries balanced by edges

    @property
    def num_segments(self) -> int:
        return self.seg_blk.shape[0] - 1

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.seg_blk, self.blk_dst, self.blk_ptr, self.seg_src, self.seg_eid))


@njit(cache=True)
def _count(in_indptr, in_src, n, seg_size, nseg):
    ecount = np.zeros(nseg, np.int64)
    bcount = np.zeros(nseg, np.int64)
    for v in range(n):
        last = -1
        for k in range(in_indptr[v], in_indptr[v + 1]):
            s = in_src[k] // seg_size
            ecount[s] += 1
            if s != last:
                bcount[s] += 1
                last = s
    return ecount, bcount


@njit(cache=True)
def _fill(in_indptr, in_src, in_eid, n, seg_size, eoff, boff, blk_dst, blk_ptr, seg_src, seg_eid):
    epos = eoff.copy()
    bpos = boff.copy()
    for v in range(n):
        last = -1
        for k in range(in_indptr[v], in_indptr[v + 1]):
            s = in_src[k] // seg_size
            if s != last:
                b = bpos[s]
                blk_dst[b] = v
                blk_ptr[b] = epos[s]
                bpos[s] += 1
                last = s
            seg_src[epos[s]] = in_src[k]
            seg_eid[epos[s]] = in_eid[k]
            epos[s] += 1


def build_segments(graph, segment_size: int, chunks: int) -> Segments:
    """The segmented in-edge layout of ``graph`` (in-edges must be sorted by source per target,
    as :class:`gas.Graph` builds them)."""
    n = graph.num_vertices
    nseg = max(1, -(-n // segment_size))
    ecount, bcount = _count(graph.in_indptr, graph.in_src, n, segment_size, nseg)
    eoff = np.zeros(nseg + 1, np.int64)
    np.cumsum(ecount, out=eoff[1:])
    boff = np.zeros(nseg + 1, np.int64)
    np.cumsum(bcount, out=boff[1:])
    nblk = int(boff[-1])
    m = graph.num_edges
    blk_dst = np.empty(nblk, np.int64)
    blk_ptr = np.empty(nblk + 1, np.int64)
    blk_ptr[nblk] = m
    idx = np.int32 if max(n, m) < 2**31 - 1 else np.int64  # halves the streamed bytes
    seg_src = np.empty(m, idx)
    seg_eid = np.empty(m, idx)
    _fill(
        graph.in_indptr,
        graph.in_src,
        graph.in_eid,
        n,
        segment_size,
        eoff[:-1],
        boff[:-1],
        blk_dst,
        blk_ptr,
        seg_src,
        seg_eid,
    )
    bounds = np.empty((nseg, chunks + 1), np.int64)
    for s in range(nseg):
        b0, b1 = int(boff[s]), int(boff[s + 1])
        if b1 == b0:
            bounds[s] = b0
            continue
        work = blk_ptr[b0 + 1 : b1 + 1] - blk_ptr[b0] + np.arange(1, b1 - b0 + 1)  # edges + blocks
        targets = np.linspace(0, work[-1], chunks + 1)[1:-1]
        cuts = b0 + np.searchsorted(work, targets, side="left") + 1
        bounds[s] = np.concatenate([[b0], np.minimum(cuts, b1), [b1]])
    return Segments(segment_size, boff, blk_dst, blk_ptr, seg_src, seg_eid, bounds)
