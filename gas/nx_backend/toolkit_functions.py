"""networkx's toolkit functions on gaslab: triangles and clustering, cores, SCC, label propagation,
HITS, Katz and eigenvector centrality.

Each takes networkx's arguments (plus gaslab's ``threads=``) and returns networkx's result with
networkx's types: dicts keyed by node in node order, ``0`` (an int) where networkx writes a zero
coefficient, a generator of sets for strongly connected components, a ``dict_values`` of sets
for label propagation. They raise networkx's exceptions where networkx's decorators and checks
do (``NetworkXNotImplemented`` for directed graphs and multigraphs, ``NetworkXError`` for a bad
``nodes``), and ``NotImplementedError`` with the reason when gaslab's answer would differ (networkx
then runs the call itself under ``backend_priority``). The undirected simple view each needs is
built once per converted graph (:meth:`gas.nx_backend.graph.NxGraph.simple`).

Examples
--------
>>> import networkx as nx
>>> G = nx.complete_graph(4)
>>> nx.triangles(G, backend="gaslab"), nx.clustering(nx.path_graph(3), backend="gaslab")
({0: 3, 1: 3, 2: 3, 3: 3}, {0: 0, 1: 0, 2: 0})
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from gas.algorithms.centrality import eigenvector_centrality as _gas_eigenvector
from gas.algorithms.centrality import katz_centrality as _gas_katz
from gas.algorithms.hits import hits as _gas_hits
from gas.algorithms.kcore import core_number as _gas_core_number
from gas.algorithms.label_propagation import label_propagation_communities as _gas_lpa
from gas.algorithms.scc import strongly_connected_components as _gas_scc
from gas.algorithms.triangles import clustering as _gas_clustering
from gas.algorithms.triangles import transitivity as _gas_transitivity
from gas.algorithms.triangles import triangles as _gas_triangles
from gas.errors import ConvergenceError, InputError
from gas.nx_backend.graph import NxGraph

__all__ = [
    "triangles",
    "clustering",
    "average_clustering",
    "transitivity",
    "core_number",
    "strongly_connected_components",
    "number_strongly_connected_components",
    "label_propagation_communities",
    "hits",
    "katz_centrality",
    "eigenvector_centrality",
]


def _not_for(G: NxGraph, *, directed=False, undirected=False, multigraph=False) -> None:
    """networkx's ``not_implemented_for`` decorator: its exception and message."""
    if directed and G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if undirected and not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    if multigraph and G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def _nbunch(G: NxGraph, nodes: Any) -> Iterator:
    """networkx's ``G.nbunch_iter(nodes)`` for a container of nodes: those in ``G``, as given."""
    index = G.index
    n = None
    try:
        for n in nodes:
            if n in index:
                yield n
    except TypeError as err:
        exc: Exception = err
        message = err.args[0] if err.args else ""
        if "iter" in message:
            exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
        if "object is not iterable" in message:
            exc = nx.NetworkXError(f"Node {nodes} is not in the graph.")
        if "hashable" in message:
            exc = nx.NetworkXError(f"Node {n} in sequence nbunch is not a valid node.")
        if exc is err:
            raise
        raise exc from err


def _by_node(G: NxGraph, values: list, nodes: Any) -> dict:
    """``{node: value}`` for all nodes (``nodes`` None, node order) or ``nodes``' nbunch."""
    if nodes is None:
        return dict(zip(G.nodes, values))
    index = G.index
    return {v: values[index[v]] for v in _nbunch(G, nodes)}


def _zero_as_int(values: np.ndarray) -> list:
    """Floats with networkx's ``0 if t == 0 else t / ...``: an exact zero becomes the int 0."""
    return [0 if x == 0.0 else x for x in values.tolist()]


def triangles(G: NxGraph, nodes=None, *, threads=None) -> Any:
    """``networkx.triangles``: triangles through each node (an int for one node)."""
    _not_for(G, directed=True)
    if nodes is not None:
        _not_for(G, multigraph=True)  # networkx counts a node subset with a simple-graph helper
    counts = _gas_triangles(G.simple(), threads=threads).tolist() if len(G) else []
    if nodes is not None and nodes in G:
        return counts[G.index[nodes]]
    return _by_node(G, counts, nodes)


