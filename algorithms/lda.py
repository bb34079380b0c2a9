"""Latent Dirichlet allocation by collapsed Gibbs sampling, as a vertex program on the engine.

The graph
---------
The corpus is a bipartite multigraph: document vertices ``0..D-1``, word vertices
``D..D+W-1`` and one edge ``word -> doc`` per token (repeated words give parallel edges). The
token's topic ``z`` is an edge field. Every vertex holds a topic-count vector ``nk`` (``n_dk``
for a document, ``n_wk`` for a word). One more vertex, the *hub* ``D+W``, holds the global
topic totals ``n_k``, with edges ``hub -> doc`` and ``word -> hub``. (The hub stands in for
a vector-valued aggregate: the engine's aggregates are scalars, and a program cannot read an
array parameter; see the notes at the end.)

One superstep = one sweep
-------------------------
1. **gather** (out-edges, an array gather into a ``(2, K)`` accumulator): a word adds the
   one-hot vector of each token edge's ``z`` into row 0 and copies the hub's totals into row 1;
   the hub adds up the documents' count vectors. Documents have no out-edges: their counts are
   kept exact by their own scatter.
2. **apply**: words and the hub store their rebuilt counts; a document lists its nonzero
   topics. A word precomputes ``cdf[k] = sum_{j<=k} (n_wj + beta) / (n_j + W beta)`` from its
   counts and the totals it gathered. The vertex's term of the log-likelihood is kept for the
   aggregate.
3. **scatter** (a document's in-edges): each document resamples its tokens one after the other
   (:func:`~gas.algorithms.lda_sampler.sample_token`), updating its own counts in place; the
   word side (``cdf``, ``n_wk``) is read-only, as the word's counts stood at the start of the
   sweep, with the token's own old topic removed exactly.
4. **aggregate**: ``ll`` sums the log-likelihood terms (every ``ll_every`` sweeps).

The approximation (AD-LDA-style bounded staleness, as GraphLab's and Yahoo!LDA's samplers):
within a sweep a document sees its own updates at once but the other documents' updates to the
word counts only at the next sweep, and the topic totals with one more sweep of delay (the hub
gathers document counts left by the previous sweep). The sequential sampler
:func:`~gas.algorithms.lda_sampler.gibbs_reference` is exact; tests and ``bench/lda.py`` compare
the two.

On several processes
--------------------
``lda(..., procs=N)`` runs the same program on ``N`` local processes
(:func:`gas.runtime.local.run_distributed`) over an edge-cut partition (``hash``, ``range``,
``ldg``, ``fennel``), which stores every edge with its target's owner. All edges point into a
document or into the hub, so each document lives whole on one process with all its tokens (never
mirrored: its counts, changed in place by its scatter, stay exact) and samples on that process.
The word-topic counts are owned by the process that masters the word: each process counts the
tokens of the word it holds, the master adds up those partial counts (the gather's sum) and
sends ``n_wk`` and ``cdf`` to the word's mirrors for the scatter. The topic totals are the hub's
gather summed over processes (every process adds up its own documents) and reach the words
through the one ``word -> hub`` edge, on the hub's process. The delays are those of one process
(word counts one sweep old, totals two), and every document draws from its own random stream, so
the run repeats the one-process chain token for token; the log-likelihood aggregate is summed
over masters only (each vertex once), in another order, so it agrees to rounding. A vertex-cut
would mirror documents, whose in-place updates on mirrors would be lost: it is refused.

Cost per token: a document that uses fewer than ``K / DENSE_RATIO`` topics pays the number of
its topics (the document bucket, random reads of the word's row) plus ``log K`` for the
smoothing bucket (binary search on the word's ``cdf``), so it does not grow with ``K`` once
documents concentrate on few topics (SparseLDA's decomposition, Yao, Mimno and McCallum 2009,
with the word side frozen for the sweep). A document that uses more (early sweeps, long
documents, small ``K``) walks all ``K`` topics instead
(:func:`~gas.algorithms.lda_sampler.sample_token_dense`): one vectorised pass over its counts
and the word's ``phi`` (float32, precomputed by the word's apply), sums of blocks of 8 and a
walk over the blocks, which costs less than the gathers there. Both draw from the same
conditional. ``O(K)`` work per vertex per sweep remains (gather, apply). Random numbers: one
SplitMix64 state per document, so results depend on the seed only, never on the thread count.
From ``K = WORD_LISTS_MIN_K`` (500) on one process, :func:`lda` runs
:class:`~gas.algorithms.lda_wordlists.LDAWordListProgram` instead: a token costs the topics its
word uses (a list the word's apply builds) rather than a walk over ``K``, same conditional.

Engine features this program works around (noted for the engine): an array-valued parameter
(the totals vector; here the hub vertex and a second gather row), per-vertex fields that exist
only on some vertices (every vertex carries ``nk``, ``nz`` and ``cdf``), and ``ctx`` in
``scatter`` (a counter-based random stream could then be keyed on the sweep).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gas.api import run
from gas.engine import SyncEngine
from gas.errors import GasError
from gas.graph import Graph
from gas.io.corpus import Corpus
from gas.options import RunOptions
from gas.program import IN, OUT, VertexProgram

# moved to their own modules; re-imported so every import path keeps working
from .lda_async import check_lda_engine, sample_async
from .lda_inputs import _BYTES_PER_VERTEX_TOPIC as _BYTES_PER_VERTEX_TOPIC
from .lda_inputs import _as_corpus, _check, _check_corpus, lda_memory
from .lda_inputs import _whole as _whole
from .lda_model import LDAModel, _model
from .lda_sampler import (
    counts_from_assignments,
    gibbs_reference,
    loglikelihood,
    sample_token,
    sample_token_dense,
    seed_states,
)
from .lda_wordlists import LIST_RATIO, WORD_LISTS_MIN_K, LDAWordListProgram

__all__ = [
    "LDAProgram",
    "LDAWordListProgram",
    "LDAModel",
    "lda",
    "lda_memory",
    "lda_reference",
    "heldout_perplexity",
]

# a document samples by walking all K topics (vectorised) when it uses at least K / DENSE_RATIO of
# them, else by its own topics plus the word's smoothing bucket (0: never walk all K). A topic
# walked costs several times less than a topic of the document (random reads of the word's row);
# figures: bench/RESULTS.md, "Figures formerly in docstrings"
DENSE_RATIO = 8


class LDAProgram(VertexProgram):
    """Collapsed Gibbs sampling for LDA on the doc-word-hub graph (see the module docstring)."""

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
        dense_ratio: int = DENSE_RATIO,
    ) -> None:
        self.k = int(topics)
        self.num_docs = int(num_docs)
        self.hub = int(num_docs + num_words)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.wbeta = float(num_words * beta)
        self.ll_every = int(ll_every)
        self.dense_ratio = int(dense_ratio)
        K = self.k
        self.vertex_data = {
            "nk": (np.int32, K),
            "nz": (np.int32, K),
            "cdf": (np.float64, K + K // 8),  # words: the cdf; documents: the sampler's scratch
            "phi": (np.float32, K),  # words: phi_wk (documents: unused)
            "nnz": np.int64,
            "rng": np.uint64,
            "ll": np.float64,
        }
        self.gather_type = (np.int32, (2, K))

    def gather(self, v, e, nbr, acc):
        if v.vid == self.hub:  # the hub adds up the documents' counts
            for k in range(self.k):
                acc[0, k] += nbr.nk[k]
        elif nbr.vid == self.hub:  # a word reads the totals
            for k in range(self.k):
                acc[1, k] = nbr.nk[k]
        else:  # a word counts its tokens' topics
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
            s = 0.0
            for k in range(K):
                c = total[0, k]
                v.nk[k] = c
                p = (c + self.beta) / (total[1, k] + self.wbeta)
                v.phi[k] = p
                s += p
                v.cdf[k] = s
                if score and c > 0:
                    ll += math.lgamma(c + self.beta) - math.lgamma(self.beta)
        else:
            for k in range(K):
                c = total[0, k]
                v.nk[k] = c
                if score:
                    ll += math.lgamma(self.wbeta) - math.lgamma(c + self.wbeta)
        v.ll = ll

    def scatter(self, v, e, nbr):
        # a document samples the tokens its words send (written as a range test, not "not the
        # hub", so a graph of other shape, e.g. the tiny one the runtime warms kernels on,
        # never reaches the sampler with counts that are not a corpus's)
        if v.vid < self.num_docs and self.num_docs <= nbr.vid < self.hub:
            if v.nnz * self.dense_ratio >= self.k:  # the document uses many topics: walk all K
                new, nnz, state = sample_token_dense(
                    v.nk, v.nz, v.nnz, v.cdf, nbr.phi, nbr.nk, e.z, self.alpha, self.beta, v.rng
                )
            else:  # few: its topics plus the word's smoothing bucket
                new, nnz, state = sample_token(
                    v.nk, v.nz, v.nnz, v.cdf, nbr.cdf, nbr.nk, e.z, self.alpha, self.beta, v.rng
                )
            e.z = new
            v.nnz = nnz
            v.rng = state
        return False

    def aggregate(self, v):
        return v.ll


@dataclass
class _Start:
    """The graph, the program and the random start (topics uniform, seeded) of :func:`lda`."""

    graph: Graph
    program: LDAProgram | LDAWordListProgram
    eid: np.ndarray  # edge id of each token (tokens in the order of Corpus.tokens)
    doc: np.ndarray
    word: np.ndarray
    num_tokens: int
    counts: tuple
    z: np.ndarray  # starting topic of every edge (by edge id; 0 on the hub's edges)
    nk: np.ndarray  # starting counts of every vertex (documents, words, hub)
    rng: np.ndarray  # starting random state of every vertex (documents only; 0 elsewhere)


def _start(
    c: Corpus, K: int, alpha: float, beta: float, seed: int, ll_every: int, word_lists: bool = False
) -> _Start:
    """The random start; the program samples by word lists at ``K >= WORD_LISTS_MIN_K`` when
    ``word_lists`` (one process, synchronous engine)."""
    D, W = c.num_docs, c.num_words
    doc, word = c.tokens()
    m = doc.shape[0]
    hub = D + W
    src = np.concatenate([word + D, np.full(D, hub), np.arange(D, D + W)])
    dst = np.concatenate([doc, np.arange(D), np.full(W, hub)])
    g = Graph.from_edges(
        src, dst, num_vertices=D + W + 1, dedupe=False, edge_data={"token": np.arange(src.size)}
    )
    z0 = np.random.default_rng(seed).integers(0, K, m).astype(np.int64)
    token_of_edge = np.asarray(g.edata["token"], np.int64)
    is_token = token_of_edge < m
    eid = np.empty(m, np.int64)
    eid[token_of_edge[is_token]] = np.flatnonzero(is_token)
    z = np.zeros(g.num_edges, np.int32)
    z[eid] = z0
    ndk, nwk, nk = counts_from_assignments(doc, word, z0, D, W, K)
    nk_all = np.zeros((D + W + 1, K), np.int32)
    nk_all[:D] = ndk
    nk_all[D:hub] = nwk
    nk_all[hub] = nk
    rng = np.zeros(D + W + 1, np.uint64)
    rng[:D] = seed_states(seed, D, 1)
    prog = (
        LDAWordListProgram(K, D, W, alpha, beta, ll_every, list_ratio=LIST_RATIO)
        if word_lists and K >= WORD_LISTS_MIN_K
        else LDAProgram(K, D, W, alpha, beta, ll_every, dense_ratio=DENSE_RATIO)
    )
    return _Start(g, prog, eid, doc, word, m, (ndk, nwk, nk), z, nk_all, rng)


@dataclass
class _Setup:
    eng: SyncEngine
    eid: np.ndarray  # edge id of each token (tokens in the order of Corpus.tokens)
    doc: np.ndarray
    word: np.ndarray
    num_tokens: int
    counts: tuple


def _engine_of(st: _Start, threads: int | None, debug: bool) -> SyncEngine:
    """A one-process engine for ``st``'s graph and program, its columns holding the random start."""
    eng = SyncEngine(st.graph, st.program, threads=threads, debug=debug)
    eng.edge_columns["z"][:] = st.z
    eng.columns["nk"][:] = st.nk
    eng.columns["rng"][:] = st.rng
    p = st.program
    if isinstance(p, LDAWordListProgram):  # the documents' first copy of the totals
        inv = (1.0 / (st.nk[p.hub] + p.wbeta)).astype(np.float32)
        eng.columns["phi"][: p.num_docs] = inv
        eng.columns["cdf"][: p.num_docs, : p.k] = np.cumsum(inv, dtype=np.float64)
        eng.columns["r"][: p.num_docs] = p.beta * (st.nk[: p.num_docs] @ inv.astype(np.float64))
    return eng


