"""Read a text edge list (plain, gzip, bzip2 or zip) into arrays of original vertex ids."""

from __future__ import annotations

import bz2
import gzip
import mmap
import os
import stat
import zipfile
import zlib

import numpy as np
from numba import get_num_threads

from gas.errors import InputError
from gas.io import _parse
from gas.io._parse_small import parse_plain
from gas.io._parse_threads import parse_edges_threaded

__all__ = ["read_edgelist", "read_bytes", "first_bad_weight", "bad_weight_error", "WEIGHT_RULES"]

_MMAP_MIN = 1 << 20

_HEADER_HINT = (
    "if this is a header line, skip it with skip_rows={n} (CLI: --skip-rows {n}) or start it with '#'"
)


def read_bytes(path: str | os.PathLike, member: str | None = None) -> bytes:
    """The content of ``path``, decompressed when it is gzip, bzip2 or zip (by magic bytes).

    A zip archive must hold a single file, or ``member`` names the one to read.

    Raises
    ------
    InputError
        When the file is missing, unreadable or a corrupt archive.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt.gz")
    >>> with gzip.open(p, "wb") as f:
    ...     _ = f.write(b"0 1\\n")
    >>> read_bytes(p)
    b'0 1\\n'
    """
    return bytes(_read_raw(os.fspath(path), member, use_mmap=False))


def _read_raw(p: str, member: str | None, use_mmap: bool = True) -> bytes | mmap.mmap:
    """File content as bytes, or as a read-only memory map for a large uncompressed file.

    Mapping avoids copying the file, a noticeable part of the parse time (figures:
    bench/RESULTS.md, section "Figures formerly in docstrings"). The map closes when the last
    array viewing it is freed.
    """
    try:
        with open(p, "rb") as f:
            head = f.read(4)
            st = os.fstat(f.fileno())
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):  # /dev/zero would never end
                raise InputError(
                    "expected a file or a pipe, got a device", path=p, hint="name the edge list itself"
                )
            size = st.st_size
            if use_mmap and member is None and size >= _MMAP_MIN and not _compressed(head):
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            data = head + f.read()
    except FileNotFoundError:
        raise InputError(
            "file not found",
            path=p,
            hint=f"check the path (relative paths start at {os.getcwd()})",
        ) from None
    except IsADirectoryError:
        raise InputError("expected a file, got a directory", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=p) from None
    try:
        if data[:2] == b"\x1f\x8b":
            return gzip.decompress(data)
        if data[:3] == b"BZh":
            return bz2.decompress(data)
        if data[:4] == b"PK\x03\x04":
            return _read_zip(p, member)
    except (OSError, EOFError, zlib.error, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"corrupt or truncated compressed file: {exc}", path=p) from None
    if member is not None:
        raise InputError(f"member={member!r} given but the file is not a zip archive", path=p)
    return data


def _compressed(head: bytes) -> bool:
    return head[:2] == b"\x1f\x8b" or head[:3] == b"BZh" or head[:4] == b"PK\x03\x04"


def _read_zip(p: str, member: str | None) -> bytes:
    with zipfile.ZipFile(p) as z:
        names = [
            i.filename for i in z.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")
        ]
        if member is None:
            if len(names) != 1:
                raise InputError(
                    f"zip archive holds {len(names)} files, expected exactly one",
                    path=p,
                    hint=f"name the one to read with member=..., one of {names[:10]}",
                )
            member = names[0]
        elif member not in names:
            raise InputError(
                f"no member {member!r} in the zip archive",
                path=p,
                hint=f"members are {names[:10]}",
            )
        return z.read(member)


def _line_text(buf: np.ndarray, start: int, limit: int = 120) -> str:
    chunk = bytes(buf[start : start + limit + 1])
    for eol in (b"\n", b"\r"):
        chunk = chunk.split(eol, 1)[0]
    text = chunk.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + "..."


def _token_text(buf: np.ndarray, start: int, limit: int = 60) -> str:
    chunk = bytes(buf[start : start + limit])
    for sep in (b" ", b"\t", b",", b"\r", b"\n"):
        chunk = chunk.split(sep, 1)[0]
    return chunk.decode("utf-8", errors="replace")


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


# parser error code -> (message, hint); ERR_ID_TOKEN has its own hint logic below
_SIMPLE_ERRORS = {
    _parse.ERR_ONE_COLUMN: (
        "expected at least 2 columns (source and target), found 1",
        "columns are separated by spaces, tabs or commas",
    ),
    _parse.ERR_NEGATIVE_ID: (
        "vertex ids must be non-negative, found {token}",
        "shift or relabel the ids so that they are >= 0",
    ),
    _parse.ERR_ID_TOO_LARGE: (
        f"vertex id {{token}} does not fit in 64 bits (largest is {2**64 - 1})",
        "relabel the vertices with smaller ids",
    ),
    _parse.ERR_NO_WEIGHT: (
        "expected a third column (the weight), found 2 columns",
        "pass weights=False to read an unweighted graph",
    ),
    _parse.ERR_EXTRA_COLUMN: (
        "found a third column but the first data line has only 2",
        "pass weights=False to ignore extra columns, or weights=True to require them",
    ),
}


