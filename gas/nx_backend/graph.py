"""The graph networkx hands the gaslab backend: a networkx graph's nodes and edges as arrays.

networkx caches one converted graph per set of edge attributes (``G.__networkx_cache__``) and
shares it between functions, but the functions combine parallel edges differently (PageRank adds
their weights, Dijkstra takes the smallest), so :class:`NxGraph` keeps every networkx edge and
builds the :class:`gas.graph.Graph` each function needs on first use (cached on the object).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.graph import Graph

__all__ = ["NxGraph", "from_nx", "to_nx"]


class NxGraph:
    """A networkx graph converted for gaslab: node list, edge arrays and edge attribute columns.

    Internal vertex ``i`` is ``nodes[i]`` (networkx's node order). ``src``/``dst`` hold one entry
    per networkx edge (parallel edges kept, an undirected edge once); ``columns`` the numeric edge
    attributes networkx asked for, their defaults filled in.

    Examples
    --------
    >>> import networkx as nx
    >>> g = from_nx(nx.MultiGraph([(0, 1), (0, 1), (1, 2)]), edge_attrs={"weight": 1})
    >>> g.graph_for("weight", "sum").weights.tolist()
    [2.0, 2.0, 1.0, 1.0]
    """

    __networkx_backend__ = "gaslab"

    def __init__(self, nodes: list, src: np.ndarray, dst: np.ndarray, *, directed: bool, multigraph: bool,
                 columns: dict[str, np.ndarray], graph_attrs: dict | None = None) -> None:  # fmt: skip
        self.nodes = nodes
        self.index = {u: i for i, u in enumerate(nodes)}
        self.src, self.dst = src, dst
        self.directed, self.multigraph = directed, multigraph
        self.columns = columns
        self.graph = dict(graph_attrs or {})
        self.__networkx_cache__: dict = {}
        self._built: dict[tuple, Graph] = {}

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        return int(self.src.shape[0])

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable, as networkx's `n in G`
            return False

    def degree(self) -> np.ndarray:
        """networkx's degree (out + in for a directed graph; a self-loop counts twice)."""
        n = len(self.nodes)
        return np.bincount(self.src, minlength=n) + np.bincount(self.dst, minlength=n)

    def graph_for(self, weight: str | None, combine: str, order: np.ndarray | None = None) -> Graph:
        """A gaslab Graph on internal ids ``0..n-1``, undirected edges in both directions.

        ``weight`` names the column to use (``None``: no weights); parallel edges (and both
        directions of an undirected edge given twice) are merged with ``combine`` (``"sum"`` or
        ``"min"``). ``order`` renumbers the vertices: vertex ``order[k]`` becomes ``k``.
        """
        key = (weight, combine, None if order is None else order.tobytes())
        if key not in self._built:
            self._built[key] = self._build(weight, combine, order)
        return self._built[key]

    def _build(self, weight: str | None, combine: str, order: np.ndarray | None) -> Graph:
        n = len(self.nodes)
        s, d = self.src, self.dst
        w = self.columns[weight] if weight is not None else np.ones(s.shape[0])
        if not self.directed:
            back = s != d
            s, d, w = np.concatenate([s, d[back]]), np.concatenate([d, s[back]]), np.concatenate([w, w[back]])
        if order is not None:
            rank = np.empty(n, np.int64)
            rank[order] = np.arange(n)
            s, d = rank[s], rank[d]
        key = s * max(n, 1) + d
        uniq, inverse = np.unique(key, return_inverse=True)
        merged = np.zeros(uniq.shape[0]) if combine == "sum" else np.full(uniq.shape[0], np.inf)
        (np.add if combine == "sum" else np.minimum).at(merged, inverse, w)
        return Graph.from_edges(uniq // max(n, 1), uniq % max(n, 1), num_vertices=n, weights=merged)


def _column(values: Any, count: int) -> np.ndarray | None:
    """The values as float64, or ``None`` if one is not a number."""
    try:
        return np.fromiter(values, np.float64, count)
    except (TypeError, ValueError):
        return None


def _edge_data(adj: Any, multigraph: bool):
    """Every edge's attribute dict, in the order of :func:`_edge_arrays` (before its mask)."""
    if multigraph:
        return (d for nbrs in adj.values() for keyed in nbrs.values() for d in keyed.values())
    return (d for nbrs in adj.values() for d in nbrs.values())


def _edge_arrays(G: Any, index: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """Endpoints of every edge from the adjacency dicts (10x faster than ``G.edges(data=True)``).

    Returns ``src``, ``dst``, the mask of adjacency entries to keep (an undirected edge appears
    twice: kept where ``src <= dst``) and the adjacency.
    """
    adj = G._adj if hasattr(G, "_adj") else G.adj
    deg = np.fromiter((len(nbrs) for nbrs in adj.values()), np.int64, len(adj))
    src = np.repeat(np.fromiter((index[u] for u in adj), np.int64, len(adj)), deg)
    dst = np.fromiter((index[v] for nbrs in adj.values() for v in nbrs), np.int64, int(deg.sum()))
    if G.is_multigraph():
        mult = np.fromiter((len(k) for nbrs in adj.values() for k in nbrs.values()), np.int64, dst.size)
        src, dst = np.repeat(src, mult), np.repeat(dst, mult)
    keep = np.ones(src.size, bool) if G.is_directed() else src <= dst
    return src, dst, keep, adj


def from_nx(G: Any, edge_attrs: dict | None = None, *, preserve_edge_attrs: bool = False,
            preserve_graph_attrs: bool = False) -> NxGraph:  # fmt: skip
    """Convert a networkx graph: nodes in ``G`` order, every edge, the asked numeric attributes.

    ``edge_attrs`` maps attribute names to their default (networkx's ``convert_from_nx``);
    ``preserve_edge_attrs`` keeps every attribute that appears, with default 1. Columns that
    are not numeric are left out (a function needing one then declines to run).
    """
    nodes = list(G)
    index = {u: i for i, u in enumerate(nodes)}
    src, dst, keep, adj = _edge_arrays(G, index)
    multi = G.is_multigraph()
    wanted = dict(edge_attrs or {})
    if preserve_edge_attrs and not wanted:
        wanted = {k: 1 for d in _edge_data(adj, multi) for k in d}
    columns = {}
    for name, default in wanted.items():
        if default is None:
            continue
        col = _column((d.get(name, default) for d in _edge_data(adj, multi)), src.size)
        if col is not None:
            columns[name] = col[keep]
    graph_attrs = G.graph if preserve_graph_attrs else None
    return NxGraph(nodes, src[keep], dst[keep], directed=G.is_directed(), multigraph=multi,
                   columns=columns, graph_attrs=graph_attrs)  # fmt: skip


def to_nx(obj: Any) -> Any:
    """A networkx graph back from an :class:`NxGraph` (nodes, edges, the numeric columns); any
    other result (dicts, generators, numbers) unchanged."""
    if not isinstance(obj, NxGraph):
        return obj
    import networkx as nx

    G = {(True, True): nx.MultiDiGraph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph}.get(
        (obj.directed, obj.multigraph), nx.Graph
    )()
    G.graph.update(obj.graph)
    G.add_nodes_from(obj.nodes)
    for k, (s, d) in enumerate(zip(obj.src.tolist(), obj.dst.tolist())):
        G.add_edge(obj.nodes[s], obj.nodes[d], **{a: float(c[k]) for a, c in obj.columns.items()})
    return G
