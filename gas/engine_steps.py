"""Inner steps of a synchronous superstep (``VertexProgram.inner_steps``).

A program with ``inner_steps = s`` runs ``s`` rounds of gather and apply in each superstep of
the synchronous engine, then one scatter: each round's gathers see the previous round's applies,
as ``s`` supersteps without a scatter in between would. ALS's conjugate-gradient half-step is the
example: the first round gathers the residual, each later one gathers ``A p`` for the search
direction ``p`` and takes one CG step.

When no active vertex gathers from another active vertex (one side of a bipartite graph, say),
a round's gather reads only the vertex itself and neighbours that do not change during the
superstep. The engine then runs each vertex's rounds back to back (``k_gather_apply_steps``), while
the rows its gathers read are still in cache, and gets what the separate rounds get.
:func:`gathers_from_active` is the check, made every superstep (a byte read per gather edge of
the active vertices); when it fails, or on several processes, the rounds run one pass each.

A program's ``fastmath = True`` (or a subset of ``{"reassoc", "contract"}``) lets its kernels
reorder floating-point sums and fuse multiplies with adds, so that a loop such as a dot product
runs in vector registers; results change in the last bits and stay the same from run to run.
Values are never assumed finite: NaN and infinity checks keep working. ALS's CG program sets it.

Examples
--------
>>> import numpy as np
>>> chunks = np.array([0, 3])  # one range: the path 0 -> 1 -> 2, gathering over in-edges
>>> out_indptr, dst = np.array([0, 1, 2, 2]), np.array([1, 2])
>>> in_indptr, in_src = np.array([0, 0, 1, 2]), np.array([0, 1])
>>> args = (out_indptr, dst, in_indptr, in_src, True, False)
>>> gathers_from_active(chunks, np.array([1, 0, 1], np.uint8), *args)  # 1 is not active
0
>>> gathers_from_active(chunks, np.array([0, 1, 1], np.uint8), *args)  # 2 gathers from 1
1
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["gathers_from_active", "check_inner_steps"]


@njit(parallel=True, cache=True)
def gathers_from_active(
    chunks: np.ndarray,
    active: np.ndarray,
    out_indptr: np.ndarray,
    dst: np.ndarray,
    in_indptr: np.ndarray,
    in_src: np.ndarray,
    gather_in: bool,
    gather_out: bool,
) -> int:
    """How many active vertices have an active gather neighbour other than themselves (a
    self-loop reads the vertex's own data, which its earlier rounds changed either way)."""
    nch = chunks.shape[0] - 1
    found = np.zeros(max(nch, 1), np.int64)
    for c in prange(nch):
        hits = 0
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                bad = False
                if gather_in:
                    for k in range(in_indptr[v], in_indptr[v + 1]):
                        u = in_src[k]
                        bad |= (active[u] != 0) & (u != v)
                if gather_out:
                    for e in range(out_indptr[v], out_indptr[v + 1]):
                        u = dst[e]
                        bad |= (active[u] != 0) & (u != v)
                hits += bad
        found[c] = hits
    return found.sum()


def check_inner_steps(program: object, engine: str, runs_them: bool) -> int:
    """The program's ``inner_steps`` (a whole number >= 1), or :class:`gas.ProgramError` when
    it is not one, or is above 1 on an engine that does not run them (``runs_them`` False).

    Examples
    --------
    >>> class P:
    ...     inner_steps = 3
    >>> check_inner_steps(P(), "sync", True)
    3
    """
    from gas.errors import ProgramError

    steps = getattr(program, "inner_steps", 1)
    name = type(program).__name__
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ProgramError(f"Expected {name}.inner_steps to be a whole number >= 1 (got {steps!r})")
    if steps != 1 and not runs_them:
        raise ProgramError(
            f"{name} sets inner_steps = {steps}, which the {engine} engine does not run. Fix: run it "
            f"on the synchronous engine (engine='sync'), or set inner_steps = 1 and count the rounds "
            f"in supersteps"
        )
    return int(steps)
