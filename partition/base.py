"""The ``Partitioner`` interface, the name registry, and the edge input every method reads.

A partitioner is a small class with a ``name``, a ``kind`` (``"vertex-cut"``: every edge to one
part, vertices replicated; ``"edge-cut"``: every vertex to one part, cut edges make ghosts), a
table of options with defaults, and one method, :meth:`Partitioner._assign`, that returns an
``int32`` part id per edge (vertex-cut) or per vertex (edge-cut). Validation, timing and the
construction of the result object are shared.
"""

from __future__ import annotations

import time
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from gas.errors import InputError
from gas.graph import Graph

__all__ = ["Partitioner", "EdgeInput", "register", "get_partitioner", "available_methods", "require_edge_cut"]

_REGISTRY: dict[str, type[Partitioner]] = {}
# Listing order of the bundled methods (vertex-cuts by sophistication, then edge-cuts); methods
# registered later by users follow in registration order.
_ORDER = (
    "random",
    "grid",
    "oblivious",
    "hdrf",
    "dbh",
    "hybrid",
    "ne",
    "hash",
    "range",
    "ldg",
    "fennel",
)


class EdgeInput:
    """The edges being partitioned, with degree and adjacency views built on first use.

    Parameters
    ----------
    graph : Graph or tuple of (src, dst)
        A :class:`gas.Graph` (edges in its CSR order) or two arrays of internal vertex ids
        ``0..n-1`` (edges in the given order).
    num_vertices : int, optional
        For arrays only: ``n`` (default ``max(id) + 1``).

    Examples
    --------
    >>> inp = EdgeInput(([0, 0, 1], [1, 2, 2]))
    >>> inp.num_vertices, inp.num_edges, inp.degree.tolist()
    (3, 3, [2, 2, 2])
    """

    def __init__(self, graph: Graph | tuple[Any, Any], num_vertices: int | None = None) -> None:
        self.graph = graph if isinstance(graph, Graph) else None
        if self.graph is not None:
            self.src, self.dst = self.graph.src, self.graph.dst
            self.num_vertices = self.graph.num_vertices
        else:
            try:
                s, d = graph
            except (TypeError, ValueError):
                raise InputError(
                    f"Expected a gas.Graph or a (src, dst) pair of arrays (got {type(graph).__name__})"
                ) from None
            self.src = _id_array(s, "src")
            self.dst = _id_array(d, "dst")
            if self.src.shape != self.dst.shape:
                raise InputError(
                    f"Expected 'src' and 'dst' of equal length (got {self.src.size} and {self.dst.size})"
                )
            top = int(max(self.src.max(), self.dst.max())) + 1 if self.src.size else 0
            n = top if num_vertices is None else int(num_vertices)
            if n < top:
                raise InputError(f"Vertex id {top - 1} is outside 0..{n - 1} (num_vertices={n})")
            self.num_vertices = n
        self.num_edges = int(self.src.shape[0])

    @cached_property
    def out_degree(self) -> np.ndarray:
        if self.graph is not None:
            return self.graph.out_degree
        return np.bincount(self.src, minlength=self.num_vertices)

    @cached_property
    def in_degree(self) -> np.ndarray:
        if self.graph is not None:
            return self.graph.in_degree
        return np.bincount(self.dst, minlength=self.num_vertices)

    @cached_property
    def degree(self) -> np.ndarray:
        """Total degree (in + out; a self-loop counts twice)."""
        return self.out_degree + self.in_degree

    @cached_property
    def out_adj(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Out-edges by source: ``(indptr, targets, edge ids)``."""
        if self.graph is not None:
            g = self.graph
            return g.out_indptr, g.dst, np.arange(self.num_edges, dtype=np.int64)
        from gas.partition.derive import group_by_key

        indptr, eid = group_by_key(self.src, self.num_vertices)
        return indptr, self.dst[eid], eid

    @cached_property
    def in_adj(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """In-edges by target: ``(indptr, sources, edge ids)``."""
        if self.graph is not None:
            g = self.graph
            return g.in_indptr, g.in_src, g.in_eid
        from gas.partition.derive import group_by_key

        indptr, eid = group_by_key(self.dst, self.num_vertices)
        return indptr, self.src[eid], eid


def _id_array(a: Any, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InputError(
            f"Expected '{name}' to be a 1-D integer array of vertex ids (got {arr.dtype}, shape {arr.shape})"
        )
    if arr.size and arr.min() < 0:
        raise InputError(f"Expected '{name}' to hold non-negative vertex ids (got {arr.min()})")
    return np.ascontiguousarray(arr, dtype=np.int64)


class Partitioner:
    """Base class of every partitioning method.

    Subclasses set :attr:`name`, :attr:`kind`, :attr:`summary`, :attr:`defaults` (option name ->
    default value) and implement :meth:`_assign`; :meth:`check_options` and :meth:`check_parts`
    may add checks. Options are validated when the partitioner is built, the part count before
    any work is done.

    Parameters
    ----------
    **options
        Method options; unknown names raise :class:`gas.InputError` listing the known ones.
    """

    name: ClassVar[str] = ""
    kind: ClassVar[str] = "vertex-cut"
    summary: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            known = ", ".join(sorted(self.defaults)) or "none"
            raise InputError(
                f"Unknown option(s) {', '.join(map(repr, unknown))} for method {self.name!r}",
                hint=f"its options are: {known}",
            )
        self.options: dict[str, Any] = {**self.defaults, **options}
        self.check_options()

    def check_options(self) -> None:
        """Raise :class:`gas.InputError` for option values that cannot work."""
        order = self.options.get("order")
        if order is not None and order not in ("shuffle", "input"):
            raise InputError(f"Expected order 'shuffle' or 'input' (got {order!r})")

    def check_num_parts(self, num_parts: int) -> None:
        """Raise :class:`gas.InputError` when ``num_parts`` cannot work whatever the input."""
        if isinstance(num_parts, bool) or not isinstance(num_parts, (int, np.integer)):
            raise InputError(f"Expected the number of parts to be an integer (got {num_parts!r})")
        if num_parts < 1:
            raise InputError(f"Expected at least 1 part (got {num_parts})")
        if num_parts >= 2**31:
            raise InputError(f"Expected fewer than 2**31 parts (got {num_parts})")

    def check_parts(self, num_parts: int, num_edges: int, num_vertices: int) -> None:
        """Raise :class:`gas.InputError` when ``num_parts`` cannot work for this input."""
        self.check_num_parts(num_parts)
        if self.kind == "vertex-cut" and num_parts > num_edges:
            raise InputError(
                f"Cannot split {num_edges} edges into {num_parts} parts",
                hint="use at most as many parts as edges",
            )
        if self.kind == "edge-cut" and num_parts > num_vertices:
            raise InputError(
                f"Cannot split {num_vertices} vertices into {num_parts} parts",
                hint="use at most as many parts as vertices",
            )

    def partition(
        self,
        graph: Graph | tuple[Any, Any],
        num_parts: int,
        seed: int = 0,
        *,
        num_vertices: int | None = None,
    ) -> Any:
        """Partition ``graph`` into ``num_parts`` parts; returns a ``VertexCut`` or ``EdgeCut``."""
        from gas.partition.assignment import EdgeCut, VertexCut

        inp = graph if isinstance(graph, EdgeInput) else EdgeInput(graph, num_vertices)
        self.check_parts(num_parts, inp.num_edges, inp.num_vertices)
        num_parts = int(num_parts)
        t0 = time.perf_counter()
        parts = self._assign(inp, num_parts, int(seed))
        seconds = time.perf_counter() - t0
        cls = VertexCut if self.kind == "vertex-cut" else EdgeCut
        return cls(
            parts,
            inp.src,
            inp.dst,
            inp.num_vertices,
            num_parts,
            method=self.name,
            seed=int(seed),
            options=dict(self.options),
            seconds=seconds,
        )

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"<{type(self).__name__} {self.name!r}({opts})>"


def register(cls: type[Partitioner]) -> type[Partitioner]:
    """Class decorator: add a partitioner to the registry under ``cls.name``."""
    old = _REGISTRY.get(cls.name)
    if not cls.name or (old is not None and old.__qualname__ != cls.__qualname__):
        # the same class seen again (its module imported under a second name) just replaces
        raise ValueError(f"partitioner name {cls.name!r} is empty or already registered")
    if cls.kind not in ("vertex-cut", "edge-cut"):
        raise ValueError(f"partitioner kind must be 'vertex-cut' or 'edge-cut' (got {cls.kind!r})")
    _REGISTRY[cls.name] = cls
    return cls


def available_methods() -> dict[str, type[Partitioner]]:
    """Registered methods by name: the bundled ones in a fixed order, then any others.

    Examples
    --------
    >>> import gas.partition
    >>> list(gas.partition.available_methods())[:3]
    ['random', 'grid', 'oblivious']
    """
    rank = {name: i for i, name in enumerate(_ORDER)}
    names = sorted(_REGISTRY, key=lambda k: rank.get(k, len(rank)))
    return {k: _REGISTRY[k] for k in names}


def get_partitioner(name: str, **options: Any) -> Partitioner:
    """Build the partitioner registered as ``name`` with ``options``.

    Raises
    ------
    gas.InputError
        For an unknown name (the message lists the known ones) or bad options.

    Examples
    --------
    >>> import gas.partition
    >>> gas.partition.get_partitioner("hdrf", lam=2.0).options["lam"]
    2.0
    """
    cls = _REGISTRY.get(name)
    if cls is None:
        raise InputError(
            f"Unknown partitioning method {name!r}",
            hint="known methods: " + ", ".join(available_methods()),
        )
    return cls(**options)


def require_edge_cut(method: str, what: str, why: str) -> None:
    """Refuse ``method`` unless it is a registered edge-cut (every edge on its target's part).

    For programs that write their target vertex in place and so need it never mirrored; ``what``
    names the program in the message and ``why`` says what a vertex-cut would break.

    Examples
    --------
    >>> require_edge_cut("hash", "SGD", "items are written in place")
    >>> try:
    ...     require_edge_cut("hdrf", "SGD", "items are written in place")
    ... except ValueError as exc:
    ...     print(str(exc).split(":")[0])
    SGD on several processes needs an edge-cut partitioner (got the vertex-cut 'hdrf')
    """
    methods = available_methods()
    cuts = sorted(k for k, cls in methods.items() if cls.kind == "edge-cut")
    if method not in methods:
        raise ValueError(
            f"Unknown partitioner {method!r}; {what} on several processes takes an edge-cut: {cuts}"
        )
    if methods[method].kind != "edge-cut":
        raise ValueError(
            f"{what} on several processes needs an edge-cut partitioner (got the vertex-cut {method!r}): "
            f"{why}; use one of {cuts}"
        )
