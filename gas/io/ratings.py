"""Read ``user item rating [timestamp ...]`` files into a bipartite ratings graph.

Users and items are two id spaces: user ``5`` and item ``5`` are different vertices. A
:class:`Ratings` keeps one rating per row with internal user ids ``0..U-1`` and item ids
``0..I-1`` and the original ids of both; :meth:`Ratings.graph` builds the bipartite
:class:`~gas.Graph` the factorization programs run on (users are vertices ``0..U-1``, items
``U..U+I-1``, one edge ``user -> item`` per rating, the rating as its ``weight``).

Accepted text (plain, gzip, bzip2 or zip, recognised by the first bytes): fields separated by
spaces, tabs, commas or ``::`` (MovieLens ``ratings.dat``); one optional header line (recognised
when its third field is not a number, as in MovieLens ``ratings.csv``); blank lines and lines
starting with ``#`` or ``%`` skipped; columns after the third (timestamps) ignored. Integer ids
are read by the Numba edge-list parser; a file with other ids (``A3F...``, ISBNs) is read again
with every id kept as a string.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from gas.errors import InputError
from gas.graph import Graph
from gas.io import _parse
from gas.io.edgelist import _line_start, _line_text, _read_raw, _token_text

__all__ = ["Ratings", "read_pairs", "read_ratings"]

# zip members read by default when an archive holds several files (MovieLens, FilmTrust)
_KNOWN_MEMBERS = ("ratings.csv", "ratings.dat", "u.data", "ratings.txt")
_FIELD_SPLIT = re.compile(rb"[ \t,]+")

#: Bytes the parser allocates per byte of (decompressed) text: room for ``len // 8`` rows of
#: user, item and rating (8 bytes each), then the compacted ids; checked against the available
#: memory before parsing.
_PARSE_BYTES_PER_TEXT_BYTE = 4


def _check_parse_memory(p: str, nbytes: int) -> None:
    """Refuse (InputError) text whose parse would need more than the available memory."""
    from gas.io.limits import available_memory

    need, avail = nbytes * _PARSE_BYTES_PER_TEXT_BYTE, available_memory()
    if need > avail:
        raise InputError(
            f"parsing these {nbytes / 2**30:,.2f} GiB of text would need about {need / 2**30:,.2f} GiB "
            f"more; {avail / 2**30:,.2f} GiB are available",
            path=p,
            hint="split the file, or run where there is more memory",
        )


@dataclass
class Ratings:
    """Ratings as parallel arrays with separate user and item id spaces.

    Attributes
    ----------
    user, item : ndarray of int64
        Internal ids of each rating's user (``0..num_users-1``) and item (``0..num_items-1``).
    rating : ndarray of float64
        The ratings, all finite.
    user_ids, item_ids : ndarray
        Original ids, sorted: ``user_ids[user[j]]`` is the user of rating ``j`` as written in the
        file (int64, uint64, or object for string ids).
    path : str or None
        The file read, if any.

    Examples
    --------
    >>> r = Ratings.from_arrays([10, 10, 7], [5, 6, 5], [4.0, 3.5, 1.0])
    >>> r.num_users, r.num_items, len(r)
    (2, 2, 3)
    >>> r.user_ids.tolist(), r.user.tolist()
    ([7, 10], [1, 1, 0])
    >>> g = r.graph()   # users 0..1, items 2..3
    >>> g.num_vertices, g.src.tolist(), g.dst.tolist(), g.weights.tolist()
    (4, [0, 1, 1], [2, 2, 3], [1.0, 4.0, 3.5])
    """

    user: np.ndarray
    item: np.ndarray
    rating: np.ndarray
    user_ids: np.ndarray
    item_ids: np.ndarray
    path: str | None = None
    _lookup: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def num_users(self) -> int:
        return int(self.user_ids.shape[0])

    @property
    def num_items(self) -> int:
        return int(self.item_ids.shape[0])

    def __len__(self) -> int:
        return int(self.rating.shape[0])

    @property
    def mean(self) -> float:
        """The global mean rating (0.0 when empty)."""
        return float(self.rating.mean()) if len(self) else 0.0

    @classmethod
    def from_arrays(cls, users: Any, items: Any, ratings: Any, path: str | None = None) -> Ratings:
        """Build from three equal-length sequences of original user ids, item ids and ratings.

        Ids may be integers or strings; ratings must be finite numbers.

        Raises
        ------
        InputError
            On unequal lengths or a rating that is NaN or infinite.
        """
        u = np.asarray(users)
        it = np.asarray(items)
        r = np.asarray(ratings, dtype=np.float64)
        if not (u.ndim == it.ndim == r.ndim == 1) or not (u.shape == it.shape == r.shape):
            raise InputError(
                f"expected three 1-D arrays of equal length (got shapes {u.shape}, {it.shape}, {r.shape})",
                path=path,
            )
        bad = np.flatnonzero(~np.isfinite(r))
        if bad.size:
            j = int(bad[0])
            raise InputError(
                f"ratings must be finite numbers; rating {j} (user {u[j]!r}, item {it[j]!r}) is {r[j]}",
                path=path,
                hint="drop or fix that rating",
            )
        uid, ui = _compact(u)
        iid, ii = _compact(it)
        return cls(ui, ii, r, uid, iid, path)

    def graph(self, *, dedupe: bool = True) -> Graph:
        """The bipartite graph: users ``0..U-1``, items ``U..U+I-1``, edge ``user -> item``.

        Edge weights are the ratings. With ``dedupe`` (default) a repeated (user, item) pair
        keeps its last rating, as a dict would; :attr:`Graph.num_duplicates` counts them.
        """
        u = self.num_users
        return Graph.from_edges(
            self.user,
            self.item + u,
            num_vertices=u + self.num_items,
            weights=self.rating,
            dedupe=dedupe,
        )

    def subset(self, rows: np.ndarray) -> Ratings:
        """The ratings at ``rows``, with id spaces shrunk to the users and items that remain."""
        rows = np.asarray(rows)
        uid, ui = _compact(self.user[rows])
        iid, ii = _compact(self.item[rows])
        return Ratings(ui, ii, self.rating[rows].copy(), self.user_ids[uid], self.item_ids[iid], self.path)

    def split(self, test_fraction: float = 0.2, seed: int = 0) -> tuple[Ratings, Ratings]:
        """A random train/test split of the rows (each rating lands in test with this chance).

        Exactly ``round(test_fraction * len(self))`` ratings, chosen by a permutation from
        ``numpy.random.default_rng(seed)``, go to the test set. Each part has its own id spaces,
        so the test set may hold users or items the training set never saw (cold start).

        Examples
        --------
        >>> r = Ratings.from_arrays([1, 1, 2, 2, 3], [1, 2, 1, 2, 1], [1.0, 2, 3, 4, 5])
        >>> train, test = r.split(0.4, seed=0)
        >>> len(train), len(test)
        (3, 2)
        """
        if not 0.0 <= test_fraction < 1.0:
            raise InputError(f"expected test_fraction in [0, 1) (got {test_fraction})")
        n = len(self)
        perm = np.random.default_rng(seed).permutation(n)
        n_test = int(round(test_fraction * n))
        test_rows = np.sort(perm[:n_test])
        train_rows = np.sort(perm[n_test:])
        return self.subset(train_rows), self.subset(test_rows)

    def original(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(user ids, item ids, ratings)`` per row, with original ids."""
        return self.user_ids[self.user], self.item_ids[self.item], self.rating


