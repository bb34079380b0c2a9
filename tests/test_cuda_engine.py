"""The CUDA engine (in numba-cuda's simulator) against the CPU engine on hand-made graphs:
PageRank (plain and weighted), connected components, SSSP (weighted and hop counts) and the
README's user-written PageRank; and the programs it refuses.

The CPU engine (:class:`gas.SyncEngine`) is the reference: it is itself checked against
networkx in the algorithm tests. PageRank must agree to 1e-12 in L1 after the same number of
supersteps; components and distances exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda_programs import Countdown, MyPageRank, VectorSum

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram, WeightedPageRankProgram
from gas.algorithms.sssp import HopsProgram, SSSPProgram
from gas.cuda_tuning import CudaTuning
from gas.errors import ProgramError

pytestmark = pytest.mark.usefixtures("cuda_sim")

# a hub of more than lb_degree in-edges is cut into chunks of 16 edges, a block each
SMALL = CudaTuning(block_threads=32, warp_degree=8, block_degree=32, lb_degree=64, lb_chunk=16, max_blocks=2)


def _weighted(src, dst, n=None, seed=0):
    w = np.random.default_rng(seed).integers(1, 9, len(src)).astype(np.float64)
    return gas.Graph.from_edges(src, dst, edge_data={"weight": w}, num_vertices=n)


def _cases():
    star_in = 80  # more in-edges than one block takes (lb_degree 64): the chunked path, 5 chunks
    return {
        "empty": _weighted([], [], n=0),
        "isolated": _weighted([0, 1], [1, 2], n=4),
        "self-loops": _weighted([0, 0, 1, 1, 2], [0, 1, 1, 2, 0]),
        "duplicates": _weighted([0, 0, 0, 1, 2, 2], [1, 1, 1, 2, 0, 0]),
        "star": _weighted(list(range(1, star_in + 1)) + [0] * 5, [0] * star_in + [1, 2, 3, 4, 5]),
        "chain": _weighted(list(range(12)), list(range(1, 13))),
    }


def _programs():
    return {
        "pagerank": (lambda: PageRankProgram(tol=1e-10), None),
        "weighted-pagerank": (lambda: WeightedPageRankProgram(tol=1e-10), None),
        "user-pagerank": (lambda: MyPageRank(tol=1e-10), None),
        "components": (ComponentsProgram, None),
        "sssp": (lambda: SSSPProgram(0), [0]),
        "hops": (lambda: HopsProgram(0), [0]),
    }


def run_both(g, make, active, tuning=SMALL, max_iter=200):
    """(CPU result, CUDA result, CUDA engine) of one program on ``g``."""
    cpu_eng = gas.SyncEngine(g, make())
    eng = gas.CudaEngine(g, make(), tuning=tuning)
    for e in (cpu_eng, eng):
        if "out_weight" in e.columns:  # weighted PageRank's input, set before the run
            e.columns["out_weight"][:] = np.bincount(g.src, g.edata["weight"], g.num_vertices)
    return cpu_eng.run(max_iter, active=active), eng.run(max_iter, active=active), eng


def assert_same(cpu, gpu, name):
    assert gpu.iterations == cpu.iterations and gpu.converged == cpu.converged
    if "pagerank" in name:
        assert np.abs(gpu.output - cpu.output).sum() <= 1e-12
    else:
        assert np.array_equal(gpu.output, cpu.output)
    for field in cpu.vertex_data.dtype.names:
        a, b = cpu.vertex_data[field], gpu.vertex_data[field]
        assert np.allclose(a, b, rtol=0, atol=1e-12, equal_nan=True), field


# weighted and user-written PageRank run the same kernels as plain PageRank: only on the star
# (the chunked hub) and self-loops, to keep the simulator's time down
MATRIX = [
    (case, prog)
    for prog in _programs()
    for case in _cases()
    if prog not in ("weighted-pagerank", "user-pagerank") or case in ("star", "self-loops")
]


@pytest.mark.parametrize("case, prog", MATRIX)
def test_cuda_equals_cpu_on_hand_cases(case, prog):
    g = _cases()[case]
    make, active = _programs()[prog]
    if g.num_vertices == 0:
        active = None
    # PageRank on the star needs ~100 supersteps to 1e-10 (its cycle hub -> leaves -> hub
    # oscillates): compare after the same 10, converged or not, as the simulator is slow
    cpu, gpu, eng = run_both(g, make, active, max_iter=10 if "pagerank" in prog else 200)
    assert_same(cpu, gpu, prog)
    if case == "star" and prog != "hops":
        assert eng.bin_counts["lb"] > 0  # the hub went through the chunked path


def test_vector_fields_all_edges_and_max_aggregate():
    g = _weighted([0, 1, 2, 3, 3], [1, 2, 0, 0, 1], n=6)
    cpu, gpu, _ = run_both(g, VectorSum, None, max_iter=4)
    assert cpu.iterations == gpu.iterations == 4
    assert np.array_equal(cpu.vertex_data["x"], gpu.vertex_data["x"])
    assert np.allclose(cpu.output, gpu.output, rtol=0, atol=1e-12)
    assert gpu.aggregates["top"] == cpu.aggregates["top"]


def test_own_priority_schedules_vertices_without_scatter():
    g = gas.Graph.from_edges([0], [1], num_vertices=25)
    cpu, gpu, _ = run_both(g, Countdown, None)
    # hand-computed: vertex v counts v % 10 down in v % 10 supersteps, so the last ones (9, 19)
    # are done after supersteps 0..8 and nothing is scheduled for a tenth
    assert gpu.vertex_data["steps"].tolist() == [v % 10 for v in range(25)]
    assert gpu.iterations == cpu.iterations == 9 and gpu.converged


def test_statistics_report_bins_and_edges():
    g = _cases()["star"]
    cpu, gpu, eng = run_both(g, ComponentsProgram, None)
    assert [s["edges"] for s in gpu.stats] == [s["edges"] for s in cpu.stats]
    assert [s["active"] for s in gpu.stats] == [s["active"] for s in cpu.stats]
    per_step = [s["bins"] for s in gpu.stats]
    assert sum(b["lb"] for b in per_step) == eng.bin_counts["lb"] > 0
    assert all(sum(b.values()) == s["active"] for b, s in zip(per_step, gpu.stats))


def test_between_hook_sees_and_changes_host_columns():
    g = _cases()["chain"]
    seen = []

    def hook(eng, stat):
        seen.append(float(eng.columns["rank"].sum()))
        if stat["iteration"] == 2:
            eng.columns["rank"][:] = 1.0 / g.num_vertices  # a restart the next superstep reads
            eng.refresh_aggregates()

    def run(engine_cls, **kw):
        seen.clear()
        res = engine_cls(g, PageRankProgram(tol=1e-6), **kw).run(200, between=hook)
        return res, list(seen)

    cpu, cpu_seen = run(gas.SyncEngine)
    gpu, gpu_seen = run(gas.CudaEngine, tuning=SMALL)
    assert np.allclose(cpu_seen, gpu_seen, rtol=0, atol=1e-12)
    assert gpu.iterations == cpu.iterations
    assert np.abs(gpu.output - cpu.output).sum() <= 1e-12


def test_gas_run_picks_the_cuda_engine():
    g = _cases()["isolated"]
    res = gas.run(g, ComponentsProgram(), engine="cuda")
    assert res.output.tolist() == [0, 0, 0, 3]  # hand-computed components of 0-1-2 and 3


class _ArrayGather(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_type = (np.float64, (2,))

    def gather(self, v, e, nbr, acc):
        acc[0] += nbr.x

    def apply(self, v, total, ctx):
        v.x = total[0]


class _Allocates(gas.VertexProgram):
    vertex_data = {"x": np.float64}

    def gather(self, v, e, nbr):
        tmp = np.zeros(2)
        return tmp[0] + nbr.x

    def apply(self, v, total, ctx):
        v.x = total


class _WritesNeighbour(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def apply(self, v, total, ctx):
        v.x = total

    def scatter(self, v, e, nbr):
        nbr.x = 1.0
        return False


class _AddsToNeighbour(gas.VertexProgram):
    vertex_data = {"x": np.int64}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def apply(self, v, total, ctx):
        pass

    def scatter(self, v, e, nbr):
        nbr.fetch_add("x", 1)
        return False


@pytest.mark.parametrize(
    "prog, words",
    [
        (_ArrayGather, ["_ArrayGather.gather", "array gather_type"]),
        (_AddsToNeighbour, ["_AddsToNeighbour.scatter", "atomic calls"]),
        (_Allocates, ["gather, line", "np.zeros allocates"]),
        (_WritesNeighbour, ["writes neighbour data", "consistency='full'"]),
    ],
)
def test_programs_the_gpu_cannot_run_are_refused_when_built(prog, words):
    g = gas.Graph.from_edges([0], [1])
    with pytest.raises(ProgramError) as info:
        gas.CudaEngine(g, prog())
    for w in words:
        assert w in str(info.value)
    assert "--device cpu" in str(info.value)


def test_bounds_check_failure_names_the_method():
    class _OutOfRange(gas.VertexProgram):
        vertex_data = {"x": (np.float64, 2)}

        def gather(self, v, e, nbr):
            return nbr.x[nbr.vid]  # vertex 2's index is past the 2-vector

        def apply(self, v, total, ctx):
            v.x[0] = total

    g = gas.Graph.from_edges([2], [0], num_vertices=3)
    with pytest.raises(ProgramError, match="gather"):
        gas.CudaEngine(g, _OutOfRange()).run(3)
