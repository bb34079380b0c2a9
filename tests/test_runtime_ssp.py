"""Bounded staleness (SSP) across workers: s = 0 is BSP bit for bit; s = 2 with a straggler
converges to the same PageRank; bad combinations are refused.

Ranks run as threads over the in-process transport (same exchange and wire protocol as ZeroMQ),
plus one spawned-process CLI run. References: the BSP distributed run (run_partition, itself
checked against the single-process engine and networkx in test_runtime_equivalence.py and
test_pagerank.py) and the single-process CLI output.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram
from gas.errors import GasError
from gas.partition import partition
from gas.runtime.bsp import part_of_graph, run_partition
from gas.runtime.comm import Comm
from gas.runtime.ssp import parse_straggler, run_partition_ssp, ssp_job
from gas.runtime.transport import InProcHub


def _graph(seed: int = 3) -> gas.Graph:
    rng = np.random.default_rng(seed)
    n, m = 300, 1500
    src = rng.integers(0, n - 5, m)  # the last vertices are dangling: the dangling aggregate matters
    return gas.Graph.from_edges(src, rng.integers(0, n, m), num_vertices=n)


def _threads(g, assignment, fn):
    P = assignment.num_parts
    hub = InProcHub(P)
    out: list = [None] * P
    errors: list = []

    def work(r):
        try:
            part = part_of_graph(g, assignment.master, assignment.edge_part, r)
            out[r] = fn(part, Comm(hub.transport(r) if P > 1 else None))
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    ts = [threading.Thread(target=work, args=(r,), daemon=True) for r in range(P)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    if errors:
        raise errors[0]
    assert all(not t.is_alive() for t in ts), "a rank hung"
    return out[0]


@pytest.fixture(scope="module")
def graph():
    return _graph()


@pytest.mark.parametrize(
    "procs, straggler",
    [(2, (1, 0.002)), pytest.param(3, (1, 0.002), marks=pytest.mark.slow), (2, ("any", 0.002))],
)
def test_staleness_zero_is_bsp_bit_for_bit(graph, procs, straggler):
    a = partition(graph, "hdrf", num_parts=procs, seed=1)
    bsp = _threads(
        graph, a, lambda p, c: run_partition(p, PageRankProgram(tol=1e-12), c, max_iter=300, threads=1)
    )
    s0 = _threads(
        graph,
        a,
        lambda p, c: run_partition_ssp(
            p, PageRankProgram(tol=1e-12), c, max_iter=300, staleness=0, straggler=straggler, threads=1
        ),
    )
    assert np.array_equal(s0.vertex_data, bsp.vertex_data)
    assert s0.iterations == bsp.iterations and s0.converged
    # SSP statistics give the aggregates a superstep read: BSP's of the superstep before
    assert [s["change"] for s in s0.stats[1:]] == [s["change"] for s in bsp.stats[:-1]]
    assert s0.aggregates == bsp.aggregates
    assert s0.ssp["staleness_max"] == 0 and s0.ssp["clocks"] == [bsp.iterations] * procs


@pytest.mark.parametrize("fresh", [True, False])
def test_staleness_two_with_straggler_converges_to_bsp(graph, fresh):
    a = partition(graph, "hdrf", num_parts=2, seed=1)
    bsp = _threads(
        graph, a, lambda p, c: run_partition(p, PageRankProgram(tol=1e-12), c, max_iter=2000, threads=1)
    )
    res = _threads(
        graph,
        a,
        lambda p, c: run_partition_ssp(
            p,
            PageRankProgram(tol=1e-12),
            c,
            max_iter=2000,
            staleness=2,
            straggler=(1, 0.004),
            threads=1,
            fresh=fresh,
        ),
    )
    assert res.converged and bsp.converged
    assert np.abs(res.output - bsp.output).sum() <= 1e-6
    ssp = res.ssp
    # the fast rank really ran ahead on stale data, never more than the bound
    assert 0 < ssp["staleness_max"] <= 2
    assert 0 < ssp["staleness_mean"] <= 2
    assert max(s["staleness"] for s in res.stats) <= 2
    assert abs(ssp["clocks"][0] - ssp["clocks"][1]) <= 2


def test_invalid_combinations_are_refused(graph):
    with pytest.raises(GasError, match="s >= 0"):
        ssp_job(PageRankProgram(), -1, None)
    with pytest.raises(GasError, match="static programs only"):
        ssp_job(ComponentsProgram(), 1, None)
    with pytest.raises(GasError, match="checkpoints"):
        ssp_job(PageRankProgram(), 1, None, checkpoint={"dir": "x", "every": 1})
    with pytest.raises(GasError, match="RANK:SECONDS"):
        parse_straggler("1-0.5")
    with pytest.raises(GasError, match="delay >= 0"):
        parse_straggler("1:-2")
    assert ssp_job(PageRankProgram(), None, None) is None


def test_moving_straggler_slows_exactly_one_rank_per_superstep():
    from gas.runtime.ssp import straggler_delay

    for size in (2, 3):
        delays = np.array([[straggler_delay("any:0.5", r, size, c) for r in range(size)] for c in range(600)])
        assert (np.count_nonzero(delays, axis=1) == 1).all() and set(delays.ravel()) == {0.0, 0.5}
        share = np.count_nonzero(delays, axis=0) / 600
        assert np.all(np.abs(share - 1 / size) < 0.08)  # every rank slowed in about 1/size of them
        assert np.count_nonzero(np.diff(delays.argmax(axis=1))) > 100  # it moves, not in long streaks
    assert straggler_delay((1, 0.2), 1, 2, 7) == 0.2 and straggler_delay((1, 0.2), 0, 2, 7) == 0.0
    assert straggler_delay(None, 0, 2, 0) == 0.0


def _gas(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gas.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_rejects_staleness_without_procs(tmp_path):
    path = tmp_path / "e.tsv"
    path.write_text("0\t1\n1\t2\n2\t0\n")
    r = _gas("pagerank", str(path), "--staleness", "1")
    assert r.returncode == 2 and "--procs" in r.stderr
    r = _gas("pagerank", str(path), "--procs", "2", "--staleness", "-1")
    assert r.returncode == 2 and "--staleness S >= 0" in r.stderr
    r = _gas("pagerank", str(path), "--procs", "2", "--straggler", "5:0.1")
    assert r.returncode == 2 and "rank 5" in r.stderr


@pytest.mark.slow  # `gas` processes with spawned workers; the library path is tested above
def test_cli_spawned_workers_with_staleness(tmp_path):
    rng = np.random.default_rng(5)
    n, m = 400, 2400
    src = rng.integers(0, n, m)
    dst = (src + rng.integers(1, 50, m)) % n
    path = tmp_path / "e.tsv"
    np.savetxt(path, np.stack([src, dst], 1), fmt="%d", delimiter="\t")
    ref, out = tmp_path / "ref.tsv", tmp_path / "ssp.tsv"
    common = ("--tol", "1e-12", "--max-iter", "2000")
    r = _gas("pagerank", str(path), *common, "-q", "-o", str(ref))
    assert r.returncode == 0, r.stderr
    args = ("--procs", "2", "--staleness", "2", "--straggler", "1:0.005")
    r = _gas("pagerank", str(path), *common, *args, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "staleness bound 2: observed mean" in r.stderr
    a, b = np.loadtxt(out), np.loadtxt(ref)
    a, b = a[np.argsort(a[:, 0])], b[np.argsort(b[:, 0])]
    assert np.array_equal(a[:, 0], b[:, 0])
    assert np.abs(a[:, 1] - b[:, 1]).sum() <= 1e-6
