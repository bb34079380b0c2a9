"""Approximate neighbourhood function and diameter with HyperLogLog sketches (HyperANF).

The neighbourhood function of a graph is ``N(t)``, the number of ordered pairs ``(u, v)`` with
``v`` reachable from ``u`` in at most ``t`` hops (``N(0)`` counts each vertex with itself).
Counting it exactly needs a breadth-first search from every vertex; HyperANF (Boldi, Rosa and
Vigna, WWW 2011) keeps instead, for every vertex, a HyperLogLog counter of its ball
``B(v, t)``, the vertices within ``t`` hops, and uses ``B(v, t + 1) = B(v, t) ∪ ⋃ B(u, t)`` over
the out-neighbours ``u`` of ``v``. A union of HyperLogLog counters is their register-wise
maximum, so this is a vertex program (PowerGraph's ``approximate_diameter`` toolkit does the
same with Flajolet–Martin sketches):

* ``init``: vertex ``v``'s counter holds ``v`` alone: register ``j`` (the top ``b`` bits of a
  64-bit SplitMix64 hash of ``(v, seed)``, ``m = 2**b`` registers) holds the position of the
  first 1 bit in the hash's other ``64 - b`` bits;
* ``gather`` over out-edges takes the register-wise maximum of the neighbours' counters (``sum``
  is the same maximum, so partial totals from other processes combine exactly);
* ``apply`` merges it into the vertex's counter; if a register rose the vertex updates its
  cardinality estimate and its eccentricity estimate (this superstep's number plus one) and
  signals its in-neighbours, whose balls contain it; the run stops when no counter changes.

After superstep ``t`` (counting from 0) every counter is exactly the counter of ``B(v, t + 1)``
(a vertex none of whose out-neighbours changed would gather what it already holds, so skipping
it changes nothing). The sum of the per-vertex estimates (HyperLogLog's estimate with the
small-range correction, linear counting, as Flajolet et al. 2007; no large-range correction is
needed with 64-bit hashes) is an aggregate, so ``N(t + 1)`` is in superstep ``t``'s statistics.
Each estimate is capped at the number of vertices and rounded to a multiple of a power of two
small enough that every sum of them is exact in float64: ``N(t)`` is the same bits for any
thread or process count. Its relative standard error is about ``1.04 / sqrt(m)`` (HyperANF,
Theorem 1: the sum of the counters is no worse than one counter).

A counter changes only when its ball grows, so the last superstep in which a vertex's counter
changed is a lower bound of its eccentricity (equal to it unless hash collisions hide the last
vertices reached), and the last superstep any counter changed is a lower bound of the diameter
(the length of the longest shortest path between two vertices one reaches from the other), as
PowerGraph reports it. The effective diameter is HyperANF's: the distance within which 90% of
the reachable pairs lie, interpolated linearly between two integer distances.

Examples
--------
>>> import gas
>>> g = gas.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], num_vertices=5).simple_undirected()
>>> est = approximate_diameter(g)
>>> est.diameter, est.eccentricity.tolist()
(4, [4, 3, 2, 3, 4])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from gas.api import run
from gas.engine import require_converged
from gas.errors import GasError
from gas.graph import Graph
from gas.options import RunOptions
from gas.program import IN, OUT, VertexProgram
from gas.splitmix import GOLDEN, finalize64

__all__ = [
    "DiameterEstimate",
    "HyperANFProgram",
    "approximate_diameter",
    "effective_diameter",
    "hll_estimate",
    "hll_slot",
    "neighborhood_function",
]

#: smallest and largest register count (HyperLogLog's bias constants start at 16)
MIN_REGISTERS, MAX_REGISTERS = 16, 1 << 16


@njit(cache=True)
def hll_slot(vid: int, seed: int, log2m: int) -> tuple[int, int]:
    """The register and value vertex ``vid``'s hash sets: ``(top log2m bits, 1 + leading
    zeros of the other 64 - log2m bits)``.

    Examples
    --------
    >>> j, r = hll_slot(3, 0, 7)
    >>> 0 <= j < 128 and 1 <= r <= 64 - 7 + 1
    True
    """
    key = finalize64(np.uint64(seed) + GOLDEN) ^ (np.uint64(vid) * GOLDEN)
    h = finalize64(key)
    j = int(h >> np.uint64(64 - log2m))
    w = h << np.uint64(log2m)
    r = 1
    top = np.uint64(1) << np.uint64(63)
    while r <= 64 - log2m and (w & top) == np.uint64(0):
        w = w << np.uint64(1)
        r += 1
    return j, r


@njit(cache=True)
def hll_estimate(regs: np.ndarray, alpha: float, num_vertices: int) -> float:
    """HyperLogLog's cardinality estimate of one counter (linear counting while the raw estimate
    is at most ``2.5 m`` and a register is zero), capped at ``num_vertices`` and rounded to a
    multiple of ``2**(2 * ceil(log2(num_vertices + 1)) - 53)``, so that sums of up to
    ``num_vertices`` of them are exact in float64.

    Examples
    --------
    >>> import numpy as np
    >>> regs = np.zeros(16, np.uint8); regs[3] = 2
    >>> round(hll_estimate(regs, 0.673, 100), 6)  # linear counting: 16 ln(16 / 15)
    1.032616
    """
    m = regs.shape[0]
    s = 0.0
    zeros = 0
    for j in range(m):
        s += 2.0 ** (-float(regs[j]))
        if regs[j] == 0:
            zeros += 1
    est = alpha * m * m / s
    if est <= 2.5 * m and zeros > 0:
        est = m * math.log(m / zeros)
    est = min(est, float(num_vertices))
    quantum = 2.0 ** (2 * math.ceil(math.log2(num_vertices + 1)) - 53)
    return math.floor(est / quantum + 0.5) * quantum


def _alpha(m: int) -> float:
    """HyperLogLog's bias correction ``alpha_m`` (Flajolet et al. 2007, Figure 3)."""
    return {16: 0.673, 32: 0.697, 64: 0.709}.get(m, 0.7213 / (1.0 + 1.079 / m))


