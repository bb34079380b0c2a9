"""The CUDA engine's graph layout, made on the host once per run: adjacency lists in the
directions a program gathers and scatters over, the vertices in gather-degree order, and the
bins of that order (see :mod:`gas.cuda_tuning`).

The vertices keep their ids (and so their data, ``vid``, the exchange's masters and mirrors); a
list ``order`` of them, sorted by gather degree (highest first, ties in id order), makes each
degree class a contiguous range ``order[bounds[b]:bounds[b+1]]``, in this bin order:

======  ==========================================  ==================================
bin     gather edges ``d``                          gathered by
======  ==========================================  ==================================
lb      ``d >= lb_degree``                          chunks of ``lb_chunk`` edges, a block each
block   ``block_degree <= d < lb_degree``           a block
warp    ``warp_degree <= d < block_degree``         a warp (32 threads)
thread  ``1 <= d < warp_degree``                    a thread
empty   ``d == 0``                                  nobody: the total is ``gather_zero``
======  ==========================================  ==================================

The chunked ("lb") bin is found by a search over a prefix sum: hub ``h`` of the bin owns the
chunks ``cptr[h]:cptr[h+1]`` (``cptr`` is the exclusive prefix sum of ``ceil(d_h / lb_chunk)``),
so chunk ``c`` belongs to the largest ``h`` with ``cptr[h] <= c``; :func:`lb_chunk_offsets` and
:func:`locate_reference` are the numpy references of what the device computes.

Examples
--------
>>> import numpy as np
>>> from gas.cuda_tuning import CudaTuning
>>> deg = np.array([0, 40, 3, 300, 5000, 1])
>>> order = degree_order(deg)
>>> order.tolist(), bin_bounds(deg[order], CudaTuning(block_degree=256, lb_degree=1000)).tolist()
([4, 3, 1, 2, 5, 0], [0, 1, 2, 3, 5, 6])
"""

from __future__ import annotations

import numpy as np

from gas.cuda_tuning import CudaTuning
from gas.graph import Graph
from gas.program import EdgeDir

__all__ = [
    "BINS",
    "adjacency",
    "degree_order",
    "bin_bounds",
    "lb_chunk_offsets",
    "locate_reference",
    "index_dtype",
]

#: the bins in the order they sit in ``order``
BINS = ("lb", "block", "warp", "thread", "empty")


def index_dtype(graph: Graph) -> type:
    """int32 when every vertex and edge id fits (half the bytes an edge streams), else int64."""
    return np.int32 if max(graph.num_vertices, graph.num_edges) < 2**31 - 1 else np.int64


def adjacency(graph: Graph, direction: EdgeDir) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ptr, nbr, eid)``: the edges of ``direction`` of each vertex ``v`` are slots
    ``ptr[v]:ptr[v+1]``, leading to ``nbr[k]`` through edge ``eid[k]`` (``ALL``: the in-edges,
    then the out-edges, as the CPU engine visits them).

    Examples
    --------
    >>> g = Graph.from_edges([0, 0, 1], [1, 2, 2])
    >>> [a.tolist() for a in adjacency(g, EdgeDir.IN)]
    [[0, 0, 1, 3], [0, 0, 1], [0, 1, 2]]
    """
    n, idx = graph.num_vertices, index_dtype(graph)
    if direction == EdgeDir.NONE:
        return np.zeros(n + 1, np.int64), np.zeros(0, idx), np.zeros(0, idx)
    out_eid = np.arange(graph.num_edges, dtype=idx)
    if direction == EdgeDir.IN:
        return graph.in_indptr.astype(np.int64), graph.in_src.astype(idx), graph.in_eid.astype(idx)
    if direction == EdgeDir.OUT:
        return graph.out_indptr.astype(np.int64), graph.dst.astype(idx), out_eid
    din, dout = np.diff(graph.in_indptr), np.diff(graph.out_indptr)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(din + dout, out=ptr[1:])
    # slot of each in-edge: its vertex's start plus its rank among the vertex's in-edges
    kin = np.arange(graph.num_edges, dtype=np.int64)
    own_in = np.repeat(np.arange(n), din)
    pos_in = ptr[own_in] + (kin - graph.in_indptr[own_in])
    own_out = np.repeat(np.arange(n), dout)
    pos_out = ptr[own_out] + din[own_out] + (kin - graph.out_indptr[own_out])
    nbr = np.empty(2 * graph.num_edges, idx)
    eid = np.empty(2 * graph.num_edges, idx)
    nbr[pos_in], eid[pos_in] = graph.in_src, graph.in_eid
    nbr[pos_out], eid[pos_out] = graph.dst, out_eid
    return ptr, nbr, eid


def degree_order(degree: np.ndarray) -> np.ndarray:
    """Vertex ids by ``degree``, highest first, ties in id order (a stable sort)."""
    return np.argsort(-np.asarray(degree, np.int64), kind="stable").astype(np.int64)


def bin_bounds(sorted_degree: np.ndarray, tuning: CudaTuning) -> np.ndarray:
    """The six positions ``[0, lb_end, block_end, warp_end, thread_end, n]`` that cut a list of
    degrees sorted highest first into the bins of :data:`BINS`."""
    neg = -np.asarray(sorted_degree, np.int64)  # ascending
    cuts = [tuning.lb_degree, tuning.block_degree, tuning.warp_degree, 1]
    inner = [int(np.searchsorted(neg, -c, side="right")) for c in cuts]
    return np.array([0, *inner, neg.shape[0]], np.int64)


def lb_chunk_offsets(hub_degree: np.ndarray, chunk: int) -> np.ndarray:
    """``cptr``: the exclusive prefix sum of each hub's chunk count ``ceil(d / chunk)``
    (length ``len(hub_degree) + 1``; the last entry is the number of chunks)."""
    counts = -(-np.asarray(hub_degree, np.int64) // chunk)
    cptr = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=cptr[1:])
    return cptr


def locate_reference(cptr: np.ndarray, chunk_ids: np.ndarray) -> np.ndarray:
    """The hub owning each chunk: the largest ``h`` with ``cptr[h] <= c`` (numpy's search; the
    device's binary search must agree)."""
    return np.searchsorted(cptr, chunk_ids, side="right") - 1
