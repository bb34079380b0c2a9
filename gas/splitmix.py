"""SplitMix64's constants and output function, shared by every seeded hash and random stream.

The partitioners' vertex hashes, ALS's per-vertex starting vectors, LDA's per-document random
streams and the moving straggler's draws all mix 64-bit words with the SplitMix64 finaliser (a
bijection with good avalanche). All arithmetic is in ``uint64`` (wrapping), so Numba never
promotes a mixed signed/unsigned expression to ``float64``.

Examples
--------
>>> import numpy as np
>>> int(finalize64(np.uint64(1))) == int(finalize64(np.array([1], np.uint64))[0])
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["GOLDEN", "M1", "M2", "finalize64"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


@njit(cache=True, inline="always")
def finalize64(z):
    """SplitMix64's output function of ``z`` (a ``uint64`` scalar or array)."""
    z = (z ^ (z >> _S30)) * M1
    z = (z ^ (z >> _S27)) * M2
    return z ^ (z >> _S31)
