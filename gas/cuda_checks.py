"""The bounds checks of a checked build (:mod:`gas._boundscheck`) for the CUDA target.

The CPU kernels inline the checks at Numba IR level (``inline="always"`` overloads); numba-cuda
cannot inline a core-Numba overload's IR (its IR classes differ: the compile fails), so the
CUDA target gets the same implementations as ordinary device-function overloads, which NVVM
inlines itself. Registering them for ``target="cuda"`` makes CUDA kernels pick them over the
generic inlined ones; the CPU is unaffected. Importing this module imports ``numba.cuda``: the
CUDA codegen does, once numba-cuda is known to be installed.

Examples
--------
>>> from gas.cuda_checks import REGISTERED
>>> sorted(f.__name__ for f in REGISTERED)
['check_fixed', 'check_index', 'check_range', 'extent']
"""

from __future__ import annotations

import numba.cuda  # noqa: F401  (registers the "cuda" target the overloads below name)
from numba.extending import overload

from gas import _boundscheck as bc

__all__ = ["REGISTERED"]

#: the checks with a CUDA overload (same typing and implementation as the CPU's)
REGISTERED = (bc.check_index, bc.check_range, bc.check_fixed, bc.extent)

overload(bc.check_index, target="cuda", prefer_literal=True)(bc._check_index_jit)
overload(bc.check_range, target="cuda")(bc._check_range_jit)
overload(bc.check_fixed, target="cuda")(bc._check_fixed_jit)
overload(bc.extent, target="cuda", prefer_literal=True)(bc._extent_jit)
