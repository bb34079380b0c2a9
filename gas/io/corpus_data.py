"""The :class:`Corpus` type: a sparse document-term count matrix with its vocabulary.

Shared by the readers in :mod:`gas.io.corpus` and :mod:`gas.io.corpus_text` (which
:mod:`gas.io.corpus` re-exports as its own), so neither reader module imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gas.errors import InputError

__all__ = ["Corpus"]


@dataclass
class Corpus:
    """A bag-of-words corpus: sparse counts, the vocabulary and the document names.

    Attributes
    ----------
    doc, word, count : ndarray of int64
        Triplets of the document-term matrix, grouped by document in input order; a pair
        may repeat (its counts add up).
    vocab : list of str
        Word ``j`` is ``vocab[j]``.
    doc_names : list of str
        One name per document (line number, file name or UCI id).

    Examples
    --------
    >>> c = Corpus.from_documents([["apple", "pie", "apple"], ["pie", "crust"]])
    >>> c.num_docs, c.num_words, c.num_tokens, c.vocab
    (2, 3, 5, ['apple', 'crust', 'pie'])
    >>> c.dense().tolist()
    [[2, 0, 1], [0, 1, 1]]
    >>> c.tokens()
    (array([0, 0, 0, 1, 1]), array([0, 0, 2, 1, 2]))
    """

    doc: np.ndarray
    word: np.ndarray
    count: np.ndarray
    vocab: list[str]
    doc_names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.doc = np.ascontiguousarray(self.doc, dtype=np.int64)
        self.word = np.ascontiguousarray(self.word, dtype=np.int64)
        self.count = np.ascontiguousarray(self.count, dtype=np.int64)
        if not (self.doc.shape == self.word.shape == self.count.shape) or self.doc.ndim != 1:
            raise InputError("Expected 'doc', 'word' and 'count' to be 1-d arrays of equal length")
        if self.count.size and self.count.min() < 0:
            raise InputError("Expected non-negative counts", text=str(int(self.count.min())))
        if self.word.size and (self.word.min() < 0 or self.word.max() >= len(self.vocab)):
            raise InputError(
                f"Expected word ids in 0..{len(self.vocab) - 1}",
                text=str(int(self.word.min() if self.word.min() < 0 else self.word.max())),
            )
        if self.doc.size and self.doc.min() < 0:
            raise InputError("Expected non-negative document ids", text=str(int(self.doc.min())))
        if self.doc.size and np.any(np.diff(self.doc) < 0):
            order = np.argsort(self.doc, kind="stable")
            self.doc, self.word, self.count = self.doc[order], self.word[order], self.count[order]
        need = int(self.doc.max()) + 1 if self.doc.size else 0
        if not self.doc_names:
            self.doc_names = [str(i) for i in range(need)]
        if len(self.doc_names) < need:
            raise InputError(f"Expected {need} document names (got {len(self.doc_names)})")

    @classmethod
    def from_documents(cls, docs: list[list[str]], names: list[str] | None = None) -> Corpus:
        """A corpus from tokenised documents (vocabulary sorted alphabetically)."""
        vocab = sorted({w for d in docs for w in d})
        index = {w: i for i, w in enumerate(vocab)}
        rows, cols = [], []
        for i, d in enumerate(docs):
            rows.extend([i] * len(d))
            cols.extend(index[w] for w in d)
        return cls._from_token_pairs(
            np.asarray(rows, np.int64),
            np.asarray(cols, np.int64),
            vocab,
            names or [str(i) for i in range(len(docs))],
        )

    @classmethod
    def from_tokens(
        cls, doc: np.ndarray, word: np.ndarray, vocab: list[str] | int, doc_names: list[str] | None = None
    ) -> Corpus:
        """A corpus from one ``(doc, word)`` pair per token (``vocab``: words or their number)."""
        if isinstance(vocab, (int, np.integer)):
            vocab = [str(i) for i in range(int(vocab))]
        doc = np.asarray(doc, np.int64)
        n = int(doc.max()) + 1 if doc.size else 0
        return cls._from_token_pairs(
            doc, np.asarray(word, np.int64), list(vocab), doc_names or [str(i) for i in range(n)]
        )

    @classmethod
    def _from_token_pairs(
        cls, doc: np.ndarray, word: np.ndarray, vocab: list[str], names: list[str]
    ) -> Corpus:
        W = max(len(vocab), 1)
        key = doc * W + word
        keys, counts = np.unique(key, return_counts=True)
        return cls(keys // W, keys % W, counts, vocab, names)

    @property
    def num_docs(self) -> int:
        """Number of documents (empty ones included)."""
        return len(self.doc_names)

    @property
    def num_words(self) -> int:
        """Vocabulary size."""
        return len(self.vocab)

    @property
    def num_tokens(self) -> int:
        """Total word count."""
        return int(self.count.sum())

    def doc_lengths(self) -> np.ndarray:
        """Tokens per document."""
        return np.bincount(self.doc, weights=self.count, minlength=self.num_docs).astype(np.int64)

    def tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """One ``(doc, word)`` pair per token, grouped by document in input order."""
        return np.repeat(self.doc, self.count), np.repeat(self.word, self.count)

    def dense(self) -> np.ndarray:
        """The ``num_docs x num_words`` count matrix (for small corpora)."""
        out = np.zeros((self.num_docs, self.num_words), np.int64)
        np.add.at(out, (self.doc, self.word), self.count)
        return out

    def subset(self, docs: np.ndarray) -> Corpus:
        """The corpus of the given documents (renumbered in the given order), same vocabulary."""
        docs = np.asarray(docs, np.int64)
        pos = np.full(self.num_docs, -1, np.int64)
        pos[docs] = np.arange(docs.size)
        keep = pos[self.doc] >= 0
        return Corpus(
            pos[self.doc[keep]],
            self.word[keep],
            self.count[keep],
            self.vocab,
            [self.doc_names[i] for i in docs.tolist()],
        )

    def __repr__(self) -> str:
        return f"Corpus({self.num_docs:,d} documents, {self.num_words:,d} words, {self.num_tokens:,d} tokens)"
