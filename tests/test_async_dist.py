"""The asynchronous engine across processes (chromatic steps): same answers as one process.

References: :class:`gas.AsyncEngine` on one process with two threads (the same distance-1
colouring schedules its colour classes), networkx for PageRank, and the conflict count of a
colouring (an edge whose two ends share a colour) for the consistency guarantee.
"""

from __future__ import annotations

import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from conftest import shared_path

import gas
from gas.algorithms.coloring import ColoringProgram, coloring, count_conflicts
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import DeltaPageRankProgram, PageRankProgram, ResidualPageRankProgram
from gas.algorithms.sssp import SSSPProgram
from gas.runtime.checkpoint import restore_state
from gas.runtime.local import LocalCluster


def _graph(n: int = 300, m: int = 1800, seed: int = 11) -> gas.Graph:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n - 10, m)
    dst = rng.integers(0, n, m)
    return gas.Graph.from_edges(src, dst, num_vertices=n, weights=rng.integers(1, 5, m).astype(float))


def _one(g, program, scheduler, consistency="edge", **kw):
    return gas.AsyncEngine(g, program, scheduler=scheduler, consistency=consistency, threads=2).run(**kw)


@pytest.mark.parametrize("scheduler", ["fifo", "sweep", "priority"])
@pytest.mark.parametrize("method", ["hdrf", pytest.param("hash", marks=pytest.mark.slow)])  # hash: slow
def test_runs_across_processes_equal_one_process(cluster, scheduler, method):
    g = _graph()
    kw = dict(partition=method, engine="async", scheduler=scheduler, consistency="edge", max_iter=1000)
    got = cluster.run(g, ColoringProgram(g), **kw)
    ref = _one(g, ColoringProgram(g), scheduler, max_iter=1000)
    assert np.array_equal(got.output, ref.output) and count_conflicts(g, got.output) == 0
    got = cluster.run(g, ComponentsProgram(), **kw)
    assert np.array_equal(got.output, _one(g, ComponentsProgram(), scheduler, max_iter=1000).output)
    got = cluster.run(g, SSSPProgram(3), active=[3], **kw)
    ref = _one(g, SSSPProgram(3), scheduler, max_iter=1000, active=[3])
    assert np.array_equal(got.output, ref.output) and got.iterations == ref.iterations
    got = cluster.run(g, DeltaPageRankProgram(tol=1e-13), **kw)
    ref = _one(g, DeltaPageRankProgram(tol=1e-13), scheduler, max_iter=1000)
    # the same updates in the same rounds; sums differ only in the order of partial totals
    assert got.updates == ref.updates and got.iterations == ref.iterations
    ranks = got.output / got.output.sum()
    assert np.abs(ranks - ref.output / ref.output.sum()).sum() <= 1e-12
    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_vertices))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))
    nx_ranks = nx.pagerank(G, alpha=0.85, tol=1e-13, max_iter=10_000)  # independent reference
    assert np.abs(ranks - np.array([nx_ranks[v] for v in range(g.num_vertices)])).sum() <= 1e-6
    assert all("bytes_sent" in s and s["steps"] >= 1 for s in got.stats)


def test_dropping_edge_consistency_across_processes_gives_conflicts(cluster):
    # a dense graph: under vertex consistency every vertex runs in one step and reads its
    # neighbours' colours from before the step, so neighbours choose alike
    rng = np.random.default_rng(3)
    n = 120
    src, dst = np.nonzero(rng.random((n, n)) < 0.2)
    g = gas.Graph.from_edges(src, dst, num_vertices=n)
    kw = dict(partition="hdrf", engine="async", scheduler="fifo", max_iter=n + 1)
    loose = cluster.run(g, ColoringProgram(g), consistency="vertex", **kw)
    assert count_conflicts(g, loose.output) > 0
    safe = cluster.run(g, ColoringProgram(g), consistency="edge", **kw)
    assert count_conflicts(g, safe.output) == 0


