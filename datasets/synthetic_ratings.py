"""A synthetic ratings set: a known low-rank matrix plus Gaussian noise, sampled sparsely.

Used by the matrix-factorization benchmark (``bench/mf.py``) at 10 M ratings, and small enough
for tests at a few thousand.
"""

from __future__ import annotations

import numpy as np

from gas.io.ratings import Ratings

__all__ = ["synthetic_ratings"]


def synthetic_ratings(
    num_users: int = 100_000,
    num_items: int = 20_000,
    num_ratings: int = 10_000_000,
    rank: int = 20,
    noise: float = 0.5,
    mean: float = 3.5,
    skew: float = 0.8,
    seed: int = 0,
    return_factors: bool = False,
) -> Ratings | tuple[Ratings, np.ndarray, np.ndarray]:
    """Ratings ``r_ui = mean + p_u . q_i + noise * N(0, 1)`` on random (user, item) pairs.

    ``p_u`` and ``q_i`` have independent ``N(0, 1/sqrt(rank))`` entries, so the low-rank part has
    variance 1. Items are drawn with Zipf-like popularity ``(1 + j) ** -skew`` (``skew = 0``:
    uniform), users uniformly; repeated (user, item) pairs are dropped, so the result holds
    slightly fewer than ``num_ratings`` ratings. Ids are ``0..num_users-1`` and
    ``0..num_items-1`` (users or items that drew no rating are absent). Deterministic per seed.

    Parameters
    ----------
    num_users, num_items, num_ratings, rank : int
    noise : float, default 0.5
        Standard deviation of the added Gaussian noise.
    mean : float, default 3.5
    skew : float, default 0.8
        Exponent of the item popularity law.
    seed : int, default 0
    return_factors : bool, default False
        Also return the true factors ``P`` (rows indexed by original user id) and ``Q``.

    Returns
    -------
    Ratings, or (Ratings, P, Q)

    Examples
    --------
    >>> r, P, Q = synthetic_ratings(200, 50, 2000, rank=3, noise=0.0, seed=1, return_factors=True)
    >>> len(r) <= 2000, r.num_items <= 50
    (True, True)
    >>> u, i, x = r.original()
    >>> bool(np.allclose(x, 3.5 + np.sum(P[u] * Q[i], axis=1)))
    True
    """
    rng = np.random.default_rng(seed)
    scale = rank**-0.25 if rank else 0.0  # entry variance 1/sqrt(rank)
    P = rng.normal(0.0, 1.0, (num_users, rank)) * scale
    Q = rng.normal(0.0, 1.0, (num_items, rank)) * scale
    draw = int(num_ratings * 1.15) + 16
    users = rng.integers(0, num_users, draw)
    pop = (1.0 + np.arange(num_items)) ** -float(skew)
    cdf = np.cumsum(pop)
    cdf /= cdf[-1]
    items = np.searchsorted(cdf, rng.random(draw), side="right")
    items = rng.permutation(num_items)[np.minimum(items, num_items - 1)]
    key = users.astype(np.int64) * num_items + items
    order = np.argsort(key, kind="stable")
    sk = key[order]
    first = np.ones(draw, np.bool_)
    first[1:] = sk[1:] != sk[:-1]
    keep = np.sort(order[first])[:num_ratings]  # first occurrence of each pair, in draw order
    users, items = users[keep], items[keep]
    values = np.empty(keep.shape[0], np.float64)
    step = 1 << 20
    for s in range(0, keep.shape[0], step):
        u, i = users[s : s + step], items[s : s + step]
        values[s : s + step] = mean + np.einsum("ij,ij->i", P[u], Q[i])
    values += noise * rng.normal(0.0, 1.0, values.shape[0])
    out = Ratings.from_arrays(users, items, values)
    return (out, P, Q) if return_factors else out
