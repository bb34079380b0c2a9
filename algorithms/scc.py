"""Strongly connected components by forward-backward reach and colouring (Orzan's
forward-backward colouring, as GraphX's and Pregel-style SCC do), as vertex programs.

Each phase works on the vertices not yet assigned (``alive``):

1. **Trim** (:func:`trim`, on the driver, as GraphX's driver works between its Pregel runs): a
   vertex with no alive in-neighbour or no alive out-neighbour is a component of its own;
   removing it may expose more (a peeling pass, linear in the edges). On social graphs this
   removes most vertices.
2. **Pivot** (first phase; forward-backward from one pivot, as in Hong et al., SC 2013): the
   alive vertex of largest in-degree * out-degree marks the alive vertices it reaches
   (:class:`ForwardReachProgram`, along out-edges), then, among those, the ones that reach it
   (:class:`BackwardReachProgram`, along in-edges): its component, in small-world graphs the
   giant one, in two sweeps that visit each of its edges once.
3. **Colouring** (the phases after, on what the pivot and the trims left):
   :class:`ForwardColorProgram` gives every alive vertex the largest priority that reaches it
   through alive vertices (max-label propagation along out-edges). A vertex's priority is
   ``min(in-degree, out-degree) * n + id``, its degrees counted among the vertices left after
   the pivot phase: unique, and highest at the hubs, whose colours then flood their regions in
   one wave instead of the many waves of ever-larger ids. From each vertex whose colour is its
   own priority (the colour's root), :class:`BackwardColorProgram` walks in-edges backwards
   inside the colour; the vertices reached are exactly the root's strongly connected component
   (they reach the root and, by their colour, are reached from it).

The reach programs have no gather: a signalled vertex is reached (the scatter signals only
unreached vertices of the sender's colour), so a sweep costs one visit per edge of the vertices
it reaches. The components found are removed and the phases repeat until no vertex is alive.
Labels are each component's smallest internal id, as :func:`connected_components`'s
(``G.ids[labels]``: its smallest original id).

On one process the four programs run on the asynchronous engine's relaxed priority pass, on
one thread, with every signal let through (:class:`gas.AsyncEngine`, ``scheduler="priority"``,
``priority_ratio=0``): a pass walks the vertices in id order and runs a vertex signalled earlier
in the same pass, so a sweep takes a few passes (2 to 4 on soc-Slashdot0811 and soc-Epinions1)
where the synchronous engine takes a superstep per level of its depth (8 to 10), each a scan of
every vertex and a parallel region; the programs have the same fixed point on both engines.
Across processes (``procs > 1``) the same phases run on the synchronous engine. The engines are
built once per graph and kept on it (as the engine keeps its cache-blocked layout there):
building the four (checking and binding each program, allocating their columns) took 5 to
10 ms on a loaded 2-core machine, a third to half of the whole computation on soc-Epinions1.

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

from gas.async_engine import AsyncEngine
from gas.engine import require_converged
from gas.graph import Graph
from gas.program import IN, NONE, OUT, VertexProgram
from gas.threads import num_threads

__all__ = [
    "ForwardColorProgram",
    "ForwardReachProgram",
    "BackwardReachProgram",
    "BackwardColorProgram",
    "strongly_connected_components",
    "trim",
]


class ForwardColorProgram(VertexProgram):
    """Each alive vertex takes the largest colour among itself and its alive in-neighbours,
    until nothing changes (the caller sets ``color`` and ``alive``)."""

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


class ForwardReachProgram(VertexProgram):
    """A breadth-first sweep along out-edges inside a vertex set: ``mark`` is -1 outside it
    (or less), 0 inside and not reached yet, 1 reached. The caller marks the start vertex 1 and
    runs exactly it: an active vertex is reached, since signals go only to vertices marked 0.
    No gather: one visit per out-edge of a reached vertex, reading a byte per neighbour."""

    vertex_data = {"mark": np.int8}
    gather_edges = NONE
    scatter_edges = OUT
    checked = False

    def apply(self, v, total, ctx):
        v.mark = 1

    def scatter(self, v, e, nbr):
        return nbr.mark == 0


class BackwardReachProgram(ForwardReachProgram):
    """:class:`ForwardReachProgram` along in-edges: marks 1 the vertices of the set that reach
    the start vertex."""

    scatter_edges = IN


class BackwardColorProgram(VertexProgram):
    """Marks ``reached`` the vertices of a reached vertex's colour that reach it along in-edges
    (the colouring phase's backward reach; vertices outside every colour have colour -1). The
    caller marks the roots reached and runs exactly them; no gather, as
    :class:`BackwardReachProgram`."""

    vertex_data = {"color": np.int64, "reached": np.bool_}
    gather_edges = NONE
    scatter_edges = IN
    checked = False

    def apply(self, v, total, ctx):
        v.reached = True

    def scatter(self, v, e, nbr):
        return nbr.color == v.color and not nbr.reached


@njit(cache=True)
def _alive_degrees(ids, out_indptr, dst, in_indptr, in_src, alive, indeg, outdeg):
    """The alive in- and out-neighbours of the vertices ``ids`` (the alive ones), self-loops
    left out."""
    for u in ids:
        a = 0
        b = 0
        for k in range(in_indptr[u], in_indptr[u + 1]):
            w = in_src[k]
            if w != u and alive[w]:
                a += 1
        for k in range(out_indptr[u], out_indptr[u + 1]):
            w = dst[k]
            if w != u and alive[w]:
                b += 1
        indeg[u] = a
        outdeg[u] = b


@njit(cache=True)
def _peel(ids, out_indptr, dst, in_indptr, in_src, alive, label, indeg, outdeg):
    """:func:`trim`'s peeling of the alive vertices ``ids``, from their alive degrees ``indeg``
    / ``outdeg`` (updated)."""
    stack = np.empty(ids.shape[0], np.int64)
    top = 0
    for u in ids:
        if indeg[u] == 0 or outdeg[u] == 0:
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


def trim(
    out_indptr: np.ndarray,
    dst: np.ndarray,
    in_indptr: np.ndarray,
    in_src: np.ndarray,
    alive: np.ndarray,
    label: np.ndarray,
) -> int:
    """Peel the alive vertices with no alive in- or out-neighbour (self-loops do not count):
    each is its own component (``label[v] = v``, ``alive[v] = False``); repeats as removals
    expose more (serial, linear in the edges of the alive vertices). Returns how many were
    peeled.

    Examples
    --------
    >>> import numpy as np, gas
    >>> g = gas.Graph.from_edges([0, 1, 1, 2], [1, 0, 2, 2])  # {0, 1}; 2 has only a self-loop in
    >>> alive, label = np.ones(3, bool), np.zeros(3, np.int64)
    >>> trim(g.out_indptr, g.dst, g.in_indptr, g.in_src, alive, label), alive.tolist(), label[2]
    (1, [True, True, False], np.int64(2))
    """
    return _trim(out_indptr, dst, in_indptr, in_src, alive, label)[0]


def _trim(*args: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """:func:`trim` (same arguments), also returning the alive in- and out-degrees after it."""
    out_indptr, dst, in_indptr, in_src, alive, label = args
    n = alive.shape[0]
    ids = np.flatnonzero(alive)
    indeg, outdeg = np.zeros(n, np.int64), np.zeros(n, np.int64)
    _alive_degrees(ids, out_indptr, dst, in_indptr, in_src, alive, indeg, outdeg)
    peeled = int(_peel(ids, out_indptr, dst, in_indptr, in_src, alive, label, indeg, outdeg))
    return peeled, indeg, outdeg


#: the programs whose engines a call uses (the colouring's two built when first needed)
_PROGRAMS = (ForwardReachProgram, BackwardReachProgram, ForwardColorProgram, BackwardColorProgram)


def _engines(G: Graph) -> list[Any]:
    """The engines of :data:`_PROGRAMS` on ``G`` (None for one not built yet), taken out of the
    graph's cache (a call running at the same time finds none and builds its own); give them
    back with :func:`_keep`."""
    return G.__dict__.pop("_gas_scc_engines", None) or [None] * len(_PROGRAMS)


def _engine(G: Graph, engines: list[Any], i: int) -> Any:
    """``engines[i]``, built first if it is not yet: the asynchronous engine's one-thread
    relaxed priority pass with every signal let through (``priority_ratio=0``), which walks the
    vertices in id order and, with ``cascade``, runs every vertex signalled during the pass in
    that pass (one the walk has gone past right after the signal): a reach takes one pass."""
    if engines[i] is None:
        engines[i] = AsyncEngine(
            G, _PROGRAMS[i](), scheduler="priority", threads=1, priority_ratio=0.0, cascade=True
        )
    return engines[i]


def _keep(G: Graph, engines: list[Any]) -> None:
    """Put the engines back into ``G``'s cache for the next call (every phase rewrites the
    columns it reads, so nothing of this run leaks into the next)."""
    G.__dict__["_gas_scc_engines"] = engines


def _pivot(G: Graph, alive: np.ndarray) -> int:
    """The alive vertex of largest in-degree * out-degree."""
    score = G.in_degree.astype(np.int64)
    score *= G.out_degree
    score[~alive] = -1
    return int(np.argmax(score))


def _pivot_phase(fr: Any, br: Any, alive: np.ndarray, label: np.ndarray) -> None:
    """The component of the pivot (:func:`_pivot`): the alive vertices it reaches (``fr``, a
    forward reach), then among them those that reach it (``br``, a backward reach); labels them
    by the pivot and clears their ``alive``."""
    n = alive.shape[0]
    root = _pivot(fr.graph, alive)
    mark = fr.columns["mark"]
    np.subtract(alive, 1, out=mark, dtype=np.int8)  # 0 alive, -1 not
    mark[root] = 1
    require_converged(fr.run(n + 1, active=[root]), "Strongly connected components (pivot reach)")
    np.subtract(mark, 1, out=br.columns["mark"])  # 0 reached from the pivot, below 0 not
    br.columns["mark"][root] = 1
    require_converged(br.run(n + 1, active=[root]), "Strongly connected components (pivot reach)")
    found = br.columns["mark"] == 1
    label[found] = root
    alive &= ~found


def _color_phase(fc: Any, bc: Any, prio: np.ndarray, alive: np.ndarray, label: np.ndarray) -> None:
    """One forward colouring (``fc``) and backward reach (``bc``) over the alive vertices;
    assigns the components found (labelled by their root, the vertex of largest priority
    ``prio`` in them) and clears their ``alive``. Reads and writes only the alive vertices'
    entries (after a copy or fill of each column): the phases after the pivot's run on few."""
    n = alive.shape[0]
    ids = np.flatnonzero(alive)
    color = fc.columns["color"]
    color.fill(-1)
    color[ids] = prio[ids]
    fc.columns["alive"][:] = alive
    res = fc.run(n + 1, active=ids)
    require_converged(res, "Strongly connected components (forward colouring)")
    roots = ids[color[ids] == prio[ids]]
    bc.columns["color"][:] = color
    reached = bc.columns["reached"]
    reached.fill(False)
    reached[roots] = True
    res = bc.run(n + 1, active=roots)
    require_converged(res, "Strongly connected components (backward reach)")
    found = ids[reached[ids]]
    label[found] = color[found] % n  # the root's id
    alive[found] = False


