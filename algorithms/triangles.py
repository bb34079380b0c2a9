"""Triangle counting and clustering on the undirected simple view, with neighbour lists.

A vertex program reads a vertex's neighbour list as ``v.nbrs`` (the sorted ids of its
out-neighbours, read-only) and asks ``v.has_nbr(w)`` in O(1) (the engine marks ``v``'s
neighbours in a per-thread table once per vertex): on the undirected simple view
(:meth:`gas.Graph.simple_undirected`: both directions, no repeats, no self-loops) these are the
vertex's neighbour set. The functions order the vertices by degree (then id) without
renumbering them: compiled parallel pre-steps build the undirected simple view (unless the
graph already is one) and each vertex's list of the neighbours above it in that order, which is
short (at most about ``sqrt(2m)``). Then each triangle ``{v, x, w}`` is counted at ``v`` once,
from the edge to its lower other corner ``x``: for each ``w`` in ``x``'s higher list,
``v.has_nbr(w)``. That is ``O(sum of degree x higher degree)`` probes of a marked table, as
networkit's and Ligra's triangle counts mark one list and probe it, instead of sorted-list
intersections, and no per-vertex accumulator sized by the largest degree. On several processes
(which take no program arrays) the view is renumbered by degree instead, so that the higher
neighbours are the end of each sorted list (:class:`SuffixTrianglesProgram`).

The functions follow networkx's names and answers on ``G.to_undirected()`` (self-loops
ignored): :func:`triangles`, :func:`clustering`, :func:`average_clustering`, :func:`transitivity`.
Results are numpy arrays indexed by internal vertex id (``G.ids`` maps back); ``nodes`` takes
original ids.

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])  # a triangle and a tail
>>> triangles(g).tolist(), clustering(g).round(3).tolist()
([1, 1, 1, 0], [1.0, 1.0, 0.333, 0.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from gas.api import run
from gas.errors import GasError
from gas.graph import Graph
from gas.program import NONE, OUT, VertexProgram
from gas.setops import is_undirected_simple
from gas.threads import num_threads

__all__ = ["TrianglesProgram", "triangles", "clustering", "average_clustering", "transitivity"]


class TrianglesProgram(VertexProgram):
    """Triangles at each vertex of a simple undirected graph ``g`` (run it on ``g``, e.g.
    :meth:`gas.Graph.simple_undirected`), from each vertex's list of higher neighbours in the
    degree order (degree, then id), made from ``g`` when the program is built: one superstep
    in which ``apply`` at ``v`` takes, for each neighbour ``x``, the higher neighbours of ``x``
    that ``v`` also has (``v.has_nbr``): each triangle once at each of its corners.

    The lists are read-only program arrays: ``higher`` (all lists, one after the other) and,
    per edge ``v -> x`` in CSR order, where ``x``'s list starts and ends in it (``lo``, ``hi``),
    so the loop over ``v``'s edges reads them in order instead of looking each ``x`` up. The
    count runs in ``apply``, which walks ``v``'s own edges after marking ``v``'s neighbours once
    (a ``gather`` over the same edges asks for the thread's row of marks at each edge: 1.04-1.35x
    slower). One process: the process runtime takes no array attributes, and :func:`triangles`
    runs :class:`SuffixTrianglesProgram` there.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3]).simple_undirected()
    >>> gas.run(g, TrianglesProgram(g), max_iter=1).output.tolist()
    [1, 1, 1, 0]
    """

    vertex_data = {"triangles": np.int64}
    gather_edges = NONE
    gather_type = np.int64
    checked = False  # its only indexing: offsets made with the lists

    def __init__(self, g: Graph, threads: int | None = None) -> None:
        self.first = g.out_indptr  # v's edges: first[v] up to first[v + 1]
        self.lo, self.hi, self.higher = _higher_lists(g.out_indptr, g.dst, threads)

    def apply(self, v, total, ctx):
        found = 0
        for e in range(self.first[v.vid], self.first[v.vid + 1]):
            # the triangles {v, x, w}, x the edge's other end and w a neighbour above x
            for k in range(self.lo[e], self.hi[e]):
                found += v.has_nbr(self.higher[k])
        v.triangles = found


class SuffixTrianglesProgram(VertexProgram):
    """:class:`TrianglesProgram` without program arrays, for several processes (which take no
    array attributes): on a simple undirected graph numbered by degree (as :func:`triangles`
    numbers it), the higher neighbours of ``x`` are the end of its sorted list, from ``x.low``.
    Any numbering is correct; numbering by degree makes it fast."""

    vertex_data = {"triangles": np.int64, "low": np.int64}
    gather_edges = OUT
    gather_type = np.int64
    checked = False  # no indexing of its own: the neighbour lists are slices

    def init(self, v, ctx):
        v.low = np.searchsorted(v.nbrs, v.vid)  # how many neighbours have a lower id

    def gather(self, v, e, nbr):
        found = 0
        for w in nbr.nbrs[nbr.low :]:
            found += v.has_nbr(w)
        return found

    def apply(self, v, total, ctx):
        v.triangles = total


@njit(cache=True, inline="always")
def _above(dx: int, x: int, dw: int, w: int) -> bool:
    """Whether ``w`` (degree ``dw``) comes after ``x`` (degree ``dx``) in the degree order."""
    return dw > dx or (dw == dx and w > x)


@njit(cache=True, inline="always")
def _bounds(indptr: np.ndarray, parts: int) -> np.ndarray:
    """Vertex range boundaries with about the same number of edges in each range."""
    m = indptr[indptr.shape[0] - 1]
    out = np.empty(parts + 1, np.int64)
    for c in range(parts + 1):
        out[c] = np.searchsorted(indptr, (m * c) // parts)
    out[0], out[parts] = 0, indptr.shape[0] - 1
    return out


@njit(parallel=True, cache=True)
def _higher_counts(indptr: np.ndarray, nbr: np.ndarray, deg: np.ndarray, parts: int) -> np.ndarray:
    """``ptr`` with ``ptr[x+1] - ptr[x]`` the number of ``x``'s neighbours above it."""
    n = indptr.shape[0] - 1
    ptr = np.empty(n + 1, np.int64)
    ptr[0] = 0
    b = _bounds(indptr, parts)
    for c in prange(parts):
        for x in range(b[c], b[c + 1]):
            dx = deg[x]
            h = 0
            for k in range(indptr[x], indptr[x + 1]):
                w = nbr[k]
                h += _above(dx, x, deg[w], w)
            ptr[x + 1] = h
    for x in range(n):
        ptr[x + 1] += ptr[x]
    return ptr


