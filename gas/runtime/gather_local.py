"""What a part needs for programs that read whole neighbour lists or keep their gather in slots.

A part of a vertex cut holds only some of a vertex's edges, which is enough for a gather that
sums: the mirrors' partial totals travel to the master. Two kinds of program need more:

- a program reading ``v.nbrs`` (the sorted ids of all of ``v``'s out-neighbours, e.g. the
  triangle count's ``count_common(v.nbrs, nbr.nbrs)``) needs, for every vertex the part holds,
  its whole out-neighbour list: :func:`replicate_adjacency` sends each edge to every rank
  holding its source (as PowerGraph's triangle count keeps neighbour sets as vertex data on
  every replica). The lists hold GLOBAL vertex ids, sorted, as one process's do.
- a program keeping its gather values in slots (:class:`gas.Slots`: ``apply`` reads every
  gather value of its vertex, not a sum) cannot combine partial gathers, so its master must
  hold all of its vertex's gather edges: :func:`route_gather_edges` moves each edge to the
  master of its gather endpoint (an edge cut along the gather direction) before the local
  graph is built. The masters stay the partitioner's.

Examples
--------
>>> import numpy as np, gas
>>> from gas.runtime.comm import Comm
>>> from gas.runtime.worker_graph import build_partition, part_of_graph
>>> g = gas.Graph.from_edges([0, 0, 1], [1, 2, 2])
>>> part = part_of_graph(g, np.zeros(3, np.int32), np.zeros(3, np.int32), 0)
>>> p, *_ = build_partition(part, Comm(None))
>>> start, nbr = replicate_adjacency(part, p, Comm(None))
>>> start.tolist(), nbr.tolist()
([0, 2, 3], [1, 2, 2])
"""

from __future__ import annotations

import numpy as np

from gas.errors import GasError
from gas.local_part import Partition
from gas.program import EdgeDir
from gas.runtime.comm import Comm
from gas.runtime.worker_graph import WorkerPart

__all__ = ["replicate_adjacency", "route_gather_edges"]


def replicate_adjacency(part: WorkerPart, partition: Partition, comm: Comm) -> tuple[np.ndarray, np.ndarray]:
    """Every local vertex's whole out-neighbour list: ``(start, nbr)``, local vertex ``v``'s
    list being ``nbr[start[v] : start[v] + out_degree[v]]`` (global ids, sorted; repeated edges
    repeat, as on one process), gathered from the ranks holding its out-edges."""
    n = part.num_vertices
    gids = np.asarray(partition.global_ids, np.int64)
    src = np.asarray(part.src, np.int64)
    dst = np.asarray(part.dst, np.int64)
    outgoing: list[list[np.ndarray]] = []
    for held_ids in (a[0] for a in comm.allgather([gids])):
        held = np.zeros(n, np.bool_)
        held[np.asarray(held_ids, np.int64)] = True
        sel = held[src]
        outgoing.append([src[sel], dst[sel]])
    got = comm.alltoall(outgoing)
    s = np.concatenate([np.asarray(a[0], np.int64) for a in got])
    d = np.concatenate([np.asarray(a[1], np.int64) for a in got])
    if s.size and (s.min() < 0 or s.max() >= n or d.min() < 0 or d.max() >= n):
        raise GasError(f"neighbour lists from a peer name vertices outside 0..{n - 1}")
    g2l = np.full(n, -1, np.int64)
    g2l[gids] = np.arange(gids.shape[0], dtype=np.int64)
    ls = g2l[s]
    if (ls < 0).any():
        raise GasError("a peer sent the neighbour list of a vertex this part does not hold")
    order = np.lexsort((d, ls))
    counts = np.bincount(ls, minlength=gids.shape[0])
    start = np.zeros(gids.shape[0], np.int64)
    np.cumsum(counts[:-1], out=start[1:])
    return start, np.ascontiguousarray(d[order])


def route_gather_edges(part: WorkerPart, comm: Comm, gather_edges: int) -> WorkerPart:
    """``part`` with its edges moved to the master of their gather endpoint (source for an
    ``OUT`` gather, target for ``IN``), so that each master holds all its gather edges; the
    edges a rank receives keep their global order (sorted by edge id)."""
    gdir = EdgeDir(gather_edges)
    if gdir == EdgeDir.NONE:
        return part
    if gdir == EdgeDir.ALL:
        raise GasError(
            "A program keeping its gather values in slots (gas.Slots) gathers over ALL edges, which "
            "several processes cannot give one master whole: gather over OUT edges of the "
            "symmetric graph (Graph.symmetrized()), or run on one process (procs=1)"
        )
    key = part.src if gdir == EdgeDir.OUT else part.dst
    dest = np.asarray(part.master, np.int64)[np.asarray(key, np.int64)]
    names = sorted(part.edata)
    cols = [part.src, part.dst, part.eid, *[part.edata[k] for k in names]]
    outgoing = [[np.ascontiguousarray(c[dest == q]) for c in cols] for q in range(comm.size)]
    got = comm.alltoall(outgoing)
    merged = [np.concatenate([a[j] for a in got]) for j in range(len(cols))]
    order = np.argsort(merged[2], kind="stable")
    merged = [np.ascontiguousarray(c[order]) for c in merged]
    return WorkerPart(
        rank=part.rank,
        num_parts=part.num_parts,
        num_vertices=part.num_vertices,
        num_edges=part.num_edges,
        src=merged[0].astype(np.int64, copy=False),
        dst=merged[1].astype(np.int64, copy=False),
        eid=merged[2].astype(np.int64, copy=False),
        master=part.master,
        edata=dict(zip(names, merged[3:])),
    )
