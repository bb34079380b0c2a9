"""The engine across partitions gives the single-process answer, for every partitioner.

Ranks run as threads over the in-process transport (the same exchange logic and wire protocol
as over ZeroMQ; the ZeroMQ path with spawned processes is covered in test_runtime_procs.py).
Reference: the single-process engine, itself checked against networkx in test_pagerank.py and
test_components_sssp.py. PageRank must agree to L1 <= 1e-9 (partial sums are added in another
order); components and shortest paths exactly.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram
from gas.algorithms.sssp import SSSPProgram
from gas.partition import available_methods, partition
from gas.runtime.comm import Comm
from gas.runtime.exchange import part_of_graph, run_partition
from gas.runtime.transport import InProcHub

METHODS = list(available_methods())


def _graph(seed: int = 3) -> gas.Graph:
    rng = np.random.default_rng(seed)
    n, m = 70, 260
    src = rng.integers(0, n - 5, m)  # vertices n-5..n-1 are isolated or only targets
    dst = np.where(rng.random(m) < 0.1, src, rng.integers(0, n, m))  # some self-loops
    w = rng.integers(1, 9, m).astype(np.float64)
    return gas.Graph.from_edges(src, dst, num_vertices=n, weights=w)


def run_threads(g, assignment, make_program, max_iter=200, active=None):
    P = assignment.num_parts
    hub = InProcHub(P)
    out: list = [None] * P
    errors: list = []

    def work(r):
        try:
            part = part_of_graph(g, assignment.master, assignment.edge_part, r)
            comm = Comm(hub.transport(r) if P > 1 else None)
            out[r] = run_partition(part, make_program(), comm, max_iter=max_iter, active=active, threads=1)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    ts = [threading.Thread(target=work, args=(r,)) for r in range(P)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    if errors:
        raise errors[0]
    return out[0]


@pytest.fixture(scope="module")
def graph():
    return _graph()


@pytest.fixture(scope="module")
def reference(graph):
    g = graph
    pr = gas.SyncEngine(g, PageRankProgram(tol=1e-12)).run(200)
    cc = gas.SyncEngine(g, ComponentsProgram()).run(g.num_vertices + 1)
    sp = gas.SyncEngine(g, SSSPProgram(0)).run(g.num_vertices + 1, active=[0])
    return {"pagerank": pr, "cc": cc, "sssp": sp}


@pytest.mark.parametrize("procs", [1, 2, 3, 4])
@pytest.mark.parametrize("method", METHODS)
def test_partitioned_runs_match_one_process(graph, reference, method, procs):
    g = graph
    a = partition(g, method, num_parts=procs, seed=1)
    pr = run_threads(g, a, lambda: PageRankProgram(tol=1e-12))
    ref = reference["pagerank"]
    assert np.abs(pr.output - ref.output).sum() <= 1e-9
    assert pr.iterations == ref.iterations
    cc = run_threads(g, a, ComponentsProgram)
    assert np.array_equal(cc.output, reference["cc"].output)
    sp = run_threads(g, a, lambda: SSSPProgram(0), active=[0])
    assert np.array_equal(sp.output, reference["sssp"].output)
    # the active counts per superstep are the single-process ones (masters counted once)
    assert [s["active"] for s in sp.stats] == [s["active"] for s in reference["sssp"].stats]
