"""Single-source shortest paths (Bellman-Ford by signals): weighted, or hop counts.

Each active vertex takes ``min(dist, min over in-edges of nbr.dist + weight)``; a vertex whose
distance dropped signals the out-neighbours it can improve. Unreachable vertices keep ``inf``.
Negative weights are refused (the signal rule assumes them non-negative).
"""

from __future__ import annotations

import numpy as np

from gas.api import run
from gas.cuda_device import device_engine
from gas.engine import require_converged
from gas.errors import GraphError, convergence_error
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import IN, OUT, VertexProgram

__all__ = ["SSSPProgram", "HopsProgram", "sssp"]


class SSSPProgram(VertexProgram):
    """Weighted shortest-path distances from ``source`` (an internal id), using ``e.weight``."""

    vertex_data = {"dist": np.float64, "changed": np.bool_}
    gather_edges = IN
    scatter_edges = OUT
    gather_zero = np.inf

    def __init__(self, source: int) -> None:
        self.source = int(source)

    def init(self, v, ctx):
        v.dist = np.inf
        v.changed = False

    def gather(self, v, e, nbr):
        return nbr.dist + e.weight

    def sum(self, a, b):
        return min(a, b)

    def apply(self, v, total, ctx):
        if v.vid == self.source:
            total = 0.0
        v.changed = total < v.dist
        if v.changed:
            v.dist = total

    def scatter(self, v, e, nbr):
        return v.changed and v.dist + e.weight < nbr.dist


class HopsProgram(SSSPProgram):
    """Hop counts from ``source`` (every edge has length 1)."""

    def gather(self, v, e, nbr):
        return nbr.dist + 1.0

    def scatter(self, v, e, nbr):
        return v.changed and v.dist + 1.0 < nbr.dist


def sssp(
    G: Graph,
    source: int,
    weight: str | None = "weight",
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
    """Shortest-path distance from ``source`` to every vertex (``inf`` where unreachable).

    Parameters
    ----------
    G : Graph
    source : int
        ORIGINAL id of the source vertex.
    weight : str or None, default "weight"
        Use the graph's weight column when it has one; ``None`` (or a graph without weights)
        counts hops.
    engine, scheduler, consistency, device
        ``engine="async"`` runs the same program on :class:`gas.AsyncEngine` with that scheduler
        and consistency model. ``device``: ``"cpu"`` (default), ``"cuda"`` (a GPU, same answer)
        or ``"auto"`` (:func:`gas.cuda_device.device_engine` says what each runs).
    max_iter : int, optional
        Most supersteps (rounds); default ``num_vertices + 1``, which always suffices.
    procs, partition, options
        As in :func:`gas.run`: ``procs > 1`` splits the graph (by ``partition``) over local
        processes; ``options`` the runtime settings.

    Returns
    -------
    ndarray of float64, indexed by internal vertex id.

    Raises
    ------
    GraphError
        Unknown source, or negative or NaN weights.
    gas.ConvergenceError
        Distances still falling at ``max_iter`` (``result``: the partial distances), or a NaN
        distance (no ``result``).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([1, 2, 1], [2, 3, 3], weights=[1.0, 1.0, 5.0])
    >>> gas.algorithms.sssp(g, source=1).tolist()
    [0.0, 1.0, 2.0]
    """
    s = G.index_of(source)
    weighted = weight is not None and weight in G.edata
    if weighted:
        w = G.edata[weight]
        if w.size and (np.isnan(w).any() or w.min() < 0):
            bad = w[np.isnan(w) | (w < 0)][0]
            count = int(np.count_nonzero(np.isnan(w) | (w < 0)))
            raise GraphError(
                f"SSSP needs non-negative edge weights: {count} of {w.size} are negative or NaN "
                f"(first: {bad}); use hop counts (weight=None) or fix the input"
            )
    prog = SSSPProgram(s) if weighted else HopsProgram(s)
    budget = G.num_vertices + 1 if max_iter is None else max_iter
    first = np.arange(G.num_vertices) == s  # the source, as a mask by internal id
    res = run(
        G, prog, engine=device_engine(device, G.num_edges, engine, debug=debug), procs=procs,
        partition=partition, max_iter=budget, active=first, progress=progress, scheduler=scheduler,
        consistency=consistency, options=options, threads=threads, debug=debug or None,
    )  # fmt: skip
    if np.isnan(res.output).any():
        msg = "SSSP produced NaN distances; check the edge weights"
        raise convergence_error(msg, iterations=res.iterations)
    require_converged(res, "SSSP", res.output)
    return res.output