def _compact(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct ids and each entry's index among them (sort + neighbour mask)."""
    if ids.dtype.kind == "f" and np.all(np.isfinite(ids)) and np.all(ids == np.floor(ids)):
        ids = ids.astype(np.int64)
    if ids.dtype.kind not in "iu":
        ids = ids.astype(str).astype(object)
        uniq, inv = np.unique(ids, return_inverse=True)
        return uniq, inv.astype(np.int64).ravel()
    if ids.shape[0] == 0:
        return ids.astype(np.int64), np.zeros(0, np.int64)
    s = np.sort(ids)
    keep = np.empty(s.shape[0], np.bool_)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    uniq = s[keep]
    return uniq, np.searchsorted(uniq, ids).astype(np.int64)


def _pick_member(p: str) -> str | None:
    """The ratings member of a zip holding several files, or None to let the reader decide."""
    import zipfile

    if not zipfile.is_zipfile(p):
        return None
    with zipfile.ZipFile(p) as z:
        names = [
            i.filename for i in z.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")
        ]
    if len(names) <= 1:
        return None
    for want in _KNOWN_MEMBERS:
        hits = [n for n in names if PurePosixPath(n).name == want]
        if len(hits) == 1:
            return hits[0]
    raise InputError(
        f"zip archive holds {len(names)} files and none is named {' or '.join(_KNOWN_MEMBERS)}",
        path=p,
        hint=f"name the one to read with member=..., one of {names[:10]}",
    )


def _is_number(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _data_lines(buf: bytes, want: int = 2) -> list[tuple[int, bytes]]:
    """1-based numbers and texts of the first ``want`` lines that are not blank or comments."""
    out: list[tuple[int, bytes]] = []
    pos, line = 0, 0
    n = len(buf)
    while pos < n and len(out) < want:
        end = buf.find(b"\n", pos)
        end = n if end < 0 else end
        line += 1
        text = buf[pos:end].rstrip(b"\r").strip()
        if text and text[:1] not in (b"#", b"%"):
            out.append((line, text))
        pos = end + 1
    return out


def _prepare(p: str, member: str | None) -> tuple[bytes, int, bytes, bytes | None]:
    """File content (decompressed, without a byte order mark, ``::`` turned into tabs), the
    number and text of the first data line (0 and ``b""`` if none), and the second's text."""
    if member is None:
        member = _pick_member(p)
    raw = _read_raw(p, member)
    data = raw if isinstance(raw, bytes) else bytes(raw)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    lines = _data_lines(data)
    if not lines:
        return data, 0, b"", None
    if b"::" in lines[0][1]:
        data = data.replace(b"::", b"\t")
        lines = [(n, t.replace(b"::", b"\t")) for n, t in lines]
    second = lines[1][1] if len(lines) > 1 else None
    return data, lines[0][0], lines[0][1], second


def read_ratings(
    path: str | os.PathLike,
    *,
    header: bool | None = None,
    member: str | None = None,
) -> Ratings:
    """Read a ratings file: one ``user item rating [more columns]`` per line.

    Parameters
    ----------
    path : str or os.PathLike
        Plain text, gzip, bzip2, or zip (a zip holding several files is read from its
        ``ratings.csv``, ``ratings.dat``, ``u.data`` or ``ratings.txt`` member).
    header : bool, optional
        Whether the first data line is a header. ``None`` (default): it is when its third field
        is not a number (``userId,movieId,rating,timestamp``).
    member : str, optional
        The zip member to read.

    Returns
    -------
    Ratings

    Raises
    ------
    InputError
        Naming the file, the 1-based line and its text, with a hint: a missing file, an empty
        file, fewer than three columns, a rating that is not a number or is NaN or infinite, an
        id written as a fractional number, a file whose parse would need more than the
        available memory (about 4 bytes per byte of text, checked before parsing). (Ids that
        are not non-negative integers, such as ``-3`` or ``A3F``, are kept as strings.)

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "ratings.dat")
    >>> _ = open(p, "w").write("1::31::2.5::1260759144\\n1::1029::3.0::1260759179\\n7::31::4\\n")
    >>> r = read_ratings(p)
    >>> r.num_users, r.num_items, r.rating.tolist()
    (2, 2, [2.5, 3.0, 4.0])
    >>> r.item_ids.tolist()
    [31, 1029]
    """
    p = os.fspath(path)
    data, first_line, first, _ = _prepare(p, member)
    if first_line == 0:
        raise InputError(
            "no ratings found (the file is empty or holds only blank or comment lines)",
            path=p,
            hint="expected lines of 'user item rating', separated by spaces, tabs, commas or '::'",
        )
    fields = _FIELD_SPLIT.split(first)
    if header is None:
        header = len(fields) >= 3 and not _is_number(fields[2])
    skip = first_line if header else 0
    try:
        return _read_fast(p, data, skip)
    except _StringIds:
        return _read_strings(p, data, skip)


class _StringIds(Exception):
    """The fast parser met an id that is not an integer: read ids as strings instead."""


def _read_fast(p: str, data: bytes, skip: int) -> Ratings:
    _check_parse_memory(p, len(data))
    buf = np.frombuffer(data, dtype=np.uint8)
    capacity = buf.shape[0] // 8 + 16
    src, dst, w, k, fb, nfb, big, _, err, line, ls, tok = _parse.parse_edges(
        buf, skip, _parse.MODE_WEIGHTED, capacity
    )
    if err:
        token = _token_text(buf, tok)
        text = _line_text(buf, ls)
        if err == _parse.ERR_ID_TOKEN:
            if not _is_number(token.encode()):
                raise _StringIds
            raise InputError(
                f"expected a whole-number id, found {token!r}",
                path=p,
                line=line,
                text=text,
                hint="ids are integers (or names without spaces); fix the line",
            )
        if err == _parse.ERR_NEGATIVE_ID:
            raise _StringIds
        if err in (_parse.ERR_ONE_COLUMN, _parse.ERR_NO_WEIGHT):
            raise InputError(
                "expected 3 columns (user item rating), found fewer",
                path=p,
                line=line,
                text=text,
                hint="columns are separated by spaces, tabs, commas or '::'",
            )
        if err == _parse.ERR_ID_TOO_LARGE:
            raise _StringIds
        raise InputError(f"cannot parse this line (parser code {err})", path=p, line=line, text=text)
    if k == 0:
        raise InputError(
            "no ratings found (only a header, blank or comment lines)",
            path=p,
            hint="expected lines of 'user item rating'",
        )
    src, dst, w = src[:k], dst[:k], w[:k]
    if not big:
        src, dst = src.view(np.int64), dst.view(np.int64)
    if nfb:
        fbk = fb[:nfb]
        starts, ends = fbk[:, 0].tolist(), fbk[:, 1].tolist()
        vals = np.empty(nfb, np.float64)
        for j, (s, e) in enumerate(zip(starts, ends)):
            token = data[s:e]
            try:
                x = float(token)
            except ValueError:
                x = None
            if x is None or not np.isfinite(x):
                lno = int(fbk[j, 3])
                what = "is not a number" if x is None else "is not finite"
                raise InputError(
                    f"the rating {token.decode('utf-8', 'replace')!r} {what}",
                    path=p,
                    line=lno,
                    text=_line_text(buf, _line_start(buf, s)),
                    hint="ratings must be finite numbers; drop or fix the line",
                )
            vals[j] = x
        w[fbk[:, 2]] = vals
    uid, ui = _compact(src)
    iid, ii = _compact(dst)
    return Ratings(ui, ii, np.ascontiguousarray(w), uid, iid, p)


def _read_strings(p: str, data: bytes, skip: int) -> Ratings:
    """Slow path for ids that are not non-negative integers: every id kept as a string."""
    users: list[str] = []
    items: list[str] = []
    vals: list[float] = []
    for lno, raw_line in enumerate(data.splitlines(), start=1):
        if lno <= skip:
            continue
        text = raw_line.strip()
        if not text or text[:1] in (b"#", b"%"):
            continue
        f = _FIELD_SPLIT.split(text)
        shown = text.decode("utf-8", "replace")[:120]
        if len(f) < 3:
            raise InputError(
                "expected 3 columns (user item rating), found fewer",
                path=p,
                line=lno,
                text=shown,
                hint="columns are separated by spaces, tabs, commas or '::'",
            )
        try:
            x = float(f[2])
        except ValueError:
            x = None
        if x is None or not np.isfinite(x):
            what = "is not a number" if x is None else "is not finite"
            raise InputError(
                f"the rating {f[2].decode('utf-8', 'replace')!r} {what}",
                path=p,
                line=lno,
                text=shown,
                hint="ratings must be finite numbers; drop or fix the line",
            )
        users.append(f[0].decode("utf-8", "replace"))
        items.append(f[1].decode("utf-8", "replace"))
        vals.append(x)
    if not vals:
        raise InputError("no ratings found (only a header, blank or comment lines)", path=p)
    return Ratings.from_arrays(
        np.array(users, dtype=object), np.array(items, dtype=object), np.array(vals), path=p
    )


def read_pairs(
    path: str | os.PathLike,
    *,
    header: bool | None = None,
    member: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Read ``user item [more columns]`` lines (pairs to predict); extra columns are ignored.

    Same text formats as :func:`read_ratings`. With ``header=None`` the first data line is a
    header when one of its first two fields is not a number but the second line's both are.

    Returns
    -------
    users, items : ndarray
        Original ids in file order: int64 (uint64 past ``2**63 - 1``) when every id is a
        non-negative integer, else strings (object arrays).

    Raises
    ------
    InputError
        For a missing or empty file or a line with a single column.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "pairs.csv")
    >>> _ = open(p, "w").write("user,item\\n1,31\\n7,5,4.5\\n")
    >>> users, items = read_pairs(p)
    >>> users.tolist(), items.tolist()
    ([1, 7], [31, 5])
    """
    p = os.fspath(path)
    data, first_line, first, second = _prepare(p, member)
    if first_line == 0:
        raise InputError("no pairs found (the file is empty or holds only blank or comment lines)", path=p)
    if header is None:
        f1 = _FIELD_SPLIT.split(first)[:2]
        f2 = _FIELD_SPLIT.split(second)[:2] if second is not None else []
        header = not all(_is_number(x) for x in f1) and len(f2) == 2 and all(_is_number(x) for x in f2)
    skip = first_line if header else 0
    _check_parse_memory(p, len(data))
    buf = np.frombuffer(data, dtype=np.uint8)
    src, dst, _, k, _, _, big, _, err, line, ls, tok = _parse.parse_edges(
        buf, skip, _parse.MODE_UNWEIGHTED, buf.shape[0] // 4 + 16
    )
    if err == _parse.ERR_ONE_COLUMN:
        raise InputError(
            "expected 2 columns (user item), found 1",
            path=p,
            line=line,
            text=_line_text(buf, ls),
            hint="columns are separated by spaces, tabs, commas or '::'",
        )
    if not err:
        if k == 0:
            raise InputError("no pairs found (only a header, blank or comment lines)", path=p)
        src, dst = src[:k], dst[:k]
        if not big:
            src, dst = src.view(np.int64), dst.view(np.int64)
        return src.copy(), dst.copy()
    users: list[str] = []
    items: list[str] = []
    for lno, raw_line in enumerate(data.splitlines(), start=1):
        text = raw_line.strip()
        if lno <= skip or not text or text[:1] in (b"#", b"%"):
            continue
        f = _FIELD_SPLIT.split(text)
        if len(f) < 2:
            raise InputError(
                "expected 2 columns (user item), found 1",
                path=p,
                line=lno,
                text=text.decode("utf-8", "replace")[:120],
            )
        users.append(f[0].decode("utf-8", "replace"))
        items.append(f[1].decode("utf-8", "replace"))
    if not users:
        raise InputError("no pairs found (only a header, blank or comment lines)", path=p)
    return np.array(users, dtype=object), np.array(items, dtype=object)
