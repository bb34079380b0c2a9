"""The network exchange of a synchronous superstep: what one rank sends its peers.

Layout of a worker (rank ``p``): only the edges of part ``p`` are stored, and only the vertices
they need. A vertex is *local* if it has an edge here or is mastered here; a local vertex
mastered elsewhere is a *mirror* (with an edge-cut assignment these are the ghosts). Local
vertices are renumbered ``0..n_local-1`` (:func:`build_partition`); :attr:`Partition.global_ids`
maps them back. Degrees and ``ctx`` are the whole graph's. Three numberings:

* ``masters_first``: masters, then the mirrors grouped by master rank (each group in global id
  order, so the rows a peer syncs are one slice, received in place). Used when the order of
  visits cannot matter (:func:`order_free`, e.g. PageRank).
* ``sorted``: global id order, so a worker visits its vertices in the order one process would
  (programs that write neighbours from gather, like SGD, rely on it).
* ``global``: every global vertex, local id = global id, for programs that read ``v.vid`` (the
  local index in the kernels).

Apply and the aggregates run on masters only, so mirrors receive from their masters only the
fields that ``gather``, ``sum`` and ``scatter`` read (:func:`mirror_fields`); a mirror's other
fields are never read.

Setup (once): every rank sends each master rank the sorted global ids of its mirrors of that
rank's vertices, flagging those with local gather edges. Both sides then hold the same ordered
lists, so supersteps send values only, never ids. Every list is filtered by the active set,
which is identical on all replicas (signals are reduced), so both sides agree on the subset.

One superstep, in the order :meth:`gas.engine.SyncEngine.superstep` calls the
:class:`gas.exchange_protocol.Exchange`:

1. ``reduce_gather``: mirrors with local gather edges send their partial totals to the master,
   which folds them in with the program's ``sum`` (:meth:`gas.engine_base.Engine.combine`), peers in rank
   order (deterministic).
2. apply runs on masters.
3. ``sync_vertices``: masters send the new data of their *active* vertices (the only ones apply
   changed) to their mirrors, the fields mirrors read only.
4. ``reduce_signals``: mirrors send their signal bits to the master, which ORs them and sends
   the result back, so every replica has the same next active set.
5. ``allreduce``: aggregates summed / maxed / minned over masters, in rank order.

The engine that runs one rank's part over this exchange is
:class:`gas.runtime.dist_engine.DistEngine`; the drivers are in :mod:`gas.runtime.bsp`,
:mod:`gas.runtime.ssp` and :mod:`gas.runtime.async_dist`.

Examples
--------
>>> import numpy as np, gas
>>> from gas.runtime.worker_graph import part_of_graph
>>> from gas.runtime.dist_engine import part_engine
>>> g = gas.Graph.from_edges([0, 1], [1, 0])
>>> from gas.algorithms.pagerank import PageRankProgram
>>> eng, _ = part_engine(part_of_graph(g, np.zeros(2, np.int32), np.zeros(2, np.int32), 0),
...                      PageRankProgram(), Comm(None))
>>> ex = eng.exchange
>>> ex.master_gids.tolist(), ex.meter()
([0, 1], {'exchange_seconds': 0.0, 'bytes_sent': 0})
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from gas.errors import GasError
from gas.local_part import Partition
from gas.runtime.comm import Comm
from gas.runtime.protocol import DATA

if TYPE_CHECKING:
    from gas.engine_base import Engine

__all__ = ["NetworkExchange"]


def _as_slice(ids: np.ndarray) -> slice | None:
    """``ids`` as a slice if they are consecutive increasing integers, else None."""
    if ids.size == 0:
        return slice(0, 0)
    lo = int(ids[0])
    if int(ids[-1]) - lo + 1 != ids.size or (ids.size > 1 and not bool(np.all(np.diff(ids) == 1))):
        return None
    return slice(lo, lo + ids.size)


class NetworkExchange:
    """The :class:`gas.exchange_protocol.Exchange` of one rank over a :class:`Comm` (module docstring).

    Attributes
    ----------
    bytes_sent : int
        Payload bytes this rank sent in supersteps (setup excluded).
    seconds : float
        Time spent inside exchange steps (waiting included).
    """

    def __init__(
        self,
        comm: Comm,
        partition: Partition,
        owner: np.ndarray,
        gathers: np.ndarray,
        sync_names: list[str],
    ) -> None:
        self.comm = comm
        self.owner = owner
        self.t = comm.t
        self.rank = comm.rank
        self.engine: Engine | None = None
        self.sync_names = sync_names
        self.bytes_sent = 0
        self.seconds = 0.0
        self._metered = (0.0, 0)  # seconds and bytes at the last meter()
        self.step = 0
        self.pending_active: np.ndarray | None = None
        self.partition = partition
        g = partition.graph
        master = partition.is_master
        self.is_master = master
        self.master_ids = np.flatnonzero(master)
        self.master_gids = partition.global_ids[self.master_ids]
        # runs of consecutive masters: chunk boundaries for aggregates over masters only
        m8 = np.concatenate([[0], master.view(np.uint8), [0]]).astype(np.int8)
        d = np.diff(m8)
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        self.master_runs = np.stack([starts, ends], 1).reshape(-1).astype(np.int64)
        local = (g.out_degree + g.in_degree) > 0
        self._setup(local, gathers)

    def _setup(self, local: np.ndarray, gathers: np.ndarray) -> None:
        P, me = self.comm.size, self.rank
        gids = self.partition.global_ids
        mirrors = np.flatnonzero(local & ~self.is_master)
        mowner = self.owner[gids[mirrors]]
        # mirror_lists[q]: my mirrors mastered by q, in local order (the order of q's layout
        # when compacted, see build_partition); mirror_gather[q]: those with local gather edges
        self.mirror_lists: dict[int, np.ndarray] = {}
        self.mirror_gather: dict[int, np.ndarray] = {}
        for q in range(P):
            if q != me:
                ids = mirrors[mowner == q]
                self.mirror_lists[q] = ids
                self.mirror_gather[q] = ids[gathers[ids]]
        tag = self.comm.next_tag()
        if self.t is not None:
            for q in self.comm.peers():
                self.t.send(q, DATA, tag, [gids[self.mirror_lists[q]], gids[self.mirror_gather[q]]])
        # master_lists[p]: my masters mirrored on p, in p's order; master_gather[p]: those p gathers
        self.master_lists: dict[int, np.ndarray] = {}
        self.master_gather: dict[int, np.ndarray] = {}
        if self.t is not None:
            owner = self.owner
            for p in self.comm.peers():
                a, b = self.t.recv(p, DATA, tag).arrays
                for ids in (a, b):
                    if ids.size and (
                        ids.min() < 0 or ids.max() >= owner.shape[0] or np.any(owner[ids] != me)
                    ):
                        raise GasError(f"rank {p} claims mirrors of vertices that rank {me} does not master")
                self.master_lists[p] = self.partition.local_ids(a)
                self.master_gather[p] = self.partition.local_ids(b)
        # the same lists as slices where they are runs of consecutive local ids (None otherwise):
        # those rows are copied or received in one piece
        self.slices = {
            name: {r: _as_slice(ids) for r, ids in lists.items()}
            for name, lists in (
                ("mirror_lists", self.mirror_lists),
                ("mirror_gather", self.mirror_gather),
                ("master_lists", self.master_lists),
            )
        }

    def meter(self) -> dict[str, float | int]:
        """``exchange_seconds`` and ``bytes_sent`` since the previous call (or since setup):
        a superstep's (or round's) exchange statistics."""
        s0, b0 = self._metered
        self._metered = (self.seconds, self.bytes_sent)
        return {"exchange_seconds": self.seconds - s0, "bytes_sent": self.bytes_sent - b0}

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _active(ids: np.ndarray, active: np.ndarray, everyone: bool) -> np.ndarray:
        return ids if everyone else ids[active[ids] != 0]

    def _take(
        self, col: np.ndarray, name: str, r: int, ids: np.ndarray, active: np.ndarray, everyone: bool
    ) -> np.ndarray:
        """A fresh copy of ``col``'s rows of list ``name`` for rank ``r`` (active ones only)."""
        sl = self.slices[name][r] if everyone else None
        return col[sl].copy() if sl is not None else col[self._active(ids, active, everyone)]

    def _send(self, dst: int, arrays: list[np.ndarray]) -> None:
        assert self.t is not None
        self.bytes_sent += self.t.send(dst, DATA, self.step, arrays)

    # ------------------------------------------------------------------ Exchange protocol
    def reduce_gather(self, acc: np.ndarray, active: np.ndarray, combine_op: int) -> None:
        if self.t is None:
            return
        t0 = time.perf_counter()
        self.step += 1
        everyone = bool(active.all())
        for q, ids in self.mirror_gather.items():
            if ids.size:
                self._send(q, [self._take(acc, "mirror_gather", q, ids, active, everyone)])
        assert self.engine is not None
        for p, ids in self.master_gather.items():
            if ids.size:
                rows = self._active(ids, active, everyone)
                incoming = self.t.recv(p, DATA, self.step).arrays[0]
                if rows.size:
                    self.engine.combine(rows, incoming)
        self.seconds += time.perf_counter() - t0

    def sync_vertices(self, vdata: Any, active: np.ndarray) -> None:
        if self.t is None:
            return
        t0 = time.perf_counter()
        self.step += 1
        assert self.engine is not None
        if not self.sync_names:  # mirrors read no vertex field (both sides know it)
            return
        cols = [self.engine.columns[k] for k in self.sync_names]
        everyone = bool(active.all())
        for p, ids in self.master_lists.items():
            if ids.size:
                self._send(p, [self._take(c, "master_lists", p, ids, active, everyone) for c in cols])
        for q, ids in self.mirror_lists.items():
            if ids.size:
                sl = self.slices["mirror_lists"][q]
                if everyone and sl is not None:  # straight into the mirrors' rows
                    self.t.recv(q, DATA, self.step, into=[c[sl] for c in cols])
                    continue
                rows = self._active(ids, active, everyone)
                got = self.t.recv(q, DATA, self.step).arrays
                for c, vals in zip(cols, got):
                    c[rows] = vals
        self.seconds += time.perf_counter() - t0

    def reduce_signals(self, signal: np.ndarray, prio: np.ndarray | None = None) -> None:
        """OR every replica's signals at the master and send the result back to the mirrors;
        with ``prio``, the signals' priorities travel along and the master keeps the largest."""
        if self.t is not None:
            t0 = time.perf_counter()
            self.step += 1
            for q, ids in self.mirror_lists.items():
                if ids.size:
                    self._send(q, [signal[ids]] if prio is None else [signal[ids], prio[ids]])
            for p, ids in self.master_lists.items():
                if ids.size:
                    got = self.t.recv(p, DATA, self.step).arrays
                    signal[ids] |= got[0]
                    if prio is not None:
                        prio[ids] = np.maximum(prio[ids], got[1])
            self.step += 1
            for p, ids in self.master_lists.items():
                if ids.size:
                    self._send(p, [signal[ids]] if prio is None else [signal[ids], prio[ids]])
            for q, ids in self.mirror_lists.items():
                if ids.size:
                    got = self.t.recv(q, DATA, self.step).arrays
                    signal[ids] = got[0]
                    if prio is not None:
                        prio[ids] = got[1]
            self.seconds += time.perf_counter() - t0
        self.pending_active = signal

    def allreduce(self, values: np.ndarray, ops: tuple[int, ...]) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.comm.allreduce(np.asarray(values, np.float64), tuple(ops))
        self.seconds += time.perf_counter() - t0
        return out

    def allreduce_count(self, count: int) -> int:
        """Active masters over all ranks (the engine's local count includes mirrors)."""
        if count and self.pending_active is not None:
            count = int(np.count_nonzero(self.pending_active[self.master_ids]))
        elif count:
            count = int(self.master_ids.shape[0])
        self.pending_active = None
        t0 = time.perf_counter()
        out = int(self.comm.allreduce(np.array([count], np.int64))[0])
        self.seconds += time.perf_counter() - t0
        return out
