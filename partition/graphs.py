"""Graph preparation for partitioning benchmarks: the simple undirected edge set."""

from __future__ import annotations

import numpy as np

from gas.graph import Graph

__all__ = ["undirected_simple"]


def undirected_simple(graph: Graph) -> Graph:
    """Each unordered pair ``{u, v}`` (``u != v``) once, as the edge ``min -> max``.

    Self-loops and duplicates (including the two directions of an undirected edge) are
    removed, and vertices left without edges are dropped; ``ids`` keeps the original ids. This
    is the edge set on which the published replication factors of vertex-cut methods (e.g. the
    NE paper's table) are computed.

    Examples
    --------
    >>> g = Graph.from_edges([1, 2, 2, 3, 4], [2, 1, 3, 3, 4])
    >>> h = undirected_simple(g)
    >>> h.num_edges, h.ids.tolist()
    (2, [1, 2, 3])
    """
    s, d = graph.src, graph.dst
    keep = s != d
    lo = np.minimum(s[keep], d[keep])
    hi = np.maximum(s[keep], d[keep])
    h = Graph.from_edges(lo, hi, dedupe=True)
    h.ids = graph.ids[h.ids] if h.num_vertices else graph.ids[:0]
    return h
