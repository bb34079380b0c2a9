"""Synthetic text corpora drawn from the LDA generative process (for tests and benchmarks)."""

from __future__ import annotations

import numpy as np

from gas.io.corpus import Corpus

__all__ = ["lda_corpus"]


def lda_corpus(
    num_docs: int = 20_000,
    doc_length: int = 100,
    num_words: int = 10_000,
    topics: int = 50,
    alpha: float = 0.1,
    beta: float = 0.01,
    seed: int = 0,
) -> tuple[Corpus, np.ndarray, np.ndarray]:
    """A corpus drawn from LDA's generative model, with the topics that generated it.

    Each topic ``phi_k ~ Dirichlet(beta)`` over ``num_words`` words; each document
    ``theta_d ~ Dirichlet(alpha)`` over ``topics`` topics and ``doc_length`` tokens, each with a
    topic ``z ~ theta_d`` and a word ``w ~ phi_z``.

    Parameters
    ----------
    num_docs, doc_length, num_words, topics : int
        Sizes (every document has ``doc_length`` tokens).
    alpha, beta : float
        Symmetric Dirichlet parameters of the document-topic and topic-word distributions.
    seed : int
        Seed of the numpy generator: the same seed gives the same corpus.

    Returns
    -------
    corpus : Corpus
        Words are named ``w0``, ``w1``, ...
    topic_word : ndarray, shape (topics, num_words)
        The generating topics (rows sum to 1).
    doc_topic : ndarray, shape (num_docs, topics)
        The generating topic mixtures (rows sum to 1).

    Examples
    --------
    >>> c, phi, theta = lda_corpus(num_docs=10, doc_length=20, num_words=30, topics=3, seed=1)
    >>> c.num_docs, c.num_tokens, phi.shape, theta.shape
    (10, 200, (3, 30), (10, 3))
    >>> bool(np.allclose(phi.sum(axis=1), 1.0))
    True
    """
    if min(num_docs, num_words, topics) < 1 or doc_length < 0:
        raise ValueError("Expected num_docs, num_words, topics >= 1 and doc_length >= 0")
    if not (0 < alpha < np.inf and 0 < beta < np.inf):  # also refuses NaN
        raise ValueError(f"Expected finite alpha > 0 and beta > 0 (got {alpha}, {beta})")
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(num_words, beta), size=topics)
    theta = rng.dirichlet(np.full(topics, alpha), size=num_docs)
    ndk = rng.multinomial(doc_length, theta)  # tokens of each topic in each document
    # draw every topic's tokens at once, then deal them out to the documents in order
    doc_of = np.repeat(np.repeat(np.arange(num_docs), topics), ndk.ravel())
    topic_of = np.repeat(np.tile(np.arange(topics), num_docs), ndk.ravel())
    order = np.argsort(topic_of, kind="stable")
    words = np.empty(topic_of.size, np.int64)
    per_topic = np.bincount(topic_of, minlength=topics)
    start = 0
    for k in range(topics):
        n = int(per_topic[k])
        cdf = np.cumsum(phi[k])
        cdf /= cdf[-1]
        draws = np.searchsorted(cdf, rng.random(n), side="right")
        words[order[start : start + n]] = np.minimum(draws, num_words - 1)
        start += n
    corpus = Corpus.from_tokens(
        doc_of, words, [f"w{i}" for i in range(num_words)], [str(i) for i in range(num_docs)]
    )
    return corpus, phi, theta
