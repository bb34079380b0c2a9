"""One entry point that reads any supported graph file into a :class:`~gas.graph.Graph`."""

from __future__ import annotations

import os
import zipfile

from gas.errors import GraphError, InputError
from gas.graph import Graph
from gas.io.binary import load_npz
from gas.io.edgelist import WEIGHT_RULES, _read_edgelist, bad_weight_error, first_bad_weight
from gas.io.labels import read_labelled_edgelist

__all__ = ["load"]


def load(
    path: str | os.PathLike,
    *,
    weights: bool | None = None,
    dedupe: bool = True,
    num_vertices: int | None = None,
    skip_rows: int = 0,
    check_weights: str | None = None,
    undirected: bool = False,
    labels: bool = False,
) -> Graph:
    """Read a graph from a binary ``.npz`` file or a text edge list (plain, gz, bz2 or zip).

    A file written by :func:`~gas.io.binary.save` (recognised by content, whatever its name, or
    any path ending in ``.npz``) is read with :func:`~gas.io.binary.load_npz` and the keyword
    options do not apply; anything else with :func:`~gas.io.edgelist.read_edgelist` and then
    :meth:`Graph.from_edges`.

    Parameters
    ----------
    path : str or os.PathLike
    weights : bool, optional
        Read the third column as the ``"weight"`` edge column: ``None`` detects it from the
        first data line, ``True`` requires it, ``False`` ignores extra columns.
    dedupe : bool, default True
        Collapse repeated ``(src, dst)`` lines into one edge (the last line's weight wins).
    num_vertices : int, optional
        Keep the file's ids as vertex numbers ``0..num_vertices-1`` (vertices without edges
        included). By default any non-negative 64-bit ids are compacted to ``0..n-1`` in
        increasing order and ``graph.ids`` maps them back.
    skip_rows : int, default 0
        Lines to skip at the top of a text file (e.g. 1 for a CSV header).
    check_weights : {None, "nonnegative", "finite-nonnegative"}
        Refuse negative weights (``"nonnegative"``: shortest paths) or also infinite ones
        (``"finite-nonnegative"``: PageRank), naming the file and line of the first one (in a
        ``.npz``, its edge). Applies to binary files too.
    undirected : bool, default False
        Treat each line as an undirected edge: the graph is :meth:`~Graph.symmetrized` (every
        edge in both directions), as the CLI's ``--undirected`` does. Applies to binary files too.
    labels : bool, default False
        Read the first two columns as text labels (any characters but separators: ``alice``,
        ``Q42``, ``007``) instead of integer ids (:func:`~gas.io.labels.read_labelled_edgelist`):
        the vertices are numbered in sorted order of their labels and ``graph.ids`` holds them
        (an object array of str), as :meth:`Graph.from_pandas` does. Text files only.

    Raises
    ------
    InputError
        On a missing or malformed file (naming the file and line), an id outside
        ``0..num_vertices-1``, or a weight that ``check_weights`` refuses.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("# a comment\\n100 200\\n200 300\\n100 200\\n")
    >>> g = load(p)
    >>> g.num_vertices, g.num_edges, g.ids.tolist(), g.num_duplicates
    (3, 2, [100, 200, 300], 1)
    >>> load(p, undirected=True).num_edges
    4
    >>> _ = open(p, "w").write("alice bob\\nbob carol\\n")
    >>> load(p, labels=True).ids.tolist()
    ['alice', 'bob', 'carol']
    """
    if labels:
        g = _load_labelled(path, weights, dedupe, num_vertices, skip_rows, check_weights)
    else:
        g = _load_directed(path, weights, dedupe, num_vertices, skip_rows, check_weights)
    return g.symmetrized() if undirected else g


def _load_labelled(
    path: str | os.PathLike,
    weights: bool | None,
    dedupe: bool,
    num_vertices: int | None,
    skip_rows: int,
    check_weights: str | None,
) -> Graph:
    """:func:`load` of a text file with ``labels=True``, without ``undirected``."""
    p = os.fspath(path)
    if num_vertices is not None:
        raise InputError(
            "num_vertices does not apply to labels: the vertices are the labels found",
            path=p,
            hint="drop num_vertices, or pass labels=False for integer ids",
        )
    if p.lower().endswith(".npz") or is_saved_graph(p):
        raise InputError(
            "labels=True reads text edge lists; this is a saved graph",
            path=p,
            hint="load it without labels=True (a saved graph keeps its ids)",
        )
    src, dst, w, names = read_labelled_edgelist(
        p, weights=weights, skip_rows=skip_rows, check_weights=check_weights
    )
    g = Graph.from_edges(src, dst, num_vertices=names.shape[0], weights=w, dedupe=dedupe)
    g.ids = names
    return g


def _load_directed(
    path: str | os.PathLike,
    weights: bool | None,
    dedupe: bool,
    num_vertices: int | None,
    skip_rows: int,
    check_weights: str | None,
) -> Graph:
    """:func:`load` without ``undirected``."""
    p = os.fspath(path)
    if check_weights not in WEIGHT_RULES:
        raise ValueError(f"Expected check_weights in {list(WEIGHT_RULES)} (got {check_weights!r})")
    if p.lower().endswith(".npz") or is_saved_graph(p):
        g = load_npz(p)
        bad = first_bad_weight(g.weights, check_weights)
        if bad is not None:
            edge = f"edge {g.ids[g.src[bad]]} -> {g.ids[g.dst[bad]]}"
            raise bad_weight_error(check_weights, g.weights[bad], path=p, text=edge)
        return g
    # the parser's arrays are not trimmed (copied): the graph is built from them and they go
    src, dst, w = _read_edgelist(p, weights, skip_rows, None, check_weights, trim=False)
    try:
        return Graph.from_edges(src, dst, num_vertices=num_vertices, weights=w, dedupe=dedupe)
    except GraphError as exc:
        raise InputError(
            str(exc),
            path=p,
            hint="leave num_vertices unset to keep arbitrary ids (graph.ids maps them back)"
            if num_vertices is not None
            else None,
        ) from None


def is_saved_graph(p: str) -> bool:
    """True for a zip archive holding the ``format`` entry that :func:`save` writes.

    Only a regular file is looked into: reading the first bytes of a pipe would take them away
    from the edge-list reader.
    """
    if not os.path.isfile(p):
        return False
    try:
        with open(p, "rb") as f:
            if f.read(4) != b"PK\x03\x04":
                return False
        with zipfile.ZipFile(p) as z:
            return "format.npy" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False