def _raise_parse_error(p: str, buf: np.ndarray, code: int, line: int, ls: int, tok: int, k: int) -> None:
    text = _line_text(buf, ls)
    token = _token_text(buf, tok)
    if code == _parse.ERR_ID_TOKEN:
        if _is_number(token):
            hint = "vertex ids must be whole numbers written with digits only (no '.' or 'e')"
        elif k == 0:
            hint = _HEADER_HINT.format(n=line) + "; for vertices named by text, pass labels=True"
        else:
            hint = "vertex ids must be non-negative integers; for vertices named by text, pass labels=True"
        raise InputError(
            f"expected a non-negative integer vertex id, found {token!r}",
            path=p,
            line=line,
            text=text,
            hint=hint,
        )
    message, hint = _SIMPLE_ERRORS[code]
    raise InputError(message.format(token=token), path=p, line=line, text=text, hint=hint)


def _apply_fallback(
    p: str, raw: bytes | mmap.mmap, off: int, buf: np.ndarray, w: np.ndarray, fb: np.ndarray
) -> None:
    """Parse the weights the fast path left over with Python's own ``float()``."""
    starts = (fb[:, 0] + off).tolist()
    ends = (fb[:, 1] + off).tolist()
    try:
        values = np.array([float(raw[s:e]) for s, e in zip(starts, ends, strict=True)], dtype=np.float64)
    except ValueError:
        for j, (s, e) in enumerate(zip(starts, ends, strict=True)):
            try:
                float(raw[s:e])
            except ValueError:
                token = bytes(raw[s:e]).decode("utf-8", errors="replace")
                raise InputError(
                    f"expected a number as the weight, found {token!r}",
                    path=p,
                    line=int(fb[j, 3]),
                    text=_line_text(buf, _line_start(buf, int(fb[j, 0]))),
                    hint="pass weights=False to ignore the third column",
                ) from None
        raise  # pragma: no cover
    nan = np.flatnonzero(np.isnan(values))
    if nan.size:
        j = int(nan[0])
        raise InputError(
            "weights must not be NaN",
            path=p,
            line=int(fb[j, 3]),
            text=_line_text(buf, _line_start(buf, int(fb[j, 0]))),
            hint="drop or fix the edge, or pass weights=False",
        )
    w[fb[:, 2]] = values


def _line_start(buf: np.ndarray, i: int, limit: int = 4096) -> int:
    """Start of the line holding byte ``i`` (looking back at most ``limit`` bytes)."""
    lo = max(0, i - limit)
    back = bytes(buf[lo:i])
    cut = max(back.rfind(b"\n"), back.rfind(b"\r"))
    return lo + cut + 1 if cut >= 0 else lo


def read_edgelist(
    path: str | os.PathLike,
    *,
    weights: bool | None = None,
    skip_rows: int = 0,
    member: str | None = None,
    check_weights: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Read a text edge list into ``(src, dst, weights)`` arrays of original ids.

    One edge per line, ``source target [weight [more columns...]]``, fields separated by any
    run of spaces, tabs or commas. Blank lines and lines starting with ``#`` or ``%`` are
    skipped; ``\\n``, ``\\r\\n`` and ``\\r`` line ends are accepted and the last line may lack
    one. gzip, bzip2 and zip files are decompressed (recognised by their first bytes).

    Parameters
    ----------
    path : str or os.PathLike
        The file to read.
    weights : bool, optional
        ``None`` (default): weighted when the first data line has 3 or more columns, and then
        every line must have a third column (a later line with 3+ columns after a 2-column first
        line is an error). ``True``: the third column is required. ``False``: only the first two
        columns are read.
    skip_rows : int, default 0
        Physical lines to skip at the top (e.g. 1 for a CSV header); line numbers in error
        messages still count from the top of the file.
    member : str, optional
        Member to read from a zip archive holding more than one file.
    check_weights : {None, "nonnegative", "finite-nonnegative"}
        Refuse weights below 0 (``"nonnegative"``, what shortest paths need; ``inf`` passes) or
        also infinite ones (``"finite-nonnegative"``, what PageRank needs), naming the line of
        the first one. NaN is always refused.

    Returns
    -------
    src, dst : ndarray of int64 (uint64 when an id exceeds ``2**63 - 1``)
        Original vertex ids, in file order.
    weights : ndarray of float64 or None
        The third column, parsed exactly as Python's ``float()`` does (``inf`` is allowed).

    Raises
    ------
    InputError
        Naming the file, the 1-based line and its text, with a hint: missing file, a field that
        is not an id, a single column, negative or > 64-bit id, missing or NaN weight, a weight
        that ``check_weights`` refuses, and a file without any edge.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "g.csv")
    >>> _ = open(p, "w").write("# src,dst,w\\n7,9,0.5\\n9,7,2\\n")
    >>> src, dst, w = read_edgelist(p)
    >>> src.tolist(), dst.tolist(), w.tolist()
    ([7, 9], [9, 7], [0.5, 2.0])
    """
    return _read_edgelist(path, weights, skip_rows, member, check_weights, trim=True)


def _read_edgelist(
    path: str | os.PathLike,
    weights: bool | None,
    skip_rows: int,
    member: str | None,
    check_weights: str | None,
    trim: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`read_edgelist`; ``trim=False`` returns views of the parser's arrays even when
    they are much longer than the edges (for a caller that drops them soon: no copy)."""
    p = os.fspath(path)
    if not 0 <= skip_rows < 2**63:
        raise InputError(f"expected skip_rows in 0..2**63-1 (got {skip_rows})", path=p)
    raw, buf, off = _read_buffer(p, member)
    mode = _parse_mode(weights, check_weights)
    parsed = parse_plain(buf, skip_rows, mode)  # a small plain file: numpy, nothing to compile
    if parsed is None:  # a large file: a piece per thread
        parsed = parse_edges_threaded(buf, skip_rows, mode, get_num_threads())
    src, dst, w, k, fb, nfb, big, weighted, err, line, ls, tok = parsed
    if err:
        _raise_parse_error(p, buf, err, line, ls, tok, k)
    if k == 0:
        raise _no_edges_error(p)
    src, dst = (_trim(src, k), _trim(dst, k)) if trim else (src[:k], dst[:k])
    if not big:
        src, dst = src.view(np.int64), dst.view(np.int64)
    if not weighted:
        return src, dst, None
    w = _trim(w, k) if trim else w[:k]
    if nfb:
        _apply_fallback(p, raw, off, buf, w, fb[:nfb])
    _check_weight_rule(p, buf, w, skip_rows, check_weights)
    return src, dst, w


