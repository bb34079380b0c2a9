"""Greedy graph colouring as a vertex program: each vertex takes the smallest colour that none of
its neighbours holds.

Run asynchronously (:class:`gas.AsyncEngine`) every vertex updates once, reading its neighbours'
current colours. Under ``edge`` consistency no two neighbours update at the same time, so the
result has no conflicting edge; under ``vertex`` consistency with several threads two neighbours
can choose at once and may take the same colour, which is what this program is used to show.
With ``repair=True`` a vertex that finds a neighbour with its own colour signals it to choose
again, so even a ``vertex`` run ends without conflicts (it may need more rounds).
"""

from __future__ import annotations

import numpy as np

from gas.api import run
from gas.engine import require_converged
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import ALL, NONE, VertexProgram

__all__ = ["ColoringProgram", "coloring", "count_conflicts"]


class ColoringProgram(VertexProgram):
    """Smallest colour not used by a neighbour (gathers the neighbours' colours as a bitset).

    Parameters
    ----------
    graph : Graph
        Sizes the bitset: at most ``max degree + 1`` colours are ever needed.
    repair : bool, default False
        Signal a neighbour that holds the same colour (it then chooses again).
    """

    vertex_data = {"color": np.int64}
    gather_edges = ALL
    gather_zero = 0

    def __init__(self, graph: Graph, repair: bool = False) -> None:
        deg = graph.out_degree.astype(np.int64) + graph.in_degree
        self.words = int((int(deg.max(initial=0)) + 1) // 64 + 1)
        self.gather_type = (np.uint64, self.words)
        self.scatter_edges = ALL if repair else NONE

    def init(self, v, ctx):
        v.color = -1

    def gather(self, v, e, nbr, acc):
        c = nbr.color
        if c >= 0 and nbr.vid != v.vid:
            acc[c >> 6] |= np.uint64(1) << np.uint64(c & 63)

    def sum(self, a, b):
        for w in range(self.words):  # partial bitsets (from other processes) are OR-ed, not added
            a[w] |= b[w]

    def apply(self, v, total, ctx):
        for w in range(self.words):
            word = total[w]
            if word != np.uint64(0xFFFFFFFFFFFFFFFF):
                b = 0
                while (word >> np.uint64(b)) & np.uint64(1):
                    b += 1
                v.color = w * 64 + b
                return

    def scatter(self, v, e, nbr):
        return nbr.color == v.color and nbr.vid != v.vid


def count_conflicts(G: Graph, colors: np.ndarray) -> int:
    """Edges (self-loops excluded) whose two ends have the same colour.

    Examples
    --------
    >>> import numpy as np, gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])
    >>> count_conflicts(g, np.array([0, 0, 1]))
    1
    """
    src = np.repeat(np.arange(G.num_vertices), np.diff(G.out_indptr))
    dst = G.dst
    return int(np.count_nonzero((colors[src] == colors[dst]) & (src != dst)))


def coloring(
    G: Graph,
    *,
    consistency: str = "edge",
    scheduler: str = "fifo",
    repair: bool = False,
    threads: int | None = None,
    debug: bool = False,
    progress=None,
    procs: int = 1,
    partition: str = "hdrf",
    max_iter: int | None = None,
    options: RunOptions | None = None,
) -> np.ndarray:
    """Greedy colouring on the asynchronous engine; colour of every vertex by internal id.

    ``max_iter`` (rounds) defaults to ``num_vertices + 1``; a run still scheduling vertices
    then (``repair`` under ``vertex`` consistency can keep recolouring) raises
    :class:`gas.ConvergenceError` holding the partial colours.

    ``procs > 1`` runs it on that many local processes (:mod:`gas.runtime.async_dist`: chromatic
    steps keep ``edge`` consistency across processes; ``fifo`` or ``sweep`` scheduler), split by
    the ``partition`` method; the colours equal a one-process run with several threads. It runs
    through :func:`gas.run` (``options``: its runtime settings).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])      # a triangle needs 3 colours
    >>> colors = gas.algorithms.coloring(g)
    >>> sorted(colors.tolist()), gas.algorithms.count_conflicts(g, colors)
    ([0, 1, 2], 0)
    """
    if G.num_vertices == 0:
        return np.zeros(0, np.int64)
    budget = G.num_vertices + 1 if max_iter is None else max_iter
    res = run(
        G, ColoringProgram(G, repair), engine="async", procs=procs, partition=partition,
        max_iter=budget, progress=progress, scheduler=scheduler, consistency=consistency,
        options=options, threads=threads, debug=debug or None,
    )  # fmt: skip
    require_converged(res, "Colouring", res.output, rounds=True)
    return res.output
