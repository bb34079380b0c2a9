"""The binary graph format: a numpy ``.npz`` archive of the CSR arrays, ids and edge columns.

Layout (format version 1), every entry a plain array, no pickled objects:

``format``        the string ``"gaslab-graph"``
``version``       int64 scalar, currently 1
``out_indptr``    int64, ``n + 1`` entries
``src``, ``dst``  int64, ``m`` entries each, in CSR order
``ids``           int64 or uint64, ``n`` entries (original vertex ids)
``num_duplicates`` int64 scalar
``edata/NAME``    one array per edge column, ``m`` rows

The CSC (in-edge) arrays are rebuilt on load: a counting sort is cheaper than reading them.
"""

from __future__ import annotations

import math
import os
import zipfile
from dataclasses import dataclass

import numpy as np

from gas.errors import GraphError, InputError
from gas.graph import Graph
from gas.io.atomic import atomic_open

__all__ = ["save", "load_npz", "FORMAT_VERSION"]

FORMAT_NAME = "gaslab-graph"
FORMAT_VERSION = 1
_EDATA = "edata/"
_PIECE = 1 << 18  # bytes read at a time
_DEFLATE_MAX_RATIO = 1032  # deflate never expands a stream by more (258 bytes from 2 bits)


def save(graph: Graph, path: str | os.PathLike, *, compress: bool = False) -> None:
    """Write ``graph`` to ``path`` in the binary ``.npz`` format, atomically.

    The file is written beside ``path`` under a temporary name and renamed over it when complete,
    so a reader sees either the old file or the whole new one. The name is used exactly as given
    (no ``.npz`` is appended).

    Parameters
    ----------
    graph : Graph
    path : str or os.PathLike
    compress : bool, default False
        Deflate the arrays (smaller, slower to write and read).

    Raises
    ------
    GraphError
        When vertex ids or an edge column have dtype ``object`` (they would need pickle).

    Examples
    --------
    >>> import os, tempfile
    >>> import gas
    >>> p = os.path.join(tempfile.mkdtemp(), "g.npz")
    >>> save(gas.Graph.from_edges([5, 6], [6, 7], weights=[1.0, 2.0]), p)
    >>> g = load_npz(p)
    >>> g.ids.tolist(), g.weights.tolist()
    ([5, 6, 7], [1.0, 2.0])
    """
    if graph.ids.dtype == object:
        raise GraphError(
            "cannot save vertex ids of dtype object in the binary format (it stores plain "
            "arrays, no pickle); relabel the vertices with integers first"
        )
    arrays: dict[str, np.ndarray] = {
        "format": np.array(FORMAT_NAME),
        "version": np.array(FORMAT_VERSION, dtype=np.int64),
        "out_indptr": np.asarray(graph.out_indptr, dtype=np.int64),
        "src": np.asarray(graph.src, dtype=np.int64),
        "dst": np.asarray(graph.dst, dtype=np.int64),
        "ids": graph.ids,
        "num_duplicates": np.array(graph.num_duplicates, dtype=np.int64),
    }
    for name, col in graph.edata.items():
        if np.asarray(col).dtype == object:
            raise GraphError(
                f"cannot save edge column {name!r} of dtype object in the binary format; "
                "convert it to a numeric or fixed-width string array first"
            )
        arrays[_EDATA + name] = np.asarray(col)
    writer = np.savez_compressed if compress else np.savez
    with atomic_open(path, "wb") as f:
        writer(f, allow_pickle=False, **arrays)


def _bad(p: str, what: str) -> InputError:
    return InputError(
        f"not a gaslab binary graph: {what}",
        path=p,
        hint="write the file with gas.save(graph, path), or load a text edge list instead",
    )


