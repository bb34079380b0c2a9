"""gaslab: a Gather-Apply-Scatter graph engine in Python, compiled with Numba.

The public surface: :class:`Graph` and its loaders, :class:`VertexProgram` with the edge
directions ``IN``/``OUT``/``ALL``/``NONE`` and its analysis :class:`ProgramSpec`, the one entry
point :func:`run` with its :class:`RunOptions`, the engine family (:class:`Engine`,
:class:`SyncEngine`, :class:`AsyncEngine`), the bundled algorithms in :mod:`gas.algorithms`, and
the errors. docs/DESIGN.md says how the pieces fit.
"""

import os as _os

# Numba's OpenMP workers spin while waiting; when other processes share the cores (local worker
# processes, a busy laptop, CI) that spinning costs 1.5-4x (figures: bench/RESULTS.md, "Figures
# formerly in docstrings"). Passive waiting avoids it; a user's setting wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from gas.api import run  # noqa: E402  (after the environment default)
from gas.async_engine import AsyncEngine  # noqa: E402
from gas.cuda_engine import CudaEngine  # noqa: E402
from gas.cuda_tuning import CudaTuning  # noqa: E402
from gas.engine import RunResult, SyncEngine  # noqa: E402
from gas.engine_base import Engine  # noqa: E402
from gas.errors import ConvergenceError, GasError, GraphError, InputError, ProgramError  # noqa: E402
from gas.graph import Graph  # noqa: E402
from gas.io import load, save  # noqa: E402
from gas.options import RunOptions  # noqa: E402
from gas.program import ALL, IN, NONE, OUT, EdgeDir, VertexProgram  # noqa: E402
from gas.program_spec import ProgramSpec, Slots  # noqa: E402
from gas.setops import count_common  # noqa: E402

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

from gas import algorithms, io  # noqa: E402  (after the core names it imports)
