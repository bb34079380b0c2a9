"""Numba kernel of the edge-list text parser: a byte array in, id and weight arrays out.

The kernel never raises. It stops at the first bad line and reports an error code, the 1-based
line number and the byte offsets of that line and of the offending token; the Python wrapper in
:mod:`gas.io.edgelist` turns them into an :class:`~gas.errors.InputError`.

Grammar, one edge per line: fields are separated by any run of spaces, tabs and commas; a line
ends at ``\\n``, ``\\r\\n`` or ``\\r``; lines that are blank or start with ``#`` or ``%`` are
skipped, and a field starting with ``#`` or ``%`` starts a trailing comment. Columns 1 and 2 are
unsigned decimal vertex ids below ``2**64``; column 3, when used, is the weight.

Weights take Clinger's fast path when it is exact: a decimal mantissa of at most 19 significant
digits that is ``<= 2**53`` and a decimal exponent in ``-22..22`` give the correctly rounded
double with one IEEE multiplication or division by an exactly representable power of ten. Every
other token (``inf``, ``nan``, long mantissas, big exponents, garbage) is recorded in a fallback
table and parsed by Python's own ``float()`` afterwards, so the result always equals ``float()``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "parse_edges",
    "mode_flags",
    "locate_edge",
    "MODE_AUTO",
    "MODE_UNWEIGHTED",
    "MODE_WEIGHTED",
]

MODE_AUTO = -1
MODE_UNWEIGHTED = 0
MODE_WEIGHTED = 1

ERR_OK = 0
ERR_ID_TOKEN = 1
ERR_ONE_COLUMN = 2
ERR_NEGATIVE_ID = 3
ERR_ID_TOO_LARGE = 4
ERR_NO_WEIGHT = 5
ERR_EXTRA_COLUMN = 6
STOP_END = 0
STOP_FULL = -1
STOP_FB_FULL = -2

_POW10 = np.array([float(10**k) for k in range(23)], dtype=np.float64)  # all exact
_TWO53 = np.uint64(2**53)
_I64_MAX = np.uint64(2**63 - 1)
_U64_MAX_DIV10 = np.uint64((2**64 - 1) // 10)
_U64_MAX_LAST = np.uint64((2**64 - 1) % 10)
_NINE = np.uint64(9)
_ZERO = np.uint64(0)
_TEN = np.uint64(10)
_ASCII0 = np.uint64(48)


@njit(cache=True)
def _is_sep(c: np.uint8) -> bool:
    return c == 32 or c == 9 or c == 44


@njit(cache=True)
def _is_end(c: np.uint8) -> bool:
    """True for a byte that ends a field: separator or line break."""
    return c == 32 or c == 9 or c == 44 or c == 10 or c == 13


@njit(cache=True)
def _next_line(buf: np.ndarray, i: int, n: int) -> int:
    """Offset of the first byte after the line break at or after ``i`` (or ``n``)."""
    while i < n:
        c = buf[i]
        if c == 10:
            return i + 1
        if c == 13:
            if i + 1 < n and buf[i + 1] == 10:
                return i + 2
            return i + 1
        i += 1
    return n


@njit(cache=True)
def _checked_id(buf: np.ndarray, start: int, end: int) -> tuple[np.uint64, int]:
    """Slow path for ids of 20+ digits: value and status (0, or ERR_ID_TOO_LARGE)."""
    v = _ZERO
    for j in range(start, end):
        d = np.uint64(buf[j]) - _ASCII0
        if v > _U64_MAX_DIV10 or (v == _U64_MAX_DIV10 and d > _U64_MAX_LAST):
            return _ZERO, ERR_ID_TOO_LARGE
        v = v * _TEN + d
    return v, ERR_OK


@njit(cache=True)
def _parse_id(buf: np.ndarray, i: int, n: int) -> tuple[np.uint64, int, int]:
    """Parse an unsigned id at ``i``: (value, offset after it, status)."""
    start = i
    if buf[i] == 43:  # '+'
        i += 1
    first = i
    v = _ZERO
    while i < n:
        d = np.uint64(buf[i]) - _ASCII0
        if d > _NINE:
            break
        v = v * _TEN + d
        i += 1
    if i == first or (i < n and not _is_end(buf[i])):
        if buf[start] == 45 and i == first and first + 1 < n:  # '-' then digits
            j = first + 1
            while j < n and buf[j] >= 48 and buf[j] <= 57:
                j += 1
            if j > first + 1 and (j == n or _is_end(buf[j])):
                return _ZERO, j, ERR_NEGATIVE_ID
        return _ZERO, i, ERR_ID_TOKEN
    if i - first > 19:
        v, status = _checked_id(buf, first, i)
        return v, i, status
    return v, i, ERR_OK


@njit(cache=True)
def _parse_weight(buf: np.ndarray, i: int, n: int) -> tuple[float, int, bool]:
    """Parse a weight at ``i``: (value, offset after it, needs Python ``float()`` fallback)."""
    start = i
    neg = False
    c = buf[i]
    if c == 45:
        neg = True
        i += 1
    elif c == 43:
        i += 1
    mant = _ZERO
    nsig = 0
    ndig = 0
    exp = 0
    exact = True
    while i < n:
        d = np.uint64(buf[i]) - _ASCII0
        if d > _NINE:
            break
        if nsig < 19:
            mant = mant * _TEN + d
            if mant != _ZERO:
                nsig += 1
        else:
            exact = False
        ndig += 1
        i += 1
    if i < n and buf[i] == 46:  # '.'
        i += 1
        while i < n:
            d = np.uint64(buf[i]) - _ASCII0
            if d > _NINE:
                break
            if nsig < 19:
                mant = mant * _TEN + d
                if mant != _ZERO:
                    nsig += 1
                exp -= 1
            else:
                exact = False
            ndig += 1
            i += 1
    if ndig > 0 and i < n and (buf[i] == 101 or buf[i] == 69):  # 'e' / 'E'
        i += 1
        eneg = False
        if i < n and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        ed = 0
        nde = 0
        while i < n and buf[i] >= 48 and buf[i] <= 57:
            if ed < 100000:
                ed = ed * 10 + (buf[i] - 48)
            nde += 1
            i += 1
        if nde == 0:
            exact = False
        exp += -ed if eneg else ed
    if ndig == 0 or (i < n and not _is_end(buf[i])):
        exact = False
    if exact and mant <= _TWO53 and -22 <= exp <= 22:
        val = float(mant)
        if exp >= 0:
            val = val * _POW10[exp]
        else:
            val = val / _POW10[-exp]
        return (-val if neg else val), i, False
    i = start
    while i < n and not _is_end(buf[i]):
        i += 1
    return 0.0, i, True


@njit(cache=True)
def _count_fields(buf: np.ndarray, i: int) -> int:
    """Fields (capped at 3) on the first data line at or after ``i``; 0 when there is none."""
    n = buf.shape[0]
    while i < n:
        while i < n and _is_sep(buf[i]):
            i += 1
        if i == n:
            return 0
        c = buf[i]
        if c == 10 or c == 13 or c == 35 or c == 37:
            i = _next_line(buf, i, n)
            continue
        nf = 0
        while i < n and nf < 3:
            c = buf[i]
            if c == 10 or c == 13 or c == 35 or c == 37:
                break
            nf += 1
            while i < n and not _is_end(buf[i]):
                i += 1
            while i < n and _is_sep(buf[i]):
                i += 1
        return nf
    return 0


@njit(cache=True)
def _is_stop(c: np.uint8) -> bool:
    """True for a byte that ends the fields of a line: line break or comment mark."""
    return c == 10 or c == 13 or c == 35 or c == 37


# kept whole: over 80 lines on purpose (allowed for a kernel that splitting slows down): even
# one helper inlined with ``inline="always"`` on the common path costs about 10 % (5.2 M
# edges, best of 9 in turns: 121 ms written out, 133 ms with the line-break step inlined;
# figures: bench/RESULTS.md, section "Figures formerly in docstrings", "_parse_block split").
@njit(cache=True, nogil=True)
def _parse_block(  # noqa: C901
    buf: np.ndarray,
    i: int,
    line: int,
    weighted: bool,
    strict: bool,
    src: np.ndarray,
    dst: np.ndarray,
    w: np.ndarray,
    k: int,
    fb: np.ndarray,
    nfb: int,
) -> tuple[int, int, int, int, bool, int, int, int]:
    """Parse lines from byte ``i`` into the fixed arrays until the end, an error or a full array.

    Returns ``(i, line, k, nfb, big, status, line_start, tok_start)``; ``status`` is ``STOP_END``,
    ``STOP_FULL`` (edge arrays full), ``STOP_FB_FULL`` (fallback table full) or an ``ERR_*`` code.

    The common path (a line of plain digits) is written out here rather than calling helpers:
    a call that takes ``buf`` costs two atomic reference-count updates, a large share of the
    work per line (figures: bench/RESULTS.md, section "Figures formerly in docstrings").
    Helpers taking ``buf`` run only on rare paths (comments, signs, 20-digit ids, odd weights).
    """
    n = buf.shape[0]
    cap = src.shape[0]
    fbcap = fb.shape[0]
    big = False
    while i < n:
        if k == cap:
            return i, line, k, nfb, big, STOP_FULL, i, i
        if nfb == fbcap:
            return i, line, k, nfb, big, STOP_FB_FULL, i, i
        ls = i
        c = buf[i]
        if np.uint64(c) - _ASCII0 > _NINE:
            while _is_sep(c):
                i += 1
                if i == n:
                    break
                c = buf[i]
            if i == n:
                break
            if _is_stop(c):  # blank or comment line
                i = _next_line(buf, i, n)
                line += 1
                continue
        # first id
        tok = i
        v1 = _ZERO
        while i < n:
            d = np.uint64(buf[i]) - _ASCII0
            if d > _NINE:
                break
            v1 = v1 * _TEN + d
            i += 1
        if i == tok or i - tok > 19 or (i < n and not _is_end(buf[i])):
            v1, i, st = _parse_id(buf, tok, n)
            if st != ERR_OK:
                return i, line, k, nfb, big, st, ls, tok
        while i < n and _is_sep(buf[i]):
            i += 1
        if i == n or _is_stop(buf[i]):
            return i, line, k, nfb, big, ERR_ONE_COLUMN, ls, tok
        # second id
        tok = i
        v2 = _ZERO
        while i < n:
            d = np.uint64(buf[i]) - _ASCII0
            if d > _NINE:
                break
            v2 = v2 * _TEN + d
            i += 1
        if i == tok or i - tok > 19 or (i < n and not _is_end(buf[i])):
            v2, i, st = _parse_id(buf, tok, n)
            if st != ERR_OK:
                return i, line, k, nfb, big, st, ls, tok
        while i < n and _is_sep(buf[i]):
            i += 1
        has3 = i < n and not _is_stop(buf[i])
        if weighted:
            if not has3:
                return i, line, k, nfb, big, ERR_NO_WEIGHT, ls, i
            tok = i
            val, i, need = _parse_weight(buf, i, n)
            if need:
                fb[nfb, 0] = tok
                fb[nfb, 1] = i
                fb[nfb, 2] = k
                fb[nfb, 3] = line
                nfb += 1
            w[k] = val
        elif strict and has3:
            return i, line, k, nfb, big, ERR_EXTRA_COLUMN, ls, i
        if v1 > _I64_MAX or v2 > _I64_MAX:
            big = True
        src[k] = v1
        dst[k] = v2
        k += 1
        line += 1
        if i < n:  # consume the line break; anything else (ignored columns) on the slow path
            c = buf[i]
            if c == 10:
                i += 1
            elif c == 13:
                i += 1
                if i < n and buf[i] == 10:
                    i += 1
            else:
                i = _next_line(buf, i, n)
    return i, line, k, nfb, big, STOP_END, i, i


@njit(cache=True)
def _skip_lines(buf: np.ndarray, count: int) -> tuple[int, int]:
    """Offset after the first ``count`` lines, and the 1-based number of the next line."""
    n = buf.shape[0]
    i = 0
    line = 1
    while line <= count and i < n:
        i = _next_line(buf, i, n)
        line += 1
    return i, line


@njit(cache=True)
def locate_edge(buf: np.ndarray, skip_rows: int, index: int) -> tuple[int, int]:
    """1-based line number and start offset of data line ``index`` (0-based) of ``buf``.

    Counts the lines :func:`parse_edges` reads as edges (not blank, not a comment) after the
    first ``skip_rows`` lines, so ``locate_edge(buf, s, k)`` is the line edge ``k`` came from
    in a file that parsed without error. Returns ``(0, -1)`` when there are fewer lines.

    Examples
    --------
    >>> import numpy as np
    >>> locate_edge(np.frombuffer(b"# c\\n1 2\\n\\n3 4\\n", np.uint8), 0, 1)
    (4, 9)
    """
    n = buf.shape[0]
    i, line = _skip_lines(buf, skip_rows)
    k = 0
    while i < n:
        ls = i
        while i < n and _is_sep(buf[i]):
            i += 1
        if i < n and not _is_stop(buf[i]):
            if k == index:
                return line, ls
            k += 1
        i = _next_line(buf, i, n)
        line += 1
    return 0, -1


def _grow(a: np.ndarray, cap: int) -> np.ndarray:
    out = np.empty((cap,) + a.shape[1:], a.dtype)
    out[: a.shape[0]] = a
    return out


def mode_flags(buf: np.ndarray, i: int, mode: int) -> tuple[bool, bool]:
    """``(weighted, strict)`` for ``mode`` with the data starting at byte ``i``: in
    ``MODE_AUTO`` the first data line decides, and a later line with more columns is an error
    (``strict``) when it has two."""
    if mode == MODE_AUTO:
        weighted = bool(_count_fields(buf, i) >= 3)
        return weighted, not weighted
    return mode == MODE_WEIGHTED, False


def parse_edges(buf: np.ndarray, skip_rows: int, mode: int, capacity: int) -> tuple:
    """Parse an edge list held in ``buf`` (uint8), growing the output arrays as needed.

    Returns ``(src, dst, w, k, fallback, nfb, big, weighted, err, err_line, line_start,
    tok_start)``: ``src``/``dst`` are uint64 arrays whose first ``k`` entries are the edges,
    ``w`` the weights (empty unless ``weighted``), ``fallback[:nfb]`` rows
    ``(token start, token end, edge index, line)`` of weights left for Python's ``float()``,
    ``big`` whether an id exceeds ``2**63 - 1``; ``err`` is 0 or an ``ERR_*`` code for line
    ``err_line`` that starts at byte ``line_start`` with the bad token at ``tok_start``.

    The output arrays are allocated here, by numpy, not inside the kernel: numpy asks the kernel
    for transparent huge pages on large arrays and Numba's allocator does not, and first-touch
    page faults then cost several times less (figures: bench/RESULTS.md, section "Figures
    formerly in docstrings").

    Examples
    --------
    >>> import numpy as np
    >>> out = parse_edges(np.frombuffer(b"1 2 0.5\\n3 4 1e3", np.uint8), 0, -1, 4)
    >>> out[0][: out[3]].tolist(), out[2][: out[3]].tolist()
    ([1, 3], [0.5, 1000.0])
    """
    i, line = _skip_lines(buf, skip_rows)
    weighted, strict = mode_flags(buf, i, mode)
    cap = max(capacity, 16)
    src = np.empty(cap, np.uint64)
    dst = np.empty(cap, np.uint64)
    w = np.empty(cap if weighted else 0, np.float64)
    fb = np.empty((16, 4), np.int64)
    k = 0
    nfb = 0
    big = False
    while True:
        i, line, k, nfb, b, status, ls, tok = _parse_block(
            buf, i, line, weighted, strict, src, dst, w, k, fb, nfb
        )
        big = big or b
        if status == STOP_FULL:
            cap *= 2
            src = _grow(src, cap)
            dst = _grow(dst, cap)
            if weighted:
                w = _grow(w, cap)
        elif status == STOP_FB_FULL:
            fb = _grow(fb, 2 * fb.shape[0])
        else:
            break
    err = status if status > 0 else ERR_OK
    return src, dst, w, k, fb, nfb, big, weighted, err, line, ls, tok
