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

from gas.graph import Graph

__all__ = ["greedy_coloring", "color_classes", "distance2_cost"]


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
