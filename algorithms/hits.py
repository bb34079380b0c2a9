"""HITS hubs and authorities as a vertex program, with networkx's normalisations.

A vertex's authority is the sum of the hub scores of the vertices pointing at it, and its hub
score the sum of the authorities it points at (``a = A^T h``, ``h = A a``, weighted by the
``weight`` column when the graph has one, as networkx's ``hits`` reads the ``"weight"``
attribute). The two products gather over opposite directions, so the program runs on the
*doubled graph* (:func:`hub_authority_graph`): vertex ``v`` is ``v``'s hub side and ``N + v``
its authority side, edge ``u -> v`` becomes ``u -> N + v`` (authorities gather hubs) and
``N + v -> u`` (hubs gather authorities), and every update gathers over in-edges only. Even
supersteps compute the authorities, odd ones the hubs; each side is divided by its maximum
(an aggregate) in the superstep after it was computed, which is also when the hubs' L1 change
is measured. Superstep ``2k`` thus ends networkx's reference power iteration's iteration ``k``
(``networkx.algorithms.link_analysis.hits_alg._hits_python``: ``a = A^T h``, ``h = A a``, each
divided by its maximum, stop when ``sum |h - h_prev| < tol``), with the same iterates. A
superstep visits every edge of the doubled graph (``2 M``) while only one side updates: twice
the edge visits of a direct power iteration, the cost of running on every engine and process
count with in-edge gathers.

networkx's ``hits`` itself calls ARPACK (``scipy.sparse.linalg.svds``), whose stopping rule is
internal; the reference iteration stops no later, and both return the dominant singular
vectors. The answer is networkx's: ``a`` the authority vector, ``h = A a``, each divided by
its sum (``normalized=True``), or ``a`` with unit L2 norm and ``h = A a`` (``normalized=False``).
When the largest singular value is repeated (an undirected bipartite graph such as a path or a
star, or two equal disconnected parts) the dominant vectors are not unique: the answer here is
the one the power iteration reaches from ``nstart`` (the same on every run and process count),
while ARPACK's is arbitrary (networkx may even return negative scores there).

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 0, 1], [1, 2, 2])
>>> hubs, authorities = hits(g)
>>> hubs.round(4).tolist(), authorities.round(4).tolist()
([0.618, 0.382, 0.0], [0.0, 0.382, 0.618])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gas.errors import InputError
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import IN, VertexProgram

from .centrality import check_iteration_args, check_scores, edge_weights, per_vertex, run_with_state

__all__ = ["HITSProgram", "WeightedHITSProgram", "hits", "hub_authority_graph"]


class HITSProgram(VertexProgram):
    """HITS on the doubled graph (:func:`hub_authority_graph`); ``side`` (0 hub, 1 authority)
    and the hubs' start ``x``/``prev`` are set before the run.

    Superstep ``t``: the side that computes (authorities when ``t`` is even) takes its raw sum;
    the other side divides the raw values it computed at ``t - 1`` by their maximum (the
    aggregate ``hmax`` or ``amax``), and the hubs record their L1 change against ``prev``.
    """

    vertex_data = {"x": np.float64, "prev": np.float64, "change": np.float64, "side": np.int8}
    gather_edges = IN
    dynamic = False
    aggregates = {"hmax": "max", "amax": "max", "change": "sum"}
    checked = False

    def __init__(self, tol: float = 1e-8) -> None:
        self.tol = float(tol)

    def init(self, v, ctx):
        v.change = 0.0

    def gather(self, v, e, nbr):
        return nbr.x

    def apply(self, v, total, ctx):
        t = ctx.iteration
        v.change = 0.0
        if (v.side == 1) == (t % 2 == 0):
            v.x = total
        elif t > 0:
            m = ctx.hmax if v.side == 0 else ctx.amax
            new = v.x / m if m != 0.0 else 0.0
            if v.side == 0:
                v.change = abs(new - v.prev)
                v.prev = new
            v.x = new

    def aggregate(self, v):
        if v.side == 0:
            return v.x, 0.0, v.change
        return 0.0, v.x, 0.0

    def converged(self, ctx):
        t = ctx.iteration
        return t > 0 and t % 2 == 0 and ctx.change < self.tol


class WeightedHITSProgram(HITSProgram):
    """:class:`HITSProgram` where each edge carries ``weight`` times its source's score."""

    def gather(self, v, e, nbr):
        return nbr.x * e.weight


def hub_authority_graph(G: Graph, weights: np.ndarray | None = None) -> Graph:
    """The doubled graph HITS runs on: ``2 N`` vertices, ``v`` the hub side of ``v`` and ``N + v``
    its authority side; edge ``u -> v`` (weight ``w``) becomes ``u -> N + v`` and ``N + v -> u``
    (both weight ``w``). Parallel edges are kept.

    Examples
    --------
    >>> import gas
    >>> d = hub_authority_graph(gas.Graph.from_edges([0], [1]))
    >>> d.num_vertices, sorted(zip(d.src.tolist(), d.dst.tolist()))
    (4, [(0, 3), (3, 0)])
    """
    n = G.num_vertices
    src = np.concatenate([G.src, n + G.dst])
    dst = np.concatenate([n + G.dst, G.src])
    w = None if weights is None else np.concatenate([weights, weights])
    return Graph.from_edges(src, dst, num_vertices=2 * n, weights=w, dedupe=False)


