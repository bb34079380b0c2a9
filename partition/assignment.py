"""Partitioning results, shaped for the multi-process runtime.

Both kinds share one placement view, so the runtime can treat them alike:

* every edge ``e`` is stored on part ``edge_part[e]`` (for an edge-cut, the part owning its
  target ``dst[e]``, so that in-edge gathers are local);
* every vertex ``v`` has one ``master[v]`` part (edge-cut: its owner) and a sorted replica list
  ``replica_parts[replica_indptr[v]:replica_indptr[v+1]]``: the parts holding an edge of ``v``,
  plus the master. The replicas other than the master are its *mirrors*;
* per part: its edge ids (:meth:`Assignment.part_edges`, increasing, so in the graph's edge
  order), its local vertices (:meth:`Assignment.part_vertices`, increasing), and among those
  its masters and mirrors.

A vertex without edges still gets a master (placed on the part with the fewest masters) and
that part is its only replica, so every vertex has exactly one master and it is a replica.
Derived arrays are built on first use and cached.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from gas.partition import derive
from gas.partition.hashing import seed_to_uint

__all__ = ["Assignment", "VertexCut", "EdgeCut", "PartView"]


class PartView(NamedTuple):
    """What one worker holds: its edges and vertices, with local numbering.

    Attributes
    ----------
    part : int
    edges : ndarray of int64
        Global edge ids on this part, increasing.
    vertices : ndarray of int64
        Global ids of the local vertices, increasing; local id ``i`` is ``vertices[i]``.
    src_local, dst_local : ndarray of int64
        Endpoints of ``edges`` as local ids.
    master : ndarray of int32
        Master part of each local vertex (``== part`` for the ones mastered here).
    """

    part: int
    edges: np.ndarray
    vertices: np.ndarray
    src_local: np.ndarray
    dst_local: np.ndarray
    master: np.ndarray


class Assignment:
    """Common part of :class:`VertexCut` and :class:`EdgeCut` (see the module docstring).

    Attributes
    ----------
    num_parts, num_vertices, num_edges : int
    src, dst : ndarray of int64
        The partitioned edges (shared with the input, not copied).
    method : str
        Registry name of the method that produced it; ``seed``, ``options``, ``seconds`` (time
        spent assigning, derived views excluded) describe the run.
    """

    kind = ""

    def __init__(
        self,
        src: np.ndarray,
        dst: np.ndarray,
        num_vertices: int,
        num_parts: int,
        *,
        method: str = "",
        seed: int = 0,
        options: dict[str, Any] | None = None,
        seconds: float = 0.0,
    ) -> None:
        self.src = src
        self.dst = dst
        self.num_vertices = int(num_vertices)
        self.num_edges = int(src.shape[0])
        self.num_parts = int(num_parts)
        self.method = method
        self.seed = int(seed)
        self.options = dict(options or {})
        self.seconds = float(seconds)

    # ------------------------------------------------------------------ per edge
    edge_part: np.ndarray

    # ------------------------------------------------------------------ per vertex
    def _replica_bits(self) -> tuple[np.ndarray, np.ndarray]:
        """Replica bit matrix (``n x ceil(P/64)`` words) and the master of each vertex."""
        raise NotImplementedError

    @cached_property
    def _replicas(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        bits, master = self._replica_bits()
        indptr, parts = derive.bits_to_csr(bits, self.num_parts)
        return master, indptr, parts

    @property
    def master(self) -> np.ndarray:
        """``int32`` master part of each vertex (one of its replicas)."""
        return self._replicas[0]

    @property
    def replica_indptr(self) -> np.ndarray:
        """CSR offsets (int64, ``num_vertices + 1``) into :attr:`replica_parts`."""
        return self._replicas[1]

    @property
    def replica_parts(self) -> np.ndarray:
        """``int32`` replica parts of every vertex, increasing within a vertex."""
        return self._replicas[2]

    @property
    def num_replicas(self) -> np.ndarray:
        """Number of replicas of each vertex (>= 1)."""
        return np.diff(self.replica_indptr)

    def replicas(self, v: int) -> np.ndarray:
        """The parts holding a copy of vertex ``v``, increasing."""
        return self.replica_parts[self.replica_indptr[v] : self.replica_indptr[v + 1]]

    def mirror_parts(self, v: int) -> np.ndarray:
        """The replicas of ``v`` other than its master: where its master sends updates."""
        r = self.replicas(v)
        return r[r != self.master[v]]

    # ------------------------------------------------------------------ per part
    @cached_property
    def _part_edges(self) -> tuple[np.ndarray, np.ndarray]:
        return derive.group_by_key(self.edge_part, self.num_parts)

    @cached_property
    def _part_vertices(self) -> tuple[np.ndarray, np.ndarray]:
        return derive.transpose_csr(self.replica_indptr, self.replica_parts, self.num_parts)

    def part_edges(self, p: int) -> np.ndarray:
        """Edge ids stored on part ``p``, increasing (``src[ids]``, ``dst[ids]`` are its edges)."""
        ptr, ids = self._part_edges
        return ids[ptr[p] : ptr[p + 1]]

    def part_vertices(self, p: int) -> np.ndarray:
        """Local vertices of part ``p`` (every vertex with a replica there), increasing."""
        ptr, verts = self._part_vertices
        return verts[ptr[p] : ptr[p + 1]]

    def part_masters(self, p: int) -> np.ndarray:
        """Local vertices of part ``p`` whose master is ``p``."""
        v = self.part_vertices(p)
        return v[self.master[v] == p]

    def part_mirrors(self, p: int) -> np.ndarray:
        """Local vertices of part ``p`` mastered elsewhere."""
        v = self.part_vertices(p)
        return v[self.master[v] != p]

    def part_view(self, p: int) -> PartView:
        """Part ``p`` with local vertex numbering (see :class:`PartView`).

        Examples
        --------
        >>> import numpy as np
        >>> a = VertexCut(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([1, 2, 2]), 3, 2)
        >>> v = a.part_view(1)
        >>> v.vertices.tolist(), v.src_local.tolist(), v.dst_local.tolist()
        ([0, 1, 2], [0, 1], [2, 2])
        """
        edges = self.part_edges(p)
        verts = self.part_vertices(p)
        return PartView(
            part=int(p),
            edges=edges,
            vertices=verts,
            src_local=np.searchsorted(verts, self.src[edges]),
            dst_local=np.searchsorted(verts, self.dst[edges]),
            master=self.master[verts],
        )

    @cached_property
    def edges_per_part(self) -> np.ndarray:
        """Number of edges stored on each part."""
        return np.bincount(self.edge_part, minlength=self.num_parts)

    @cached_property
    def vertices_per_part(self) -> np.ndarray:
        """Number of local vertices (replicas) on each part."""
        return np.bincount(self.replica_parts, minlength=self.num_parts)

    @property
    def masters_per_part(self) -> np.ndarray:
        return np.bincount(self.master, minlength=self.num_parts)

    # ------------------------------------------------------------------ output
    def report(self, gather_bytes: int = 8) -> Any:
        """Quality figures of this assignment (a :class:`gas.partition.PartitionReport`)."""
        from gas.partition.report import build_report

        return build_report(self, gather_bytes)

    def write(self, path: str | os.PathLike, ids: np.ndarray | None = None) -> None:
        """Write the assignment as TSV, atomically (see :func:`gas.partition.write_assignment`)."""
        from gas.partition.output import write_assignment

        write_assignment(self, path, ids)

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.method!r}: {self.num_edges} edges, "
            f"{self.num_vertices} vertices, {self.num_parts} parts>"
        )


class VertexCut(Assignment):
    """A vertex-cut: every edge on exactly one part, vertices replicated where their edges are.

    Parameters
    ----------
    edge_part : ndarray of int
        Part of each edge, in the order of ``src``/``dst``.
    src, dst, num_vertices, num_parts, **info
        As in :class:`Assignment`.

    Notes
    -----
    Masters are chosen to spread evenly: a vertex with one replica is mastered there; the others,
    in id order, take the replica part holding the fewest masters so far (ties broken by a
    seeded hash of the vertex id); vertices without edges go to the part with fewest masters.

    Examples
    --------
    >>> import numpy as np
    >>> a = VertexCut(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([1, 2, 2]), 4, 2)
    >>> a.replicas(0).tolist(), a.num_replicas.tolist()
    ([0, 1], [2, 2, 1, 1])
    >>> a.part_edges(1).tolist(), a.part_vertices(1).tolist()
    ([1, 2], [0, 1, 2, 3])
    >>> int(a.master[1]) in a.replicas(1)
    True
    """

    kind = "vertex-cut"

    def __init__(
        self,
        edge_part: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        num_vertices: int,
        num_parts: int,
        **info: Any,
    ) -> None:
        super().__init__(src, dst, num_vertices, num_parts, **info)
        self.edge_part = np.ascontiguousarray(edge_part, dtype=np.int32)

    def _replica_bits(self) -> tuple[np.ndarray, np.ndarray]:
        bits = derive.edge_replica_bits(self.src, self.dst, self.edge_part, self.num_vertices, self.num_parts)
        master = derive.choose_masters(bits, self.num_parts, seed_to_uint(self.seed))
        return bits, master


class EdgeCut(Assignment):
    """An edge-cut: every vertex owned by one part; an edge is stored with its target's owner.

    Parameters
    ----------
    vertex_part : ndarray of int
        Owner part of each vertex.
    src, dst, num_vertices, num_parts, **info
        As in :class:`Assignment`.

    Attributes
    ----------
    vertex_part : ndarray of int32
        The owner of each vertex; it is also its :attr:`master`.
    edge_part : ndarray of int32
        ``vertex_part[dst]``.

    Notes
    -----
    *Ghosts* of part ``p`` (:meth:`part_ghosts`) are the vertices owned elsewhere with a
    neighbour, in either direction, owned by ``p``: what an edge-cut engine that follows edges
    both ways must copy in each superstep. The mirrors of the shared placement view are the
    subset needed for in-edge gathers only.

    Examples
    --------
    >>> import numpy as np
    >>> a = EdgeCut(np.array([0, 0, 1]), np.array([0, 1]), np.array([1, 2]), 3, 2)
    >>> a.edge_part.tolist(), a.cut_edges, a.part_ghosts(0).tolist()
    ([0, 1], 1, [2])
    """

    kind = "edge-cut"

    def __init__(
        self,
        vertex_part: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        num_vertices: int,
        num_parts: int,
        **info: Any,
    ) -> None:
        super().__init__(src, dst, num_vertices, num_parts, **info)
        self.vertex_part = np.ascontiguousarray(vertex_part, dtype=np.int32)
        self.edge_part = self.vertex_part[dst] if dst.size else np.empty(0, np.int32)

    def _replica_bits(self) -> tuple[np.ndarray, np.ndarray]:
        bits = derive.edge_replica_bits(self.src, self.dst, self.edge_part, self.num_vertices, self.num_parts)
        derive.set_own_bits(bits, self.vertex_part)
        return bits, self.vertex_part

    @cached_property
    def cut_edges(self) -> int:
        """Number of edges whose endpoints are owned by different parts."""
        return int(derive.count_cut(self.src, self.edge_part, self.vertex_part))

    @property
    def edge_cut_fraction(self) -> float:
        """``cut_edges / num_edges`` (0 for a graph without edges)."""
        return self.cut_edges / self.num_edges if self.num_edges else 0.0

    @cached_property
    def _ghost_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Per vertex, the parts other than its owner where it is a ghost (CSR)."""
        bits = derive.ghost_bits(self.src, self.dst, self.vertex_part, self.num_vertices, self.num_parts)
        own = self.vertex_part.astype(np.int64)
        own_bit = np.uint64(1) << (own & 63).astype(np.uint64)
        bits[np.arange(self.num_vertices), own >> 6] &= ~own_bit
        return derive.bits_to_csr(bits, self.num_parts)

    @cached_property
    def _ghosts(self) -> tuple[np.ndarray, np.ndarray]:
        indptr, parts = self._ghost_csr
        return derive.transpose_csr(indptr, parts, self.num_parts)

    def part_ghosts(self, p: int) -> np.ndarray:
        """Vertices owned elsewhere that are neighbours of vertices owned by ``p``, increasing."""
        ptr, verts = self._ghosts
        return verts[ptr[p] : ptr[p + 1]]

    @cached_property
    def ghosts_per_part(self) -> np.ndarray:
        """Number of ghost vertices on each part."""
        return np.bincount(self._ghost_csr[1], minlength=self.num_parts)
