"""The fitted topic model of :func:`gas.algorithms.lda.lda` and :func:`~gas.algorithms.lda.lda_reference`.

:class:`LDAModel` holds the document-topic and topic-word distributions, the log-likelihood
trace and the token assignments of a run; it lists a topic's top words, infers the topic
mixtures of new documents with the topics held fixed (fold-in Gibbs) and saves itself to a
folder (atomically). :func:`_model` builds it from the final topic assignments of the tokens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas.errors import GasError
from gas.io.atomic import atomic_open
from gas.io.corpus import Corpus

from .lda_inputs import _as_corpus
from .lda_sampler import counts_from_assignments, fold_in, seed_states

__all__ = ["LDAModel"]


@dataclass
class LDAModel:
    """A fitted topic model.

    Attributes
    ----------
    doc_topic : ndarray, shape (num_docs, topics)
        ``(n_dk + alpha) / (n_d + K alpha)``; rows sum to 1, documents in input order.
    topic_word : ndarray, shape (topics, num_words)
        ``(n_wk + beta) / (n_k + W beta)``; rows sum to 1, words in vocabulary order.
    loglik : ndarray
        Joint log-likelihood ``log p(w, z)`` after ``loglik_iters[i]`` sweeps (0: the random
        start); the last entry is after the final sweep.
    loglik_iters : ndarray of int
    vocab : list of str
    alpha, beta : float
    num_tokens : int
    assignments : ndarray of int32
        The topic of every token, in the order of :meth:`Corpus.tokens`.
    seconds : ndarray
        Wall time of each sweep.
    """

    doc_topic: np.ndarray
    topic_word: np.ndarray
    loglik: np.ndarray
    loglik_iters: np.ndarray
    vocab: list[str]
    alpha: float
    beta: float
    num_tokens: int
    assignments: np.ndarray
    seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def topics(self) -> int:
        return self.topic_word.shape[0]

    def loglik_per_token(self) -> np.ndarray:
        """``loglik / num_tokens``."""
        return self.loglik / max(self.num_tokens, 1)

    def top_words(self, n: int = 10) -> list[list[str]]:
        """The ``n`` most probable words of each topic (ties by vocabulary order)."""
        order = np.argsort(-self.topic_word, axis=1, kind="stable")[:, :n]
        return [[self.vocab[j] for j in row] for row in order.tolist()]

    def transform(self, corpus: Corpus | Any, iters: int = 50, burn: int = 10, seed: int = 0) -> np.ndarray:
        """Topic mixtures of new documents (same vocabulary), topics held fixed (fold-in Gibbs).

        Returns
        -------
        ndarray, shape (num_docs, topics)
            Rows sum to 1.
        """
        c = _as_corpus(corpus, self.vocab)
        doc, word = c.tokens()
        indptr = np.concatenate([[0], np.cumsum(c.doc_lengths())]).astype(np.int64)
        return fold_in(
            indptr, word, self.topic_word, self.alpha, iters, burn, seed_states(seed, c.num_docs, 7)
        )

    def save(self, folder: str | os.PathLike) -> None:
        """Write ``doc_topic.npy``, ``topic_word.npy`` and ``vocab.txt`` into ``folder`` (atomically)."""
        try:
            os.makedirs(folder, exist_ok=True)  # 0o777 less the umask, as mkdir -p
        except OSError as exc:
            raise GasError(f"{folder}: cannot create the model folder ({exc.strerror or exc})") from None
        for name, arr in (("doc_topic.npy", self.doc_topic), ("topic_word.npy", self.topic_word)):
            with atomic_open(os.path.join(folder, name), "wb") as f:
                np.save(f, arr)
        with atomic_open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(w + "\n" for w in self.vocab))


def _model(c: Corpus, doc, word, z, K, alpha, beta, ll, ll_iters, seconds) -> LDAModel:
    ndk, nwk, nk = counts_from_assignments(doc, word, z.astype(np.int64), c.num_docs, c.num_words, K)
    nd = ndk.sum(axis=1, keepdims=True)
    doc_topic = (ndk + alpha) / (nd + K * alpha)
    topic_word = ((nwk + beta) / (nk + c.num_words * beta)).T.copy()
    return LDAModel(
        doc_topic,
        topic_word,
        np.asarray(ll, np.float64),
        np.asarray(ll_iters, np.int64),
        list(c.vocab),
        float(alpha),
        float(beta),
        c.num_tokens,
        z.astype(np.int32),
        np.asarray(seconds, np.float64),
    )
