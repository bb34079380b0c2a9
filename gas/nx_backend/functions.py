"""networkx's functions on gaslab: each takes networkx's arguments and returns networkx's result.

networkx calls them with the converted graph (:class:`gas.nx_backend.graph.NxGraph`) in place of
the networkx graph and every other argument as the caller passed it (positionally or by
keyword); unknown keywords (``threads=``, ``engine=``, ``procs=``) reach them too. Parallel edges
combine as networkx's own functions do: PageRank adds their weights (``to_scipy_sparse_array``),
Dijkstra takes the smallest (``_weight_function``).
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from gas.algorithms.components import connected_components as _gas_components
from gas.algorithms.pagerank import pagerank as _gas_pagerank
from gas.algorithms.sssp import sssp
from gas.errors import ConvergenceError
from gas.graph import Graph
from gas.greedy_coloring import greedy_coloring
from gas.nx_backend.graph import NxGraph

__all__ = [
    "pagerank",
    "connected_components",
    "weakly_connected_components",
    "number_connected_components",
    "single_source_shortest_path_length",
    "single_source_dijkstra_path_length",
    "greedy_color",
]


def pagerank(G: NxGraph, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None, *, threads=None, engine="sync", procs=1,
             extrapolate_every=0) -> dict:  # fmt: skip
    """``networkx.pagerank`` by power iteration on gaslab (``extrapolate_every=0``: the same
    iterates and stopping step as networkx; a positive value adds gaslab's extrapolation)."""
    if len(G) == 0:
        return {}
    if weight is not None and weight not in G.columns and G.number_of_edges():
        raise NotImplementedError(f"edge attribute {weight!r} is not numeric")
    g = _checked(G.graph_for(weight if G.number_of_edges() else None, "sum"), "pagerank")
    vectors = {}
    for name, given in (("personalization", personalization), ("nstart", nstart), ("dangling", dangling)):
        if given is not None:  # networkx reads each node's value, 0 when missing; other keys are ignored
            vectors[name] = np.array([given.get(v, 0) for v in G.nodes], np.float64)
    if "personalization" in vectors and vectors["personalization"].sum() == 0:
        raise ZeroDivisionError  # as networkx's pagerank
    try:
        ranks = _gas_pagerank(g, alpha, tol, max_iter, "weight", threads=threads, engine=engine,
                              procs=procs, extrapolate_every=extrapolate_every, **vectors)  # fmt: skip
    except ConvergenceError as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    return dict(zip(G.nodes, ranks.tolist()))


def _checked(g: Graph, name: str):
    """``g``, or NotImplementedError (networkx then runs the call under ``backend_priority``) when
    a weight is negative or NaN: gaslab refuses those and networkx's result is its own."""
    w = g.weights
    if w is not None and w.size and not (w.min() >= 0):  # NaN fails the comparison too
        raise NotImplementedError(f"gaslab's {name} needs non-negative edge weights (got {w.min()})")
    return g


def _component_labels(G: NxGraph, threads, engine, procs) -> np.ndarray:
    if len(G) == 0:
        return np.zeros(0, np.int64)
    # an undirected graph's simple view is already built (and shared with the toolkit functions)
    g = G.graph_for(None, "sum") if G.is_directed() else G.simple()
    return np.asarray(_gas_components(g, threads=threads, engine=engine, procs=procs), np.int64)


def _components(G: NxGraph, threads, engine, procs):
    labels = _component_labels(G, threads, engine, procs)
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    for group in np.split(order, cuts) if labels.size else []:
        yield {G.nodes[i] for i in group.tolist()}


def connected_components(G: NxGraph, *, threads=None, engine="sync", procs=1):
    """``networkx.connected_components``: a generator of node sets (undirected graphs only)."""
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    return _components(G, threads, engine, procs)


def weakly_connected_components(G: NxGraph, *, threads=None, engine="sync", procs=1):
    """``networkx.weakly_connected_components``: a generator of node sets (directed graphs)."""
    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    return _components(G, threads, engine, procs)


def number_connected_components(G: NxGraph, *, threads=None, engine="sync", procs=1) -> int:
    """``networkx.number_connected_components`` (undirected graphs only)."""
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    return int(np.unique(_component_labels(G, threads, engine, procs)).size)


def _distances(G: NxGraph, source: Any, weight: str | None, combine: str, threads, engine, procs):
    g = _checked(G.graph_for(weight, combine), "shortest paths")
    dist = sssp(g, G.index[source], "weight" if weight is not None else None, threads=threads,
                engine=engine, procs=procs)  # fmt: skip
    return dist


def single_source_shortest_path_length(G: NxGraph, source, cutoff=None, *, threads=None, engine="sync",
                                       procs=1) -> dict:  # fmt: skip
    """``networkx.single_source_shortest_path_length``: hop counts, ``cutoff`` exactly as there."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    dist = _distances(G, source, None, "sum", threads, engine, procs)
    limit = np.inf if cutoff is None else cutoff
    keep = np.flatnonzero(np.isfinite(dist) & (dist <= limit))
    keep = keep[np.argsort(dist[keep], kind="stable")]  # networkx's BFS yields by level
    return {G.nodes[i]: int(dist[i]) for i in keep.tolist()}


def single_source_dijkstra_path_length(G: NxGraph, source, cutoff=None, weight="weight", *, threads=None,
                                       engine="sync", procs=1) -> dict:  # fmt: skip
    """``networkx.single_source_dijkstra_path_length`` for a weight attribute name (missing: 1):
    distances are ints when every stored weight is an int, floats when every one is a float."""
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if weight not in G.columns and G.number_of_edges():
        raise NotImplementedError(f"edge attribute {weight!r} is not numeric")
    column = weight if G.number_of_edges() else None
    kind = G.kinds.get(weight, "int") if column is not None else "int"
    if kind == "mixed":
        raise NotImplementedError(
            f"edge attribute {weight!r} mixes ints and floats: networkx's distance types follow each path"
        )
    dist = _distances(G, source, column, "min", threads, engine, procs)
    limit = np.inf if cutoff is None else cutoff
    keep = np.flatnonzero(np.isfinite(dist) & (dist <= limit))
    keep = keep[np.argsort(dist[keep], kind="stable")]
    # networkx adds the weights as stored: ints stay ints; the source is always the int 0
    values = dist[keep].astype(np.int64) if kind == "int" else dist[keep]
    out = dict(zip([G.nodes[i] for i in keep.tolist()], values.tolist()))
    out[source] = 0
    return out


def greedy_color(G: NxGraph, strategy="largest_first", interchange=False) -> dict:
    """``networkx.greedy_color`` with ``strategy="largest_first"``: gaslab's sequential greedy
    colouring over the nodes sorted by decreasing degree (ties in node order, as ``sorted``)."""
    if len(G) == 0:
        return {}
    order = np.argsort(-G.degree(), kind="stable")
    colors = greedy_coloring(G.graph_for(None, "sum", order))
    return {G.nodes[v]: int(c) for v, c in zip(order.tolist(), colors.tolist())}
