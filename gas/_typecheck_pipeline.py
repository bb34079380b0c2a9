"""Numba's nopython pipeline cut after type inference, for :mod:`gas._typecheck`.

A vertex program's methods are inlined into the kernels and compiled there; checking each one
alone only needs its types (every typing error, and the return type), so this pipeline stops
before the typed optimisations and the lowering to machine code. It uses Numba's compiler
internals (written against Numba 0.68); :mod:`gas._typecheck` falls back to compiling the
method whole if this module cannot be imported or called.
"""

from __future__ import annotations

from typing import Any

from numba.core import compiler
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import AnalysisPass, PassManager, register_pass
from numba.core.registry import cpu_target
from numba.core.typed_passes import (
    IRLegalization,
    NoPythonSupportedFeatureValidation,
    NopythonTypeInference,
    PreLowerStripPhis,
)

__all__ = ["return_type"]


@register_pass(mutates_CFG=False, analysis_only=True)
class _ReturnType(AnalysisPass):
    """The last pass of :class:`_TypeOnly`: the typed method's return type becomes the
    pipeline's result (in place of a compiled function)."""

    _name = "gas_return_type"

    def __init__(self) -> None:
        AnalysisPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        state.cr = state.return_type
        return False


class _TypeOnly(compiler.CompilerBase):
    """Numba's nopython pipeline without its optimisations and lowering: the untyped passes,
    type inference (every typing error, and the return type) and the checks of the IR that
    precede lowering. The typed optimisations are left out: inlining the inlined overloads (the
    bounds checks) types each one again per call site, and rewrites only matter to machine code."""

    def define_pipelines(self) -> list:
        pm = PassManager("gas_typecheck")
        pm.passes.extend(compiler.DefaultPassBuilder.define_untyped_pipeline(self.state).passes)
        pm.add_pass(NopythonTypeInference, "nopython frontend")
        pm.add_pass(PreLowerStripPhis, "remove phis nodes")
        pm.add_pass(NoPythonSupportedFeatureValidation, "ensure features that are in use are valid")
        pm.add_pass(IRLegalization, "ensure IR is legal prior to lowering")
        pm.add_pass(_ReturnType, "the return type, not machine code")
        pm.finalize()
        return [pm]


def return_type(fn: Any, argtypes: tuple) -> Any:
    """The return type ``fn`` has for ``argtypes`` in nopython mode (a NumbaError if it does
    not type): what ``numba.njit(fn).compile(argtypes)`` finds, without lowering.

    Examples
    --------
    >>> from numba.core import types
    >>> return_type(lambda x: x * 2.0, (types.int64,))
    float64
    """
    flags = compiler.Flags()
    cpu_target.options.parse_as_flags(flags, {"nopython": True})
    with global_compiler_lock:
        return compiler.compile_extra(
            cpu_target.typing_context,
            cpu_target.target_context,
            fn,
            args=argtypes,
            return_type=None,
            flags=flags,
            locals={},
            pipeline_class=_TypeOnly,
        )
