"""k-core decomposition (``core_number``) by the h-index iteration, with per-vertex slots.

A vertex's core number is the largest ``k`` such that it lies in a subgraph where every vertex
has at least ``k`` neighbours. Starting from each vertex's degree, repeatedly replacing a
vertex's estimate by the h-index of its neighbours' estimates (the largest ``h`` such that at
least ``h`` neighbours have estimates ``>= h``), capped by its own, converges to the core
numbers (Lü et al., Nature Communications 2016; Montresor et al., IEEE TPDS 2013): a
vertex-centric form of the sequential peeling. ``gather`` keeps each neighbour's estimate in
the vertex's slot for that edge (:class:`gas.Slots`: a scratch of the vertex's degree, no
per-vertex array sized by the largest degree), ``apply`` counts them and takes the h-index, and
a vertex whose estimate dropped signals the neighbours it may lower.

Runs on the undirected simple view (directions, repeated edges and self-loops ignored), as
``networkx.core_number(G.to_undirected())`` without the self-loops that networkx refuses.

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3])  # a triangle and a tail
>>> core_number(g).tolist()
[2, 2, 2, 1]
"""

from __future__ import annotations

import numpy as np

from gas.api import run
from gas.engine import require_converged
from gas.errors import GasError
from gas.graph import Graph
from gas.program import OUT, VertexProgram
from gas.program_spec import Slots
from gas.setops import is_undirected_simple

__all__ = ["CoreProgram", "core_number", "simple_view"]


class CoreProgram(VertexProgram):
    """The h-index iteration (run it on :meth:`gas.Graph.simple_undirected`)."""

    vertex_data = {"core": np.int64, "old": np.int64, "changed": np.bool_}
    gather_edges = OUT
    scatter_edges = OUT
    gather_type = Slots(np.int64)
    checked = False

    def init(self, v, ctx):
        v.core = v.out_degree
        v.old = v.core
        v.changed = False

    def gather(self, v, e, nbr):
        return nbr.core

    def apply(self, v, total, ctx):
        d = total.shape[0]
        h = min(v.core, d)
        above = 0  # the estimate stays if h neighbours still hold at least h (one pass, no sort)
        for i in range(d):
            if total[i] >= h:
                above += 1
        if above < h:  # it drops: the h-index of the estimates, by counting (O(d), no sort)
            count = np.zeros(h + 1, np.int64)  # count[k]: neighbours at k (at h or above: h)
            for i in range(d):
                count[min(total[i], h)] += 1
            at_least = 0
            while h > 0:
                at_least += count[h]
                if at_least >= h:
                    break
                h -= 1
        v.old = v.core
        v.changed = h < v.core
        v.core = h

    def scatter(self, v, e, nbr):
        # only a neighbour that counted v (old estimate >= its own) and no longer can
        return v.changed and v.core < nbr.core and nbr.core <= v.old


def simple_view(G: Graph) -> Graph:
    """``G`` itself when it already is its undirected simple view (both directions, no repeats,
    no self-loops: checked in one pass), else :meth:`gas.Graph.simple_undirected`.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 0])
    >>> simple_view(g) is g, simple_view(gas.Graph.from_edges([0], [1])) is g
    (True, False)
    """
    if not isinstance(G, Graph):
        raise GasError(f"Expected a gas.Graph (got {type(G).__name__}); hint: gas.Graph.from_networkx(G)")
    if is_undirected_simple(G.out_indptr, G.dst, G.in_indptr, G.in_src):
        return G
    return G.simple_undirected()


def core_number(
    G: Graph,
    *,
    threads: int | None = None,
    max_iter: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
) -> np.ndarray:
    """The core number of every vertex (by internal id), as ``networkx.core_number`` on the
    undirected simple view. ``max_iter`` supersteps (default: the number of vertices plus one,
    always enough: each superstep lowers some estimate) or :class:`gas.ConvergenceError`.
    ``procs``, ``partition``: as :func:`gas.run`'s (``procs > 1``: local processes, each vertex's
    edges moved to its master's process for its slots; same answer).

    Examples
    --------
    >>> import gas
    >>> core_number(gas.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])).tolist()  # a 4-cycle
    [2, 2, 2, 2]
    """
    S = simple_view(G)
    if S.num_vertices == 0:
        return np.zeros(0, np.int64)
    where = {"procs": procs, "partition": partition} if procs != 1 else {}
    budget = S.num_vertices + 1 if max_iter is None else max_iter
    res = run(S, CoreProgram(), max_iter=budget, threads=threads, **where)
    require_converged(res, "core_number")
    return res.output
