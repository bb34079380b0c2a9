"""The CUDA engine (in numba-cuda's simulator) against the CPU engine on an R-MAT graph whose
degrees fill every gather bin, including a hub cut into chunks (the edge-balanced path).

Scale 9 with edge factor 8 (3,234 edges after removing duplicates): the largest in-degree is
141, so with blocks of 32 threads, a block from 64 edges and chunks from 128 edges, every bin
of :data:`gas.cuda_layout.BINS` holds vertices. The CPU engine is the reference (itself
checked against networkx in the algorithm tests).
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda_programs import MyPageRank

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram, WeightedPageRankProgram
from gas.algorithms.sssp import HopsProgram, SSSPProgram
from gas.cuda_layout import BINS
from gas.cuda_tuning import CudaTuning
from gas.datasets.generators import rmat_graph

pytestmark = pytest.mark.usefixtures("cuda_sim")

TUNING = CudaTuning(block_threads=32, block_degree=64, lb_degree=128, lb_chunk=32, max_blocks=2)


@pytest.fixture(scope="module")
def graph():
    g = rmat_graph(9, 8, seed=1)
    w = np.random.default_rng(0).integers(1, 20, g.num_edges).astype(np.float64)
    g = gas.Graph.from_edges(g.src, g.dst, edge_data={"weight": w}, num_vertices=g.num_vertices)
    assert g.num_edges == 3234 and int(g.in_degree.max()) == 141
    return g


def _source(g):
    return int(np.argmax(g.out_degree))


def _run(g, make, active, max_iter):
    cpu_eng = gas.SyncEngine(g, make())
    eng = gas.CudaEngine(g, make(), tuning=TUNING)
    for e in (cpu_eng, eng):
        if "out_weight" in e.columns:  # weighted PageRank's input, set before the run
            e.columns["out_weight"][:] = np.bincount(g.src, g.edata["weight"], g.num_vertices)
    return cpu_eng.run(max_iter, active=active), eng.run(max_iter, active=active), eng


@pytest.mark.parametrize(
    "make", [PageRankProgram, WeightedPageRankProgram, MyPageRank], ids=["plain", "weighted", "user"]
)
def test_pagerank_equals_cpu_and_uses_every_bin(graph, make):
    # 5 supersteps (the simulator is slow): the same count on both, to 1e-12 in L1
    cpu, gpu, eng = _run(graph, lambda: make(tol=1e-10), None, 5)
    assert gpu.iterations == cpu.iterations == 5
    assert np.abs(gpu.output - cpu.output).sum() <= 1e-12
    assert all(eng.bin_counts[b] > 0 for b in BINS), eng.bin_counts
    # every vertex gathered in every superstep, each in exactly one bin
    assert all(sum(s["bins"].values()) == graph.num_vertices for s in gpu.stats)


def test_components_identical(graph):
    cpu, gpu, eng = _run(graph, ComponentsProgram, None, 100)
    assert gpu.converged and gpu.iterations == cpu.iterations
    assert np.array_equal(gpu.output, cpu.output)
    assert all(eng.bin_counts[b] > 0 for b in BINS), eng.bin_counts


@pytest.mark.parametrize("make", [SSSPProgram, HopsProgram], ids=["weighted", "hops"])
def test_sssp_identical_on_the_frontier(graph, make):
    src = _source(graph)
    cpu, gpu, eng = _run(graph, lambda: make(src), [src], 100)
    assert gpu.converged and gpu.iterations == cpu.iterations
    assert np.array_equal(gpu.output, cpu.output)
    # the frontier is compacted on the device: a superstep gathers only its active vertices
    assert [sum(s["bins"].values()) for s in gpu.stats] == [s["active"] for s in cpu.stats]
    assert eng.bin_counts["lb"] > 0 and eng.bin_counts["block"] > 0
