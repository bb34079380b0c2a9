"""ALS, SGD and LDA on the asynchronous engine (:mod:`gas.algorithms.mf_async`,
:mod:`gas.algorithms.lda_async`), and what the consistency models protect.

Independent references: numpy.linalg.solve for every vertex's ridge regression at the ALS fixed
point; the synchronous engine's runs (the same half-steps, the same Gibbs chain); the one-thread
run of the same program (the sequential order); and exact counts of the writes a run makes
(each user's update writes each of its items once; each leaf adds one to its edge per round).
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import gas
from gas.algorithms.als import als
from gas.algorithms.lda import lda
from gas.algorithms.mf_fit import _Fit
from gas.algorithms.sgd import SGDProgram, _sgd_step, sgd
from gas.cli import main
from gas.datasets import lda_corpus
from gas.datasets.synthetic_ratings import synthetic_ratings
from gas.errors import GasError
from gas.io.ratings import Ratings


@pytest.fixture(scope="module")
def split():
    return synthetic_ratings(300, 100, 6000, rank=3, noise=0.1, seed=0).split(0.2)


def _low_rank(num_users=30, num_items=20, rank=3, keep=0.8, seed=1):
    rng = np.random.default_rng(seed)
    P, Q = rng.normal(size=(num_users, rank)), rng.normal(size=(num_items, rank))
    u, i = np.divmod(np.arange(num_users * num_items), num_items)
    m = rng.random(u.shape[0]) < keep
    u, i = u[m], i[m]
    return Ratings.from_arrays(u, i, 3.0 + np.sum(P[u] * Q[i], axis=1) + 0.1 * rng.normal(size=u.shape[0]))


# ---------------------------------------------------------------- ALS


@pytest.mark.parametrize("scheduler", ["fifo", "sweep"])
def test_async_als_with_every_update_signalling_repeats_the_sync_half_steps(split, scheduler):
    train, test = split
    sync = als(train, rank=3, iters=4, test=test, threads=2)
    asy = als(train, rank=3, iters=4, test=test, threads=2, engine="async", scheduler=scheduler, tol=0.0)
    np.testing.assert_allclose(asy.user_factors, sync.user_factors, rtol=0, atol=1e-12)
    np.testing.assert_allclose(asy.item_bias, sync.item_bias, rtol=0, atol=1e-12)
    n = train.num_users + train.num_items
    assert asy.history[-1]["updates"] == 4 * n  # the budget: the updates of 4 iterations
    assert asy.params["async"]["consistency"] == "edge"
    assert asy.history[-1]["test_rmse"] == pytest.approx(sync.history[-1]["test_rmse"], rel=1e-9)


def test_async_als_priority_stops_at_a_ridge_fixed_point():
    r = _low_rank()
    reg = 0.05
    m = als(r, rank=3, reg=reg, iters=400, engine="async", scheduler="priority", tol=1e-10, threads=1)
    info = m.params["async"]
    assert info["converged"] and info["updates"] < 400 * 50  # stopped by itself, nothing scheduled
    # every vertex's vector solves its ridge regression given its neighbours (numpy.linalg.solve)
    u, i, t = r.original()
    uu, ii = m.user_index(u), m.item_index(i)
    P = np.column_stack([m.user_factors, m.user_bias])
    Q = np.column_stack([m.item_factors, m.item_bias])
    for side, own, other, mine, theirs in ((0, P, Q, uu, ii), (1, Q, P, ii, uu)):
        for v in range(own.shape[0]):
            sel = mine == v
            F = np.column_stack([other[theirs[sel], :3], np.ones(sel.sum())])
            y = t[sel] - m.global_mean - other[theirs[sel], 3]
            w = np.linalg.solve(F.T @ F + reg * sel.sum() * np.eye(4), F.T @ y)
            np.testing.assert_allclose(own[v], w, atol=1e-7, err_msg=f"side {side} vertex {v}")


def test_async_als_priority_needs_fewer_updates_than_the_sync_iterations(split):
    train, test = split
    sync = als(train, rank=3, iters=10, test=test, threads=1)
    asy = als(train, rank=3, iters=10, test=test, threads=1, engine="async", scheduler="priority", tol=0.03)
    n = train.num_users + train.num_items
    assert asy.params["async"]["converged"] and asy.history[-1]["updates"] < 10 * n
    assert asy.history[-1]["test_rmse"] == pytest.approx(sync.history[-1]["test_rmse"], rel=0.01)


# ---------------------------------------------------------------- SGD


def test_async_sgd_under_edge_consistency_is_the_sequential_run(split):
    train, test = split
    one = sgd(train, rank=3, iters=20, test=test, threads=1, engine="async")
    two = sgd(train, rank=3, iters=20, test=test, threads=2, engine="async", consistency="edge")
    # serializable: two threads in colour order (users, then items) give the one-thread run exactly
    np.testing.assert_array_equal(two.user_factors, one.user_factors)
    np.testing.assert_array_equal(two.item_factors, one.item_factors)
    # and the quality of sequential Funk SGD (the sync program on one thread), within 1 %
    seq = sgd(train, rank=3, iters=20, test=test, threads=1)
    assert two.history[-1]["test_rmse"] == pytest.approx(seq.history[-1]["test_rmse"], rel=0.01)


@njit(cache=True)
def _counted_step(w, delta, x, r, lr, reg, k, biases):
    """:func:`_sgd_step` (writes the item ``x`` in place), and one more write: the item's counter,
    its last entry, read before the step and written after it (as the step reads and writes
    the item's factors)."""
    c = x[x.shape[0] - 1]
    _sgd_step(w, delta, x, r, lr, reg, k, biases)
    x[x.shape[0] - 1] = c + 1.0


class CountedHogwild(SGDProgram):
    """The synchronous SGD program (the user's gather writes the item), counting its writes."""

    def __init__(self, rank: int) -> None:
        super().__init__(rank, lr=0.01, biases=True)
        self.vertex_data = {"w": (np.float64, rank + 2), "step": np.float64}

    def gather(self, v, e, nbr, acc):
        _counted_step(v.w, acc, nbr.w, e.weight - self.mu, v.step, self.reg, self.rank, self.biases)


def _lost_writes(consistency: str, users: int, items: int, rounds: int) -> int:
    """Item writes lost by a Hogwild run in which every user rates every item."""
    u, i = np.divmod(np.arange(users * items), items)
    r = Ratings.from_arrays(u, i, np.random.default_rng(0).normal(size=u.size))
    g = r.graph()
    eng = gas.AsyncEngine(g, CountedHogwild(16), consistency=consistency, threads=2)
    eng.columns["w"][:, :16] = 0.1
    eng.run(rounds)
    counted = eng.columns["w"][users:, -1].sum()
    return int(rounds * g.num_edges - counted)  # every round, every rating writes its item once


def _some_lost(consistency: str) -> int:
    # the two threads must overlap in time: rounds of 400,000 ratings (a few tenths of a second),
    # tried up to 15 times (on a loaded machine one thread may run its share before the other)
    for _ in range(15):
        lost = _lost_writes(consistency, 10_000, 40, 3)
        if lost:
            return lost
    return 0


def test_hogwild_item_writes_are_lost_unless_full_consistency():
    # full: no two users of one item run at once (distance-2 colouring): every write counted
    assert _lost_writes("full", 300, 4, 10) == 0
    # vertex: two threads write the same item at once and some of the writes are lost
    assert _some_lost("vertex") > 0
    # edge protects the edges between a running vertex and its neighbours, not a neighbour's data
    # that another vertex two hops away writes too: the users of one item still run together
    assert _some_lost("edge") > 0


@njit(cache=True)
def _bump(x):
    """Add one to an edge's pending count (a read, then a write)."""
    x[0] = x[0] + 1.0


@njit(cache=True)
def _clear(x):
    x[0] = 0.0


class PendingOnEdges(gas.VertexProgram):
    """Leaves add one to their edge into a hub; a hub gathers its edges' pending counts, adds them
    to its own count and clears the edges: a read of an edge in the hub's gather and a write of it
    in the hub's scatter, with the leaf's write to the same edge possibly in between."""

    gather_edges = gas.IN
    scatter_edges = gas.ALL
    dynamic = False
    vertex_data = {"count": np.float64}
    edge_data = {"pend": (np.float64, 1)}

    def __init__(self, period: int) -> None:
        self.period = int(period)

    def gather(self, v, e, nbr):
        return e.pend[0]

    def apply(self, v, total, ctx):
        v.count += total

    def scatter(self, v, e, nbr):
        if v.vid % self.period == 0:
            _clear(e.pend)
        else:
            _bump(e.pend)
        return False


def _lost_edge_counts(consistency: str, rounds: int = 10) -> int:
    """Counts lost on the edges between 40 hubs and 199,960 leaves, each leaf tied to a hub in the
    other half of the ids (so that with 2 threads a hub runs while its leaves do)."""
    n, period = 200_000, 5_000
    leaf = np.flatnonzero(np.arange(n) % period)
    other = np.where(leaf < n // 2, 20, 0)
    hub = ((leaf % 20) + other) * period
    g = gas.Graph.from_edges(leaf, hub, num_vertices=n)
    eng = gas.AsyncEngine(g, PendingOnEdges(period), consistency=consistency, threads=2)
    eng.run(rounds)
    kept = eng.columns["count"].sum() + eng.edge_columns["pend"].sum()
    return int(rounds * g.num_edges - kept)  # every round every leaf adds one


def test_edge_consistency_keeps_writes_to_shared_edges():
    # edge: a hub and its leaves never run at once: every count arrives
    assert _lost_edge_counts("edge") == 0
    # vertex: a leaf may add to its edge between its hub's read and its clear of it (both threads
    # must run at once: on a quiet machine every try loses counts, under contention fewer do, so
    # up to 40 tries of about 0.15 s, stopping at the first loss)
    assert any(_lost_edge_counts("vertex") > 0 for _ in range(40))


# ---------------------------------------------------------------- LDA


@pytest.mark.slow  # compiles the LDA programs (about 30-60 s cold); .ci/run runs it
def test_async_lda_repeats_the_sync_chain():
    c, _, _ = lda_corpus(num_docs=120, doc_length=40, num_words=80, topics=4, seed=0)
    sync = lda(c, topics=4, iters=15, seed=3, ll_every=0)
    asy = lda(c, topics=4, iters=15, seed=3, ll_every=0, engine="async", threads=2)
    full = lda(c, topics=4, iters=15, seed=3, ll_every=0, engine="async", consistency="full")
    # documents sample against the word counts of the previous round, words rebuild after them,
    # the totals last: the synchronous sweep's order, so the same chain token for token
    np.testing.assert_array_equal(asy.doc_topic, sync.doc_topic)
    np.testing.assert_array_equal(full.doc_topic, asy.doc_topic)
    assert asy.loglik[-1] == pytest.approx(sync.loglik[-1], rel=0.01)


# ---------------------------------------------------------------- errors and the command line


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda r: als(r, engine="asynch"), "Unknown engine 'asynch' for ALS"),
        (lambda r: sgd(r, engine="async", scheduler="lifo"), "Unknown scheduler 'lifo'"),
        (lambda r: als(r, engine="async", consistency="strict"), "Unknown consistency model 'strict'"),
        (lambda r: als(r, engine="async", solver="cg"), "solver='cg' cannot run on the asynchronous"),
        (lambda r: als(r, engine="async", procs=2, staleness=1), "staleness=1 is for the synchronous"),
        (lambda r: sgd(r, engine="async", procs=2, consistency="full"), "runs on one process only"),
    ],
)
def test_engine_options_are_checked(call, match):
    with pytest.raises(GasError, match=match):
        call(_low_rank(4, 3))


