"""The edge-list parser's numpy path for small, plain files: no kernel to compile.

A first ``gas`` command on a small file (the bundled graph, cold caches) used to spend more time
compiling the parser's kernel than any later run spends loading (bench/RESULTS.md, "Start-up").
:func:`parse_plain` parses the common case of :mod:`gas.io._parse`'s grammar with whole-array
numpy operations: every data line two or more decimal ids of at most 18 digits (no sign), fields
separated by spaces, tabs or commas, ``\\n`` line ends, blank lines and ``#``/``%`` comment lines.
It returns ``None`` for anything else (a weight column, a trailing comment, a ``\\r``, a sign, a
long id, a bad line) and the caller runs the kernel, which handles the rest of the grammar and
names the line of an error. Where it answers, it gives the kernel's arrays.

Examples
--------
>>> import numpy as np
>>> out = parse_plain(np.frombuffer(b"# a comment\\n1 2\\n\\n3,4\\n", np.uint8), 0, -1)
>>> out[0][: out[3]].tolist(), out[1][: out[3]].tolist()
([1, 3], [2, 4])
>>> parse_plain(np.frombuffer(b"1 2 0.5\\n", np.uint8), 0, -1) is None  # weighted: the kernel's
True
"""

from __future__ import annotations

import numpy as np

from gas.config import CONFIG
from gas.io._parse import ERR_OK, MODE_AUTO, MODE_WEIGHTED

__all__ = ["PLAIN_MAX_BYTES", "parse_plain"]

# Files up to this size try the numpy path (about 20 whole-array passes over the bytes, each a few
# milliseconds at this size; its temporaries take about 20 bytes per byte of the file).
PLAIN_MAX_BYTES = 1 << 22

_MAX_DIGITS = 18  # below 2**63: the sums below stay exact in int64
_POW10 = 10 ** np.arange(_MAX_DIGITS, dtype=np.int64)


def _body_start(buf: np.ndarray, newline: np.ndarray, skip_rows: int) -> int | None:
    """Offset after the first ``skip_rows`` lines (``None``: the file has fewer)."""
    if skip_rows == 0:
        return 0
    ends = np.flatnonzero(newline[: buf.shape[0]])
    if skip_rows > ends.shape[0]:
        return None
    return int(ends[skip_rows - 1]) + 1


def _first_of_runs(a: np.ndarray) -> np.ndarray:
    first = np.empty(a.shape[0], np.bool_)
    first[:1] = True
    np.not_equal(a[1:], a[:-1], out=first[1:])
    return first


def _token_values(body: np.ndarray, digit: np.ndarray, starts: np.ndarray) -> np.ndarray | None:
    """The decimal value of each token (``starts``: a token's first digit, tokens are the digit
    runs ``digit`` marks); ``None`` when a token has more than :data:`_MAX_DIGITS` digits."""
    pos = np.flatnonzero(digit)
    tok = np.cumsum(starts[pos]) - 1  # the token of each digit
    begin = np.flatnonzero(starts[pos])  # each token's first entry in ``pos``
    length = np.diff(np.append(begin, pos.shape[0]))
    if length.max() > _MAX_DIGITS:
        return None
    last = pos[begin + length - 1]  # each token's last byte
    place = last[tok] - pos  # the power of ten of each digit
    contrib = (body[pos].astype(np.int64) - 48) * _POW10[place]
    return np.add.reduceat(contrib, begin)


def parse_plain(buf: np.ndarray, skip_rows: int, mode: int) -> tuple | None:
    """What :func:`gas.io._parse.parse_edges` returns for a small plain file, or ``None``.

    ``buf`` holds the file's bytes (uint8), ``skip_rows`` physical lines are skipped, ``mode`` is
    one of the ``MODE_*`` constants; ``None`` whenever the file is larger than
    :data:`PLAIN_MAX_BYTES`, weighted, or outside the plain grammar (see the module docstring),
    and when ``gas.config.CONFIG["numpy_small"]`` is 0.
    """
    n = buf.shape[0]
    if mode == MODE_WEIGHTED or n > PLAIN_MAX_BYTES or n == 0 or not CONFIG["numpy_small"]:
        return None
    if (buf == 13).any():  # a '\r' ends a line, even inside a comment: the kernel's
        return None
    newline = buf == 10
    start = _body_start(buf, newline, skip_rows)
    if start is None:
        return None
    body, newline = buf[start:], newline[start:]
    digit = (body >= 48) & (body <= 57)
    sep = (body == 32) | (body == 9) | (body == 44)
    line = np.cumsum(newline) - newline  # each byte's line, its line break included
    lines = int(line[-1]) + 1 if body.shape[0] else 0
    mark = np.flatnonzero(~(sep | newline))  # bytes other than separators and line breaks
    lead = mark[_first_of_runs(line[mark])]  # each line's first such byte
    comment = np.zeros(lines, np.bool_)
    comment[line[lead]] = (body[lead] == 35) | (body[lead] == 37)
    in_comment = comment[line]
    if (~(digit | sep | newline) & ~in_comment).any():  # a sign, a letter, a '\r', a '.': the kernel
        return None
    digit &= ~in_comment
    starts = digit.copy()
    starts[1:] &= ~digit[:-1]
    tok_line = line[starts]
    per_line = np.bincount(tok_line, minlength=lines)[tok_line[_first_of_runs(tok_line)]]
    if per_line.shape[0] == 0 or per_line.min() < 2:  # no edge, or a line of one column
        return None
    if mode == MODE_AUTO and (per_line[0] >= 3 or per_line.max() >= 3):  # weighted, or an error
        return None
    values = _token_values(body, digit, starts)
    if values is None:
        return None
    first = np.flatnonzero(_first_of_runs(tok_line))
    src = values[first].view(np.uint64)
    dst = values[first + 1].view(np.uint64)
    k = src.shape[0]
    return src, dst, np.empty(0, np.float64), k, np.empty((0, 4), np.int64), 0, False, False, ERR_OK, 0, 0, 0
