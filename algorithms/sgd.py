"""Biased matrix factorization by stochastic gradient descent, as a vertex program (Hogwild).

Model and loss as in :mod:`gas.algorithms.als` (``r_ui ~ mean + b_u + c_i + p_u . q_i``, squared
error plus ``reg`` times the squared norms), fitted the way Funk's SVD and scikit-surprise's
``SVD`` do: for each rating in turn, with ``e = r_ui - prediction``::

    b_u += lr (e - reg b_u)            c_i += lr (e - reg c_i)
    p_u += lr (e q_i - reg p_u)        q_i += lr (e p_u - reg q_i)   (both from the old values)

The step shrinks after every epoch: ``lr_t = lr * decay**t``.

As GAS on the bipartite graph (users ``0..U-1``, items ``U..U+I-1``, one edge ``user -> item``
per rating, each vertex storing ``w = [factors, bias]``), superstep ``t`` is epoch ``t``: every
user **gathers** over its ratings in order (scikit-surprise's order too: user by user), applying
the update above to each. The user's own change builds up in the accumulator (an array
``gather_type`` of ``d`` numbers that **apply** adds to ``w``), so its successive steps see each
other exactly; the item's vector is updated in place. Items have no out-edges: they gather
nothing and only count the epochs.

Consistency relied on: this program writes the *neighbour* (the item) during gather, which the
sync engine's contract leaves unordered (gather is meant to be read-only). Two threads running
users who rated the same item may interleave their updates of it (Hogwild, Niu et al. 2011): an
update can be lost or combined with a stale read. Such collisions are rare on sparse ratings and
SGD tolerates them; with ``threads=1`` a run is deterministic. No other program may use the
same vertex data meanwhile.

On several processes (``procs > 1``) the partition must be an edge-cut (``hash``, ``range``,
``ldg``, ``fennel``): an edge-cut places each rating with its item's master, so an item is never
mirrored and its in-place updates stay exact on the one process that holds all its ratings. A
user's ratings may then lie on several processes; each process runs the user's steps over its
own share of them starting from the same vector, and the master adds up the shares' changes
(``sum`` of the accumulators), so within an epoch a user's steps on one process do not see its
steps on another (Hogwild's delay, bounded by one epoch). A vertex-cut would mirror items and
lose the mirrors' updates, so it is refused.

On the asynchronous engine (``engine="async"``, :mod:`gas.algorithms.mf_async`) this program
would need ``full`` consistency: two users of one item are not adjacent, so ``edge`` consistency
runs them at once and one's write to the item can be lost (``tests/test_mf_async.py`` counts
such losses). There :class:`SGDAsyncProgram` runs instead: each side
steps only its own factors, which ``edge`` consistency makes serializable.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from gas.algorithms.mf_async import check_engine, fit_async
from gas.algorithms.mf_fit import _Fit, check_real, check_whole
from gas.algorithms.mf_model import MFModel
from gas.io.ratings import Ratings
from gas.options import RunOptions
from gas.program import ALL, OUT, VertexProgram

__all__ = ["SGDProgram", "SGDAsyncProgram", "sgd"]


@njit(cache=True)
def _sgd_step(w, delta, x, r, lr, reg, k, biases):
    """One SGD update for one rating ``r`` (mean already subtracted).

    The running vertex's vector is ``w + delta`` (its change is kept in ``delta``); ``x``, the
    neighbour's vector, is updated in place.
    """
    pred = 0.0
    for f in range(k):
        pred += (w[f] + delta[f]) * x[f]
    if biases:
        own_b = w[k] + delta[k]
        pred += own_b + x[k]
        err = r - pred
        delta[k] += lr * (err - reg * own_b)
        x[k] += lr * (err - reg * x[k])
    else:
        err = r - pred
    for f in range(k):
        pf = w[f] + delta[f]
        qf = x[f]
        delta[f] += lr * (err * qf - reg * pf)
        x[f] += lr * (err * pf - reg * qf)


class SGDProgram(VertexProgram):
    """One SGD epoch per superstep, user by user (see the module docstring).

    Parameters
    ----------
    rank : int
    lr, reg, decay : float
        Step ``lr * decay**epoch``; ``reg`` weighs the squared norms.
    biases : bool
    mean : float
        Subtracted from every rating.
    """

    gather_edges = OUT
    dynamic = False

    def __init__(
        self,
        rank: int = 20,
        lr: float = 0.02,
        reg: float = 0.05,
        decay: float = 0.9,
        biases: bool = True,
        mean: float = 0.0,
    ) -> None:
        self.rank = check_whole("rank", rank, 1)
        self.lr = check_real("lr", lr, 0.0)
        self.reg = check_real("reg", reg, 0.0)
        self.decay = check_real("decay", decay, 0.0, strict=True, high=1.0)
        self.biases = bool(biases)
        self.mu = float(mean)
        d = self.rank + (1 if biases else 0)
        self.vertex_data = {"w": (np.float64, d), "step": np.float64}
        self.gather_type = (np.float64, (d,))

    def init(self, v, ctx):
        v.step = self.lr

    def gather(self, v, e, nbr, acc):
        _sgd_step(v.w, acc, nbr.w, e.weight - self.mu, v.step, self.reg, self.rank, self.biases)

    def apply(self, v, total, ctx):
        for f in range(total.shape[0]):
            v.w[f] += total[f]
        v.step *= self.decay


@njit(cache=True)
def _own_step(w, delta, x, r, lr, reg, k, biases):
    """One SGD step of the running vertex's factors and bias for one rating ``r`` (mean already
    subtracted): its vector is ``w + delta`` (the change builds up in ``delta``); the
    neighbour's vector ``x`` is read only."""
    pred = 0.0
    for f in range(k):
        pred += (w[f] + delta[f]) * x[f]
    err = r - pred
    if biases:
        own_b = w[k] + delta[k]
        err -= own_b + x[k]
        delta[k] += lr * (err - reg * own_b)
    for f in range(k):
        delta[f] += lr * (err * x[f] - reg * (w[f] + delta[f]))


