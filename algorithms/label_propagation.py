"""Label propagation communities, networkx's semi-synchronous rule (Cordasco and Gargano 2010),
with per-vertex slots.

Every vertex starts with its own label (its internal id, which follows the order of the
original ids). The graph is coloured greedily, largest degree first (networkx's
``greedy_color``), so that no two neighbours share a colour; a sweep then updates the colour
classes one after another, each as one superstep of the synchronous engine over that class.
A vertex takes the most frequent label among its neighbours; on a tie it keeps its own label if
it is among the most frequent, else takes the largest of them. Sweeps repeat until every vertex
with neighbours holds one of its most frequent labels (a superstep that only checks). A vertex
none of whose neighbours changed label since it was last updated would compute the label it
holds: each superstep runs only the vertices of its class that a changed neighbour signalled
(``scatter``), which gives the same labels as updating the whole class. ``gather`` keeps
each neighbour's label in the vertex's slot for that edge (:class:`gas.Slots`), and ``apply``
sorts them and counts runs: no per-vertex array sized by the largest degree.

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

import numpy as np
from numba import njit

from gas.algorithms.kcore import simple_view
from gas.algorithms.label_propagation_variants import (
    community_labels,
    label_propagation_phased,
    most_frequent,
)
from gas.engine_base import engine_for
from gas.errors import ConvergenceError
from gas.graph import Graph
from gas.program import OUT, VertexProgram
from gas.program_spec import Slots

__all__ = ["LabelPropagationProgram", "label_propagation_communities", "largest_first_coloring"]


class LabelPropagationProgram(VertexProgram):
    """One step of the semi-synchronous rule for the active vertices (run on
    :meth:`gas.Graph.simple_undirected`); with ``check`` set, only records in ``ok`` whether
    the vertex's label is among its most frequent. A vertex whose label changed signals its
    neighbours (``changed``)."""

    vertex_data = {"label": np.int64, "check": np.bool_, "ok": np.bool_, "changed": np.bool_}
    gather_edges = OUT
    scatter_edges = OUT
    gather_type = Slots(np.int64)
    checked = False

    def init(self, v, ctx):
        v.label = v.vid
        v.ok = True
        v.changed = False

    def gather(self, v, e, nbr):
        return nbr.label

    def apply(self, v, total, ctx):
        v.changed = False
        top, ok = most_frequent(total, v.label)
        v.ok = ok
        if not v.check and not ok:
            v.label = top
            v.changed = True

    def scatter(self, v, e, nbr):
        return v.changed


@njit(cache=True)
def largest_first_coloring(indptr, nbr):
    """networkx's ``greedy_color(G, "largest_first")`` on adjacency lists: vertices by degree,
    highest first (ties in id order), each taking the smallest colour no coloured neighbour has."""
    n = indptr.shape[0] - 1
    deg = indptr[1:] - indptr[:-1]
    order = np.argsort(-deg, kind="mergesort")
    color = np.full(n, -1, np.int64)
    seen = np.full(n + 1, -1, np.int64)
    for u in order:
        for k in range(indptr[u], indptr[u + 1]):
            c = color[nbr[k]]
            if c >= 0:
                seen[c] = u
        c = 0
        while seen[c] == u:
            c += 1
        color[u] = c
    return color


def _sweeps(eng: Any, order: np.ndarray, bounds: np.ndarray, max_sweeps: int) -> bool:
    """Sweeps over the colour classes (``order[bounds[c]:bounds[c + 1]]``) until a check finds
    every vertex settled (True) or ``max_sweeps`` sweeps ran (False). Only the vertices a
    changed neighbour signalled since their last update (``dirty``) are checked or updated:
    the others hold one of their most frequent labels already."""
    n = order.shape[0]
    check, ok = eng.columns["check"], eng.columns["ok"]
    dirty = np.ones(n, np.uint8)
    act = np.zeros(n, np.uint8)
    for _ in range(max_sweeps):
        check[:] = True
        eng.run(1, active=np.flatnonzero(dirty), init=False)
        if ok[dirty.view(np.bool_)].all():
            return True
        dirty[ok] = 0  # settled: updated only if a neighbour changes before its class's turn
        check[:] = False
        with eng.thread_scope():
            for c in range(bounds.shape[0] - 1):
                ids = order[bounds[c] : bounds[c + 1]]
                ids = ids[dirty[ids] != 0]
                if ids.shape[0] == 0:
                    continue
                act[ids] = 1
                signal, _ = eng.superstep(act)
                act[ids] = 0
                dirty[ids] = 0
                if signal is not None:
                    dirty |= signal
    return False


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
    order = np.argsort(color, kind="stable")
    bounds = np.searchsorted(color[order], np.arange(int(color.max()) + 2))
    eng = engine_for(S, LabelPropagationProgram(), "sync", threads=threads)
    eng.init()
    if not _sweeps(eng, order, bounds, max_sweeps):
        raise ConvergenceError(f"Label propagation still moving after {max_sweeps} sweeps (raise max_sweeps)")
    return community_labels(G, eng.columns["label"])
