"""Matrix factorization (ALS, SGD) on the engine, the model, and the CLI.

Independent references: numpy.linalg.solve for the ALS normal equations, a plain-Python loop of
the SGD updates (scikit-surprise's update rule and order), a user-written ALS program with its
own Gauss-Jordan solve, and a numpy bias baseline for the quality check.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import shared_path
from numba import njit

import gas
from gas.algorithms.als import ALSProgram, _flush, _merge, _normal_add, als, layout, start_value
from gas.algorithms.mf_model import MFModel
from gas.algorithms.sgd import sgd
from gas.cli import main
from gas.errors import GasError, InputError
from gas.io.ratings import Ratings


def _low_rank(num_users=12, num_items=9, rank=3, keep=1.0, seed=0):
    rng = np.random.default_rng(seed)
    P, Q = rng.normal(size=(num_users, rank)), rng.normal(size=(num_items, rank))
    u, i = np.divmod(np.arange(num_users * num_items), num_items)
    if keep < 1.0:
        m = rng.random(u.shape[0]) < keep
        u, i = u[m], i[m]
    return Ratings.from_arrays(u, i, 3.0 + np.sum(P[u] * Q[i], axis=1))


# ---------------------------------------------------------------- ALS


def test_als_recovers_an_exactly_low_rank_matrix():
    r = _low_rank()
    m = als(r, rank=3, reg=1e-10, iters=60, weighted=False, threads=2)
    assert m.rmse(r, clip=False) < 1e-6


def test_als_recovers_a_partly_observed_low_rank_matrix():
    # 80% of a rank-3 30x20 matrix: enough entries per row/column to pin the factors down
    r = _low_rank(30, 20, 3, keep=0.8, seed=1)
    m = als(r, rank=3, reg=1e-10, iters=200, weighted=False)
    assert m.rmse(r, clip=False) < 1e-6


def test_als_start_is_deterministic_and_standard_normal():
    z = np.array([start_value(7, v, j) for v in range(2000) for j in range(5)])
    again = np.array([start_value(7, v, j) for v in range(2000) for j in range(5)])
    np.testing.assert_array_equal(z, again)
    # 10,000 draws: mean within 4 standard errors of 0, variance within 5 % of 1
    assert abs(z.mean()) < 4 / 100 and abs(z.var() - 1.0) < 0.05
    assert start_value(8, 0, 0) != start_value(7, 0, 0)


@pytest.mark.parametrize("biases", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("debug", [False, True])
def test_als_half_step_equals_numpy_normal_equations(biases, weighted, debug):
    rng = np.random.default_rng(5)
    nu, ni, k, reg, mean = 15, 11, 3, 0.3, 2.5
    u, i = rng.integers(0, nu, 120), rng.integers(0, ni, 120)
    r = Ratings.from_arrays(u, i, rng.uniform(1, 5, 120))
    g = r.graph()
    U = r.num_users
    prog = ALSProgram(k, reg, weighted, biases, mean, seed=4, init_std=1.0)
    eng = gas.SyncEngine(g, prog, debug=debug)
    d, width = layout(k, biases)
    eng.run(max_iter=0)  # init only: the starting vectors (item biases 0; the merge test below
    start = eng.columns["w"].copy()  # covers nonzero neighbour biases)
    eng.run(max_iter=1, active=np.arange(U))  # init runs again and draws the same start
    got = eng.columns["w"]
    # reference: for each user, solve (X^T X + lam I) w = X^T y with numpy
    for user in range(U):
        es = np.arange(g.out_indptr[user], g.out_indptr[user + 1])
        items = g.dst[es]
        X = start[items, :k]
        y = g.weights[es] - mean
        if biases:
            y = y - start[items, k]
            X = np.hstack([X, np.ones((len(es), 1))])
        lam = reg * len(es) if weighted else reg
        w = np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)
        np.testing.assert_allclose(got[user, :d], w, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got[U:], start[U:])  # items did not run
    assert not got[:, d:].any()  # padding columns stay zero


def test_als_accumulator_merge_is_the_same_sum():
    # the staged accumulator (the program's gather_type) folded by sum == one pass == numpy
    rng = np.random.default_rng(2)
    k, n = 5, 23
    d, width = layout(k, True)
    X = np.zeros((n, width))
    X[:, : k + 1] = rng.normal(size=(n, k + 1))
    t = rng.normal(size=n)
    whole, a, b = (np.zeros((d + 6, width)) for _ in range(3))
    for j in range(n):
        _normal_add(whole, X[j], t[j], k, True)
        _normal_add(a if j % 3 else b, X[j], t[j], k, True)
    _merge(a, b)
    _flush(a)
    _flush(whole)
    F = np.hstack([X[:, :k], np.ones((n, 1))])
    y = t - X[:, k]
    np.testing.assert_allclose(whole[:d, :d], F.T @ F, atol=1e-12)
    np.testing.assert_allclose(a[:d, :d], F.T @ F, atol=1e-12)
    np.testing.assert_allclose(a[d, :d], F.T @ y, atol=1e-12)
    assert a[d + 5, 1] == whole[d + 5, 1] == n  # ratings counted (weighted lambda)


@njit(cache=True)
def _gauss_jordan(M, rhs, out):
    """Solve M x = rhs by Gauss-Jordan with partial pivoting (M and rhs are overwritten)."""
    n = M.shape[0]
    for c in range(n):
        p = c
        for r in range(c + 1, n):
            if abs(M[r, c]) > abs(M[p, c]):
                p = r
        for j in range(n):
            M[c, j], M[p, j] = M[p, j], M[c, j]
        rhs[c], rhs[p] = rhs[p], rhs[c]
        for r in range(n):
            if r != c:
                f = M[r, c] / M[c, c]
                for j in range(n):
                    M[r, j] -= f * M[c, j]
                rhs[r] -= f * rhs[c]
    for c in range(n):
        out[c] = rhs[c] / M[c, c]


class UserALS(gas.VertexProgram):
    """ALS as a user would write it with the public API: plain rank-k, no biases."""

    gather_edges = gas.ALL
    scatter_edges = gas.ALL

    def __init__(self, k, reg):
        self.k, self.reg = k, reg
        self.vertex_data = {"w": (np.float64, k)}
        self.gather_type = (np.float64, (k + 1, k))

    def gather(self, v, e, nbr, acc):
        for a in range(self.k):
            acc[self.k, a] += (e.weight - self.mu) * nbr.w[a]
            for b in range(self.k):
                acc[a, b] += nbr.w[a] * nbr.w[b]

    def apply(self, v, total, ctx):
        n = v.out_degree + v.in_degree
        for a in range(self.k):
            total[a, a] += self.reg * n
        _gauss_jordan(total[: self.k], total[self.k], v.w)

    def scatter(self, v, e, nbr):
        return True


def test_user_written_als_equals_the_bundled_one():
    rng = np.random.default_rng(7)
    u, i = rng.integers(0, 40, 600), rng.integers(0, 25, 600)
    r = Ratings.from_arrays(u, i, rng.integers(1, 6, 600).astype(float))
    k, reg, iters = 4, 0.08, 5
    bundled = als(r, rank=k, reg=reg, iters=iters, biases=False, weighted=True, seed=3)
    prog = UserALS(k, reg)
    prog.mu = bundled.global_mean
    g = r.graph()
    eng = gas.SyncEngine(g, prog)
    # the same start as the bundled one: 0.1 * start_value(seed, vertex, j)
    eng.columns["w"][:] = [[0.1 * start_value(3, v, j) for j in range(k)] for v in range(g.num_vertices)]
    eng.run(max_iter=2 * iters, active=np.arange(r.num_users))  # dynamic: scatter signals the other side
    w = eng.columns["w"]
    np.testing.assert_allclose(w[: r.num_users], bundled.user_factors, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(w[r.num_users :], bundled.item_factors, rtol=1e-8, atol=1e-10)


def test_als_on_two_processes_equals_one():
    r = _low_rank(40, 30, 3, keep=0.5, seed=6)
    train, test = r.split(0.2, seed=0)
    one = als(train, rank=3, iters=4, test=test)
    two = als(train, rank=3, iters=4, test=test, procs=2)
    # same start (hashed per vertex), same sums up to their order
    np.testing.assert_allclose(two.user_factors, one.user_factors, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(two.item_bias, one.item_bias, rtol=1e-7, atol=1e-9)
    assert two.history[-1]["test_rmse"] == pytest.approx(one.history[-1]["test_rmse"], rel=1e-6)


def test_als_with_bounded_staleness():
    r = _low_rank(40, 30, 3, keep=0.5, seed=6)
    train, test = r.split(0.2, seed=0)
    one = als(train, rank=3, iters=4, test=test)
    # s = 0 is BSP: the static program's alternating half-steps are the default run's
    bsp = als(train, rank=3, iters=4, test=test, procs=2, staleness=0)
    np.testing.assert_allclose(bsp.user_factors, one.user_factors, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(bsp.item_factors, one.item_factors, rtol=1e-7, atol=1e-9)
    assert bsp.params["ssp"]["staleness_max"] == 0
    # s = 2: half-steps solve against factors up to 2 half-steps old; after 20 iterations the fit
    # is the BSP one's (real data, bench/RESULTS.md: test RMSE +0.3 % on ml-latest-small)
    one = als(train, rank=3, iters=20, test=test)
    ssp = als(train, rank=3, iters=20, test=test, procs=2, staleness=2, straggler="any:0.005")
    assert 0 < ssp.params["ssp"]["staleness_max"] <= 2
    assert ssp.history[-1]["train_rmse"] == pytest.approx(one.history[-1]["train_rmse"], rel=0.01)
    assert ssp.history[-1]["test_rmse"] == pytest.approx(one.history[-1]["test_rmse"], rel=0.02)
    with pytest.raises(ValueError, match="several processes"):
        als(train, rank=3, iters=1, staleness=1)


def test_als_history_and_test_rmse():
    r = _low_rank(20, 15, 3, keep=0.9, seed=4)
    train, test = r.split(0.2, seed=0)
    seen = []
    m = als(train, rank=3, iters=4, test=test, progress=seen.append)
    assert [h["iteration"] for h in m.history] == [1, 2, 3, 4] and seen == m.history
    assert m.history[-1]["test_rmse"] == pytest.approx(m.rmse(test))
    assert m.history[-1]["train_rmse"] == pytest.approx(m.rmse(train))


# ---------------------------------------------------------------- SGD


def test_sgd_with_zero_learning_rate_changes_nothing():
    r = _low_rank(10, 8, 2, keep=0.7)
    start = sgd(r, rank=3, iters=0)
    after = sgd(r, rank=3, lr=0.0, iters=5)
    for name in ("user_factors", "item_factors", "user_bias", "item_bias"):
        np.testing.assert_array_equal(getattr(after, name), getattr(start, name))
    assert not after.user_bias.any() and not after.item_bias.any()


def _sgd_reference(r, rank, lr, reg, decay, iters, biases, seed, init_std=0.1):
    """Plain Python: scikit-surprise's SVD updates, user by user, items in increasing id order."""
    U, n = r.num_users, r.num_users + r.num_items
    F = np.random.default_rng(seed).normal(0.0, init_std, (n, rank))
    b = np.zeros(n)
    order = np.lexsort((r.item, r.user))
    mean = r.rating.mean()
    for epoch in range(iters):
        step = lr * decay**epoch
        for j in order:
            u, i = r.user[j], U + r.item[j]
            err = r.rating[j] - mean - (b[u] + b[i] if biases else 0.0) - F[u] @ F[i]
            if biases:
                b[u] += step * (err - reg * b[u])
                b[i] += step * (err - reg * b[i])
            pu = F[u].copy()
            F[u] += step * (err * F[i] - reg * F[u])
            F[i] += step * (err * pu - reg * F[i])
    return F[:U], F[U:], b[:U], b[U:]


