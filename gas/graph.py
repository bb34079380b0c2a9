"""The graph: CSR (out-edges) and CSC (in-edges) numpy arrays, typed edge data, original ids.

Internal vertex ids are ``0..num_vertices-1``; ``graph.ids[v]`` is the id the user gave. Edges are
stored once, in CSR order (sorted by ``(src, dst)``); edge ``e`` goes ``src[e] -> dst[e]`` and its
data is ``edata[name][e]``. The CSC view lists in-edges by target: ``in_src[k]`` is the source and
``in_eid[k]`` the edge id of the ``k``-th in-edge slot, slots of vertex ``v`` being
``in_indptr[v]:in_indptr[v+1]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas._build import build_csc, build_csr, compact_ids
from gas.errors import GraphError

__all__ = ["Graph"]

_INT64_MAX = np.iinfo(np.int64).max


def _edge_columns(
    shape: tuple[int, ...], weights: Any, edge_data: dict[str, Any] | None
) -> dict[str, np.ndarray]:
    """The edge columns of :meth:`Graph.from_edges`: ``"weight"`` then ``edge_data``, checked
    to hold one value per edge (``shape`` is the shape of the id arrays)."""
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


def _as_id_array(a: Any, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype.kind in "fO" and not isinstance(a, np.ndarray):
        arr = _exact_ints(a, arr, name)
    if arr.ndim != 1:
        raise GraphError(f"Expected '{name}' to be a 1-D array of vertex ids (got shape {arr.shape})")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise GraphError(f"Expected '{name}' to hold whole-number vertex ids (got {arr.dtype})")
        if np.abs(arr).max() > 2**53:  # not every whole number is a float past 2**53
            raise GraphError(
                f"Expected '{name}' to hold integer vertex ids: {arr.dtype} ids past 2**53 are "
                "not exact; pass an int64 or uint64 array"
            )
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise GraphError(f"Expected '{name}' to hold integer vertex ids (got dtype {arr.dtype})")
    if arr.dtype.kind == "i" and arr.min() < 0:
        bad = arr[arr < 0][0]
        raise GraphError(
            f"Expected '{name}' to hold non-negative vertex ids (got {bad})",
        )
    if arr.dtype == np.uint64 and arr.max() <= _INT64_MAX:
        arr = arr.astype(np.int64)
    elif arr.dtype != np.uint64:
        arr = arr.astype(np.int64)
    return arr


def _exact_ints(a: Any, arr: np.ndarray, name: str) -> np.ndarray:
    """A sequence of Python ints that numpy made float64 or object (ids past ``2**63 - 1``): as
    uint64, exactly. Anything else is returned as numpy read it."""
    items = list(a)
    if not items or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
        return arr
    if min(items) < 0:
        raise GraphError(f"Expected '{name}' to hold non-negative vertex ids (got {min(items)})")
    if max(items) >= 2**64:
        raise GraphError(f"Expected '{name}' to hold 64-bit vertex ids (got {max(items)}, past 2**64 - 1)")
    return np.array(items, dtype=np.uint64)


class Graph:
    """A directed graph in CSR + CSC form with typed edge data and original vertex ids.

    Build one with :meth:`from_edges`, :meth:`from_networkx`, :meth:`from_scipy`,
    :meth:`from_pandas` or :func:`gas.load`. An undirected input is stored with both directions.

    Attributes
    ----------
    num_vertices, num_edges : int
    ids : ndarray
        Original id of each internal vertex (int64, uint64 for ids past 2**63-1, or object).
    out_indptr, src, dst : ndarray of int64
        CSR: out-edges of ``v`` are ``out_indptr[v]:out_indptr[v+1]``, going ``src[e] -> dst[e]``.
    in_indptr, in_src, in_eid : ndarray of int64
        CSC: in-edge slots of ``v`` are ``in_indptr[v]:in_indptr[v+1]``.
    edata : dict of str to ndarray
        Edge data columns in CSR order (``"weight"`` when the input had weights).
    num_duplicates : int
        Input edges collapsed into an earlier identical (src, dst) pair while building.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([10, 10, 20], [20, 30, 30])
    >>> g.num_vertices, g.num_edges
    (3, 3)
    >>> g.ids.tolist()
    [10, 20, 30]
    >>> g.out_degree.tolist()
    [2, 1, 0]
    """

    def __init__(
        self,
        out_indptr: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        ids: np.ndarray,
        edata: dict[str, np.ndarray] | None = None,
        num_duplicates: int = 0,
    ) -> None:
        n = out_indptr.shape[0] - 1
        self.num_vertices: int = int(n)
        self.num_edges: int = int(src.shape[0])
        self.out_indptr = out_indptr
        self.src = src
        self.dst = dst
        self.ids = ids
        self.edata: dict[str, np.ndarray] = dict(edata or {})
        self.num_duplicates = int(num_duplicates)
        self.in_indptr, self.in_src, self.in_eid = build_csc(src, dst, n)

    # ------------------------------------------------------------------ construction
    @classmethod
    def _from_internal(
        cls,
        src: np.ndarray,
        dst: np.ndarray,
        n: int,
        ids: np.ndarray,
        edata: dict[str, np.ndarray] | None,
        dedupe: bool,
    ) -> Graph:
        indptr, s, d, take = build_csr(src, dst, n, dedupe)
        cols = {k: np.ascontiguousarray(np.asarray(v)[take]) for k, v in (edata or {}).items()}
        return cls(indptr, s, d, ids, cols, num_duplicates=src.shape[0] - s.shape[0])

    @classmethod
    def from_edges(
        cls,
        src: Any,
        dst: Any,
        num_vertices: int | None = None,
        weights: Any = None,
        *,
        dedupe: bool = True,
        edge_data: dict[str, Any] | None = None,
    ) -> Graph:
        """Build a graph from two arrays of vertex ids.

        Parameters
        ----------
        src, dst : array_like of non-negative int
            Edge ``i`` goes ``src[i] -> dst[i]``.
        num_vertices : int, optional
            If given, ids must lie in ``0..num_vertices-1`` and keep their numbers (vertices with
            no edges included). Otherwise any non-negative 64-bit ids are compacted to
            ``0..n-1`` in increasing order and kept in :attr:`ids`.
        weights : array_like of float, optional
            Stored as the ``"weight"`` edge column.
        dedupe : bool, default True
            Collapse repeated (src, dst) pairs into one edge, keeping the last one's data, as a
            ``networkx.DiGraph`` does. ``False`` keeps parallel edges. Self-loops are always kept.
        edge_data : dict, optional
            More edge columns, one value per input edge.

        Raises
        ------
        GraphError
            On negative or non-integer ids, mismatched lengths, or ids outside ``num_vertices``.

        Examples
        --------
        >>> g = Graph.from_edges([0, 1], [1, 2], num_vertices=4, weights=[0.5, 2.0])
        >>> g.num_vertices, g.weights.tolist()
        (4, [0.5, 2.0])
        """
        s = _as_id_array(src, "src")
        d = _as_id_array(dst, "dst")
        if s.shape != d.shape:
            raise GraphError(f"Expected 'src' and 'dst' of equal length (got {s.shape[0]} and {d.shape[0]})")
        cols = _edge_columns(s.shape, weights, edge_data)
        if num_vertices is not None:
            n = int(num_vertices)
            if n < 0:
                raise GraphError(f"Expected 'num_vertices' >= 0 (got {n})")
            if s.size and (max(int(s.max()), int(d.max())) >= n):
                bad = int(max(s.max(), d.max()))
                raise GraphError(
                    f"Vertex id {bad} is outside 0..{n - 1} (num_vertices={n})",
                )
            return cls._from_internal(
                s.astype(np.int64),
                d.astype(np.int64),
                n,
                np.arange(n, dtype=np.int64),
                cols,
                dedupe,
            )
        if s.dtype != d.dtype:
            s = s.astype(np.uint64)
            d = d.astype(np.uint64)
        ids, si, di = compact_ids(s, d)
        return cls._from_internal(si, di, ids.shape[0], ids, cols, dedupe)

    @classmethod
    def from_networkx(cls, G: Any, weight: str | None = "weight") -> Graph:
        """Build from a networkx graph; undirected edges are stored in both directions.

        Node labels become :attr:`ids` (sorted when they are all non-negative integers, else in
        ``G.nodes`` order); isolated nodes are kept. Multigraphs keep parallel edges. Edge
        attribute ``weight`` (default 1.0 where missing) becomes the ``"weight"`` column when any
        edge has it.

        Examples
        --------
        >>> import networkx as nx
        >>> g = Graph.from_networkx(nx.path_graph(3))
        >>> g.num_edges
        4
        """
        nodes = list(G.nodes)
        if all(isinstance(x, (int, np.integer)) and x >= 0 for x in nodes):
            ids = np.array(sorted(int(x) for x in nodes), dtype=np.int64)
            if ids.size and ids[-1] > _INT64_MAX:
                ids = ids.astype(np.uint64)
            index = {int(x): i for i, x in enumerate(ids.tolist())}
        else:
            ids = np.empty(len(nodes), dtype=object)
            ids[:] = nodes
            index = {x: i for i, x in enumerate(nodes)}
        edges = list(G.edges(data=True))
        src = [index[u] for u, _, _ in edges]
        dst = [index[v] for _, v, _ in edges]
        has_w = weight is not None and any(weight in a for _, _, a in edges)
        w = [float(a.get(weight, 1.0)) for _, _, a in edges] if has_w else None
        if not G.is_directed():
            back = [i for i, (s, d) in enumerate(zip(src, dst)) if s != d]
            src, dst = src + [dst[i] for i in back], dst + [src[i] for i in back]
            if w is not None:
                w = w + [w[i] for i in back]
        s = np.asarray(src, dtype=np.int64)
        d = np.asarray(dst, dtype=np.int64)
        cols = {"weight": np.asarray(w, dtype=np.float64)} if w is not None else None
        return cls._from_internal(s, d, len(nodes), ids, cols, dedupe=not G.is_multigraph())

    @classmethod
    def from_scipy(cls, A: Any, *, dedupe: bool = True) -> Graph:
        """Build from a square scipy sparse matrix: stored entry ``A[i, j]`` is edge ``i -> j``.

        Entry values become the ``"weight"`` column; vertex ids are ``0..n-1``.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> g = Graph.from_scipy(sp.csr_array([[0, 2.0], [1.0, 0]]))
        >>> g.num_edges, g.weights.tolist()
        (2, [2.0, 1.0])
        """
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise GraphError(f"Expected a square sparse matrix (got shape {A.shape})")
        coo = A.tocoo()
        return cls.from_edges(
            coo.row.astype(np.int64),
            coo.col.astype(np.int64),
            num_vertices=A.shape[0],
            weights=np.asarray(coo.data, dtype=np.float64),
            dedupe=dedupe,
        )

    @classmethod
    def from_pandas(
        cls,
        df: Any,
        source: str = "source",
        target: str = "target",
        weight: str | None = None,
        *,
        dedupe: bool = True,
    ) -> Graph:
        """Build from a DataFrame with source and target columns (and optionally a weight column).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"source": [5, 6], "target": [6, 7], "w": [1.0, 3.0]})
        >>> Graph.from_pandas(df, weight="w").ids.tolist()
        [5, 6, 7]
        """
        for col in (source, target) + ((weight,) if weight else ()):
            if col not in df.columns:
                raise GraphError(f"Expected a column named {col!r} (got columns {list(df.columns)})")
        w = df[weight].to_numpy(dtype=np.float64) if weight else None
        return cls.from_edges(df[source].to_numpy(), df[target].to_numpy(), weights=w, dedupe=dedupe)

    def symmetrized(self) -> Graph:
        """The graph with every edge in both directions (an undirected graph stored as directed).

        Ids are kept; a pair present both ways stays one edge each way; edge columns follow
        their edge (the reverse copy gets the same values; when both directions were present the
        input's own edge wins over the added copy).

        Examples
        --------
        >>> g = Graph.from_edges([5, 6], [6, 7]).symmetrized()
        >>> sorted(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist()))
        [(5, 6), (6, 5), (6, 7), (7, 6)]
        """
        loops = self.src == self.dst
        rs, rd = self.dst[~loops], self.src[~loops]
        src = np.concatenate([rs, self.src])  # originals last: they win when deduplicated
        dst = np.concatenate([rd, self.dst])
        cols = {k: np.concatenate([v[~loops], v]) for k, v in self.edata.items()}
        g = Graph._from_internal(src, dst, self.num_vertices, self.ids, cols, dedupe=True)
        g.num_duplicates = self.num_duplicates
        return g

    def simple_undirected(self) -> Graph:
        """The undirected simple view (what ``networkx``'s ``G.to_undirected()`` of a simple
        graph is): every edge in both directions once, no self-loops, no edge columns; ids kept.
        Each vertex's out-neighbours are then its neighbours, sorted, without repeats.

        Examples
        --------
        >>> g = Graph.from_edges([5, 6, 6, 7], [6, 5, 6, 5]).simple_undirected()
        >>> sorted(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist()))
        [(5, 6), (5, 7), (6, 5), (7, 5)]
        """
        keep = self.src != self.dst
        src = np.concatenate([self.src[keep], self.dst[keep]])
        dst = np.concatenate([self.dst[keep], self.src[keep]])
        return Graph._from_internal(src, dst, self.num_vertices, self.ids, {}, dedupe=True)

    # ------------------------------------------------------------------ views
    @property
    def weights(self) -> np.ndarray | None:
        """The ``"weight"`` edge column, or ``None``."""
        return self.edata.get("weight")

    @property
    def out_degree(self) -> np.ndarray:
        return np.diff(self.out_indptr)

    @property
    def in_degree(self) -> np.ndarray:
        return np.diff(self.in_indptr)

    @property
    def num_self_loops(self) -> int:
        return int(np.count_nonzero(self.src == self.dst))

    def index_of(self, original: Any) -> np.ndarray | int:
        """Internal id(s) of original vertex id(s); raises :class:`GraphError` for unknown ids.

        Examples
        --------
        >>> Graph.from_edges([10], [30]).index_of(30)
        1
        """
        scalar = np.ndim(original) == 0
        q = np.atleast_1d(np.asarray(original))
        if self.ids.dtype == object:
            lookup = {x: i for i, x in enumerate(self.ids.tolist())}
            try:
                out = np.array([lookup[x] for x in q.tolist()], dtype=np.int64)
            except KeyError as exc:
                raise GraphError(f"Unknown vertex id {exc.args[0]!r}") from None
        else:
            if q.dtype.kind == "O" and all(isinstance(x, int) for x in q.tolist()):  # past 2**64
                raise GraphError(f"Unknown vertex id {q[0]!r}: vertex ids are below 2**64")
            if q.dtype.kind not in "iu":
                raise GraphError(f"Unknown vertex id {q[0]!r}: ids of this graph are integers")
            if q.dtype.kind == "i" and q.size and q.min() < 0:
                raise GraphError(f"Unknown vertex id {int(q.min())}")
            qq = q.astype(self.ids.dtype)
            out = np.searchsorted(self.ids, qq).astype(np.int64)
            ok = out < self.num_vertices
            ok[ok] = self.ids[out[ok]] == qq[ok]
            if not ok.all():
                raise GraphError(
                    f"Unknown vertex id {q[~ok][0].item()!r}: it is not in the graph "
                    f"({self.num_vertices} vertices, ids {self.ids[0]}..{self.ids[-1]})"
                    if self.num_vertices
                    else f"Unknown vertex id {q[~ok][0].item()!r}: the graph is empty"
                )
        return int(out[0]) if scalar else out

    def nbytes(self) -> int:
        """Memory held by the graph's arrays, in bytes."""
        arrays = [
            self.out_indptr,
            self.src,
            self.dst,
            self.in_indptr,
            self.in_src,
            self.in_eid,
            self.ids,
        ] + list(self.edata.values())
        return int(sum(a.nbytes for a in arrays))

    def info(self) -> dict[str, Any]:
        """Summary counts: vertices, edges, self-loops, duplicates, degree stats, memory."""
        out_deg = self.out_degree
        in_deg = self.in_degree
        deg = out_deg + in_deg

        def stats(d: np.ndarray) -> tuple[int, float, int]:
            if d.size == 0:
                return (0, 0.0, 0)
            return (int(d.min()), float(np.median(d)), int(d.max()))

        return {
            "vertices": self.num_vertices,
            "edges": self.num_edges,
            "self_loops": self.num_self_loops,
            "duplicate_edges": self.num_duplicates,
            "weighted": "weight" in self.edata,
            "out_degree": stats(out_deg),
            "in_degree": stats(in_deg),
            "degree": stats(deg),
            "memory_bytes": self.nbytes(),
        }

    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph`` (``MultiDiGraph`` when parallel edges exist) with original ids."""
        import networkx as nx

        multi = self.num_edges > 1 and bool(
            np.any((self.src[1:] == self.src[:-1]) & (self.dst[1:] == self.dst[:-1]))
        )
        G = nx.MultiDiGraph() if multi else nx.DiGraph()
        ids = self.ids.tolist()
        G.add_nodes_from(ids)
        s = [ids[i] for i in self.src.tolist()]
        d = [ids[i] for i in self.dst.tolist()]
        if self.weights is not None:
            G.add_weighted_edges_from(zip(s, d, self.weights.tolist()))
        else:
            G.add_edges_from(zip(s, d))
        return G

    def __repr__(self) -> str:
        w = ", weighted" if "weight" in self.edata else ""
        return f"<gas.Graph {self.num_vertices} vertices, {self.num_edges} edges{w}>"