class HyperANFProgram(VertexProgram):
    """One HyperLogLog counter per vertex, grown over out-edges until no counter changes.

    Parameters
    ----------
    registers : int, default 128
        Registers per counter, a power of two from 16 to 65536 (``registers`` bytes per vertex;
        relative standard error about ``1.04 / sqrt(registers)``).
    seed : int, default 0
        Seed of the vertex hash (the same seed gives the same answer).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])  # 0 -> 1 -> 2: eccentricities 2, 1, 0
    >>> gas.run(g, HyperANFProgram(seed=1)).vertex_data["ecc"].tolist()
    [2, 1, 0]
    """

    gather_edges = OUT
    scatter_edges = IN
    gather_zero = 0
    aggregates = {"neighborhood": "sum"}
    checked = False  # every loop runs over range(self.m), the length of every counter
    output = "ecc"

    def __init__(self, registers: int = 128, seed: int = 0) -> None:
        log2m = _check_registers(registers)
        self.m, self.log2m, self.seed, self.alpha = (
            int(registers),
            log2m,
            _check_seed(seed),
            _alpha(registers),
        )
        self.vertex_data = {
            "regs": (np.uint8, self.m),
            "ecc": np.int64,
            "estimate": np.float64,
            "changed": np.bool_,
        }
        self.gather_type = (np.uint8, self.m)

    def init(self, v, ctx):
        for j in range(self.m):
            v.regs[j] = 0
        j, r = hll_slot(v.vid, self.seed, self.log2m)
        v.regs[j] = r
        v.ecc = 0
        v.changed = False
        v.estimate = hll_estimate(v.regs, self.alpha, ctx.num_vertices)

    def gather(self, v, e, nbr, acc):
        for j in range(self.m):
            acc[j] = max(acc[j], nbr.regs[j])

    def sum(self, a, b):
        for j in range(self.m):
            if b[j] > a[j]:
                a[j] = b[j]

    def apply(self, v, total, ctx):
        changed = False
        for j in range(self.m):
            if total[j] > v.regs[j]:
                v.regs[j] = total[j]
                changed = True
        v.changed = changed
        if changed:
            v.ecc = ctx.iteration + 1
            v.estimate = hll_estimate(v.regs, self.alpha, ctx.num_vertices)

    def scatter(self, v, e, nbr):
        return v.changed

    def aggregate(self, v):
        return v.estimate


