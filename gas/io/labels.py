"""Edge lists whose vertices are text labels (``alice<TAB>bob``), read without pandas.

:func:`read_labelled_edgelist` numbers the labels in a compiled pass over the file's bytes (a
hash table of the label bytes: no Python string per token, :mod:`gas.io._parse_labels`), then
decodes the distinct labels only and numbers them in sorted order, as
:meth:`gas.Graph.from_pandas` numbers string ids. ``gas.load(path, labels=True)`` and the
command line's ``--labels`` read files this way.
"""

from __future__ import annotations

import os

import numpy as np

from gas.errors import InputError
from gas.io._parse_labels import parse_labels
from gas.io.edgelist import (
    _apply_fallback,
    _check_weight_rule,
    _line_start,
    _line_text,
    _no_edges_error,
    _parse_mode,
    _raise_parse_error,
    _read_buffer,
)

__all__ = ["read_labelled_edgelist"]


def _line_of(buf: np.ndarray, i: int) -> int:
    """1-based number of the line holding byte ``i`` (``\\n``, ``\\r\\n`` and ``\\r`` ends)."""
    head = buf[:i]
    lone_cr = np.count_nonzero((head[:-1] == 13) & (head[1:] != 10)) + int(i > 0 and head[-1] == 13)
    return 1 + int(np.count_nonzero(head == 10)) + int(lone_cr)


def _decode(p: str, raw: bytes, off: int, buf: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> list[str]:
    """The labels as text (UTF-8), naming the line of the first one that is not."""
    ends = (starts + lens).tolist()
    try:
        return [
            bytes(raw[a + off : b + off]).decode("utf-8") for a, b in zip(starts.tolist(), ends, strict=True)
        ]
    except UnicodeDecodeError:
        for a, b in zip(starts.tolist(), ends, strict=True):
            try:
                bytes(raw[a + off : b + off]).decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(
                    "a vertex label is not valid UTF-8 text",
                    path=p,
                    line=_line_of(buf, a),
                    text=_line_text(buf, _line_start(buf, a)),
                    hint="save the file as UTF-8",
                ) from None
        raise  # pragma: no cover


def _sorted_order(text: np.ndarray) -> np.ndarray:
    """``argsort`` of an object array of str, in Python's order (code points): through numpy's
    variable-width strings where numpy has them (sorted in C, about 3x faster)."""
    kind = getattr(getattr(np, "dtypes", None), "StringDType", None)
    keys = text if kind is None else text.astype(kind())
    return np.argsort(keys, kind="stable")


def read_labelled_edgelist(
    path: str | os.PathLike,
    *,
    weights: bool | None = None,
    skip_rows: int = 0,
    member: str | None = None,
    check_weights: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Read a text edge list whose first two columns are vertex labels (any text).

    The file format and the options are :func:`gas.io.edgelist.read_edgelist`'s, except that
    a label is any run of characters other than spaces, tabs, commas and line ends (``7`` and
    ``007`` are two labels).

    Returns
    -------
    src, dst : ndarray of int64
        Each edge's label numbers, ``0..n-1`` in sorted order of the labels.
    weights : ndarray of float64 or None
        The third column, as in :func:`~gas.io.edgelist.read_edgelist`.
    labels : ndarray of str (object)
        The ``n`` distinct labels, sorted: ``labels[src[i]]`` is edge ``i``'s source label.

    Raises
    ------
    InputError
        As :func:`~gas.io.edgelist.read_edgelist` (missing file, a single column, a bad or
        missing weight, no edges), and on a label that is not valid UTF-8.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "people.tsv")
    >>> _ = open(p, "w").write("# who follows whom\\ncarol\\talice\\nalice\\tbob\\n")
    >>> src, dst, w, labels = read_labelled_edgelist(p)
    >>> labels.tolist(), src.tolist(), dst.tolist(), w
    (['alice', 'bob', 'carol'], [2, 0], [0, 1], None)
    """
    p = os.fspath(path)
    if not 0 <= skip_rows < 2**63:
        raise InputError(f"expected skip_rows in 0..2**63-1 (got {skip_rows})", path=p)
    raw, buf, off = _read_buffer(p, member)
    mode = _parse_mode(weights, check_weights)
    src, dst, w, k, fb, nfb, weighted, err, line, ls, tok, nl, starts, lens = parse_labels(
        buf, skip_rows, mode, buf.shape[0] // 12 + 16
    )
    if err:
        _raise_parse_error(p, buf, err, line, ls, tok, k)
    if k == 0:
        raise _no_edges_error(p)
    text = np.array(_decode(p, raw, off, buf, starts, lens), dtype=object)
    order = _sorted_order(text)
    rank = np.empty(nl, np.int64)
    rank[order] = np.arange(nl, dtype=np.int64)
    src, dst = rank[src[:k]], rank[dst[:k]]
    if not weighted:
        return src, dst, None, text[order]
    w = w[:k].copy()
    if nfb:
        _apply_fallback(p, raw, off, buf, w, fb[:nfb])
    _check_weight_rule(p, buf, w, skip_rows, check_weights)
    return src, dst, w, text[order]
