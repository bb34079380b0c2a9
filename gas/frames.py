"""Per-vertex results as a table: what :meth:`Graph.frame <gas.graph.Graph.frame>` and
:meth:`Graph.to_networkx <gas.graph.Graph.to_networkx>` build on.

Results stay numpy arrays by internal vertex id; a frame labels them with the original ids.
pandas is optional: it is imported only when a frame is asked for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.errors import GasError

__all__ = ["node_results", "results_frame", "table_format", "write_table"]


def node_results(num_vertices: int, results: dict[str, Any]) -> dict[str, np.ndarray]:
    """``results`` as arrays, each checked to hold one value (or row) per vertex.

    Raises
    ------
    GasError
        Naming the keyword, its length and the number of vertices.

    Examples
    --------
    >>> node_results(2, {"rank": [0.5, 0.5]})["rank"].tolist()
    [0.5, 0.5]
    """
    out = {}
    for name, values in results.items():
        arr = np.asarray(values)
        got = arr.shape[0] if arr.ndim else "a scalar"
        if arr.ndim not in (1, 2) or arr.shape[0] != num_vertices:
            raise GasError(
                f"Expected {name!r} to hold one value per vertex ({num_vertices}) (got {got}"
                f"{', shape ' + str(arr.shape) if arr.ndim > 1 else ''}); results are arrays by "
                "internal vertex id, as the algorithms return them for this graph"
            )
        out[name] = arr
    return out


def results_frame(ids: np.ndarray, num_vertices: int, results: dict[str, Any]) -> Any:
    """A pandas DataFrame indexed by original id (index name ``"id"``), a column per result.

    A 2-D result of shape ``(num_vertices, k)`` gives the columns ``name_0 .. name_{k-1}``.

    Raises
    ------
    GasError
        When pandas is missing (with the command that installs it) or a result has the wrong
        length.

    Examples
    --------
    >>> import numpy as np
    >>> results_frame(np.array(["a", "b"], dtype=object), 2, {"deg": np.array([1, 0])})
        deg
    id
    a     1
    b     0
    """
    try:
        import pandas as pd
    except ImportError:
        raise GasError(
            "Graph.frame needs pandas, which is not installed; install it with: pip install pandas "
            "(or use the result arrays directly: they are indexed by internal id, graph.ids maps "
            "them to original ids)"
        ) from None
    cols: dict[str, np.ndarray] = {}
    for name, arr in node_results(num_vertices, results).items():
        if arr.ndim == 2:
            for j in range(arr.shape[1]):
                cols[f"{name}_{j}"] = arr[:, j]
        else:
            cols[name] = arr
    return pd.DataFrame(cols, index=pd.Index(ids, name="id"))


def table_format(path: str) -> str:
    """``"csv"``, ``"parquet"`` or ``"tsv"`` (anything else) by the extension of ``path``.

    Examples
    --------
    >>> table_format("ranks.CSV"), table_format("r.parquet"), table_format("r.txt"), table_format("-")
    ('csv', 'parquet', 'tsv', 'tsv')
    """
    low = str(path).lower()
    return "csv" if low.endswith(".csv") else "parquet" if low.endswith(".parquet") else "tsv"


def write_table(path: str, ids: np.ndarray, values: np.ndarray, fmt: str, name: str = "value") -> None:
    """Write ``(id, value)`` rows atomically as CSV (``.csv``) or Parquet (``.parquet``).

    CSV: a header line ``id,<name>``, then one line per vertex, the value formatted with the
    %-format ``fmt``, labels quoted where CSV needs it. Parquet: columns ``id`` (integer, or
    string for labels) and ``<name>`` (the values' own type); it needs pyarrow, the optional
    ``parquet`` extra, and says so when it is missing. For TSV use
    :func:`gas.cli.common.write_values`.

    Raises
    ------
    GasError
        For Parquet without pyarrow, or a path :func:`~gas.io.atomic.atomic_open` refuses.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.csv")
    >>> write_table(p, np.array([10, 20]), np.array([0.25, 0.75]), "%.17g")
    >>> open(p).read()
    'id,value\\n10,0.25\\n20,0.75\\n'
    """
    import csv

    from gas.io.atomic import atomic_open  # here: gas.io imports gas.graph, which imports this

    if table_format(path) == "parquet":
        _write_parquet(path, ids, values, name)
        return

    with atomic_open(path, newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", name])
        chunk = 1 << 16
        id_list, val_list = ids.tolist(), values.tolist()
        for i in range(0, len(id_list), chunk):
            w.writerows(zip(id_list[i : i + chunk], [fmt % v for v in val_list[i : i + chunk]], strict=True))


def _write_parquet(path: str, ids: np.ndarray, values: np.ndarray, name: str) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise GasError(
            f"writing {path} as Parquet needs pyarrow, which is not installed; install it with: "
            "pip install 'gaslab[parquet]' (or pip install pyarrow), or write .csv or .tsv instead"
        ) from None
    id_col = pa.array(ids.tolist(), type=pa.string()) if ids.dtype == object else pa.array(ids)
    table = pa.table({"id": id_col, name: pa.array(values)})
    from gas.io.atomic import atomic_open

    with atomic_open(path, "wb") as f:
        pq.write_table(table, f)