@dataclass(frozen=True)
class DiameterEstimate:
    """What :func:`approximate_diameter` returns.

    Attributes
    ----------
    diameter : int
        The last superstep in which a counter changed: a lower bound of the diameter.
    effective_diameter : float
        The distance within which 90% of the reachable pairs lie (HyperANF's interpolation).
    neighborhood : ndarray of float64
        ``N(t)`` for ``t = 0 .. diameter``.
    eccentricity : ndarray of int64
        Per internal vertex id, the last superstep its counter changed (a lower bound of its
        eccentricity over the vertices it reaches).

    Examples
    --------
    >>> import numpy as np
    >>> DiameterEstimate(1, 0.8, np.array([2.0, 4.0]), np.array([1, 1])).diameter
    1
    """

    diameter: int
    effective_diameter: float
    neighborhood: np.ndarray
    eccentricity: np.ndarray


def _check_registers(registers: int) -> int:
    """log2 of ``registers`` after checking it is a power of two in range."""
    ok = isinstance(registers, (int, np.integer)) and not isinstance(registers, bool)
    if not ok or not MIN_REGISTERS <= registers <= MAX_REGISTERS or registers & (registers - 1):
        raise GasError(
            f"Expected registers to be a power of two from {MIN_REGISTERS} to {MAX_REGISTERS} "
            f"(got {registers!r}); hint: 128 gives about 9% error per vertex, 1024 about 3%"
        )
    return int(registers).bit_length() - 1


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 1 << 63:
        raise GasError(f"Expected seed to be an integer from 0 to 2**63 - 1 (got {seed!r})")
    return int(seed)


