"""The device layer (gas/cuda_device.py), the errors of issue 19 item 3, and ``device=`` /
``--device`` on the bundled algorithms and the CLI.

No machine here has a GPU: the missing package, the missing GPU and the full device are
simulated by monkeypatching the queries the layer makes (``find_spec``, the module's
``is_available``, :func:`gas.cuda_device.device_memory`); the end-to-end runs use numba-cuda's
simulator (tests/conftest.py sets ``NUMBA_ENABLE_CUDASIM=1``) on graphs of a few edges.
"""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest

import gas
from gas import cuda_device
from gas.algorithms.components import ComponentsProgram, connected_components
from gas.algorithms.pagerank import PageRankProgram, pagerank
from gas.algorithms.sssp import sssp
from gas.cli.app import main
from gas.cuda_engine import CudaEngine
from gas.cuda_tuning import CudaTuning
from gas.errors import GasError

TINY = CudaTuning(block_threads=32, block_degree=64, lb_degree=256, lb_chunk=64)


@pytest.fixture
def no_numba_cuda(monkeypatch):
    """``importlib.util.find_spec("numba_cuda")`` answers None: numba-cuda is not installed."""
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "numba_cuda" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


@pytest.fixture
def no_gpu(monkeypatch):
    """numba-cuda installed, not the simulator, and its availability query says no GPU."""
    fake = SimpleNamespace(
        is_available=lambda: False,
        cuda_error=lambda: RuntimeError("CUDA driver library cannot be found."),
    )
    monkeypatch.setattr(cuda_device, "cuda_module", lambda: fake)
    monkeypatch.setattr(cuda_device, "is_simulator", lambda: False)


def _graph() -> gas.Graph:
    # a 3-cycle, a chain into a dangling vertex 5, a self-loop on 4, and an isolated vertex 6
    src = [0, 1, 2, 2, 3, 4, 4]
    dst = [1, 2, 0, 3, 4, 4, 5]
    return gas.Graph.from_edges(src, dst, num_vertices=7, weights=[1.0, 2.0, 0.5, 1.5, 3.0, 1.0, 2.0])


# -- item 3: the three errors -------------------------------------------------------------------


def test_missing_numba_cuda_names_the_install(no_numba_cuda):
    with pytest.raises(GasError) as exc:
        cuda_device.cuda_module()
    msg = str(exc.value)
    assert "pip install 'gaslab[cuda]'" in msg
    assert "numba-cuda[cu12]" in msg and "--device cpu" in msg and "device='cpu'" in msg
    assert cuda_device.gpu_present() is False  # never raises


def test_no_gpu_says_so_and_suggests_the_cpu(no_gpu):
    with pytest.raises(GasError) as exc:
        cuda_device.require_gpu()
    msg = str(exc.value)
    assert "No usable CUDA GPU" in msg
    assert "CUDA driver library cannot be found" in msg  # numba-cuda's own reason
    assert "--device cpu" in msg
    assert cuda_device.gpu_present() is False


def test_no_gpu_without_a_driver_error_still_explains(monkeypatch):
    fake = SimpleNamespace(is_available=lambda: False, cuda_error=lambda: None)
    monkeypatch.setattr(cuda_device, "cuda_module", lambda: fake)
    monkeypatch.setattr(cuda_device, "is_simulator", lambda: False)
    with pytest.raises(GasError, match="no device or no NVVM library"):
        cuda_device.require_gpu()


def test_simulator_needs_no_gpu():
    assert cuda_device.is_simulator()  # tests/conftest.py
    cuda_device.require_gpu()
    assert cuda_device.device_memory() is None
    cuda_device.check_fits(10**15)  # memory unknown: nothing to refuse
    assert cuda_device.gpu_present() is False  # the simulator is not a GPU


