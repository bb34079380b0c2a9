"""k-core decomposition (``core_number``): the peeling on one process, the h-index iteration
across processes.

A vertex's core number is the largest ``k`` such that it lies in a subgraph where every vertex
has at least ``k`` neighbours. On one process :class:`PeelCoreProgram` removes the vertices of
smallest remaining degree first on the asynchronous engine's priority scheduler (GraphLab's
engine; a removal lowers its neighbours' degrees and signals them), the order of Batagelj and
Zaversnik's algorithm: each edge is visited once.

On several processes (``procs > 1``) the synchronous :class:`CoreProgram` runs the h-index
iteration, which needs no order: starting from each vertex's degree, repeatedly replacing a
vertex's estimate by the h-index of its neighbours' estimates (the largest ``h`` such that at
least ``h`` neighbours have estimates ``>= h``), capped by its own, converges to the core
numbers (Lü et al., Nature Communications 2016; Montresor et al., IEEE TPDS 2013). ``gather``
keeps each neighbour's estimate in the vertex's slot for that edge (:class:`gas.Slots`: a
scratch of the vertex's degree, no per-vertex array sized by the largest degree), ``apply``
counts them and takes the h-index, and a vertex whose estimate dropped signals the neighbours
it may lower.

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

import numba
import numpy as np

from gas.api import run
from gas.async_engine import AsyncEngine
from gas.engine import require_converged
from gas.errors import GasError
from gas.graph import Graph
from gas.program import NONE, OUT, VertexProgram
from gas.program_spec import Slots
from gas.setops import is_undirected_simple

__all__ = ["CoreProgram", "PeelCoreProgram", "core_number", "simple_view", "h_index", "PARALLEL_PEEL_EDGES"]

#: the edges (both directions) from which ``core_number`` peels on several threads by default
PARALLEL_PEEL_EDGES = 8_000_000


@numba.njit(cache=True)
def h_index(values: np.ndarray, cap: int) -> tuple[int, int]:
    """The h-index of ``values`` capped at ``cap`` (the largest ``h <= cap`` such that at least
    ``h`` values are ``>= h``) and how many values are ``>= h``. One pass when the cap holds
    or the answer is one below it, else a count of the values by level (O(len), no sort).

    Examples
    --------
    >>> import numpy as np
    >>> h_index(np.array([5, 1, 3, 3]), 4), h_index(np.array([5, 1, 3, 3]), 2)
    ((3, 3), (2, 3))
    """
    d = values.shape[0]
    h = min(cap, d)
    above = 0  # values >= h
    at = 0  # values == h - 1 (a drop by one, the common case once the estimates are close)
    for i in range(d):
        x = values[i]
        if x >= h:
            above += 1
        elif x == h - 1:
            at += 1
    if above >= h:
        return h, above
    if above + at >= h - 1:
        return h - 1, above + at
    count = np.zeros(h + 1, np.int64)  # count[k]: values at k (at h or above: h)
    for i in range(d):
        count[min(values[i], h)] += 1
    at_least = 0
    while h > 0:
        at_least += count[h]
        if at_least >= h:
            return h, at_least
        h -= 1
    return 0, d


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
        h, _ = h_index(total, v.core)
        v.old = v.core
        v.changed = h < v.core
        v.core = h

    def scatter(self, v, e, nbr):
        # only a neighbour that counted v (old estimate >= its own) and no longer can
        return v.changed and v.core < nbr.core and nbr.core <= v.old


class PeelCoreProgram(VertexProgram):
    """The peeling (Batagelj and Zaversnik's order) as a vertex program for the asynchronous
    engine: run it on :meth:`gas.Graph.simple_undirected` with ``scheduler="priority",
    priority_ratio=1.0, cascade=True`` and every vertex's first priority ``1 / (1 + degree)``,
    on one thread or several.

    ``deg`` is how many neighbours a vertex still counts, ``core`` -1 until it is removed. The
    priority scheduler runs the vertices of the smallest remaining degree ``k`` (ratio 1: only
    the highest priority) and removes each with core number ``deg`` (= ``k``). Its scatter
    lowers by one the ``deg`` of each neighbour still above ``k`` and signals it with its new
    priority; a neighbour that falls to ``k`` runs in the same pass (the cascade). A neighbour
    at ``k`` or below is left alone, so no ``deg`` falls below the level being removed, and
    each edge is visited once, by the removal of its first end. ``fresh`` marks the update that
    removed the vertex: a second update (a signal that arrived while it ran) changes nothing.

    The lowering is ``nbr.compare_swap("deg", d, d - 1)``, retried until it lands or the
    neighbour is at ``k``: an atomic write into the neighbour, so the program needs only
    ``vertex`` consistency and several threads remove the vertices of one level at once, each
    following the cascades its own removals start (:func:`k_async_pass_par` in the engine's
    kernels), as ParK and PKC do in plain C++.

    Examples
    --------
    >>> import gas, numpy as np
    >>> g = gas.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3]).simple_undirected()
    >>> eng = gas.AsyncEngine(g, PeelCoreProgram(), scheduler="priority", priority_ratio=1.0,
    ...                       threads=2, cascade=True)
    >>> eng.run(max_iter=10, priority=1.0 / (1.0 + g.out_degree)).output.tolist()
    [2, 2, 2, 1]
    """

    vertex_data = {"core": np.int32, "deg": np.int32, "fresh": np.bool_}
    gather_edges = NONE
    scatter_edges = OUT
    checked = False

    def init(self, v, ctx):
        v.core = -1
        v.deg = v.out_degree
        v.fresh = False

    def apply(self, v, total, ctx):
        v.fresh = v.core < 0  # a second run (a late signal) removes nothing
        if v.fresh:
            v.core = v.deg

    def scatter(self, v, e, nbr):
        k = v.core
        d = nbr.deg
        while v.fresh and d > k:
            found = nbr.compare_swap("deg", d, d - 1)
            if found == d:
                return 1.0 / d  # its new degree d - 1 as a priority, 1 / (1 + degree)
            d = found
        return 0.0


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
    undirected simple view.

    One process: :class:`PeelCoreProgram` on the asynchronous engine (``priority``
    scheduler, ``threads`` threads removing each level's vertices at once; its engine is kept
    on ``G`` for the next call), ``max_iter`` rounds (default: the vertices plus one, always
    enough: each round removes a vertex). ``threads`` is the most it uses: a view of fewer
    than :data:`PARALLEL_PEEL_EDGES` directed edges is peeled on one thread, since below that
    the levels hold too little work for a second thread to pay for its share of each pass
    (measured in bench/RESULTS.md, "Sixth round"). ``procs > 1``: the h-index iteration
    :class:`CoreProgram` on the synchronous engine, local processes (``procs``, ``partition``:
    as :func:`gas.run`'s; each vertex's edges moved to its master's process for its slots),
    ``threads`` per process, ``max_iter`` supersteps (default: the vertices plus one, always
    enough: each superstep lowers some estimate). Same answer either way; a run that stops at
    ``max_iter`` raises :class:`gas.ConvergenceError`.

    Examples
    --------
    >>> import gas
    >>> core_number(gas.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])).tolist()  # a 4-cycle
    [2, 2, 2, 2]
    """
    S = simple_view(G)
    n = S.num_vertices
    if n == 0:
        return np.zeros(0, np.int64)
    if procs != 1:
        budget = n + 1 if max_iter is None else max_iter
        res = run(S, CoreProgram(), max_iter=budget, threads=threads, procs=procs, partition=partition)
    else:
        if S.num_edges < PARALLEL_PEEL_EDGES:
            threads = 1
        eng = S.__dict__.pop("_gas_kcore_engine", None)
        if eng is None or eng.threads != threads:
            eng = AsyncEngine(
                S, PeelCoreProgram(), scheduler="priority", priority_ratio=1.0, threads=threads, cascade=True
            )
        res = eng.run(max_iter=n + 1 if max_iter is None else max_iter, priority=1.0 / (1.0 + S.out_degree))
        S.__dict__["_gas_kcore_engine"] = eng  # every run starts from init: nothing leaks
    require_converged(res, "core_number")
    return res.output.astype(np.int64)
