"""The graph networkx hands the gaslab backend: a networkx graph's adjacency as arrays.

networkx caches one converted graph per set of edge attributes (``G.__networkx_cache__``) and
shares it between functions, but the functions combine parallel edges differently (PageRank adds
their weights, Dijkstra takes the smallest), so :class:`NxGraph` keeps every adjacency entry and
builds the :class:`gas.graph.Graph` each function needs on first use (cached on the object).

Conversion reads networkx's adjacency (``G._adj``) in bulk: the neighbour keys of all nodes
chained in C into one numpy array (no Python work per edge when the nodes are ``0..n-1`` or other
integers), attribute values only when an edge has data. On ``gnm_random_graph(200_000,
1_000_000)`` that is about 0.2 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from operator import methodcaller
from typing import Any

import numpy as np
from numba import njit, prange

from gas.graph import Graph

__all__ = ["NxGraph", "SimpleView", "from_nx", "to_nx"]

_INT64_MAX = 2**63 - 1


class SimpleView(Graph):
    """A :class:`gas.graph.Graph` that already is its undirected simple view (both directions,
    no repeats, no self-loops): :meth:`simple_undirected` returns it instead of rebuilding it.

    Examples
    --------
    >>> g = SimpleView.from_edges([0, 1], [1, 0], num_vertices=2)
    >>> g.simple_undirected() is g
    True
    """

    def simple_undirected(self) -> Graph:
        return self


@njit(parallel=True, cache=True)
def _row_order(indptr: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The permutation that sorts each CSR row by ``dst`` (stable)."""
    perm = np.empty(dst.shape[0], np.int64)
    for u in prange(indptr.shape[0] - 1):
        a, b = indptr[u], indptr[u + 1]
        if b - a == 1:
            perm[a] = a
        elif b > a:
            o = np.argsort(dst[a:b], kind="mergesort")
            for k in range(b - a):
                perm[a + k] = a + o[k]
    return perm


def _csr_graph(cls: type, n: int, src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None) -> Graph:
    """A Graph from edges already grouped by ``src`` in increasing order (networkx's adjacency
    walked node by node) with no repeated pair: only each row is sorted (no global sort)."""
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    perm = _row_order(indptr, dst)
    edata = {} if weights is None else {"weight": np.ascontiguousarray(weights[perm], np.float64)}
    return cls(indptr, np.ascontiguousarray(src), dst[perm], np.arange(n, dtype=np.int64), edata)