def test_shared_graph_coloring_on_two_processes_has_no_conflicts():
    g = gas.load(str(shared_path("wiki-Vote/Wiki-Vote.txt")))
    colors = coloring(g, consistency="edge", procs=2)
    assert count_conflicts(g, colors) == 0
    assert np.array_equal(colors, coloring(g, consistency="edge", threads=2))


def test_what_it_cannot_run_is_refused_before_work(cluster):
    g = _graph(50, 200)
    with pytest.raises(gas.GasError, match="Unknown scheduler 'lifo'"):
        cluster.run(g, ComponentsProgram(), engine="async", scheduler="lifo")
    with pytest.raises(gas.GasError, match="does not run across processes"):
        cluster.run(g, ResidualPageRankProgram(), engine="async", consistency="full")
    with pytest.raises(gas.GasError, match="no supersteps to bound"):
        cluster.run(g, PageRankProgram(), engine="async", staleness=1)
    with pytest.raises(gas.GasError, match="Unknown engine"):
        cluster.run(g, ComponentsProgram(), engine="later")


@pytest.mark.parametrize("scheduler", ["fifo", "priority"])
def test_checkpointed_async_run_resumes_to_the_uninterrupted_answer(cluster, tmp_path, scheduler):
    # reference: the uninterrupted run of AsyncEngine on one process (same colouring)
    g = _graph()
    # priority: a ratio that keeps low-priority vertices waiting (0.01 would run them all here)
    ratio = 0.5 if scheduler == "priority" else 0.01
    kw = dict(partition="hdrf", engine="async", scheduler=scheduler, consistency="edge", priority_ratio=ratio)
    one = gas.AsyncEngine(
        g,
        DeltaPageRankProgram(tol=1e-13),
        scheduler=scheduler,
        consistency="edge",
        threads=2,
        priority_ratio=ratio,
    )
    ref = one.run(max_iter=1000)
    assert ref.iterations > 12
    d = tmp_path / "ck"
    cut = cluster.run(
        g, DeltaPageRankProgram(tol=1e-13), max_iter=12, checkpoint={"dir": str(d), "every": 5}, **kw
    )
    assert cut.iterations == 12 and not cut.converged  # "interrupted" after round 12
    manifest, restore = restore_state(d)
    assert manifest["step"] == 10 and not manifest["done"]  # the last snapshot before the cut
    with LocalCluster(1) as one_proc:  # resumed on another number of processes
        got = one_proc.run(g, DeltaPageRankProgram(tol=1e-13), max_iter=1000, restore=restore, **kw)
    assert got.iterations == ref.iterations and got.converged
    assert sum(s["active"] for s in got.stats) == sum(s["active"] for s in ref.stats[10:])
    assert np.abs(got.output / got.output.sum() - ref.output / ref.output.sum()).sum() <= 1e-12
    if scheduler == "priority":
        # the ratio did change the schedule (so the equal update counts above show that the
        # snapshot carried the priorities)
        fifo = _one(g, DeltaPageRankProgram(tol=1e-13), "fifo", max_iter=1000)
        assert sum(s["active"] for s in ref.stats) != sum(s["active"] for s in fifo.stats)
        return
    del kw["priority_ratio"]
    # an integer program resumes exactly, on the same processes
    cc = _one(g, ComponentsProgram(), "sweep", max_iter=1000)
    d2 = tmp_path / "cc"
    kw["scheduler"] = "sweep"
    cluster.run(g, ComponentsProgram(), max_iter=2, checkpoint={"dir": str(d2), "every": 1}, **kw)
    _, restore = restore_state(d2)
    assert restore["step"] == 1
    got = cluster.run(g, ComponentsProgram(), max_iter=1000, restore=restore, **kw)
    assert np.array_equal(got.output, cc.output) and got.iterations == cc.iterations


