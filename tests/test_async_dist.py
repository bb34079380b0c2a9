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
from gas.algorithms.pagerank import DeltaPageRankProgram, ResidualPageRankProgram
from gas.algorithms.sssp import SSSPProgram
from gas.runtime.local import LocalCluster


def _graph(n: int = 300, m: int = 1800, seed: int = 11) -> gas.Graph:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n - 10, m)
    dst = rng.integers(0, n, m)
    return gas.Graph.from_edges(src, dst, num_vertices=n, weights=rng.integers(1, 5, m).astype(float))


@pytest.fixture(scope="module", params=[2, 3])
def cluster(request):
    with LocalCluster(request.param) as c:
        yield c


def _one(g, program, scheduler, consistency="edge", **kw):
    return gas.AsyncEngine(g, program, scheduler=scheduler, consistency=consistency, threads=2).run(**kw)


@pytest.mark.parametrize("scheduler", ["fifo", "sweep"])
@pytest.mark.parametrize("method", ["hdrf", "hash"])
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
    with pytest.raises(gas.GasError, match="fifo, sweep schedulers"):
        cluster.run(g, ComponentsProgram(), engine="async", scheduler="priority")
    with pytest.raises(gas.GasError, match="does not run across processes"):
        cluster.run(g, ResidualPageRankProgram(), engine="async", consistency="full")
    with pytest.raises(gas.GasError, match="checkpoints"):
        cluster.run(g, ComponentsProgram(), engine="async", checkpoint={"dir": "x", "every": 1})
    with pytest.raises(gas.GasError, match="Unknown engine"):
        cluster.run(g, ComponentsProgram(), engine="later")


def _gas(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gas.cli", *args], capture_output=True, text=True, timeout=300
    )


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
    bad = _gas(*base, "--scheduler", "priority", "--procs", "2")
    assert bad.returncode == 2 and "one process only" in bad.stderr and "fifo or sweep" in bad.stderr
