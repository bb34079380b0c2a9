"""Accumulative (delta) PageRank, alone and under bounded staleness: every change counted once.

Oracles: ``networkx.pagerank`` for the normalized ranks, and a dense ``numpy.linalg.solve`` of
``y = (1 - alpha) / N + alpha * P^T y`` (dangling vertices absorbing) for the unnormalized values
the program accumulates, which a delta counted twice or dropped would miss. s = 0 is compared
bit for bit with the BSP run of the same program (``run_partition``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms.pagerank_delta import AccumulativePageRankProgram
from gas.errors import GasError
from gas.partition import partition
from gas.runtime.bsp import run_partition
from gas.runtime.ssp import delta_fields, run_partition_ssp

sys.path.insert(0, str(Path(__file__).parent))
from test_runtime_ssp import _graph, _threads  # noqa: E402

ALPHA, TOL = 0.85, 1e-12


@pytest.fixture(scope="module")
def graph():
    return _graph()  # 300 vertices, 1500 random edges, the last 5 vertices dangling


@pytest.fixture(scope="module")
def oracle(graph):
    """networkx's PageRank (normalized) and the exact unnormalized solution, by internal id."""
    n = graph.num_vertices
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(graph.src.tolist(), graph.dst.tolist()))
    ref = nx.pagerank(G, alpha=ALPHA, tol=1e-15, max_iter=10_000)
    pr = np.array([ref[v] for v in range(n)])
    A = np.zeros((n, n))
    deg = np.bincount(graph.src, minlength=n)
    np.add.at(A, (graph.dst, graph.src), ALPHA / deg[graph.src])
    y = np.linalg.solve(np.eye(n) - A, np.full(n, (1 - ALPHA) / n))
    return pr, y


def test_single_process_matches_networkx(graph, oracle):
    pr, y = oracle
    res = gas.SyncEngine(graph, AccumulativePageRankProgram(ALPHA, TOL)).run(2000)
    assert res.converged
    # the stopping test bounds the remaining error: |y - y*|_1 <= N tol sum(y)
    assert np.abs(res.output - y).sum() <= graph.num_vertices * TOL * res.output.sum()
    assert np.abs(res.output / res.output.sum() - pr).sum() <= 1e-9
    assert res.aggregates["left"] <= 1 - ALPHA  # mass that left never exceeds what entered


@pytest.mark.parametrize(
    "procs, straggler", [(2, (1, 0.002)), pytest.param(3, ("any", 0.002), marks=pytest.mark.slow)]
)
def test_staleness_zero_is_bsp_bit_for_bit(graph, procs, straggler):
    a = partition(graph, "hdrf", num_parts=procs, seed=1)
    prog = AccumulativePageRankProgram(ALPHA, TOL)
    bsp = _threads(graph, a, lambda p, c: run_partition(p, prog, c, max_iter=2000, threads=1))
    s0 = _threads(
        graph,
        a,
        lambda p, c: run_partition_ssp(
            p, prog, c, max_iter=2000, staleness=0, straggler=straggler, threads=1
        ),
    )
    assert np.array_equal(s0.vertex_data, bsp.vertex_data)
    assert s0.iterations == bsp.iterations and s0.converged and bsp.converged
    assert s0.ssp["staleness_max"] == 0


@pytest.mark.parametrize(
    "procs, s, straggler, fresh, sweeps",
    [
        (2, 1, (1, 0.003), True, 0),
        (2, 2, (1, 0.003), True, 0),
        (2, 3, ("any", 0.003), True, 0),
        (2, 2, ("any", 0.003), False, 0),
        (2, 2, (1, 0.003), True, 6),  # the fast rank sweeps its part while it waits
        pytest.param(3, 2, ("any", 0.003), True, 4, marks=pytest.mark.slow),  # 3 ranks: slow
    ],
)
def test_bounded_staleness_counts_every_delta_once(graph, oracle, procs, s, straggler, fresh, sweeps):
    pr, y = oracle
    a = partition(graph, "hdrf", num_parts=procs, seed=1)
    prog = AccumulativePageRankProgram(ALPHA, TOL)
    res = _threads(
        graph,
        a,
        lambda p, c: run_partition_ssp(
            p, prog, c, max_iter=3000, staleness=s, straggler=straggler, threads=1, fresh=fresh, sweeps=sweeps
        ),
    )
    assert res.converged
    # exactly once: a delta read twice would overshoot y*, one dropped would stay below it
    # (by far more than the stopping bound N tol sum(y))
    assert np.abs(res.output - y).sum() <= graph.num_vertices * TOL * res.output.sum()
    assert np.abs(res.output / res.output.sum() - pr).sum() <= 1e-6
    assert 0 < res.ssp["staleness_max"] <= s
    # one passing superstep stops the run (the test is an error bound): the agreed superstep
    # is at most s behind the last one a rank ran
    assert max(res.ssp["clocks"]) - res.ssp["stop_superstep"] <= s + 1
    if sweeps and straggler[0] == 1:
        assert res.ssp["sweeps"][0] > 0 and res.ssp["sweeps"][1] == 0  # only the waiting rank sweeps
    assert max(res.ssp["sweeps"]) <= sweeps * max(res.ssp["clocks"])


def test_local_sweeps_need_a_delta_program():
    from gas.algorithms.pagerank import PageRankProgram
    from gas.runtime.ssp import ssp_job

    with pytest.raises(GasError, match="delta_fields"):
        ssp_job(PageRankProgram(), 2, None, sweeps=4)
    assert ssp_job(AccumulativePageRankProgram(), 2, None, sweeps=4)["sweeps"] == 4


def test_delta_fields_are_checked():
    class Bad(AccumulativePageRankProgram):
        delta_fields = ("sent",)

    with pytest.raises(GasError, match="'sent', which is not in its vertex_data"):
        delta_fields(Bad())
    assert delta_fields(AccumulativePageRankProgram()) == ("send",)
