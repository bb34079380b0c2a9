"""Several GPUs: ``gas.run(..., engine="cuda", procs=2)`` gives each rank its own (simulated)
GPU and exchanges through the host; the answer equals the one-process CPU engine's."""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.sssp import SSSPProgram
from gas.options import RunOptions
from gas.runtime.dispatch import job_options
from gas.runtime.local import LocalCluster

pytestmark = [pytest.mark.usefixtures("cuda_sim"), pytest.mark.slow]


def _graph():
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 60, 200), rng.integers(0, 60, 200)
    w = rng.integers(1, 9, 200).astype(np.float64)
    return gas.Graph.from_edges(src, dst, edge_data={"weight": w}, num_vertices=64)


def test_components_and_sssp_on_two_gpu_ranks_equal_the_cpu():
    g = _graph()
    # reference: the CPU engine on one process (itself checked against networkx elsewhere)
    with LocalCluster(2) as cluster:  # one pair of processes for both runs
        for make, active in ((ComponentsProgram, None), (lambda: SSSPProgram(0), [0])):
            gpu = cluster.run(g, make(), engine="cuda", active=active)
            cpu = gas.run(g, make(), active=active)
            assert gpu.iterations == cpu.iterations
            assert np.array_equal(gpu.output, cpu.output)


def test_the_device_travels_in_the_job_note_and_bad_combinations_are_refused():
    from gas.runtime.dispatch import job_note

    note = job_note(ComponentsProgram(), RunOptions(device="cuda"), max_iter=3, active=None)
    assert job_options(note).device == "cuda"
    with pytest.raises(gas.GasError, match="Bounded staleness runs on the CPU"):
        gas.run(_graph(), ComponentsProgram(), engine="cuda", procs=2,
                options=RunOptions(staleness=gas.options.Staleness(1)))  # fmt: skip
