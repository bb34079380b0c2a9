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

import os
import zipfile

import numpy as np

from gas.errors import GraphError, InputError
from gas.graph import Graph
from gas.io.atomic import atomic_open

__all__ = ["save", "load_npz", "FORMAT_VERSION"]

FORMAT_NAME = "gaslab-graph"
FORMAT_VERSION = 1
_EDATA = "edata/"


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

    Raises
    ------
    InputError
        When the file is missing, not an ``.npz`` written by :func:`save`, of a newer format
        version, or has inconsistent arrays.

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
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise InputError("file not found", path=p) from None
    except IsADirectoryError:
        raise InputError("expected a file, got a directory", path=p) from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as exc:
        raise _bad(p, f"cannot read it as .npz ({exc})") from None
    if not isinstance(data, dict) or str(data.get("format", "")) != FORMAT_NAME:
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
    for key in ("out_indptr", "src", "dst", "ids", "num_duplicates"):
        if key not in data:
            raise _bad(p, f"array {key!r} is missing")
    indptr, src, dst, ids = data["out_indptr"], data["src"], data["dst"], data["ids"]
    _check_arrays(p, indptr, src, dst, ids)
    m = src.shape[0]
    edata = {}
    for key, col in data.items():
        if key.startswith(_EDATA):
            if col.shape[:1] != (m,):
                raise _bad(p, f"edge column {key[len(_EDATA) :]!r} has {col.shape[:1]} rows, not {m}")
            edata[key[len(_EDATA) :]] = col
    return Graph(indptr, src, dst, ids, edata, num_duplicates=int(data["num_duplicates"]))


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
