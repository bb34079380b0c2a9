"""Anderson extrapolation of synchronous PageRank: the between-supersteps hook and its passes.

:func:`gas.algorithms.pagerank` installs :class:`_Extrapolation` as the synchronous engine's
between-supersteps hook (``run(..., between=hook)``, ``extrapolate_every`` supersteps a
cycle); it combines the last few power-iteration steps into one jump towards the fixed point.
:func:`_gram` and :func:`_anderson_ranks` are the two passes over the vertices it makes per
cycle, :func:`_anderson_weights` the small solve between them.
"""

from __future__ import annotations

import numpy as np

from gas.engine_base import Engine

__all__ = ["_Extrapolation"]  # the between hook gas.algorithms.pagerank.pagerank installs


def _gram(F: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``H[i, j] = <f_i, f_j>`` for the rows ``f_0 .. f_{m-1}`` of ``F`` and ``f_m = d``.

    Matrix products (BLAS) rather than a compiled pass: nothing to compile on a cold start (the
    compiled pass cost about 4 s the first time, issue 21), and the two reads of ``F`` cost
    little next to the ``every`` supersteps of a cycle.

    Examples
    --------
    >>> F = np.array([[1.0, 2.0], [0.0, 1.0]])
    >>> _gram(F, np.array([1.0, 1.0])).tolist()
    [[5.0, 2.0, 3.0], [2.0, 1.0, 1.0], [3.0, 1.0, 2.0]]
    """
    m = F.shape[0]
    H = np.empty((m + 1, m + 1))
    H[:m, :m] = F @ F.T
    H[:m, m] = F @ d
    H[m, :m] = H[:m, m]
    H[m, m] = d @ d
    return H


def _anderson_ranks(
    rank: np.ndarray, d: np.ndarray, F: np.ndarray, c: np.ndarray, contrib: np.ndarray, degree: np.ndarray
) -> None:
    """``rank -= s`` with ``s = sum_i c[i - 1] f_i`` over ``f_1 .. f_{m-1}`` (rows of ``F``) and
    ``f_m = d``; ``d -= s`` (the whole step from the iterate before the last superstep) and
    ``contrib = rank / degree`` as ``apply`` computes it (0 where the degree is 0). numpy
    passes, like :func:`_gram` (nothing to compile).

    Examples
    --------
    >>> rank, d, contrib = np.array([0.5, 0.5]), np.array([0.1, -0.1]), np.zeros(2)
    >>> F = np.zeros((2, 2))
    >>> _anderson_ranks(rank, d, F, np.array([1.0, 1.0]), contrib, np.array([2.0, 0.0]))
    >>> rank.tolist(), d.tolist(), contrib.tolist()
    ([0.4, 0.6], [0.0, 0.0], [0.2, 0.0])
    """
    m = F.shape[0]
    s = c[m - 1] * d
    if m > 1:
        s += c[: m - 1] @ F[1:]
    rank -= s
    d -= s
    has = degree != 0
    contrib[:] = 0.0
    np.divide(rank, degree, out=contrib, where=has)


def _anderson_weights(H: np.ndarray, ridge: float = 1e-10) -> tuple[np.ndarray, float]:
    """Weights ``a`` (summing to 1) minimising ``|sum_j a_j f_j|`` given the Gram matrix ``H``
    of the steps, and that norm. A ridge of ``ridge * trace(H) / k`` keeps the solve finite when
    the steps are nearly parallel (the weights then barely matter)."""
    k = H.shape[0]
    scale = float(np.trace(H)) / k
    if not np.isfinite(scale) or scale <= 0.0:
        return np.full(k, np.nan), np.inf
    try:
        w = np.linalg.solve(H + ridge * scale * np.eye(k), np.ones(k))
    except np.linalg.LinAlgError:
        return np.full(k, np.nan), np.inf
    a = w / w.sum()
    return a, float(np.sqrt(max(float(a @ H @ a), 0.0)))


class _Extrapolation:
    """Between-supersteps hook for the synchronous :class:`PageRankProgram` (or the weighted
    one; ``engine.run(..., between=hook)``): an
    Anderson extrapolation every ``every`` supersteps, over the last ``m + 1`` steps
    (``m = min(4, every - 2)``).

    A superstep maps the ranks ``y_j`` to ``y_{j+1} = G(y_j)``; call its step
    ``f_j = y_{j+1} - y_j`` (the program's signed ``change``). Anderson acceleration (type II,
    Walker and Ni, SIAM J. Numer. Anal. 2011) picks weights ``a_j`` summing to 1 that minimise
    ``|sum_j a_j f_j|`` and moves to ``sum_j a_j G(y_j)``. Power iteration is linear, so that
    combination is close to the fixed point whenever the error lies mostly in a few eigenvectors
    of the Google matrix, whatever their eigenvalues (Aitken's process, which this replaced,
    handles one). Here it runs periodically rather than after every superstep: after
    supersteps ``every - m .. every - 1`` of each cycle the hook copies the step; after superstep
    ``every`` it forms the ``(m+1) x (m+1)`` Gram matrix of the steps in one pass, solves for
    the weights, and moves to ``y_{m+1} - sum_{i>=1} A_i f_i`` with ``A_i = a_0 + ... + a_{i-1}``
    (the combination written with the steps alone, so no iterate is copied). It moves only when
    the combined step is at most half the last one (``|sum_j a_j f_j| <= |f_m| / 2``): otherwise
    the steps do not predict the error. Every plain step sums to 0, so the new ranks still sum
    to 1. The hook writes ``contrib`` and ``change`` (the whole step) to match and has the
    engine recompute its aggregates, so the next superstep reads the new dangling mass and the
    stopping test sees the jump (an extrapolating superstep never passes it); that superstep's
    statistics say ``extrapolated: True`` (``gas pagerank`` marks its progress line).

    Cost: ``m`` copies, one Gram pass and one update pass per cycle, ``m`` extra columns of
    memory; no work inside the supersteps. Supersteps with ``every=6`` against plain power
    iteration (bench/RESULTS.md): to an L1 error of 1e-6, R-MAT-20 7 against 16,
    soc-Slashdot0811 24 against 66, soc-Epinions1 30 against 57 (section "PageRank to a
    tolerance: extrapolation"); to 1e-10, 16 against 26, 37 against 122, 55 against 116
    (section "Asynchronous engine"). R-MAT-20 has one dominant error mode, and Aitken's step
    reached 1e-10 there in 13.
    """

    def __init__(self, degree: np.ndarray, every: int, shrink: float = 0.5) -> None:
        if every < 3:
            raise ValueError(f"Expected extrapolate_every >= 3 supersteps, or 0 for none (got {every})")
        self.every = int(every)
        self.m = min(4, self.every - 2)
        self.shrink = float(shrink)
        self.degree = degree
        self.F: np.ndarray | None = None  # the copied steps, one row each
        self.have = 0  # rows copied in this cycle
        self.count = 0  # extrapolations made

    #: reads only the columns it asks for, when it needs them (a GPU engine then copies only
    #: ``change`` back on the supersteps that copy a step, and everything on an extrapolation)
    device_aware = True

    def __call__(self, eng: Engine, stat: dict) -> None:
        phase = (stat["iteration"] + 1) % self.every
        d = eng.columns["change"]
        if phase >= self.every - self.m:
            eng.sync_host(("change",))
            row = phase - (self.every - self.m)
            if self.F is None:
                self.F = np.empty((self.m, d.shape[0]))
            if row == self.have:
                np.copyto(self.F[row], d)
                self.have += 1
        elif phase == 0 and self.have == self.m:
            eng.sync_host()
            if self._extrapolate(eng, d):
                stat.update(eng.refresh_aggregates())
                stat["extrapolated"] = True
        if phase == 0:
            self.have = 0

    def _extrapolate(self, eng: Engine, d: np.ndarray) -> bool:
        """The Anderson step, when the combined step is small enough; True if it moved."""
        H = _gram(self.F, d)
        a, rho = _anderson_weights(H)
        if not (np.all(np.isfinite(a)) and rho <= self.shrink * np.sqrt(H[-1, -1])):
            return False
        cols = eng.columns
        _anderson_ranks(cols["rank"], d, self.F, np.cumsum(a)[:-1], cols["contrib"], self.degree)
        self.count += 1
        return True