def _first_trim(G: Graph, alive: np.ndarray, label: np.ndarray) -> None:
    """:func:`trim` with every vertex alive, from the graph's degrees: no pass to count the
    alive ones. A self-loop counts here as an in- and an out-neighbour, so a vertex whose only
    neighbour is itself stays alive (as may the vertices its removal would expose); the exact
    trim after the pivot phase or the colouring find it alone in its component."""
    n = G.num_vertices
    indeg, outdeg = G.in_degree.astype(np.int64), G.out_degree.astype(np.int64)
    _peel(np.arange(n), G.out_indptr, G.dst, G.in_indptr, G.in_src, alive, label, indeg, outdeg)


def strongly_connected_components(
    G: Graph, *, threads: int | None = None, procs: int = 1, partition: str = "hdrf"
) -> np.ndarray:
    """Strongly connected components: for each vertex, the smallest internal id in its component
    (``G.ids`` of it is the smallest original id: compare with
    ``networkx.strongly_connected_components``, each set's ``min``).

    Returns an array indexed by internal vertex id. On one process the phases run on one thread
    (the asynchronous engine's ordered pass: see the module docstring), whatever ``threads``
    says; ``procs > 1`` runs them on local processes (``partition`` as :func:`gas.run`'s), with
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
    with num_threads(threads):  # checks ``threads``; the phases run on one thread (the docstring)
        _labels(G, alive, label)
    return _smallest_member(G, label)


def _labels(G: Graph, alive: np.ndarray, label: np.ndarray) -> None:
    """The first trim, the pivot phase, then trims and colouring phases until no vertex is
    alive: ``label`` each vertex's component root."""
    n = alive.shape[0]
    topo = (G.out_indptr, G.dst, G.in_indptr, G.in_src)
    _first_trim(G, alive, label)
    if not alive.any():
        return
    engines = _engines(G)
    try:
        _pivot_phase(_engine(G, engines, 0), _engine(G, engines, 1), alive, label)
        prio = None
        while True:
            _, indeg, outdeg = _trim(*topo, alive, label)
            if not alive.any():
                break
            if prio is None:  # from the degrees among the vertices left (fewer waves than the graph's)
                prio = np.minimum(indeg, outdeg) * n + np.arange(n)
            _color_phase(_engine(G, engines, 2), _engine(G, engines, 3), prio, alive, label)
    finally:
        _keep(G, engines)


