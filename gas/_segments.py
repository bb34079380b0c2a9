"""Cache-blocked in-edge layout for the all-active pull gather ("segmenting", Zhang et al. 2017).

A pull gather reads ``nbr``'s data at random; once a column no longer fits in cache every read
misses. Splitting the source vertices into segments of ``segment_size`` ids and gathering one
segment at a time keeps the column slice being read in cache. Per segment the in-edges are
grouped by destination (a doubly compressed CSC): block ``b`` is destination ``blk_dst[b]`` with
edges ``blk_ptr[b]:blk_ptr[b+1]`` of ``seg_src`` / ``seg_eid``. A destination appears at most once
per segment, so threads that split a segment's blocks never write the same total.

With ``relabel`` the sources are first numbered by out-degree, highest first (ties in id order);
each destination's in-edges keep their order (sorting them by the new numbers makes a gather
slightly faster but costs more to build than it saves in a run to 1e-6; figures: bench/RESULTS.md,
"Figures formerly in docstrings").
On a power-law graph the few sources most edges read then sit together at the front, where they
stay in cache, instead of being scattered over the whole column. ``order[i]`` is the vertex
numbered ``i``; ``seg_src`` holds the new numbers, so a gather reads its neighbours' fields from
copies of those columns in the new order (``permute``), while destinations and edge ids keep
their own numbers. Degree order keeps the id order within each degree, so a graph whose ids
already have locality (a mesh, a road network: few distinct degrees) keeps most of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from gas._build import degree_order, take_into

__all__ = ["Segments", "build_segments", "permute"]


@dataclass
class Segments:
    segment_size: int
    seg_blk: np.ndarray  # (num_segments + 1,) block range of each segment
    blk_dst: np.ndarray
    blk_ptr: np.ndarray  # (num_blocks + 1,)
    seg_src: np.ndarray
    seg_eid: np.ndarray
    bounds: np.ndarray  # (num_segments, chunks + 1) block boundaries balanced by edges
    order: np.ndarray | None = None  # relabelled: order[i] is the source numbered i
    newid: np.ndarray | None = None  # relabelled: newid[order[i]] == i

    @property
    def num_segments(self) -> int:
        return self.seg_blk.shape[0] - 1

    def nbytes(self) -> int:
        arrays = (
            self.seg_blk,
            self.blk_dst,
            self.blk_ptr,
            self.seg_src,
            self.seg_eid if self.seg_eid is not self.seg_src else None,
            self.order,
            self.newid,
        )
        return sum(a.nbytes for a in arrays if a is not None)


@njit(parallel=True, cache=True)
def _permute_scalars(newid, col, out):
    for u in prange(newid.shape[0]):
        out[newid[u]] = col[u]


def permute(seg: Segments, col: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = col[seg.order[i]]``: a scalar vertex column in the relabelled layout's order
    (one scattered write per vertex, measured faster than one scattered read per slot)."""
    _permute_scalars(seg.newid, col, out)


@njit(cache=True)
def _count(in_indptr, in_src, n, seg_size, nseg):
    """Edges and blocks per segment. A target's in-edges need not be sorted by source (they are
    not once renumbered): ``seen[s] == v`` marks that ``v`` already has a block in segment
    ``s``."""
    ecount = np.zeros(nseg, np.int64)
    bcount = np.zeros(nseg, np.int64)
    seen = np.full(nseg, -1, np.int64)
    for v in range(n):
        for k in range(in_indptr[v], in_indptr[v + 1]):
            s = in_src[k] // seg_size
            ecount[s] += 1
            if seen[s] != v:
                bcount[s] += 1
                seen[s] = v
    return ecount, bcount


@njit(cache=True)
def _fill(in_indptr, in_src, in_eid, n, seg_size, eoff, boff, blk_dst, blk_ptr, seg_src, seg_eid, with_eid):
    """Each segment's edges in target order; the edges of one target in one segment are
    contiguous there even if its list interleaves segments, as targets are filled one by one.
    ``seg_eid`` is filled only ``with_eid`` (a program without edge columns never reads it)."""
    epos = eoff.copy()
    bpos = boff.copy()
    seen = np.full(eoff.shape[0], -1, np.int64)
    for v in range(n):
        for k in range(in_indptr[v], in_indptr[v + 1]):
            u = in_src[k]
            s = u // seg_size
            if seen[s] != v:
                b = bpos[s]
                blk_dst[b] = v
                blk_ptr[b] = epos[s]
                bpos[s] += 1
                seen[s] = v
            seg_src[epos[s]] = u
            if with_eid:
                seg_eid[epos[s]] = in_eid[k]
            epos[s] += 1


def build_segments(
    graph, segment_size: int, chunks: int, relabel: bool = False, edge_ids: bool = True
) -> Segments:
    """The segmented in-edge layout of ``graph``; ``relabel`` numbers the sources by out-degree
    first. A target's in-edges may come in any order: its edges in one segment form one block.
    Without ``edge_ids`` (a program with no edge columns) ``seg_eid`` is ``seg_src`` itself:
    the edge ids are neither read nor stored (on R-MAT-20, 128 MB and a stream of 16 M ids)."""
    n = graph.num_vertices
    nseg = max(1, -(-n // segment_size))
    m = graph.num_edges
    idx = np.int32 if max(n, m) < 2**31 - 1 else np.int64  # halves the streamed bytes
    in_src, order, newid = graph.in_src, None, None
    if relabel:
        order, newid = degree_order(graph.out_indptr)
        in_src = np.empty(m, idx)
        take_into(newid, graph.in_src, in_src)
    ecount, bcount = _count(graph.in_indptr, in_src, n, segment_size, nseg)
    eoff = np.zeros(nseg + 1, np.int64)
    np.cumsum(ecount, out=eoff[1:])
    boff = np.zeros(nseg + 1, np.int64)
    np.cumsum(bcount, out=boff[1:])
    nblk = int(boff[-1])
    blk_dst = np.empty(nblk, idx)
    blk_ptr = np.empty(nblk + 1, idx)
    blk_ptr[nblk] = m
    seg_src = np.empty(m, idx)
    seg_eid = np.empty(m, idx) if edge_ids else seg_src
    _fill(
        graph.in_indptr,
        in_src,
        graph.in_eid if edge_ids else graph.in_src,  # not read without edge ids (made only if read)
        n,
        segment_size,
        eoff[:-1],
        boff[:-1],
        blk_dst,
        blk_ptr,
        seg_src,
        seg_eid,
        edge_ids,
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
    return Segments(segment_size, boff, blk_dst, blk_ptr, seg_src, seg_eid, bounds, order, newid)
