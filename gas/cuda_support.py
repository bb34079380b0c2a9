"""What a vertex program may use to run on the CUDA engine, checked when the engine is built.

The GPU runs the same rewritten methods as the CPU engine, as CUDA device functions. Device code
has no heap and no Python objects, so a method that allocates an array (``np.zeros``, a list or
dict), raises, or catches is refused, as is an array ``gather_type`` (its total is a per-vertex
array the GPU's block reductions do not fold) and a program that writes its neighbours (which
needs the asynchronous engine's ``full`` consistency). The refusal names the method, the line
and the feature, and suggests the CPU engine.

Examples
--------
>>> import numpy as np, gas
>>> class Bad(gas.VertexProgram):
...     vertex_data = {"x": np.float64}
...     def apply(self, v, total, ctx):
...         tmp = np.zeros(3)
...         v.x = tmp[0]
>>> unsupported(Bad())
['apply, line 4: np.zeros allocates an array']
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from gas._rewrite import parse_source
from gas.errors import ProgramError
from gas.program import BoundProgram
from gas.program_spec import METHODS, overridden

__all__ = ["unsupported", "check_gpu_program"]

# numpy functions that allocate (device code has no heap)
_ALLOCATORS = frozenset(
    "zeros empty ones full array asarray arange linspace zeros_like empty_like ones_like full_like "
    "copy concatenate stack hstack vstack sort argsort unique cumsum dot matmul outer where".split()
)
_NODES = {
    ast.List: "a list",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.ListComp: "a list comprehension",
    ast.DictComp: "a dict comprehension",
    ast.SetComp: "a set comprehension",
    ast.GeneratorExp: "a generator",
    ast.Try: "try/except",
    ast.Raise: "raise",
    ast.With: "a with block",
    ast.Yield: "yield",
    ast.JoinedStr: "an f-string",
}


def _feature(node: ast.AST) -> str | None:
    """What in ``node`` device code cannot run, or None."""
    for kind, what in _NODES.items():
        if isinstance(node, kind):
            return what
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        base = node.func.value
        if isinstance(base, ast.Name) and base.id in ("np", "numpy") and node.func.attr in _ALLOCATORS:
            return f"np.{node.func.attr} allocates an array"
        if node.func.attr == "copy" and not node.args:
            return ".copy() allocates an array"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return "@ (matrix product) allocates an array"
    return None


def unsupported(program: Any) -> list[str]:
    """``"method, line N: feature"`` for each use of a feature device code cannot run, in the
    methods ``program`` defines (empty when it can run on the GPU)."""
    found = []
    for name in METHODS:
        fn = overridden(program, name)
        if fn is None:
            continue
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            continue  # no source: the rewrite already required it
        tree = parse_source(textwrap.dedent("".join(lines)))
        for node in ast.walk(tree.body[0]):
            what = _feature(node)
            if what is not None:
                line = first + getattr(node, "lineno", 1) - 1
                found.append(f"{name}, line {line}: {what}")
    return found


def check_gpu_program(spec: BoundProgram) -> None:
    """Raise :class:`gas.ProgramError` when ``spec``'s program uses what the CUDA engine cannot
    run (see the module docstring)."""
    name = spec.name
    hint = "Fix: run it on the CPU (engine='sync' or 'async', --device cpu)"
    if spec.gather_shape:
        raise ProgramError(
            f"{name}.gather: an array gather_type {spec.gather_shape} is not supported on the CUDA "
            f"engine (its block reductions fold numbers). {hint}"
        )
    if spec.consistency_needed == "full":
        raise ProgramError(
            f"{name} writes neighbour data ({', '.join(spec.write_sites('nbr'))}), which the "
            f"CUDA engine (bulk-synchronous) cannot order. {hint} with consistency='full'"
        )
    if spec.gather_slots:
        raise ProgramError(
            f"{name}.gather: gas.Slots gather values are not supported on the CUDA engine yet. {hint}"
        )
    if {"nbrs", "has_nbr"} & spec.spec.names_in():
        raise ProgramError(
            f"{name} reads neighbour lists (v.nbrs), which the CUDA engine does not provide yet. {hint}"
        )
    if spec.spec.atomic_calls:
        raise ProgramError(
            f"{name}.scatter changes its neighbours with atomic calls (X.fetch_add, X.compare_swap), "
            f"which the CUDA engine does not run yet. {hint}"
        )
    bad = unsupported(spec.program)
    if bad:
        raise ProgramError(
            f"{name} uses what CUDA device code cannot run: {'; '.join(bad)}. {hint}, or write the "
            "method with scalar locals and the declared fields only"
        )
