"""Label propagation beyond one process's semi-synchronous sweeps: the asynchronous variant, and
the semi-synchronous rule as one run across processes.

- :func:`label_propagation_async`: GraphLab's asynchronous label propagation on
  :class:`gas.AsyncEngine`. A vertex update gathers its neighbours' current labels into its
  slots (:class:`gas.Slots`), takes the most frequent one (on a tie it keeps its own label if it
  is among the most frequent, else the largest), and signals the neighbours whose label differs
  from its new one (only they can have lost their majority). Under ``edge`` consistency (the
  default) updates are serializable, and each label change raises the number of edges whose ends
  agree, so the run ends; the answer is a fixed point of the rule (every vertex holds one of its
  most frequent labels), which depends on the update order, as networkx's
  ``asyn_lpa_communities`` depends on its seed.
- :class:`PhasedLabelPropagationProgram`: the semi-synchronous sweeps of
  :func:`gas.algorithms.label_propagation.label_propagation_communities` as one run of the
  synchronous engine, for several processes: superstep ``t`` of a sweep checks every vertex
  (``t % (C + 1) == 0``) or updates colour class ``t % (C + 1) - 1``. Every superstep visits every
  edge (the class is chosen in ``apply``), so a sweep costs ``C + 1`` passes over the edges
  against, on one process, the edges of the vertices a changed neighbour scheduled: the price
  of running the same rule, with the same answer, on processes that cannot be handed an active
  set per class.

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 0, 1, 3, 3, 4], [1, 2, 2, 4, 5, 5])  # two triangles
>>> label_propagation_async(g, threads=1).tolist()
[0, 0, 0, 3, 3, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from gas.algorithms.components import label_type, small_labels
from gas.algorithms.kcore import simple_view
from gas.api import run
from gas.errors import ConvergenceError, GasError
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import OUT, VertexProgram
from gas.program_spec import Slots
from gas.runtime.local import initial_state, run_distributed

__all__ = [
    "AsyncLabelPropagationProgram",
    "PhasedLabelPropagationProgram",
    "label_propagation_async",
    "label_propagation_phased",
    "community_labels",
    "most_frequent",
]


#: neighbour lists up to this long are counted by an insertion sort of their slots, longer ones
#: in a small open-addressing table (a sort costs ``d log d`` and Numba's is slow on short arrays)
SHORT_LIST = 24


@njit(cache=True)
def most_frequent(labels: np.ndarray, own: int) -> tuple[int, bool]:
    """The rule's choice among neighbour ``labels`` (reordered in place): the largest of the
    most frequent labels, and whether ``own`` is among the most frequent (``(own, True)`` for
    none). Short lists are sorted and counted by runs; long ones are counted in a hash table
    of at least twice their length (labels are non-negative) instead of being sorted.

    Examples
    --------
    >>> import numpy as np
    >>> most_frequent(np.array([5, 3, 5, 3, 1]), 1), most_frequent(np.array([5, 3, 5, 3]), 3)
    ((5, False), (5, True))
    """
    d = labels.shape[0]
    if d == 0:
        return own, True
    if d > SHORT_LIST:
        return _count_hashed(labels, own)
    for i in range(1, d):  # insertion sort
        x = labels[i]
        j = i - 1
        while j >= 0 and labels[j] > x:
            labels[j + 1] = labels[j]
            j -= 1
        labels[j + 1] = x
    best = 0
    top = labels[0]
    mine = 0
    i = 0
    while i < d:
        j = i + 1
        while j < d and labels[j] == labels[i]:
            j += 1
        if j - i >= best:  # runs in increasing order: the last longest is the largest
            best = j - i
            top = labels[i]
        if labels[i] == own:
            mine = j - i
        i = j
    return top, mine == best


@njit(cache=True)
def _count_hashed(labels: np.ndarray, own: int) -> tuple[int, bool]:
    """:func:`most_frequent` by counting in an open-addressing table (linear probing; a key
    and its count side by side). The running best is exact: a label whose final count is the
    largest passes the test at its last occurrence, and ``top`` only grows while ``best`` holds."""
    d = labels.shape[0]
    bits = 6
    while (1 << bits) < 2 * d:
        bits += 1
    size = 1 << bits
    mask = size - 1
    table = np.empty(2 * size, np.int64)
    for h in range(size):
        table[2 * h] = -1
    best = 0
    top = -1
    mine = 0
    for i in range(d):
        x = labels[i]
        h = ((x * -7046029254386353131) >> (64 - bits)) & mask  # Fibonacci hashing
        while table[2 * h] != x and table[2 * h] != -1:
            h = (h + 1) & mask
        if table[2 * h] == x:
            c = table[2 * h + 1] + 1
        else:
            table[2 * h] = x
            c = 1
        table[2 * h + 1] = c
        if c > best or (c == best and x > top):
            best = c
            top = x
        if x == own:
            mine = c
    return top, mine == best


class AsyncLabelPropagationProgram(VertexProgram):
    """One asynchronous label propagation update (run on :meth:`gas.Graph.simple_undirected`);
    ``labels``: the labels' integer type (as :class:`~gas.algorithms.label_propagation.\
LabelPropagationProgram`'s)."""

    vertex_data = {"label": np.int64, "moved": np.bool_}
    gather_edges = OUT
    scatter_edges = OUT
    gather_type = Slots(np.int64)
    checked = False

    def __init__(self, labels: Any = "int64") -> None:
        kind = label_type(labels)
        if kind is not np.int64:
            self.vertex_data = {"label": kind, "moved": np.bool_}
            self.gather_type = Slots(kind)

    def init(self, v, ctx):
        v.label = v.vid
        v.moved = False

    def gather(self, v, e, nbr):
        return nbr.label

    def apply(self, v, total, ctx):
        top, ok = most_frequent(total, v.label)
        v.moved = not ok
        if not ok:
            v.label = top

    def scatter(self, v, e, nbr):
        return v.moved and nbr.label != v.label


class PhasedLabelPropagationProgram(VertexProgram):
    """The semi-synchronous sweeps in one run (see the module docstring): ``color`` (a vertex
    field set before the run) picks the superstep a vertex updates in; ``num_colors`` is C."""

    vertex_data = {"label": np.int64, "color": np.int64, "ok": np.bool_, "checking": np.bool_}
    gather_edges = OUT
    gather_type = Slots(np.int64)
    aggregates = {"unsettled": "sum", "checks": "sum"}
    dynamic = False
    checked = False

    def __init__(self, num_colors: int = 1) -> None:
        self.num_colors = int(num_colors)

    def init(self, v, ctx):
        v.label = v.vid
        v.ok = True
        v.checking = False

    def gather(self, v, e, nbr):
        return nbr.label

    def apply(self, v, total, ctx):
        phase = ctx.iteration % (self.num_colors + 1)
        v.checking = phase == 0
        if not v.checking and v.color != phase - 1:
            return
        top, ok = most_frequent(total, v.label)
        v.ok = ok
        if not v.checking and not ok:
            v.label = top

    def aggregate(self, v):
        return (0.0 if v.ok else 1.0, 1.0 if v.checking else 0.0)

    def converged(self, ctx):
        return ctx.checks > 0 and ctx.unsettled == 0


def community_labels(G: Graph, label: np.ndarray) -> np.ndarray:
    """Each vertex's community named by the smallest internal id among the vertices sharing its
    label (internal ids follow the original ids' order: ``G.ids`` of it is the smallest original
    id, as :func:`gas.algorithms.connected_components` names components).

    Examples
    --------
    >>> import numpy as np, gas
    >>> community_labels(gas.Graph.from_edges([5, 7], [6, 8]), np.array([1, 1, 3, 3])).tolist()
    [0, 0, 2, 2]
    """
    n = label.shape[0]
    smallest = np.full(n, n, np.int64)
    np.minimum.at(smallest, label, np.arange(n))
    return smallest[label]


def _simple(G: Graph) -> Graph:
    if not isinstance(G, Graph):
        raise GasError(f"Expected a gas.Graph (got {type(G).__name__}); hint: gas.Graph.from_networkx(G)")
    return simple_view(G)


def label_propagation_async(
    G: Graph,
    *,
    threads: int | None = None,
    scheduler: str = "fifo",
    consistency: str = "edge",
    max_work: int | None = None,
) -> np.ndarray:
    """Asynchronous label propagation on the undirected simple view (see the module docstring):
    each vertex's community, named by its smallest internal id (``G.ids[labels]``: original ids).

    ``scheduler`` and ``consistency`` are :class:`gas.AsyncEngine`'s (``"vertex"`` consistency
    lets neighbours update at once, which can undo the termination argument: the run then stops
    at ``max_work``). ``max_work`` (edges visited plus updates) defaults to 100 passes over the
    graph; a run that reaches it raises :class:`gas.ConvergenceError`. One thread and the
    ``fifo`` or ``sweep`` scheduler give the same answer every run.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=4)
    >>> label_propagation_async(g, threads=1).tolist()
    [0, 0, 0, 3]
    """
    S = _simple(G)
    n = S.num_vertices
    if n == 0:
        return np.zeros(0, np.int64)
    budget = 100 * (n + S.num_edges) if max_work is None else int(max_work)
    res = run(
        S, AsyncLabelPropagationProgram(small_labels(n)), engine="async", threads=threads,
        scheduler=scheduler, consistency=consistency, max_iter=budget, max_work=budget,
    )  # fmt: skip
    if not res.converged:
        raise ConvergenceError(
            f"Asynchronous label propagation still moving after {budget} units of work (raise "
            "max_work, or use consistency='edge')"
        )
    return community_labels(G, res.vertex_data["label"])


def label_propagation_phased(
    G: Graph,
    color: np.ndarray,
    *,
    procs: int = 2,
    partition: str = "hdrf",
    max_sweeps: int = 1000,
    cluster: Any = None,
) -> np.ndarray:
    """networkx's semi-synchronous label propagation on ``procs`` processes (or the running
    :class:`gas.runtime.local.LocalCluster` ``cluster``), given the greedy colouring ``color``
    of the undirected simple view: the labels one process's sweeps give (by internal id, before
    :func:`community_labels`)."""
    S = _simple(G)
    c = int(color.max()) + 1 if color.size else 1
    prog = PhasedLabelPropagationProgram(c)
    state = initial_state(S, prog, {"vertex": {"color": np.asarray(color, np.int64)}})
    opts = RunOptions(restore=state)
    budget = max_sweeps * (c + 1)
    if cluster is not None:
        res = run_distributed(S, prog, cluster=cluster, partition=partition, max_iter=budget, options=opts)
    else:
        res = run(S, prog, procs=procs, partition=partition, max_iter=budget, options=opts)
    if not res.converged:
        raise ConvergenceError(f"Label propagation still moving after {max_sweeps} sweeps (raise max_sweeps)")
    return res.vertex_data["label"]
