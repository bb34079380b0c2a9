"""The engine of one rank's part: :class:`gas.SyncEngine` with global degrees, apply and the
aggregates on masters only, talking to its peers through a
:class:`~gas.runtime.network_exchange.NetworkExchange`.

:func:`part_engine` builds it from a :class:`~gas.runtime.worker_graph.WorkerPart` (what every
driver of a part starts from), :func:`local_active` maps a run's global ``active`` set onto it.

Examples
--------
>>> import numpy as np, gas
>>> from gas.runtime.worker_graph import part_of_graph
>>> from gas.algorithms.pagerank import PageRankProgram
>>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
>>> eng, eid = part_engine(part_of_graph(g, np.zeros(3, np.int32), np.zeros(3, np.int32), 0),
...                        PageRankProgram(), Comm(None))
>>> bool(np.allclose(eng.run(50).output, 1 / 3)), eid.tolist()
(True, [0, 1, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.config import CONFIG
from gas.engine import SyncEngine
from gas.engine_base import Engine
from gas.engine_ranges import active_mask
from gas.errors import ProgramError
from gas.local_part import Partition
from gas.program import HAS_NBR, NBRS, VertexProgram
from gas.program_spec import ProgramSpec
from gas.runtime.comm import Comm
from gas.runtime.gather_local import replicate_adjacency, route_gather_edges
from gas.runtime.part_exchange import attach_exchange
from gas.runtime.program_analysis import layout_for
from gas.runtime.worker_graph import WorkerPart, build_partition

__all__ = ["DistEngine", "part_engine", "local_active"]


class DistEngine(SyncEngine):
    """:class:`SyncEngine` on one part: global degrees; apply and aggregates on masters only.

    ``apply_chunks`` are the vertex ranges apply runs over: even splits of the masters when they
    come first (``"masters_first"`` layout), else the runs of consecutive masters with the
    ranges between them (whose results are never read); ``master_chunk`` selects the chunks of
    masters, whose partial aggregates make this rank's share.
    """

    def __init__(
        self,
        partition: Partition,
        program: VertexProgram,
        comm: Comm,
        out_degree: np.ndarray,
        in_degree: np.ndarray,
        master: np.ndarray,
        threads: int | None = None,
    ) -> None:
        super().__init__(partition, program, threads=threads)
        ex = attach_exchange(self, comm, out_degree, in_degree, master)
        nm = ex.master_ids.shape[0]
        if nm == 0 or int(ex.master_ids[-1]) == nm - 1:  # masters are 0..nm-1
            parts = max(1, min(nm, self.nthreads * CONFIG["chunks_per_thread"]))
            self.apply_chunks = (np.arange(parts + 1, dtype=np.int64) * nm) // parts
            self.master_chunk = slice(None)
        else:
            self.apply_chunks = ex.master_runs
            self.master_chunk = slice(0, None, 2)  # chunk 2i: the i-th run of masters

    def _check_consistency(self) -> None:
        super()._check_consistency()
        atomic = self.spec.spec.atomic_calls
        if atomic:
            raise ProgramError(
                f"{self.spec.name}.scatter changes its neighbours with {', '.join(atomic)}, which runs on "
                f"one process only (a neighbour's master on another process would miss the change). "
                f"Fix: procs=1, or a pull form that gathers what it needs and writes only its own vertex"
            )

    def local_share(self, part: np.ndarray | None = None) -> np.ndarray:
        """This rank's share of the aggregates (over its masters), from the per-chunk partials
        ``part`` of ``apply_chunks`` (computed here when None); :meth:`aggregate` reduces the
        shares of every rank through the exchange."""
        spec = self.spec
        vals = np.zeros(len(spec.agg_names), np.float64)
        for j, op in enumerate(spec.agg_ops):
            vals[j] = 0.0 if op == 0 else (-np.inf if op == 1 else np.inf)
        ch = self.apply_chunks
        if ch.shape[0] > 1 and spec.agg_names:
            if part is None:
                part = np.empty((ch.shape[0] - 1, len(spec.agg_names)), np.float64)
                self.k.k_aggregate(ch, self.VC, self.EC, self.params, part)
            mine = part[self.master_chunk]
            for j, op in enumerate(spec.agg_ops):
                col = mine[:, j]
                vals[j] = col.sum() if op == 0 else (col.max() if op == 1 else col.min())
        return vals


def part_engine(
    part: WorkerPart, program: VertexProgram, comm: Comm, threads: int | None = None, device: str = "cpu"
) -> tuple[Engine, np.ndarray]:
    """The engine of this rank's part (numbered by :func:`layout_for`) and the global edge id of
    each local edge: what every runner of a part starts from. ``device="cuda"``: a
    :class:`gas.runtime.dist_cuda.DistCudaEngine` on this rank's GPU."""
    spec = ProgramSpec.of(program)
    if spec.gather_slots:  # apply reads every gather value: the master holds all its gather edges
        part = route_gather_edges(part, comm, program.gather_edges)
    partition, outd, ind, eid = build_partition(
        part, comm, layout=layout_for(program), gather_edges=program.gather_edges
    )
    if NBRS in spec.names_in() or HAS_NBR in spec.names_in():  # every local vertex's whole list
        partition.adjacency = replicate_adjacency(part, partition, comm)
    if device == "cuda":
        from gas.runtime.dist_cuda import DistCudaEngine

        return DistCudaEngine(partition, program, comm, outd, ind, part.master, threads=threads), eid
    return DistEngine(partition, program, comm, outd, ind, part.master, threads=threads), eid


def local_active(active: Any, eng: DistEngine, num_vertices: int) -> np.ndarray:
    """``active`` (global ids or a global boolean mask) as a boolean mask of this part's vertices."""
    return active_mask(active, num_vertices).view(np.bool_)[eng.partition.global_ids]
