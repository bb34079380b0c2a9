"""The streaming greedy kernel shared by ``oblivious`` and ``hdrf``.

For each edge ``(u, v)`` of the stream, every part ``p`` gets the score

    C(p) = lam * (maxload - load[p]) / (1 + maxload - minload) + g_u [p in A(u)] + g_v [p in A(v)]

where ``A(x)`` is the set of parts already holding ``x``; the first term is the balance term
of HDRF (Petroni et al., CIKM 2015) with ``epsilon = 1``. The edge goes to the best part, and
exact ties are broken uniformly at random (one seeded draw picks among the tied parts in
increasing id order). ``oblivious`` uses ``g_u = g_v = 1`` (PowerGraph's greedy heuristic in
score form). ``hdrf`` uses the partial degrees ``d`` seen so far in the stream (both endpoints'
counts are incremented first): ``theta_u = d_u / (d_u + d_v)``, ``g_u = 2 - theta_u``,
``g_v = 1 + theta_u``, so a part already holding the lower-degree endpoint scores higher and
high-degree vertices are the ones replicated.

Fast path. The parts fall into four classes by which endpoints they hold (both, ``u`` only,
``v`` only, neither); within a class the score only grows as the load falls, so the best part
of a class is a least-loaded one. The kernel keeps, for each load value between ``minload``
and ``maxload``, the bit set of parts at that load (a ring of ``LEVELS`` bit sets), so the
best of each class is found with a few word operations instead of scoring ``P`` parts. When
the loads spread over ``LEVELS`` values or more (only with a tiny ``lam`` or an adversarial
order) the kernel scores every part instead; both paths pick the same part.

Per vertex, the replica bits and the partial degree share one row of a ``uint64`` matrix, so
each endpoint costs one cache miss.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gas.partition._bits import ONE, popcount, prefetch_row, select_bit
from gas.partition.hashing import next_random, reduce_range, seed_state

LEVELS = 64  # ring size; a power of two
AHEAD = 24  # prefetch the state rows of the edge this many positions ahead
_RING = LEVELS - 1


@njit(cache=True, inline="always")
def _class_best(level, masks, c, minload, spread, words):
    """Smallest ``j <= spread`` such that a part of ``masks[c]`` has load ``minload + j``."""
    for j in range(spread + 1):
        sl = (minload + j) & _RING
        for w in range(words):
            if level[sl, w] & masks[c, w]:
                return j
    return -1


@njit(cache=True)
def _tie_scan(state, load, tied, u, v, num_parts, maxload, scale, gu, gv):
    """Slow path: the best parts for edge ``(u, v)`` into ``tied``, scoring every part."""
    best = -np.inf
    for p in range(num_parts):
        w = p >> 6
        bit = ONE << np.uint64(p & 63)
        sc = (maxload - load[p]) * scale
        if state[u, w] & bit:
            sc = sc + gu
        if state[v, w] & bit:
            sc = sc + gv
        if sc > best:
            best = sc
            tied[:] = 0
            tied[w] = bit
        elif sc == best:
            tied[w] |= bit


@njit(cache=True)
def _scan_minload(level, load, a, minload, maxload, use_levels):
    """Slow path, after part of load ``a`` grew: ``(minload, levels valid again)``; the ring of
    bit sets is rebuilt from the loads when their spread fits it again."""
    if a == minload:
        minload = load.min()
    if use_levels and maxload - minload < LEVELS:
        _rebuild_levels(level, load)
        return minload, True
    return minload, False


@njit(cache=True)
def _rebuild_levels(level, load):
    """The ring of bit sets ``level[l & _RING]`` (parts at load ``l``) rebuilt from the loads."""
    level[:, :] = 0
    for p in range(load.shape[0]):
        level[load[p] & _RING, p >> 6] |= ONE << np.uint64(p & 63)


# kept whole: over 80 lines on purpose (allowed for a kernel): the common path (ring of load
# levels valid) is written out in the loop, as any helper on it, even one inlined with
# ``inline="always"``, measurably slows the stream (4 M edges, CPU time: 13-17 % at 128 parts
# for the scoring, 15 % at 30 parts for the draw); the slow path (every part scored) is in
# helpers at no cost. Figures: bench/RESULTS.md, section "Figures formerly in docstrings",
# "greedy_stream split".
@njit(cache=True)
def greedy_stream(s, d, n, num_parts, lam, degree_weighted, seed, use_levels=True):
    """Part of each streamed edge (``int32``, stream order)."""
    m = s.shape[0]
    words = (num_parts + 63) // 64
    state = np.zeros((n, words + 1), np.uint64)  # replica bits, then the partial degree
    load = np.zeros(num_parts, np.int64)
    level = np.zeros((LEVELS, words), np.uint64)  # level[load & _RING] = parts at that load
    _rebuild_levels(level, load)
    valid = use_levels
    tied = np.zeros(words, np.uint64)
    masks = np.zeros((4, words), np.uint64)
    out = np.empty(m, np.int32)
    rng = np.empty(1, np.uint64)
    rng[0] = seed_state(seed, 0x6A09E667)
    maxload = 0
    minload = 0
    for i in range(m):
        if i + AHEAD < m:
            prefetch_row(state, s[i + AHEAD])
            prefetch_row(state, d[i + AHEAD])
        u = s[i]
        v = d[i]
        gu = 1.0
        gv = 1.0
        if degree_weighted:
            state[u, words] += ONE
            state[v, words] += ONE
            du = np.float64(state[u, words])
            dv = np.float64(state[v, words])
            tu = du / (du + dv)
            gu = 2.0 - tu
            gv = 1.0 + tu
        scale = lam / (1.0 + maxload - minload)
        best = -np.inf
        if valid:
            for w in range(words):
                bu = state[u, w]
                bv = state[v, w]
                masks[0, w] = bu & bv
                masks[1, w] = bu & ~bv
                masks[2, w] = bv & ~bu
                masks[3, w] = ~(bu | bv)
            spread = maxload - minload
            for c in range(4):
                j = _class_best(level, masks, c, minload, spread, words)
                if j < 0:
                    continue
                sc = (maxload - (minload + j)) * scale
                if c == 0:
                    sc = (sc + gu) + gv
                elif c == 1:
                    sc = sc + gu
                elif c == 2:
                    sc = sc + gv
                sl = (minload + j) & _RING
                if sc > best:
                    best = sc
                    for w in range(words):
                        tied[w] = level[sl, w] & masks[c, w]
                elif sc == best:
                    for w in range(words):
                        tied[w] |= level[sl, w] & masks[c, w]
        else:
            _tie_scan(state, load, tied, u, v, num_parts, maxload, scale, gu, gv)
        total = 0
        for w in range(words):
            total += popcount(tied[w])
        r = 0 if total == 1 else reduce_range(next_random(rng), total)
        bp = -1
        for w in range(words):
            c = popcount(tied[w])
            if r < c:
                bp = w * 64 + select_bit(tied[w], r)
                break
            r -= c
        out[i] = bp
        w = bp >> 6
        bit = ONE << np.uint64(bp & 63)
        state[u, w] |= bit
        state[v, w] |= bit
        a = load[bp]
        load[bp] = a + 1
        if a + 1 > maxload:
            maxload = a + 1
        if valid:
            level[a & _RING, w] &= ~bit
            level[(a + 1) & _RING, w] |= bit
            if a == minload:
                empty = True
                for k in range(words):
                    if level[a & _RING, k]:
                        empty = False
                if empty:
                    minload += 1
            if maxload - minload >= LEVELS:
                valid = False
        else:
            minload, valid = _scan_minload(level, load, a, minload, maxload, use_levels)
    return out
