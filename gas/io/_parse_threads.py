"""The edge-list parser on several threads: the file cut at line breaks, one piece per thread.

Each thread counts the data lines of its piece (from its first byte to its last line break),
then runs the parser's kernel (which releases the GIL) on it, writing straight into the piece's
part of the output arrays, so the edges come out in file order with no copy to join them. The
first data line decides the mode for every piece
(:func:`gas.io._parse.mode_flags`), as it does on one thread. Line numbers, edge indices and
byte offsets in a piece's fallback rows and error are shifted by the pieces before it, so the
result, errors included, is the one-thread parser's: the first error in the file wins (pieces
after it are ignored; those before it parsed without one).

Examples
--------
>>> import numpy as np
>>> text = b"".join(b"%d %d\\n" % (i, i + 1) for i in range(1000))
>>> out = parse_edges_threaded(np.frombuffer(text, np.uint8), 0, -1, threads=2, min_bytes=0)
>>> out[3], out[0][:3].tolist(), out[1][998:1000].tolist()
(1000, [0, 1, 2], [999, 1000])
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from gas.io import _parse

__all__ = ["THREADED_MIN_BYTES", "parse_edges_threaded"]

# Files from this size on are parsed on several threads (below, one piece: starting threads and
# joining the pieces cost more than they save).
THREADED_MIN_BYTES = 1 << 24


def _line_after(buf: np.ndarray, p: int) -> int:
    """Offset of the first byte after the first line break at or after ``p`` (or the length)."""
    n = buf.shape[0]
    width = 1 << 16
    while p < n:
        window = buf[p : p + width]
        hits = np.flatnonzero((window == 10) | (window == 13))
        if hits.shape[0]:
            j = p + int(hits[0])
            return j + 2 if buf[j] == 13 and j + 1 < n and buf[j + 1] == 10 else j + 1
        p += width
    return n


def _cuts(buf: np.ndarray, start: int, pieces: int) -> list[int]:
    """Piece boundaries: ``start``, then about equal byte counts, each at a line start, then
    the length (repeated boundaries dropped)."""
    n = buf.shape[0]
    cuts = [start]
    for t in range(1, pieces):
        c = _line_after(buf, start + (n - start) * t // pieces)
        if c > cuts[-1] and c < n:
            cuts.append(c)
    cuts.append(n)
    return cuts


@njit(cache=True, nogil=True)
def _data_lines(buf: np.ndarray) -> int:
    """How many lines of ``buf`` hold data (not blank, not a comment): the edges it parses to,
    when it parses without error. A branch-free count of the line starts that begin a field
    (vectorised by the compiler), unless a line starts with a separator or a ``\r`` ends one:
    then :func:`_data_lines_exact`."""
    n = buf.shape[0]
    if n == 0:
        return 0
    c = buf[0]
    count = np.int64(not (c == 10 or c == 13 or c == 35 or c == 37 or c == 32 or c == 9 or c == 44))
    odd = np.int64(c == 13 or c == 32 or c == 9 or c == 44)
    for j in range(1, n):
        c = buf[j]
        at_start = np.int64(buf[j - 1] == 10)
        field = np.int64((c != 10) & (c != 13) & (c != 35) & (c != 37) & (c != 32) & (c != 9) & (c != 44))
        count += at_start & field
        odd += np.int64(c == 13) | (at_start & np.int64((c == 32) | (c == 9) | (c == 44)))
    return count if odd == 0 else _data_lines_exact(buf)


@njit(cache=True, nogil=True)
def _data_lines_exact(buf: np.ndarray) -> int:
    """:func:`_data_lines` by walking each line start past its separators."""
    count = 0
    start = True  # at the start of a line, before its first byte other than a separator
    for j in range(buf.shape[0]):
        c = buf[j]
        if start:
            if c == 32 or c == 9 or c == 44:
                continue
            start = False
            if not (c == 10 or c == 13 or c == 35 or c == 37):
                count += 1
        if c == 10 or c == 13:
            start = True
    return count


def _fallback_rows(fb: np.ndarray, nfb: int, cut: int, edges: int, line: int) -> np.ndarray:
    """A piece's fallback rows with its byte offsets, edge indices and lines made the file's."""
    fb = fb[:nfb].copy()
    fb[:, :2] += cut
    fb[:, 2] += edges
    fb[:, 3] += line
    return fb


def _parse_into(piece: np.ndarray, i: int, line: int, weighted: bool, strict: bool, out: tuple) -> tuple:
    """Parse ``piece`` from byte ``i`` into the given arrays ``out = (src, dst, w)`` (one slot
    more than its data lines: the kernel asks for room before each line): ``(k, fb, nfb, big,
    status, line, line_start, tok_start)``."""
    src, dst, w = out
    fb = np.empty((16, 4), np.int64)
    k = nfb = 0
    big = False
    while True:
        i, line, k, nfb, b, status, ls, tok = _parse._parse_block(
            piece, i, line, weighted, strict, src, dst, w, k, fb, nfb
        )
        big = big or b
        if status != _parse.STOP_FB_FULL:
            return k, fb, nfb, big, status, line, ls, tok
        fb = _parse._grow(fb, 2 * fb.shape[0])


def _join(results: list[tuple], cuts: list[int]) -> tuple:
    """``(k, fallback, big, err, line, line_start, tok_start)`` of the whole file from the
    pieces' :func:`_parse_into` results: the first error wins, with its piece's offsets."""
    line = 0
    edges = 0
    fbs = []
    big = False
    for t, (k, fb, nfb, b, status, ln, ls, tok) in enumerate(results):
        big = big or b
        if t:  # piece t counted its lines and offsets from 0 at its own first byte
            ln, ls, tok = ln + line, ls + cuts[t], tok + cuts[t]
        fbs.append(_fallback_rows(fb, nfb, cuts[t] if t else 0, edges, line if t else 0))
        edges += k
        if status > 0:
            return edges, np.concatenate(fbs), big, status, ln, ls, tok
        line = ln
    return edges, np.concatenate(fbs), big, _parse.ERR_OK, line, ls, tok


def parse_edges_threaded(
    buf: np.ndarray, skip_rows: int, mode: int, threads: int, min_bytes: int | None = None
) -> tuple:
    """What :func:`gas.io._parse.parse_edges` returns, parsed on ``threads`` threads when
    ``buf`` has at least ``min_bytes`` bytes (default :data:`THREADED_MIN_BYTES`; else on this
    one).

    Each thread first counts its piece's data lines, so that every piece then parses straight
    into its own part of the output arrays (no copy to join them)."""
    n = buf.shape[0]
    if threads < 2 or n < max(THREADED_MIN_BYTES if min_bytes is None else min_bytes, 1):
        return _parse.parse_edges(buf, skip_rows, mode, n // 12 + 16)
    i, line = _parse._skip_lines(buf, skip_rows)
    weighted, strict = _parse.mode_flags(buf, i, mode)
    cuts = _cuts(buf, i, threads)
    pieces = len(cuts) - 1
    with ThreadPoolExecutor(pieces) as pool:
        counts = list(pool.map(lambda t: _data_lines(buf[cuts[t] : cuts[t + 1]]), range(pieces)))
        at = np.concatenate([[0], np.cumsum(counts)]).tolist()
        src, dst = np.empty(at[-1] + 1, np.uint64), np.empty(at[-1] + 1, np.uint64)
        w = np.empty(at[-1] + 1 if weighted else 0, np.float64)

        def piece(t: int) -> tuple:
            a, b = at[t], at[t + 1] + 1
            out = (src[a:b], dst[a:b], w[a:b] if weighted else w)
            if t == 0:  # the first piece keeps its offsets and line numbers from the file's start
                return _parse_into(buf[: cuts[1]], cuts[0], line, weighted, strict, out)
            return _parse_into(buf[cuts[t] : cuts[t + 1]], 0, 0, weighted, strict, out)

        results = list(pool.map(piece, range(pieces)))
    if any(r[4] == _parse.STOP_FULL for r in results):  # the counts were short: never expected
        return _parse.parse_edges(buf, skip_rows, mode, n // 12 + 16)
    k, fb, big, err, ln, ls, tok = _join(results, cuts)
    return src, dst, w, k, fb, fb.shape[0], big, weighted, err, ln, ls, tok