def _setup(c: Corpus, K: int, alpha: float, beta: float, seed: int, ll_every: int, threads, debug) -> _Setup:
    """The engine of :func:`lda` on one process, its columns holding the random start."""
    st = _start(c, K, alpha, beta, seed, ll_every)
    return _Setup(_engine_of(st, threads, debug), st.eid, st.doc, st.word, st.num_tokens, st.counts)


class _Recorder:
    """The progress callback of :func:`lda`: records the log-likelihood and seconds of each sweep
    and passes a summary on to the user's ``progress``."""

    def __init__(self, st: _Start, alpha: float, beta: float, ll_every: int, progress: Any) -> None:
        self.m, self.ll_every, self.progress = st.num_tokens, ll_every, progress
        self.ll = [loglikelihood(*st.counts, alpha, beta)]
        self.ll_iters = [0]
        self.seconds: list[float] = []

    def __call__(self, stat: dict[str, Any]) -> None:
        t, m = stat["iteration"], self.m
        info = {"iteration": t, "seconds": stat["seconds"], "tokens_per_s": m / max(stat["seconds"], 1e-12)}
        if t > 0 and self.ll_every > 0 and t % self.ll_every == 0:
            self.ll.append(stat["ll"])
            self.ll_iters.append(t)
            info["loglik_per_token"] = stat["ll"] / max(m, 1)
        for key in ("exchange_seconds", "bytes_sent"):  # on processes: rank 0's share of the sweep
            if key in stat:
                info[key] = stat[key]
        self.seconds.append(stat["seconds"])
        if self.progress is not None:
            self.progress(info)