def _hub_start(G: Graph, nstart: Mapping | np.ndarray | None) -> np.ndarray:
    """The hubs' starting vector divided by its sum (networkx's reference iteration)."""
    n = G.num_vertices
    if nstart is None:
        return np.full(n, 1.0 / n)
    h0 = per_vertex(G, nstart, "nstart")
    total = float(h0.sum())
    if total == 0.0:
        raise InputError("Expected 'nstart' whose values do not sum to 0 (it is divided by its sum)")
    return h0 / total


def hits(
    G: Graph,
    max_iter: int = 100,
    tol: float = 1e-8,
    nstart: Mapping | np.ndarray | None = None,
    normalized: bool = True,
    *,
    weight: str | None = "weight",
    threads: int | None = None,
    debug: bool = False,
    progress: Any = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """HITS hub and authority scores of every vertex (two arrays by internal id), as
    ``networkx.hits``.

    Parameters
    ----------
    G : Graph
    max_iter : int, default 100
        Most iterations (each is two supersteps, authorities then hubs).
    tol : float, default 1e-8
        Stop when the L1 change of the hub vector, divided by its maximum, is below ``tol``.
    nstart : Mapping or array, optional
        Starting hub values (Mapping keyed by original id, or array by internal id); divided by
        their sum. Default: uniform.
    normalized : bool, default True
        Each vector divided by its sum; False: authorities with unit L2 norm, hubs ``A a``.
    weight : str, optional, keyword only
        ``"weight"`` (default): the graph's weight column when it has one, as networkx's ``hits``
        reads the ``"weight"`` edge attribute; None: every edge counts 1.
    threads, debug, progress, procs, partition, options
        As in :func:`gas.run` (``procs > 1``: local processes, the same answer).

    Returns
    -------
    (hubs, authorities) : tuple of ndarray of float64

    Raises
    ------
    gas.ConvergenceError
        ``max_iter`` reached (``result``: the partial ``(hubs, authorities)``) or scores not
        finite.
    InputError
        A graph without (non-zero) edges, where HITS is undefined (networkx's ARPACK fails); a
        ``nstart`` that sums to 0 or whose iteration dies out; a bad ``max_iter``, ``tol`` or
        ``weight``.

    Examples
    --------
    >>> import gas
    >>> h, a = hits(gas.Graph.from_edges([0, 1, 2, 0], [1, 2, 0, 2]), normalized=False)
    >>> h.round(4).tolist(), a.round(4).tolist()
    ([1.3764, 0.8507, 0.0], [0.0, 0.5257, 0.8507])
    """
    steps = check_iteration_args(G, max_iter, tol)
    n = G.num_vertices
    if n == 0:
        return np.zeros(0), np.zeros(0)
    w = edge_weights(G, weight)
    if G.num_edges == 0 or (w is not None and not w.any()):
        raise InputError("HITS is undefined on a graph without edges of non-zero weight (every score is 0)")
    h0 = _hub_start(G, nstart)
    D = hub_authority_graph(G, w)
    side = np.repeat(np.array([0, 1], np.int8), n)
    start = np.concatenate([h0, np.zeros(n)])
    prog = (HITSProgram if w is None else WeightedHITSProgram)(tol)
    how = dict(
        threads=threads, debug=debug, progress=progress, procs=procs, partition=partition, options=options
    )
    # superstep 2k ends iteration k; the last one allowed is 2 * max_iter
    res = run_with_state(D, prog, {"x": start, "prev": start, "side": side}, 2 * steps + 1, how)
    x = np.array(res.vertex_data["x"], dtype=np.float64)
    a = x[n:]  # A^T h of the last hubs: the authorities, unscaled
    check_scores(G, "HITS", x, res, tol, steps, res.iterations // 2, result=(x[:n], a))
    return _networkx_answer(G, a, w, normalized)


def _networkx_answer(
    G: Graph, a: np.ndarray, w: np.ndarray | None, normalized: bool
) -> tuple[np.ndarray, np.ndarray]:
    """networkx's ``(h, a)`` from the unscaled authorities ``a``: ``h = A a``, each divided by its
    sum (``normalized``), else ``a`` with unit L2 norm."""
    scale = float(a.sum()) if normalized else float(np.sqrt(np.dot(a, a)))
    if scale == 0.0:
        raise InputError(
            "HITS from this 'nstart' dies out: every authority score is 0 (the starting hubs point "
            "at nothing)",
            hint="start from hubs with out-edges, or drop nstart",
        )
    a = a / scale
    h = _hubs_of(G, a, w)
    if normalized and h.sum() != 0.0:
        h /= h.sum()
    return h, a


def _hubs_of(G: Graph, a: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """``h = A a``: each vertex's sum of the (weighted) authorities it points at."""
    per_edge = a[G.dst] if w is None else a[G.dst] * w
    return np.bincount(G.src, weights=per_edge, minlength=G.num_vertices)
