"""ALS with conjugate-gradient solves (``als(solver="cg")``, :class:`ALSCGProgram`).

Independent reference: ``numpy.linalg.lstsq`` on the ridge problem written as an ordinary least
squares problem, ``[X; sqrt(lam) I] w = [y; 0]`` (its solution is the ridge solution
``(X^T X + lam I)^-1 X^T y``), solved without forming the normal equations.
"""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas.algorithms.als import ALSCGProgram, ALSProgram, als, layout
from gas.algorithms.mf_fit import _two_way
from gas.cli import main
from gas.errors import InputError
from gas.io.ratings import Ratings


def _ratings(seed: int = 5, nu: int = 15, ni: int = 11, n: int = 120) -> Ratings:
    rng = np.random.default_rng(seed)
    u, i = rng.integers(0, nu, n), rng.integers(0, ni, n)
    return Ratings.from_arrays(u, i, rng.uniform(1, 5, n))


def _ridge(X: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """argmin |X w - y|^2 + lam |w|^2 by lstsq on the stacked system (no normal equations)."""
    d = X.shape[1]
    A = np.vstack([X, np.sqrt(lam) * np.eye(d)])
    b = np.concatenate([y, np.zeros(d)])
    return np.linalg.lstsq(A, b, rcond=None)[0]


@pytest.mark.parametrize("weighted", [False, True])
def test_cg_half_step_with_d_steps_is_the_ridge_solution(weighted):
    # CG on a d x d symmetric positive definite system ends at its solution after d steps (in
    # exact arithmetic); one users' half-step is one superstep of d + 1 inner steps
    r = _ratings()
    g, U = r.graph(), r.num_users
    k, reg, mean = 3, 0.3, 2.5
    d, _ = layout(k, True)
    prog = ALSCGProgram(k, reg, weighted, True, mean, seed=4, init_std=1.0, cg_steps=d)
    eng = gas.SyncEngine(g, prog)
    eng.run(max_iter=0)  # init only: the starting vectors
    start = eng.columns["w"].copy()
    assert prog.inner_steps == d + 1 and prog.half_step_supersteps == 1
    eng.run(max_iter=1, active=np.arange(U))  # init runs again and draws the same start
    got = eng.columns["w"]
    for user in range(U):
        es = np.arange(g.out_indptr[user], g.out_indptr[user + 1])
        items = g.dst[es]
        X = np.hstack([start[items, :k], np.ones((len(es), 1))])
        y = g.weights[es] - mean - start[items, k]
        lam = reg * len(es) if weighted else reg
        np.testing.assert_allclose(got[user, :d], _ridge(X, y, lam), rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(got[U:], start[U:])  # items did not run


@pytest.mark.parametrize("solver", ["cholesky", "cg"])
def test_float32_two_way_half_steps_are_the_ridge_solutions(solver):
    # factors stored in float32 on the graph with each rating both ways (what als() runs): the
    # users' half-step and then the items' are the ridge solutions (lstsq, float64) from the
    # stored float32 vectors, to float32 rounding; CG with d steps as above
    r = _ratings(seed=6)
    U = r.num_users
    g = _two_way(r.graph())
    k, reg, mean = 3, 0.3, 2.5
    d, _ = layout(k, True)
    kw = {"cg_steps": d} if solver == "cg" else {}
    program = ALSCGProgram if solver == "cg" else ALSProgram
    half = 1  # a half-step is one superstep with either solver

    def run(steps: int) -> np.ndarray:
        prog = program(k, reg, True, True, mean, 4, 1.0, np.float32, True, **kw)
        eng = gas.SyncEngine(g, prog)
        eng.run(max_iter=steps, active=np.arange(U))
        assert eng.columns["w"].dtype == np.float32
        return eng.columns["w"].astype(np.float64)

    start, users, both = run(0), run(half), run(2 * half)
    m = g.out_indptr[U]  # the user -> item edges come first
    for v in range(g.num_vertices):
        es = np.arange(g.out_indptr[v], g.out_indptr[v + 1])
        fixed = start if v < U else users  # the other side's vectors when v solves
        X = np.hstack([fixed[g.dst[es], :k], np.ones((len(es), 1))])
        y = g.weights[es] - mean - fixed[g.dst[es], k]
        got = (users if v < U else both)[v, :d]
        np.testing.assert_allclose(got, _ridge(X, y, reg * len(es)), rtol=2e-5, atol=2e-6)
    assert g.num_edges == 2 * m == 2 * r.graph().num_edges  # repeated pairs kept once
    # als(dtype="float32"): the same test RMSE as float64 to float32 rounding, float64 factors out
    tr, te = r.split(0.25, seed=1)
    f32, f64 = (als(tr, rank=k, iters=5, solver=solver, dtype=dt) for dt in ("float32", "float64"))
    assert f32.user_factors.dtype == np.float64 and f32.params["dtype"] == "float32"
    assert f32.rmse(te) == pytest.approx(f64.rmse(te), rel=1e-4)


def test_cg_and_cholesky_reach_the_same_fixed_point():
    # same start, same objective: after enough iterations both solvers sit at the same factors
    r = _ratings(seed=3, nu=20, ni=14, n=200)
    exact = als(r, rank=2, reg=0.2, iters=150)
    cg = als(r, rank=2, reg=0.2, iters=150, solver="cg", cg_steps=3)
    uu, ii = (a.ravel() for a in np.meshgrid(np.arange(r.num_users), np.arange(r.num_items)))
    np.testing.assert_allclose(
        cg.predict_internal(uu, ii, clip=False), exact.predict_internal(uu, ii, clip=False), atol=1e-6
    )
    assert cg.params["solver"] == "cg" and cg.params["cg_steps"] == 3
    assert exact.params["solver"] == "cholesky"
    # few steps per half-step are approximate, but after a few iterations close to exact
    few, few_exact = (als(r, rank=2, reg=0.2, iters=10, **kw) for kw in ({"solver": "cg"}, {}))
    assert abs(few.rmse(r) - few_exact.rmse(r)) < 1e-3


@pytest.mark.parametrize(
    "kw",
    [
        {"solver": "qr"},
        {"solver": "cg", "cg_steps": 0},
        {"solver": "cg", "procs": 2, "staleness": 1},
        {"solver": "cg", "procs": 2},
        {"solver": "cg", "engine": "async"},
        {"dtype": "int64"},
        {"dtype": "float16"},
    ],
)
def test_cg_bad_arguments_are_input_errors(kw):
    with pytest.raises(InputError):
        als(_ratings(), rank=2, iters=1, **kw)


def test_cli_solver_flag(tmp_path, capsys):
    r = _ratings()
    u, i, x = r.original()
    path = tmp_path / "r.tsv"
    path.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in zip(u, i, x)))
    assert main(["als", str(path), "--rank", "4", "--iters", "2", "--solver", "cg", "-q"]) == 0
    out = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    # rank 4 + bias: 5 unknowns, so 3 CG steps are not the exact solve and the two solvers differ
    cg, exact = (als(r, rank=4, iters=2, solver=s, progress=print) for s in ("cg", "cholesky"))
    got = float(out["train_rmse"])  # printed to 6 places
    assert got == pytest.approx(cg.history[-1]["train_rmse"], abs=2e-6)
    assert got != pytest.approx(exact.history[-1]["train_rmse"], abs=2e-6)
