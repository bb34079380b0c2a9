"""The CUDA engine's layout and program-independent kernels against plain numpy references:
adjacency lists, the degree bins, the chunk table and its device search, the prefix sum and the
frontier compaction (run in numba-cuda's simulator)."""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas.cuda_layout import (
    BINS,
    adjacency,
    bin_bounds,
    degree_order,
    lb_chunk_offsets,
    locate_reference,
)
from gas.cuda_tuning import CudaTuning
from gas.errors import GasError
from gas.program import EdgeDir

pytestmark = pytest.mark.usefixtures("cuda_sim")

TUNING = CudaTuning(block_threads=32, block_degree=64, lb_degree=256, lb_chunk=64, scan_items=2, max_blocks=2)


def _graph(seed: int = 0) -> gas.Graph:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 50, 400)
    dst = np.where(rng.random(400) < 0.2, 3, rng.integers(0, 50, 400))
    return gas.Graph.from_edges(src, dst, num_vertices=55)


@pytest.mark.parametrize("direction", [EdgeDir.IN, EdgeDir.OUT, EdgeDir.ALL])
def test_adjacency_lists_every_edge_of_each_vertex(direction):
    g = _graph()
    ptr, nbr, eid = adjacency(g, direction)
    # reference: plain Python lists of (edge id, neighbour) from the edge arrays
    want = [[] for _ in range(g.num_vertices)]
    for e, (s, d) in enumerate(zip(g.src.tolist(), g.dst.tolist())):
        if direction in (EdgeDir.IN, EdgeDir.ALL):
            want[d].append((e, s))
        if direction in (EdgeDir.OUT, EdgeDir.ALL):
            want[s].append((e, d))
    for v in range(g.num_vertices):
        got = sorted(zip(eid[ptr[v] : ptr[v + 1]].tolist(), nbr[ptr[v] : ptr[v + 1]].tolist()))
        assert got == sorted(want[v])


def test_bins_cut_the_degree_order_at_the_thresholds():
    rng = np.random.default_rng(1)
    deg = np.concatenate([rng.integers(0, 2000, 300), [0, 0, 31, 32, 63, 64, 255, 256]])
    order = degree_order(deg)
    # reference: numpy's stable sort by -degree, then each vertex's bin from its own degree
    assert order.tolist() == sorted(range(deg.size), key=lambda v: (-deg[v], v))
    bounds = bin_bounds(deg[order], TUNING)
    t = TUNING
    for b, name in enumerate(BINS):
        d = deg[order[bounds[b] : bounds[b + 1]]]
        lo, hi = {
            "lb": (t.lb_degree, np.inf),
            "block": (t.block_degree, t.lb_degree),
            "warp": (t.warp_degree, t.block_degree),
            "thread": (1, t.warp_degree),
            "empty": (0, 1),
        }[name]
        assert ((d >= lo) & (d < hi)).all(), name
    assert bounds[0] == 0 and bounds[-1] == deg.size


def test_chunk_search_on_the_device_matches_numpy():
    from numba import cuda

    from gas.cuda_kernels import GenericKernels

    hub_deg = np.array([256, 1000, 64 * 7, 300, 65])
    cptr = lb_chunk_offsets(hub_deg, 64)
    # reference: chunk counts by hand, ceil(d / 64)
    assert np.diff(cptr).tolist() == [4, 16, 7, 5, 2]
    chunks = np.arange(int(cptr[-1]))
    want = locate_reference(cptr, chunks)
    assert want.tolist() == np.repeat(np.arange(5), np.diff(cptr)).tolist()
    kern = GenericKernels(TUNING)
    out = cuda.device_array(chunks.size, np.int64)
    kern.launch("k_locate", chunks.size, cuda.to_device(cptr), 5, cuda.to_device(chunks), out)
    assert out.copy_to_host().tolist() == want.tolist()


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200, 1500])
def test_prefix_sum_matches_numpy_cumsum(n):
    from numba import cuda

    from gas.cuda_kernels import GenericKernels

    a = np.random.default_rng(n).integers(0, 9, n)
    out, total = GenericKernels(TUNING).exclusive_scan(cuda.to_device(a), n)
    want = np.concatenate([[0], np.cumsum(a)])  # reference: numpy
    assert out.copy_to_host().tolist() == want.tolist()
    assert total == int(want[-1])


def test_compaction_keeps_the_degree_order_and_finds_each_bin():
    from numba import cuda

    from gas.cuda_kernels import GenericKernels

    rng = np.random.default_rng(3)
    deg = rng.integers(0, 600, 300)
    order = degree_order(deg)
    bounds = bin_bounds(deg[order], TUNING)
    flags = (rng.random(300) < 0.3).astype(np.uint8)
    kern = GenericKernels(TUNING)
    d_order, d_flags = cuda.to_device(order), cuda.to_device(flags)
    pos = cuda.device_array(301, np.int64)
    front = cuda.device_array(300, np.int64)
    kern._scan(d_flags, 300, d_order, pos)
    kern.launch("k_compact", 300, d_order, d_flags, pos, 300, front)
    bins = kern.take(pos, bounds)
    want = order[flags[order] == 1]  # reference: numpy boolean indexing in degree order
    assert front.copy_to_host()[: want.size].tolist() == want.tolist()
    for b in range(len(BINS)):
        inside = want[bins[b] : bins[b + 1]]
        assert set(inside.tolist()) == set(
            order[bounds[b] : bounds[b + 1]][flags[order[bounds[b] : bounds[b + 1]]] == 1].tolist()
        )


def test_tuning_refuses_bad_shapes():
    with pytest.raises(GasError, match="multiple of 32"):
        CudaTuning(block_threads=48)
    with pytest.raises(GasError, match="warp_degree <= block_degree"):
        CudaTuning(block_degree=10, warp_degree=32)


def test_simulator_shared_arrays_are_one_per_line_for_all_threads_of_a_block():
    # gas.cuda_device locks the simulator's shared-array lookup: 64 threads released at once
    # must all get the same array for the same line (unlocked, two may create their own)
    import threading

    from numba.cuda.simulator import kernelapi

    from gas.cuda_device import cuda_module

    cuda_module()  # applies the fix under the simulator
    shared = kernelapi.FakeCUDAShared(0)
    start = threading.Barrier(64)
    got = []

    def take():
        start.wait()
        got.append(shared.array(16, np.int64))

    threads = [threading.Thread(target=take) for _ in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 64 and all(a is got[0] for a in got)