class NxGraph:
    """A networkx graph converted for gaslab: node list, adjacency arrays and edge attribute columns.

    Internal vertex ``i`` is ``nodes[i]`` (networkx's node order). ``src``/``dst`` hold one entry
    per adjacency entry as networkx stores it: a directed edge once, an undirected edge in both
    directions (a self-loop once); ``mult`` the number of parallel edges of each entry (``None``
    for a graph that is not a multigraph). ``columns`` holds the numeric edge attributes networkx
    asked for, their defaults filled in, one value per edge instance (entry ``k`` repeated
    ``mult[k]`` times); ``kinds`` whether each column's values were all ``"int"``, all
    ``"float"`` or ``"mixed"`` (networkx's sums keep the stored type).

    Examples
    --------
    >>> import networkx as nx
    >>> g = from_nx(nx.MultiGraph([(0, 1), (0, 1), (1, 2)]), edge_attrs={"weight": 1})
    >>> g.number_of_edges(), g.graph_for("weight", "sum").weights.tolist()
    (3, [2.0, 2.0, 1.0, 1.0])
    """

    __networkx_backend__ = "gaslab"

    def __init__(self, nodes: list, src: np.ndarray, dst: np.ndarray, *, directed: bool,
                 mult: np.ndarray | None, columns: dict[str, np.ndarray], kinds: dict[str, str] | None = None,
                 graph_attrs: dict | None = None) -> None:  # fmt: skip
        self.nodes = nodes
        self.src, self.dst, self.mult = src, dst, mult
        self.directed, self.multigraph = directed, mult is not None
        self.columns = columns
        self.kinds = dict(kinds or {})
        self.graph = dict(graph_attrs or {})
        self.__networkx_cache__: dict = {}
        self._index: dict | None = None
        self._built: dict[tuple, Graph] = {}

    @property
    def index(self) -> dict:
        """node -> internal id (built on first use)."""
        if self._index is None:
            self._index = dict(zip(self.nodes, range(len(self.nodes))))
        return self._index

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def _instances(self) -> np.ndarray:
        return np.ones(self.src.shape[0], np.int64) if self.mult is None else self.mult

    def number_of_edges(self) -> int:
        k = self._instances()
        if self.directed:
            return int(k.sum())
        return int((k.sum() + k[self.src == self.dst].sum()) // 2)

    def number_of_selfloops(self) -> int:
        loops = self.src == self.dst
        return int(self._instances()[loops].sum()) if loops.any() else 0

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable, as networkx's `n in G`
            return False

    def degree(self) -> np.ndarray:
        """networkx's degree (out + in for a directed graph; a self-loop counts twice)."""
        n, k = len(self.nodes), self._instances()
        out = np.bincount(self.src, weights=k, minlength=n).astype(np.int64)
        loops = self.src == self.dst
        other = self.dst if self.directed else self.src[loops]
        back = np.bincount(other, weights=k if self.directed else k[loops], minlength=n)
        return out + back.astype(np.int64)

    def has_reciprocal_edges(self) -> bool:
        """Whether a directed graph has ``u -> v`` and ``v -> u`` for some ``u != v``."""
        n = max(len(self.nodes), 1)
        s, d = self.src[self.src != self.dst], self.dst[self.src != self.dst]
        return bool(np.isin(s * n + d, d * n + s).any())

    def simple(self) -> SimpleView:
        """The undirected simple view (directions, parallel edges and self-loops dropped)."""
        key = ("simple",)
        if key not in self._built:
            keep = self.src != self.dst
            s, d, n = self.src[keep], self.dst[keep], len(self.nodes)
            if self.directed:
                s, d = np.concatenate([s, d]), np.concatenate([d, s])
                self._built[key] = SimpleView.from_edges(s, d, num_vertices=n)
            else:  # networkx's adjacency already lists both directions once, by node
                self._built[key] = _csr_graph(SimpleView, n, s, d, None)
        return self._built[key]

    def graph_for(self, weight: str | None, combine: str, order: np.ndarray | None = None) -> Graph:
        """A gaslab Graph on internal ids ``0..n-1``, undirected edges in both directions.

        ``weight`` names the column to use (``None``: weight 1 per edge instance);
        parallel edges are merged with ``combine`` (``"sum"`` or ``"min"``). ``order`` renumbers
        the vertices: vertex ``order[k]`` becomes ``k``.
        """
        key = (weight, combine, None if order is None else order.tobytes())
        if key not in self._built:
            self._built[key] = self._build(weight, combine, order)
        return self._built[key]

    def _build(self, weight: str | None, combine: str, order: np.ndarray | None) -> Graph:
        n = len(self.nodes)
        s, d = self.src, self.dst
        if weight is None:  # each parallel edge counts 1 (networkx's to_scipy_sparse_array)
            w = self._instances().astype(np.float64)
        elif self.mult is None:
            w = self.columns[weight]
        else:
            w = self._merged(weight, combine)
        if order is not None:
            rank = np.empty(n, np.int64)
            rank[order] = np.arange(n)
            return Graph.from_edges(rank[s], rank[d], num_vertices=n, weights=w, dedupe=False)
        return _csr_graph(Graph, n, s, d, w)

    def _merged(self, weight: str, combine: str) -> np.ndarray:
        """One value per adjacency entry: its parallel edges' values added or the smallest."""
        w = self.columns[weight]
        starts = np.zeros(self.mult.shape[0], np.int64)
        np.cumsum(self.mult[:-1], out=starts[1:])
        if not w.size:
            return w
        return (np.add if combine == "sum" else np.minimum).reduceat(w, starts)


def _positions(nodes: list, adj: Any, count: int) -> np.ndarray:
    """Internal ids of every neighbour key in ``adj`` (chained in order), with no Python-level
    work per key when the nodes are integers."""
    keys = chain.from_iterable(adj.values())
    n = len(nodes)
    if nodes == list(range(n)):
        return np.fromiter(keys, np.int64, count)
    if set(map(type, nodes)) == {int} and min(nodes) >= -_INT64_MAX and max(nodes) <= _INT64_MAX:
        arr = np.array(nodes, np.int64)
        sorter = np.argsort(arr, kind="stable")
        raw = np.fromiter(keys, np.int64, count)
        return sorter[np.searchsorted(arr[sorter], raw)]
    index = dict(zip(nodes, range(n)))
    return np.fromiter(map(index.__getitem__, keys), np.int64, count)


def _column(values: list, default: Any) -> tuple[np.ndarray, str] | None:
    """The values as float64 and their kind (``"int"``, ``"float"``, ``"mixed"``), or ``None`` if
    one is not a number."""
    arr = np.array(values) if values else np.zeros(0, type(default) if isinstance(default, float) else int)
    if arr.dtype.kind not in "biuf":
        return None
    if arr.dtype.kind != "f":
        return arr.astype(np.float64), "int"
    types = set(map(type, values))
    return arr.astype(np.float64), ("float" if types <= {float} else "mixed")


def _adjacency(G: Any) -> Any:
    """networkx's dict of dicts ``G._adj`` when ``G``'s class reads its adjacency from it (and
    from nothing else), else the ``G.adj`` mapping (views, and classes such as networkx's
    ``_AntiGraph`` that define ``adj`` their own way)."""
    import networkx as nx

    plain = (nx.Graph.adj, nx.DiGraph.adj, nx.MultiGraph.adj, nx.MultiDiGraph.adj)
    adj = getattr(G, "_adj", None)
    if type(adj) is dict and any(type(G).adj is p for p in plain):
        return adj
    return G.adj


def _values_of(adj: Any) -> Any:
    """``dict.values`` for networkx's plain dicts (no Python frame per call), else the method."""
    return dict.values if type(adj) is dict else methodcaller("values")


def _edge_dicts(adj: Any, multigraph: bool) -> Iterator[dict]:
    """Every edge instance's attribute dict, in the order of the adjacency entries."""
    values = _values_of(adj)
    per_entry = chain.from_iterable(map(values, adj.values()))
    return chain.from_iterable(map(values, per_entry)) if multigraph else per_entry


def _values(adj: Any, multigraph: bool, name: str, default: Any, count: int) -> list:
    """The attribute's value on every edge instance (``default`` where it is missing)."""
    if not any(_edge_dicts(adj, multigraph)):  # no edge has data (generated graphs): one pass
        return [default] * count
    return [e.get(name, default) for e in _edge_dicts(adj, multigraph)]


def from_nx(G: Any, edge_attrs: dict | None = None, *, preserve_edge_attrs: bool = False,
            preserve_graph_attrs: bool = False) -> NxGraph:  # fmt: skip
    """Convert a networkx graph: nodes in ``G`` order, every adjacency entry, the asked numeric
    edge attributes.

    ``edge_attrs`` maps attribute names to their default (networkx's ``convert_from_nx``);
    ``preserve_edge_attrs`` keeps every attribute that appears, with default 1. Columns that
    are not numeric are left out (a function needing one then declines to run).

    Examples
    --------
    >>> import networkx as nx
    >>> g = from_nx(nx.Graph([("a", "b", {"w": 2})]), {"w": 1})
    >>> g.src.tolist(), g.dst.tolist(), g.columns["w"].tolist(), g.kinds["w"]
    ([0, 1], [1, 0], [2.0, 2.0], 'int')
    """
    adj = _adjacency(G)
    nodes = list(adj)
    deg = np.fromiter(map(len, adj.values()), np.int64, len(nodes))
    src = np.repeat(np.arange(len(nodes), dtype=np.int64), deg)
    dst = _positions(nodes, adj, int(deg.sum()))
    multi = G.is_multigraph()
    mult = None
    if multi:
        entries = chain.from_iterable(map(_values_of(adj), adj.values()))
        mult = np.fromiter(map(len, entries), np.int64, dst.size)
    wanted = {k: v for k, v in (edge_attrs or {}).items() if v is not None}
    if preserve_edge_attrs and not wanted:
        wanted = {k: 1 for e in _edge_dicts(adj, multi) for k in e}
    count = dst.size if mult is None else int(mult.sum())
    columns, kinds = {}, {}
    for name, default in wanted.items():
        col = _column(_values(adj, multi, name, default, count), default)
        if col is not None:
            columns[name], kinds[name] = col
    graph_attrs = G.graph if preserve_graph_attrs else None
    return NxGraph(nodes, src, dst, directed=G.is_directed(), mult=mult, columns=columns, kinds=kinds,
                   graph_attrs=graph_attrs)  # fmt: skip


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
    k = obj._instances()
    s, d = np.repeat(obj.src, k), np.repeat(obj.dst, k)
    keep = np.ones(s.size, bool) if obj.directed else s <= d
    cols = {a: c[keep].tolist() for a, c in obj.columns.items()}
    for j, (u, v) in enumerate(zip(s[keep].tolist(), d[keep].tolist())):
        G.add_edge(obj.nodes[u], obj.nodes[v], **{a: c[j] for a, c in cols.items()})
    return G
