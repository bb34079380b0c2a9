"""Every kernel the CUDA engine launched in the simulator also compiles for a real GPU.

The simulator runs kernels as Python, so it cannot tell whether device code would type and
lower for a GPU (Python features NVVM has no equivalent for, a bounds check the CUDA target
cannot inline, a tuple of columns it cannot pass). Here the engine runs six programs in the
simulator on a small graph with tiny bin thresholds (so every bin, the chunked path, the
frontier and the scatter run), recording each kernel's argument types; a fresh process without
the simulator then compiles each kernel with those types to PTX for compute capability 8.0
with NVVM (``numba.cuda.compile_ptx``, which needs the CUDA toolkit's NVVM but no GPU). Skips
when NVVM is not installed (``pip install 'numba-cuda[cu12]'`` provides it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gas
from gas.cuda_engine import CudaEngine
from gas.cuda_kernels import GenericKernels
from gas.cuda_tuning import CudaTuning

pytestmark = pytest.mark.usefixtures("cuda_sim")

TINY = CudaTuning(block_threads=32, warp_degree=2, block_degree=4, lb_degree=8, lb_chunk=4, max_blocks=2)
HERE = Path(__file__).parent


def _describe(a):
    """An argument's type, as tests/cuda_ptx_compile.py rebuilds it."""
    if isinstance(a, tuple):
        return ["tuple", [_describe(x) for x in a]]
    if isinstance(a, (bool, np.bool_)):
        return ["bool"]
    if isinstance(a, int):
        return ["int64"]
    if isinstance(a, (np.integer, np.floating)):
        return ["scalar", np.dtype(type(a)).str]
    if isinstance(a, float):
        return ["scalar", "<f8"]
    h = a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)
    return ["array", h.dtype.descr if h.dtype.names else h.dtype.str, h.ndim]


# (program "module:Class", constructor arguments, active set)
JOBS = [
    ("gas.algorithms.pagerank:PageRankProgram", [], None),
    ("gas.algorithms.components:ComponentsProgram", [], None),
    ("gas.algorithms.sssp:SSSPProgram", [0], [0]),
    ("cuda_programs:MyPageRank", [], None),
    ("cuda_programs:VectorSum", [], None),
    ("cuda_programs:Countdown", [], None),
]


def _record(monkeypatch, graph):
    import importlib

    seen: dict = {}

    def rec(kind, name, args):
        seen.setdefault(kind, {}).setdefault(name, [_describe(x) for x in args])

    prog_launch, gen_run = CudaEngine._launch, GenericKernels.run_kernel

    def launch(self, kernel, blocks, *args):
        rec("prog", kernel, args)
        prog_launch(self, kernel, blocks, *args)

    def run_kernel(self, name, blocks, *args):
        rec("gen", name, args)
        gen_run(self, name, blocks, *args)

    monkeypatch.setattr(CudaEngine, "_launch", launch)
    monkeypatch.setattr(GenericKernels, "run_kernel", run_kernel)
    jobs = []
    for path, args, active in JOBS:
        seen.clear()
        mod, cls = path.split(":")
        program = getattr(importlib.import_module(mod), cls)(*args)
        CudaEngine(graph, program, tuning=TINY).run(3, active=active)
        kernels = [[k, n, a] for k in ("prog", "gen") for n, a in seen.get(k, {}).items()]
        tuning = {f: getattr(TINY, f) for f in TINY.__dataclass_fields__}
        jobs.append({"program": path, "args": args, "weight": True, "tuning": tuning, "kernels": kernels})
    return jobs


def test_every_launched_kernel_compiles_to_ptx(monkeypatch, tmp_path):
    rng = np.random.default_rng(5)
    src = np.concatenate([rng.integers(1, 30, 20), rng.integers(0, 30, 40)])
    dst = np.concatenate([np.zeros(20, int), rng.integers(0, 30, 40)])
    w = rng.integers(1, 5, src.size).astype(np.float64)
    g = gas.Graph.from_edges(src, dst, edge_data={"weight": w}, num_vertices=32)
    jobs = _record(monkeypatch, g)
    launched = {n for j in jobs for _, n, _ in j["kernels"]}
    # every gather bin, the chunk fold, the frontier and the edge-balanced scatter ran
    for name in ("k_gather_lb", "k_fold_lb", "k_gather_block", "k_gather_warp", "k_gather_thread",
                 "k_gather_empty", "k_scatter", "k_compact", "k_scan_block", "k_aggregate",
                 "k_own_priority", "k_chunks"):  # fmt: skip
        assert name in launched, name
    spec = tmp_path / "kernels.json"
    spec.write_text(json.dumps(jobs))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, str(HERE / "cuda_ptx_compile.py"), str(spec)],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    if proc.returncode == 3:
        pytest.skip(f"no NVVM to compile with: {proc.stdout.strip()[:200]}")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    compiled = [line for line in proc.stdout.splitlines() if line.startswith("ok ")]
    assert len(compiled) == sum(len(j["kernels"]) for j in jobs)