def clustering(G: NxGraph, nodes=None, weight=None, *, threads=None) -> Any:
    """``networkx.clustering`` of an undirected simple graph without weights (a number for one
    node; ``0`` where a node has no triangle, as networkx)."""
    _not_for(G, multigraph=True)
    if G.is_directed() or weight is not None:
        raise NotImplementedError("gaslab's clustering is unweighted and undirected")
    values = _zero_as_int(_gas_clustering(G.simple(), threads=threads)) if len(G) else []
    if nodes is not None and nodes in G:
        return values[G.index[nodes]]
    return _by_node(G, values, nodes)


def average_clustering(G: NxGraph, nodes=None, weight=None, count_zeros=True, *, threads=None) -> float:
    """``networkx.average_clustering``: the mean of :func:`clustering` over ``nodes``, summed in
    node order as networkx does (``ZeroDivisionError`` for no nodes, as there)."""
    c = clustering(G, nodes, weight=weight, threads=threads).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G: NxGraph, *, threads=None) -> float:
    """``networkx.transitivity`` of an undirected simple graph (``0``, an int, without triangles)."""
    _not_for(G, multigraph=True)
    if G.is_directed():
        raise NotImplementedError("networkx's transitivity of a directed graph follows successors only")
    if len(G) == 0:
        return 0
    t = _gas_transitivity(G.simple(), threads=threads)
    return 0 if t == 0.0 else t


def core_number(G: NxGraph, *, threads=None) -> dict:
    """``networkx.core_number``: ``{node: core}`` in node order (no self-loops, no multigraphs;
    a directed graph's cores count in- and out-neighbours)."""
    _not_for(G, multigraph=True)
    if G.number_of_selfloops():
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )
    if G.is_directed() and G.has_reciprocal_edges():
        raise NotImplementedError(
            "networkx counts u->v and v->u as two neighbours in a directed graph's cores; gaslab's "
            "core_number uses the undirected simple view"
        )
    if len(G) == 0:
        return {}
    return dict(zip(G.nodes, _gas_core_number(G.simple(), threads=threads).tolist()))


def _groups(G: NxGraph, label: np.ndarray) -> Iterator[set]:
    """The node sets of equal ``label``, in order of their smallest internal id."""
    order = np.argsort(label, kind="stable")
    cuts = np.flatnonzero(np.diff(label[order])) + 1
    nodes = G.nodes
    for group in np.split(order, cuts) if label.size else []:
        yield {nodes[i] for i in group.tolist()}


def _scc_labels(G: NxGraph, threads) -> np.ndarray:
    _not_for(G, undirected=True)
    if len(G) == 0:
        return np.zeros(0, np.int64)
    return _gas_scc(G.graph_for(None, "sum"), threads=threads)


def strongly_connected_components(G: NxGraph, *, threads=None) -> Iterator[set]:
    """``networkx.strongly_connected_components``: a generator of node sets (directed graphs),
    by smallest node position (networkx yields them in its Tarjan order)."""
    labels = _scc_labels(G, threads)
    return _groups(G, labels)


def number_strongly_connected_components(G: NxGraph, *, threads=None) -> int:
    """``networkx.number_strongly_connected_components`` (directed graphs)."""
    return int(np.unique(_scc_labels(G, threads)).size)


def label_propagation_communities(G: NxGraph, *, threads=None) -> Any:
    """``networkx.community.label_propagation_communities``: the same communities, as networkx's
    ``dict_values`` of sets in order of their first node; undirected graphs without self-loops or
    parallel edges (networkx counts those in the degrees that order its colouring)."""
    _not_for(G, directed=True)
    if G.number_of_selfloops():
        raise NotImplementedError(
            "networkx counts a self-loop's own label; gaslab's label propagation doesn't"
        )
    if G.is_multigraph() and G.mult.max(initial=1) > 1:
        raise NotImplementedError("networkx orders its colouring by multigraph degree; gaslab by neighbours")
    if len(G) == 0:
        return {}.values()
    labels = _gas_lpa(G.simple(), threads=threads)
    return {k: c for k, c in enumerate(_groups(G, labels))}.values()


