"""An L1 bound on PageRank's distance to its fixed point, and the stopping rule that meets one.

The library's :func:`gas.algorithms.pagerank` stops by networkx's rule (an iteration's L1 change
below ``N * tol``), which says nothing direct about the error left. The ``gas pagerank`` command
instead stops once the error bound below is under ``--max-error``; these helpers turn one into
the other.

Derivation. One power-iteration step is the affine map ``G(x) = alpha * M x + (1 - alpha) * p``
with ``M`` column-stochastic and non-negative: column ``u`` holds ``w_uv / d(u)`` for each
out-edge of ``u``, or the dangling distribution (uniform unless given) when ``u`` has no
out-edges (or out-weight 0), so every column sums to 1. ``p`` is the teleport distribution. For
any vectors ``x, y``, ``|M (x - y)|_1 <= |x - y|_1`` (each entry of ``x - y`` is spread over a
column summing to 1, and the triangle inequality does the rest), so
``|G(x) - G(y)|_1 <= alpha * |x - y|_1``: ``G`` contracts the L1 norm by ``alpha``, and has one
fixed point ``x*``. After a step ``x_k = G(x_{k-1})`` with L1 change ``c = |x_k - x_{k-1}|_1``::

    |x_k - x*| = |G(x_{k-1}) - G(x*)| <= alpha |x_{k-1} - x*| <= alpha (c + |x_k - x*|)

hence ``|x_k - x*|_1 <= alpha / (1 - alpha) * c`` (:func:`contraction_bound`). Stopping when that
is below ``max_error`` is stopping when ``c < max_error * (1 - alpha) / alpha``, which is
networkx's rule with ``tol = max_error * (1 - alpha) / (alpha * N)`` (:func:`tol_for_max_error`):
the library's stopping test is reused unchanged. For any vector ``x`` whatever produced it (an
asynchronous run, an extrapolated step), ``|x - x*| <= |x - G(x)| + |G(x) - G(x*)|`` gives the a
posteriori bound ``|x - x*|_1 <= |G(x) - x|_1 / (1 - alpha)`` (:func:`residual_bound`), from one
more power step. With ``alpha = 1`` there is no contraction and no bound; with ``alpha = 0`` one
step lands on the fixed point.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "BOUND_BUILDER",
    "contraction_bound",
    "pagerank_tol",
    "program_for_job",
    "residual_bound",
    "tol_for_max_error",
]

#: the file-job program builder (:func:`gas.runtime.file_job.resolve_builder`) of ``--max-error`` runs
BOUND_BUILDER = "gas.cli.error_bound:program_for_job"


def contraction_bound(change: float, alpha: float) -> float:
    """L1 bound on the distance of a power-iteration step's result to the fixed point.

    Parameters
    ----------
    change : float
        The step's L1 change ``|x_k - x_{k-1}|_1``, where ``x_k = G(x_{k-1})``.
    alpha : float
        The damping factor, in ``[0, 1)``.

    Returns
    -------
    float
        ``alpha / (1 - alpha) * change`` (``inf`` for ``alpha = 1``).

    Examples
    --------
    >>> print(f"{contraction_bound(1e-7, 0.85):.3g}")  # 0.85 / 0.15 = 5.67 times the change
    5.67e-07
    """
    if alpha >= 1.0:
        return math.inf
    return alpha / (1.0 - alpha) * float(change)


def residual_bound(residual: float, alpha: float) -> float:
    """L1 bound on the distance of any vector ``x`` to the fixed point, from ``|G(x) - x|_1``.

    Examples
    --------
    >>> residual_bound(1e-7, 0.5)
    2e-07
    """
    if alpha >= 1.0:
        return math.inf
    return float(residual) / (1.0 - alpha)


def tol_for_max_error(max_error: float, alpha: float, num_vertices: int) -> float:
    """The ``tol`` whose networkx rule (L1 change below ``N * tol``) stops a power iteration once
    :func:`contraction_bound` is below ``max_error``.

    Parameters
    ----------
    max_error : float
        The L1 distance to the fixed point allowed, ``> 0``.
    alpha : float
        The damping factor, in ``[0, 1)`` (``1`` has no contraction: no such ``tol``).
    num_vertices : int

    Returns
    -------
    float
        ``max_error * (1 - alpha) / (alpha * N)``; for ``alpha = 0`` (the first step is exact)
        ``max_error / N``.

    Raises
    ------
    ValueError
        ``alpha`` is 1 or outside ``[0, 1]``, or ``max_error`` is not a positive number.

    Examples
    --------
    >>> tol_for_max_error(1e-6, 0.5, 10)
    1e-07
    """
    if not (0.0 <= alpha < 1.0):
        raise ValueError(f"Expected alpha in [0, 1) for an error bound (got {alpha})")
    if not (math.isfinite(max_error) and max_error > 0.0):
        raise ValueError(f"Expected max_error finite and > 0 (got {max_error})")
    n = max(int(num_vertices), 1)
    if alpha == 0.0:
        return max_error / n
    return max_error * (1.0 - alpha) / (alpha * n)


def pagerank_tol(max_error: float, alpha: float, num_vertices: int, engine: str = "sync") -> float:
    """The ``tol`` a PageRank run on ``engine`` gets for an L1 error below ``max_error``.

    Synchronous engine: :func:`tol_for_max_error`. Asynchronous engine, whose rule is per vertex
    (a vertex waits while its pending change is below ``tol``; the error left is then about
    ``N * tol / (1 - alpha)``): a quarter of ``max_error * (1 - alpha) / N``, since the pending
    changes summed are not exactly one power step's residual; the bound is then measured after
    the run from one more power step (:func:`residual_bound`).

    Examples
    --------
    >>> pagerank_tol(1e-6, 0.5, 10), pagerank_tol(1e-6, 0.5, 10, "async")
    (1e-07, 1.25e-08)
    """
    if engine == "async":
        tol_for_max_error(max_error, alpha, num_vertices)  # the same checks
        return max_error * (1.0 - alpha) / (4.0 * max(int(num_vertices), 1))
    return tol_for_max_error(max_error, alpha, num_vertices)


def program_for_job(command: str, args: dict, view: Any) -> tuple[Any, int, Any]:
    """:func:`gas.algorithms.registry.program_for_job`, with PageRank's ``tol`` recomputed from
    ``args["max_error_target"]`` and the vertex count of the rank's ``view`` (a scaled-out load
    learns it only there).

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 0])
    >>> job = {"alpha": 0.5, "tol": 1.0, "max_iter": 5, "max_error_target": 1e-6}
    >>> program_for_job("pagerank", job, g)[0].tol
    5e-07
    """
    from gas.algorithms.registry import program_for_job as build

    limit = args.get("max_error_target")
    if command == "pagerank" and limit is not None:
        engine = args.get("engine") or "sync"
        args = {**args, "tol": pagerank_tol(limit, float(args["alpha"]), view.num_vertices, engine)}
    return build(command, args, view)