def load_npz(path: str | os.PathLike) -> Graph:
    """Read a graph written by :func:`save`, checking the format version and array shapes.

    Every array's header (shape and dtype) is read and checked first: against the bytes the
    archive holds for it, against the other arrays' shapes, and against the dtypes of the
    format. Only then are the arrays allocated and read, so a header that claims more than the
    file can hold is an error, not an allocation. No pickled object is ever loaded.

    Raises
    ------
    InputError
        When the file is missing, not an ``.npz`` written by :func:`save`, of a newer format
        version, claims more data than it holds, has a non-numeric ``weight`` column or an
        object array, or has inconsistent arrays.

    Examples
    --------
    >>> import os, tempfile
    >>> import gas
    >>> p = os.path.join(tempfile.mkdtemp(), "g.npz")
    >>> save(gas.Graph.from_edges([0, 1], [1, 2]), p)
    >>> load_npz(p).num_edges
    2
    """
    p = os.fspath(path)
    data = _read_npz(p)
    if str(data.get("format", "")) != FORMAT_NAME:
        raise _bad(p, f"no {FORMAT_NAME!r} format marker")
    version = data.get("version")
    if version is None or version.shape != () or version.dtype.kind not in "iu":
        raise _bad(p, "missing format version")
    if int(version) != FORMAT_VERSION:
        raise InputError(
            f"unsupported binary format version {int(version)} (this gaslab reads version {FORMAT_VERSION})",
            path=p,
            hint="upgrade gaslab, or re-create the file from the text edge list",
        )
    indptr, src, dst, ids = data["out_indptr"], data["src"], data["dst"], data["ids"]
    _check_arrays(p, indptr, src, dst, ids)
    edata = {key[len(_EDATA) :]: col for key, col in data.items() if key.startswith(_EDATA)}
    dups = data["num_duplicates"]
    if dups.shape != () or dups.dtype.kind not in "iu":
        raise _bad(p, f"'num_duplicates' should be an integer scalar (got {dups.dtype}, shape {dups.shape})")
    return Graph(indptr, src, dst, ids, edata, num_duplicates=int(dups))


@dataclass(frozen=True)
class _Entry:
    """One ``.npy`` member of the archive, as its header describes it."""

    info: zipfile.ZipInfo
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran: bool
    offset: int  # bytes of the .npy header: the data follows

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def _read_npz(p: str) -> dict[str, np.ndarray]:
    """Every ``.npy`` array of the archive ``p``, read after all headers have been checked."""
    try:
        size = os.path.getsize(p)
        z = zipfile.ZipFile(p)
    except FileNotFoundError:
        raise InputError("file not found", path=p) from None
    except IsADirectoryError:
        raise InputError("expected a file, got a directory", path=p) from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise _bad(p, f"cannot read it as .npz ({exc})") from None
    with z:
        entries = {
            info.filename[: -len(".npy")]: _entry(p, z, info, size)
            for info in z.infolist()
            if info.filename.endswith(".npy")
        }
        _check_entries(p, entries)
        return {key: _read_entry(p, z, key, e) for key, e in entries.items()}


def _entry(p: str, z: zipfile.ZipFile, info: zipfile.ZipInfo, size: int) -> _Entry:
    """Read and check one member's ``.npy`` header (nothing of its data is allocated)."""
    key = info.filename[: -len(".npy")]
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _bad(
            p, f"array {key!r} uses zip compression method {info.compress_type} (gas.save writes 0 or 8)"
        )
    # what the file can hold for this member: its stored bytes, or deflate's largest expansion
    room = info.compress_size * (1 if info.compress_type == zipfile.ZIP_STORED else _DEFLATE_MAX_RATIO)
    if info.header_offset + info.compress_size > size or info.file_size > room:
        raise _bad(
            p,
            f"array {key!r} claims {info.file_size:,} bytes ({info.compress_size:,} compressed) "
            f"but the file is {size:,} bytes long",
        )
    try:
        with z.open(info) as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError(f".npy format version {version} (gas.save writes 1.0 or 2.0)")
            offset = f.tell()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:  # a CRC or a truncated member
        raise _bad(p, f"array {key!r} is corrupt ({exc})") from None
    except (ValueError, SyntaxError) as exc:
        raise _bad(p, f"array {key!r} has no valid .npy header ({exc})") from None
    if dtype.hasobject:
        raise _bad(p, f"array {key!r} holds Python objects (dtype {dtype}), which would need pickle: refused")
    e = _Entry(info, tuple(int(s) for s in shape), dtype, bool(fortran), int(offset))
    held = info.file_size - e.offset
    if e.nbytes != held:
        raise _bad(
            p,
            f"the header of array {key!r} claims shape {e.shape} of {dtype} ({_human(e.nbytes)}), "
            f"but the file holds {held:,} bytes for it (file size {size:,} bytes)",
        )
    return e


def _human(nbytes: int) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} bytes"


