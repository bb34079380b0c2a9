"""Synthetic graph generators: Graph500-style R-MAT (Kronecker) and a Chung-Lu power-law graph.

Both are deterministic for a given seed, whatever the number of threads: R-MAT draws its random
numbers from a counter-based hash of ``(seed, edge, word)`` (the SplitMix64 finalizer), so any
thread can generate any edge without a shared random stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gas.graph import Graph
from gas.splitmix import GOLDEN as _GOLDEN
from gas.splitmix import finalize64 as _mix64

__all__ = ["rmat", "rmat_graph", "powerlaw"]

_LOW32 = np.uint64(0xFFFFFFFF)
_CHUNK = 1 << 16
_GROUP = 4  # R-MAT levels decided together by one 32-bit draw
_OUTCOMES = 4**_GROUP  # joint quadrant outcomes of a group
_BUCKET_BITS = 32 - 2 * _GROUP  # low bits of the draw that decide accept vs alias
_FRAC = np.uint64((1 << _BUCKET_BITS) - 1)


@njit(cache=True)
def _scramble(v, mask, shift, k0, k1, k2):
    """A bijection of ``0..mask`` (mask = 2**scale - 1): an add, odd multiplies and xor-shifts.

    Adding a constant, multiplying by an odd number and ``x ^ (x >> s)`` are each invertible
    modulo a power of two, so vertex labels are permuted without storing a permutation table.
    """
    v = ((v + k0) * k1) & mask
    v ^= v >> shift
    v = (v * k2) & mask
    v ^= v >> shift
    return v


@njit(cache=True)
def _rmat_range(lo, hi, scale, tables, widths, keys, src, dst):
    """Generate edges ``lo..hi-1`` into ``src``/``dst``.

    Levels go in groups of four. One 32-bit draw picks the joint outcome of a group (256 cases)
    with Walker's alias method: the top 8 bits choose a bucket, the low 24 bits accept the
    bucket's own outcome or its alias. ``tables[g, bucket]`` packs the acceptance threshold
    (bits 0-24), and the source/target bit patterns of the outcome (bits 32-39) and of the alias
    (bits 40-47). One 64-bit hash feeds two groups. Compared with choosing each level by three
    compares, this is one load per four levels.
    """
    key, k0, k1, k2 = keys[0], keys[1], keys[2], keys[3]
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    shift = np.uint64(max(scale // 2, 1))
    ngroups = tables.shape[0]
    words = (ngroups + 1) // 2
    low4 = np.uint64(15)
    for e in range(lo, hi):
        s = np.uint64(0)
        d = np.uint64(0)
        base = key + np.uint64(e) * np.uint64(words) * _GOLDEN
        r = np.uint64(0)
        for g in range(ngroups):
            if g % 2 == 0:
                r = _mix64(base + np.uint64(g // 2) * _GOLDEN)
                x = r & _LOW32
            else:
                x = r >> np.uint64(32)
            t = tables[g, x >> np.uint64(_BUCKET_BITS)]
            bits = (t >> np.uint64(32)) if (x & _FRAC) < (t & _LOW32) else (t >> np.uint64(40))
            width = widths[g]
            s = (s << width) | ((bits >> np.uint64(4)) & low4)
            d = (d << width) | (bits & low4)
        src[e] = np.int64(_scramble(s, mask, shift, k0, k1, k2))
        dst[e] = np.int64(_scramble(d, mask, shift, k0, k1, k2))


@njit(cache=True, parallel=True)
def _rmat_parallel(m, scale, tables, widths, keys, src, dst):
    nchunks = (m + _CHUNK - 1) // _CHUNK
    for c in prange(nchunks):
        _rmat_range(c * _CHUNK, min(m, (c + 1) * _CHUNK), scale, tables, widths, keys, src, dst)


@njit(cache=True)
def _rmat_serial(m, scale, tables, widths, keys, src, dst):
    _rmat_range(0, m, scale, tables, widths, keys, src, dst)


def _level_probabilities(scale: int, a: float, b: float, c: float, noise: float, seed: int):
    """Quadrant probabilities ``(a, b, c, d)`` of each level, shape (scale, 4).

    With ``noise > 0`` each level's matrix is perturbed as in noisy stochastic Kronecker graphs
    (Seshadhri, Pinar and Kolda, 2013): ``a - 2mu a/(a+d), b + mu, c + mu, d - 2mu d/(a+d)``,
    with ``mu`` uniform in ``noise * [-r, r]``, ``r = min((a+d)/2, b, c)``. It smooths the
    oscillating degree distribution of plain R-MAT; each row still sums to 1.
    """
    d = 1.0 - a - b - c
    rng = np.random.default_rng([seed, 0x5EED])
    bound = min((a + d) / 2, b, c)
    out = np.empty((scale, 4))
    for level in range(scale):
        mu = noise * bound * (2.0 * rng.random() - 1.0) if noise else 0.0
        shrink = 2 * mu / (a + d) if a + d else 0.0
        out[level] = (a - shrink * a, b + mu, c + mu, d - shrink * d)
    return out


def _integer_shares(p: np.ndarray, total: int) -> np.ndarray:
    """Non-negative integers proportional to ``p`` that sum to exactly ``total``."""
    scaled = p / p.sum() * total
    out = np.floor(scaled).astype(np.int64)
    short = total - int(out.sum())
    out[np.argsort(out - scaled, kind="stable")[:short]] += 1  # largest remainders first
    return out


def _alias_table(p: np.ndarray, bucket: int) -> tuple[np.ndarray, np.ndarray]:
    """Walker/Vose alias table in exact integers: ``(threshold, alias)`` per bucket.

    ``p`` are integer weights summing to ``len(p) * bucket``; outcome ``i`` is then drawn with
    probability ``p[i] / sum(p)`` exactly by: pick bucket ``j`` uniformly, keep ``j`` when a
    uniform integer below ``bucket`` is ``< threshold[j]``, else take ``alias[j]``.
    """
    p = p.copy()
    threshold = np.full(p.size, bucket, np.int64)
    alias = np.arange(p.size)
    small = [i for i in range(p.size) if p[i] < bucket]
    large = [i for i in range(p.size) if p[i] >= bucket]
    while small and large:
        j = small.pop()
        big = large.pop()
        threshold[j] = p[j]
        alias[j] = big
        p[big] -= bucket - p[j]
        (small if p[big] < bucket else large).append(big)
    return threshold, alias


def _group_tables(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed alias tables of the joint outcomes of each group of 4 levels, and group widths.

    Outcome ``j`` of a group of ``k`` levels is ``sum(q_i * 4**(k-1-i))`` (``q_i`` the quadrant
    at level ``i``, most significant first); it sets the ``k`` source bits ``q_i >> 1`` and the
    ``k`` target bits ``q_i & 1``. A short last group leaves outcomes ``>= 4**k`` at probability 0.
    """
    scale = probs.shape[0]
    ngroups = (scale + _GROUP - 1) // _GROUP
    tables = np.empty((ngroups, _OUTCOMES), np.uint64)
    widths = np.empty(ngroups, np.uint64)
    bucket = 1 << _BUCKET_BITS
    for g in range(ngroups):
        levels = range(g * _GROUP, min(scale, (g + 1) * _GROUP))
        k = len(levels)
        joint = np.ones(1)
        for level in levels:
            joint = np.outer(joint, probs[level]).ravel()
        full = np.zeros(_OUTCOMES)
        full[: joint.size] = joint
        threshold, alias = _alias_table(_integer_shares(full, 1 << 32), bucket)
        o = np.arange(_OUTCOMES)
        sbits = np.zeros(_OUTCOMES, np.int64)
        dbits = np.zeros(_OUTCOMES, np.int64)
        for i in range(k):
            q = (o >> (2 * (k - 1 - i))) & 3
            sbits = (sbits << 1) | (q >> 1)
            dbits = (dbits << 1) | (q & 1)
        packed = (sbits << 4) | dbits
        tables[g] = (
            threshold.astype(np.uint64)
            | (packed.astype(np.uint64) << np.uint64(32))
            | (packed[alias].astype(np.uint64) << np.uint64(40))
        )
        widths[g] = k
    return tables, widths


