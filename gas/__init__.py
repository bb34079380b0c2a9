"""gaslab: a Gather-Apply-Scatter graph engine in Python, compiled with Numba.

The public surface: :class:`Graph` and its loaders, :class:`VertexProgram` with the edge
directions ``IN``/``OUT``/``ALL``/``NONE``, :func:`run` / :class:`SyncEngine`, the bundled
algorithms in :mod:`gas.algorithms`, and the errors.
"""

from gas.engine import RunResult, SyncEngine, run
from gas.errors import GasError, GraphError, InputError, ProgramError
from gas.graph import Graph
from gas.io import load, save
from gas.program import ALL, IN, NONE, OUT, EdgeDir, VertexProgram

__version__ = "0.1.0"

__all__ = [
    "ALL",
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