def test_async_run_takes_a_start_state_and_returns_edge_fields(cluster):
    from test_runtime_procs import EdgeTally

    from gas.runtime.local import run_distributed

    g = _graph()
    x0 = np.random.default_rng(1).uniform(0, 1, g.num_vertices)
    hits0 = np.arange(g.num_edges) % 3
    eng = gas.AsyncEngine(g, EdgeTally(), scheduler="fifo", consistency="edge", threads=2)
    eng.columns["x"][:] = x0  # reference: the same start on one process
    eng.edge_columns["hits"][:] = hits0
    ref = eng.run(max_iter=4)
    got = run_distributed(
        g,
        EdgeTally(),
        max_iter=4,
        cluster=cluster,
        initial={"vertex": {"x": x0}, "edges": {"hits": hits0}},
        edges=True,
        engine="async",
        consistency="edge",
    )
    np.testing.assert_allclose(got.vertex_data["x"], ref.vertex_data["x"], rtol=1e-12)
    assert (got.vertex_data["seen"] == 1).all()
    assert np.array_equal(got.edge_data["hits"], hits0 + 4)  # every vertex scattered once per round
    np.testing.assert_allclose(got.edge_data["last"], eng.edge_columns["last"], rtol=1e-12)


def _gas(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gas.cli", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow  # three `gas` processes and two sets of workers; the library path is tested above
def test_cli_async_pagerank_on_two_processes(tmp_path):
    f = tmp_path / "g.tsv"
    g = _graph(200, 1200, seed=5)
    np.savetxt(f, np.stack([g.src, g.dst], 1), fmt="%d", delimiter="\t")
    one, two = tmp_path / "one.tsv", tmp_path / "two.tsv"
    base = ("pagerank", str(f), "-q", "--tol", "1e-12", "--engine", "async", "--consistency", "edge")
    r1 = _gas(*base, "--scheduler", "fifo", "--threads", "2", "-o", str(one))
    r2 = _gas(*base, "--scheduler", "fifo", "--procs", "2", "-o", str(two))
    assert r1.returncode == 0, r1.stderr
    assert r2.returncode == 0, r2.stderr
    a = dict(line.split("\t") for line in one.read_text().splitlines())
    b = dict(line.split("\t") for line in two.read_text().splitlines())
    assert a.keys() == b.keys()
    assert sum(abs(float(a[k]) - float(b[k])) for k in a) <= 1e-9
    bad = _gas(*base, "--scheduler", "priority", "--consistency", "full", "--procs", "2")
    assert bad.returncode == 2 and "one process only" in bad.stderr and "edge" in bad.stderr


@pytest.mark.slow  # two `gas` processes and their workers; the library path is tested above
def test_cli_async_run_checkpoints_and_resumes(tmp_path):
    f = tmp_path / "g.tsv"
    g = _graph(200, 1200, seed=5)
    np.savetxt(f, np.stack([g.src, g.dst], 1), fmt="%d", delimiter="\t")
    ck, full, resumed = tmp_path / "ck", tmp_path / "full.tsv", tmp_path / "resumed.tsv"
    base = ("pagerank", str(f), "--tol", "1e-12", "--engine", "async", "--scheduler", "sweep")
    r = _gas(
        *base, "-q", "--procs", "2", "--checkpoint-dir", str(ck), "--checkpoint-every", "3", "-o", str(full)
    )
    assert r.returncode == 0, r.stderr
    # the run went on past its last snapshot; resuming from that snapshot (on one process, with
    # the engine and scheduler the manifest recorded) must repeat the rounds after it
    r = _gas("resume", str(ck), "--procs", "1", "-o", str(resumed))
    assert r.returncode == 0, r.stderr
    assert "after round" in r.stderr
    a = dict(line.split("\t") for line in full.read_text().splitlines())
    b = dict(line.split("\t") for line in resumed.read_text().splitlines())
    assert a.keys() == b.keys()
    assert sum(abs(float(a[k]) - float(b[k])) for k in a) <= 1e-12