def _smallest_member(G: Graph, label: np.ndarray) -> np.ndarray:
    """Relabel each component (labelled by its root) by its smallest member's internal id (internal
    ids follow the order of original ids: ``G.ids`` of it is the smallest original id)."""
    return _smallest_of(label.astype(np.int64, copy=False))


@njit(cache=True)
def _smallest_of(label):
    """:func:`_smallest_member` on the labels: a pass to find each root's smallest member (the
    first vertex, in id order, that carries its label), a pass to write it."""
    n = label.shape[0]
    smallest = np.full(n, -1, np.int64)
    out = np.empty(n, np.int64)
    for v in range(n):
        if smallest[label[v]] < 0:
            smallest[label[v]] = v
    for v in range(n):
        out[v] = smallest[label[v]]
    return out


def _reach_on(run: Any, program: Any, mark: np.ndarray, start: int) -> np.ndarray:
    """``program``'s (a reach's) marks from ``start`` with the starting ``mark`` (0 inside the
    set, below 0 outside), across processes (``run``: a bound :func:`run_distributed`)."""
    mark = mark.astype(np.int8)
    mark[start] = 1
    res = run(program, {"mark": mark}, mark == 1)
    require_converged(res, "Strongly connected components (pivot reach)")
    return res.vertex_data["mark"]


