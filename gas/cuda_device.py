"""The GPU a run uses: is numba-cuda there, is a GPU usable, does the graph fit, which device.

Every question about the device goes through this module, so that the errors of a run that
cannot use the GPU are the same everywhere (library, CLI, workers) and say how to fix it:

- numba-cuda missing: :func:`cuda_module` names ``pip install 'gaslab[cuda]'``;
- no GPU or no driver: :func:`require_gpu` says so (with numba-cuda's reason) and suggests
  ``--device cpu``;
- a graph larger than the free device memory: :func:`check_fits`, called with the engine's
  estimate before anything is copied, gives the need and the free memory in GB.

:func:`resolve_device` turns ``"cpu"``/``"cuda"``/``"auto"`` into the device a bundled
algorithm runs on. Nothing here imports ``numba.cuda`` at module import: it is imported inside
the functions, after ``NUMBA_ENABLE_CUDASIM`` has had its chance to be set. The engine calls the
functions through the module (``cuda_device.check_fits(n)``), so tests can monkeypatch any one.

Examples
--------
>>> resolve_device("cpu", 10)
'cpu'
>>> resolve_device("auto", 1000)  # a small graph stays on the CPU, GPU or not
'cpu'
>>> AUTO_MIN_EDGES
2000000
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from typing import Any

import numpy as np
from numba.core import types as nbtypes
from numba.np import numpy_support

from gas.errors import GasError

__all__ = [
    "AUTO_MIN_EDGES",
    "DEVICES",
    "cuda_module",
    "is_simulator",
    "require_gpu",
    "device_memory",
    "check_fits",
    "select_device",
    "gpu_present",
    "resolve_device",
    "device_engine",
]

#: The values of ``device=`` / ``--device``.
DEVICES = ("cpu", "cuda", "auto")

#: The edge count from which ``device="auto"`` picks the GPU (when one is usable). Below it a
#: superstep on the CPU takes about a millisecond, so copying the graph to the device, compiling
#: the kernels and the few launches per superstep (each ~5-10 us, plus a scalar copy back)
#: cost more than the GPU saves; only from a few million edges does the bandwidth win dominate.
AUTO_MIN_EDGES = 2_000_000

_INSTALL = (
    "install the CUDA extra: pip install 'gaslab[cuda]' (and, for the GPU libraries, "
    "pip install 'numba-cuda[cu12]' or a system CUDA toolkit)"
)
_CPU_HINT = "or run on the CPU: --device cpu (library: device='cpu')"


def cuda_module() -> Any:
    """The ``numba.cuda`` module of the ``numba-cuda`` package.

    numba 0.68's own deprecated ``numba.cuda`` does not count: the engine needs numba-cuda.
    Under ``NUMBA_ENABLE_CUDASIM=1`` this is numba-cuda's simulator.

    Returns
    -------
    module
        ``numba.cuda``.

    Raises
    ------
    GasError
        numba-cuda is not installed (or fails to import); the message names the install.

    Examples
    --------
    >>> cuda_module().__name__
    'numba.cuda'
    """
    if importlib.util.find_spec("numba_cuda") is None:
        raise GasError(
            f"The CUDA engine needs the numba-cuda package, which is not installed: {_INSTALL}; {_CPU_HINT}"
        )
    try:
        from numba import cuda
    except ImportError as exc:  # a broken install (say, cuda-bindings missing)
        raise GasError(
            f"numba-cuda is installed but does not import ({exc}): {_INSTALL}; {_CPU_HINT}"
        ) from exc
    if is_simulator():
        _lock_simulator_shared_memory()
    return cuda


_SHARED_LOCK = threading.Lock()


def _lock_simulator_shared_memory() -> None:
    """Make the simulator's ``cuda.shared.array`` safe when a block's threads first reach it
    together. numba-cuda 0.30's simulator looks the array up by the calling line and creates
    it if missing without a lock, so two threads of one block can each create their own and
    a block reduction then reads an array the others never wrote (seen here once: a wrong
    PageRank on a hub graph in a full test run under load, and an integer overflow from an
    uninitialised scan array; 40 isolated repeats did not reproduce it). Same behaviour, with
    the lookup and creation under a lock; a GPU is not affected."""
    from numba.cuda.simulator import kernelapi

    shared = kernelapi.FakeCUDAShared
    if getattr(shared, "_gas_locked", False):
        return
    unlocked = shared.array

    def array(self: Any, shape: Any, dtype: Any, alignment: Any = None) -> Any:
        if alignment is not None or shape == 0:  # errors and dynamic memory: as before
            return unlocked(self, shape, dtype, alignment)
        if isinstance(dtype, nbtypes.Type):
            dtype = numpy_support.as_dtype(dtype)
        frame = sys._getframe(1)
        key = (frame.f_code.co_filename, frame.f_lineno)
        with _SHARED_LOCK:
            arr = self._allocations.get(key)
            if arr is None:
                arr = self._allocations[key] = np.empty(shape, dtype)
        return arr

    shared.array = array
    shared._gas_locked = True


def is_simulator() -> bool:
    """True when numba runs CUDA kernels in its simulator (``NUMBA_ENABLE_CUDASIM=1``).

    Examples
    --------
    >>> import os
    >>> is_simulator() == (os.environ.get("NUMBA_ENABLE_CUDASIM") == "1")
    True
    """
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def _unavailable_reason(cuda: Any) -> str:
    """Why numba-cuda sees no usable GPU, as far as it can be had without side effects."""
    try:
        err = cuda.cuda_error()
    except Exception as exc:  # noqa: BLE001 - only a description is wanted
        err = exc
    if err is not None:
        text = " ".join(str(err).split())
        return text or type(err).__name__
    return "the CUDA driver loaded, but no device or no NVVM library (CUDA toolkit) was found"


def require_gpu() -> None:
    """Raise :class:`GasError` when no GPU (or no driver) is usable; nothing in the simulator.

    Raises
    ------
    GasError
        numba-cuda is missing (see :func:`cuda_module`), or it finds no usable GPU; the message
        gives numba-cuda's reason and suggests ``--device cpu``.

    Examples
    --------
    >>> require_gpu() if is_simulator() else None
    """
    cuda = cuda_module()
    if is_simulator():
        return
    if not cuda.is_available():
        raise GasError(
            "No usable CUDA GPU: numba-cuda found no GPU or no NVIDIA driver "
            f"({_unavailable_reason(cuda)}). Run on the CPU: --device cpu (library: device='cpu')"
        )


def device_memory() -> tuple[int, int] | None:
    """The current device's free and total memory in bytes; None in the simulator.

    Returns
    -------
    tuple of int or None
        ``(free, total)`` from the CUDA driver, or None when it cannot be known (simulator).

    Raises
    ------
    GasError
        numba-cuda is missing or no GPU is usable (see :func:`require_gpu`).

    Examples
    --------
    >>> device_memory() if is_simulator() else None
    """
    if is_simulator():
        return None
    cuda = cuda_module()
    require_gpu()
    free, total = cuda.current_context().get_memory_info()
    return int(free), int(total)


def _gb(nbytes: float) -> str:
    return f"{nbytes / 1e9:.2f} GB"


def check_fits(need_bytes: int, what: str = "the graph") -> None:
    """Refuse a run whose estimated device memory exceeds the device's free memory.

    Parameters
    ----------
    need_bytes : int
        The estimate (the CUDA engine's ``device_bytes``: columns, topology, work buffers).
    what : str, default "the graph"
        What needs the memory, for the message.

    Raises
    ------
    GasError
        ``need_bytes`` exceeds the free memory; the message gives both (and the total) in GB
        (10^9 bytes) and suggests several GPUs (``--procs N --device cuda``) or the CPU.

    Examples
    --------
    >>> check_fits(1000) if is_simulator() else None  # the simulator's memory is unknown: no check
    """
    mem = device_memory()
    if mem is None:
        return
    free, total = mem
    if need_bytes > free:
        raise GasError(
            f"{what} needs about {_gb(need_bytes)} of GPU memory, but the device has only "
            f"{_gb(free)} free (of {_gb(total)}). Spread it over several GPUs with "
            "--procs N --device cuda (library: procs=N), or run on the CPU: --device cpu "
            "(library: device='cpu')"
        )


def select_device(rank: int = 0) -> int:
    """Pick (and make current) the GPU a rank uses.

    ``LOCAL_RANK`` (set by torchrun-style and some MPI launchers) when it is set, else ``rank``
    modulo the number of visible devices. ``CUDA_VISIBLE_DEVICES`` is applied by the driver
    itself: the index is among the visible devices.

    Parameters
    ----------
    rank : int, default 0
        The process's rank in the run.

    Returns
    -------
    int
        The device index; 0 in the simulator (which has one device and nothing to select).

    Raises
    ------
    GasError
        No GPU is usable, or ``LOCAL_RANK`` is not an index of a visible device.

    Examples
    --------
    >>> select_device(3) if is_simulator() else 0
    0
    """
    cuda = cuda_module()
    if is_simulator():
        return 0
    require_gpu()
    count = len(cuda.gpus)
    local = os.environ.get("LOCAL_RANK", "").strip()
    if local:
        try:
            index = int(local)
        except ValueError:
            raise GasError(f"Expected LOCAL_RANK to be a GPU index (got {local!r})") from None
        if not 0 <= index < count:
            raise GasError(
                f"LOCAL_RANK={index} but only {count} GPU(s) are visible; start at most {count} "
                "ranks per host, or unset LOCAL_RANK to use rank mod the device count"
            )
    else:
        index = rank % count if count else 0
    cuda.select_device(index)
    return index


def gpu_present() -> bool:
    """True when numba-cuda is installed, is not the simulator, and sees a usable GPU.

    Never raises (any failure means no GPU).

    Examples
    --------
    >>> isinstance(gpu_present(), bool)
    True
    """
    try:
        cuda = cuda_module()
        return not is_simulator() and bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - "no GPU" whatever went wrong
        return False


def resolve_device(device: str, num_edges: int) -> str:
    """The device (``"cpu"`` or ``"cuda"``) a run with ``device=`` uses.

    Parameters
    ----------
    device : {"cpu", "cuda", "auto"}
        ``"auto"`` picks ``"cuda"`` when :func:`gpu_present` and the graph has at least
        :data:`AUTO_MIN_EDGES` edges, else ``"cpu"``. ``"cuda"`` is returned as it is: the
        engine raises the precise error when it cannot run.
    num_edges : int
        The graph's edge count.

    Returns
    -------
    str
        ``"cpu"`` or ``"cuda"``.

    Raises
    ------
    GasError
        ``device`` is not one of the three values.

    Examples
    --------
    >>> resolve_device("cuda", 5)
    'cuda'
    >>> resolve_device("gpu", 5)
    Traceback (most recent call last):
    ...
    gas.errors.GasError: Expected device to be one of 'cpu', 'cuda', 'auto' (got 'gpu')
    """
    if not isinstance(device, str) or device not in DEVICES:
        raise GasError(f"Expected device to be one of 'cpu', 'cuda', 'auto' (got {device!r})")
    if device != "auto":
        return device
    return "cuda" if num_edges >= AUTO_MIN_EDGES and gpu_present() else "cpu"


def device_engine(device: str, num_edges: int, engine: str = "sync", *, debug: bool = False) -> str:
    """The engine a bundled algorithm runs with, given its ``device=`` and ``engine=``.

    The GPU runs the synchronous engine's supersteps (:class:`gas.cuda_engine.CudaEngine`), so
    ``device="cuda"`` takes ``engine="sync"`` (turned into ``"cuda"``) and no ``debug``;
    ``device="auto"`` stays on the CPU when those ask for it.

    Parameters
    ----------
    device : {"cpu", "cuda", "auto"}
        As :func:`resolve_device`.
    num_edges : int
        The graph's edge count (for ``"auto"``).
    engine : str, default "sync"
        The algorithm's ``engine=``.
    debug : bool, default False
        The algorithm's ``debug=`` (plain Python: the CPU only).

    Returns
    -------
    str
        ``engine`` on the CPU, ``"cuda"`` on the GPU.

    Raises
    ------
    GasError
        A bad ``device``, or ``device="cuda"`` with an option only the CPU runs (naming it).

    Examples
    --------
    >>> device_engine("cpu", 10, "async")
    'async'
    >>> device_engine("cuda", 10)
    'cuda'
    >>> device_engine("cuda", 10, "async")
    Traceback (most recent call last):
    ...
    gas.errors.GasError: engine='async' (--engine async) runs on the CPU only; ...
    """
    where = resolve_device(device, num_edges)
    if device == "auto" and (engine != "sync" or debug):
        where = "cpu"
    if where == "cpu":
        return engine
    if engine != "sync":
        raise GasError(
            f"engine={engine!r} (--engine {engine}) runs on the CPU only; the GPU runs the "
            "synchronous engine's supersteps: drop it, or pass device='cpu' (--device cpu)"
        )
    if debug:
        raise GasError("debug=True runs the program as plain Python on the CPU: pass device='cpu' with it")
    return "cuda"