@pytest.mark.parametrize("biases", [True, False])
def test_sgd_one_thread_equals_the_update_rule_in_python(biases):
    rng = np.random.default_rng(11)
    u, i = rng.integers(0, 25, 300), rng.integers(0, 18, 300)
    key = np.unique(u * 100 + i)  # no repeated pairs: the graph keeps one edge per pair
    r = Ratings.from_arrays(key // 100, key % 100, rng.uniform(1, 5, key.shape[0]))
    m = sgd(r, rank=3, lr=0.03, reg=0.05, decay=0.9, biases=biases, iters=4, seed=2, threads=1)
    P, Q, bu, bi = _sgd_reference(r, 3, 0.03, 0.05, 0.9, 4, biases, seed=2)
    np.testing.assert_allclose(m.user_factors, P, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.item_factors, Q, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.user_bias, bu, atol=1e-12)
    np.testing.assert_allclose(m.item_bias, bi, atol=1e-12)


def _sgd_split_reference(r, rank, lr, reg, decay, iters, seed, item_part, parts):
    """Plain Python: each process runs surprise's updates over the ratings of the items it holds
    (user by user, items in increasing id order), every user starting the epoch from the same
    vector; an item lives on one process and is updated in place; the users' changes from all
    processes are added at the end of the epoch."""
    U, n = r.num_users, r.num_users + r.num_items
    F = np.random.default_rng(seed).normal(0.0, 0.1, (n, rank))
    b = np.zeros(n)
    order = np.lexsort((r.item, r.user))
    mean = r.rating.mean()
    for epoch in range(iters):
        step = lr * decay**epoch
        dF, db = np.zeros((parts, U, rank)), np.zeros((parts, U))
        for j in order:
            u, i = r.user[j], U + r.item[j]
            p = item_part[r.item[j]]
            pu, bu = F[u] + dF[p, u], b[u] + db[p, u]
            err = r.rating[j] - mean - (bu + b[i]) - pu @ F[i]
            db[p, u] += step * (err - reg * bu)
            b[i] += step * (err - reg * b[i])
            dF[p, u] += step * (err * F[i] - reg * pu)
            F[i] += step * (err * pu - reg * F[i])
        F[:U] += dF.sum(axis=0)
        b[:U] += db.sum(axis=0)
    return F[:U], F[U:], b[:U], b[U:]


def test_sgd_on_two_processes_equals_its_split_update_rule():
    from gas.algorithms.mf_fit import _Fit
    from gas.partition import partition

    rng = np.random.default_rng(12)
    u, i = rng.integers(0, 30, 400), rng.integers(0, 20, 400)
    key = np.unique(u * 100 + i)
    r = Ratings.from_arrays(key // 100, key % 100, rng.uniform(1, 5, key.shape[0]))
    m = sgd(r, rank=3, lr=0.03, reg=0.05, decay=0.9, iters=3, seed=2, procs=2, partition="hash")
    g = _Fit(r, "sgd", 3, 0.1, 2, None, True).graph
    a = partition(g, "hash", num_parts=2, seed=0)  # edge-cut: a rating goes with its item's part
    item_part = a.vertex_part[r.num_users :]
    assert len(set(item_part.tolist())) == 2  # both processes hold items
    P, Q, bu, bi = _sgd_split_reference(r, 3, 0.03, 0.05, 0.9, 3, 2, item_part, 2)
    np.testing.assert_allclose(m.user_factors, P, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.item_factors, Q, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.user_bias, bu, atol=1e-12)
    np.testing.assert_allclose(m.item_bias, bi, atol=1e-12)


def test_sgd_on_two_processes_reaches_the_one_process_rmse():
    from gas.datasets.synthetic_ratings import synthetic_ratings

    train, test = synthetic_ratings(1000, 300, 30000, rank=3, noise=0.1, seed=0).split(0.2, seed=0)
    one = sgd(train, rank=3, decay=0.95, iters=60, test=test, threads=1)
    two = sgd(train, rank=3, decay=0.95, iters=60, test=test, procs=2)
    # the criterion: the same test RMSE within 1 % (a user's steps on the two processes
    # see each other one epoch late, so the split run trails a little while converging)
    assert two.history[-1]["test_rmse"] == pytest.approx(one.history[-1]["test_rmse"], rel=0.01)


def test_sgd_on_processes_refuses_a_vertex_cut():
    r = _low_rank(10, 8, 2, keep=0.7)
    with pytest.raises(ValueError, match="edge-cut partitioner .*'hdrf'"):
        sgd(r, rank=2, iters=1, procs=2, partition="hdrf")


def test_sgd_learns_a_low_rank_matrix():
    r = _low_rank(40, 30, 3, keep=0.6, seed=8)
    train, test = r.split(0.2, seed=1)
    m = sgd(train, rank=3, lr=0.03, reg=0.01, decay=0.98, iters=80, test=test)
    rmse = [h["train_rmse"] for h in m.history]
    assert rmse[-1] < 0.3 * rmse[0]


# ---------------------------------------------------------------- quality on real data


def _bias_baseline(train: Ratings, test: Ratings, lam: float = 10.0) -> float:
    """numpy: mean + damped user and item biases (alternating ridge), the classic baseline."""
    mean = train.rating.mean()
    bu, bi = np.zeros(train.num_users), np.zeros(train.num_items)
    for _ in range(10):
        res = train.rating - mean - bu[train.user]
        bi = np.bincount(train.item, res, train.num_items) / (
            lam + np.bincount(train.item, None, train.num_items)
        )
        res = train.rating - mean - bi[train.item]
        bu = np.bincount(train.user, res, train.num_users) / (
            lam + np.bincount(train.user, None, train.num_users)
        )
    m = MFModel(
        np.zeros((train.num_users, 1)),
        np.zeros((train.num_items, 1)),
        bu,
        bi,
        mean,
        train.user_ids,
        train.item_ids,
        (float(train.rating.min()), float(train.rating.max())),
    )
    return m.rmse(test)


def test_movielens_small_beats_the_bias_baseline():
    # scikit-surprise SVD on this split (bench/mf.py, same run as gaslab): see bench/RESULTS.md
    r = gas.io.ratings.read_ratings(shared_path("ml-latest-small/ml-latest-small.zip"))
    train, test = r.split(0.2, seed=0)
    base = _bias_baseline(train, test)
    a = als(train, rank=20, iters=10).rmse(test)
    s = sgd(train, rank=20, iters=20).rmse(test)
    assert a < base - 0.003 and s < base - 0.003, (a, s, base)


# ---------------------------------------------------------------- model


def test_model_cold_start_save_load_and_recommend(tmp_path):
    r = Ratings.from_arrays(["a", "a", "b", "c"], ["x", "y", "x", "z"], [5.0, 1.0, 4.0, 2.0])
    m = als(r, rank=3, iters=3)
    p = m.predict(["a", "zzz", "a"], ["x", "x", "nope"])
    assert p.cold.tolist() == [False, True, True]
    # cold start: global mean plus the known side's bias (unclipped values are in range here)
    assert p.values[1] == pytest.approx(m.global_mean + m.item_bias[0])
    assert p.values[2] == pytest.approx(m.global_mean + m.user_bias[0])
    m.save(tmp_path / "model")
    back = MFModel.load(tmp_path / "model")
    assert back.user_ids.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(
        back.predict(["a", "b"], ["y", "z"]).values, m.predict(["a", "b"], ["y", "z"]).values
    )
    items, _ = back.recommend("a", top=5)
    assert items.tolist() == ["z"]  # x and y were rated by a in training
    items, _ = back.recommend("a", top=5, exclude_seen=False)
    assert sorted(items.tolist()) == ["x", "y", "z"]
    # overwrite an older model in place; refuse a folder that is not a model
    m.save(tmp_path / "model")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(GasError, match="refusing"):
        m.save(tmp_path / "other")
    assert (tmp_path / "other" / "keep.txt").read_text() == "mine"
    meta = json.loads((tmp_path / "model" / "meta.json").read_text())
    assert meta["algorithm"] == "als" and meta["rank"] == 3
    with pytest.raises(InputError, match="no meta.json"):
        MFModel.load(tmp_path / "other")


# ---------------------------------------------------------------- CLI


def test_cli_train_predict_recommend(tmp_path, capsys):
    rng = np.random.default_rng(0)
    u, i = rng.integers(0, 30, 400), rng.integers(0, 20, 400)
    ratings = tmp_path / "r.csv"
    ratings.write_text(
        "user,item,rating\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(u, i, rng.integers(1, 6, 400)))
    )
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(f"{u[0]} {i[0]} ignored\n999 {i[0]}\n")
    out = tmp_path / "pred.tsv"
    model = tmp_path / "model"
    rc = main(
        ["als", str(ratings), "--rank", "3", "--iters", "3", "--test-fraction", "0.2", "--seed", "0",
         "--save-model", str(model), "--predict", str(pairs), "--output", str(out)]
    )  # fmt: skip
    assert rc == 0
    cap = capsys.readouterr()
    assert "iter    3  train RMSE" in cap.err and "test RMSE" in cap.err
    assert "cold start" in cap.err
    stdout = dict(line.split("\t") for line in cap.out.splitlines())
    assert stdout["test_ratings"] == "80"
    lines = [ln.split("\t") for ln in out.read_text().splitlines()]
    assert [ln[:2] for ln in lines] == [[str(u[0]), str(i[0])], ["999", str(i[0])]]
    m = MFModel.load(model)
    assert float(lines[1][2]) == pytest.approx(m.predict([999], [i[0]]).values[0], rel=1e-5)
    assert main(["recommend", str(model), "--user", str(u[0]), "--top", "3"]) == 0
    rec = capsys.readouterr().out.splitlines()
    assert rec[0] == "item\tscore" and len(rec) == 4
    assert main(["sgd", str(ratings), "--rank", "3", "--iters", "2", "--no-biases", "-q"]) == 0
    capsys.readouterr()
    # a separate test file, predictions to stdout
    test_file = tmp_path / "test.tsv"
    test_file.write_text(f"{u[1]}\t{i[1]}\t4\n12345\t{i[1]}\t2\n")
    assert main(["als", str(ratings), "--rank", "3", "--iters", "2", "--test", str(test_file), "-q",
                 "--predict", str(pairs)]) == 0  # fmt: skip
    out_lines = capsys.readouterr().out.splitlines()
    assert "test_ratings\t2" in out_lines and "test_cold_start\t1" in out_lines
    assert out_lines[-2].startswith(f"{u[0]}\t{i[0]}\t") and out_lines[-1].startswith(f"999\t{i[0]}\t")
    # two processes: per-iteration times on stderr, RMSEs of the last iteration only
    assert (
        main(["als", str(ratings), "--rank", "3", "--iters", "2", "--test-fraction", "0.2", "--procs", "2"])
        == 0
    )
    cap = capsys.readouterr()
    assert "iter    1  " in cap.err and "iter    2  train RMSE" in cap.err and "test_rmse\t" in cap.out
    assert main(["sgd", str(ratings), "--rank", "3", "--iters", "2", "-q", "--procs", "2"]) == 0
    assert "iterations\t2" in capsys.readouterr().out
    assert main(["als", str(ratings), "--rank", "3", "--iters", "2", "--procs", "2", "--staleness", "1"]) == 0
    assert "staleness bound 1: observed mean" in capsys.readouterr().err
    bad = ["sgd", str(ratings), "--iters", "2", "-q", "--procs", "2", "--partition", "grid"]
    assert main(bad) == 2 and "needs an edge-cut partitioner" in capsys.readouterr().err


def test_cli_bad_ratings_exit_2_with_file_and_line(tmp_path, capsys):
    p = tmp_path / "bad.txt"
    p.write_text("1 2 4\n1 3 nan\n")
    assert main(["als", str(p), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gas: error:") and f"{p}:2:" in err and "not finite" in err