def _read_buffer(p: str, member: str | None) -> tuple[bytes | mmap.mmap, np.ndarray, int]:
    """The file's content, its bytes as a uint8 array without a UTF-8 byte order mark, and the
    offset of that array in the content (3 after a byte order mark, else 0)."""
    raw = _read_raw(p, member)
    buf = np.frombuffer(raw, dtype=np.uint8)
    off = 0
    if buf[:3].tobytes() == b"\xef\xbb\xbf":  # UTF-8 byte order mark
        off = 3
        buf = buf[3:]
    return raw, buf, off


def _parse_mode(weights: bool | None, check_weights: str | None) -> int:
    """The kernel's ``MODE_*`` for ``weights``, after checking both options' values."""
    if weights not in (None, True, False):
        raise ValueError(f"Expected weights to be None, True or False (got {weights!r})")
    if check_weights not in WEIGHT_RULES:
        raise ValueError(f"Expected check_weights in {list(WEIGHT_RULES)} (got {check_weights!r})")
    return {None: _parse.MODE_AUTO, False: _parse.MODE_UNWEIGHTED, True: _parse.MODE_WEIGHTED}[weights]


def _no_edges_error(p: str) -> InputError:
    """The error for a file that parsed without any edge."""
    exc = InputError(
        f"no edges found in {p}",
        hint="the file is empty or holds only blank, comment ('#', '%') or skipped lines",
    )
    exc.path = p
    return exc


def _check_weight_rule(
    p: str, buf: np.ndarray, w: np.ndarray, skip_rows: int, check_weights: str | None
) -> None:
    """Raise at the line of the first weight that ``check_weights`` refuses, if any."""
    bad = first_bad_weight(w, check_weights)
    if bad is not None:
        line, start = _parse.locate_edge(buf, skip_rows, bad)
        raise bad_weight_error(check_weights, w[bad], path=p, line=line, text=_line_text(buf, start))


# check_weights rule -> what it expects
WEIGHT_RULES = {
    None: None,
    "nonnegative": "an edge weight >= 0",
    "finite-nonnegative": "a finite edge weight >= 0",
}


def first_bad_weight(w: np.ndarray | None, rule: str | None) -> int | None:
    """Index of the first weight ``rule`` refuses (see :func:`read_edgelist`), or None."""
    if w is None or rule is None or w.size == 0:
        return None
    ok = w >= 0  # False for NaN
    if rule == "finite-nonnegative":
        ok &= np.isfinite(w)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else None


def bad_weight_error(rule: str, value: float, **where: object) -> InputError:
    """The :class:`InputError` for a weight that ``rule`` refuses, at ``where`` (path, line, text)."""
    return InputError(
        f"expected {WEIGHT_RULES[rule]}, found {float(value)!r}",
        hint="fix or remove that edge, or ignore the weights (weights=False)",
        **where,  # type: ignore[arg-type]
    )


def _trim(a: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` entries; copied when the buffer is much larger, to free the rest."""
    return a[:k].copy() if a.shape[0] > k + k // 4 + 1024 else a[:k]
