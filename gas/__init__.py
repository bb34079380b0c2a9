"""gaslab: a Gather-Apply-Scatter graph engine in Python, compiled with Numba.

The public surface: :class:`Graph` and its loaders, :class:`VertexProgram` with the edge
directions ``IN``/``OUT``/``ALL``/``NONE``, :func:`run` / :class:`SyncEngine`, the bundled
algorithms in :mod:`gas.algorithms`, and the errors.
"""

import os as _os

# Numba's OpenMP workers spin while waiting; when other processes share the cores (local worker
# processes, a busy laptop, CI) that spinning costs 1.5-4x (measured: 32 vs 22 ms per PageRank
# iteration on R-MAT-19 with one core busy). Passive waiting avoids it; a user's setting wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from gas.async_engine import AsyncEngine  # noqa: E402
from gas.engine import RunResult, SyncEngine, run  # noqa: E402  (after the environment default)
from gas.errors import ConvergenceError, GasError, GraphError, InputError, ProgramError  # noqa: E402
from gas.graph import Graph  # noqa: E402
from gas.io import load, save  # noqa: E402
from gas.program import ALL, IN, NONE, OUT, EdgeDir, VertexProgram  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "ALL",
    "AsyncEngine",
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
    "RunResult",
    "SyncEngine",
    "VertexProgram",
    "__version__",
    "algorithms",
    "io",
    "load",
    "save",
    "run",
]

from gas import algorithms, io  # noqa: E402  (after the core names it imports)
