"""The unit the engine runs on: a local graph plus its master/mirror tables.

On one process there is a single partition holding the whole graph, every vertex a master and
no mirrors. The process runtime builds one :class:`Partition` per worker from a
``gas.partition`` assignment; the engine code is the same, only the :class:`~gas.exchange.Exchange`
differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gas.graph import Graph

__all__ = ["Partition"]


@dataclass
class Partition:
    """A local graph and the tables that tie it to the global graph.

    Attributes
    ----------
    graph : Graph
        Local vertices ``0..n_local-1`` and the edges this partition owns.
    global_ids : ndarray of int64
        Global internal id of each local vertex.
    is_master : ndarray of bool
        True where this partition holds the master copy (it applies; mirrors only gather/scatter).
    part_id, num_parts : int
    num_global_vertices, num_global_edges : int
    """

    graph: Graph
    global_ids: np.ndarray
    is_master: np.ndarray
    part_id: int = 0
    num_parts: int = 1
    num_global_vertices: int = 0
    num_global_edges: int = 0

    @classmethod
    def whole(cls, graph: Graph) -> Partition:
        """The single partition of a one-process run: all vertices masters, no mirrors."""
        n = graph.num_vertices
        return cls(
            graph=graph,
            global_ids=np.arange(n, dtype=np.int64),
            is_master=np.ones(n, dtype=np.bool_),
            num_global_vertices=n,
            num_global_edges=graph.num_edges,
        )
