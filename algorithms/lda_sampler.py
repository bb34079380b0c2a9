"""Numba kernels for LDA: random numbers, the token sampler the vertex program calls, an exact
sequential collapsed Gibbs sampler (the reference), the joint log-likelihood, and fold-in inference.

Notation: ``K`` topics, ``W`` words, ``n_dk`` tokens of document ``d`` in topic ``k``, ``n_wk``
tokens of word ``w`` in topic ``k``, ``n_k`` all tokens in topic ``k``; symmetric priors ``alpha``
(document-topic) and ``beta`` (topic-word). The collapsed conditional of a token of word ``w`` in
document ``d``, with the token itself removed from the counts (superscript ``-``), is::

    p(z = k | rest)  ~  (n_dk^- + alpha) * (n_wk^- + beta) / (n_k^- + W beta)

Random numbers come from a 64-bit state per document advanced by SplitMix64 (Steele, Lea and
Flood, 2014), so a run depends only on the seed, never on the thread count or scheduling.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gas.splitmix import GOLDEN, M1, M2, finalize64

__all__ = [
    "seed_states",
    "gibbs_reference",
    "loglikelihood",
    "counts_from_assignments",
    "fold_in",
]

_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def rand(state: np.uint64) -> tuple[np.uint64, float]:
    """Advance a SplitMix64 state; return the new state and a uniform double in [0, 1)."""
    s = state + GOLDEN
    return s, float(finalize64(s) >> _S11) * _INV53


def seed_states(seed: int, n: int, stream: int = 0) -> np.ndarray:
    """``n`` independent SplitMix64 states derived from ``seed`` (one per document)."""
    with np.errstate(over="ignore"):
        base = (np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * M1) ^ (np.uint64(stream) * M2)
        return finalize64(np.arange(n, dtype=np.uint64) * GOLDEN + base)


@njit(cache=True, inline="always")
def sample_token(nd, nz, nnz, buf, cdf, nw, o, alpha, beta, state):
    """Resample one token of a document (the SparseLDA-style decomposition used by the program).

    ``nd``, ``nz``, ``nnz``: the document's topic counts, its list of topics with a nonzero
    count and that list's length (all updated in place); ``buf``: scratch of at least ``nnz + 1``
    floats. ``K`` is ``nd``'s length (``cdf`` may be longer). ``cdf[k] = sum_{j <= k} phi_wj``
    with ``phi_wj = (n_wj + beta) / (n_j + W beta)`` from the word's counts ``nw`` and the totals
    as they were at the start of the sweep (stale: other documents' moves in this sweep are not
    seen; the token's own old topic ``o`` is removed exactly from ``n_wo``). The conditional
    splits into a document bucket
    ``sum_{k: n_dk > 0} n_dk^- phi^-_wk`` (cost: topics in the document) and a smoothing bucket
    ``alpha sum_k phi^-_wk``, drawn by binary search on ``cdf`` (cost log K) with rejection at
    ``o``. Returns ``(new topic, nnz, state)``.

    Inlined into its caller (as are the helpers it calls): a call per token that is not inlined
    passes every array as a structure and costs about a third of the sampling time at K = 50.
    """
    K = nd.shape[0]
    nnz = _doc_remove(nd, nz, nnz, o)
    phi_o = cdf[o] - (cdf[o - 1] if o > 0 else 0.0)
    inv_o = phi_o / (nw[o] + beta)  # 1 / (n_o + W beta), as phi_wo = (n_wo + beta) / (n_o + W beta)
    phim_o = phi_o - inv_o  # phi_wo without this token: (n_wo - 1 + beta) / (n_o + W beta)
    if phim_o < 0.0:
        phim_o = 0.0
    s = 0.0
    for j in range(nnz):
        k = nz[j]
        p = cdf[k] - (cdf[k - 1] if k > 0 else 0.0)
        if k == o:
            p = phim_o
        s += nd[k] * p
        buf[j] = s
    smooth = alpha * (cdf[K - 1] - phi_o + phim_o)
    state, u = rand(state)
    u *= s + smooth
    new = -1
    if u < s:
        new = nz[nnz - 1]  # kept if rounding puts u past the last partial sum
        for j in range(nnz):
            if buf[j] > u:
                new = nz[j]
                break
    else:
        total = cdf[K - 1]
        while True:
            state, r = rand(state)
            r *= total
            lo = _inverse_cdf(cdf, K, r)
            if lo != o:
                new = lo
                break
            state, a = rand(state)
            if a * phi_o < phim_o:
                new = lo
                break
    return new, _doc_add(nd, nz, nnz, new), state


@njit(cache=True, inline="always")
def sample_token_dense(nd, nz, nnz, buf, phi, nw, o, alpha, beta, state):
    """Resample one token by walking all ``K`` topics (for documents that use many of them).

    Same arguments and result as :func:`sample_token`, except that the word side is ``phi``
    (``phi[k] = phi_wk``, float32) and ``buf`` holds at least ``K + K // 8`` floats. Draws from
    ``(n_dk^- + alpha) phi^-_wk`` over all ``k``: the weights go into ``buf[:K]`` in one loop
    that the compiler vectorises (no data-dependent branch, contiguous rows), sums of blocks of 8
    into ``buf[K:]``, then the draw walks the block sums and one block. Cost ``O(K)`` with a small
    constant, cheaper than :func:`sample_token`'s ``O(topics in the document)`` gathers when the
    document uses more than about an eighth of the topics.
    """
    K = nd.shape[0]
    nb = K >> 3
    nnz = _doc_remove(nd, nz, nnz, o)
    for t in range(K):
        buf[t] = (nd[t] + alpha) * phi[t]
    phi_o = np.float64(phi[o])
    phim_o = phi_o - phi_o / (nw[o] + beta)  # the token's own count removed from n_wo
    if phim_o < 0.0:
        phim_o = 0.0
    buf[o] = (nd[o] + alpha) * phim_o
    total = 0.0
    for b in range(nb):
        i = b << 3
        x = ((buf[i] + buf[i + 1]) + (buf[i + 2] + buf[i + 3])) + (
            (buf[i + 4] + buf[i + 5]) + (buf[i + 6] + buf[i + 7])
        )
        buf[K + b] = x
        total += x
    for t in range(nb << 3, K):
        total += buf[t]
    state, u = rand(state)
    u *= total
    b = 0
    while b < nb and u >= buf[K + b]:
        u -= buf[K + b]
        b += 1
    new = K - 1  # kept if rounding puts u past the last weight
    for t in range(b << 3, K):
        u -= buf[t]
        if u < 0.0:
            new = t
            break
    return new, _doc_add(nd, nz, nnz, new), state


@njit(cache=True, inline="always")
def sample_token_words(nd, nz, nnz, inv, cinv, r, wtop, wcnt, wnnz, o, alpha, beta, state):
    """Resample one token from the word's nonzero topics and the document's (SparseLDA's three
    buckets, Yao, Mimno and McCallum 2009), for large ``K``.

    ``nd``, ``nz``, ``nnz``: the document's counts and topic list as in :func:`sample_token`.
    ``inv[k] = 1 / (n_k + W beta)`` (float32) and its running sums ``cinv`` (float64): the
    document's copy of the topic totals, as they stood at the start of the previous sweep.
    ``r = beta sum_k n_dk inv[k]``, the document bucket, kept up to date here. ``wtop[:wnnz]``,
    ``wcnt[:wnnz]``: the word's topics with a nonzero count and those counts (the start of the
    sweep; the token's own old topic ``o`` is removed exactly). The conditional splits as::

        (n_dk^- + alpha) (n_wk^- + beta) inv_k
            = (n_dk^- + alpha) n_wk^- inv_k      word bucket: the word's topics
            + beta n_dk^- inv_k                  document bucket: the document's topics
            + alpha beta inv_k                   smoothing: binary search on ``cinv``

    Cost: the word's topics (twice when its bucket is drawn from), the document's topics when
    its bucket is, ``log K`` for the smoothing bucket; the word side is a short list, not a row
    of ``K``. Returns ``(new topic, nnz, r, state)``.
    """
    K = nd.shape[0]
    nnz = _doc_remove(nd, nz, nnz, o)
    r -= beta * inv[o]
    q = 0.0
    for j in range(wnnz):
        k = wtop[j]
        c = wcnt[j] - (1.0 if k == o else 0.0)
        q += (nd[k] + alpha) * c * inv[k]
    state, u = rand(state)
    u *= q + r + alpha * beta * cinv[K - 1]
    new = -1
    bucket = 0 if u < q else (1 if u < q + r else 2)
    if bucket == 0:
        for j in range(wnnz):
            k = wtop[j]
            c = wcnt[j] - (1.0 if k == o else 0.0)
            u -= (nd[k] + alpha) * c * inv[k]
            if u < 0.0:
                new = k
                break
        if new < 0:  # rounding put u past the last weight
            new = wtop[wnnz - 1]
    elif bucket == 1:
        u = (u - q) / beta
        for j in range(nnz):
            k = nz[j]
            u -= nd[k] * inv[k]
            if u < 0.0:
                new = k
                break
        if new < 0:
            new = nz[nnz - 1] if nnz > 0 else o
    else:
        u = (u - q - r) / (alpha * beta)
        new = _inverse_cdf(cinv, K, u)
    r += beta * inv[new]
    return new, _doc_add(nd, nz, nnz, new), r, state


@njit(cache=True, inline="always")
def sample_token_words_dense(nd, nz, nnz, inv, scratch, r, nw, o, alpha, beta, state):
    """:func:`sample_token_words` for a word that uses many topics: a walk over all ``K`` of
    ``(n_dk^- + alpha) (n_wk^- + beta) inv[k]`` with the word's counts ``nw`` as a row of ``K``.

    ``scratch[K:]`` (at least ``K // 8`` floats past ``K``) takes the sums of blocks of 8 topics
    (the first pass, which the compiler vectorises); the draw walks the block sums, then
    recomputes the weights of one block. Same arguments otherwise and same result
    ``(new topic, nnz, r, state)``.
    """
    K = nd.shape[0]
    nb = K >> 3
    nnz = _doc_remove(nd, nz, nnz, o)
    r -= beta * inv[o]
    total = 0.0
    for b in range(nb):
        x = 0.0
        for t in range(b << 3, (b << 3) + 8):
            x += (nd[t] + alpha) * (nw[t] + beta) * inv[t]
        scratch[K + b] = x
        total += x
    for t in range(nb << 3, K):
        total += (nd[t] + alpha) * (nw[t] + beta) * inv[t]
    own = (nd[o] + alpha) * inv[o]  # the token's own count off n_wo
    if (o >> 3) < nb:
        scratch[K + (o >> 3)] -= own
    total -= own
    state, u = rand(state)
    u *= total
    b = 0
    while b < nb and u >= scratch[K + b]:
        u -= scratch[K + b]
        b += 1
    new = -1
    for t in range(b << 3, K):
        c = nw[t] - (1.0 if t == o else 0.0)
        w = (nd[t] + alpha) * (c + beta) * inv[t]
        if w > 0.0:
            new = t
        u -= w
        if u < 0.0:
            break
    if new < 0:  # rounding: no positive weight from the block on; the token keeps its topic
        new = o
    r += beta * inv[new]
    return new, _doc_add(nd, nz, nnz, new), r, state


@njit(cache=True, inline="always")
def _doc_remove(nd, nz, nnz, o):
    """Take one token off topic ``o`` of a document; return the new length of its topic list."""
    nd[o] -= 1
    if nd[o] == 0:
        for j in range(nnz):
            if nz[j] == o:
                nnz -= 1
                nz[j] = nz[nnz]
                break
    return nnz


@njit(cache=True, inline="always")
def _doc_add(nd, nz, nnz, k):
    """Put one token on topic ``k`` of a document; return the new length of its topic list."""
    nd[k] += 1
    if nd[k] == 1:
        nz[nnz] = k
        nnz += 1
    return nnz


@njit(cache=True)
def counts_from_assignments(doc, word, z, num_docs, num_words, K):
    """Document-topic, word-topic and topic totals recomputed from the assignments."""
    ndk = np.zeros((num_docs, K), np.int64)
    nwk = np.zeros((num_words, K), np.int64)
    nk = np.zeros(K, np.int64)
    for i in range(z.shape[0]):
        ndk[doc[i], z[i]] += 1
        nwk[word[i], z[i]] += 1
        nk[z[i]] += 1
    return ndk, nwk, nk


@njit(cache=True)
def loglikelihood(ndk, nwk, nk, alpha, beta):
    """Joint ``log p(w, z)`` of the collapsed model (the quantity the ``lda`` package reports)::

    K [lgamma(W b) - W lgamma(b)] + sum_k [sum_w lgamma(n_wk + b) - lgamma(n_k + W b)]
    + D [lgamma(K a) - K lgamma(a)] + sum_d [sum_k lgamma(n_dk + a) - lgamma(n_d + K a)]
    """
    D, K = ndk.shape
    W = nwk.shape[0]
    lb, la = math.lgamma(beta), math.lgamma(alpha)
    ll = K * math.lgamma(W * beta) + D * math.lgamma(K * alpha)
    for k in range(K):
        ll -= math.lgamma(nk[k] + W * beta)
    for w in range(W):
        for k in range(K):
            if nwk[w, k] > 0:
                ll += math.lgamma(nwk[w, k] + beta) - lb
    for d in range(D):
        n = 0
        for k in range(K):
            c = ndk[d, k]
            n += c
            if c > 0:
                ll += math.lgamma(c + alpha) - la
        ll -= math.lgamma(n + K * alpha)
    return ll


@njit(cache=True)
def gibbs_reference(doc, word, z, ndk, nwk, nk, alpha, beta, iters, state):
    """Exact sequential collapsed Gibbs sampling, O(K) per token (Griffiths and Steyvers, 2004).

    Sweeps the tokens in order ``iters`` times, updating ``z`` and the counts in place; returns
    the log-likelihood after each sweep and the final random state.
    """
    K = nk.shape[0]
    W = nwk.shape[0]
    wb = W * beta
    p = np.empty(K, np.float64)
    out = np.empty(iters, np.float64)
    for it in range(iters):
        for i in range(z.shape[0]):
            d, w, o = doc[i], word[i], z[i]
            ndk[d, o] -= 1
            nwk[w, o] -= 1
            nk[o] -= 1
            s = 0.0
            for k in range(K):
                s += (ndk[d, k] + alpha) * (nwk[w, k] + beta) / (nk[k] + wb)
                p[k] = s
            state, u = rand(state)
            new = _inverse_cdf(p, K, u * s)
            z[i] = new
            ndk[d, new] += 1
            nwk[w, new] += 1
            nk[new] += 1
        out[it] = loglikelihood(ndk, nwk, nk, alpha, beta)
    return out, state


@njit(cache=True, inline="always")
def _inverse_cdf(p, K, u):
    """The first ``k`` with ``p[k] > u`` in the running sums ``p[:K]`` (``K - 1`` if none), by
    bisection."""
    lo, hi = 0, K - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if p[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def fold_in(indptr, word, phi, alpha, iters, burn, states):
    """Topic mixtures of new documents with the topics ``phi`` (K x W) held fixed.

    Collapsed Gibbs over each document's tokens ``word[indptr[d]:indptr[d+1]]`` with
    ``p(z = k) ~ (n_dk^- + alpha) phi[k, w]``; the mixture is the average of
    ``(n_dk + alpha) / (n_d + K alpha)`` over the sweeps after ``burn``.
    """
    D = indptr.shape[0] - 1
    K = phi.shape[0]
    theta = np.zeros((D, K), np.float64)
    p = np.empty(K, np.float64)
    for d in range(D):
        state = states[d]
        a, b = indptr[d], indptr[d + 1]
        n = b - a
        nd = np.zeros(K, np.int64)
        zz = np.empty(n, np.int64)
        for i in range(n):
            state, u = rand(state)
            zz[i] = min(int(u * K), K - 1)
            nd[zz[i]] += 1
        kept = 0
        for it in range(iters):
            for i in range(n):
                w = word[a + i]
                nd[zz[i]] -= 1
                s = 0.0
                for k in range(K):
                    s += (nd[k] + alpha) * phi[k, w]
                    p[k] = s
                state, u = rand(state)
                new = _inverse_cdf(p, K, u * s)
                zz[i] = new
                nd[new] += 1
            if it >= burn:
                kept += 1
                for k in range(K):
                    theta[d, k] += (nd[k] + alpha) / (n + K * alpha)
        if kept == 0:
            for k in range(K):
                theta[d, k] = (nd[k] + alpha) / (n + K * alpha)
        else:
            for k in range(K):
                theta[d, k] /= kept
    return theta
