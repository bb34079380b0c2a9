"""Shared test fixtures: where the shared real datasets live (a skip when they are absent), and a
local cluster of spawned workers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The CUDA engine's tests run in numba-cuda's simulator (no GPU here): it must be chosen before
# numba.cuda is first imported, which nothing does before this file.
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest

SHARED = Path(
    os.environ.get("GAS_SHARED_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)


def shared_path(relative: str) -> Path:
    """Path of a file under ../shared/datasets, or skip the test with the reason."""
    p = SHARED / relative
    if not p.exists():
        pytest.skip(f"shared dataset {relative} not found under {SHARED} (a user's clone has no ../shared)")
    return p


def read_edges_python(path: Path) -> list[tuple[int, int]]:
    """Independent reader for oracle graphs: plain Python gzip/open + str.split, no gaslab code."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    edges = []
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#%":
                continue
            parts = line.replace(",", " ").split()
            edges.append((int(parts[0]), int(parts[1])))
    return edges


def nx_digraph(path: Path):
    """A networkx DiGraph of a shared edge list, built without gaslab."""
    import networkx as nx

    G = nx.DiGraph()
    G.add_edges_from(read_edges_python(path))
    return G


@pytest.fixture(scope="module", params=[2, pytest.param(3, marks=pytest.mark.slow)])
def cluster(request):
    """Spawned local workers (2, then 3 processes), shared by one test module's tests. The
    3-process cluster repeats the 2-process cases with a rank that is neither first nor last:
    marked slow (``.ci/run`` runs it; ``-m "not slow"`` keeps the 2-process cases)."""
    from gas.runtime.local import LocalCluster

    with LocalCluster(request.param) as c:
        yield c


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "slow: long equivalence sweeps and stress runs; CI runs them, `pytest -m 'not slow'` skips them",
    )


@pytest.fixture(scope="module")
def cuda_sim():
    """The CUDA simulator, made quicker: numba-cuda's block manager polls its threads while
    holding the GIL, so a short switch interval lets the simulated threads run (about 2.5x
    faster kernels); skips when numba-cuda is not installed."""
    pytest.importorskip("numba_cuda", reason="the CUDA tests need numba-cuda (pip install -e '.[test]')")
    from numba import config

    if not config.ENABLE_CUDASIM:
        pytest.skip("the CUDA tests run in numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1)")
    from gas.cuda_device import cuda_module

    cuda_module()  # also makes the simulator's shared-array lookup thread-safe
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(old)
