"""Greedy graph colourings that schedule the asynchronous engine's parallel steps.

A distance-1 colouring gives adjacent vertices different colours, so one colour class can run in
parallel without two neighbours running at once (edge consistency). A distance-2 colouring also
separates vertices with a common neighbour (full consistency). Both are greedy in vertex id
order over the undirected graph (edge directions ignored, self-loops skipped): deterministic, at
most ``max degree + 1`` colours for distance 1.
"""

from __future__ import annotations

import numba
import numpy as np

from gas.errors import GasError
from gas.graph import Graph

__all__ = ["greedy_coloring", "color_classes", "distance2_cost", "check_coloring"]


@numba.njit(cache=True)
def _greedy1(n, out_indptr, dst, in_indptr, in_src):
    color = np.full(n, -1, np.int32)
    mark = np.full(n + 1, -1, np.int64)
    for v in range(n):
        for k in range(out_indptr[v], out_indptr[v + 1]):
            c = color[dst[k]]
            if c >= 0:
                mark[c] = v
        for k in range(in_indptr[v], in_indptr[v + 1]):
            c = color[in_src[k]]
            if c >= 0:
                mark[c] = v
        c = 0
        while mark[c] == v:
            c += 1
        color[v] = c
    return color


@numba.njit(cache=True)
def _greedy2(n, out_indptr, dst, in_indptr, in_src):
    color = np.full(n, -1, np.int32)
    mark = np.full(n + 1, -1, np.int64)
    for v in range(n):
        for side in range(2):
            lo = out_indptr[v] if side == 0 else in_indptr[v]
            hi = out_indptr[v + 1] if side == 0 else in_indptr[v + 1]
            for k in range(lo, hi):
                u = dst[k] if side == 0 else in_src[k]
                if u == v:
                    continue
                c = color[u]
                if c >= 0:
                    mark[c] = v
                for k2 in range(out_indptr[u], out_indptr[u + 1]):
                    w = dst[k2]
                    if w != v and color[w] >= 0:
                        mark[color[w]] = v
                for k2 in range(in_indptr[u], in_indptr[u + 1]):
                    w = in_src[k2]
                    if w != v and color[w] >= 0:
                        mark[color[w]] = v
        c = 0
        while c < n and mark[c] == v:
            c += 1
        color[v] = c
    return color


def distance2_cost(graph: Graph) -> int:
    """Edge visits a distance-2 colouring makes: the sum over vertices of degree squared."""
    deg = (graph.out_degree + graph.in_degree).astype(np.int64)
    return int(np.dot(deg, deg))


def greedy_coloring(graph: Graph, distance: int = 1) -> np.ndarray:
    """A greedy colouring at ``distance`` 1 or 2 (kept on the graph, computed once).

    Examples
    --------
    >>> import gas
    >>> from gas.greedy_coloring import greedy_coloring
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])   # a path 0-1-2-3
    >>> greedy_coloring(g, 1).tolist(), greedy_coloring(g, 2).tolist()
    ([0, 1, 0, 1], [0, 1, 2, 0])
    """
    if distance not in (1, 2):
        raise ValueError(f"Expected distance 1 or 2 (got {distance})")
    cache = graph.__dict__.setdefault("_gas_colorings", {})
    if distance not in cache:
        fn = _greedy1 if distance == 1 else _greedy2
        cache[distance] = fn(graph.num_vertices, graph.out_indptr, graph.dst, graph.in_indptr, graph.in_src)
    return cache[distance]


def color_classes(color: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices grouped by colour: ``order`` (ids sorted by colour, then id) and ``bounds`` such
    that class ``c`` is ``order[bounds[c]:bounds[c + 1]]``."""
    order = np.argsort(color, kind="stable").astype(np.int64)
    counts = np.bincount(color, minlength=int(color.max()) + 1 if color.size else 0)
    bounds = np.zeros(counts.size + 1, np.int64)
    np.cumsum(counts, out=bounds[1:])
    return order, bounds


@numba.njit(cache=True, parallel=True)
def _first_clash(color, out_indptr, dst):
    """The smallest vertex with a neighbour of its own colour, and that neighbour; (-1, -1) when
    there is none. The out-lists hold every edge once, so only they are read: each vertex keeps
    the smallest end of its clashing out-edges (itself or the other end)."""
    n = color.shape[0]
    low = np.full(n, n, np.int64)
    other = np.full(n, -1, np.int64)  # the other end of that edge
    for v in numba.prange(n):
        for k in range(out_indptr[v], out_indptr[v + 1]):
            u = dst[k]
            if u != v and color[u] == color[v] and min(u, v) < low[v]:
                low[v] = min(u, v)
                other[v] = u if u > v else v
    v = np.argmin(low)
    return (low[v], other[v]) if low[v] < n else (-1, -1)


@numba.njit(cache=True, parallel=True)
def _first_clash2(color, out_indptr, dst, in_indptr, in_src):
    """The smallest vertex with a neighbour or a neighbour's neighbour of its own colour, and
    that vertex; (-1, -1) when there is none."""
    n = color.shape[0]
    clash = np.full(n, -1, np.int64)
    for v in numba.prange(n):
        for side in range(2):
            lo = out_indptr[v] if side == 0 else in_indptr[v]
            hi = out_indptr[v + 1] if side == 0 else in_indptr[v + 1]
            for k in range(lo, hi):
                u = dst[k] if side == 0 else in_src[k]
                if u == v:
                    continue
                if color[u] == color[v]:
                    clash[v] = u
                for k2 in range(out_indptr[u], out_indptr[u + 1]):
                    w = dst[k2]
                    if w != v and color[w] == color[v]:
                        clash[v] = w
                for k2 in range(in_indptr[u], in_indptr[u + 1]):
                    w = in_src[k2]
                    if w != v and color[w] == color[v]:
                        clash[v] = w
    for v in range(n):
        if clash[v] >= 0:
            return v, clash[v]
    return -1, -1


def check_coloring(graph: Graph, color: np.ndarray, distance: int = 1) -> np.ndarray:
    """``color`` as an int32 array after checking that it is a colouring at ``distance`` 1
    (no two neighbours share a colour) or 2 (nor two vertices with a common neighbour), edge
    directions ignored, self-loops skipped; :class:`gas.GasError` names a clash.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])   # a path 0-1-2-3
    >>> check_coloring(g, [0, 1, 0, 1]).tolist()
    [0, 1, 0, 1]
    >>> check_coloring(g, [0, 1, 0, 1], distance=2)
    Traceback (most recent call last):
    ...
    gas.errors.GasError: Expected a distance-2 colouring: vertices 0 and 2 both have colour 0
    """
    c = np.asarray(color)
    n = graph.num_vertices
    if c.shape != (n,) or (n and (not np.issubdtype(c.dtype, np.integer) or c.min() < 0)):
        raise GasError(f"Expected one integer colour >= 0 per vertex ({n}); got shape {c.shape}, {c.dtype}")
    c = c.astype(np.int32)
    if distance == 1:
        v, u = _first_clash(c, graph.out_indptr, graph.dst)
    else:
        v, u = _first_clash2(c, graph.out_indptr, graph.dst, graph.in_indptr, graph.in_src)
    if v >= 0:
        raise GasError(
            f"Expected a distance-{distance} colouring: vertices {v} and {u} both have colour {c[v]}"
        )
    return c
