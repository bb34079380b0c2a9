"""gaslab: a Gather-Apply-Scatter graph engine in Python, compiled with Numba."""

from gas.errors import GasError, GraphError, InputError, ProgramError
from gas.graph import Graph

__version__ = "0.1.0"
__all__ = ["GasError", "GraphError", "InputError", "ProgramError", "Graph", "__version__"]