def _run_sketches(
    G: Graph,
    registers: int,
    seed: int,
    undirected: bool,
    max_iter: int | None,
    threads: int | None,
    procs: int,
    partition: str,
    options: RunOptions | None,
    progress: Callable[[dict[str, Any]], None] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(N(t) for t = 0 .. last change, eccentricity estimates)`` of one HyperANF run."""
    if not isinstance(G, Graph):
        raise GasError(f"Expected a gas.Graph (got {type(G).__name__}); hint: gas.Graph.from_networkx(G)")
    program = HyperANFProgram(registers, seed)
    bad_iter = isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0
    if max_iter is not None and bad_iter:
        raise GasError(f"Expected max_iter to be None or an integer >= 0 (got {max_iter!r})")
    n = G.num_vertices
    if n == 0:
        return np.zeros(1), np.zeros(0, np.int64)
    S = G.simple_undirected() if undirected else G
    budget = n + 1 if max_iter is None else int(max_iter)  # a ball stops growing after n - 1 hops
    res = run(
        S, program, max_iter=budget, threads=threads, procs=procs, partition=partition,
        options=options, progress=progress,
    )  # fmt: skip
    ecc = np.asarray(res.vertex_data["ecc"], dtype=np.int64)
    require_converged(res, "HyperANF", ecc)
    single = np.zeros(program.m, np.uint8)
    single[0] = 1  # any counter of one vertex: linear counting with m - 1 zero registers
    first = hll_estimate(single, program.alpha, n) * n
    steps = [first] + [float(s["neighborhood"]) for s in res.stats]
    diameter = int(ecc.max())
    return np.array(steps[: diameter + 1]), ecc


def effective_diameter(neighborhood: np.ndarray, fraction: float = 0.9) -> float:
    """The distance within which ``fraction`` of the reachable pairs lie, from ``N(t)``:
    the first ``t`` with ``N(t) >= fraction * N(last)``, moved back by linear interpolation
    between ``N(t - 1)`` and ``N(t)`` (HyperANF's definition; 0 when ``t = 0``).

    Examples
    --------
    >>> effective_diameter([4.0, 10.0, 12.0])  # 90% of 12 = 10.8 lies 0.4 of the way 1 -> 2
    1.4
    """
    nf = np.asarray(neighborhood, dtype=np.float64)
    if nf.ndim != 1 or nf.size == 0 or not 0.0 < fraction <= 1.0:
        raise GasError(
            f"Expected a non-empty 1-d N(t) and 0 < fraction <= 1 "
            f"(got shape {nf.shape}, fraction {fraction!r})"
        )
    target = fraction * nf[-1]
    t = int(np.argmax(nf >= target))
    if t == 0:
        return 0.0
    return round(float(t - 1 + (target - nf[t - 1]) / (nf[t] - nf[t - 1])), 12)


def neighborhood_function(
    G: Graph,
    *,
    registers: int = 128,
    seed: int = 0,
    undirected: bool = False,
    max_iter: int | None = None,
    threads: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> np.ndarray:
    """HyperANF's estimate of ``N(t)``, the pairs ``(u, v)`` with ``v`` within ``t`` hops of ``u``.

    Parameters
    ----------
    G : Graph
        Directed: ``v`` must be reachable from ``u`` along out-edges; ``undirected=True`` runs
        on :meth:`gas.Graph.simple_undirected` instead (every edge both ways).
    registers : int, default 128
        HyperLogLog registers per vertex, a power of two from 16 to 65536; the relative standard
        error of ``N(t)`` is about ``1.04 / sqrt(registers)``, the memory ``2 * registers``
        bytes per vertex.
    seed : int, default 0
        Seed of the vertex hash; a seed gives the same bits on any thread or process count.
    max_iter : int, optional
        Most supersteps (default ``num_vertices + 1``, always enough); a run still changing at
        ``max_iter`` raises :class:`gas.ConvergenceError` (its ``result``: the eccentricity
        estimates so far).
    threads, procs, partition, options, progress
        As :func:`gas.run`'s (``procs > 1`` splits the graph over local processes; ``progress``
        gets each superstep's statistics, ``neighborhood`` among them).

    Returns
    -------
    ndarray of float64
        ``N(t)`` for ``t = 0, 1, ..., D``, ``D`` the last superstep a counter changed.

    Raises
    ------
    GasError
        Not a graph, ``registers`` not a power of two in range, a bad seed or ``max_iter``.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])  # exact: 3, 5, 6
    >>> neighborhood_function(g, registers=1024).round(2).tolist()
    [3.0, 5.0, 6.0]
    """
    nf, _ = _run_sketches(
        G, registers, seed, undirected, max_iter, threads, procs, partition, options, progress
    )
    return nf


def approximate_diameter(
    G: Graph,
    *,
    registers: int = 128,
    seed: int = 0,
    undirected: bool = False,
    max_iter: int | None = None,
    threads: int | None = None,
    procs: int = 1,
    partition: str = "hdrf",
    options: RunOptions | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> DiameterEstimate:
    """Estimated diameter, effective diameter, ``N(t)`` and eccentricities (HyperANF).

    Arguments as :func:`neighborhood_function`'s. The diameter is the last superstep in which a
    counter changed, a lower bound of the true diameter over reachable pairs (as PowerGraph's
    ``approximate_diameter``); it is exact unless hash collisions hide the farthest vertices,
    which more registers make rarer. Compare with ``networkx.diameter`` on a strongly connected
    graph (``networkx.eccentricity`` per vertex).

    Returns
    -------
    DiameterEstimate

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0])  # a directed 6-cycle
    >>> est = approximate_diameter(g, registers=1024)
    >>> est.diameter, round(est.effective_diameter, 2), est.eccentricity.tolist()
    (5, 4.39, [5, 5, 5, 5, 5, 5])
    """
    nf, ecc = _run_sketches(
        G, registers, seed, undirected, max_iter, threads, procs, partition, options, progress
    )
    return DiameterEstimate(int(ecc.max(initial=0)), effective_diameter(nf), nf, ecc)
