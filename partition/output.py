"""Writing an assignment as TSV, atomically, with a jitted integer formatter.

Vertex-cut: one line per edge, ``src<TAB>dst<TAB>part``, in the graph's edge order.
Edge-cut: one line per vertex, ``vertex_id<TAB>part``. Ids are the original ids when ``ids``
is given (``graph.ids``), else the internal ``0..n-1``.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from gas.io.atomic import atomic_open

__all__ = ["write_assignment"]

_CHUNK = 1 << 18


@njit(cache=True)
def _format_rows(a, b, c, ncols, buf):
    """Write rows ``a[i] TAB b[i] [TAB c[i]] LF`` of non-negative ints into ``buf``."""
    pos = 0
    digits = np.empty(20, np.uint8)
    for i in range(a.shape[0]):
        for col in range(ncols):
            x = a[i] if col == 0 else (b[i] if col == 1 else c[i])
            k = 0
            while True:
                digits[k] = 48 + x % 10
                x //= 10
                k += 1
                if x == 0:
                    break
            for j in range(k - 1, -1, -1):
                buf[pos] = digits[j]
                pos += 1
            buf[pos] = 9 if col < ncols - 1 else 10
            pos += 1
    return pos


def _columns_int64(ids: np.ndarray | None) -> bool:
    if ids is None:
        return True
    if ids.dtype.kind == "i":
        return True
    return ids.dtype.kind == "u" and (ids.size == 0 or int(ids.max()) < 2**63)


def write_assignment(assignment, path: str | os.PathLike, ids: np.ndarray | None = None) -> None:
    """Write ``assignment`` to ``path`` as TSV (see the module docstring); atomic.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from gas.partition import VertexCut
    >>> a = VertexCut(np.array([1, 0]), np.array([0, 1]), np.array([1, 2]), 3, 2)
    >>> p = os.path.join(tempfile.mkdtemp(), "a.tsv")
    >>> write_assignment(a, p, ids=np.array([10, 20, 30]))
    >>> open(p).read()
    '10\\t20\\t1\\n20\\t30\\t0\\n'
    """
    if assignment.kind == "vertex-cut":
        cols = (assignment.src, assignment.dst, assignment.edge_part)
        id_cols = (0, 1)
        rows = assignment.num_edges
    else:
        cols = (np.arange(assignment.num_vertices), assignment.vertex_part, assignment.vertex_part)
        id_cols = (0,)
        rows = assignment.num_vertices
    ncols = 3 if assignment.kind == "vertex-cut" else 2
    fast = _columns_int64(ids)
    with atomic_open(path, "wb") as f:
        for lo in range(0, rows, _CHUNK):
            hi = min(rows, lo + _CHUNK)
            chunk = []
            for j, col in enumerate(cols):
                x = col[lo:hi]
                if ids is not None and j in id_cols:
                    x = ids[x]
                chunk.append(x)
            if fast:
                a, b, c = (np.ascontiguousarray(x, dtype=np.int64) for x in chunk)
                buf = np.empty((hi - lo) * (ncols * 21), np.uint8)
                f.write(buf[: _format_rows(a, b, c, ncols, buf)].tobytes())
            else:
                lines = zip(*(x.tolist() for x in chunk[:ncols]), strict=True)
                f.write("".join("\t".join(map(str, r)) + "\n" for r in lines).encode())
