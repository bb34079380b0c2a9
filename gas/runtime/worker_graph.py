"""The local graph one worker rank holds: its part of the edges, renumbered.

:class:`WorkerPart` is what a rank is given (its edges by global vertex id and every vertex's
master), :func:`part_of_graph` cuts one out of a whole graph, and :func:`build_partition` turns
it into the rank's local :class:`~gas.local_part.Partition` in one of the vertex numberings
(``sorted``, ``masters_first``, ``global``) described in :mod:`gas.runtime.bsp`, with the
global degrees of its vertices and the global id of each local edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gas.errors import GasError
from gas.graph import Graph
from gas.local_part import Partition
from gas.program import EdgeDir
from gas.runtime.comm import Comm

__all__ = ["WorkerPart", "part_of_graph", "build_partition"]


@dataclass
class WorkerPart:
    """What one rank holds: its edges (global vertex ids) and every vertex's master.

    Attributes
    ----------
    rank, num_parts, num_vertices, num_edges : int
        This part, the number of parts, and the GLOBAL vertex and edge counts.
    src, dst : ndarray of int64
        This part's edges, global vertex ids.
    eid : ndarray of int64
        Global edge id of each (for edge data in checkpoints).
    master : ndarray of int32
        Master part of every global vertex.
    edata : dict of str to ndarray
        Edge columns of this part's edges (e.g. ``"weight"``).
    """

    rank: int
    num_parts: int
    num_vertices: int
    num_edges: int
    src: np.ndarray
    dst: np.ndarray
    eid: np.ndarray
    master: np.ndarray
    edata: dict[str, np.ndarray] = field(default_factory=dict)


def part_of_graph(g: Graph, master: np.ndarray, edge_part: np.ndarray, rank: int) -> WorkerPart:
    """Cut part ``rank`` out of a whole graph, given the vertex masters and edge parts."""
    sel = np.flatnonzero(np.asarray(edge_part) == rank)
    return WorkerPart(
        rank=rank,
        num_parts=int(max(int(np.max(master)) if master.size else 0, int(np.max(edge_part, initial=0))) + 1),
        num_vertices=g.num_vertices,
        num_edges=g.num_edges,
        src=g.src[sel],
        dst=g.dst[sel],
        eid=sel.astype(np.int64),
        master=np.ascontiguousarray(master, dtype=np.int32),
        edata={k: v[sel] for k, v in g.edata.items()},
    )


def build_partition(
    part: WorkerPart,
    comm: Comm,
    *,
    layout: str = "sorted",
    gather_edges: int = EdgeDir.NONE,
) -> tuple[Partition, np.ndarray, np.ndarray, np.ndarray]:
    """The local graph of this part and the global degrees of its vertices.

    ``layout``: ``"sorted"`` numbers the local vertices in global id order (the default: the
    kernels visit vertices in the order one process would), ``"masters_first"`` puts this
    part's masters first, then its mirrors grouped by master rank, ``"global"`` keeps every
    global vertex (local id = global id; for programs that read ``vid``); :func:`layout_for`
    picks one for a program.

    With ``"masters_first"`` on up to 31 ranks, the ranks also share which ranks hold each
    vertex and gather over it there (``gather_edges``, the program's direction): masters are
    ordered by that key, then global id, and each group of mirrors by the same key, so on two
    ranks every list a superstep sends or receives is one contiguous slice.

    Returns the :class:`Partition`, global out- and in-degrees by local id, and the global edge
    id of each local edge in the local graph's (CSR) order.
    """
    n = part.num_vertices
    src = np.asarray(part.src, np.int64)
    dst = np.asarray(part.dst, np.int64)
    # every edge lives on exactly one part: global degrees are sums of the local ones
    ldeg = np.concatenate([np.bincount(src, minlength=n), np.bincount(dst, minlength=n)]).astype(np.int64)
    deg = comm.allreduce(ldeg)
    owner = part.master
    if layout == "global":
        gids = np.arange(n, dtype=np.int64)
    elif layout in ("sorted", "masters_first"):
        local = (ldeg[:n] + ldeg[n:]) > 0
        mine = owner == part.rank
        local |= mine
        if layout == "sorted":
            gids = np.flatnonzero(local).astype(np.int64)
        else:
            masters = np.flatnonzero(mine)
            mirrors = np.flatnonzero(local & ~mine)
            if comm.size <= 31:
                gdir = EdgeDir(gather_edges)
                gathers = np.zeros(n, np.bool_)
                if gdir & EdgeDir.OUT:
                    gathers |= ldeg[:n] > 0
                if gdir & EdgeDir.IN:
                    gathers |= ldeg[n:] > 0
                r = np.int64(part.rank)
                bits = (local.astype(np.int64) << r) | (gathers.astype(np.int64) << (r + 31))
                held = comm.allreduce(bits)  # distinct bits per rank: the sum is the OR
                own = owner.astype(np.int64)
                key = held & ~((np.int64(1) << own) | (np.int64(1) << (own + 31)))  # the others' bits
                masters = masters[np.lexsort((masters, key[masters]))]
                mirrors = mirrors[np.lexsort((mirrors, key[mirrors], owner[mirrors]))]
                del held, key, own, bits, gathers
            else:
                mirrors = mirrors[np.argsort(owner[mirrors], kind="stable")]
            gids = np.concatenate([masters, mirrors]).astype(np.int64)
        g2l = np.empty(n, np.int64)
        g2l[gids] = np.arange(gids.shape[0], dtype=np.int64)
        src, dst = g2l[src], g2l[dst]
        del g2l, local
    else:
        raise GasError(f"Unknown layout {layout!r}; known: sorted, masters_first, global")
    cols = dict(part.edata)
    cols["_gas_eid"] = part.eid
    lg = Graph.from_edges(src, dst, num_vertices=gids.shape[0], dedupe=False, edge_data=cols)
    eid = lg.edata.pop("_gas_eid")
    p = Partition(
        graph=lg,
        global_ids=gids,
        is_master=owner[gids] == part.rank,
        part_id=part.rank,
        num_parts=part.num_parts,
        num_global_vertices=n,
        num_global_edges=part.num_edges,
    )
    return p, deg[:n][gids], deg[n:][gids], eid