def test_graph_larger_than_free_memory_gives_gb(monkeypatch):
    monkeypatch.setattr(cuda_device, "device_memory", lambda: (1e9, 2e9))
    with pytest.raises(GasError) as exc:
        cuda_device.check_fits(1_500_000_000)
    msg = str(exc.value)
    # 1.5e9 / 1e9, 1e9 / 1e9, 2e9 / 1e9 (hand-computed, 2 decimals)
    assert "1.50 GB" in msg and "1.00 GB free" in msg and "of 2.00 GB" in msg
    assert "--procs N --device cuda" in msg and "--device cpu" in msg
    cuda_device.check_fits(1_000_000_000)  # exactly the free memory: fits
    cuda_device.check_fits(1_500_000_000 - 500_000_001)


def test_device_memory_reads_the_current_context(monkeypatch):
    ctx = SimpleNamespace(get_memory_info=lambda: (3 * 2**30, 8 * 2**30))
    fake = SimpleNamespace(is_available=lambda: True, current_context=lambda: ctx)
    monkeypatch.setattr(cuda_device, "cuda_module", lambda: fake)
    monkeypatch.setattr(cuda_device, "is_simulator", lambda: False)
    assert cuda_device.device_memory() == (3 * 2**30, 8 * 2**30)
    assert cuda_device.gpu_present() is True


# -- resolve_device and the auto rule -------------------------------------------------------------


@pytest.mark.parametrize("bad", ["gpu", "CUDA", "", None, 1])
def test_resolve_device_refuses_unknown_values(bad):
    with pytest.raises(GasError, match=r"Expected device to be one of 'cpu', 'cuda', 'auto' \(got"):
        cuda_device.resolve_device(bad, 10)


def test_auto_picks_the_gpu_only_for_big_graphs_with_a_gpu(monkeypatch):
    big = cuda_device.AUTO_MIN_EDGES
    assert cuda_device.resolve_device("cpu", big) == "cpu"
    assert cuda_device.resolve_device("cuda", 0) == "cuda"  # as asked: the engine checks
    assert cuda_device.resolve_device("auto", big) == "cpu"  # the simulator is no GPU
    monkeypatch.setattr(cuda_device, "gpu_present", lambda: True)
    assert cuda_device.resolve_device("auto", big - 1) == "cpu"
    assert cuda_device.resolve_device("auto", big) == "cuda"


def test_device_engine_refuses_what_only_the_cpu_runs(monkeypatch):
    assert cuda_device.device_engine("cpu", 5, "async") == "async"
    assert cuda_device.device_engine("cuda", 5) == "cuda"
    with pytest.raises(
        GasError, match=r"engine='async' \(--engine async\) runs on the CPU only.*--device cpu"
    ):
        cuda_device.device_engine("cuda", 5, "async")
    with pytest.raises(GasError, match="debug=True.*device='cpu'"):
        cuda_device.device_engine("cuda", 5, debug=True)
    monkeypatch.setattr(cuda_device, "gpu_present", lambda: True)
    big = cuda_device.AUTO_MIN_EDGES
    assert cuda_device.device_engine("auto", big) == "cuda"
    assert cuda_device.device_engine("auto", big, "async") == "async"  # auto stays on the CPU
    assert cuda_device.device_engine("auto", big, debug=True) == "sync"


# -- select_device ------------------------------------------------------------------------------


@pytest.fixture
def four_gpus(monkeypatch):
    chosen: list[int] = []
    fake = SimpleNamespace(is_available=lambda: True, gpus=[0, 1, 2, 3], select_device=chosen.append)
    monkeypatch.setattr(cuda_device, "cuda_module", lambda: fake)
    monkeypatch.setattr(cuda_device, "is_simulator", lambda: False)
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    return chosen


def test_select_device_rank_mod_count(four_gpus):
    assert [cuda_device.select_device(r) for r in (0, 1, 5, 7)] == [0, 1, 1, 3]
    assert four_gpus == [0, 1, 1, 3]


