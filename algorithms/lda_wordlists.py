"""LDA at large ``K``: documents sample each token from its word's list of topics and their own.

:class:`LDAWordListProgram` runs on the graph, random start and engine of
:func:`gas.algorithms.lda.lda` (which picks it on one process from ``K >= WORD_LISTS_MIN_K``).
Where :class:`~gas.algorithms.lda.LDAProgram` walks all ``K`` topics for a document that uses
many, here a token costs the topics its word uses plus, in one bucket in a few, the document's
(:func:`~gas.algorithms.lda_sampler.sample_token_words`); a word that uses many topics is walked
over ``K`` from its counts (:func:`~gas.algorithms.lda_sampler.sample_token_words_dense`). Same
conditional and the same staleness as ``LDAProgram`` (word counts of the sweep's start, topic
totals one sweep old), so the same chain up to rounding of the draws; the log-likelihood after
the same sweeps agrees (bench/RESULTS.md, LDA).
"""

from __future__ import annotations

import math

import numpy as np

from gas.program import IN, OUT, VertexProgram

from .lda_sampler import sample_token_words, sample_token_words_dense

__all__ = ["LDAWordListProgram", "WORD_LISTS_MIN_K", "LIST_RATIO"]

# from this many topics on, lda() on one process samples by the words' topic lists
# (LDAWordListProgram) instead of walks over K: 1.5x the tokens/s at K = 1000 on AP and on the
# synthetic corpus; at K = 200 the walk over K was as fast or faster (synthetic: 2x), as a word
# then uses most topics (figures: bench/RESULTS.md, LDA)
WORD_LISTS_MIN_K = 500
# ... and a token whose word uses at least K / LIST_RATIO topics walks all K instead of the list
# (a topic walked costs less than a list entry; 0: always the list). AP, K = 1000, 5 sweeps:
# 0.5 M tokens/s with lists only, 0.4-0.8 with 8, 0.3 walking always (as LDAProgram)
LIST_RATIO = 8


class LDAWordListProgram(VertexProgram):
    """Collapsed Gibbs sampling for LDA at large ``K``, on :class:`~gas.algorithms.lda.LDAProgram`'s
    graph and fields (and its gather): a token costs its word's and its document's topics
    (:func:`~gas.algorithms.lda_sampler.sample_token_words`), never a walk over ``K``.

    A word's apply lists its nonzero topics (``nz``) with their counts (``phi``, as floats)
    instead of building ``phi_wk`` and its cdf. The topic totals reach a document through its
    edge from the hub, the last edge its scatter visits: it keeps ``cdf[k] = sum_{j <= k} 1 /
    (n_j + W beta)`` from the hub's totals for its next sweep (the totals one sweep old, as the
    words' ``phi`` of :class:`LDAProgram` sees them; the first sweep's copy is the start's, set
    by :func:`lda`), ``1 / (n_k + W beta)`` in ``phi`` and its running sums in ``cdf``, and the
    document bucket's sum in ``r``. One process, synchronous engine.
    """

    gather_edges = OUT
    scatter_edges = IN
    dynamic = False
    aggregates = {"ll": "sum"}
    edge_data = {"z": np.int32}

    def __init__(
        self,
        topics: int,
        num_docs: int,
        num_words: int,
        alpha: float,
        beta: float,
        ll_every: int = 1,
        list_ratio: int = LIST_RATIO,
    ) -> None:
        self.k = int(topics)
        self.num_docs = int(num_docs)
        self.hub = int(num_docs + num_words)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.wbeta = float(num_words * beta)
        self.ll_every = int(ll_every)
        self.list_ratio = int(list_ratio)
        K = self.k
        self.vertex_data = {
            "nk": (np.int32, K),
            "nz": (np.int32, K),  # topics with a nonzero count (documents and words)
            "cdf": (np.float64, K + K // 8),  # documents: running sums of inv, block sums past K
            "phi": (np.float32, K),  # documents: inv; words: the counts of the topics in nz
            "nnz": np.int64,
            "rng": np.uint64,
            "ll": np.float64,
            "r": np.float64,  # documents: the document bucket's sum
        }
        self.gather_type = (np.int32, (2, K))

    def gather(self, v, e, nbr, acc):  # as LDAProgram.gather, without the totals (unused here)
        if v.vid == self.hub:
            for k in range(self.k):
                acc[0, k] += nbr.nk[k]
        elif nbr.vid != self.hub:
            acc[0, e.z] += 1

    def apply(self, v, total, ctx):
        K = self.k
        score = self.ll_every > 0 and ctx.iteration % self.ll_every == 0
        ll = 0.0
        if v.vid < self.num_docs:  # counts are current (updated in place by scatter)
            nnz = 0
            n = 0
            for k in range(K):
                c = v.nk[k]
                if c > 0:
                    v.nz[nnz] = k
                    nnz += 1
                    n += c
                    if score:
                        ll += math.lgamma(c + self.alpha) - math.lgamma(self.alpha)
            v.nnz = nnz
            if score:
                ll += math.lgamma(K * self.alpha) - math.lgamma(n + K * self.alpha)
        elif v.vid < self.hub:
            nnz = 0
            for k in range(K):
                c = total[0, k]
                v.nk[k] = c
                if c > 0:
                    v.nz[nnz] = k
                    v.phi[nnz] = c
                    nnz += 1
                    if score:
                        ll += math.lgamma(c + self.beta) - math.lgamma(self.beta)
            v.nnz = nnz
        else:
            for k in range(K):
                c = total[0, k]
                v.nk[k] = c
                if score:
                    ll += math.lgamma(self.wbeta) - math.lgamma(c + self.wbeta)
        v.ll = ll

    def scatter(self, v, e, nbr):
        if v.vid < self.num_docs:
            if self.num_docs <= nbr.vid < self.hub:
                if nbr.nnz * self.list_ratio >= self.k:  # the word uses many topics: walk all K
                    new, nnz, r, state = sample_token_words_dense(
                        v.nk, v.nz, v.nnz, v.phi, v.cdf, v.r, nbr.nk, e.z, self.alpha, self.beta, v.rng
                    )
                else:  # few: its list
                    new, nnz, r, state = sample_token_words(
                        v.nk,
                        v.nz,
                        v.nnz,
                        v.phi,
                        v.cdf,
                        v.r,
                        nbr.nz,
                        nbr.phi,
                        nbr.nnz,
                        e.z,
                        self.alpha,
                        self.beta,
                        v.rng,
                    )
                e.z = new
                v.nnz = nnz
                v.r = r
                v.rng = state
            elif nbr.vid == self.hub:  # the totals, for the next sweep
                s = 0.0
                r = 0.0
                for k in range(self.k):
                    v.phi[k] = 1.0 / (nbr.nk[k] + self.wbeta)
                    x = np.float64(v.phi[k])  # the float32 the sampler reads
                    s += x
                    v.cdf[k] = s
                    r += v.nk[k] * x
                v.r = self.beta * r
        return False

    def aggregate(self, v):
        return v.ll
