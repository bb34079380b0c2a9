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
"""

from __future__ import annotations

import os
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gas.errors import InputError
from gas.io.edgelist import read_bytes

__all__ = [
    "Corpus",
    "STOP_WORDS",
    "detect_format",
    "load_corpus",
    "read_ldac",
    "read_text",
    "read_uci",
]

#: A short English stop-word list (function words, pronouns, auxiliaries, common adverbs).
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can cannot could did do does doing down during each either else ever few
    for from further had has have having he her here hers herself him himself his how however if in
    into is it its itself just let me might more most much must my myself neither no nor not now of
    off often on once only or other ought our ours ourselves out over own per perhaps rather same
    shall she should since so some such than that the their theirs them themselves then there these
    they this those though through thus to too under until up upon us very was we were what when where
    whether which while who whom whose why will with within without would yet you your yours yourself
    yourselves re edu com subject lines writes article organization
    """.split()
)

_WORD = re.compile(r"[a-z]+")


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


def read_uci(path: str | os.PathLike, vocab: str | os.PathLike | None | bool = None) -> Corpus:
    """Read a UCI bag-of-words corpus (``docword.NAME.txt[.gz]``).

    Parameters
    ----------
    path : path
        The docword file (gzip, bzip2 or plain).
    vocab : path, optional
        The vocabulary; by default ``vocab.NAME.txt`` beside ``path`` if present. Without one
        (or with ``vocab=False``) the 1-based word ids, as text, serve as the words.

    Raises
    ------
    InputError
        Naming the file, line and value: a bad header, a non-integer, an id out of range, a
        negative count, or a line count that disagrees with ``NNZ``.

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


def _data_line(body: bytes, index: int, first_line: int) -> int:
    """1-based file line of the ``index``-th non-blank data line."""
    k = -1
    for i, line in enumerate(body.splitlines()):
        if line.strip():
            k += 1
            if k == index:
                return first_line + i
    return first_line


def read_ldac(path: str | os.PathLike, vocab: str | os.PathLike | None | bool = None) -> Corpus:
    """Read a corpus in Blei's lda-c format (``N id:count ...`` per line).

    Parameters
    ----------
    path : path
        The data file (e.g. ``ap.dat``); gzip or bzip2 compressed files are read too.
    vocab : path, optional
        One word per line; by default ``vocab.txt`` beside ``path`` if present, else the word
        ids as text.

    Raises
    ------
    InputError
        Naming the file, line and value: a malformed ``id:count`` pair, a term count ``N``
        that disagrees with the pairs on the line, or an id beyond the vocabulary.

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
    text = read_bytes(p)
    docs: list[np.ndarray] = []
    names: list[str] = []
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
    if docs:
        lens = np.array([d.shape[0] for d in docs], np.int64)
        allp = np.concatenate(docs)
        doc = np.repeat(np.arange(len(docs), dtype=np.int64), lens)
    else:
        allp = np.zeros((0, 2), np.int64)
        doc = np.zeros(0, np.int64)
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


def _strip_header(text: str) -> str:
    """Drop a mail/Usenet header block (``Key: value`` lines up to the first blank line)."""
    if re.match(r"[A-Za-z][A-Za-z0-9-]*: ", text):
        cut = re.search(r"\r?\n\r?\n", text)
        return text[cut.end() :] if cut else ""
    return text


def _iter_documents(p: Path) -> list[tuple[str, bytes]]:
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith("."))
        return [(str(f.relative_to(p)), f.read_bytes()) for f in files]
    try:
        with tarfile.open(p) as tar:
            members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
            out = []
            for m in members:
                f = tar.extractfile(m)
                if f is not None and not os.path.basename(m.name).startswith("."):
                    out.append((m.name, f.read()))
            return out
    except tarfile.TarError as exc:
        raise InputError(
            f"Expected a folder or a tar archive of text documents ({exc})",
            path=str(p),
            hint="pass --format uci or --format ldac for bag-of-words files",
        ) from None


def read_text(
    path: str | os.PathLike,
    *,
    stop_words: frozenset[str] | set[str] | None = STOP_WORDS,
    min_df: int | float = 1,
    max_df: int | float = 1.0,
    min_length: int = 2,
    strip_headers: bool = True,
    encoding: str = "latin-1",
) -> Corpus:
    """Read raw text documents from a folder or a ``.tar[.gz]`` archive, one file per document.

    Text is decoded, lower-cased and split into runs of letters ``a-z``; words shorter than
    ``min_length`` and stop words are dropped; then words whose document frequency is below
    ``min_df`` or above ``max_df`` are removed (an int is a number of documents, a float in
    ``[0, 1]`` a fraction of them). The vocabulary is sorted alphabetically; documents keep
    their sorted path order and their paths as names (empty documents are kept).

    Parameters
    ----------
    path : path
        Folder (read recursively) or tar archive.
    stop_words : set of str, optional
        Words to drop (default :data:`STOP_WORDS`; ``None`` keeps every word).
    min_df, max_df : int or float
        Document-frequency window.
    min_length : int, default 2
        Shortest word kept.
    strip_headers : bool, default True
        Drop a leading mail/Usenet header block (``Key: value`` lines up to the first blank line).
    encoding : str, default "latin-1"

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "a.txt"), "w").write("The cat sat on the mat. Cats!")
    >>> _ = open(os.path.join(d, "b.txt"), "w").write("A dog and a cat.")
    >>> c = read_text(d)
    >>> c.vocab, c.dense().tolist()
    (['cat', 'cats', 'dog', 'mat', 'sat'], [[1, 1, 0, 1, 1], [1, 0, 1, 0, 0]])
    >>> read_text(d, min_df=2).vocab
    ['cat']
    """
    p = Path(path)
    if not p.exists():
        raise InputError("No such file or folder", path=str(p))
    items = _iter_documents(p)
    stop = stop_words or frozenset()
    docs: list[list[str]] = []
    for _, raw in items:
        text = raw.decode(encoding, errors="replace")
        if strip_headers:
            text = _strip_header(text)
        docs.append([w for w in _WORD.findall(text.lower()) if len(w) >= min_length and w not in stop])
    n = len(docs)
    df: dict[str, int] = {}
    for d in docs:
        for w in set(d):
            df[w] = df.get(w, 0) + 1
    lo = _df_limit(min_df, n, "min_df")
    hi = _df_limit(max_df, n, "max_df")
    keep = {w for w, c in df.items() if lo <= c <= hi}
    docs = [[w for w in d if w in keep] for d in docs]
    corpus = Corpus.from_documents(docs, [name for name, _ in items])
    return corpus


def _df_limit(x: int | float, n: int, name: str) -> float:
    """A document-frequency bound as a number of documents (float: a fraction of ``n``)."""
    if isinstance(x, (float, np.floating)):
        if not 0.0 <= x <= 1.0:
            raise InputError(
                f"Expected '{name}' as a fraction in [0, 1] (a float) or a document count (an int)",
                text=str(x),
            )
        return float(x) * n
    if x < 0:
        raise InputError(f"Expected '{name}' >= 0", text=str(x))
    return float(x)


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
    ``.tar``/``.tar.gz``/``.tgz`` archive is ``text``. ``kwargs`` go to the reader.

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