def test_select_device_prefers_local_rank(four_gpus, monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "2")
    assert cuda_device.select_device(5) == 2
    assert four_gpus == [2]
    monkeypatch.setenv("LOCAL_RANK", "4")
    with pytest.raises(GasError, match="LOCAL_RANK=4 but only 4 GPU"):
        cuda_device.select_device(0)
    monkeypatch.setenv("LOCAL_RANK", "x")
    with pytest.raises(GasError, match="Expected LOCAL_RANK to be a GPU index"):
        cuda_device.select_device(0)


def test_select_device_is_a_no_op_in_the_simulator(monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "3")
    assert cuda_device.select_device(5) == 0


# -- the engine raises the same errors, before copying anything ---------------------------------


def test_engine_without_numba_cuda(no_numba_cuda):
    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(GasError, match=r"pip install 'gaslab\[cuda\]'"):
        CudaEngine(g, PageRankProgram(), tuning=TINY)
    with pytest.raises(GasError, match=r"pip install 'gaslab\[cuda\]'"):
        gas.run(g, ComponentsProgram(), engine="cuda")


def test_engine_without_gpu(no_gpu):
    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(GasError, match=r"No usable CUDA GPU.*--device cpu"):
        CudaEngine(g, PageRankProgram(), tuning=TINY)
    with pytest.raises(GasError, match=r"No usable CUDA GPU.*--device cpu"):
        pagerank(g, device="cuda")


def test_engine_checks_the_fit_before_copying(monkeypatch):
    import numba.cuda

    copied: list[int] = []  # bytes of each array sent to (or allocated on) the device
    real_to_device, real_array = numba.cuda.to_device, numba.cuda.device_array

    def to_device(a, *args, **kwargs):
        copied.append(np.asarray(a).nbytes)
        return real_to_device(a, *args, **kwargs)

    def device_array(shape, dtype=np.float64, *args, **kwargs):
        copied.append(int(np.prod(shape)) * np.dtype(dtype).itemsize)
        return real_array(shape, dtype, *args, **kwargs)

    monkeypatch.setattr(numba.cuda, "to_device", to_device)
    monkeypatch.setattr(numba.cuda, "device_array", device_array)
    g = _graph()
    need = CudaEngine(g, PageRankProgram(), tuning=TINY).device_bytes
    assert need > 0 and sum(copied) > 100  # a run that fits copies its columns
    copied.clear()
    monkeypatch.setattr(cuda_device, "device_memory", lambda: (need - 1, 2e9))
    with pytest.raises(GasError) as exc:
        CudaEngine(g, PageRankProgram(), tuning=TINY)
    assert f"{need / 1e9:.2f} GB" in str(exc.value) and "of 2.00 GB" in str(exc.value)
    # refused before the graph reached the device (the kernels' one-int placeholder aside)
    assert sum(copied) <= 8
    monkeypatch.setattr(cuda_device, "device_memory", lambda: (need, 2e9))
    CudaEngine(g, PageRankProgram(), tuning=TINY)  # exactly the free memory: fits


# -- the CLI: one line, no traceback --------------------------------------------------------------


@pytest.fixture
def edge_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 0\n2 3\n")
    return str(path)


