"""The ``text`` corpus reader: a folder or a ``.tar``/``.tar.gz`` archive of plain-text documents.

Documents (one file each, in sorted path order) are lower-cased and split into runs of letters;
stop words and words of one letter are dropped; then words outside the document-frequency window
are removed. :func:`gas.io.corpus.load_corpus` picks this reader for a folder or an archive; see
"Limits" in :mod:`gas.io.corpus` for ``max_tokens``.
"""

from __future__ import annotations

import os
import re
import tarfile
import zlib
from pathlib import Path

import numpy as np

from gas.errors import InputError
from gas.io.corpus_data import Corpus
from gas.io.limits import _gib, _over_limit, _token_limit, available_memory

__all__ = ["STOP_WORDS", "read_text"]

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


def _strip_header(text: str) -> str:
    """Drop a mail/Usenet header block (``Key: value`` lines up to the first blank line)."""
    if re.match(r"[A-Za-z][A-Za-z0-9-]*: ", text):
        cut = re.search(r"\r?\n\r?\n", text)
        return text[cut.end() :] if cut else ""
    return text


def _iter_documents(p: Path) -> list[tuple[str, bytes]]:
    """``(name, content)`` of every document of a folder or a tar archive, in sorted order."""
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith("."))
        out = []
        for f in files:
            try:
                out.append((str(f.relative_to(p)), f.read_bytes()))
            except OSError as exc:
                raise InputError(f"cannot read the document: {exc.strerror or exc}", path=str(f)) from None
        return out
    try:
        with tarfile.open(p) as tar:
            members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
            _check_member_sizes(members, str(p))
            out = []
            for m in members:
                f = tar.extractfile(m)
                if f is not None and not os.path.basename(m.name).startswith("."):
                    out.append((m.name, f.read()))
            return out
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise InputError(
            f"cannot read the archive: {exc}",
            path=str(p),
            hint="the file may be truncated or corrupt; text corpora are a folder or a .tar[.gz] "
            "of documents (pass --format uci or --format ldac for bag-of-words files)",
        ) from None


def _check_member_sizes(members: list[tarfile.TarInfo], path: str) -> None:
    """Refuse an archive whose members claim more bytes than the available memory."""
    total = sum(m.size for m in members)
    avail = available_memory()
    if total > avail:
        big = max(members, key=lambda m: m.size)
        raise InputError(
            f"the archive's documents claim {_gib(total)} ({big.name!r}: {_gib(big.size)}), more than "
            f"the {_gib(avail)} of memory available",
            path=path,
            hint="the archive may be corrupt; split a genuine corpus this large into smaller ones",
        )


def _no_words(path: Path, n: int, stage: str) -> InputError:
    return InputError(
        f"no words left in the {n:,d} documents {stage}",
        path=str(path),
        hint="a topic model needs words: check the documents' language and encoding, or widen the "
        "filters (stop_words=None, a smaller min_df, a larger max_df; CLI: --min-df, --max-df)",
    )


def read_text(
    path: str | os.PathLike,
    *,
    stop_words: frozenset[str] | set[str] | None = STOP_WORDS,
    min_df: int | float = 1,
    max_df: int | float = 1.0,
    min_length: int = 2,
    strip_headers: bool = True,
    encoding: str = "latin-1",
    max_tokens: int | None = None,
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
    max_tokens : int, optional
        Most tokens kept; None: :func:`default_max_tokens` (see "Limits" in the module docstring).

    Raises
    ------
    InputError
        For a missing, unreadable, truncated or corrupt folder or archive, no documents, no
        words left after the filters (naming the filter that dropped them), a bad
        document-frequency bound, or more than ``max_tokens`` tokens.

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
    limit = _token_limit(max_tokens)
    items = _iter_documents(p)
    n = len(items)
    if n == 0:
        raise InputError(
            "no documents found (an empty folder or archive, or only hidden files)",
            path=str(p),
            hint="text corpora are a folder or a .tar[.gz] with one plain-text file per document",
        )
    lo = _df_limit(min_df, n, "min_df")
    hi = _df_limit(max_df, n, "max_df")
    stop = stop_words or frozenset()
    docs = [_document_words(raw, encoding, strip_headers, min_length, stop) for _, raw in items]
    docs = _df_filter(docs, p, lo, hi, (min_df, max_df, min_length))
    total = sum(len(d) for d in docs)
    if total > limit:
        raise _over_limit("the documents hold", total, limit, str(p), None, str(total))
    return Corpus.from_documents(docs, [name for name, _ in items])


def _document_words(
    raw: bytes, encoding: str, strip_headers: bool, min_length: int, stop: frozenset[str] | set[str]
) -> list[str]:
    """The words of one document, in order (see :func:`read_text`)."""
    text = raw.decode(encoding, errors="replace")
    if strip_headers:
        text = _strip_header(text)
    return [w for w in _WORD.findall(text.lower()) if len(w) >= min_length and w not in stop]


def _df_filter(
    docs: list[list[str]], p: Path, lo: float, hi: float, given: tuple[int | float, int | float, int]
) -> list[list[str]]:
    """``docs`` without the words found in fewer than ``lo`` or more than ``hi`` documents.

    ``given`` is ``(min_df, max_df, min_length)`` as the caller passed them, for the message
    when no word is left.
    """
    min_df, max_df, min_length = given
    n = len(docs)
    df: dict[str, int] = {}
    for d in docs:
        for w in set(d):
            df[w] = df.get(w, 0) + 1
    if not df:
        raise _no_words(p, n, f"after dropping stop words and words under {min_length} letters")
    keep = {w for w, c in df.items() if lo <= c <= hi}
    if not keep:
        freq = sorted(df.values())
        raise _no_words(
            p,
            n,
            f"after the document-frequency window (min_df={min_df!r}, max_df={max_df!r}: "
            f"from {lo:g} to {hi:g} documents; the {len(df):,d} words occur in {freq[0]} to "
            f"{freq[-1]} documents)",
        )
    return [[w for w in d if w in keep] for d in docs]


def _df_limit(x: int | float, n: int, name: str) -> float:
    """A document-frequency bound as a number of documents (float: a fraction of ``n``)."""
    if isinstance(x, (float, np.floating)):
        if not 0.0 <= x <= 1.0:  # also refuses NaN
            raise InputError(
                f"Expected '{name}' as a fraction in [0, 1] (a float) or a document count (an int)",
                text=str(x),
            )
        return float(x) * n
    if x < 0:
        raise InputError(f"Expected '{name}' >= 0", text=str(x))
    return float(x)
