"""Triangle counting and clustering on the undirected simple view, with neighbour lists.

A vertex program reads a vertex's neighbour list as ``v.nbrs`` (the sorted ids of its
out-neighbours, read-only): on the undirected simple view (:meth:`gas.Graph.simple_undirected`:
both directions, no repeats, no self-loops) that is the vertex's neighbour set. Triangles then
cost one sorted-list intersection per edge (:func:`gas.setops.count_common`), as PowerGraph's
triangle count does with neighbour sets kept as vertex data, and no per-vertex accumulator
sized by the largest degree:

* ``gather`` over a vertex's edges counts, for each neighbour, the neighbours the two share;
* each triangle at ``v`` is found twice (through each of its two other corners): ``apply``
  halves the sum.

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

from gas.api import run
from gas.errors import GasError
from gas.graph import Graph
from gas.program import OUT, VertexProgram
from gas.setops import count_common

__all__ = ["TrianglesProgram", "triangles", "clustering", "average_clustering", "transitivity"]


class TrianglesProgram(VertexProgram):
    """Triangles at each vertex of a simple undirected graph (run it on
    :meth:`gas.Graph.simple_undirected`): one superstep, one intersection per edge."""

    vertex_data = {"triangles": np.int64}
    gather_edges = OUT
    gather_type = np.int64
    checked = False  # no indexing of its own: the neighbour lists are slices

    def gather(self, v, e, nbr):
        return count_common(v.nbrs, nbr.nbrs)

    def apply(self, v, total, ctx):
        v.triangles = total // 2


def _simple(G: Graph) -> Graph:
    if not isinstance(G, Graph):
        raise GasError(f"Expected a gas.Graph (got {type(G).__name__}); hint: gas.Graph.from_networkx(G)")
    return G.simple_undirected()


def _count(S: Graph, threads: int | None) -> np.ndarray:
    if S.num_vertices == 0:
        return np.zeros(0, np.int64)
    return run(S, TrianglesProgram(), max_iter=1, threads=threads).output


def _select(G: Graph, values: np.ndarray, nodes: Any) -> Any:
    """All values (``nodes`` None), one value (an original id) or an array (a list of them)."""
    if nodes is None:
        return values
    lookup = {int(x): i for i, x in enumerate(G.ids.tolist())}
    single = np.isscalar(nodes)
    wanted = [nodes] if single else list(nodes)
    missing = [n for n in wanted if int(n) not in lookup]
    if missing:
        raise GasError(f"Node {missing[0]!r} is not in the graph (nodes takes original ids)")
    out = values[[lookup[int(n)] for n in wanted]]
    return out[0].item() if single else out


def triangles(G: Graph, nodes: Any = None, *, threads: int | None = None) -> Any:
    """Triangles through each vertex, as ``networkx.triangles(G.to_undirected())``.

    Parameters
    ----------
    G : Graph
        Directions, repeated edges and self-loops are ignored.
    nodes : original id or list of them, optional
        Only these vertices (one id: an int back).
    threads : int, optional
        Numba threads.

    Returns
    -------
    ndarray of int64 (by internal id), or an int for one node.

    Examples
    --------
    >>> import gas
    >>> triangles(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3]), nodes=1)
    1
    """
    return _select(G, _count(_simple(G), threads), nodes)


def _clustering_of(S: Graph, tri: np.ndarray) -> np.ndarray:
    d = S.out_degree.astype(np.float64)
    pairs = d * (d - 1.0)
    out = np.zeros(S.num_vertices, np.float64)
    np.divide(2.0 * tri, pairs, out=out, where=pairs > 0)
    return out


def clustering(G: Graph, nodes: Any = None, weight: str | None = None, *, threads: int | None = None) -> Any:
    """Local clustering coefficient ``2 T(v) / (d(v) (d(v) - 1))`` on the undirected simple view
    (networkx's ``clustering(G.to_undirected())``; 0 below degree 2).

    Examples
    --------
    >>> import gas
    >>> clustering(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3]), nodes=[0, 1]).round(3).tolist()
    [1.0, 0.333]
    """
    if weight is not None:
        raise GasError("weighted clustering is not supported yet (weight=None); hint: networkx.clustering")
    S = _simple(G)
    return _select(G, _clustering_of(S, _count(S, threads)), nodes)


def average_clustering(
    G: Graph,
    nodes: Any = None,
    weight: str | None = None,
    count_zeros: bool = True,
    *,
    threads: int | None = None,
) -> float:
    """The mean local clustering coefficient (``count_zeros=False``: over the vertices whose
    coefficient is not 0), as networkx's ``average_clustering`` on ``G.to_undirected()``.

    Examples
    --------
    >>> import gas
    >>> round(average_clustering(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3])), 4)
    0.5833
    """
    c = np.atleast_1d(np.asarray(clustering(G, nodes, weight, threads=threads), np.float64))
    if not count_zeros:
        c = c[c > 0]
    if c.size == 0:
        raise GasError("average_clustering of no vertices (networkx divides by zero here)")
    return float(c.mean())


def transitivity(G: Graph, *, threads: int | None = None) -> float:
    """``3 * triangles / connected triples`` of the undirected simple view, as
    ``networkx.transitivity(G.to_undirected())`` (0 with no triangle).

    Examples
    --------
    >>> import gas
    >>> round(transitivity(gas.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3])), 4)
    0.6
    """
    S = _simple(G)
    tri = _count(S, threads)
    d = S.out_degree.astype(np.float64)
    triples = float((d * (d - 1.0)).sum())
    t = float(tri.sum())  # each triangle at each of its 3 corners
    return 0.0 if t == 0 else 2.0 * t / triples
