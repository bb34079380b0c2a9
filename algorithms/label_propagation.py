"""Label propagation communities, networkx's semi-synchronous rule (Cordasco and Gargano 2010),
on the asynchronous engine with per-vertex slots.

Every vertex starts with its own label (its internal id, which follows the order of the
original ids). The graph is coloured greedily, largest degree first (networkx's
``greedy_color``), so that no two neighbours share a colour; a sweep then updates the colour
classes one after another, each class at once. A vertex takes the most frequent label among its
neighbours; on a tie it keeps its own label if it is among the most frequent, else takes the
largest of them. Sweeps repeat until every vertex with neighbours holds one of its most
frequent labels.

How the engine runs it. :class:`gas.AsyncEngine` takes the colour classes (``colors=``), and
under ``edge`` consistency its ``sweep`` scheduler runs exactly the rule's sweep: class after
class, each class the vertices scheduled when the pass reaches it, on one thread or several.
Graphs of up to :data:`RENUMBER_MAX_EDGES` edges are first renumbered class by class (colour 0
first), so that each class is a contiguous id range: the sweeps then read the graph in order,
which pays for the copy.
A vertex is scheduled while it may not hold one of its most frequent labels: all of them at the
start, then those whose neighbour changed to a label other than theirs (a neighbour that took
your label cannot take your majority away). A vertex that is not scheduled would keep its label
if updated, so updating only the scheduled ones gives the same labels. networkx checks every
vertex before each sweep; here the sweep is the check: a sweep that changes nothing leaves
nothing scheduled and ends the run (networkx's check passes on those labels), and a sweep that
changes something is one networkx runs too (the first vertex it changes fails networkx's check,
made on the same labels). ``gather`` keeps each neighbour's label in the
vertex's slot for that edge (:class:`gas.Slots`) and ``apply`` counts them
(:func:`~gas.algorithms.label_propagation_variants.most_frequent`): no per-vertex array sized
by the largest degree, and no sort of long neighbour lists.

The result equals ``networkx.algorithms.community.label_propagation_communities`` on the
undirected simple view (deterministic: no seed), returned as each vertex's community label, the
smallest internal id in the community (``G.ids[labels]``: its smallest original id).

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 0, 1, 3, 3, 4], [1, 2, 2, 4, 5, 5])  # two triangles
>>> label_propagation_communities(g).tolist()
[0, 0, 0, 3, 3, 3]
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, prange

from gas.algorithms.components import label_type, small_labels
from gas.algorithms.kcore import simple_view
from gas.algorithms.label_propagation_variants import (
    community_labels,
    label_propagation_phased,
    most_frequent,
)
from gas.async_engine import AsyncEngine
from gas.errors import ConvergenceError
from gas.graph import Graph
from gas.program import OUT, VertexProgram
from gas.program_spec import Slots
from gas.threads import num_threads

__all__ = [
    "LabelPropagationProgram",
    "label_propagation_communities",
    "largest_first_coloring",
    "RENUMBER_MAX_EDGES",
]

#: above this many directed edges ``label_propagation_communities`` sweeps the colour classes
#: where they are; below, it first renumbers the graph class by class, which costs less than the
#: locality it gives the sweeps (measured in bench/RESULTS.md, "Seventh round")
RENUMBER_MAX_EDGES = 4_000_000


class LabelPropagationProgram(VertexProgram):
    """One update of the semi-synchronous rule (run on the undirected simple view, asynchronous
    engine, one colour class at a time): the vertex takes the rule's label among its neighbours'
    and, if it changed, schedules the neighbours holding another label. ``start[v]`` is vertex
    ``v``'s first label (its id before the renumbering by colour class). ``labels`` is the
    labels' integer type, ``"int64"`` or ``"int32"``: 32-bit labels (fewer than ``2**31``
    vertices) halve what the gather reads and the slots hold (1.09-1.21x faster, paired, bench/RESULTS.md)."""

    vertex_data = {"label": np.int64, "changed": np.bool_}
    gather_edges = OUT
    scatter_edges = OUT
    gather_type = Slots(np.int64)
    checked = False

    def __init__(self, start: np.ndarray, labels: Any = "int64") -> None:
        self.start = np.ascontiguousarray(start, dtype=np.int64)
        kind = label_type(labels)
        if kind is not np.int64:
            self.vertex_data = {"label": kind, "changed": np.bool_}
            self.gather_type = Slots(kind)

    def init(self, v, ctx):
        v.label = self.start[v.vid]
        v.changed = False

    def gather(self, v, e, nbr):
        return nbr.label

    def apply(self, v, total, ctx):
        top, ok = most_frequent(total, v.label)
        v.changed = not ok
        if not ok:
            v.label = top

    def scatter(self, v, e, nbr):
        return v.changed and nbr.label != v.label


def largest_first_coloring(indptr: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    """networkx's ``greedy_color(G, "largest_first")`` on adjacency lists: vertices by degree,
    highest first (ties in id order: a counting sort), each taking the smallest colour no
    coloured neighbour has.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2, 2], [1, 2, 3, 0]).simple_undirected()
    >>> largest_first_coloring(g.out_indptr, g.dst).tolist()  # a square with the chord 0-2
    [1, 2, 0, 1]
    """
    n = indptr.shape[0] - 1
    top = int(np.diff(indptr).max(initial=0))  # colours are at most the largest degree
    # one more than each colour (0: not coloured yet), as narrow as fits: the colours of a
    # vertex's neighbours are read at random, and a small array stays in cache
    color = np.zeros(n, np.int16 if top + 2 < 2**15 else np.int32)
    _first_fit(indptr, nbr, _by_degree(indptr, top), color, np.full(top + 3, -1, np.int64))
    return color.astype(np.int64) - 1


@njit(cache=True)
def _by_degree(indptr, top):
    """The vertices by degree, highest first, ties in id order (a counting sort; ``top`` is the
    largest degree)."""
    n = indptr.shape[0] - 1
    start = np.zeros(top + 2, np.int64)  # start[top - degree]: where that degree's run begins
    for u in range(n):
        start[top - (indptr[u + 1] - indptr[u]) + 1] += 1
    for k in range(top + 1):
        start[k + 1] += start[k]
    order = np.empty(n, np.int64)
    for u in range(n):
        k = top - (indptr[u + 1] - indptr[u])
        order[start[k]] = u
        start[k] += 1
    return order


@njit(cache=True)
def _first_fit(indptr, nbr, order, color, seen):
    """Greedy colouring in ``order``: ``color[u]`` becomes one more than the smallest colour
    none of ``u``'s coloured neighbours has. ``seen[c]`` is the position in ``order`` of the
    last vertex that saw ``c`` among its neighbours' entries; entry 0 (not coloured) is never
    a candidate, so no branch is needed per neighbour."""
    for i in range(order.shape[0]):
        u = order[i]
        for k in range(indptr[u], indptr[u + 1]):
            seen[color[nbr[k]]] = i
        c = 1
        while seen[c] == i:
            c += 1
        color[u] = c


@njit(cache=True, parallel=True)
def _class_ordered(indptr, nbr, in_eid, color, to, cut):
    """The undirected simple view ``(indptr, nbr)`` (its CSC: the same lists, with ``in_eid``)
    renumbered by colour class (class 0 first, ids in order within a class): ``order`` (the old
    id of each new id), ``ptr``, ``dst`` (the new CSR, and the CSC's sources) and ``ieid``.
    Each list is copied whole from its old place; per edge, one random read of a vertex's new
    id and how far its edges move, side by side in the scratch ``to`` (``n`` rows of two: int32
    when both fit, so that more of it stays in cache). ``cut`` (one entry more than the threads)
    is scratch for the threads' runs of new ids."""
    n = indptr.shape[0] - 1
    first = np.zeros(n + 2, np.int64)
    for u in range(n):
        first[color[u] + 1] += 1
    for c in range(n + 1):
        first[c + 1] += first[c]
    order = np.empty(n, np.int64)
    for u in range(n):
        order[first[color[u]]] = u
        first[color[u]] += 1
    ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        u = order[i]
        ptr[i + 1] = ptr[i] + indptr[u + 1] - indptr[u]
        to[u, 0] = i
        to[u, 1] = ptr[i] - indptr[u]
    dst = np.empty(ptr[n], np.int64)
    ieid = np.empty(ptr[n], np.int64)
    T = cut.shape[0] - 1
    for t in range(1, T):  # T runs of new ids with about the same edges each, one per thread
        cut[t] = np.searchsorted(ptr, (ptr[n] * t) // T)
    cut[0], cut[T] = 0, n
    for t in prange(T):  # each new list written by one thread
        for i in range(cut[t], cut[t + 1]):
            k = to[order[i], 1]
            for e in range(indptr[order[i]], indptr[order[i] + 1]):
                u = nbr[e]
                dst[k + e] = to[u, 0]
                ieid[k + e] = in_eid[e] + to[u, 1]  # the edge u -> v, renumbered
    return order, ptr, dst, ieid


def _by_class(S: Graph, color: np.ndarray, threads: int | None) -> tuple[Graph, np.ndarray]:
    """The undirected simple view ``S`` (from :func:`~gas.algorithms.kcore.simple_view`: its
    in-lists are its out-lists) renumbered by colour class (on ``threads``), and the old id of
    each new id."""
    with num_threads(threads):
        small = max(S.num_edges, S.num_vertices) < 2**31  # every new id and shift fits in int32
        to = np.empty((S.num_vertices, 2), np.int32 if small else np.int64)
        cut = np.empty(numba.get_num_threads() + 1, np.int64)
        order, ptr, dst, ieid = _class_ordered(S.out_indptr, S.dst, S.in_eid, color, to, cut)
    return Graph(ptr, None, dst, np.arange(S.num_vertices, dtype=np.int64), csc=(ptr, dst, ieid)), order


def label_propagation_communities(
    G: Graph,
    *,
    threads: int | None = None,
    max_sweeps: int = 1000,
    procs: int = 1,
    partition: str = "hdrf",
) -> np.ndarray:
    """Each vertex's community (the smallest internal id in it), by networkx's semi-synchronous
    label propagation on the undirected simple view; :class:`gas.ConvergenceError` if the labels
    still move after ``max_sweeps`` sweeps over the colour classes. ``procs > 1`` runs the same
    sweeps on local processes as one run (:func:`gas.algorithms.label_propagation_variants.\
label_propagation_phased`; ``partition`` as :func:`gas.run`'s), with the same answer.

    Examples
    --------
    >>> import gas
    >>> label_propagation_communities(gas.Graph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=4)).tolist()
    [0, 0, 0, 3]
    """
    S = simple_view(G)
    n = S.num_vertices
    if n == 0:
        return np.zeros(0, np.int64)
    color = largest_first_coloring(S.out_indptr, S.dst)
    if procs != 1:
        labels = label_propagation_phased(S, color, procs=procs, partition=partition, max_sweeps=max_sweeps)
        return community_labels(G, labels)
    if S.num_edges > RENUMBER_MAX_EDGES:  # the classes as they are: renumbering would cost more
        R, order = S, np.arange(n)
    else:
        R, order = _by_class(S, color, threads)
    eng = AsyncEngine(
        R, LabelPropagationProgram(order, small_labels(n)), scheduler="sweep", consistency="edge",
        threads=threads, colors=color[order],
    )  # fmt: skip
    if not eng.run(max_sweeps).converged:
        raise ConvergenceError(f"Label propagation still moving after {max_sweeps} sweeps (raise max_sweeps)")
    labels = np.empty(n, np.int64)
    labels[order] = eng.columns["label"]
    return community_labels(G, labels)
