"""The unit the engine runs on: a local graph plus its master/mirror tables.

On one process there is a single partition holding the whole graph, every vertex a master and
no mirrors. The process runtime builds one :class:`Partition` per worker from a
``gas.partition`` assignment; the engine code is the same, only the :class:`~gas.exchange_protocol.Exchange`
differs.

A worker's partition holds only the vertices it needs (those with an edge there, and its
masters), renumbered ``0..n_local-1``; :attr:`Partition.global_ids` maps them back and
:meth:`Partition.local_ids` the other way.

Examples
--------
>>> import numpy as np, gas
>>> g = gas.Graph.from_edges([0], [1])
>>> p = Partition(g, global_ids=np.array([7, 3]), is_master=np.array([True, False]))
>>> p.local_ids(np.array([3, 7])).tolist()
[1, 0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gas.errors import GasError
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
    adjacency : (ndarray, ndarray) or None
        Whole out-neighbour lists of the local vertices for ``v.nbrs`` (``start`` by local id and
        the global neighbour ids; :func:`gas.runtime.gather_local.replicate_adjacency`), when a
        part holds only some of their edges; None: the local graph's own lists.
    """

    graph: Graph
    global_ids: np.ndarray
    is_master: np.ndarray
    part_id: int = 0
    num_parts: int = 1
    num_global_vertices: int = 0
    num_global_edges: int = 0
    adjacency: tuple[np.ndarray, np.ndarray] | None = None

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

    def local_ids(self, ids: np.ndarray) -> np.ndarray:
        """Local ids of the global vertex ids ``ids`` (each must be held by this partition)."""
        ids = np.asarray(ids, dtype=np.int64)
        gids = self.global_ids
        n = gids.shape[0]
        if ids.size == 0:
            return ids.copy()
        if n == 0 or ids.min() < 0:
            raise GasError(f"partition {self.part_id} does not hold vertex {int(ids.min())}")
        order = self.__dict__.get("_gas_order")
        if order is None:
            order = np.argsort(gids, kind="stable")
            self.__dict__["_gas_order"] = order
        out = order[np.minimum(np.searchsorted(gids, ids, sorter=order), n - 1)]
        bad = gids[out] != ids
        if bad.any():
            raise GasError(f"partition {self.part_id} does not hold vertex {int(ids[bad][0])}")
        return out
