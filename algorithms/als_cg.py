"""Conjugate-gradient kernels of ALS (:class:`gas.algorithms.als.ALSCGProgram`).

A vertex's ridge regression ``(A + lam I) w = rhs``, with ``A = sum f f^T`` and ``rhs = sum t f``
over its ratings (feature ``f``, target ``t``; see :mod:`gas.algorithms.als`), is solved by
conjugate gradients without forming ``A``: each pass over the ratings adds ``f (f . p)`` for the
current direction ``p`` (:func:`_cg_add`), ``O(k)`` per rating, and :func:`_cg_step` takes one
step from the pass's total. The first pass of a solve gathers the residual at the vertex's
current factors instead (warm start).
"""

from __future__ import annotations

from numba import njit

__all__: list[str] = []


@njit(cache=True)
def _cg_add(acc, x, me, t, k, biases, first):
    """Add one rating to a conjugate-gradient pass: ``acc[0] += f (t - f . me)`` in the first
    pass of a solve (the residual's data term at the current solution ``me``), else
    ``acc[0] += f (f . me)`` (``me`` the search direction: the data term of ``A p``);
    ``acc[1, 0]`` counts the ratings. ``f = [x[:k], 1]`` with ``biases`` (else ``x[:k]``), ``t``
    minus the neighbour's bias, as in :func:`gas.algorithms.als._normal_add`."""
    s = 0.0
    for b in range(k):
        s += x[b] * me[b]
    if biases:
        t -= x[k]
        s += me[k]
    s = t - s if first else s
    out = acc[0]
    for b in range(k):
        out[b] += s * x[b]
    if biases:
        out[k] += s
    acc[1, 0] += 1.0


@njit(cache=True)
def _cg_step(w, r, p, state, total, d, lam, first):
    """One conjugate-gradient step on ``(A + lam I) w = rhs`` from a pass's ``total``.

    ``state`` holds ``[r . r, lam, steps left]`` (the last set by the caller). First pass:
    ``total[0]`` is ``rhs - A w``, so ``r = total[0] - lam w`` and ``p = r``; no step is taken.
    Later passes: ``total[0]`` is ``A p``; step ``w += alpha p`` along ``p`` (exact line
    search), then the next ``r`` and ``p`` (Fletcher-Reeves). A zero residual or a
    non-positive curvature (``lam = 0`` and too few ratings) takes no step."""
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
