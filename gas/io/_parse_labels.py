"""Kernel of the edge-list parser for text labels: vertices named by any token, not only numbers.

The grammar is :mod:`gas.io._parse`'s (fields separated by runs of spaces, tabs and commas;
``\\n``, ``\\r\\n`` or ``\\r`` line ends; blank lines and lines starting with ``#`` or ``%``
skipped; a field starting with ``#`` or ``%`` starts a trailing comment; the third column, when
used, is the weight, parsed as there), but the first two fields are labels: any run of other
bytes. Each label is numbered in order of first appearance through an open-addressing hash table
of the label bytes (FNV-1a; a label of up to 16 bytes is compared within its table row), so no
Python string is made per token; the caller decodes the
distinct labels only (:func:`gas.io.edgelist.read_labelled_edgelist`).

Examples
--------
>>> import numpy as np
>>> out = parse_labels(np.frombuffer(b"alice bob\\nbob carol\\n", np.uint8), 0, 0, 4)
>>> out[0][: out[3]].tolist(), out[1][: out[3]].tolist(), out[12].tolist()
([0, 1], [1, 2], [0, 6, 14])
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gas.io._parse import (
    ERR_EXTRA_COLUMN,
    ERR_NO_WEIGHT,
    ERR_OK,
    ERR_ONE_COLUMN,
    STOP_END,
    STOP_FB_FULL,
    STOP_FULL,
    _grow,
    _is_end,
    _is_sep,
    _is_stop,
    _next_line,
    _parse_weight,
    _skip_lines,
    mode_flags,
)

__all__ = ["parse_labels"]

STOP_LABELS_FULL = -3
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, nogil=True, inline="always")
def _label(buf, s, e, table, hashes, starts, lens, nl):
    """The number of the label ``buf[s:e]``, numbering it ``nl`` when new (the caller grows the
    arrays before they fill).

    A table row holds a label's key, its length and its number + 1 (0: empty). The key of a
    label of at most 16 bytes is its bytes (two words): compared in the row, in one cache line.
    A longer label's key is its hash, and its bytes are compared with the label's first
    occurrence in ``buf``."""
    h = _FNV_OFFSET
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    for j in range(s, e):
        c = np.uint64(buf[j])
        h = (h ^ c) * _FNV_PRIME
        off = j - s
        if off < 8:
            w0 |= c << np.uint64(8 * off)
        elif off < 16:
            w1 |= c << np.uint64(8 * (off - 8))
    size = e - s
    if size > 16:
        w0, w1 = h, np.uint64(0)
    mask = np.uint64(table.shape[0] - 1)
    slot = h & mask
    while True:
        got = table[slot, 3]
        if got == 0:
            table[slot, 0] = w0
            table[slot, 1] = w1
            table[slot, 2] = size
            table[slot, 3] = nl + 1
            hashes[nl] = h
            starts[nl] = s
            lens[nl] = size
            return nl
        if table[slot, 0] == w0 and table[slot, 1] == w1 and table[slot, 2] == size:
            idx = np.int64(got) - 1
            if size <= 16:
                return idx
            a = starts[idx]
            same = True
            for j in range(size):
                if buf[a + j] != buf[s + j]:
                    same = False
                    break
            if same:
                return idx
        slot = (slot + np.uint64(1)) & mask


@njit(cache=True, nogil=True)
def _rehash(old, table, hashes):
    """Move the rows of table ``old`` into the empty, larger ``table`` by their labels' hashes."""
    mask = np.uint64(table.shape[0] - 1)
    for r in range(old.shape[0]):
        if old[r, 3] == 0:
            continue
        slot = hashes[np.int64(old[r, 3]) - 1] & mask
        while table[slot, 3] != 0:
            slot = (slot + np.uint64(1)) & mask
        for c in range(4):
            table[slot, c] = old[r, c]


@njit(cache=True, nogil=True, inline="always")
def _token_end(buf, i, n):
    while i < n and not _is_end(buf[i]):
        i += 1
    return i


