"""How a sweep is shared between threads (the engine's spread order of vertex ranges,
:func:`gas.threads.spread_step`), and the sampler by the words' topic lists
(``LDAWordListProgram``, ``sample_token_words``) used at large K.

Numba runs a kernel's ``prange`` with static scheduling: thread ``t`` of ``T`` takes the
``t``-th contiguous ``1/T`` of the iterations. The expected shares are counted here with numpy
from the corpus itself (tokens per document), independently of the engine; the chain itself
must not depend on the threads (same assignments as on one thread).
References of the word-list sampler: the conditional written out with numpy, and the exact
sequential collapsed Gibbs sampler ``lda_reference`` (Griffiths and Steyvers 2004).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from gas.algorithms.lda import _engine_of, _start, lda
from gas.datasets import lda_corpus
from gas.threads import spread_step


@pytest.fixture(scope="module")
def corpus():
    # documents of unequal length, so an even split by document count would not be even by tokens
    c, _, _ = lda_corpus(num_docs=200, doc_length=40, num_words=120, topics=4, alpha=0.1, beta=0.05, seed=2)
    keep = np.random.default_rng(0).random(c.num_tokens) < np.repeat(
        np.linspace(0.2, 1.0, c.num_docs), c.doc_lengths()
    )
    doc, word = c.tokens()
    return type(c).from_tokens(doc[keep], word[keep], c.vocab)


def _static_share(num_ranges: int, threads: int, t: int) -> tuple[int, int]:
    """The iterations thread ``t`` runs under static scheduling (contiguous, equal counts)."""
    return t * num_ranges // threads, (t + 1) * num_ranges // threads


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_every_thread_samples_a_fair_share_of_the_tokens(corpus, threads):
    # the documents' scatter (the sampling) runs only the documents' ranges, which come first in
    # id order; in the spread order every thread's iterations hold documents' ranges too
    st = _start(corpus, 4, 0.1, 0.01, 0, 0)
    eng = _engine_of(st, threads, False)
    bounds = eng.chunks
    nch, D = bounds.shape[0] - 1, corpus.num_docs
    step = spread_step(nch)
    order = [(i * step) % nch for i in range(nch)]
    assert sorted(order) == list(range(nch))  # every range exactly once
    lengths = np.concatenate([corpus.doc_lengths(), np.zeros(st.graph.num_vertices - D, np.int64)])
    shares = []
    for t in range(threads):
        a, b = _static_share(nch, threads, t)
        shares.append(sum(int(lengths[bounds[c] : bounds[c + 1]].sum()) for c in order[a:b]))
    assert sum(shares) == corpus.num_tokens
    # each thread gets at least half its even share (in id order, one thread got none at all)
    assert min(shares) >= corpus.num_tokens / threads / 2


def test_the_split_does_not_change_the_chain(corpus):
    # one thread against two: the same assignments token for token
    # (each document draws from its own random stream)
    a = lda(corpus, topics=4, iters=4, seed=5, threads=1)
    b = lda(corpus, topics=4, iters=4, seed=5, threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert np.array_equal(a.assignments, b.assignments)
    np.testing.assert_array_equal(a.loglik, b.loglik)


@pytest.mark.parametrize("walk", [False, True])
def test_word_list_sampler_draws_the_collapsed_conditional(walk):
    """sample_token_words (the word's list) and sample_token_words_dense (a walk over K) against
    the conditional written out with numpy (as in test_lda.py's test of the other token
    samplers): p(k) ~ (n_dk^- + a) (n_wk^- + b) / (n_k + W b), the token's own old topic taken off
    the document's and the word's counts, the totals as given."""
    from gas.algorithms.lda_sampler import sample_token_words, sample_token_words_dense, seed_states

    a, b, W = 0.1, 0.05, 30
    # K = 11: a block of 8 and a tail of 3 for the walk
    nd0 = np.array([3, 0, 1, 0, 5, 2, 0, 1, 2, 0, 1], np.int32)
    nw0 = np.array(
        [1, 4, 2, 0, 0, 7, 1, 3, 0, 3, 1], np.int32
    )  # zeros: only the smoothing bucket reaches them
    nk = np.array([40, 55, 20, 31, 60, 70, 12, 25, 33, 18, 27])
    K, o = nd0.size, 5
    inv = (1.0 / (nk + W * b)).astype(np.float32)
    cinv = np.cumsum(inv, dtype=np.float64)
    ndm, nwm = nd0.astype(float), nw0.astype(float)
    ndm[o] -= 1
    nwm[o] -= 1
    want = (ndm + a) * (nwm + b) * inv
    want /= want.sum()
    wtop = np.flatnonzero(nw0).astype(np.int32)
    wcnt = nw0[wtop].astype(np.float32)
    nz0 = np.flatnonzero(nd0).astype(np.int32)
    nnz0 = nz0.size
    nz0 = np.concatenate([nz0, np.zeros(K - nz0.size, np.int32)])
    r0 = b * float(nd0 @ inv.astype(np.float64))
    n = 40_000
    states = seed_states(7, n, 3)
    got = np.zeros(K)
    for i in range(n):
        nd, nz = nd0.copy(), nz0.copy()
        if walk:
            scratch = np.zeros(K + K // 8)
            new, nnz, r, _ = sample_token_words_dense(nd, nz, nnz0, inv, scratch, r0, nw0, o, a, b, states[i])
        else:
            new, nnz, r, _ = sample_token_words(
                nd, nz, nnz0, inv, cinv, r0, wtop, wcnt, wtop.size, o, a, b, states[i]
            )
        got[new] += 1
        expect = nd0.copy()
        expect[o] -= 1
        expect[new] += 1
        assert nd.tolist() == expect.tolist()
        assert sorted(nz[:nnz].tolist()) == np.flatnonzero(expect).tolist()
        # the document bucket's sum follows the move
        assert r == pytest.approx(b * float(expect @ inv.astype(np.float64)), rel=1e-9)
    sd = np.sqrt(n * want * (1 - want))
    assert np.all(np.abs(got - n * want) < 4.5 * sd), (got / n, want)


@pytest.mark.slow  # compiles the LDA programs (about 30-60 s cold); .ci/run runs it
def test_word_list_program_matches_the_exact_sampler(monkeypatch):
    """LDAWordListProgram (forced at K = 4) against lda_reference, the exact sequential sampler:
    the log-likelihood after 60 sweeps within 1 % of the exact chain's (mean of its last 20)."""
    import importlib

    from gas.algorithms.lda import lda_reference

    lda_module = importlib.import_module("gas.algorithms.lda")
    c, _, _ = lda_corpus(num_docs=300, doc_length=60, num_words=150, topics=4, alpha=0.1, beta=0.05, seed=4)
    ref = lda_reference(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2).loglik[-20:].mean()
    monkeypatch.setattr(lda_module, "WORD_LISTS_MIN_K", 1)
    m, eng = lda(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2, return_engine=True)
    assert isinstance(eng.program, lda_module.LDAWordListProgram)
    assert abs(m.loglik[-1] - ref) / abs(ref) < 0.01
    # and the same chain on two threads
    m2 = lda(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2, threads=2)
    assert np.array_equal(m.assignments, m2.assignments)