class SGDAsyncProgram(SGDProgram):
    """SGD in which each side updates only its own factors, for the asynchronous engine (see
    :mod:`gas.algorithms.mf_async`); one round is one epoch.

    Parameters
    ----------
    rank : int
    lr, reg, decay : float
        A vertex's step is ``lr * decay**t`` in its ``t``-th update; ``reg`` weighs the squared
        norms.
    biases : bool
    mean : float
        Subtracted from every rating.

    Examples
    --------
    >>> import gas
    >>> from gas.io.ratings import Ratings
    >>> r = Ratings.from_arrays([0, 0, 1, 1], [0, 1, 0, 1], [4.0, 2.0, 5.0, 1.0])
    >>> eng = gas.AsyncEngine(r.graph(), SGDAsyncProgram(rank=1, mean=3.0), consistency="edge")
    >>> eng.columns["w"][:, 0] = 0.1
    >>> res = eng.run(5)
    >>> res.iterations, bool(res.vertex_data["step"][0] < 0.02)
    (5, True)
    """

    gather_edges = ALL

    def gather(self, v, e, nbr, acc):
        _own_step(v.w, acc, nbr.w, e.weight - self.mu, v.step, self.reg, self.rank, self.biases)


def sgd(
    ratings: Ratings | str | os.PathLike,
    rank: int = 20,
    lr: float = 0.02,
    reg: float = 0.05,
    decay: float = 0.9,
    biases: bool = True,
    iters: int = 20,
    *,
    init_std: float = 0.1,
    seed: int = 0,
    test: Ratings | None = None,
    threads: int | None = None,
    debug: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    procs: int = 1,
    partition: str = "hash",
    options: RunOptions | None = None,
    engine: str = "sync",
    scheduler: str = "fifo",
    consistency: str | None = None,
) -> MFModel:
    """Factorize a ratings matrix by SGD with biases (see the module docstring).

    Parameters
    ----------
    ratings : Ratings or path
        Training ratings.
    rank, biases, iters : default 20, True, 20
        Factors; a bias per user and item; epochs (passes over all ratings).
    lr, reg, decay : float, default 0.02, 0.05, 0.9
        Initial step size; weight of the squared norms of factors and biases; the step is
        multiplied by ``decay`` after every epoch.
    init_std, seed, test : default 0.1, 0, None
        Starting factors ``N(0, init_std^2)`` (``numpy.random.default_rng(seed)``), biases 0;
        held-out ratings, whose RMSE is recorded after every epoch.
    threads, debug, progress
        Numba threads (1: a deterministic run); plain Python; called after every epoch with
        ``iteration``, ``seconds``, ``train_rmse``, ``test_rmse`` (the RMSEs only after the
        last epoch with ``procs > 1``).
    procs, partition, options
        As in :func:`gas.run`; ``partition`` an edge-cut partitioner (see the module docstring).
    engine, scheduler, consistency : default "sync", "fifo", None
        ``engine="async"``: each side steps only its own factors, one round per epoch, on
        :class:`gas.AsyncEngine` (``"edge"`` by default; :mod:`gas.algorithms.mf_async`).

    Returns
    -------
    MFModel

    Raises
    ------
    InputError
        A parameter out of range (``lr``, ``reg``, ``init_std`` negative, ``decay`` outside
        ``(0, 1]``, any NaN or infinite, ``rank`` or ``procs`` < 1, ...) or no ratings.
    ConvergenceError
        When the run diverges: the factors or the training RMSE stop being finite (checked
        after every epoch on one process, at the end on several); ``result`` is None.

    Examples
    --------
    >>> from gas.datasets.synthetic_ratings import synthetic_ratings
    >>> train, test = synthetic_ratings(300, 100, 6000, rank=3, noise=0.1, seed=0).split(0.2)
    >>> m = sgd(train, rank=3, iters=30, threads=1)
    >>> bool(m.rmse(test) < 0.7 * test.rating.std())   # the std: RMSE of predicting the mean
    True
    """
    check_engine("sgd", engine, scheduler, consistency, procs)
    _check_args(iters, procs, lr, reg, decay, partition if engine == "sync" else "hash")
    fit = _Fit(ratings, "sgd", rank, init_std, seed, test, biases)
    fit.params.update(lr=float(lr), reg=float(reg), decay=float(decay), iters=int(iters), biases=bool(biases))
    fit.check_memory(8 * (6 * (int(rank) + 1) + 8))
    prog = (SGDAsyncProgram if engine == "async" else SGDProgram)(rank, lr, reg, decay, biases, fit.mean)
    if engine == "async":  # one round is one epoch
        how = dict(
            rounds=int(iters), scheduler=scheduler, consistency=consistency, threads=threads, procs=procs
        )
        where = dict(partition=partition, options=options)
        return fit_async(fit, prog, iters * fit.graph.num_vertices, False, debug, progress, **how, **where)
    return fit.run(prog, iters, threads, debug, progress, False, procs, partition, options)  # one side


def _check_args(iters: int, procs: int, lr: float, reg: float, decay: float, partition: str) -> None:
    """Refuse parameters out of range, and a vertex-cut partition on several processes."""
    check_whole("iters", iters, 0)
    check_whole("procs", procs, 1)
    check_real("lr", lr, 0.0)
    check_real("reg", reg, 0.0)
    check_real("decay", decay, 0.0, strict=True, high=1.0)
    if procs > 1:
        from gas.partition import require_edge_cut

        require_edge_cut(
            partition,
            "SGD",
            "SGD updates items in place during the users' gather, which is exact only where an item "
            "has no mirrors",
        )
