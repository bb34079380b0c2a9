"""Make an engine built on one rank's part talk to its peers (shared by the CPU and GPU part
engines, :class:`gas.runtime.dist_engine.DistEngine` and
:class:`gas.runtime.dist_cuda.DistCudaEngine`).

Examples
--------
>>> import numpy as np, gas
>>> from gas.runtime.comm import Comm
>>> from gas.runtime.worker_graph import build_partition, part_of_graph
>>> from gas.algorithms.components import ComponentsProgram
>>> g = gas.Graph.from_edges([0, 2], [1, 3], num_vertices=4)
>>> part = part_of_graph(g, np.zeros(4, np.int32), np.zeros(2, np.int32), 0)
>>> partition, outd, ind, _ = build_partition(part, Comm(None))
>>> eng = gas.SyncEngine(partition, ComponentsProgram())
>>> type(attach_exchange(eng, Comm(None), outd, ind, part.master)).__name__
'NetworkExchange'
"""

from __future__ import annotations

import numpy as np

from gas.engine_base import Engine
from gas.program import EdgeDir
from gas.runtime.comm import Comm
from gas.runtime.network_exchange import NetworkExchange
from gas.runtime.program_analysis import mirror_fields

__all__ = ["attach_exchange"]


def attach_exchange(
    eng: Engine, comm: Comm, out_degree: np.ndarray, in_degree: np.ndarray, master: np.ndarray
) -> NetworkExchange:
    """Make ``eng`` (built on a part) one rank's engine: the global degrees in its degree
    columns, and a :class:`NetworkExchange` to its peers as its exchange (returned)."""
    for name, deg in (("out_degree", out_degree), ("in_degree", in_degree)):
        if name in eng.columns:
            eng.columns[name][:] = deg
    partition, program = eng.partition, eng.program
    fields = [k for k, _ in eng.spec.vertex_columns if k not in eng.spec.builtin_columns]
    sync = mirror_fields(program, fields)
    if EdgeDir(program.gather_edges) != EdgeDir.NONE:
        gathers = eng.gather_degree > 0
    else:
        gathers = np.zeros(partition.graph.num_vertices, bool)
    ex = NetworkExchange(comm, partition, master, gathers, sync)
    ex.engine = eng
    eng.exchange = ex
    return ex