@njit(parallel=True, cache=True)
def _higher_fill(indptr, nbr, deg, ptr, lo, hi, out, parts):
    """Each vertex's neighbours above it, into ``out[ptr[x]:ptr[x+1]]`` (in list order), and for
    each edge ``k`` the span of its target's list (``lo[k]``, ``hi[k]``)."""
    b = _bounds(indptr, parts)
    for c in prange(parts):
        for x in range(b[c], b[c + 1]):
            dx = deg[x]
            p = ptr[x]
            for k in range(indptr[x], indptr[x + 1]):
                w = nbr[k]
                lo[k], hi[k] = ptr[w], ptr[w + 1]
                if _above(dx, x, deg[w], w):
                    out[p] = w
                    p += 1


def _higher_lists(
    indptr: np.ndarray, nbr: np.ndarray, threads: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The higher neighbours of each vertex of a simple undirected graph (CSR ``indptr``,
    ``nbr``) in the degree order, one list after the other, and each edge's span of its
    target's list: ``(lo, hi, higher)``, 32-bit when the ids and offsets fit (half the cache
    lines). Two parallel passes over the edges, reading the degrees from a 32-bit copy (1.1-1.15x
    faster than from ``indptr``); the vertices keep their numbers."""
    with num_threads(threads) as t:
        parts = 16 * t
        deg = np.diff(indptr).astype(np.int32 if indptr.shape[0] <= 2**31 else np.int64)
        ptr = _higher_counts(indptr, nbr, deg, parts)
        small = max(indptr.shape[0], ptr[-1]) < 2**31
        dt = np.int32 if small else np.int64
        m = nbr.shape[0]
        lo, hi, out = np.empty(m, dt), np.empty(m, dt), np.empty(ptr[-1], dt)
        _higher_fill(indptr, nbr, deg, ptr, lo, hi, out, parts)
    return lo, hi, out


@njit(cache=True)
def _union_size(v, out_indptr, dst, in_indptr, in_src, buf, at=0, write=True):
    """The neighbours of ``v`` in the undirected simple view: the sorted union of its out- and
    in-neighbours without ``v`` and without repeats, into ``buf`` from ``at`` on unless
    ``write`` is False (returns the count)."""
    i, i1 = out_indptr[v], out_indptr[v + 1]
    j, j1 = in_indptr[v], in_indptr[v + 1]
    k = 0
    last = -1
    while i < i1 or j < j1:
        if j >= j1 or (i < i1 and dst[i] <= in_src[j]):
            x = dst[i]
            i += 1
        else:
            x = in_src[j]
            j += 1
        if x != last and x != v:
            if write:
                buf[at + k] = x
            k += 1
            last = x
    return k


@njit(cache=True)
def _by_degree(out_indptr, dst, in_indptr, in_src, simple):
    """The undirected simple view renumbered by degree (ties by id), as a CSR and its CSC:
    ``(indptr, src, nbr, in_eid, order)`` with ``order[r]`` the vertex numbered ``r`` and each
    row of ``nbr`` sorted (filled in increasing order of the new ids, no sort). The view is
    symmetric, so its CSC has the CSR's ``indptr`` and ``nbr``, and ``in_eid`` names each
    reverse edge. With ``simple`` the graph already is that view (its out-lists are the rows)."""
    n = out_indptr.shape[0] - 1
    width = 0
    for v in range(0 if simple else n):  # the union's buffer (the rows themselves when simple)
        width = max(width, out_indptr[v + 1] - out_indptr[v] + in_indptr[v + 1] - in_indptr[v])
    buf = np.empty(width, np.int64)
    deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = (
            out_indptr[v + 1] - out_indptr[v]
            if simple
            else _union_size(v, out_indptr, dst, in_indptr, in_src, buf)
        )
    order = np.argsort(deg, kind="mergesort")
    rank = np.empty(n, np.int64)
    indptr = np.zeros(n + 1, np.int64)
    for r in range(n):
        rank[order[r]] = r
        indptr[r + 1] = indptr[r] + deg[order[r]]
    pos = indptr[:-1].copy()
    nbr = np.empty(indptr[n], np.int64)
    for t in range(n):  # t's neighbours' rows get t, in increasing t: each row comes out sorted
        v = order[t]
        if simple:
            row = dst[out_indptr[v] : out_indptr[v + 1]]
        else:
            row = buf[: _union_size(v, out_indptr, dst, in_indptr, in_src, buf)]
        for x in row:
            r = rank[x]
            nbr[pos[r]] = t
            pos[r] += 1
    src = np.empty(indptr[n], np.int64)
    in_eid = np.empty(indptr[n], np.int64)
    pos[:] = indptr[:-1]
    for t in range(n):  # edge t -> r is r's in-edge from t, and r's in-edges come in increasing t
        for k in range(indptr[t], indptr[t + 1]):
            src[k] = t
            r = nbr[k]
            in_eid[pos[r]] = k
            pos[r] += 1
    return indptr, src, nbr, in_eid, order


@njit(parallel=True, cache=True)
def _simple_view(out_indptr, dst, in_indptr, in_src, parts):
    """The undirected simple view of a graph (CSR and CSC), vertices kept: ``(indptr, nbr,
    in_eid)``; the view is symmetric, so its CSC has the CSR's ``indptr`` and ``nbr``, and
    ``in_eid`` names each reverse edge (one pass in order: 7x faster than a binary search in
    the other row in parallel)."""
    n = out_indptr.shape[0] - 1
    indptr = np.empty(n + 1, np.int64)
    indptr[0] = 0
    for c in prange(parts):
        for v in range((n * c) // parts, (n * (c + 1)) // parts):
            indptr[v + 1] = _union_size(v, out_indptr, dst, in_indptr, in_src, dst, 0, False)
    for v in range(n):
        indptr[v + 1] += indptr[v]
    nbr = np.empty(indptr[n], np.int64)
    for c in prange(parts):
        for v in range((n * c) // parts, (n * (c + 1)) // parts):
            _union_size(v, out_indptr, dst, in_indptr, in_src, nbr, indptr[v])
    in_eid = np.empty(indptr[n], np.int64)
    pos = indptr[:-1].copy()
    for t in range(n):  # edge k: t -> r is r's in-edge from t, and r's in-edges come in increasing t
        for k in range(indptr[t], indptr[t + 1]):
            r = nbr[k]
            in_eid[pos[r]] = k
            pos[r] += 1
    return indptr, nbr, in_eid


def _view(G: Graph, threads: int | None) -> Graph:
    """``G`` itself when it is its undirected simple view, else that view (vertices kept)."""
    if is_undirected_simple(G.out_indptr, G.dst, G.in_indptr, G.in_src):
        return G
    with num_threads(threads) as t:
        indptr, nbr, in_eid = _simple_view(G.out_indptr, G.dst, G.in_indptr, G.in_src, 16 * t)
    return Graph(indptr, None, nbr, G.ids, csc=(indptr, nbr, in_eid))


def _count(
    G: Graph, threads: int | None, procs: int = 1, partition: str = "hdrf"
) -> tuple[np.ndarray, np.ndarray]:
    """Triangles and degree of every vertex of ``G``'s undirected simple view (by ``G``'s
    internal id): on one process, counted on the view as numbered, through the lists of higher
    neighbours (:class:`TrianglesProgram`); on ``procs`` local processes, on the view renumbered
    by degree (:class:`SuffixTrianglesProgram`)."""
    if not isinstance(G, Graph):
        raise GasError(f"Expected a gas.Graph (got {type(G).__name__}); hint: gas.Graph.from_networkx(G)")
    n = G.num_vertices
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if procs == 1:
        V = _view(G, threads)
        tri = run(V, TrianglesProgram(V, threads), max_iter=1, threads=threads).output
        return tri, np.diff(V.out_indptr)
    simple = is_undirected_simple(G.out_indptr, G.dst, G.in_indptr, G.in_src)
    indptr, src, nbr, in_eid, order = _by_degree(G.out_indptr, G.dst, G.in_indptr, G.in_src, simple)
    D = Graph(indptr, src, nbr, G.ids[order], csc=(indptr, nbr, in_eid))
    tri, deg = np.empty(n, np.int64), np.empty(n, np.int64)
    prog = SuffixTrianglesProgram()
    tri[order] = run(D, prog, max_iter=1, threads=threads, procs=procs, partition=partition).output
    deg[order] = np.diff(indptr)
    return tri, deg


def _select(G: Graph, values: np.ndarray, nodes: Any) -> Any:
    """All values (``nodes`` None), one value (an original id) or an array (a list of them)."""
    if nodes is None:
        return values
    lookup = {x: i for i, x in enumerate(G.ids.tolist())}  # original ids of any kind (ints, labels)
    single = np.isscalar(nodes)
    wanted = [nodes] if single else list(nodes)
    missing = [n for n in wanted if n not in lookup]
    if missing:
        raise GasError(f"Node {missing[0]!r} is not in the graph (nodes takes original ids)")
    out = values[[lookup[n] for n in wanted]]
    return out[0].item() if single else out


def triangles(
    G: Graph, nodes: Any = None, *, threads: int | None = None, procs: int = 1, partition: str = "hdrf"
) -> Any:
    """Triangles through each vertex, as ``networkx.triangles(G.to_undirected())``.

    Parameters
    ----------
    G : Graph
        Directions, repeated edges and self-loops are ignored.
    nodes : original id or list of them, optional
        Only these vertices (one id: an int back).
    threads : int, optional
        Numba threads.
    procs, partition : int, str
        As :func:`gas.run`'s: ``procs > 1`` runs on local processes, each holding the whole
        neighbour lists of its vertices (same answer).

    Returns
    -------
    ndarray of int64 (by internal id), or an int for one node.

    Examples
    --------
    >>> import gas
    >>> triangles(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3]), nodes=1)
    1
    """
    return _select(G, _count(G, threads, procs, partition)[0], nodes)


def _clustering_of(tri: np.ndarray, deg: np.ndarray) -> np.ndarray:
    d = deg.astype(np.float64)
    pairs = d * (d - 1.0)
    out = np.zeros(tri.shape[0], np.float64)
    np.divide(2.0 * tri, pairs, out=out, where=pairs > 0)
    return out


def clustering(
    G: Graph,
    nodes: Any = None,
    weight: str | None = None,
    *,
    threads: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
) -> Any:
    """Local clustering coefficient ``2 T(v) / (d(v) (d(v) - 1))`` on the undirected simple view
    (networkx's ``clustering(G.to_undirected())``; 0 below degree 2); ``procs``, ``partition``
    as :func:`triangles`'s.

    Examples
    --------
    >>> import gas
    >>> clustering(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3]), nodes=[0, 1]).round(3).tolist()
    [1.0, 0.333]
    """
    if weight is not None:
        raise GasError("weighted clustering is not supported yet (weight=None); hint: networkx.clustering")
    return _select(G, _clustering_of(*_count(G, threads, procs, partition)), nodes)


def average_clustering(
    G: Graph,
    nodes: Any = None,
    weight: str | None = None,
    count_zeros: bool = True,
    *,
    threads: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
) -> float:
    """The mean local clustering coefficient (``count_zeros=False``: over the vertices whose
    coefficient is not 0), as networkx's ``average_clustering`` on ``G.to_undirected()``;
    ``procs``, ``partition`` as :func:`triangles`'s.

    Examples
    --------
    >>> import gas
    >>> round(average_clustering(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3])), 4)
    0.5833
    """
    coef = clustering(G, nodes, weight, threads=threads, procs=procs, partition=partition)
    c = np.atleast_1d(np.asarray(coef, np.float64))
    if not count_zeros:
        c = c[c > 0]
    if c.size == 0:
        raise GasError("average_clustering of no vertices (networkx divides by zero here)")
    return float(c.mean())


def transitivity(G: Graph, *, threads: int | None = None, procs: int = 1, partition: str = "hdrf") -> float:
    """``3 * triangles / connected triples`` of the undirected simple view, as
    ``networkx.transitivity(G.to_undirected())`` (0 with no triangle); ``procs``, ``partition``
    as :func:`triangles`'s.

    Examples
    --------
    >>> import gas
    >>> round(transitivity(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3])), 4)
    0.6
    """
    tri, deg = _count(G, threads, procs, partition)
    d = deg.astype(np.float64)
    triples = float((d * (d - 1.0)).sum())
    t = float(tri.sum())  # each triangle at each of its 3 corners
    return 0.0 if t == 0 else 2.0 * t / triples
