"""Conjugate-gradient kernels of ALS (:class:`gas.algorithms.als.ALSCGProgram`).

A vertex's ridge regression ``(A + lam I) w = rhs``, with ``A = sum f f^T`` and ``rhs = sum t f``
over its ratings (feature ``f``, target ``t``; see :mod:`gas.algorithms.als`), is solved by
conjugate gradients without forming ``A``: each pass over the ratings (the program's ``gather``)
adds ``f (f . p)`` for the current direction ``p``, ``O(k)`` per rating, and :func:`_cg_step`
takes one step from the pass's total. The first pass of a solve gathers the residual
``f (t - f . w)`` at the vertex's current factors instead (warm start); the last step of a solve
leaves ``p = w``, so every pass reads ``p``.
"""

from __future__ import annotations

from numba import njit

__all__: list[str] = []


@njit(cache=True)
def _cg_step(w, r, p, state, total, d, lam, first, last=False):
    """One conjugate-gradient step on ``(A + lam I) w = rhs`` from a pass's ``total``.

    ``state`` holds ``[r . r, lam, steps left]`` (the last set by the caller). First pass:
    ``total[0]`` is ``rhs - A w``, so ``r = total[0] - lam w`` and ``p = r``; no step is taken.
    Later passes: ``total[0]`` is ``A p``; step ``w += alpha p`` along ``p`` (exact line
    search), then the next ``r`` and ``p`` (Fletcher-Reeves). A zero residual or a
    non-positive curvature (``lam = 0`` and too few ratings) takes no step. ``last``: the
    solve's last step, which leaves ``p = w`` for the next solve's first pass."""
    if first:
        rr = 0.0
        for j in range(d):
            rj = total[0, j] - lam * w[j]
            r[j] = rj
            p[j] = rj
            rr += rj * rj
        state[0] = rr
        state[1] = lam
        return
    _cg_move(w, r, p, state, total, d)
    if last:
        for j in range(d):
            p[j] = w[j]


@njit(cache=True)
def _cg_move(w, r, p, state, total, d):
    """The step of :func:`_cg_step` after a pass that gathered ``A p``."""
    lam = state[1]
    rr = state[0]
    pq = 0.0
    for j in range(d):
        pq += p[j] * (total[0, j] + lam * p[j])
    if not (pq > 0.0 and rr > 0.0):
        return
    alpha = rr / pq
    rr_new = 0.0
    for j in range(d):
        w[j] += alpha * p[j]
        rj = r[j] - alpha * (total[0, j] + lam * p[j])
        r[j] = rj
        rr_new += rj * rj
    beta = rr_new / rr
    for j in range(d):
        p[j] = r[j] + beta * p[j]
    state[0] = rr_new
