"""Input checks and conversions behind the :class:`~gas.graph.Graph` constructors.

Vertex ids as integer arrays (checked, named after the user's argument or column), labels of
any hashable kind factorized once (pandas columns), and the typed vertex and edge columns read
from a networkx graph's attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gas.errors import GraphError

__all__ = ["as_id_array", "edge_columns", "pandas_edges", "networkx_columns"]

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
