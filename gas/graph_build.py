"""Input checks and conversions behind the :class:`~gas.graph.Graph` constructors.

Vertex ids as integer arrays (checked, named after the user's argument or column), labels of
any hashable kind factorized once (pandas columns), the typed vertex and edge columns read
from a networkx graph's attributes, and a large graph's arrays built in-edges first (the CSC
from the edge arrays, the CSR only when read; gas._build holds the CSR-first builds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import get_num_threads, njit, prange

from gas import _build
from gas._build import _empty, _fill_starts, _parts, _prefix
from gas.errors import GraphError

__all__ = [
    "as_id_array",
    "edge_columns",
    "pandas_edges",
    "networkx_columns",
    "in_edges_first",
    "build_in_edges",
    "out_edges_of",
    "out_offsets",
    "csr_of",
]

_INT64_MAX = np.iinfo(np.int64).max


def edge_columns(
    shape: tuple[int, ...], weights: Any, edge_data: dict[str, Any] | None
) -> dict[str, np.ndarray]:
    """The edge columns of :meth:`Graph.from_edges`: ``"weight"`` then ``edge_data``, checked
    to hold one value per edge (``shape`` is the shape of the id arrays).

    Examples
    --------
    >>> sorted(edge_columns((2,), [1, 2], {"t": [3, 4]}))
    ['t', 'weight']
    """
    cols: dict[str, np.ndarray] = {}
    if weights is not None:
        try:
            w = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise GraphError(f"Expected numeric edge weights ({exc})") from None
        if w.shape != shape:
            raise GraphError(f"Expected one weight per edge ({shape[0]}) (got {w.shape[0] if w.ndim else 0})")
        cols["weight"] = w
    for k, v in (edge_data or {}).items():
        arr = np.asarray(v)
        if arr.shape[:1] != shape:
            raise GraphError(f"Expected edge column '{k}' to have one value per edge")
        cols[k] = arr
    return cols


def as_id_array(a: Any, what: str) -> np.ndarray:
    """``a`` as an int64 array of vertex ids (uint64 when one is past ``2**63 - 1``).

    ``what`` names the input in errors, as the user wrote it (``"'src'"``, ``"column 'FromNodeId'"``).

    Examples
    --------
    >>> as_id_array([3.0, 4.0], "'src'").tolist()
    [3, 4]
    """
    arr = np.asarray(a)
    if arr.dtype.kind in "fO" and not isinstance(a, np.ndarray):
        arr = _exact_ints(a, arr, what)
    if arr.ndim != 1:
        raise GraphError(f"Expected {what} to be a 1-D array of vertex ids (got shape {arr.shape})")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise GraphError(
                f"Expected {what} to hold whole-number vertex ids (got {arr.dtype} with a fraction, "
                "NaN or inf)"
            )
        if np.abs(arr).max() > 2**53:  # not every whole number is a float past 2**53
            raise GraphError(
                f"Expected {what} to hold integer vertex ids: {arr.dtype} ids past 2**53 are "
                "not exact; pass an int64 or uint64 array"
            )
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise GraphError(
            f"Expected {what} to hold integer vertex ids (got dtype {arr.dtype}); for labels of "
            "any other kind (strings, categoricals) use Graph.from_pandas"
        )
    if arr.dtype.kind == "i" and arr.min() < 0:
        bad = arr[arr < 0][0]
        raise GraphError(f"Expected {what} to hold non-negative vertex ids (got {bad})")
    if arr.dtype != np.uint64 or arr.max() <= _INT64_MAX:
        arr = arr.astype(np.int64, copy=False)
    return arr


def _exact_ints(a: Any, arr: np.ndarray, what: str) -> np.ndarray:
    """A sequence of Python ints that numpy made float64 or object (ids past ``2**63 - 1``): as
    uint64, exactly. Anything else is returned as numpy read it."""
    items = list(a)
    if not items or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
        return arr
    if min(items) < 0:
        raise GraphError(f"Expected {what} to hold non-negative vertex ids (got {min(items)})")
    if max(items) >= 2**64:
        raise GraphError(f"Expected {what} to hold 64-bit vertex ids (got {max(items)}, past 2**64 - 1)")
    return np.array(items, dtype=np.uint64)


def pandas_edges(
    df: Any, source: str, target: str, weight: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The edges of a DataFrame: ``(src, dst, ids, weights)``.

    Non-negative integer (or whole float) columns come back as id arrays with ``ids`` None (the
    caller compacts them); any other labels (strings, categoricals, negative integers, mixed)
    are factorized once over both columns, sorted when they can be ordered, and come back as
    internal ids ``0..n-1`` with ``ids`` the labels.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "y"], "b": ["y", "z"]})
    >>> s, d, ids, w = pandas_edges(df, "a", "b", None)
    >>> s.tolist(), d.tolist(), ids.tolist(), w
    ([0, 1], [1, 2], ['x', 'y', 'z'], None)
    """
    for col in (source, target) + ((weight,) if weight is not None else ()):
        if col not in df.columns:
            raise GraphError(
                f"Expected a column named {col!r} (got columns {list(df.columns)})",
            )
    w = None
    if weight is not None:
        try:
            w = df[weight].to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise GraphError(f"Expected column {weight!r} to hold numeric edge weights ({exc})") from None
    cs, ct = df[source], df[target]
    if _plain_ids(cs) and _plain_ids(ct):
        s = as_id_array(cs.to_numpy(), f"column {source!r}")
        d = as_id_array(ct.to_numpy(), f"column {target!r}")
        return s, d, None, w
    return (*_factorize(cs, ct, source, target), w)


