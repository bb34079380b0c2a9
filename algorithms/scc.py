"""Strongly connected components by colouring (Orzan's forward-backward colouring, as
GraphX's and Pregel-style SCC do), on the synchronous engine.

Each phase works on the vertices not yet assigned (``alive``):

1. **Trim**: a vertex with no alive in-neighbour or no alive out-neighbour is a component of
   its own; removing it may expose more (a peeling pass, :func:`trim`, linear in the edges).
2. **Forward colouring** (:class:`ForwardColorProgram`): every alive vertex takes the largest
   priority that reaches it through alive vertices (max-label propagation along out-edges). A
   vertex's priority is ``min(in-degree, out-degree) * n + id``: unique, and highest at the hubs,
   whose colours then flood the large components in one wave instead of the many waves of
   ever-larger ids.
3. **Backward reach** (:class:`BackwardReachProgram`): from each vertex whose colour is its own
   priority (the colour's root), walking in-edges backwards inside the colour; the vertices
   reached are exactly the root's strongly connected component (they reach the root and, by
   their colour, are reached from it).

The components found are removed and the phases repeat until no vertex is alive. The first
phase colours only the alive vertex of largest priority (forward-backward from one pivot, as in
Hong et al., SC 2013): its component, in small-world graphs the giant one, costs only the
vertices it reaches. Labels are
each component's smallest internal id, as :func:`connected_components`'s (``G.ids[labels]``:
its smallest original id).

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([1, 2, 3, 3, 5], [2, 1, 1, 5, 3])  # {1, 2} and {3, 5}
>>> strongly_connected_components(g).tolist(), g.ids[strongly_connected_components(g)].tolist()
([0, 0, 2, 2], [1, 1, 3, 3])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from gas.engine import require_converged
from gas.engine_base import engine_for
from gas.graph import Graph
from gas.program import IN, OUT, VertexProgram

__all__ = ["ForwardColorProgram", "BackwardReachProgram", "strongly_connected_components", "trim"]


class ForwardColorProgram(VertexProgram):
    """Each alive vertex takes the largest colour among itself and its alive in-neighbours,
    until nothing changes (the caller sets ``color = vid`` and ``alive``)."""

    vertex_data = {"color": np.int64, "alive": np.bool_, "changed": np.bool_}
    gather_edges = IN
    scatter_edges = OUT
    gather_type = np.int64
    gather_zero = -1
    checked = False

    def gather(self, v, e, nbr):
        return nbr.color if nbr.alive else -1

    def sum(self, a, b):
        return max(a, b)

    def apply(self, v, total, ctx):
        v.changed = v.alive and total > v.color
        if v.changed:
            v.color = total

    def scatter(self, v, e, nbr):
        return v.changed and nbr.alive and v.color > nbr.color


class BackwardReachProgram(VertexProgram):
    """Marks ``reached`` the alive vertices that reach a reached vertex of their own colour (the
    caller marks the roots reached)."""

    vertex_data = {"color": np.int64, "alive": np.bool_, "reached": np.bool_, "changed": np.bool_}
    gather_edges = OUT
    scatter_edges = IN
    gather_type = np.int64
    checked = False

    def gather(self, v, e, nbr):
        return 1 if (nbr.reached and nbr.color == v.color) else 0

    def sum(self, a, b):
        return max(a, b)

    def apply(self, v, total, ctx):
        v.changed = v.alive and not v.reached and total > 0
        if v.changed:
            v.reached = True

    def scatter(self, v, e, nbr):
        return v.changed and nbr.alive and not nbr.reached and nbr.color == v.color


@njit(cache=True)
def trim(out_indptr, dst, in_indptr, in_src, alive, label):
    """Peel the alive vertices with no alive in- or out-neighbour (self-loops do not count):
    each is its own component (``label[v] = v``, ``alive[v] = False``); repeats as removals
    expose more. Returns how many were peeled."""
    n = alive.shape[0]
    indeg = np.zeros(n, np.int64)
    outdeg = np.zeros(n, np.int64)
    for u in range(n):
        if alive[u]:
            for k in range(out_indptr[u], out_indptr[u + 1]):
                w = dst[k]
                if w != u and alive[w]:
                    outdeg[u] += 1
                    indeg[w] += 1
    stack = np.empty(n, np.int64)
    top = 0
    for u in range(n):
        if alive[u] and (indeg[u] == 0 or outdeg[u] == 0):
            stack[top] = u
            top += 1
            alive[u] = False
    peeled = 0
    while top > 0:
        top -= 1
        u = stack[top]
        label[u] = u
        peeled += 1
        for k in range(out_indptr[u], out_indptr[u + 1]):  # u's out-neighbours lose an in-edge
            w = dst[k]
            if w != u and alive[w]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    alive[w] = False
                    stack[top] = w
                    top += 1
        for k in range(in_indptr[u], in_indptr[u + 1]):  # u's in-neighbours lose an out-edge
            w = in_src[k]
            if w != u and alive[w]:
                outdeg[w] -= 1
                if outdeg[w] == 0:
                    alive[w] = False
                    stack[top] = w
                    top += 1
    return peeled


def _phase(fwd: Any, bwd: Any, prio: np.ndarray, alive: np.ndarray, label: np.ndarray, pivot: bool) -> None:
    """One forward colouring and backward reach (the two engines, built once per graph) over
    the alive vertices; assigns the components found (labelled by their root, the vertex of
    largest priority ``prio``) and clears their ``alive``. With ``pivot``, only the alive
    vertex of largest priority has a colour: the phase finds its component alone, visiting only
    the vertices it reaches (the first phase, for the large component)."""
    n = alive.shape[0]
    g = fwd.graph
    if pivot:
        root = int(np.argmax(np.where(alive, prio, -1)))
        fwd.columns["color"][:] = -1
        fwd.columns["color"][root] = prio[root]
        out = g.dst[g.out_indptr[root] : g.out_indptr[root + 1]]
        ins = g.in_src[g.in_indptr[root] : g.in_indptr[root + 1]]
        first_fwd, first_bwd = out[alive[out]], ins[alive[ins]]
    else:
        fwd.columns["color"][:] = np.where(alive, prio, -1)
        first_fwd = first_bwd = np.flatnonzero(alive)
    fwd.columns["alive"][:] = alive
    res = fwd.run(n + 1, active=first_fwd)
    require_converged(res, "Strongly connected components (forward colouring)")
    color = fwd.columns["color"]
    roots = alive & (color == prio)
    for k in ("color", "alive"):
        bwd.columns[k][:] = fwd.columns[k]
    bwd.columns["reached"][:] = roots
    res = bwd.run(n + 1, active=first_bwd)
    require_converged(res, "Strongly connected components (backward reach)")
    found = bwd.columns["reached"] & alive
    label[found] = color[found] % n  # the root's id
    alive &= ~found


def strongly_connected_components(
    G: Graph, *, threads: int | None = None, procs: int = 1, partition: str = "hdrf"
) -> np.ndarray:
    """Strongly connected components: for each vertex, the smallest internal id in its component
    (``G.ids`` of it is the smallest original id: compare with
    ``networkx.strongly_connected_components``, each set's ``min``).

    Returns an array indexed by internal vertex id. ``procs > 1`` runs the colouring phases on
    local processes (``partition`` as :func:`gas.run`'s), with
    the same answer.

    Examples
    --------
    >>> import gas
    >>> strongly_connected_components(gas.Graph.from_edges([0, 1, 1], [1, 0, 2])).tolist()
    [0, 0, 2]
    """
    n = G.num_vertices
    if procs != 1:
        return _smallest_member(G, _labels_on_processes(G, procs, partition))
    label = np.arange(n, dtype=np.int64)
    alive = np.ones(n, np.bool_)
    engines, phases = None, 0
    prio = np.minimum(G.in_degree, G.out_degree).astype(np.int64) * n + np.arange(n)
    while True:
        trim(G.out_indptr, G.dst, G.in_indptr, G.in_src, alive, label)
        if not alive.any():
            break
        if engines is None:
            engines = tuple(
                engine_for(G, p(), "sync", threads=threads)
                for p in (ForwardColorProgram, BackwardReachProgram)
            )
        _phase(*engines, prio, alive, label, pivot=phases == 0)
        phases += 1
    return _smallest_member(G, label)


def _smallest_member(G: Graph, label: np.ndarray) -> np.ndarray:
    """Relabel each component (labelled by its root) by its smallest member's internal id (internal
    ids follow the order of original ids: ``G.ids`` of it is the smallest original id)."""
    n = label.shape[0]
    smallest = np.full(n, n, np.int64)
    np.minimum.at(smallest, label, np.arange(n))
    return smallest[label]


def _phase_on(G: Graph, cluster: Any, alive: np.ndarray, label: np.ndarray, partition: str) -> None:
    """One forward colouring and backward reach over the alive vertices, across the processes of
    ``cluster`` (colours: the vertex ids), as :func:`_phase` does on one process."""
    from gas.options import RunOptions
    from gas.runtime.local import initial_state, run_distributed

    n = alive.shape[0]
    # the alive set as a mask by internal id (run_distributed takes original ids otherwise)
    kw = dict(cluster=cluster, partition=partition, max_iter=n + 1, active=alive.copy())
    fwd, bwd = ForwardColorProgram(), BackwardReachProgram()
    color = np.where(alive, np.arange(n), -1)
    state = initial_state(G, fwd, {"vertex": {"color": color, "alive": alive}})
    res = run_distributed(G, fwd, options=RunOptions(restore=state), **kw)
    require_converged(res, "Strongly connected components (forward colouring)")
    color = res.vertex_data["color"]
    roots = alive & (color == np.arange(n))
    state = initial_state(G, bwd, {"vertex": {"color": color, "alive": alive, "reached": roots}})
    res = run_distributed(G, bwd, options=RunOptions(restore=state), **kw)
    require_converged(res, "Strongly connected components (backward reach)")
    found = res.vertex_data["reached"] & alive
    label[found] = color[found]
    alive &= ~found


def _labels_on_processes(G: Graph, procs: int, partition: str) -> np.ndarray:
    """Each vertex's component root by the colouring phases on ``procs`` local processes: every
    forward colouring and backward reach runs across one :class:`gas.runtime.local.LocalCluster`
    kept for the whole computation; the trim and the alive set stay here, on the driver, as
    GraphX's driver does between its Pregel runs."""
    from gas.runtime.local import LocalCluster

    n = G.num_vertices
    label = np.arange(n, dtype=np.int64)
    alive = np.ones(n, np.bool_)
    with LocalCluster(procs) as cluster:
        while True:
            trim(G.out_indptr, G.dst, G.in_indptr, G.in_src, alive, label)
            if not alive.any():
                return label
            _phase_on(G, cluster, alive, label, partition)