# kept whole, as gas.io._parse._parse_block: one pass over a line's bytes with its branches
@njit(cache=True, nogil=True)
def _label_block(  # noqa: C901
    buf, i, line, weighted, strict, src, dst, w, k, fb, nfb, table, hashes, starts, lens, nl
):
    """Parse lines from byte ``i`` until the end, an error or a full array: returns ``(i, line,
    k, nfb, nl, status, line_start, tok_start)`` (``status`` as in ``_parse_block``, or
    ``STOP_LABELS_FULL`` when the label arrays must grow)."""
    n = buf.shape[0]
    while i < n:
        if k == src.shape[0]:
            return i, line, k, nfb, nl, STOP_FULL, i, i
        if nfb == fb.shape[0]:
            return i, line, k, nfb, nl, STOP_FB_FULL, i, i
        if 2 * (nl + 2) > table.shape[0] or nl + 2 > starts.shape[0]:
            return i, line, k, nfb, nl, STOP_LABELS_FULL, i, i
        ls = i
        while i < n and _is_sep(buf[i]):
            i += 1
        if i == n:
            break
        if _is_stop(buf[i]):  # blank or comment line
            i = _next_line(buf, i, n)
            line += 1
            continue
        tok = i
        i = _token_end(buf, i, n)
        a = _label(buf, tok, i, table, hashes, starts, lens, nl)
        if a == nl:
            nl += 1
        while i < n and _is_sep(buf[i]):
            i += 1
        if i == n or _is_stop(buf[i]):
            return i, line, k, nfb, nl, ERR_ONE_COLUMN, ls, tok
        tok = i
        i = _token_end(buf, i, n)
        b = _label(buf, tok, i, table, hashes, starts, lens, nl)
        if b == nl:
            nl += 1
        while i < n and _is_sep(buf[i]):
            i += 1
        has3 = i < n and not _is_stop(buf[i])
        if weighted:
            if not has3:
                return i, line, k, nfb, nl, ERR_NO_WEIGHT, ls, i
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
            return i, line, k, nfb, nl, ERR_EXTRA_COLUMN, ls, i
        src[k] = a
        dst[k] = b
        k += 1
        line += 1
        i = _next_line(buf, i, n)
    return i, line, k, nfb, nl, STOP_END, i, i


def parse_labels(buf: np.ndarray, skip_rows: int, mode: int, capacity: int) -> tuple:
    """Parse a labelled edge list held in ``buf`` (uint8).

    Returns ``(src, dst, w, k, fallback, nfb, weighted, err, err_line, line_start, tok_start,
    nl, starts, lens)``: the first ``k`` entries of ``src``/``dst`` are the edges' label numbers
    (int64, in order of first appearance), ``w`` the weights (empty unless ``weighted``),
    ``fallback[:nfb]`` the weights left for Python's ``float()`` (as in
    :func:`gas.io._parse.parse_edges`), ``err`` 0 or an ``ERR_*`` code for line ``err_line``,
    and label ``j < nl`` is ``buf[starts[j] : starts[j] + lens[j]]``.
    """
    i, line = _skip_lines(buf, skip_rows)
    weighted, strict = mode_flags(buf, i, mode)
    cap = max(capacity, 16)
    src, dst = np.empty(cap, np.int64), np.empty(cap, np.int64)
    w = np.empty(cap if weighted else 0, np.float64)
    fb = np.empty((16, 4), np.int64)
    lcap = 1 << 12
    table = np.zeros((2 * lcap, 4), np.uint64)
    hashes, starts, lens = np.empty(lcap, np.uint64), np.empty(lcap, np.int64), np.empty(lcap, np.int64)
    k = nfb = nl = 0
    while True:
        i, line, k, nfb, nl, status, ls, tok = _label_block(
            buf, i, line, weighted, strict, src, dst, w, k, fb, nfb, table, hashes, starts, lens, nl
        )
        if status == STOP_FULL:
            cap *= 2
            src, dst = _grow(src, cap), _grow(dst, cap)
            if weighted:
                w = _grow(w, cap)
        elif status == STOP_FB_FULL:
            fb = _grow(fb, 2 * fb.shape[0])
        elif status == STOP_LABELS_FULL:
            lcap *= 2
            hashes, starts, lens = _grow(hashes, lcap), _grow(starts, lcap), _grow(lens, lcap)
            old, table = table, np.zeros((2 * lcap, 4), np.uint64)
            _rehash(old, table, hashes)
        else:
            break
    err = status if status > 0 else ERR_OK
    return src, dst, w, k, fb, nfb, weighted, err, line, ls, tok, nl, starts[:nl], lens[:nl]
