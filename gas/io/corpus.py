"""Text corpora for topic models: UCI bag-of-words, Blei's lda-c format and raw text.

A :class:`Corpus` is a sparse document-term count matrix kept as triplets
``(doc[i], word[i], count[i])`` plus the vocabulary and the document names, with documents in
input order. Every token is one ``(doc, word)`` pair; :meth:`Corpus.tokens` expands the
triplets into one entry per token, the form the samplers use (a doc-word multigraph).

Formats
-------
``uci``
    ``docword.NAME.txt[.gz]``: three header lines ``D``, ``W``, ``NNZ``, then ``NNZ`` lines
    ``docID wordID count`` (1-based ids), and ``vocab.NAME.txt`` (word ``i`` on line ``i``).
    Without a vocabulary file the word ids (as text) serve as the words.
``ldac``
    One document per line, ``N id:count id:count ...`` (``N`` distinct terms, 0-based ids into
    ``vocab.txt``, one word per line).
``text``
    A folder or a ``.tar``/``.tar.gz`` archive of plain-text documents (one file each, in
    sorted path order), lower-cased and split into runs of letters; stop words and words of
    one letter dropped; then words outside the document-frequency window removed.

Limits
------
A header or a count can claim far more than the file holds (a 21-byte UCI file with one count
of 2,000,000,000 asks for 2e9 tokens). Every reader takes ``max_tokens``: the most tokens (the
sum of the counts) it accepts, and the most documents and words a header or a word id may
declare. ``None`` (default) is :func:`default_max_tokens`, what the available memory holds at
:data:`BYTES_PER_TOKEN` bytes a token (``gas lda --max-tokens`` overrides it). A corpus beyond the
limit, or one with no tokens at all, is an :class:`~gas.errors.InputError` naming the file, the
line and the value, raised before anything is allocated for it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gas.errors import InputError
from gas.io.corpus_text import STOP_WORDS, read_text
from gas.io.edgelist import read_bytes
from gas.io.limits import (
    BYTES_PER_TOKEN,
    _check_tokens,
    _over_limit,
    _token_limit,
    available_memory,
    default_max_tokens,
)

__all__ = [
    "BYTES_PER_TOKEN",
    "Corpus",
    "STOP_WORDS",
    "available_memory",
    "default_max_tokens",
    "detect_format",
    "load_corpus",
    "read_ldac",
    "read_text",
    "read_uci",
]


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


def _int_tokens(buf: bytes, path: str, first_line: int) -> np.ndarray:
    """All whitespace-separated integers of ``buf``; on a bad token, an InputError at its line."""
    try:
        return np.array(buf.split(), dtype=np.int64)
    except (ValueError, OverflowError):
        for i, line in enumerate(buf.splitlines()):
            for tok in line.split():
                try:
                    int(tok)
                except ValueError:
                    raise InputError(
                        "Expected an integer",
                        path=path,
                        line=first_line + i,
                        text=tok.decode("latin-1"),
                        hint="UCI bag-of-words lines are 'docID wordID count' with integer fields",
                    ) from None
        raise


def _read_vocab(path: str | os.PathLike) -> list[str]:
    text = read_bytes(path).decode("utf-8", errors="replace")
    words = text.splitlines()
    while words and not words[-1].strip():
        words.pop()
    return [w.strip() for w in words]


def _uci_vocab_for(docword: Path) -> Path | None:
    name = docword.name
    m = re.match(r"docword\.(.+?)\.txt(\.gz|\.bz2)?$", name)
    if not m:
        return None
    for cand in (f"vocab.{m.group(1)}.txt", f"vocab.{m.group(1)}.txt.gz"):
        p = docword.with_name(cand)
        if p.exists():
            return p
    return None


def read_uci(
    path: str | os.PathLike,
    vocab: str | os.PathLike | None | bool = None,
    *,
    max_tokens: int | None = None,
) -> Corpus:
    """Read a UCI bag-of-words corpus (``docword.NAME.txt[.gz]``).

    Parameters
    ----------
    path : path
        The docword file (gzip, bzip2 or plain).
    vocab : path, optional
        The vocabulary; by default ``vocab.NAME.txt`` beside ``path`` if present. Without one
        (or with ``vocab=False``) the 1-based word ids, as text, serve as the words.
    max_tokens : int, optional
        Most tokens (sum of the counts), and most documents ``D`` and words ``W`` the header may
        declare; None: :func:`default_max_tokens` (see "Limits" in the module docstring).

    Raises
    ------
    InputError
        Naming the file, line and value: a bad header (or one declaring more documents, words
        or lines than the limit or the file can hold), a non-integer, an id out of range, a
        negative count, a line count that disagrees with ``NNZ``, counts adding up to more
        than ``max_tokens`` tokens, or no token at all.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "docword.toy.txt"), "w").write("2\\n3\\n3\\n1 1 2\\n1 3 1\\n2 2 4\\n")
    >>> _ = open(os.path.join(d, "vocab.toy.txt"), "w").write("cat\\ndog\\nfish\\n")
    >>> c = read_uci(os.path.join(d, "docword.toy.txt"))
    >>> c.vocab, c.dense().tolist()
    (['cat', 'dog', 'fish'], [[2, 0, 1], [0, 4, 0]])
    """
    p = Path(path)
    buf = read_bytes(p)
    lines = buf.split(b"\n", 3)
    if len(lines) < 3:
        raise InputError(
            "Expected three header lines D, W and NNZ",
            path=str(p),
            line=len(lines),
            hint="UCI docword files start with the number of documents, words and nonzeros",
        )
    head = []
    for i in range(3):
        t = lines[i].strip()
        try:
            head.append(int(t))
        except ValueError:
            raise InputError(
                "Expected an integer header value (D, W, NNZ)",
                path=str(p),
                line=i + 1,
                text=t.decode("latin-1"),
            ) from None
    D, W, NNZ = head
    body = lines[3] if len(lines) > 3 else b""
    limit = _token_limit(max_tokens)
    _check_uci_header(head, limit, len(body), str(p))
    vals = _int_tokens(body, str(p), 4)
    if vals.size % 3:
        for i, line in enumerate(body.splitlines()):
            if line.strip() and len(line.split()) != 3:
                raise InputError(
                    "Expected 3 fields 'docID wordID count'",
                    path=str(p),
                    line=4 + i,
                    text=line.decode("latin-1"),
                )
    trip = vals.reshape(-1, 3)
    if trip.shape[0] != NNZ:
        raise InputError(
            f"Expected NNZ = {NNZ} data lines as the header says (got {trip.shape[0]})",
            path=str(p),
            hint="the file may be truncated",
        )
    for col, lim, what in ((0, D, "docID"), (1, W, "wordID")):
        bad = np.flatnonzero((trip[:, col] < 1) | (trip[:, col] > lim))
        if bad.size:
            i = int(bad[0])
            raise InputError(
                f"Expected {what} in 1..{lim}",
                path=str(p),
                line=_data_line(body, i, 4),
                text=str(int(trip[i, col])),
            )
    bad = np.flatnonzero(trip[:, 2] < 0)
    if bad.size:
        i = int(bad[0])
        raise InputError(
            "Expected a non-negative count",
            path=str(p),
            line=_data_line(body, i, 4),
            text=str(int(trip[i, 2])),
        )
    _check_tokens(trip[:, 2], limit, str(p), lambda i: _data_line(body, i, 4))
    if vocab is None:
        vp = _uci_vocab_for(p)
    else:
        vp = None if vocab is False else Path(vocab)  # type: ignore[arg-type]
    if vp is not None:
        words = _read_vocab(vp)
        if len(words) < W:
            raise InputError(f"Expected {W} words as {p.name} says (got {len(words)})", path=str(vp))
        words = words[:W]
    else:
        words = [str(i + 1) for i in range(W)]
    return Corpus(trip[:, 0] - 1, trip[:, 1] - 1, trip[:, 2], words, [str(i + 1) for i in range(D)])


_MIN_UCI_LINE = 6  # bytes of the shortest data line, "1 1 1\n"


def _check_uci_header(head: list[int], limit: int, body_bytes: int, path: str) -> None:
    """Refuse a header declaring negative sizes, more documents or words than ``limit``, or more
    data lines than the bytes after it can hold (before anything is allocated from it)."""
    for line, (value, what) in enumerate(zip(head, ("documents D", "words W", "nonzeros NNZ")), start=1):
        if value < 0:
            raise InputError(
                f"Expected a non-negative number of {what}", path=path, line=line, text=str(value)
            )
        if line < 3 and value > limit:
            raise _over_limit(f"the header declares {what} =", value, limit, path, line, str(value))
    most = (body_bytes + 1) // _MIN_UCI_LINE
    if head[2] > most:
        raise InputError(
            f"the header declares NNZ = {head[2]:,d} data lines, but the {body_bytes:,d} bytes after it "
            f"hold at most {most:,d} (a line 'docID wordID count' takes at least {_MIN_UCI_LINE} bytes)",
            path=path,
            line=3,
            text=str(head[2]),
            hint="the file may be truncated, or its header wrong",
        )


def _data_line(body: bytes, index: int, first_line: int) -> int:
    """1-based file line of the ``index``-th non-blank data line."""
    k = -1
    for i, line in enumerate(body.splitlines()):
        if line.strip():
            k += 1
            if k == index:
                return first_line + i
    return first_line


def read_ldac(
    path: str | os.PathLike,
    vocab: str | os.PathLike | None | bool = None,
    *,
    max_tokens: int | None = None,
) -> Corpus:
    """Read a corpus in Blei's lda-c format (``N id:count ...`` per line).

    Parameters
    ----------
    path : path
        The data file (e.g. ``ap.dat``); gzip or bzip2 compressed files are read too.
    vocab : path, optional
        One word per line; by default ``vocab.txt`` beside ``path`` if present, else the word
        ids as text.
    max_tokens : int, optional
        Most tokens (sum of the counts), and without a vocabulary the largest word id + 1;
        None: :func:`default_max_tokens` (see "Limits" in the module docstring).

    Raises
    ------
    InputError
        Naming the file, line and value: a malformed ``id:count`` pair, a term count ``N``
        that disagrees with the pairs on the line, an id beyond the vocabulary, counts adding
        up to more than ``max_tokens`` tokens, or no document or no token at all.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "toy.dat"), "w").write("2 0:2 2:1\\n1 1:4\\n")
    >>> _ = open(os.path.join(d, "vocab.txt"), "w").write("cat\\ndog\\nfish\\n")
    >>> read_ldac(os.path.join(d, "toy.dat")).dense().tolist()
    [[2, 0, 1], [0, 4, 0]]
    """
    p = Path(path)
    limit = _token_limit(max_tokens)
    text = read_bytes(p)
    docs: list[np.ndarray] = []
    names: list[str] = []
    doc_lines: list[int] = []
    for i, raw in enumerate(text.splitlines()):
        line = raw.strip()
        if not line:
            continue
        parts = line.split()
        try:
            n = int(parts[0])
            nums = np.array(b" ".join(parts[1:]).replace(b":", b" ").split(), dtype=np.int64)
        except ValueError:
            bad = next((t for t in parts if not re.fullmatch(rb"\d+(:\d+)?", t)), parts[0])
            raise InputError(
                "Expected 'N id:count id:count ...' with non-negative integers",
                path=str(p),
                line=i + 1,
                text=bad.decode("latin-1"),
            ) from None
        if any(t.count(b":") != 1 for t in parts[1:]) or nums.size != 2 * n:
            raise InputError(
                f"Expected {n} 'id:count' pairs as the line's first number says (got {len(parts) - 1})",
                path=str(p),
                line=i + 1,
                text=line[:80].decode("latin-1"),
            )
        pairs = nums.reshape(-1, 2)
        if pairs.size and pairs.min() < 0:
            raise InputError(
                "Expected non-negative ids and counts", path=str(p), line=i + 1, text=str(int(pairs.min()))
            )
        docs.append(pairs)
        names.append(str(len(names)))
        doc_lines.append(i + 1)
    if not docs:
        raise InputError(
            "the file holds no documents (it is empty or has only blank lines)",
            path=str(p),
            hint="lda-c files hold one document a line: 'N id:count id:count ...'",
        )
    lens = np.array([d.shape[0] for d in docs], np.int64)
    allp = np.concatenate(docs)
    doc = np.repeat(np.arange(len(docs), dtype=np.int64), lens)
    _check_tokens(allp[:, 1], limit, str(p), lambda j: doc_lines[int(doc[j])])
    maxid = int(allp[:, 0].max()) if allp.size else -1
    vp = (p.with_name("vocab.txt") if p.with_name("vocab.txt").exists() else None) if vocab is None else vocab
    if vp:
        words = _read_vocab(vp)  # type: ignore[arg-type]
        if maxid >= len(words):
            bad_doc = int(doc[np.argmax(allp[:, 0])])
            raise InputError(
                f"Expected word ids below the vocabulary size {len(words)} of {vp}",
                path=str(p),
                line=_nonblank_line(text, bad_doc),
                text=str(maxid),
            )
    else:
        if maxid >= limit:
            j = int(np.argmax(allp[:, 0]))
            raise _over_limit(
                "without a vocabulary file, this word id makes the vocabulary size",
                maxid + 1,
                limit,
                str(p),
                doc_lines[int(doc[j])],
                str(maxid),
            )
        words = [str(i) for i in range(maxid + 1)]
    return Corpus(doc, allp[:, 0], allp[:, 1], words, names)


def _nonblank_line(text: bytes, index: int) -> int:
    k = -1
    for i, line in enumerate(text.splitlines()):
        if line.strip():
            k += 1
            if k == index:
                return i + 1
    return 1


def detect_format(path: str | os.PathLike, format: str | None = None) -> tuple[Path, str]:
    """The file to read and its format (``uci``, ``ldac`` or ``text``), by the rules of
    :func:`load_corpus`.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "docword.kos.txt"), "w").write("0\\n0\\n0\\n")
    >>> detect_format(d)[1]
    'uci'
    """
    p = Path(path)
    if not p.exists():
        raise InputError("No such file or folder", path=str(p))
    fmt = format
    if fmt is None:
        if p.is_dir():
            dw = sorted(p.glob("docword.*"))
            dat = sorted(p.glob("*.dat"))
            if dw:
                p, fmt = dw[0], "uci"
            elif len(dat) == 1 and (p / "vocab.txt").exists():
                p, fmt = dat[0], "ldac"
            else:
                fmt = "text"
        elif p.name.startswith("docword."):
            fmt = "uci"
        elif re.search(r"\.dat(\.gz|\.bz2)?$", p.name):
            fmt = "ldac"
        elif re.search(r"\.(tar|tar\.gz|tgz|tar\.bz2)$", p.name):
            fmt = "text"
        else:
            raise InputError(
                "Cannot tell the corpus format from the name",
                path=str(p),
                hint="pass format='uci', 'ldac' or 'text' (CLI: --format)",
            )
    if fmt not in ("uci", "ldac", "text"):
        raise InputError(f"Expected format 'uci', 'ldac' or 'text' (got {fmt!r})")
    return p, fmt


def load_corpus(path: str | os.PathLike, format: str | None = None, **kwargs) -> Corpus:
    """Read a corpus, picking the format from the name when ``format`` is None.

    ``docword.*`` is ``uci``; ``*.dat`` (or a folder holding one ``*.dat`` and ``vocab.txt``)
    is ``ldac``; a folder holding a ``docword.*`` file is ``uci``; any other folder or a
    ``.tar``/``.tar.gz``/``.tgz`` archive is ``text``. ``kwargs`` go to the reader (every
    reader takes ``max_tokens``; see "Limits" in the module docstring).

    Raises
    ------
    InputError
        For a missing path or a name that does not say its format.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "toy.dat"), "w").write("1 0:3\\n")
    >>> load_corpus(os.path.join(d, "toy.dat"))
    Corpus(1 documents, 1 words, 3 tokens)
    """
    p, fmt = detect_format(path, format)
    if fmt == "uci":
        return read_uci(p, **kwargs)
    if fmt == "ldac":
        return read_ldac(p, **kwargs)
    if fmt == "text":
        return read_text(p, **kwargs)
    raise InputError(f"Expected format 'uci', 'ldac' or 'text' (got {fmt!r})")
