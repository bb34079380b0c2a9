"""Collectives over a :class:`~gas.runtime.transport.Transport`: reduce, gather, all-to-all, broadcast.

Every rank sends its contribution to every other (or to rank 0), and every reduction runs in
rank order, so all ranks get bit-identical floating-point results: control decisions taken on
reduced values (``converged``, the active count) agree everywhere without another round.
Tags are a per-communicator sequence number, so a message from a later collective can never be
taken for an earlier one.

Examples
--------
>>> import threading, numpy as np
>>> from gas.runtime.transport import InProcHub
>>> hub = InProcHub(2)
>>> out = [None, None]
>>> def work(r):
...     out[r] = Comm(hub.transport(r)).allreduce(np.array([r + 1.0, -r]), (0, 2))
>>> ts = [threading.Thread(target=work, args=(r,)) for r in range(2)]
>>> for t in ts: t.start()
>>> for t in ts: t.join()
>>> out[0].tolist(), out[1].tolist()
([3.0, -1.0], [3.0, -1.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gas.runtime.protocol import CONTROL, DATA
from gas.runtime.transport import Transport

__all__ = ["Comm", "reduce_ranks", "SUM", "MAX", "MIN"]

SUM, MAX, MIN = 0, 1, 2


def _fold(a: np.ndarray, b: np.ndarray, op: int) -> np.ndarray:
    if op == SUM:
        return a + b
    if op == MAX:
        return np.maximum(a, b)
    return np.minimum(a, b)


def reduce_ranks(shares: Sequence[np.ndarray], ops: tuple[int, ...] | int = SUM) -> np.ndarray:
    """Fold one 1-d array per rank, in rank order: what :meth:`Comm.allreduce` gives every rank.

    ``ops`` is one of ``SUM``, ``MAX``, ``MIN`` per element, or one for all. Folding in rank
    order makes the floating-point result the same wherever it is computed.

    Examples
    --------
    >>> import numpy as np
    >>> reduce_ranks([np.array([1.0, 5.0, 2.0]), np.array([3.0, 4.0, 0.5])], (SUM, MAX, MIN)).tolist()
    [4.0, 5.0, 0.5]
    """
    acc = shares[0].copy()
    for b in shares[1:]:
        if isinstance(ops, int):
            acc = _fold(acc, b, ops)
        else:
            for j, op in enumerate(ops):
                acc[j] = _fold(acc[j : j + 1], b[j : j + 1], op)[0]
    return acc


class Comm:
    """Collectives for one rank; ``transport=None`` is a world of one (everything a no-op).

    Attributes
    ----------
    rank, size : int
    seq : int
        Tags reserved so far (:meth:`next_tag`: one per collective, and per point-to-point round
        a caller builds on this Comm), so a later round's message is never taken for an earlier one's.
    """

    def __init__(self, transport: Transport | None) -> None:
        self.t = transport
        self.rank = transport.rank if transport else 0
        self.size = transport.size if transport else 1
        self.seq = 0

    def next_tag(self) -> int:
        """Reserve the tag of the next collective (point-to-point rounds built on this Comm use it too).

        Examples
        --------
        >>> c = Comm(None)
        >>> c.next_tag(), c.next_tag(), c.seq
        (1, 2, 2)
        """
        self.seq += 1
        return self.seq

    def peers(self) -> list[int]:
        """Every other rank, in rank order."""
        return [r for r in range(self.size) if r != self.rank]

    def allgather(self, arrays: list[np.ndarray]) -> list[list[np.ndarray]]:
        """Every rank's ``arrays``, indexed by rank."""
        if self.t is None:
            return [arrays]
        tag = self.next_tag()
        for r in self.peers():
            self.t.send(r, DATA, tag, arrays)
        out: list[list[np.ndarray]] = []
        for r in range(self.size):
            out.append(arrays if r == self.rank else self.t.recv(r, DATA, tag).arrays)
        return out

    def alltoall(self, outgoing: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
        """Send ``outgoing[q]`` to every rank ``q``; returns what each rank sent here (by rank).

        ``outgoing`` has one list of arrays per rank (its own entry is returned as is, not sent).

        Examples
        --------
        >>> import numpy as np
        >>> Comm(None).alltoall([[np.arange(2)]])[0][0].tolist()
        [0, 1]
        """
        if self.t is None:
            return [outgoing[0]]
        tag = self.next_tag()
        for q in self.peers():
            self.t.send(q, DATA, tag, outgoing[q])
        return [outgoing[r] if r == self.rank else self.t.recv(r, DATA, tag).arrays for r in range(self.size)]

    def allreduce(self, values: np.ndarray, ops: tuple[int, ...] | int = SUM) -> np.ndarray:
        """Element-wise reduction of a 1-d array (``ops``: one op per element, or one for all)."""
        values = np.ascontiguousarray(values)
        if self.t is None:
            return values
        parts = self.allgather([values])
        return reduce_ranks([p[0] for p in parts], ops)

    def gather(self, arrays: list[np.ndarray], root: int = 0) -> list[list[np.ndarray]] | None:
        """Every rank's ``arrays`` at ``root`` (indexed by rank); None elsewhere."""
        if self.t is None:
            return [arrays]
        tag = self.next_tag()
        if self.rank != root:
            self.t.send(root, DATA, tag, arrays)
            return None
        return [arrays if r == root else self.t.recv(r, DATA, tag).arrays for r in range(self.size)]

    def bcast_meta(self, meta: dict[str, Any] | None, root: int = 0) -> dict[str, Any]:
        """A small JSON object from ``root`` to everyone."""
        if self.t is None:
            return meta or {}
        tag = self.next_tag()
        if self.rank == root:
            for r in self.peers():
                self.t.send(r, CONTROL, tag, (), meta or {})
            return meta or {}
        return self.t.recv(root, CONTROL, tag).meta or {}

    def barrier(self) -> None:
        self.allreduce(np.zeros(1))