def _check_procs(procs: int, partition: str, return_engine: bool, debug: bool) -> None:
    if int(procs) < 1:
        raise GasError(f"Expected procs >= 1 (got {procs})")
    if procs > 1:
        from gas.partition import require_edge_cut

        require_edge_cut(partition, "LDA", _WHY_EDGE_CUT)
        if return_engine or debug:
            raise GasError("return_engine and debug work on one process only (procs=1)")


def _sample(
    st: _Start, iters: int, step: _Recorder, threads, debug, procs: int, partition: str, options
) -> tuple[np.ndarray, SyncEngine | None]:
    """Run the sweeps (several processes through :func:`gas.run`, else one engine); the final
    topic of every token and the one-process engine (None on several)."""
    if procs > 1:
        from gas.runtime.local import initial_state

        start = {"vertex": {"nk": st.nk, "rng": st.rng}, "edges": {"z": st.z}}
        opts = replace(
            options or RunOptions(), restore=initial_state(st.graph, st.program, start), edges=True
        )
        res = run(
            st.graph,
            st.program,
            procs=int(procs),
            partition=partition,
            max_iter=int(iters),
            progress=step,
            options=opts,
        )
        return res.edge_data["z"][st.eid].astype(np.int64), None
    eng = _engine_of(st, threads, debug)
    eng.run(iters, progress=step)
    return eng.edge_columns["z"][st.eid].astype(np.int64), eng


