"""Read one share of a text edge list: a byte range of a file, blocks of a compressed one, or part files.

Used by the scaled-out load of the process runtime (:mod:`gas.runtime.ingest`): share ``r`` of
``k`` is what rank ``r`` of ``k`` reads, so no process reads (or holds) the whole edge list.

* A plain file is cut into ``k`` byte ranges of equal size after the header (a UTF-8 byte order
  mark and ``skip_rows`` lines). A line belongs to the share holding its first byte: a share
  starts at the first line start at or after its nominal offset and ends where the next share
  starts. Only the share's bytes (plus a peek at its two boundaries) are read.
* A gzip, bzip2 or zip file cannot be cut by bytes. Every share *decompresses the whole stream*
  in blocks of :data:`BLOCK` bytes cut at line breaks and *parses only its own blocks* (block
  ``b`` belongs to share ``b mod k``); a process holds one block plus its edges, at the cost of
  ``k`` decompressions in total.
* A folder of parts (every regular file not starting with ``.`` or ``_``, in name order) is
  split by whole files, largest first onto the share with the fewest bytes; every file is read
  like a single file (``skip_rows`` applies to each, as in Spark/Hadoop part files).

Weights are detected once, from the first data line of the input (the first file of a folder),
so every share parses the same columns, with the single-file rules of
:func:`gas.io.edgelist.read_edgelist`. Errors name the file and its 1-based line, counted from
the top of the file. Every edge gets an order key ``seq`` (``chunk << 40 | index``, chunks
being byte ranges, blocks or files in input order): sorting by it gives the input order, which
decides which duplicate line wins.

Examples
--------
>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
>>> _ = open(p, "w").write("# header\\n1 2\\n2 3\\n3 1\\n10 20\\n")
>>> [read_share(p, r, 2).src.tolist() for r in range(2)]
[[1, 2], [3, 10]]
>>> byte_ranges(p, 2)
[(0, 17), (17, 27)]
"""

from __future__ import annotations

import bz2
import gzip
import os
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO

import numpy as np
from numba import njit

from gas.errors import InputError
from gas.io import _parse
from gas.io.edgelist import (
    _apply_fallback,
    _compressed,
    _line_text,
    _raise_parse_error,
    _read_raw,
    _trim,
    bad_weight_error,
    first_bad_weight,
)

__all__ = ["EdgeShare", "read_share", "byte_ranges", "input_files", "detect_weighted", "BLOCK"]

BLOCK = 8 << 20  # decompressed block size of a compressed input
_PEEK = 1 << 16
_SEQ_BITS = 40


@dataclass
class EdgeShare:
    """One share of an edge list.

    Attributes
    ----------
    src, dst : ndarray of int64 (uint64 when an id exceeds ``2**63 - 1``)
        Original vertex ids.
    weights : ndarray of float64 or None
    seq : ndarray of int64
        Input-order key of each edge (see the module docstring).
    weighted : bool
        Whether the input has a weight column (the same on every share).
    """

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    seq: np.ndarray
    weighted: bool


@njit(cache=True)
def _count_breaks(buf: np.ndarray) -> int:
    """Line breaks in ``buf`` (``\\r\\n`` counts once), as the parser counts lines."""
    n = buf.shape[0]
    c = 0
    i = 0
    while i < n:
        b = buf[i]
        if b == 10:
            c += 1
        elif b == 13:
            c += 1
            if i + 1 < n and buf[i + 1] == 10:
                i += 1
        i += 1
    return c


def input_files(path: str | os.PathLike) -> list[str]:
    """The files read for ``path``: itself, or a folder's part files in name order.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for name in ("part-1", "part-0", "_SUCCESS", ".crc"):
    ...     _ = open(os.path.join(d, name), "w").write("0 1\\n")
    >>> [os.path.basename(f) for f in input_files(d)]
    ['part-0', 'part-1']
    """
    p = os.fspath(path)
    if not os.path.isdir(p):
        if not os.path.exists(p):
            raise InputError(
                "file not found", path=p, hint=f"check the path (relative paths start at {os.getcwd()})"
            )
        return [p]
    names = sorted(
        f for f in os.listdir(p) if not f.startswith((".", "_")) and os.path.isfile(os.path.join(p, f))
    )
    if not names:
        raise InputError(
            "the folder holds no part files", path=p, hint="names starting with '.' or '_' are skipped"
        )
    return [os.path.join(p, f) for f in names]


