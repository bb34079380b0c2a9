"""gaslab: a Gather-Apply-Scatter graph engine in Python, compiled with Numba.

The public surface: :class:`Graph` and its loaders, :class:`VertexProgram` with the edge
directions ``IN``/``OUT``/``ALL``/``NONE`` and its analysis :class:`ProgramSpec`, the one entry
point :func:`run` with its :class:`RunOptions`, the engine family (:class:`Engine`,
:class:`SyncEngine`, :class:`AsyncEngine`), the bundled algorithms in :mod:`gas.algorithms`, and
the errors. docs/DESIGN.md says how the pieces fit.
"""

import importlib as _importlib
import os as _os

# Numba's OpenMP workers spin while waiting; when other processes share the cores (local worker
# processes, a busy laptop, CI) that spinning costs 1.5-4x (figures: bench/RESULTS.md, "Figures
# formerly in docstrings"). Passive waiting avoids it; a user's setting wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

# The public names, imported when first used (PEP 562): ``import gas`` stays light (no Numba
# start-up until an engine, a graph or an algorithm is touched), so that modules under ``gas``
# that need nothing heavy, such as networkx's backend entry point (gas.nx_backend_info), can be
# imported cheaply.
_EXPORTS = {
    "run": "gas.api",
    "AsyncEngine": "gas.async_engine",
    "CudaEngine": "gas.cuda_engine",
    "CudaTuning": "gas.cuda_tuning",
    "RunResult": "gas.engine",
    "SyncEngine": "gas.engine",
    "Engine": "gas.engine_base",
    "ConvergenceError": "gas.errors",
    "GasError": "gas.errors",
    "GraphError": "gas.errors",
    "InputError": "gas.errors",
    "ProgramError": "gas.errors",
    "Graph": "gas.graph",
    "load": "gas.io",
    "save": "gas.io",
    "RunOptions": "gas.options",
    "ALL": "gas.program",
    "IN": "gas.program",
    "NONE": "gas.program",
    "OUT": "gas.program",
    "EdgeDir": "gas.program",
    "VertexProgram": "gas.program",
    "ProgramSpec": "gas.program_spec",
    "Slots": "gas.program_spec",
    "count_common": "gas.setops",
}
_SUBPACKAGES = ("algorithms", "io")


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(_importlib.import_module(module), name)
    elif name in _SUBPACKAGES:
        value = _importlib.import_module(f"gas.{name}")
    else:
        raise AttributeError(f"module 'gas' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "ALL",
    "AsyncEngine",
    "CudaEngine",
    "CudaTuning",
    "Engine",
    "ConvergenceError",
    "IN",
    "NONE",
    "OUT",
    "EdgeDir",
    "GasError",
    "Graph",
    "GraphError",
    "InputError",
    "ProgramError",
    "ProgramSpec",
    "RunOptions",
    "RunResult",
    "SyncEngine",
    "VertexProgram",
    "Slots",
    "count_common",
    "__version__",
    "algorithms",
    "io",
    "load",
    "save",
    "run",
]
