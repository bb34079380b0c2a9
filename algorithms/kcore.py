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

On one process the run is asynchronous (:class:`CountedCoreProgram`, GraphLab's engine, one
pass reading the freshest estimates): each vertex also keeps how many neighbours hold at least
its estimate, a neighbour that drops below it decrements that count in place (``full``
consistency), and only a vertex whose count fell under its estimate is scheduled again, the
smallest estimates first (the ``priority`` scheduler); no signal wakes a vertex whose estimate
cannot drop.
On several processes (``procs > 1``) the synchronous :class:`CoreProgram` runs (the
asynchronous engine keeps slots on one process); both reach the same fixed point.

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
from gas.engine import require_converged
from gas.errors import GasError
from gas.graph import Graph
from gas.program import OUT, VertexProgram
from gas.program_spec import Slots
from gas.setops import is_undirected_simple

__all__ = ["CoreProgram", "CountedCoreProgram", "core_number", "simple_view", "h_index"]


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


class CountedCoreProgram(VertexProgram):
    """The h-index iteration for the asynchronous engine, waking a vertex only when its
    estimate must drop (run it on :meth:`gas.Graph.simple_undirected` with
    ``engine="async", scheduler="priority"``).

    ``cnt`` is how many neighbours held at least ``core`` at the vertex's last update. A
    neighbour whose estimate drops from ``old`` to below ``core <= old`` takes one off it (a
    write into the neighbour: ``full`` consistency) and, when that makes ``cnt < core``, signals
    it, smaller estimates first (priority ``(1 + core) ** -3``, steep: the scheduler's round
    runs the estimates within a few times the smallest). The signal is enough: the count only
    falls and the estimate changes only when the vertex runs (a ``priority`` method, evaluated
    for every vertex twice per round, took 6-8 % longer on soc-Slashdot0811 and soc-Epinions1).
    ``cnt`` starts at -1 and every vertex runs once. Estimates are 32-bit (a degree fits).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3]).simple_undirected()
    >>> res = gas.run(g, CountedCoreProgram(), engine="async", scheduler="priority", threads=1)
    >>> res.output.tolist()
    [2, 2, 2, 1]
    """

    vertex_data = {"core": np.int32, "cnt": np.int32, "old": np.int32}
    gather_edges = OUT
    scatter_edges = OUT
    gather_type = Slots(np.int32)
    checked = False

    def init(self, v, ctx):
        v.core = v.out_degree
        v.old = v.core
        v.cnt = -1

    def gather(self, v, e, nbr):
        return nbr.core

    def apply(self, v, total, ctx):
        h, above = h_index(total, v.core)
        v.old = v.core
        v.cnt = above
        v.core = h

    def scatter(self, v, e, nbr):
        # nbr counted v and no longer can (v's own test first: no read of nbr unless v dropped);
        # when its count falls below its estimate it must run again: a signal, smaller
        # estimates first (the count only falls and the estimate changes only when nbr runs)
        if v.core < v.old and v.core < nbr.core and nbr.core <= v.old:
            nbr.cnt -= 1
            if nbr.cnt < nbr.core:
                x = 1.0 / (1.0 + nbr.core)
                return x * x * x
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

    One process: :class:`CountedCoreProgram` on the asynchronous engine (``priority``
    scheduler, one thread: a sequential pass, so ``threads`` is not used); ``max_iter`` rounds
    (default: enough for any graph, the vertices plus the sum of the squared degrees plus one,
    since every update after a vertex's first follows a neighbour's drop). ``procs > 1``:
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
        if max_iter is None:  # each update after a vertex's first follows a neighbour's drop
            deg = np.diff(S.out_indptr)
            max_iter = n + 1 + int(deg @ deg)
        res = run(S, CountedCoreProgram(), engine="async", scheduler="priority", max_iter=max_iter, threads=1)
    require_converged(res, "core_number")
    return res.output.astype(np.int64)