def rmat(
    scale: int,
    edge_factor: int = 16,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
    *,
    noise: float = 0.0,
    parallel: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Graph500-style R-MAT (recursive matrix / Kronecker) edges.

    Each of ``edge_factor * 2**scale`` edges picks, at each of ``scale`` levels, one quadrant of
    the adjacency matrix with probabilities ``a, b, c, d = 1 - a - b - c`` (top-left, top-right,
    bottom-left, bottom-right), which sets one bit of the source and of the target id. Vertex
    labels are then permuted by a seeded bijection of ``0..2**scale-1``, as Graph500 does, so the
    high-degree vertices are spread over the id range instead of sitting at the low ids.
    Duplicate edges and self-loops are kept (build with ``dedupe=True`` to drop repeats).

    Parameters
    ----------
    scale : int
        ``log2`` of the number of vertices (1..40).
    edge_factor : int, default 16
        Edges per vertex.
    a, b, c : float
        Quadrant probabilities (Graph500: 0.57, 0.19, 0.19).
    seed : int, default 0
        The same seed gives the same edges for any number of threads.
    noise : float, default 0.0
        Per-level perturbation of the probabilities in ``[0, 1)`` (noisy SKG); 0 is plain R-MAT.
    parallel : bool, default True
        Generate with all Numba threads.

    Returns
    -------
    src, dst : ndarray of int64

    Examples
    --------
    >>> src, dst = rmat(4, edge_factor=2, seed=1)
    >>> src.shape, int(max(src.max(), dst.max())) < 16
    ((32,), True)
    """
    if not 1 <= scale <= 40:
        raise ValueError(f"Expected 1 <= scale <= 40 (got {scale})")
    if edge_factor < 0:
        raise ValueError(f"Expected edge_factor >= 0 (got {edge_factor})")
    d = 1.0 - a - b - c
    if min(a, b, c, d) < 0:
        raise ValueError(f"Expected a, b, c >= 0 with a + b + c <= 1 (got {a}, {b}, {c})")
    if not 0.0 <= noise < 1.0:
        raise ValueError(f"Expected 0 <= noise < 1 (got {noise})")
    m = int(edge_factor) << int(scale)
    tables, widths = _group_tables(_level_probabilities(scale, a, b, c, noise, seed))
    keys = np.random.default_rng([seed, 0xA11CE]).integers(0, 2**63, size=4, dtype=np.uint64)
    keys[2:] |= np.uint64(1)  # multipliers of the label bijection must be odd
    src = np.empty(m, np.int64)
    dst = np.empty(m, np.int64)
    kernel = _rmat_parallel if parallel else _rmat_serial
    kernel(m, scale, tables, widths, keys, src, dst)
    return src, dst


def rmat_graph(
    scale: int,
    edge_factor: int = 16,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
    *,
    noise: float = 0.0,
    dedupe: bool = True,
) -> Graph:
    """An R-MAT :class:`~gas.graph.Graph` on ``2**scale`` vertices; see :func:`rmat`.

    Vertices without edges are kept (ids are ``0..2**scale-1``); ``dedupe`` drops repeated edges.

    Examples
    --------
    >>> g = rmat_graph(8, edge_factor=4)
    >>> g.num_vertices, g.num_edges <= 4 * 256
    (256, True)
    """
    src, dst = rmat(scale, edge_factor, a, b, c, seed, noise=noise)
    return Graph.from_edges(src, dst, num_vertices=1 << scale, dedupe=dedupe)


def powerlaw(
    n: int, avg_degree: float = 16.0, exponent: float = 2.1, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A directed Chung-Lu graph whose degrees follow a power law ``P(k) ~ k**-exponent``.

    Vertex ``i`` (before relabelling) gets weight ``(i + 1) ** (-1 / (exponent - 1))``; each of
    ``round(n * avg_degree)`` edges draws its source and its target independently with
    probability proportional to the weights, so expected out- and in-degrees are both
    proportional to the weight. Labels are then shuffled with a seeded permutation. Duplicate
    edges and self-loops are kept.

    Parameters
    ----------
    n : int
        Number of vertices (ids ``0..n-1``; some may get no edge).
    avg_degree : float, default 16
        Edges per vertex.
    exponent : float, default 2.1
        Power-law exponent of the degree distribution, > 1 (real networks: about 2 to 3).
    seed : int, default 0

    Returns
    -------
    src, dst : ndarray of int64

    Examples
    --------
    >>> src, dst = powerlaw(1000, avg_degree=8, seed=3)
    >>> src.shape, bool(np.bincount(src).max() > 10 * 8)
    ((8000,), True)
    """
    if n < 1:
        raise ValueError(f"Expected n >= 1 (got {n})")
    if exponent <= 1:
        raise ValueError(f"Expected exponent > 1 (got {exponent})")
    m = int(round(n * avg_degree))
    rng = np.random.default_rng(seed)
    weight = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (exponent - 1.0))
    cdf = np.cumsum(weight)
    cdf /= cdf[-1]
    perm = rng.permutation(n).astype(np.int64)
    src = perm[np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n - 1)]
    dst = perm[np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n - 1)]
    return src, dst