def lda(
    corpus: Corpus | Any,
    topics: int = 50,
    alpha: float = 0.1,
    beta: float = 0.01,
    iters: int = 200,
    seed: int = 0,
    *,
    ll_every: int = 10,
    threads: int | None = None,
    debug: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    return_engine: bool = False,
    procs: int = 1,
    partition: str = "hash",
    max_tokens: int | None = None,
    options: RunOptions | None = None,
    engine: str = "sync",
    scheduler: str = "sweep",
    consistency: str | None = None,
) -> LDAModel | tuple[LDAModel, SyncEngine]:
    """Fit LDA by collapsed Gibbs sampling on the engine (one superstep per sweep).

    Parameters
    ----------
    corpus : Corpus or array_like
        A :class:`~gas.io.corpus.Corpus`, or a documents x words matrix of counts.
    topics, alpha, beta : default 50, 0.1, 0.01
        Topics; symmetric Dirichlet priors of the document-topic and topic-word distributions.
    iters, seed : int, default 200, 0
        Sweeps over all tokens; same seed, same result (for any thread or process count).
    ll_every : int, default 10
        Record the log-likelihood every this many sweeps (0: only at the start and the end);
        it costs about one ``lgamma`` per nonzero count.
    threads, debug, progress, return_engine
        Numba threads; plain Python (slow; one process); called after each sweep with ``iteration``,
        ``seconds``, ``tokens_per_s``, the recorded ``loglik_per_token`` (of the state before the
        sweep), on processes rank 0's bytes sent; also return the engine (one process only).
    engine, scheduler, consistency : default "sync", "sweep", None
        ``"async"``: one round of :class:`gas.AsyncEngine` per sweep, ``"edge"`` (default) or
        ``"full"`` consistency (:mod:`gas.algorithms.lda_async`).
    procs, partition, options
        As in :func:`gas.run` (module docstring, "On several processes"); ``partition`` an
        edge-cut (``hash``, ``range``, ``ldg``, ``fennel``): a vertex-cut is refused.
    max_tokens : int, optional
        Most tokens accepted; by default the run's memory (:func:`lda_memory`) must fit instead.

    Returns
    -------
    LDAModel
        InputError for parameters out of range, no tokens, or too many.

    Examples
    --------
    >>> from gas.datasets import lda_corpus
    >>> c, phi, theta = lda_corpus(num_docs=50, doc_length=40, num_words=60, topics=4, seed=0)
    >>> m = lda(c, topics=4, iters=30, seed=1)
    >>> m.doc_topic.shape, m.topic_word.shape
    ((50, 4), (4, 60))
    >>> bool(np.allclose(m.topic_word.sum(axis=1), 1.0)) and bool(m.loglik[-1] > m.loglik[0])
    True
    """
    _check(topics, alpha, beta, iters)
    _check_procs(procs, partition, return_engine, debug)
    check_lda_engine(engine, scheduler, consistency, int(procs))
    c = _as_corpus(corpus)
    _check_corpus(c, int(topics), max_tokens)
    K = int(topics)
    st = _start(c, K, alpha, beta, seed, ll_every, procs == 1 and engine == "sync")
    rec = _Recorder(st, alpha, beta, ll_every, progress)
    if engine == "async":
        how = dict(scheduler=scheduler, consistency=consistency, threads=threads, debug=debug)
        z, eng = sample_async(st, iters, rec, procs=procs, partition=partition, options=options, **how)
    else:
        z, eng = _sample(st, iters, rec, threads, debug, procs, partition, options)
    model = _final(
        _model(c, st.doc, st.word, z, K, alpha, beta, rec.ll, rec.ll_iters, rec.seconds), st, z, iters
    )
    return (model, eng) if return_engine else model  # type: ignore[return-value]


