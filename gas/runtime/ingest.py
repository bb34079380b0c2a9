"""Scaled-out loading: every rank reads its share of the edge list and edges are routed to their parts.

No rank reads or holds the whole edge list (:mod:`gas.io.ranges` gives each rank a byte range
of a file, its blocks of a compressed file, or its files of a folder). Steps, all collective:

1. **Ids.** Each rank sorts the distinct original ids of its share; the sets are all-gathered and
   merged, so every rank holds the same sorted table ``ids`` (vertex-sized, like the vertex
   arrays every worker already keeps). Internal id = position in the table, exactly what
   :meth:`gas.Graph.from_edges` gives on one process.
2. **Owner shuffle.** Each edge goes to the rank owning its source (a hash of the source id), so
   all out-edges of a vertex meet: duplicates are collapsed there (the last line in input order
   wins, as on one process) and each edge gets its global edge id, its position in the (src,
   dst)-sorted CSR order of the single-process graph (out-degrees are all-reduced for the
   offsets). ``--undirected`` adds the reverse copies before this step (an original line wins
   over an added copy, as :meth:`gas.Graph.symmetrized` does).
3. **Placement and part shuffle.** Each edge is placed and sent to its part:

   * ``random``: the hash of the unordered endpoint pair, as the method itself does: the same
     part for every edge as a single-process ``partition(g, "random")``;
   * ``hash`` (edge-cut): the part owning the target, ``hash(target)``; masters are the owners;
   * every other method (``grid``, ``hdrf``, ``oblivious``, ``dbh``, ``hybrid``, ``ne``,
     ``range``, ``ldg``, ``fennel``) is a streaming or whole-graph method: each rank runs it on
     the edges it holds after step 2 (global vertex count, the rank's own load and replica
     state only, as PowerGraph's distributed greedy ingress does), and an edge-cut's vertex
     placement is used to place edges by target. The result is a valid vertex-cut of the same
     graph; its replication factor is higher than the single-loader run's. ``grid`` keeps its
     ``rows + cols - 1`` replica bound (every candidate cell comes from the hashes).

4. **Masters.** Every rank ORs its replica bits into a global table (an all-reduce of distinct
   powers of two) and runs the partitioner's deterministic master choice on it
   (:func:`gas.partition.derive.choose_masters`), so all ranks agree; for ``random`` this is
   the single-process master array exactly.

Collectives go through :class:`~gas.runtime.comm.Comm` (all-gather, all-reduce, and
:meth:`~gas.runtime.comm.Comm.alltoall` for the shuffles). A command run on such a load (the
CLI's ``--procs`` on a text file) is :mod:`gas.runtime.file_job`.

Examples
--------
>>> import os, tempfile, threading
>>> from gas.runtime.transport import InProcHub
>>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
>>> _ = open(p, "w").write("10 20\\n20 30\\n30 10\\n10 20\\n")
>>> hub = InProcHub(2)
>>> out = [None, None]
>>> def work(r):
...     out[r] = load_part(p, Comm(hub.transport(r)), method="random")
>>> ts = [threading.Thread(target=work, args=(r,)) for r in range(2)]
>>> for t in ts: t.start()
>>> for t in ts: t.join()
>>> out[0].ids.tolist(), out[0].part.num_edges, sum(o.part.src.size for o in out)
([10, 20, 30], 3, 3)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gas.errors import GasError, InputError
from gas.io.ranges import read_share
from gas.runtime.comm import Comm
from gas.runtime.worker_graph import WorkerPart

__all__ = ["LoadedPart", "load_part"]

_INT64_MAX = np.uint64(2**63 - 1)
_ORIGINAL = np.int64(1) << np.int64(62)


@dataclass
class LoadedPart:
    """What :func:`load_part` returns on every rank.

    Attributes
    ----------
    part : WorkerPart
        This rank's edges (internal ids, global edge ids) and every vertex's master.
    ids : ndarray
        Original id of every internal vertex id (int64, or uint64 past ``2**63 - 1``).
    weighted : bool
    min_weight : float
        Smallest weight over all ranks (``inf`` when unweighted or empty).
    seconds : dict of str to float
        Time of each step on this rank.
    """

    part: WorkerPart
    ids: np.ndarray
    weighted: bool
    min_weight: float
    seconds: dict[str, float]

    @property
    def num_vertices(self) -> int:
        return int(self.ids.shape[0])


def _route(comm: Comm, dest: np.ndarray, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Send row ``i`` of every array to rank ``dest[i]``; the rows received here, in rank order."""
    P = comm.size
    order = np.argsort(dest, kind="stable")
    bounds = np.searchsorted(dest[order], np.arange(P + 1))
    out = [[a[order[bounds[q] : bounds[q + 1]]] for a in arrays] for q in range(P)]
    got = comm.alltoall(out)
    return [np.concatenate([got[r][j] for r in range(P)]) for j in range(len(arrays))]


