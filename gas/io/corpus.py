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
from pathlib import Path

import numpy as np

from gas.errors import InputError
from gas.io.corpus_data import Corpus
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
    head = _uci_header(lines, str(p))
    D, W, NNZ = head
    body = lines[3] if len(lines) > 3 else b""
    limit = _token_limit(max_tokens)
    _check_uci_header(head, limit, len(body), str(p))
    trip = _uci_triplets(body, head, str(p))
    _check_tokens(trip[:, 2], limit, str(p), lambda i: _data_line(body, i, 4))
    words = _uci_words(p, vocab, W)
    return Corpus(trip[:, 0] - 1, trip[:, 1] - 1, trip[:, 2], words, [str(i + 1) for i in range(D)])


def _uci_header(lines: list[bytes], path: str) -> list[int]:
    """The header values ``[D, W, NNZ]`` from the first three of ``lines``."""
    if len(lines) < 3:
        raise InputError(
            "Expected three header lines D, W and NNZ",
            path=path,
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
                path=path,
                line=i + 1,
                text=t.decode("latin-1"),
            ) from None
    return head


def _uci_triplets(body: bytes, head: list[int], path: str) -> np.ndarray:
    """The ``(docID, wordID, count)`` rows of ``body`` (1-based ids), checked against ``head``."""
    D, W, NNZ = head
    vals = _int_tokens(body, path, 4)
    if vals.size % 3:
        for i, line in enumerate(body.splitlines()):
            if line.strip() and len(line.split()) != 3:
                raise InputError(
                    "Expected 3 fields 'docID wordID count'",
                    path=path,
                    line=4 + i,
                    text=line.decode("latin-1"),
                )
    trip = vals.reshape(-1, 3)
    if trip.shape[0] != NNZ:
        raise InputError(
            f"Expected NNZ = {NNZ} data lines as the header says (got {trip.shape[0]})",
            path=path,
            hint="the file may be truncated",
        )
    for col, lim, what in ((0, D, "docID"), (1, W, "wordID")):
        bad = np.flatnonzero((trip[:, col] < 1) | (trip[:, col] > lim))
        if bad.size:
            i = int(bad[0])
            raise InputError(
                f"Expected {what} in 1..{lim}",
                path=path,
                line=_data_line(body, i, 4),
                text=str(int(trip[i, col])),
            )
    bad = np.flatnonzero(trip[:, 2] < 0)
    if bad.size:
        i = int(bad[0])
        raise InputError(
            "Expected a non-negative count",
            path=path,
            line=_data_line(body, i, 4),
            text=str(int(trip[i, 2])),
        )
    return trip


def _uci_words(p: Path, vocab: str | os.PathLike | None | bool, W: int) -> list[str]:
    """The ``W`` words of docword file ``p`` (see ``vocab`` in :func:`read_uci`)."""
    if vocab is None:
        vp = _uci_vocab_for(p)
    else:
        vp = None if vocab is False else Path(vocab)  # type: ignore[arg-type]
    if vp is None:
        return [str(i + 1) for i in range(W)]
    words = _read_vocab(vp)
    if len(words) < W:
        raise InputError(f"Expected {W} words as {p.name} says (got {len(words)})", path=str(vp))
    return words[:W]


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
    docs, doc_lines = _ldac_documents(text, str(p))
    names = [str(i) for i in range(len(docs))]
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
    words = _ldac_words(p, text, vocab, allp, doc, doc_lines, limit)
    return Corpus(doc, allp[:, 0], allp[:, 1], words, names)


def _ldac_documents(text: bytes, path: str) -> tuple[list[np.ndarray], list[int]]:
    """The ``(id, count)`` pairs of each non-blank line of ``text``, and each one's line number."""
    docs: list[np.ndarray] = []
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
                path=path,
                line=i + 1,
                text=bad.decode("latin-1"),
            ) from None
        if any(t.count(b":") != 1 for t in parts[1:]) or nums.size != 2 * n:
            raise InputError(
                f"Expected {n} 'id:count' pairs as the line's first number says (got {len(parts) - 1})",
                path=path,
                line=i + 1,
                text=line[:80].decode("latin-1"),
            )
        pairs = nums.reshape(-1, 2)
        if pairs.size and pairs.min() < 0:
            raise InputError(
                "Expected non-negative ids and counts", path=path, line=i + 1, text=str(int(pairs.min()))
            )
        docs.append(pairs)
        doc_lines.append(i + 1)
    return docs, doc_lines


def _ldac_words(
    p: Path,
    text: bytes,
    vocab: str | os.PathLike | None | bool,
    allp: np.ndarray,
    doc: np.ndarray,
    doc_lines: list[int],
    limit: int,
) -> list[str]:
    """The vocabulary of lda-c file ``p`` (see ``vocab`` in :func:`read_ldac`), checked against
    the largest word id of the ``(id, count)`` rows ``allp`` of documents ``doc``."""
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
        return words
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
    return [str(i) for i in range(maxid + 1)]


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
