"""Weakly connected components by label propagation (each vertex takes the smallest label seen).

A vertex's label starts as its internal id; every superstep an active vertex takes the minimum
over its in- and out-neighbours, and signals neighbours whose label is larger. At the fixed point
every vertex carries the smallest internal id of its weak component. Internal ids follow the
order of original ids, so that vertex is also the one of smallest original id: ``G.ids[labels]``
labels each component by it.

A graph that lists every edge in both directions (an undirected graph as gaslab stores it:
:meth:`gas.Graph.simple_undirected`, a file loaded with ``undirected=True``, a networkx
``Graph`` through the backend) has its in-lists equal to its out-lists, and there
:class:`SymmetricComponentsProgram` gathers and signals over the out-edges only: the same labels
for half the edge visits. :func:`connected_components` checks this in one vectorised pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.api import run
from gas.cuda_device import device_engine
from gas.engine import require_converged
from gas.errors import GasError
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import ALL, OUT, VertexProgram

__all__ = [
    "ComponentsProgram",
    "SymmetricComponentsProgram",
    "connected_components",
    "lists_both_directions",
    "label_type",
    "small_labels",
]


def label_type(labels: Any) -> type:
    """``np.int32`` or ``np.int64`` for ``labels`` (``"int32"``, ``np.int32``, ...: the integer
    type of a label program's labels), else :class:`gas.GasError`.

    Examples
    --------
    >>> label_type("int32") is np.int32, label_type(np.int64) is np.int64
    (True, True)
    """
    try:
        kind = np.dtype(labels)
    except TypeError:
        kind = None
    if kind not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise GasError(f"Expected labels=np.int32 or np.int64 (got {labels!r})")
    return kind.type


def small_labels(n: int) -> type:
    """The narrowest label type for vertex ids ``0..n-1``.

    Examples
    --------
    >>> small_labels(10) is np.int32, small_labels(2**31) is np.int64
    (True, True)
    """
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


class ComponentsProgram(VertexProgram):
    """Min-label propagation over all edges (directions ignored: weak components).

    ``labels`` is the labels' integer type, ``"int64"`` or ``"int32"`` (numpy types work too):
    32-bit labels (any graph of fewer than ``2**31 - 1`` vertices) halve the bytes each edge
    visit reads at random, which is what a pass over a large graph waits on (R-MAT-20: 1.8x
    faster than 64-bit ones, bench/RESULTS.md).
    """

    vertex_data = {"label": np.int64, "changed": np.bool_}
    gather_edges = ALL
    scatter_edges = ALL
    gather_type = np.int64
    gather_zero = np.iinfo(np.int64).max

    def __init__(self, labels: Any = "int64") -> None:
        kind = label_type(labels)
        if kind is not np.int64:
            self.vertex_data = {"label": kind, "changed": np.bool_}
            self.gather_type = kind
            self.gather_zero = np.iinfo(kind).max

    def init(self, v, ctx):
        v.label = v.vid
        v.changed = True

    def gather(self, v, e, nbr):
        return nbr.label

    def sum(self, a, b):
        return min(a, b)

    def apply(self, v, total, ctx):
        v.changed = total < v.label or ctx.iteration == 0
        if total < v.label:
            v.label = total

    def scatter(self, v, e, nbr):
        return v.changed and v.label < nbr.label


class SymmetricComponentsProgram(ComponentsProgram):
    """:class:`ComponentsProgram` over the out-edges only, for a graph whose in-lists equal its
    out-lists (:func:`lists_both_directions`): there they reach every neighbour, so the labels
    are the same, for half the edge visits."""

    gather_edges = OUT
    scatter_edges = OUT


def lists_both_directions(G: Graph) -> bool:
    """Whether every vertex's in-list equals its out-list, element by element (so each edge is
    listed in both directions): one vectorised comparison of the CSR with the CSC. A symmetric
    graph whose lists are in different orders answers ``False``, which only costs speed.

    Examples
    --------
    >>> import gas
    >>> lists_both_directions(gas.Graph.from_edges([0, 1], [1, 0]))
    True
    >>> lists_both_directions(gas.Graph.from_edges([0], [1]))
    False
    """
    return bool(np.array_equal(G.out_indptr, G.in_indptr) and np.array_equal(G.dst, G.in_src))


def connected_components(
    G: Graph,
    *,
    threads: int | None = None,
    debug: bool = False,
    progress=None,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
    max_iter: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
    device: str = "cpu",
) -> np.ndarray:
    """Weakly connected components: for each vertex, the internal id of the smallest vertex in
    its component.

    Returns an int64 array indexed by internal vertex id, like every other algorithm; internal
    ids follow the order of original ids, so ``G.ids[labels]`` labels each vertex by the
    smallest ORIGINAL id in its component (compare with ``networkx.weakly_connected_components``,
    each set's ``min``), and ``G.frame(component=labels)`` puts them in a table by original id.
    ``engine="async"`` runs the
    same program on :class:`gas.AsyncEngine` (``scheduler``, ``consistency`` as there).
    ``max_iter`` (supersteps or rounds) defaults to ``num_vertices + 1``, which always suffices;
    a run that stops at a smaller one, with labels still changing, raises
    :class:`gas.ConvergenceError` holding the partial labels. ``procs``, ``partition`` and
    ``options`` are :func:`gas.run`'s: ``procs > 1`` splits the graph over local processes.

    ``device="cuda"`` runs the same program on a GPU (:class:`gas.cuda_engine.CudaEngine`, one
    GPU per process with ``procs``), with the same answer; it takes the synchronous engine only
    (``engine="async"`` or ``debug`` raise :class:`gas.GasError`, as do a missing numba-cuda, no
    GPU, or a graph larger than the GPU's free memory). ``device="auto"`` picks the GPU when
    numba-cuda and a GPU are present and the graph has at least
    :data:`gas.cuda_device.AUTO_MIN_EDGES` edges, else the CPU (the default is ``"cpu"``).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([7, 9, 20], [8, 8, 21])
    >>> labels = gas.algorithms.connected_components(g)
    >>> labels.tolist(), g.ids[labels].tolist()
    ([0, 0, 0, 3, 3], [7, 7, 7, 20, 20])
    """
    engine = device_engine(device, G.num_edges, engine, debug=debug)
    if G.num_vertices == 0:
        return np.zeros(0, np.int64)
    budget = G.num_vertices + 1 if max_iter is None else max_iter
    # one process on the CPU: half the edge visits where the out-lists already hold every
    # neighbour, and 32-bit labels where the ids fit
    here = procs == 1 and engine != "cuda"
    labels = small_labels(G.num_vertices) if here else np.int64
    kind = SymmetricComponentsProgram if here and lists_both_directions(G) else ComponentsProgram
    program = kind(labels)
    res = run(
        G, program, engine=engine, procs=procs, partition=partition, max_iter=budget,
        progress=progress, scheduler=scheduler, consistency=consistency, options=options,
        threads=threads, debug=debug or None,
    )  # fmt: skip
    require_converged(res, "Connected components", res.output)
    return np.asarray(res.output, np.int64)