def _owner(v: np.ndarray, P: int) -> np.ndarray:
    """A hashed owner rank of each internal vertex id (Fibonacci hashing)."""
    h = (v.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
    return ((h * np.uint64(P)) >> np.uint64(32)).astype(np.int64)


def _id_table(comm: Comm, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The sorted distinct original ids over all ranks, as uint64 (order of non-negative ids kept)."""
    mine = np.unique(np.concatenate([src.view(np.uint64), dst.view(np.uint64)]))
    parts = comm.allgather([mine])
    return np.unique(np.concatenate([p[0].view(np.uint64) for p in parts]))


def _dedupe_and_number(
    comm: Comm,
    s: np.ndarray,
    d: np.ndarray,
    key: np.ndarray,
    cols: dict[str, np.ndarray],
    n: int,
    dedupe: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Sort the edges held here (all out-edges of their sources), collapse duplicates, number them."""
    order = np.lexsort((key, d, s))
    s, d = s[order], d[order]
    cols = {k: v[order] for k, v in cols.items()}
    if dedupe and s.size > 1:
        keep = np.ones(s.size, bool)
        keep[:-1] = (s[:-1] != s[1:]) | (d[:-1] != d[1:])  # the last of each run wins
        s, d = s[keep], d[keep]
        cols = {k: v[keep] for k, v in cols.items()}
    outdeg = np.bincount(s, minlength=n).astype(np.int64)
    outdeg = comm.allreduce(outdeg)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(outdeg, out=indptr[1:])
    first = np.ones(s.size, bool)
    first[1:] = s[1:] != s[:-1]
    run_start = np.maximum.accumulate(np.where(first, np.arange(s.size), 0)) if s.size else s
    eid = indptr[s] + (np.arange(s.size) - run_start)
    return s, d, eid.astype(np.int64), cols


def _place(
    comm: Comm, s: np.ndarray, d: np.ndarray, n: int, method: str, seed: int, options: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray | None]:
    """Part of each edge held here; and the masters when the method fixes them (``hash``)."""
    from gas.partition import get_partitioner, partition
    from gas.partition.hashing import seed_to_uint

    P = comm.size
    get_partitioner(method, **options)  # unknown method or option: a clear error on every rank
    if method == "random" and not options:
        from gas.partition.vc_random import random_parts

        return random_parts(s, d, P, seed_to_uint(seed)).astype(np.int64), None
    if method == "hash" and not options:
        from gas.partition.ec_hash import hash_vertices

        owner = hash_vertices(n, P, seed_to_uint(seed)).astype(np.int32)
        return owner[d].astype(np.int64), owner
    if s.size == 0:
        return np.zeros(0, np.int64), None
    a = partition((s, d), method, num_parts=P, seed=seed, num_vertices=n, **options)
    if a.kind == "edge-cut":
        return a.vertex_part[d].astype(np.int64), None
    return a.edge_part.astype(np.int64), None


def _masters(comm: Comm, s: np.ndarray, d: np.ndarray, n: int, seed: int) -> np.ndarray:
    """One master per vertex, the same on every rank, from the global replica sets."""
    from gas.partition import derive
    from gas.partition.hashing import seed_to_uint

    P, me = comm.size, comm.rank
    words = (P + 63) // 64
    bits = np.zeros((n, words), np.uint64)
    local = np.unique(np.concatenate([s, d]))
    bits[local, me >> 6] = np.uint64(1) << np.uint64(me & 63)
    # distinct powers of two: their sum is their OR
    bits = comm.allreduce(bits.reshape(-1)).reshape(n, words)
    return derive.choose_masters(np.ascontiguousarray(bits), P, seed_to_uint(seed))


def load_part(
    path: str | os.PathLike,
    comm: Comm,
    *,
    method: str = "hdrf",
    seed: int = 0,
    weights: bool | None = None,
    skip_rows: int = 0,
    dedupe: bool = True,
    undirected: bool = False,
    options: dict[str, Any] | None = None,
    check_weights: str | None = None,
) -> LoadedPart:
    """Collective: this rank's part of the graph in ``path``, loaded without any rank reading it all.

    Parameters
    ----------
    path : str or os.PathLike
        A text edge list (plain, gz, bz2, zip) or a folder of part files (see :mod:`gas.io.ranges`).
    comm : Comm
        The job's communicator (every rank calls this with the same arguments).
    method, seed, options
        Partitioner (see the module docstring for what each kind of method does here).
    weights, skip_rows, dedupe
        As in :func:`gas.load`.
    undirected : bool, default False
        Add the reverse of every edge, as ``gas.load(...).symmetrized()``.
    check_weights : {None, "nonnegative", "finite-nonnegative"}
        As in :func:`gas.load`: refuse negative (or infinite) weights, naming the file and line.

    Returns
    -------
    LoadedPart

    Raises
    ------
    InputError
        On a malformed input (file and line named) or an input without edges.
    """
    P = comm.size
    options = dict(options or {})
    secs: dict[str, float] = {}
    t0 = time.perf_counter()
    share = read_share(path, comm.rank, P, weights=weights, skip_rows=skip_rows, check_weights=check_weights)
    secs["read"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    table = _id_table(comm, share.src, share.dst)
    n = int(table.shape[0])
    if n == 0:
        exc = InputError(
            f"no edges found in {os.fspath(path)}",
            hint="the input is empty or holds only blank, comment ('#', '%') or skipped lines",
        )
        exc.path = os.fspath(path)
        raise exc
    s = np.searchsorted(table, share.src.view(np.uint64)).astype(np.int64)
    d = np.searchsorted(table, share.dst.view(np.uint64)).astype(np.int64)
    key = share.seq | _ORIGINAL
    cols = {} if share.weights is None else {"weight": share.weights}
    del share
    if undirected:
        s, d, key, cols = _add_reverse(s, d, key, cols)
    secs["ids"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    s, d, key, cols = _route_edges(comm, _owner(s, P), s, d, key, cols)
    s, d, eid, cols = _dedupe_and_number(comm, s, d, key, cols, n, dedupe or undirected)
    secs["dedupe"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    dest, fixed = _place(comm, s, d, n, method, seed, options)
    s, d, eid, cols = _route_edges(comm, dest, s, d, eid, cols)
    m = int(comm.allreduce(np.array([s.shape[0]], np.int64))[0])
    secs["place"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    master = fixed if fixed is not None else _masters(comm, s, d, n, seed)
    secs["masters"] = time.perf_counter() - t0
    part = _worker_part(comm, n, m, s, d, eid, master, cols)
    return LoadedPart(part, _original_ids(table), "weight" in cols, _min_weight(comm, cols), secs)


def _add_reverse(
    s: np.ndarray, d: np.ndarray, key: np.ndarray, cols: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """The edges plus the reverse of every non-loop one, placed first (an original line wins)."""
    back = s != d
    s, d = np.concatenate([d[back], s]), np.concatenate([s[back], d])
    key = np.concatenate([key[back] & ~_ORIGINAL, key])
    cols = {k: np.concatenate([v[back], v]) for k, v in cols.items()}
    return s, d, key, cols


def _route_edges(
    comm: Comm, dest: np.ndarray, s: np.ndarray, d: np.ndarray, third: np.ndarray, cols: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Send edge ``i`` (endpoints, a key or edge id, and its columns) to rank ``dest[i]``."""
    names = sorted(cols)
    got = _route(comm, dest, [s, d, third, *[cols[k] for k in names]])
    return got[0], got[1], got[2], dict(zip(names, got[3:]))


def _min_weight(comm: Comm, cols: dict[str, np.ndarray]) -> float:
    """Smallest weight over all ranks (``inf`` when unweighted or empty)."""
    wmin = float(cols["weight"].min()) if "weight" in cols and cols["weight"].size else np.inf
    if "weight" in cols:
        wmin = float(comm.allreduce(np.array([wmin]), 2)[0])
    return wmin


def _original_ids(table: np.ndarray) -> np.ndarray:
    """The id table as int64 when every id fits, else as uint64."""
    if table.size and table[-1] <= _INT64_MAX:
        return table.view(np.int64)
    return table


def _worker_part(
    comm: Comm,
    n: int,
    m: int,
    s: np.ndarray,
    d: np.ndarray,
    eid: np.ndarray,
    master: np.ndarray,
    cols: dict[str, np.ndarray],
) -> WorkerPart:
    """This rank's edges of the ``n``-vertex, ``m``-edge graph, and every vertex's master."""
    if m == 0:  # pragma: no cover - n > 0 implies an edge
        raise GasError("no edges after loading")
    return WorkerPart(
        rank=comm.rank,
        num_parts=comm.size,
        num_vertices=n,
        num_edges=m,
        src=s,
        dst=d,
        eid=eid,
        master=np.ascontiguousarray(master, dtype=np.int32),
        edata=cols,
    )
