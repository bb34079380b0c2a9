"""One rank's part on one GPU: :class:`gas.CudaEngine` with the process runtime's exchange.

``gas.run(graph, program, engine="cuda", procs=N)`` (``gas pagerank G --procs N --device
cuda``) gives each rank one GPU (:func:`gas.cuda_device.select_device`: ``LOCAL_RANK``, else
the rank modulo the GPUs this process sees) and runs the synchronous supersteps there. The
exchange with the other ranks is staged through the host: the partial gather totals a mirror
sends, the masters' new vertex data and the signals are copied to the host, exchanged by
:class:`gas.runtime.network_exchange.NetworkExchange` as on the CPU, and copied back; a master
folds its mirrors' partial totals on the device (:meth:`gas.CudaEngine.combine`). The
aggregates reduce over this rank's masters on the device.

Examples
--------
>>> import numpy as np, gas
>>> from gas.runtime.comm import Comm
>>> from gas.runtime.worker_graph import part_of_graph
>>> from gas.algorithms.components import ComponentsProgram
>>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=4)
>>> part = part_of_graph(g, np.zeros(4, np.int32), np.zeros(2, np.int32), 0)
>>> from gas.runtime.worker_graph import build_partition
>>> partition, outd, ind, _ = build_partition(part, Comm(None))
>>> eng = DistCudaEngine(partition, ComponentsProgram(), Comm(None), outd, ind, part.master)
>>> eng.run().output.tolist()
[0, 0, 2, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas import cuda_device
from gas.cuda_engine import CudaEngine, Frontier
from gas.cuda_tuning import CudaTuning
from gas.local_part import Partition
from gas.program import VertexProgram
from gas.runtime.comm import Comm
from gas.runtime.part_exchange import attach_exchange

__all__ = ["DistCudaEngine"]


class DistCudaEngine(CudaEngine):
    """:class:`gas.CudaEngine` on one rank's part (see the module docstring)."""

    def __init__(
        self,
        partition: Partition,
        program: VertexProgram,
        comm: Comm,
        out_degree: np.ndarray,
        in_degree: np.ndarray,
        master: np.ndarray,
        threads: int | None = None,
        tuning: CudaTuning | None = None,
    ) -> None:
        #: the GPU this rank computes on
        self.device_index = cuda_device.select_device(comm.rank)
        super().__init__(partition, program, threads=threads, tuning=tuning)
        ex = attach_exchange(self, comm, out_degree, in_degree, master)
        self._dmasters = self.cuda.to_device(np.ascontiguousarray(ex.master_ids, np.int64))
        self._num_masters = int(ex.master_ids.shape[0])

    def _aggregate_set(self) -> tuple[Any, bool, int]:
        return self._dmasters, True, self._num_masters

    def exchange_gather(self, active: Frontier) -> None:
        """Send mirrors' partial totals to their masters (from a host copy); the masters fold
        what they receive on the device."""
        acc = self.dacc.copy_to_host()
        self.exchange.reduce_gather(acc, self.host_mask(active), 0)

    def exchange_vertices(self, active: Frontier) -> None:
        """Masters' new data to their mirrors, through host copies of the vertex columns."""
        for host, dev in zip(self.VC, self.dVC):
            dev.copy_to_host(host)
        self.exchange.sync_vertices(self.VC, self.host_mask(active))
        self.upload_columns()

    def exchange_signals(self, signal: Any) -> None:
        """OR the signals of every replica (through a host copy of the flags)."""
        host = signal.copy_to_host()
        self.exchange.reduce_signals(host)
        signal.copy_to_device(host)