def _is_compressed(p: str) -> bool:
    with open(p, "rb") as f:
        return _compressed(f.read(4))


def _open_stream(p: str) -> IO[bytes]:
    """A decompressing reader of a gzip, bzip2 or single-member zip file."""
    with open(p, "rb") as f:
        head = f.read(4)
    if head[:2] == b"\x1f\x8b":
        return gzip.open(p, "rb")
    if head[:3] == b"BZh":
        return bz2.open(p, "rb")
    z = zipfile.ZipFile(p)
    names = [i.filename for i in z.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    if len(names) != 1:
        raise InputError(
            f"zip archive holds {len(names)} files, expected exactly one",
            path=p,
            hint="unpack it, or put the parts in a folder",
        )
    return z.open(names[0])


def _blocks(p: str):
    """``(block, lines before it)`` of a compressed file, blocks cut after a line break."""
    rest = b""
    lines = 0
    try:
        with _open_stream(p) as f:
            while True:
                chunk = f.read(BLOCK)
                data = rest + chunk
                if not chunk:
                    if data:
                        yield data, lines
                    return
                cut = data.rfind(b"\n") + 1
                if cut == 0:  # no \n: cut after a lone \r that is not the last byte
                    cut = data.rfind(b"\r", 0, len(data) - 1) + 1
                if cut == 0:
                    rest = data
                    continue
                block, rest = data[:cut], data[cut:]
                yield block, lines
                lines += _count_breaks(np.frombuffer(block, np.uint8))
    except (OSError, EOFError, zlib.error, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"corrupt or truncated compressed file: {exc}", path=p) from None


def _header_end(p: str, skip_rows: int) -> tuple[int, bytes]:
    """Byte offset after the BOM and ``skip_rows`` lines of a plain file, and the bytes after it."""
    with open(p, "rb") as f:
        head = f.read(_PEEK)
        while True:
            buf = np.frombuffer(head, np.uint8)
            off = 3 if head[:3] == b"\xef\xbb\xbf" else 0
            i, line = _parse._skip_lines(buf[off:], skip_rows)
            more = b"" if (line > skip_rows and i < len(head) - off) else f.read(_PEEK)
            if not more:
                return off + i, head[off + i :]
            head += more


def _detect(data: bytes) -> int | None:
    """Fields on the first data line of ``data`` (only complete lines count); None if none yet."""
    buf = np.frombuffer(data, np.uint8)
    cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
    nf = int(_parse._count_fields(buf[:cut], 0)) if cut else 0
    return nf if nf else None


def detect_weighted(path: str | os.PathLike, skip_rows: int = 0) -> bool:
    """Whether the first data line of the input has 3 or more columns (weights).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("% c\\n1 2 0.5\\n")
    >>> detect_weighted(p)
    True
    """
    for p in input_files(path):
        if _is_compressed(p):
            data = b""
            for block, _ in _blocks(p):
                data += block
                if data[:3] == b"\xef\xbb\xbf":
                    data = data[3:]
                i, line = _parse._skip_lines(np.frombuffer(data, np.uint8), skip_rows)
                if line > skip_rows:
                    nf = _detect(data[i:] + b"\n")
                    if nf:
                        return nf >= 3
        else:
            with open(p, "rb") as f:
                size = os.fstat(f.fileno()).st_size
            start, data = _header_end(p, skip_rows)
            pos = start + len(data)
            with open(p, "rb") as f:
                while True:
                    nf = _detect(data if pos < size else data + b"\n")
                    if nf or pos >= size:
                        break
                    f.seek(pos)
                    more = f.read(1 << 20)
                    data += more
                    pos += len(more)
            if nf:
                return nf >= 3
    return False


def _line_start_at(f: IO[bytes], pos: int, size: int) -> int:
    """The first line start at or after ``pos`` (> 0) of an open plain file."""
    at = pos - 1
    while at < size:
        f.seek(at)
        chunk = f.read(_PEEK + 1)
        hits = [j for j in (chunk.find(b"\n", 0, _PEEK), chunk.find(b"\r", 0, _PEEK)) if j >= 0]
        j = min(hits) if hits else -1
        if j < 0:
            at += _PEEK
            continue
        nxt = at + j + 1
        if chunk[j] == 13 and j + 1 < len(chunk) and chunk[j + 1] == 10:
            nxt += 1
        return min(nxt, size)
    return size


def byte_ranges(path: str | os.PathLike, num_shares: int, skip_rows: int = 0) -> list[tuple[int, int]]:
    """``[start, end)`` byte range of every share of a plain (uncompressed) file."""
    p = os.fspath(path)
    size = os.path.getsize(p)
    h, _ = _header_end(p, skip_rows)
    step = -(-(size - h) // num_shares) if size > h else 0
    starts = [h]
    with open(p, "rb") as f:
        for r in range(1, num_shares):
            nominal = min(h + r * step, size)
            starts.append(max(starts[-1], _line_start_at(f, nominal, size) if nominal > h else h))
    ends = starts[1:] + [size]
    return list(zip(starts, ends))


def _parse_piece(
    p: str,
    data: bytes,
    weighted: bool,
    strict: bool,
    skip_rows: int,
    lines_before: int | None,
    before: tuple[str, int] | None = None,
    check_weights: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Parse complete lines; errors carry the file's line number.

    ``lines_before`` is the number of lines of the file before ``data``; None when unknown (a
    byte range of a plain file: counted from the file, only when an error is reported, from
    ``before = (path, start offset)``). ``check_weights`` as in
    :func:`gas.io.edgelist.read_edgelist`.
    """
    buf = np.frombuffer(data, np.uint8)
    i, line = _parse._skip_lines(buf, skip_rows)
    cap = max(buf.shape[0] // 12 + 16, 16)
    src = np.empty(cap, np.uint64)
    dst = np.empty(cap, np.uint64)
    w = np.empty(cap if weighted else 0, np.float64)
    fb = np.empty((16, 4), np.int64)
    k = nfb = 0
    big = False
    while True:
        i, line, k, nfb, b, status, ls, tok = _parse._parse_block(
            buf, i, line, weighted, strict, src, dst, w, k, fb, nfb
        )
        big = big or b
        if status == _parse.STOP_FULL:
            cap *= 2
            src, dst = _parse._grow(src, cap), _parse._grow(dst, cap)
            if weighted:
                w = _parse._grow(w, cap)
        elif status == _parse.STOP_FB_FULL:
            fb = _parse._grow(fb, 2 * fb.shape[0])
        else:
            break

    def shift() -> int:
        if lines_before is not None:
            return lines_before
        assert before is not None
        with open(before[0], "rb") as f:
            return _count_breaks(np.frombuffer(f.read(before[1]), np.uint8))

    if status > 0:
        _raise_parse_error(p, buf, status, line + shift(), ls, tok, k)
    src, dst = _trim(src, k), _trim(dst, k)
    if not big:
        src, dst = src.view(np.int64), dst.view(np.int64)
    if not weighted:
        return src, dst, None
    w = _trim(w, k)
    if nfb:
        fbk = fb[:nfb].copy()
        try:
            _apply_fallback(p, data, 0, buf, w, fbk)
        except InputError as exc:
            fbk[:, 3] += shift()
            _apply_fallback(p, data, 0, buf, w, fbk)  # the same error, with the file's line
            raise exc  # pragma: no cover
    bad = first_bad_weight(w, check_weights)
    if bad is not None:
        line, start = _parse.locate_edge(buf, skip_rows, bad)
        text = _line_text(buf, start)
        raise bad_weight_error(check_weights, w[bad], path=p, line=line + shift(), text=text)
    return src, dst, w


def _assign_files(files: list[str], num_shares: int) -> list[list[int]]:
    """File indices of every share: largest first onto the share with the fewest bytes."""
    sizes = [os.path.getsize(f) for f in files]
    load = [0] * num_shares
    out: list[list[int]] = [[] for _ in range(num_shares)]
    for i in sorted(range(len(files)), key=lambda i: (-sizes[i], i)):
        r = min(range(num_shares), key=lambda r: (load[r], r))
        out[r].append(i)
        load[r] += sizes[i]
    return [sorted(x) for x in out]


def _file_share(
    p: str,
    rank: int,
    num_shares: int,
    weighted: bool,
    strict: bool,
    skip_rows: int,
    chunk0: int,
    check_weights: str | None = None,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]]:
    """This share's parsed pieces of one file: ``(src, dst, w, chunk)``."""
    out = []
    if _is_compressed(p):
        for b, (block, lines) in enumerate(_blocks(p)):
            if b % num_shares != rank:
                continue
            if b == 0 and block[:3] == b"\xef\xbb\xbf":
                block = block[3:]
            s, d, w = _parse_piece(
                p, block, weighted, strict, skip_rows if b == 0 else 0, lines, check_weights=check_weights
            )
            if b > 0 and skip_rows > lines:
                raise InputError(f"skip_rows={skip_rows} reaches past the first {BLOCK} bytes", path=p)
            out.append((s, d, w, chunk0 + b))
        return out
    start, end = byte_ranges(p, num_shares, skip_rows)[rank]
    with open(p, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    s, d, w = _parse_piece(p, data, weighted, strict, 0, None, (p, start), check_weights)
    out.append((s, d, w, chunk0 + rank))
    return out


def read_share(
    path: str | os.PathLike,
    rank: int,
    num_shares: int,
    *,
    weights: bool | None = None,
    skip_rows: int = 0,
    check_weights: str | None = None,
) -> EdgeShare:
    """Share ``rank`` of ``num_shares`` of the edge list at ``path`` (a file or a folder of parts).

    Parameters
    ----------
    path : str or os.PathLike
    rank, num_shares : int
    weights : bool, optional
        As in :func:`gas.io.edgelist.read_edgelist` (``None`` detects from the first data line).
    skip_rows : int, default 0
        Lines to skip at the top of the file (of every file of a folder).
    check_weights : {None, "nonnegative", "finite-nonnegative"}
        As in :func:`gas.io.edgelist.read_edgelist`: refuse negative (or also infinite)
        weights in this share, naming the file and line.

    Returns
    -------
    EdgeShare
        The union over all shares is the file's edges, each once (an empty share is possible).

    Raises
    ------
    InputError
        As :func:`~gas.io.edgelist.read_edgelist`, naming the file and line.
    """
    p = os.fspath(path)
    if not 0 <= rank < num_shares:
        raise ValueError(f"Expected 0 <= rank < num_shares (got {rank} and {num_shares})")
    if not 0 <= skip_rows < 2**63:
        raise InputError(f"expected skip_rows in 0..2**63-1 (got {skip_rows})", path=p)
    if weights not in (None, True, False):
        raise ValueError(f"Expected weights to be None, True or False (got {weights!r})")
    files = input_files(p)
    weighted = detect_weighted(p, skip_rows) if weights is None else bool(weights)
    strict = weights is None and not weighted
    pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]] = []
    if len(files) == 1:
        pieces = _file_share(files[0], rank, num_shares, weighted, strict, skip_rows, 0, check_weights)
    else:
        for i in _assign_files(files, num_shares)[rank]:
            if _is_compressed(files[i]):
                data = bytes(_read_raw(files[i], None, use_mmap=False))
            else:
                with open(files[i], "rb") as f:
                    data = f.read()
            if data[:3] == b"\xef\xbb\xbf":
                data = data[3:]
            s, d, w = _parse_piece(files[i], data, weighted, strict, skip_rows, 0, None, check_weights)
            pieces.append((s, d, w, i))
    big = any(s.dtype == np.uint64 or d.dtype == np.uint64 for s, d, _, _ in pieces)
    dt = np.uint64 if big else np.int64
    src = np.concatenate([s.astype(dt) for s, _, _, _ in pieces] or [np.zeros(0, dt)])
    dst = np.concatenate([d.astype(dt) for _, d, _, _ in pieces] or [np.zeros(0, dt)])
    seq = np.concatenate(
        [(np.int64(c) << _SEQ_BITS) + np.arange(s.shape[0], dtype=np.int64) for s, _, _, c in pieces]
        or [np.zeros(0, np.int64)]
    )
    w = None
    if weighted:
        w = np.concatenate([x for _, _, x, _ in pieces if x is not None] or [np.zeros(0)])
    return EdgeShare(src, dst, w, seq, weighted)
