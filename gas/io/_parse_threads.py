"""The edge-list parser on several threads: the file cut at line breaks, one piece per thread.

Each thread runs the parser's kernel (:func:`gas.io._parse.parse_from`, which releases the GIL)
on its own piece, from its first byte to its last line break, into arrays of its own; the pieces'
edges are then joined in file order. The first data line decides the mode for every piece
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


def _join(parts: list[tuple], cuts: list[int], weighted: bool) -> tuple:
    """The pieces' results as one :func:`gas.io._parse.parse_edges` tuple."""
    line = 0
    edges = 0
    fbs = []
    for t, part in enumerate(parts):
        src, dst, w, k, fb, nfb, big, _, err, ln, ls, tok = part
        if t:  # piece t counted its lines and offsets from 0 at its own first byte
            ln += line
            ls, tok = ls + cuts[t], tok + cuts[t]
            fb = fb[:nfb].copy()
            fb[:, :2] += cuts[t]
            fb[:, 2] += edges
            fb[:, 3] += line
        fbs.append(fb[:nfb])
        if err:
            parts = parts[: t + 1]
            break
        line = ln
        edges += k
    k = sum(p[3] for p in parts)
    src = np.concatenate([p[0][: p[3]] for p in parts])
    dst = np.concatenate([p[1][: p[3]] for p in parts])
    w = np.concatenate([p[2][: p[3]] for p in parts]) if weighted else np.empty(0, np.float64)
    fb = np.concatenate(fbs) if fbs else np.empty((0, 4), np.int64)
    big = any(p[6] for p in parts)
    return src, dst, w, k, fb, fb.shape[0], big, weighted, err, ln, ls, tok


def parse_edges_threaded(
    buf: np.ndarray, skip_rows: int, mode: int, threads: int, min_bytes: int | None = None
) -> tuple:
    """What :func:`gas.io._parse.parse_edges` returns, parsed on ``threads`` threads when
    ``buf`` has at least ``min_bytes`` bytes (default :data:`THREADED_MIN_BYTES`; else on this
    one)."""
    n = buf.shape[0]
    if threads < 2 or n < max(THREADED_MIN_BYTES if min_bytes is None else min_bytes, 1):
        return _parse.parse_edges(buf, skip_rows, mode, n // 12 + 16)
    i, line = _parse._skip_lines(buf, skip_rows)
    weighted, strict = _parse.mode_flags(buf, i, mode)
    cuts = _cuts(buf, i, threads)

    def piece(t: int) -> tuple:
        a, b = cuts[t], cuts[t + 1]
        if t == 0:  # the first piece keeps its offsets and line numbers from the file's start
            return _parse.parse_from(buf[:b], a, line, weighted, strict, (b - a) // 12 + 16)
        return _parse.parse_from(buf[a:b], 0, 0, weighted, strict, (b - a) // 12 + 16)

    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        parts = list(pool.map(piece, range(len(cuts) - 1)))
    return _join(parts, cuts, weighted)