def _plain_ids(col: Any) -> bool:
    """True for a numpy integer or float column without negative values."""
    kind = col.dtype.kind if isinstance(col.dtype, np.dtype) else "O"
    if kind == "f":
        return True  # whole floats are ids; as_id_array names the column of a fraction or NaN
    return kind in "iu" and (col.size == 0 or col.min() >= 0)


def _factorize(cs: Any, ct: Any, source: str, target: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both columns' labels as one set of codes, sorted when the labels can be ordered."""
    import pandas as pd

    m = len(cs)
    both = pd.concat([cs, ct], ignore_index=True)
    try:
        codes, uniques = pd.factorize(both, sort=True)
    except TypeError:  # labels of kinds that cannot be compared: order of first appearance
        codes, uniques = pd.factorize(both, sort=False)
    if m and codes.min() < 0:
        k = int(np.flatnonzero(codes < 0)[0])
        col, row = (source, k) if k < m else (target, k - m)
        raise GraphError(
            f"Expected column {col!r} to hold a vertex id in every row (got a missing value at "
            f"position {row})",
        )
    ids = np.asarray(uniques)
    if ids.dtype.kind in "iu":
        ids = ids.astype(np.int64)
    elif ids.dtype.kind != "O":
        ids = np.asarray(uniques, dtype=object)
    codes = codes.astype(np.int64, copy=False)
    return codes[:m], codes[m:], ids


def networkx_columns(
    G: Any,
    nodes: Sequence[Any],
    edges: Sequence[tuple[Any, Any, dict[str, Any]]],
    node_attrs: Sequence[str],
    edge_attrs: Sequence[str],
    default: float | None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Typed vertex columns (``nodes`` order) and edge columns (``edges`` order) from attributes.

    Raises :class:`GraphError` for a node or edge without the attribute when ``default`` is
    None, and for values that are not numbers.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(1, 2, {"w": 3})])
    >>> G.nodes[1]["x"] = 0.5
    >>> v, e = networkx_columns(G, [1, 2], list(G.edges(data=True)), ["x"], ["w"], 0.0)
    >>> v["x"].tolist(), e["w"].tolist()
    ([0.5, 0.0], [3])
    """
    vcols = {}
    for name in node_attrs:
        data = G.nodes
        vals = [data[x].get(name, default) for x in nodes]
        if default is None and any(v is None for v in vals):
            bad = next(x for x, v in zip(nodes, vals, strict=True) if v is None)
            raise GraphError(
                f"Expected node attribute {name!r} on every node (node {bad!r} has none); "
                "pass default=... to fill it in"
            )
        vcols[name] = _numeric(vals, f"node attribute {name!r}")
    ecols = {}
    for name in edge_attrs:
        vals = [a.get(name, default) for _, _, a in edges]
        if default is None and any(v is None for v in vals):
            u, v, _ = next(e for e, x in zip(edges, vals, strict=True) if x is None)
            raise GraphError(
                f"Expected edge attribute {name!r} on every edge (edge {u!r} -> {v!r} has none); "
                "pass default=... to fill it in"
            )
        ecols[name] = _numeric(vals, f"edge attribute {name!r}")
    return vcols, ecols


def _numeric(vals: list[Any], what: str) -> np.ndarray:
    arr = np.asarray(vals)
    if arr.dtype.kind not in "biuf":
        raise GraphError(f"Expected {what} to hold numbers (got dtype {arr.dtype}, e.g. {vals[0]!r})")
    return arr


# ---------------------------------------------------------------------------------------------
# In-edges first: the CSC from the edge arrays in two cache-friendly passes, the out-degrees and
# every in-edge's CSR position from the CSC, and the CSR itself only when something reads it.

_DIGIT_BITS = 11  # radix digit of the sort by source inside a bin: 2048 counts, in L1
_BIN_EDGES = 1 << 14  # edges per bin aimed at: a bin and its two scratch copies stay in L2
_MAX_BINS = 1 << 12  # bins the first pass writes to at once (one stream each)


def in_edges_first(n: int, m: int) -> bool:
    """True when :func:`build_in_edges` builds a graph of ``n`` vertices and ``m`` edges (from
    :data:`gas._build.LINEAR_MIN_EDGES` edges on, below ``2**31`` vertices and ``2**32`` edges: a source and
    a row number, or an edge index, share one 64-bit word)."""
    return 0 < n < 2**31 and max(_build.LINEAR_MIN_EDGES, 1) <= m < 2**32


def _bin_plan(n: int, m: int) -> tuple[int, int]:
    """``(shift, bins)``: bin ``b`` holds the rows ``b << shift`` to ``(b + 1 << shift) - 1``."""
    want = min(_MAX_BINS, max(1, m // _BIN_EDGES))
    shift = max(0, int(n - 1).bit_length() - (want.bit_length() - 1))
    return shift, ((n - 1) >> shift) + 1


@njit(parallel=True, cache=True)
def _bin_scatter(
    rows: np.ndarray, cols: np.ndarray, shift: int, start: np.ndarray, tmp: np.ndarray, tmp_idx: np.ndarray
) -> None:
    """Place every edge into its bin, in input order within a bin, as ``col << 32 | row's low
    bits`` in ``tmp`` (and its input index in ``tmp_idx`` unless that is empty)."""
    m = rows.shape[0]
    parts = start.shape[0]
    low = (np.int64(1) << shift) - 1
    with_idx = tmp_idx.shape[0] > 0
    for t in prange(parts):
        pos = start[t].copy()
        for i in range((m * t) // parts, (m * (t + 1)) // parts):
            r = np.int64(rows[i])
            b = r >> shift
            p = pos[b]
            tmp[p] = (np.int64(cols[i]) << 32) | (r & low)
            if with_idx:
                tmp_idx[p] = i
            pos[b] = p + 1


@njit(cache=True)
def _radix_pass(
    keys: np.ndarray,
    idx: np.ndarray,
    out_keys: np.ndarray,
    out_idx: np.ndarray,
    size: int,
    sh: int,
    hist: np.ndarray,
) -> None:
    """Stable counting sort of ``keys[:size]`` (and ``idx``) by the digit ``(key >> sh)``."""
    mask = np.int64(hist.shape[0] - 1)
    with_idx = idx.shape[0] > 0
    hist[:] = 0
    for p in range(size):
        hist[(keys[p] >> sh) & mask] += 1
    run = 0
    for h in range(hist.shape[0]):
        c = hist[h]
        hist[h] = run
        run += c
    for p in range(size):
        key = keys[p]
        h = (key >> sh) & mask
        q = hist[h]
        out_keys[q] = key
        if with_idx:
            out_idx[q] = idx[p]
        hist[h] = q + 1


@njit(parallel=True, cache=True)
def _bin_rows(
    binptr: np.ndarray,
    groups: np.ndarray,
    tmp: np.ndarray,
    tmp_idx: np.ndarray,
    shift: int,
    n: int,
    digit: int,
    passes: int,
    dedupe: bool,
    indptr: np.ndarray,
    count: np.ndarray,
) -> None:
    """Sort each bin in cache by (row, column), stable: ``passes`` radix passes by the column
    (``digit`` bits each), then one by row that writes each column back into the bin's own
    slots of ``tmp`` (and its input index into ``tmp_idx``) and the rows' starts into
    ``indptr``. With ``dedupe`` only the last of equal (row, column) pairs stays, at the start
    of its row's slots; ``count`` gets each row's entries kept. Threads take groups of bins."""
    with_idx = tmp_idx.shape[0] > 0
    R = np.int64(1) << shift
    low = R - 1
    for g in prange(groups.shape[0] - 1):
        b0, b1 = groups[g], groups[g + 1]
        big = 0
        for b in range(b0, b1):
            big = max(big, binptr[b + 1] - binptr[b])
        ka, kb = np.empty(big, np.int64), np.empty(big, np.int64)
        ia = np.empty(big if with_idx else 0, tmp_idx.dtype)
        ib = np.empty(big if with_idx else 0, tmp_idx.dtype)
        hist = np.empty(np.int64(1) << digit, np.int64)
        cnt = np.empty(R + 1, np.int64)
        for b in range(b0, b1):
            a0, a1 = binptr[b], binptr[b + 1]
            size = a1 - a0
            r0 = b * R
            rows = min(R, n - r0)
            # column digits, least significant first: tmp -> ka -> kb -> ka ...
            _radix_pass(tmp[a0:a1], tmp_idx[a0:a1] if with_idx else ia, ka, ia, size, 32, hist)
            for ps in range(1, passes):
                if ps % 2 == 1:
                    _radix_pass(ka, ia, kb, ib, size, 32 + ps * digit, hist)
                else:
                    _radix_pass(kb, ib, ka, ia, size, 32 + ps * digit, hist)
            keys, idx = (ka, ia) if passes % 2 == 1 else (kb, ib)
            cnt[: rows + 1] = 0
            for p in range(size):
                cnt[(keys[p] & low) + 1] += 1
            for r in range(rows):
                cnt[r + 1] += cnt[r]
            for r in range(rows):
                indptr[r0 + r] = a0 + cnt[r]
            for p in range(size):  # by row, stable: back into the bin's slots, unpacked
                key = keys[p]
                r = key & low
                q = a0 + cnt[r]
                tmp[q] = key >> 32
                if with_idx:
                    tmp_idx[q] = idx[p]
                cnt[r] += 1
            j0 = a0
            for r in range(rows):
                j1 = a0 + cnt[r]  # cnt[r] now ends row r
                j = j0
                if dedupe:
                    for k in range(j0, j1):
                        if k + 1 < j1 and tmp[k + 1] == tmp[k]:
                            continue
                        if j != k:
                            tmp[j] = tmp[k]
                            if with_idx:
                                tmp_idx[j] = tmp_idx[k]
                        j += 1
                else:
                    j = j1
                count[r0 + r] = j - j0
                j0 = j1


@njit(cache=True)
def _close_gaps(indptr: np.ndarray, new_indptr: np.ndarray, a: np.ndarray, idx: np.ndarray) -> None:
    """Move row ``r``'s first ``new_indptr[r + 1] - new_indptr[r]`` entries of ``a`` (and of
    ``idx`` unless it is empty) from ``indptr[r]`` down to ``new_indptr[r]``, in place."""
    with_idx = idx.shape[0] > 0
    for r in range(indptr.shape[0] - 1):
        a0, c = indptr[r], new_indptr[r]
        if a0 != c:
            for j in range(new_indptr[r + 1] - c):
                a[c + j] = a[a0 + j]
                if with_idx:
                    idx[c + j] = idx[a0 + j]


def build_in_edges(
    src: np.ndarray, dst: np.ndarray, n: int, dedupe: bool, with_take: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """In-edge (CSC) arrays straight from edge arrays: ``(in_indptr, in_src, take)``.

    Each target's in-edges come sorted by source (ties in input order), as :func:`build_csc`
    lists them from the CSR; with ``dedupe`` only the last of equal (source, target) pairs
    stays. ``take`` (with ``with_take``, else None) is the input index of each slot's edge.
    For graphs :func:`in_edges_first` accepts.

    Two passes over the edges, neither writing at random into a large array: one places each
    edge into one of a few thousand bins of consecutive targets (one stream per bin), then every
    bin, small enough to stay in cache, is sorted by its source digits and by target there.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, in_src, take = build_in_edges(
    ...     np.array([2, 0, 2, 1]), np.array([1, 1, 1, 0]), 3, dedupe=True, with_take=True
    ... )
    >>> indptr.tolist(), in_src.tolist(), take.tolist()
    ([0, 1, 3, 3], [1, 0, 2], [3, 1, 2])
    """
    m = src.shape[0]
    parts = get_num_threads()
    shift, nbins = _bin_plan(n, m)
    start = np.zeros((parts, nbins), np.int64)
    binptr = _fill_starts(dst, shift, start)  # bins of consecutive targets: dst >> shift
    tmp = _empty(src)  # holds the sources at their final places once the bins are sorted
    tmp_idx = np.empty(m if with_take else 0, np.uint32)
    _bin_scatter(dst, src, shift, start, tmp, tmp_idx)
    bits = max(1, int(n - 1).bit_length())
    passes = -(-bits // _DIGIT_BITS)
    digit = -(-bits // passes)
    edges_per_group = max(1, -(-m // (4 * parts)))
    cuts = np.searchsorted(binptr, np.arange(1, 4 * parts) * edges_per_group)
    groups = np.unique(np.concatenate([[0], np.minimum(cuts, nbins), [nbins]]))
    indptr = np.empty(n + 1, np.int64)
    indptr[n] = m
    count = np.empty(n, np.int64)
    _bin_rows(binptr, groups, tmp, tmp_idx, shift, n, digit, passes, dedupe, indptr, count)
    k = int(count.sum())
    if k < m:  # duplicates collapsed: close the gaps
        new_indptr = np.zeros(n + 1, np.int64)
        np.cumsum(count, out=new_indptr[1:])
        _close_gaps(indptr, new_indptr, tmp, tmp_idx)
        indptr = new_indptr
        tmp = _prefix(tmp, k)
        tmp_idx = _prefix(tmp_idx, k) if with_take else tmp_idx
    return indptr, tmp, tmp_idx.astype(np.int64) if with_take else None


@njit(parallel=True, cache=True)
def _rank_in_rows(keys: np.ndarray, start: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: where a stable counting sort of ``keys`` puts entry ``i`` (``start`` from
    :func:`gas._build._fill_starts`, 32-bit, consumed)."""
    m = keys.shape[0]
    parts = start.shape[0]
    for t in prange(parts):
        for i in range((m * t) // parts, (m * (t + 1)) // parts):
            k = keys[i]
            p = start[t, k]
            out[i] = p
            start[t, k] = p + 1


def out_edges_of(in_src: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(out_indptr, in_eid)`` of a CSC in :func:`build_in_edges`'s order: the out-degrees'
    offsets, and each in-edge slot's position in the CSR (edges sorted by source, then target),
    without building the CSR.

    Examples
    --------
    >>> import numpy as np
    >>> out_indptr, in_eid = out_edges_of(np.array([1, 0, 2]), 3)  # edges 1->0, 0->1, 2->1
    >>> out_indptr.tolist(), in_eid.tolist()
    ([0, 1, 2, 3], [1, 0, 2])
    """
    m = in_src.shape[0]
    start = np.zeros((_parts(m, n), n), np.uint32)  # m < 2**32: 32-bit starts, half the bytes
    out_indptr = _fill_starts(in_src, 0, start)
    in_eid = _empty(in_src)
    _rank_in_rows(in_src, start, in_eid)
    return out_indptr, in_eid


def out_offsets(in_src: np.ndarray, n: int) -> np.ndarray:
    """The out-degrees' offsets (``out_indptr``) of the graph whose in-edges' sources are
    ``in_src``: :func:`out_edges_of` without the edges' CSR positions.

    Examples
    --------
    >>> import numpy as np
    >>> out_offsets(np.array([1, 0, 2]), 3).tolist()
    [0, 1, 2, 3]
    """
    m = in_src.shape[0]
    return _fill_starts(in_src, 0, np.zeros((_parts(m, n), n), np.uint32))


@njit(parallel=True, cache=True)
def _rows_into(indptr: np.ndarray, pos: np.ndarray, out: np.ndarray) -> None:
    """``out[pos[k]] = r`` for every slot ``k`` of row ``r`` (``pos`` empty: ``out[k] = r``)."""
    at = pos.shape[0] > 0
    for r in prange(indptr.shape[0] - 1):
        for k in range(indptr[r], indptr[r + 1]):
            if at:
                out[pos[k]] = r
            else:
                out[k] = r


def csr_of(
    in_indptr: np.ndarray, in_eid: np.ndarray, out_indptr: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(src, dst)`` of the CSR whose CSC is ``in_indptr`` / ``in_eid`` (what :meth:`Graph.src`
    and :meth:`Graph.dst` build on first use after :func:`build_in_edges`).

    Examples
    --------
    >>> import numpy as np
    >>> s, d = csr_of(np.array([0, 1, 3, 3]), np.array([1, 0, 2]), np.array([0, 1, 2, 3]))
    >>> s.tolist(), d.tolist()
    ([0, 1, 2], [1, 0, 1])
    """
    src = _empty(in_eid)
    _rows_into(out_indptr, np.empty(0, np.int64), src)
    dst = _empty(in_eid)
    _rows_into(in_indptr, in_eid, dst)
    return src, dst
