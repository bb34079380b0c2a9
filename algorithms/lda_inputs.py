"""Input checks of the LDA samplers in :mod:`gas.algorithms.lda`.

Turns what the caller passed into a :class:`~gas.io.corpus.Corpus` (a documents x words count
matrix is accepted too), refuses parameters the sampler cannot use (topics, priors, sweeps) with
an :class:`~gas.errors.InputError`, and estimates the memory a run needs
(:func:`lda_memory`) so that a corpus too large for the machine, or beyond ``max_tokens``, is
refused before anything is allocated for it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gas.errors import GasError, InputError
from gas.io.corpus import Corpus
from gas.io.limits import BYTES_PER_TOKEN, available_memory

__all__ = ["lda_memory"]


def _as_corpus(corpus: Corpus | Any, vocab: list[str] | None = None) -> Corpus:
    if isinstance(corpus, Corpus):
        if vocab is not None and corpus.num_words != len(vocab):
            raise GasError(f"Expected a corpus over the model's {len(vocab)} words (got {corpus.num_words})")
        return corpus
    m = np.asarray(corpus)
    if m.ndim != 2 or m.dtype.kind not in "iu" and not (m.dtype.kind == "f" and np.all(m == np.round(m))):
        raise GasError("Expected a Corpus or a 2-d array of non-negative integer counts (documents x words)")
    if m.size and m.min() < 0:
        raise GasError("Expected non-negative counts")
    d, w = np.nonzero(m)
    return Corpus(
        d,
        w,
        m[d, w].astype(np.int64),
        vocab or [str(j) for j in range(m.shape[1])],
        [str(i) for i in range(m.shape[0])],
    )


def _whole(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _check(topics: int, alpha: float, beta: float, iters: int) -> None:
    """Refuse parameters the sampler cannot use (InputError, a GasError and a ValueError)."""
    if not _whole(topics) or topics < 1:
        raise InputError(f"Expected topics to be a whole number >= 1 (got {topics!r})")
    for name, x in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(x, (int, float, np.number)) and math.isfinite(x) and x > 0):
            raise InputError(
                f"Expected {name} > 0 and finite (got {x!r})",
                hint="a symmetric Dirichlet prior: alpha = 50/topics and beta = 0.01 are common",
            )
    if not _whole(iters) or iters < 0:
        raise InputError(f"Expected iters to be a whole number >= 0 (got {iters!r})")


#: Bytes per vertex per topic of :func:`lda` (vertex fields, the gather accumulator, the dense
#: count matrices of the start and the result, the output matrices), for the memory check.
_BYTES_PER_VERTEX_TOPIC = 56


def lda_memory(num_docs: int, num_words: int, num_tokens: int, topics: int) -> int:
    """Estimated peak bytes of :func:`lda` on one process (what its memory check compares).

    ``(num_docs + num_words + 1) * (56 * topics + 64) + 128 * num_tokens``: per vertex the topic
    vectors of the program, the gather accumulator and the dense count matrices; per token the
    graph's edges and the sampler's arrays (:data:`gas.io.limits.BYTES_PER_TOKEN`; figures:
    bench/RESULTS.md, "Figures formerly in docstrings").

    Examples
    --------
    >>> round(lda_memory(2_246, 10_473, 435_839, 100) / 2**20)   # the AP corpus, 100 topics: MiB
    122
    """
    vertices = int(num_docs) + int(num_words) + 1
    return vertices * (_BYTES_PER_VERTEX_TOPIC * int(topics) + 64) + BYTES_PER_TOKEN * int(num_tokens)


def _check_corpus(c: Corpus, topics: int, max_tokens: int | None) -> None:
    """Refuse a corpus with no tokens, more than ``max_tokens``, or (with ``max_tokens=None``) one
    whose run would need more than the available memory, before allocating for it."""
    m = c.num_tokens
    if m == 0:
        raise InputError(
            f"the corpus holds no tokens ({c.num_docs:,d} documents, {c.num_words:,d} words)",
            hint="a topic model needs at least one word in one document",
        )
    if max_tokens is not None:
        if not _whole(max_tokens) or max_tokens < 1:
            raise InputError(f"Expected max_tokens to be a whole number >= 1 (got {max_tokens!r})")
        if m > max_tokens:
            raise InputError(
                f"the corpus holds {m:,d} tokens, more than max_tokens={max_tokens:,d}",
                hint="raise max_tokens (CLI: --max-tokens) if the machine has the memory",
            )
        return
    need, avail = lda_memory(c.num_docs, c.num_words, m, topics), available_memory()
    if need > avail:
        raise InputError(
            f"LDA with {topics:,d} topics on {c.num_docs:,d} documents, {c.num_words:,d} words and "
            f"{m:,d} tokens would need about {need / 2**30:,.1f} GiB; {avail / 2**30:,.1f} GiB are available",
            hint="use fewer topics or a smaller corpus; or, if the estimate is wrong for this machine, "
            "pass max_tokens (CLI: --max-tokens) to skip this check",
        )