def _node_values(G: NxGraph, values: Any, name: str) -> np.ndarray:
    """A dict keyed by node as an array in node order; one that misses a node is left to networkx
    (its iteration then fails its own way)."""
    if set(values) != set(G.nodes):
        raise NotImplementedError(f"{name} must have a value for every node (networkx decides otherwise)")
    return np.array([values[u] for u in G.nodes], np.float64)


def _weighted(G: NxGraph, weight: Any, combine: str = "sum") -> tuple[Any, str | None]:
    """The gaslab graph and gaslab's ``weight`` argument for networkx's ``weight``."""
    if not weight or not G.number_of_edges():
        return G.graph_for(None, combine), None
    if weight not in G.columns:
        raise NotImplementedError(f"edge attribute {weight!r} is not numeric")
    return G.graph_for(weight, combine), "weight"


def _power_iteration(name: str, max_iter: int, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, gaslab's ConvergenceError raised as networkx's
    PowerIterationFailedConvergence and arguments gaslab refuses (InputError) left to networkx."""
    try:
        return fn(*args, **kwargs)
    except ConvergenceError as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    except InputError as exc:
        raise NotImplementedError(f"gaslab's {name} refuses these arguments: {exc}") from exc


def hits(G: NxGraph, max_iter=100, tol=1.0e-8, nstart=None, normalized=True, *, threads=None, procs=1):
    """``networkx.hits``: ``(hubs, authorities)`` dicts by power iteration (networkx's
    ``_hits_python`` rule; networkx's ``hits`` itself calls ARPACK: the same vectors to ``tol``)."""
    if len(G) == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    g, w = _weighted(G, "weight")
    h0 = None if nstart is None else _node_values(G, nstart, "nstart")
    how = dict(weight=w, threads=threads, procs=procs)
    h, a = _power_iteration("hits", max_iter, _gas_hits, g, max_iter, tol, h0, normalized, **how)
    return dict(zip(G.nodes, h.tolist())), dict(zip(G.nodes, a.tolist()))


def katz_centrality(G: NxGraph, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None, normalized=True,
                    weight=None, *, threads=None, procs=1) -> dict:  # fmt: skip
    """``networkx.katz_centrality``: the same iterates and stopping step over in-edges."""
    _not_for(G, multigraph=True)
    if len(G) == 0:
        return {}
    try:
        b: Any = float(beta)
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        b = _node_values(G, beta, "beta")
    x0 = None if nstart is None else _node_values(G, nstart, "nstart")
    g, w = _weighted(G, weight)
    args = (g, alpha, b, max_iter, tol, x0, normalized, w)
    x = _power_iteration("katz_centrality", max_iter, _gas_katz, *args, threads=threads, procs=procs)
    return dict(zip(G.nodes, x.tolist()))


def eigenvector_centrality(G: NxGraph, max_iter=100, tol=1.0e-6, nstart=None, weight=None, *, threads=None,
                           procs=1) -> dict:  # fmt: skip
    """``networkx.eigenvector_centrality``: networkx's power iteration on ``A^T + I``."""
    _not_for(G, multigraph=True)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    x0 = None
    if nstart is not None:
        if all(v == 0 for v in nstart.values()):
            raise nx.NetworkXError("initial vector cannot have all zero values")
        x0 = _node_values(G, nstart, "nstart")
    g, w = _weighted(G, weight)
    x = _power_iteration("eigenvector_centrality", max_iter, _gas_eigenvector, g, max_iter, tol, x0, w,
                         threads=threads, procs=procs)  # fmt: skip
    return dict(zip(G.nodes, x.tolist()))
