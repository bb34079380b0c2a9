"""The graph: CSR (out-edges) and CSC (in-edges) numpy arrays, typed edge data, original ids.

Internal vertex ids are ``0..num_vertices-1``; ``graph.ids[v]`` is the id the user gave. Edges are
stored once, in CSR order (sorted by ``(src, dst)``); edge ``e`` goes ``src[e] -> dst[e]`` and its
data is ``edata[name][e]``. The CSC view lists in-edges by target: ``in_src[k]`` is the source and
``in_eid[k]`` the edge id of the ``k``-th in-edge slot, slots of vertex ``v`` being
``in_indptr[v]:in_indptr[v+1]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gas._build import build_csc, build_csr, compact_ids
from gas.errors import GraphError
from gas.frames import node_results, results_frame
from gas.graph_build import (
    as_id_array,
    build_in_edges,
    csr_of,
    edge_columns,
    in_edges_first,
    networkx_columns,
    out_edges_of,
    out_offsets,
    pandas_edges,
)

__all__ = ["Graph"]

_INT64_MAX = np.iinfo(np.int64).max


def _both_ways(
    src: list[int], dst: list[int], cols: dict[str, np.ndarray]
) -> tuple[list[int], list[int], dict[str, np.ndarray]]:
    """Each edge and, unless it is a self-loop, its reverse (reverses after all originals)."""
    back = [i for i, (s, d) in enumerate(zip(src, dst, strict=True)) if s != d]
    src2 = src + [dst[i] for i in back]
    dst2 = dst + [src[i] for i in back]
    idx = np.asarray(back, dtype=np.int64)
    return src2, dst2, {k: np.concatenate([v, v[idx]]) for k, v in cols.items()}


class Graph:
    """A directed graph in CSR + CSC form with typed edge data and original vertex ids.

    Build one with :meth:`from_edges`, :meth:`from_networkx`, :meth:`from_scipy`,
    :meth:`from_pandas` or :func:`gas.load`. An undirected input (``directed=False``, an
    undirected networkx graph) is stored with both directions.

    Attributes
    ----------
    num_vertices, num_edges : int
    ids : ndarray
        Original id of each internal vertex: int64 (uint64 for ids past 2**63-1), or object
        for labels of other kinds (strings from :meth:`from_pandas` or :meth:`from_networkx`).
    out_indptr, src, dst : ndarray of int64
        CSR: out-edges of ``v`` are ``out_indptr[v]:out_indptr[v+1]``, going ``src[e] -> dst[e]``.
        (A large graph built from edge arrays makes ``src`` and ``dst`` when first read.)
    in_indptr, in_src, in_eid : ndarray of int64
        CSC: in-edge slots of ``v`` are ``in_indptr[v]:in_indptr[v+1]``.
    edata : dict of str to ndarray
        Edge data columns in CSR order (``"weight"`` when the input had weights).
    vdata : dict of str to ndarray
        Vertex data columns by internal id (e.g. the node attributes :meth:`from_networkx`
        read); kept by :meth:`symmetrized` and :meth:`simple_undirected`, not saved in ``.npz``.
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
        src: np.ndarray | None,
        dst: np.ndarray | None,
        ids: np.ndarray,
        edata: dict[str, np.ndarray] | None = None,
        num_duplicates: int = 0,
        vdata: dict[str, np.ndarray] | None = None,
        *,
        csc: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None,
    ) -> None:
        n = out_indptr.shape[0] - 1
        self.num_vertices: int = int(n)
        self.num_edges: int = int(src.shape[0] if csc is None else csc[1].shape[0])  # type: ignore[union-attr]
        self.out_indptr = out_indptr
        self._src, self._dst = src, dst  # None with ``csc`` given: made on first use
        self.ids = ids
        self.edata: dict[str, np.ndarray] = dict(edata or {})
        self.num_duplicates = int(num_duplicates)
        self.vdata: dict[str, np.ndarray] = dict(vdata or {})
        self.in_indptr, self.in_src, self._in_eid = build_csc(src, dst, n) if csc is None else csc

    @property
    def in_eid(self) -> np.ndarray:
        """Edge id (CSR position) of each in-edge slot (made when first read if built in-edges
        first: a program that reads neither edge data nor out-edges never needs it)."""
        if self._in_eid is None:
            self._in_eid = out_edges_of(self.in_src, self.num_vertices)[1]
        return self._in_eid

    @in_eid.setter
    def in_eid(self, value: np.ndarray) -> None:
        self._in_eid = value

    @property
    def src(self) -> np.ndarray:
        """Source of each edge, CSR order (made when first read if built in-edges first)."""
        return self._src if self._src is not None else self._make_csr()[0]

    def _make_csr(self) -> tuple[np.ndarray, np.ndarray]:
        self._src, self._dst = csr_of(self.in_indptr, self.in_eid, self.out_indptr)
        return self._src, self._dst

    @property
    def dst(self) -> np.ndarray:
        """Target of each edge, CSR order (made with :attr:`src`)."""
        return self._dst if self._dst is not None else self._make_csr()[1]

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
        vdata: dict[str, np.ndarray] | None = None,
    ) -> Graph:
        if in_edges_first(n, src.shape[0]):  # the CSC first (graph_build.build_in_edges): same arrays
            in_indptr, in_src, take = build_in_edges(src, dst, n, dedupe, with_take=bool(edata))
            if edata:  # the input index of each edge, in CSR order
                out_indptr, in_eid = out_edges_of(in_src, n)
                take_csr = np.empty_like(take)
                take_csr[in_eid] = take
                edata = {k: np.asarray(v)[take_csr] for k, v in edata.items()}
            else:  # the in-edges' CSR positions when first read (Graph.in_eid)
                out_indptr, in_eid = out_offsets(in_src, n), None
            csc, dup = (in_indptr, in_src, in_eid), src.shape[0] - in_src.shape[0]
            return cls(out_indptr, None, None, ids, edata, dup, vdata, csc=csc)  # src, dst: when read
        indptr, s, d, take = build_csr(src, dst, n, dedupe, with_take=bool(edata))
        cols = {k: np.ascontiguousarray(np.asarray(v)[take]) for k, v in (edata or {}).items()}
        return cls(indptr, s, d, ids, cols, num_duplicates=src.shape[0] - s.shape[0], vdata=vdata)

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
        directed: bool = True,
    ) -> Graph:
        """Build a graph from two arrays of vertex ids.

        Parameters
        ----------
        src, dst : array_like of non-negative int
            Edge ``i`` goes ``src[i] -> dst[i]``. Labels of other kinds (strings, categoricals):
            :meth:`from_pandas`.
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
        directed : bool, default True
            ``False``: each pair is an undirected edge, stored in both directions (the graph is
            :meth:`symmetrized`, as the CLI's ``--undirected`` does).

        Raises
        ------
        GraphError
            On negative or non-integer ids, mismatched lengths, or ids outside ``num_vertices``.

        Examples
        --------
        >>> g = Graph.from_edges([0, 1], [1, 2], num_vertices=4, weights=[0.5, 2.0])
        >>> g.num_vertices, g.weights.tolist()
        (4, [0.5, 2.0])
        >>> Graph.from_edges([0, 1], [1, 2], directed=False).num_edges
        4
        """
        g = cls._from_id_arrays(
            as_id_array(src, "'src'"), as_id_array(dst, "'dst'"), num_vertices, weights, dedupe, edge_data
        )
        return g if directed else g.symmetrized()

    @classmethod
    def _from_id_arrays(
        cls,
        s: np.ndarray,
        d: np.ndarray,
        num_vertices: int | None,
        weights: Any,
        dedupe: bool,
        edge_data: dict[str, Any] | None,
    ) -> Graph:
        """:meth:`from_edges` after its id arrays were checked."""
        if s.shape != d.shape:
            raise GraphError(f"Expected 'src' and 'dst' of equal length (got {s.shape[0]} and {d.shape[0]})")
        cols = edge_columns(s.shape, weights, edge_data)
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
                s.astype(np.int64, copy=False),  # no copy of int64 ids: the build only reads them
                d.astype(np.int64, copy=False),
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
    def from_networkx(
        cls,
        G: Any,
        weight: str | None = "weight",
        *,
        directed: bool | None = None,
        node_attrs: Sequence[str] = (),
        edge_attrs: Sequence[str] = (),
        default: float | None = None,
    ) -> Graph:
        """Build from a networkx graph; undirected edges are stored in both directions.

        Node labels become :attr:`ids` (sorted when they are all non-negative integers, else in
        ``G.nodes`` order); isolated nodes are kept. Multigraphs keep parallel edges. Edge
        attribute ``weight`` (default 1.0 where missing) becomes the ``"weight"`` column when any
        edge has it.

        Parameters
        ----------
        G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
        weight : str or None, default "weight"
        directed : bool, optional
            Default: ``G.is_directed()``. ``False`` on a directed graph adds every reverse edge
            (:meth:`symmetrized`); ``True`` on an undirected one keeps each edge once, in the
            direction ``G.edges`` lists it.
        node_attrs : sequence of str
            Numeric node attributes to load into :attr:`vdata` (one array by internal id each).
        edge_attrs : sequence of str
            Numeric edge attributes to load into :attr:`edata` (CSR order).
        default : float, optional
            The value of a listed attribute where a node or edge lacks it; without one, a
            missing attribute is a :class:`GraphError`.

        Examples
        --------
        >>> import networkx as nx
        >>> g = Graph.from_networkx(nx.path_graph(3))
        >>> g.num_edges
        4
        >>> G = nx.DiGraph([("a", "b", {"cap": 2.5})])
        >>> G.nodes["a"]["age"] = 31
        >>> g = Graph.from_networkx(G, node_attrs=["age"], edge_attrs=["cap"], default=0)
        >>> g.ids.tolist(), g.vdata["age"].tolist(), g.edata["cap"].tolist()
        (['a', 'b'], [31, 0], [2.5])
        """
        nodes = list(G.nodes)
        if all(isinstance(x, (int, np.integer)) and x >= 0 for x in nodes):
            nodes = sorted(nodes)
            ids = np.array(
                [int(x) for x in nodes], dtype=np.int64 if not nodes or nodes[-1] <= _INT64_MAX else np.uint64
            )
        else:
            ids = np.empty(len(nodes), dtype=object)
            ids[:] = nodes
        index = {x: i for i, x in enumerate(nodes)}
        edges = list(G.edges(data=True))
        vcols, ecols = networkx_columns(G, nodes, edges, node_attrs, edge_attrs, default)
        src = [index[u] for u, _, _ in edges]
        dst = [index[v] for _, v, _ in edges]
        has_w = weight is not None and any(weight in a for _, _, a in edges)
        if has_w:
            ecols = {"weight": np.asarray([float(a.get(weight, 1.0)) for _, _, a in edges]), **ecols}
        if not G.is_directed() and not directed:
            src, dst, ecols = _both_ways(src, dst, ecols)
        s = np.asarray(src, dtype=np.int64)
        d = np.asarray(dst, dtype=np.int64)
        g = cls._from_internal(s, d, len(nodes), ids, ecols, dedupe=not G.is_multigraph(), vdata=vcols)
        return g.symmetrized() if directed is False and G.is_directed() else g

    @classmethod
    def from_scipy(cls, A: Any, *, dedupe: bool = True, directed: bool = True) -> Graph:
        """Build from a square scipy sparse matrix: stored entry ``A[i, j]`` is edge ``i -> j``.

        Entry values become the ``"weight"`` column; vertex ids are ``0..n-1``. ``directed=False``
        stores every entry in both directions (:meth:`symmetrized`).

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
            directed=directed,
        )

    @classmethod
    def from_pandas(
        cls,
        df: Any,
        source: str = "source",
        target: str = "target",
        weight: str | None = None,
        directed: bool = True,
        *,
        dedupe: bool = True,
    ) -> Graph:
        """Build from a DataFrame with source and target columns (and optionally a weight column).

        Parameters
        ----------
        df : pandas.DataFrame
        source, target : str
            The columns holding each edge's endpoints, any names (SNAP's ``"FromNodeId"`` and
            ``"ToNodeId"``). Non-negative integer ids are compacted as in :meth:`from_edges`;
            any other hashable labels (strings, categoricals, negative integers) are factorized
            once over both columns, in sorted order when they can be ordered, and :attr:`ids`
            holds the labels (an object array for strings).
        weight : str, optional
            The column of edge weights (the ``"weight"`` edge column).
        directed : bool, default True
            ``False``: each row is an undirected edge, stored in both directions.
        dedupe : bool, default True
            As in :meth:`from_edges`.

        Raises
        ------
        GraphError
            Naming the column: a missing column, a missing label, negative or fractional float
            ids, non-numeric weights.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"source": [5, 6], "target": [6, 7], "w": [1.0, 3.0]})
        >>> Graph.from_pandas(df, weight="w").ids.tolist()
        [5, 6, 7]
        >>> snap = pd.DataFrame({"FromNodeId": ["b", "a"], "ToNodeId": ["c", "b"]})
        >>> g = Graph.from_pandas(snap, "FromNodeId", "ToNodeId", directed=False)
        >>> g.ids.tolist(), g.num_edges, g.index_of("c")
        (['a', 'b', 'c'], 4, 2)
        """
        s, d, ids, w = pandas_edges(df, source, target, weight)
        if ids is None:
            g = cls._from_id_arrays(s, d, None, w, dedupe, None)
        else:
            g = cls._from_internal(s, d, ids.shape[0], ids, edge_columns(s.shape, w, None), dedupe)
        return g if directed else g.symmetrized()

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
        g = Graph._from_internal(src, dst, self.num_vertices, self.ids, cols, dedupe=True, vdata=self.vdata)
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
        return Graph._from_internal(src, dst, self.num_vertices, self.ids, {}, dedupe=True, vdata=self.vdata)

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
            cached = getattr(self, "_label_index", None)
            if cached is None or cached[0] is not self.ids:  # labels: one dict, built on first use
                cached = (self.ids, {x: i for i, x in enumerate(self.ids.tolist())})
                self._label_index = cached
            lookup = cached[1]
            try:
                out = np.array([lookup[x] for x in q.tolist()], dtype=np.int64)
            except KeyError as exc:
                raise GraphError(f"Unknown vertex id {exc.args[0]!r}") from None
        else:
            if q.dtype.kind == "O" and all(isinstance(x, int) for x in q.tolist()):  # past 2**64
                raise GraphError(f"Unknown vertex id {q[0]!r}: vertex ids are below 2**64")
            if q.dtype.kind not in "iu":
                raise GraphError(f"Unknown vertex id {q[0]!r}: ids of this graph are integers")
            if q.dtype.kind == "i" and q.size and q.min() < 0 and self.ids.dtype == np.uint64:
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

    def frame(self, **results: Any) -> Any:
        """A pandas DataFrame of per-vertex results, indexed by original id (index name ``"id"``).

        Each keyword is a column: an array by internal id with one value per vertex (what
        :func:`~gas.algorithms.pagerank.pagerank` and the other algorithms return), or a 2-D
        array of shape ``(num_vertices, k)`` giving columns ``name_0 .. name_{k-1}``. pandas is
        imported here only; without it, a :class:`~gas.errors.GasError` says to install it.

        Examples
        --------
        >>> import numpy as np
        >>> g = Graph.from_edges([10, 20], [20, 30])
        >>> g.frame(rank=np.array([0.2, 0.3, 0.5]), hop=np.arange(3))
            rank  hop
        id
        10   0.2    0
        20   0.3    1
        30   0.5    2
        """
        return results_frame(self.ids, self.num_vertices, results)

    def to_networkx(self, **results: Any) -> Any:
        """A ``networkx.DiGraph`` (``MultiDiGraph`` when parallel edges exist) with original ids.

        Node attributes: the :attr:`vdata` columns, then each keyword (an array by internal id,
        checked as in :meth:`frame`). Edge attributes: every :attr:`edata` column (``"weight"``
        included), so that :meth:`from_networkx` with the same ``node_attrs``/``edge_attrs``
        gives the graph back.

        Examples
        --------
        >>> import numpy as np
        >>> G = Graph.from_edges([10], [20]).to_networkx(rank=np.array([0.4, 0.6]))
        >>> dict(G.nodes(data="rank"))
        {10: 0.4, 20: 0.6}
        """
        import networkx as nx

        multi = self.num_edges > 1 and bool(
            np.any((self.src[1:] == self.src[:-1]) & (self.dst[1:] == self.dst[:-1]))
        )
        G = nx.MultiDiGraph() if multi else nx.DiGraph()
        ids = self.ids.tolist()
        attrs = node_results(self.num_vertices, {**self.vdata, **results})
        if attrs:
            names = list(attrs)
            cols = [attrs[k].tolist() for k in names]
            G.add_nodes_from(
                (x, dict(zip(names, vals, strict=True))) for x, *vals in zip(ids, *cols, strict=True)
            )
        else:
            G.add_nodes_from(ids)
        s = [ids[i] for i in self.src.tolist()]
        d = [ids[i] for i in self.dst.tolist()]
        if len(self.edata) > 1 or (self.edata and self.weights is None):
            names = list(self.edata)
            cols = [self.edata[k].tolist() for k in names]
            G.add_edges_from(
                (u, v, dict(zip(names, vals, strict=True))) for u, v, *vals in zip(s, d, *cols, strict=True)
            )
        elif self.weights is not None:
            G.add_weighted_edges_from(zip(s, d, self.weights.tolist()))
        else:
            G.add_edges_from(zip(s, d))
        return G

    def __repr__(self) -> str:
        w = ", weighted" if "weight" in self.edata else ""
        return f"<gas.Graph {self.num_vertices} vertices, {self.num_edges} edges{w}>"