def _check_entries(p: str, entries: dict[str, _Entry]) -> None:
    """Shapes and dtypes from the headers, before anything is allocated."""
    if "format" not in entries:
        raise _bad(p, f"no {FORMAT_NAME!r} format marker")
    if "version" not in entries:
        raise _bad(p, "missing format version")
    for key in ("out_indptr", "src", "dst", "ids", "num_duplicates"):
        if key not in entries:
            raise _bad(p, f"array {key!r} is missing")
    for name in ("out_indptr", "src", "dst"):
        e = entries[name]
        if len(e.shape) != 1 or e.dtype != np.int64:
            raise _bad(p, f"{name!r} should be a 1-D int64 array (got {e.dtype}, shape {e.shape})")
    ids = entries["ids"]
    if len(ids.shape) != 1 or ids.dtype not in (np.int64, np.uint64):
        raise _bad(p, f"'ids' should be a 1-D int64/uint64 array (got {ids.dtype}, shape {ids.shape})")
    n = entries["out_indptr"].shape[0] - 1
    m = entries["src"].shape[0]
    if n < 0 or ids.shape[0] != n:
        raise _bad(p, f"{ids.shape[0]} ids for {max(n, 0)} vertices")
    if entries["dst"].shape[0] != m:
        raise _bad(p, f"'dst' has {entries['dst'].shape[0]} entries, 'src' {m}")
    for key, e in entries.items():
        if not key.startswith(_EDATA):
            continue
        name = key[len(_EDATA) :]
        if e.shape[:1] != (m,):
            raise _bad(p, f"edge column {name!r} has {e.shape[:1]} rows, not {m}")
        if name == "weight" and (len(e.shape) != 1 or e.dtype.kind not in "biuf"):
            raise InputError(
                f"the 'weight' edge column should hold one real number per edge (got {e.dtype}, "
                f"shape {e.shape})",
                path=p,
                hint="save the graph with numeric weights (e.g. weights=np.asarray(w, float))",
            )


def _read_entry(p: str, z: zipfile.ZipFile, key: str, e: _Entry) -> np.ndarray:
    """Allocate one checked array and fill it from the archive."""
    buf = np.empty(e.nbytes, np.uint8)
    view = memoryview(buf)
    try:
        with z.open(e.info) as f:
            f.read(e.offset)
            got = 0
            while got < e.nbytes:  # in small pieces: a read of the whole array costs a copy more
                piece = f.read(min(_PIECE, e.nbytes - got))
                if not piece:
                    break
                view[got : got + len(piece)] = piece
                got += len(piece)
            f.read(1)  # reach the end of the member: zipfile checks its CRC there
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise _bad(p, f"array {key!r} cannot be read ({exc})") from None
    if got != e.nbytes:
        raise _bad(p, f"array {key!r} is truncated ({got:,} of {e.nbytes:,} bytes)")
    try:
        arr = buf.view(e.dtype).reshape(e.shape, order="F" if e.fortran else "C")
    except (ValueError, TypeError) as exc:  # e.g. a zero-size dtype in a crafted header
        raise _bad(p, f"array {key!r} of {e.dtype} cannot be read ({exc})") from None
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _check_arrays(p: str, indptr: np.ndarray, src: np.ndarray, dst: np.ndarray, ids: np.ndarray) -> None:
    for name, a in (("out_indptr", indptr), ("src", src), ("dst", dst)):
        if a.ndim != 1 or a.dtype != np.int64:
            raise _bad(p, f"{name!r} should be a 1-D int64 array (got {a.dtype}, shape {a.shape})")
    if ids.ndim != 1 or ids.dtype not in (np.int64, np.uint64):
        raise _bad(p, f"'ids' should be a 1-D int64/uint64 array (got {ids.dtype})")
    n = indptr.shape[0] - 1
    m = src.shape[0]
    if n < 0 or ids.shape[0] != n:
        raise _bad(p, f"{ids.shape[0]} ids for {max(n, 0)} vertices")
    if dst.shape[0] != m or indptr[0] != 0 or indptr[-1] != m or np.any(np.diff(indptr) < 0):
        raise _bad(p, "CSR arrays are inconsistent")
    if m and (dst.min() < 0 or dst.max() >= n):
        raise _bad(p, "an edge target is outside 0..n-1")
    if not np.array_equal(src, np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))):
        raise _bad(p, "'src' does not match 'out_indptr'")
