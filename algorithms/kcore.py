"""k-core decomposition (``core_number``) by the h-index iteration, with per-vertex slots.

A vertex's core number is the largest ``k`` such that it lies in a subgraph where every vertex
has at least ``k`` neighbours. Starting from each vertex's degree, repeatedly replacing a
vertex's estimate by the h-index of its neighbours' estimates (the largest ``h`` such that at
least ``h`` neighbours have estimates ``>= h``), capped by its own, converges to the core
numbers (Lü et al., Nature Communications 2016; Montresor et al., IEEE TPDS 2013): a
vertex-centric form of the sequential peeling. ``gather`` keeps each neighbour's estimate in
the vertex's slot for that edge (:class:`gas.Slots`: a scratch of the vertex's degree, no
per-vertex array sized by the largest degree), ``apply`` sorts them and takes the h-index, and
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

__all__ = ["CoreProgram", "core_number"]


class CoreProgram(VertexProgram):
    """The h-index iteration (run it on :meth:`gas.Graph.simple_undirected`)."""

    vertex_data = {"core": np.int64, "changed": np.bool_}
    gather_edges = OUT
    scatter_edges = OUT
    gather_type = Slots(np.int64)
    checked = False

    def init(self, v, ctx):
        v.core = v.out_degree
        v.changed = False

    def gather(self, v, e, nbr):
        return nbr.core

    def apply(self, v, total, ctx):
        total.sort()
        d = total.shape[0]
        h = 0
        while h < d and total[d - h - 1] >= h + 1:
            h += 1
        new = min(v.core, h)
        v.changed = new < v.core
        v.core = new

    def scatter(self, v, e, nbr):
        return v.changed and nbr.core > v.core


def core_number(G: Graph, *, threads: int | None = None, max_iter: int | None = None) -> np.ndarray:
    """The core number of every vertex (by internal id), as ``networkx.core_number`` on the
    undirected simple view. ``max_iter`` supersteps (default: the number of vertices plus one,
    always enough: each superstep lowers some estimate) or :class:`gas.ConvergenceError`.

    Examples
    --------
    >>> import gas
    >>> core_number(gas.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])).tolist()  # a 4-cycle
    [2, 2, 2, 2]
    """
    if not isinstance(G, Graph):
        raise GasError(f"Expected a gas.Graph (got {type(G).__name__}); hint: gas.Graph.from_networkx(G)")
    S = G.simple_undirected()
    if S.num_vertices == 0:
        return np.zeros(0, np.int64)
    res = run(
        S, CoreProgram(), max_iter=S.num_vertices + 1 if max_iter is None else max_iter, threads=threads
    )
    require_converged(res, "core_number")
    return res.output
