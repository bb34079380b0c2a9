"""Graph partitioning: vertex-cuts and edge-cuts behind one interface, with quality reports.

Vertex-cut methods (each edge on one part, vertices replicated): ``random``, ``grid``,
``oblivious``, ``hdrf``, ``dbh``, ``hybrid``, ``ne``. Edge-cut methods (each vertex on one
part, cut edges make ghosts): ``hash``, ``range``, ``ldg``, ``fennel``. Every method is one
small module registered under its name; :func:`partition` runs one and returns a
:class:`VertexCut` or :class:`EdgeCut` that the multi-process runtime reads (per part its edges
and vertices, per vertex its master and mirrors) and whose :meth:`~Assignment.report` gives
the quality figures.

Examples
--------
>>> import gas
>>> from gas.partition import partition
>>> g = gas.Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 0])
>>> a = partition(g, "hdrf", num_parts=2, seed=0)
>>> a.edge_part.shape, a.master.shape
((5,), (4,))
>>> r = a.report()
>>> r.replication_factor >= 1.0
True
"""

from __future__ import annotations

from typing import Any

# Importing the method modules registers them (see gas.partition.base.register).
from gas.partition import (  # noqa: F401
    ec_hash,
    ec_range,
    ec_stream,
    vc_dbh,
    vc_grid,
    vc_hybrid,
    vc_ne,
    vc_oblivious,
    vc_random,
)
from gas.partition.assignment import Assignment, EdgeCut, PartView, VertexCut
from gas.partition.base import (
    EdgeInput,
    Partitioner,
    available_methods,
    get_partitioner,
    register,
    require_edge_cut,
)
from gas.partition.graphs import undirected_simple
from gas.partition.output import write_assignment
from gas.partition.report import PartitionReport, format_table
from gas.partition.vc_grid import grid_bound, grid_shape

__all__ = [
    "partition",
    "get_partitioner",
    "available_methods",
    "require_edge_cut",
    "register",
    "Partitioner",
    "EdgeInput",
    "Assignment",
    "VertexCut",
    "EdgeCut",
    "PartView",
    "PartitionReport",
    "format_table",
    "write_assignment",
    "undirected_simple",
    "grid_shape",
    "grid_bound",
]


def partition(
    graph: Any,
    method: str = "hdrf",
    num_parts: int = 8,
    *,
    seed: int = 0,
    num_vertices: int | None = None,
    **options: Any,
) -> Assignment:
    """Partition a graph with the method registered as ``method``.

    Parameters
    ----------
    graph : gas.Graph or (src, dst)
        A graph (its edges in CSR order) or two arrays of vertex ids ``0..n-1``.
    method : str, default "hdrf"
        A name from :func:`available_methods`.
    num_parts : int, default 8
        Number of parts ``P`` (1 <= P <= edges for vertex-cuts, <= vertices for edge-cuts).
    seed : int, default 0
        Seed of every random choice (stream order, hashes, tie-breaks): equal seeds give equal
        results.
    num_vertices : int, optional
        For array input: ``n`` (default: largest id + 1).
    **options
        Method options (e.g. ``lam`` for ``hdrf``, ``threshold`` for ``hybrid``).

    Returns
    -------
    VertexCut or EdgeCut

    Raises
    ------
    gas.InputError
        Unknown method (the message lists the known ones), bad options, or a part count that
        cannot work; raised before any partitioning work.

    Examples
    --------
    >>> a = partition(([0, 1, 2, 3], [1, 2, 3, 0]), "random", 2, seed=5)
    >>> sorted(set(a.edge_part.tolist())) <= [0, 1]
    True
    """
    return get_partitioner(method, **options).partition(graph, num_parts, seed, num_vertices=num_vertices)