def _final(model: LDAModel, st: _Start, z: np.ndarray, iters: int) -> LDAModel:
    """``model`` with the log-likelihood of the final assignments ``z`` recorded (after a run)."""
    if iters > 0:
        (D, K), W = model.doc_topic.shape, model.topic_word.shape[1]
        final = counts_from_assignments(st.doc, st.word, z, D, W, K)
        model.loglik = np.append(model.loglik, loglikelihood(*final, model.alpha, model.beta))
        model.loglik_iters = np.append(model.loglik_iters, iters)
    return model


_WHY_EDGE_CUT = (
    "a document's scatter updates its counts in place, which is exact only where the document "
    "has no mirrors (an edge-cut keeps every token edge with its document)"
)


def lda_reference(
    corpus: Corpus | Any,
    topics: int = 50,
    alpha: float = 0.1,
    beta: float = 0.01,
    iters: int = 200,
    seed: int = 0,
) -> LDAModel:
    """Exact sequential collapsed Gibbs sampling (O(K) per token, one thread): the reference.

    Same start as :func:`lda` for the same seed (the same random initial topics).

    Examples
    --------
    >>> from gas.datasets import lda_corpus
    >>> c, _, _ = lda_corpus(num_docs=20, doc_length=30, num_words=40, topics=2, seed=0)
    >>> lda_reference(c, topics=2, iters=5).loglik.shape
    (6,)
    """
    _check(topics, alpha, beta, iters)
    c = _as_corpus(corpus)
    _check_corpus(c, int(topics), None)
    K, D, W = int(topics), c.num_docs, c.num_words
    doc, word = c.tokens()
    rng = np.random.default_rng(seed)
    z = rng.integers(0, K, doc.shape[0]).astype(np.int64)
    ndk, nwk, nk = counts_from_assignments(doc, word, z, D, W, K)
    ll0 = loglikelihood(ndk, nwk, nk, alpha, beta)
    t0 = time.perf_counter()
    ll, _ = gibbs_reference(doc, word, z, ndk, nwk, nk, alpha, beta, iters, seed_states(seed, 1, 2)[0])
    secs = np.full(iters, (time.perf_counter() - t0) / max(iters, 1))
    return _model(c, doc, word, z, K, alpha, beta, np.concatenate([[ll0], ll]), np.arange(iters + 1), secs)