def test_lda_refuses_vertex_consistency():
    c, _, _ = lda_corpus(num_docs=5, doc_length=5, num_words=6, topics=2, seed=0)
    with pytest.raises(GasError, match="consistency='edge'"):
        lda(c, topics=2, iters=1, engine="async", consistency="vertex")


def test_cli_als_and_sgd_on_the_async_engine(tmp_path, capsys):
    r = _low_rank()
    u, i, t = r.original()
    p = tmp_path / "r.tsv"
    p.write_text("".join(f"{a}\t{b}\t{x:.6f}\n" for a, b, x in zip(u, i, t)))
    args = ["--rank", "3", "--iters", "3", "--test-fraction", "0.2", "-q", "--engine", "async"]
    assert main(["als", str(p), *args, "--scheduler", "priority"]) == 0
    out = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert out["algorithm"] == "als" and float(out["test_rmse"]) > 0
    assert main(["sgd", str(p), *args, "--consistency", "edge"]) == 0
    assert "test_rmse" in capsys.readouterr().out
    assert main(["sgd", str(p), *args, "--consistency", "full", "--procs", "2"]) == 2
    assert "one process only" in capsys.readouterr().err


def test_async_fit_records_updates_and_edges_per_round(split):
    train, _ = split
    fit = _Fit(train, "sgd", 3, 0.1, 0, None, True)
    m = sgd(train, rank=3, iters=2, threads=1, engine="async", progress=lambda rec: None)
    n, e = fit.graph.num_vertices, fit.graph.num_edges
    assert [h["updates"] for h in m.history] == [n, 2 * n]  # static: every vertex every round
    assert [h["edges"] for h in m.history] == [2 * e, 4 * e]  # each rating from both sides


@pytest.mark.slow
def test_async_als_and_lda_on_two_processes_match_one(split):
    # the chromatic engine across processes (gas.runtime.async_dist) runs the same rounds
    train, test = split
    one = als(train, rank=3, iters=3, threads=1, engine="async", tol=0.0)
    two = als(train, rank=3, iters=3, engine="async", tol=0.0, procs=2)
    np.testing.assert_allclose(two.user_factors, one.user_factors, rtol=0, atol=1e-9)
    c, _, _ = lda_corpus(num_docs=60, doc_length=30, num_words=50, topics=3, seed=0)
    a = lda(c, topics=3, iters=4, seed=1, engine="async")
    b = lda(c, topics=3, iters=4, seed=1, engine="async", procs=2)
    np.testing.assert_array_equal(b.doc_topic, a.doc_topic)