def _main(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    out, err = capsys.readouterr()
    return int(status), out, err


@pytest.mark.parametrize("command", [["pagerank"], ["cc"], ["sssp", "--source", "0"]])
def test_cli_device_cuda_without_numba_cuda(command, edge_file, capsys, no_numba_cuda):
    status, out, err = _main([command[0], edge_file, *command[1:], "--device", "cuda", "-q"], capsys)
    assert status != 0
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("gas: error:")
    assert "pip install 'gaslab[cuda]'" in lines[0]


def test_cli_device_cuda_with_async_engine(edge_file, capsys):
    status, _, err = _main(["pagerank", edge_file, "--device", "cuda", "--engine", "async", "-q"], capsys)
    assert status == 2 and "Traceback" not in err
    assert "--engine async" in err and "--device cpu" in err


def test_cli_unknown_device_is_a_usage_error(edge_file, capsys):
    status, _, err = _main(["cc", edge_file, "--device", "gpu"], capsys)
    assert status == 2 and "invalid choice: 'gpu'" in err


def test_cli_device_reaches_the_process_runs():
    import argparse

    from gas.cli.distributed import engine_choice

    # gas.cli.analytics resolves --device first; the process runs then take the CUDA engine
    assert engine_choice(argparse.Namespace(engine="sync", device="cuda")) == ("cuda", "fifo", None)
    assert engine_choice(argparse.Namespace(engine="sync", device="cpu")) == ("sync", "fifo", None)


def test_cli_cc_device_cuda_runs_in_the_simulator(edge_file, capsys, monkeypatch):
    runs = []
    real_run = CudaEngine.run
    monkeypatch.setattr(CudaEngine, "run", lambda self, *a, **k: runs.append(1) or real_run(self, *a, **k))
    status, out, err = _main(["cc", edge_file, "--device", "cuda", "-q"], capsys)
    assert status == 0, err
    assert runs == [1]  # on the CUDA engine
    assert out == "components\t1\nlargest\t4\n"  # 0-1-2 cycle and 2->3: one component of 4


def test_cli_procs_device_cuda_gives_each_rank_a_gpu(edge_file, capsys, monkeypatch):
    chosen = []
    real_select = cuda_device.select_device
    monkeypatch.setattr(cuda_device, "select_device", lambda rank=0: chosen.append(rank) or real_select(rank))
    status, out, err = _main(["cc", edge_file, "--procs", "2", "--device", "cuda", "-q"], capsys)
    assert status == 0, err
    assert out == "components\t1\nlargest\t4\n"
    assert chosen == [0]  # rank 0 (this process) took a device; rank 1 is a spawned worker


def test_cli_help_documents_auto(capsys):
    status, out, _ = _main(["pagerank", "--help"], capsys)
    assert status == 0
    text = " ".join(out.split())
    assert "--device {cpu,cuda,auto}" in text and "2,000,000 edges" in text


# -- end to end in the simulator: same answers as the CPU ----------------------------------------


def test_pagerank_device_cuda_equals_cpu():
    # the simulator's default tuning is gas.cuda_tuning.SIMULATOR (one warp per block)
    g = _graph()
    cpu, rc = pagerank(g, tol=1e-10, return_result=True)
    gpu, rg = pagerank(g, tol=1e-10, return_result=True, device="cuda")
    assert np.abs(gpu - cpu).sum() <= 1e-12
    assert rg.iterations == rc.iterations
    assert "bins" in rg.stats[0] and "bins" not in rc.stats[0]  # it did run on the CUDA engine
    auto, ra = pagerank(g, tol=1e-10, return_result=True, device="auto")
    assert "bins" not in ra.stats[0]  # 7 edges: auto stays on the CPU
    w_cpu = pagerank(g, tol=1e-10, weight="weight")
    w_gpu = pagerank(g, tol=1e-10, weight="weight", device="cuda")
    assert np.abs(w_gpu - w_cpu).sum() <= 1e-12
    assert np.abs(w_gpu - gpu).sum() > 1e-3  # the weights reached the device


def test_components_and_sssp_device_cuda_equal_cpu():
    g = _graph()
    # weak components, hand-computed: {0..5} and the isolated 6
    assert connected_components(g, device="cuda").tolist() == [0, 0, 0, 0, 0, 0, 6]
    assert connected_components(g).tolist() == [0, 0, 0, 0, 0, 0, 6]
    # from 0 by weight: 0->1 1, 1->2 2 (3), 2->3 1.5 (4.5), 3->4 3 (7.5), 4->5 2 (9.5); 6 unreachable
    expect = [0.0, 1.0, 3.0, 4.5, 7.5, 9.5, np.inf]
    assert sssp(g, 0, device="cuda").tolist() == expect == sssp(g, 0).tolist()
    assert sssp(g, 0, weight=None, device="cuda").tolist() == [0, 1, 2, 3, 4, 5, np.inf]
    with pytest.raises(GasError, match="--device cpu"):
        sssp(g, 0, device="cuda", engine="async")