def heldout_perplexity(
    model: LDAModel, corpus: Corpus | Any, *, iters: int = 50, burn: int = 10, seed: int = 0
) -> float:
    """Perplexity of held-out documents by document completion.

    Each document's tokens are shuffled (seeded); the first half infers the document's topic
    mixture with the topics fixed (:meth:`LDAModel.transform`) and the second half is scored:
    ``exp(-sum log sum_k theta_dk phi_kw / tokens scored)``. Lower is better; a model that knows
    nothing (uniform words) scores the vocabulary size.

    Examples
    --------
    >>> from gas.datasets import lda_corpus
    >>> c, _, _ = lda_corpus(num_docs=60, doc_length=40, num_words=50, topics=4, seed=0)
    >>> m = lda(c.subset(np.arange(50)), topics=4, iters=30)
    >>> bool(heldout_perplexity(m, c.subset(np.arange(50, 60))) < 50)
    True
    """
    c = _as_corpus(corpus, model.vocab)
    doc, word = c.tokens()
    rng = np.random.default_rng(seed)
    key = rng.random(doc.shape[0])
    order = np.lexsort((key, doc))  # shuffle within each document
    doc, word = doc[order], word[order]
    lengths = c.doc_lengths()
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    pos = np.arange(doc.shape[0]) - starts[doc]
    half = pos < lengths[doc] // 2
    observed = Corpus.from_tokens(doc[half], word[half], model.vocab, c.doc_names)
    theta = model.transform(observed, iters=iters, burn=burn, seed=seed)
    sd, sw = doc[~half], word[~half]
    if sd.size == 0:
        raise GasError("Expected held-out documents with at least 2 tokens each to score")
    p = np.einsum("ik,ki->i", theta[sd], model.topic_word[:, sw])
    return float(np.exp(-np.log(p).sum() / sd.size))
