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
from gas.runtime.bsp import part_of_graph, run_partition
from gas.runtime.comm import Comm
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


# 3 and 4 ranks sweep every partitioner again: slow (`.ci/run` runs them, `-m "not slow"` skips)
@pytest.mark.parametrize(
    "procs", [1, 2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)]
)
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


@pytest.mark.parametrize("layout", ["sorted", "masters_first", "global"])
@pytest.mark.parametrize("method", ["random", "hash", "hdrf"])
def test_every_vertex_layout_matches_one_process(graph, reference, monkeypatch, method, layout):
    """Each worker numbering (gas.runtime.bsp.build_partition) gives the one-process answer:
    a static program with aggregates (PageRank) and a dynamic one with a scatter (delta
    PageRank, whose active counts per superstep must also agree)."""
    from gas.algorithms.pagerank import DeltaPageRankProgram
    from gas.runtime import bsp

    monkeypatch.setattr(bsp, "layout_for", lambda program: layout)
    g = graph
    a = partition(g, method, num_parts=3, seed=2)
    pr = run_threads(g, a, lambda: PageRankProgram(tol=1e-12))
    assert np.abs(pr.output - reference["pagerank"].output).sum() <= 1e-9
    assert pr.iterations == reference["pagerank"].iterations
    ref = gas.SyncEngine(g, DeltaPageRankProgram(tol=1e-12)).run(300)
    got = run_threads(g, a, lambda: DeltaPageRankProgram(tol=1e-12), max_iter=300)
    assert np.abs(got.output - ref.output).sum() <= 1e-9
    assert [s["active"] for s in got.stats] == [s["active"] for s in ref.stats]


def test_mirrors_receive_only_the_fields_gather_reads(graph):
    """PageRank's gather reads ``contrib`` only: per superstep a rank sends 8 bytes per mirror of
    its masters (sync) and 8 per own mirror with local in-edges (partial sum), counted here
    from the assignment itself."""
    g = graph
    a = partition(g, "random", num_parts=2, seed=0)
    hub = InProcHub(2)
    out: list = [None, None]

    def work(r):
        part = part_of_graph(g, a.master, a.edge_part, r)
        out[r] = run_partition(part, PageRankProgram(tol=0.0), Comm(hub.transport(r)), max_iter=3, threads=1)

    ts = [threading.Thread(target=work, args=(r,)) for r in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    for r in range(2):
        on_r = a.edge_part == r
        held = np.zeros(g.num_vertices, bool)
        held[g.src[on_r]] = held[g.dst[on_r]] = True
        has_in = np.zeros(g.num_vertices, bool)
        has_in[g.dst[on_r]] = True
        other = 1 - r
        on_o = a.edge_part == other
        held_o = np.zeros(g.num_vertices, bool)
        held_o[g.src[on_o]] = held_o[g.dst[on_o]] = True
        sync = int((held_o & (a.master == r)).sum())  # my masters mirrored on the other rank
        partial = int((has_in & (a.master == other)).sum())  # my mirrors that gather here
        want = 8 * (sync + partial)
        assert [s["bytes_sent"] for s in out[r].stats] == [want] * 3
