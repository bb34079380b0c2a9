"""What the synchronous engine exchanges between partitions, behind one interface.

A superstep on partition ``p``: gather locally → :meth:`Exchange.reduce_gather` (mirrors' partial
sums to masters) → apply on masters → :meth:`Exchange.sync_vertices` (masters' new data to
mirrors) → scatter locally → :meth:`Exchange.reduce_signals` (signals to the masters of their
targets, then to mirrors) → :meth:`Exchange.allreduce` for global aggregates and the active count.
:class:`LocalExchange` is the single-partition, in-process implementation: every step is a no-op;
:class:`gas.runtime.network_exchange.NetworkExchange` is the one between processes.

Examples
--------
>>> import numpy as np
>>> LocalExchange().allreduce(np.array([1.0, 2.0]), (0, 1)).tolist(), LocalExchange().allreduce_count(3)
([1.0, 2.0], 3)
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = ["Exchange", "LocalExchange"]


class Exchange(Protocol):
    """The exchange steps of a synchronous superstep (see the module docstring)."""

    def reduce_gather(self, acc: np.ndarray, active: np.ndarray, combine_op: int) -> None: ...

    def sync_vertices(self, vdata: np.ndarray, active: np.ndarray) -> None: ...

    def reduce_signals(self, signal: np.ndarray, prio: np.ndarray | None = None) -> None: ...

    def allreduce(self, values: np.ndarray, ops: tuple[int, ...]) -> np.ndarray: ...

    def allreduce_count(self, count: int) -> int: ...


class LocalExchange:
    """One partition in one process: nothing to exchange."""

    def reduce_gather(self, acc: np.ndarray, active: np.ndarray, combine_op: int) -> None:
        return None

    def sync_vertices(self, vdata: np.ndarray, active: np.ndarray) -> None:
        return None

    def reduce_signals(self, signal: np.ndarray, prio: np.ndarray | None = None) -> None:
        return None

    def allreduce(self, values: np.ndarray, ops: tuple[int, ...]) -> np.ndarray:
        return values

    def allreduce_count(self, count: int) -> int:
        return count