def _phases_on(G: Graph, cluster: Any, alive: np.ndarray, label: np.ndarray, partition: str) -> None:
    """The pivot phase, then forward colourings and backward reaches until no vertex is alive
    (colours: the vertex ids), across the processes of ``cluster``, as on one process; the trims
    run here, on the driver."""
    from gas.options import RunOptions
    from gas.runtime.local import initial_state, run_distributed

    n = alive.shape[0]
    topo = (G.out_indptr, G.dst, G.in_indptr, G.in_src)

    def run(program: Any, vertex: dict[str, np.ndarray], active: np.ndarray) -> Any:
        # ``active``: a mask by internal id, in the restored state (the reaches run exactly it)
        opts = RunOptions(restore=initial_state(G, program, {"vertex": vertex}, active))
        return run_distributed(G, program, cluster=cluster, partition=partition, max_iter=n + 1, options=opts)

    _first_trim(G, alive, label)
    if not alive.any():
        return
    root = _pivot(G, alive)
    reach = _reach_on(run, ForwardReachProgram(), alive.astype(np.int8) - 1, root)
    found = _reach_on(run, BackwardReachProgram(), reach - 1, root) == 1
    label[found] = root
    alive &= ~found
    ids = np.arange(n)
    while True:
        trim(*topo, alive, label)
        if not alive.any():
            return
        color = np.where(alive, ids, -1)
        res = run(ForwardColorProgram(), {"color": color, "alive": alive}, alive.copy())
        require_converged(res, "Strongly connected components (forward colouring)")
        color = res.vertex_data["color"]
        roots = alive & (color == ids)
        res = run(BackwardColorProgram(), {"color": color, "reached": roots}, roots.copy())
        require_converged(res, "Strongly connected components (backward reach)")
        found = res.vertex_data["reached"]
        label[found] = color[found]
        alive &= ~found


def _labels_on_processes(G: Graph, procs: int, partition: str) -> np.ndarray:
    """Each vertex's component root by the reach and colouring phases on ``procs`` local
    processes: every run goes across one :class:`gas.runtime.local.LocalCluster` kept for the
    whole computation; the trims and the alive set stay here, on the driver, as GraphX's driver
    does between its Pregel runs."""
    from gas.runtime.local import LocalCluster

    n = G.num_vertices
    label = np.arange(n, dtype=np.int64)
    alive = np.ones(n, np.bool_)
    with LocalCluster(procs) as cluster:
        _phases_on(G, cluster, alive, label, partition)
    return label
