"""Matrix factorization: gaslab ALS and SGD against implicit and scikit-surprise, side by side.

Usage: python -m bench.mf [--ratings 10000000 --users 100000 --items 20000] [--rank 20]
       [--threads 2] [--iters 3] [--rounds 2] [--skip-quality] [--skip-speed] [--no-write]
       [--shape synthetic|ml-latest-small|FilmTrust] [--solver cholesky|cg] [--dtype float32]
       [--als-only]
       [--blas-threads 1]

Quality (when ../shared/datasets is present): ml-latest-small and FilmTrust, a random 80/20 split
of the ratings (``Ratings.split(0.2, seed=0)``), test RMSE of gaslab ALS and SGD with their
defaults, scikit-surprise ``SVD()`` with its defaults (biased SGD MF, 100 factors, 20 epochs,
``random_state=0``) trained on the same training ratings, and a bias-only baseline.

Speed: a synthetic rank-20 + noise set (``gas.datasets.synthetic_ratings``; default 10 M ratings,
100 k users x 20 k items, Zipf-like item popularity). Seconds per epoch and ratings/s of

* gaslab ALS (``gas.algorithms.als``) vs implicit's CPU ALS (``AlternatingLeastSquares``, same
  rank and threads, its BLAS held to one thread as implicit recommends, conjugate-gradient
  solver by default), and
* gaslab SGD (``gas.algorithms.sgd``) vs surprise ``SVD`` (same rank; surprise is single-threaded
  and has no thread option).

An epoch is one pass over all ratings (ALS: every user solved, then every item). gaslab's time is
the engine's (graph built once, before); implicit's comes from its per-iteration callback;
surprise's is its ``fit`` time on a prebuilt trainset divided by the epochs (its trainset build
is reported separately). Every solver gets one untimed warm-up (compile) and the best of
``--rounds`` timed rounds, the rounds interleaved so that load from other jobs hits all alike.
``--shape`` times the ratings of ml-latest-small or FilmTrust instead of the synthetic set.

Conditions of the run are printed and recorded (a later run can tell why it differs): the CPU
model, the threads of each side (gaslab's Numba threads and threading layer, implicit's
``num_threads``), every BLAS/OpenMP pool threadpoolctl sees outside and inside implicit's
``threadpool_limits`` (implicit warns when OpenBLAS has more than one thread), the thread
environment variables, and the load average before and after every measured round. The ALS ratio
depends on load: both sides run on every thread they are given (gaslab's half-steps since the
engine's vertex ranges run in a spread order, bench/RESULTS.md), so a second core that is busy
elsewhere slows both, but not always by the same amount.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from gas.algorithms.als import als
from gas.algorithms.mf_model import MFModel
from gas.algorithms.sgd import sgd
from gas.datasets import synthetic_ratings
from gas.io.ratings import Ratings, read_ratings

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.mf")

from ._results import write_section
from .compare_trees import cpu_model

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"{a:.1f} / {b:.1f} / {c:.1f}"


_THREAD_ENV = (
    "NUMBA_NUM_THREADS",
    "NUMBA_THREADING_LAYER",
    "OMP_NUM_THREADS",
    "OMP_WAIT_POLICY",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
)


def _pools() -> str:
    """The thread pools threadpoolctl sees: ``prefix (api): threads`` each."""
    from threadpoolctl import threadpool_info

    return ", ".join(f"{p['prefix']} ({p['user_api']}): {p['num_threads']}" for p in threadpool_info())


def conditions(threads: int, blas_threads: int) -> dict[str, str]:
    """What a later run needs to tell why its figures differ: CPU, threads of each side, BLAS."""
    import numba
    from threadpoolctl import threadpool_limits

    try:
        layer = numba.threading_layer()  # known once a parallel kernel has run
    except ValueError:
        layer = "not yet chosen"
    with threadpool_limits(blas_threads, "blas"):
        inside = _pools()
    env = ", ".join(f"{k}={os.environ[k]}" for k in _THREAD_ENV if k in os.environ) or "none set"
    return {
        "cpu": f"{cpu_model()}, {os.cpu_count()} CPUs",
        "gaslab": f"{threads} Numba threads (NUMBA_NUM_THREADS {numba.config.NUMBA_NUM_THREADS}, "
        f"layer {layer})",
        "implicit": f"num_threads={threads}, BLAS held to {blas_threads} by threadpool_limits",
        "pools": _pools(),
        "pools_in_implicit": inside,
        "env": env,
    }


# ------------------------------------------------------------------ peers


def _surprise_data(r: Ratings, scale: tuple[float, float]):
    import pandas as pd
    from surprise import Dataset, Reader

    u, i, x = r.original()
    df = pd.DataFrame({"u": u, "i": i, "r": x})
    return Dataset.load_from_df(df, Reader(rating_scale=scale))


def surprise_rmse(train: Ratings, test: Ratings, scale: tuple[float, float]) -> float:
    from surprise import SVD

    algo = SVD(random_state=0)
    algo.fit(_surprise_data(train, scale).build_full_trainset())
    tu, ti, tx = test.original()
    pred = np.array([algo.predict(a, b).est for a, b in zip(tu.tolist(), ti.tolist())])
    return float(np.sqrt(np.mean((pred - tx) ** 2)))


def bias_baseline_rmse(train: Ratings, test: Ratings, lam: float = 10.0) -> float:
    """Global mean + damped user and item biases (10 alternating ridge passes)."""
    mean = train.rating.mean()
    bu, bi = np.zeros(train.num_users), np.zeros(train.num_items)
    cu = np.bincount(train.user, minlength=train.num_users)
    ci = np.bincount(train.item, minlength=train.num_items)
    for _ in range(10):
        bi = np.bincount(train.item, train.rating - mean - bu[train.user], train.num_items) / (lam + ci)
        bu = np.bincount(train.user, train.rating - mean - bi[train.item], train.num_users) / (lam + cu)
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


# ------------------------------------------------------------------ quality


def _quality_sets():
    """``(name, all ratings, train, test)`` of each real dataset present (80/20 split, seed 0)."""
    sets = [
        ("ml-latest-small", SHARED / "ml-latest-small" / "ml-latest-small.zip"),
        ("FilmTrust", SHARED / "filmtrust" / "ratings.txt"),
    ]
    for name, path in sets:
        if not path.exists():
            print(f"skip {name}: {path} not found", flush=True)
            continue
        r = read_ratings(path)
        yield (name, r, *r.split(0.2, seed=0))


def quality(threads: int) -> list[tuple]:
    rows = []
    for name, r, train, test in _quality_sets():
        scale = (float(r.rating.min()), float(r.rating.max()))
        t0 = time.perf_counter()
        s = surprise_rmse(train, test, scale)
        ts = time.perf_counter() - t0
        t0 = time.perf_counter()
        a = als(train, threads=threads).rmse(test)
        ta = time.perf_counter() - t0
        t0 = time.perf_counter()
        g = sgd(train, threads=threads).rmse(test)
        tg = time.perf_counter() - t0
        b = bias_baseline_rmse(train, test)
        print(f"{name}: surprise SVD {s:.4f}  ALS {a:.4f}  SGD {g:.4f}  baseline {b:.4f}", flush=True)
        rows.append((name, len(r), len(train), len(test), s, ts, a, ta, g, tg, b))
    return rows


def procs_quality(threads: int, procs: int) -> list[tuple]:
    """Test RMSE with one process against ``procs`` local processes (same defaults, same split)."""
    rows = []
    for name, _r, train, test in _quality_sets():
        for algo, fn, part in (("ALS", als, "hdrf"), ("SGD", sgd, "hash")):
            t0 = time.perf_counter()
            one = fn(train, threads=threads).rmse(test)
            t1 = time.perf_counter() - t0
            t0 = time.perf_counter()
            many = fn(train, procs=procs, partition=part).rmse(test)
            tn = time.perf_counter() - t0
            print(f"{name} {algo}: 1 process {one:.4f}  {procs} processes ({part}) {many:.4f}", flush=True)
            rows.append((name, algo, part, one, many, t1, tn))
    return rows


def solver_quality(threads: int) -> list[tuple]:
    """Test RMSE of gaslab ALS (defaults: 10 iterations, reg 0.1 weighted, biases) with each solver
    and factor dtype at rank 20 and 64 on the quality split, and the best epoch's seconds."""
    rows = []
    for name, _r, train, test in _quality_sets():
        for rank in (20, 64):
            for solver, dtype in (
                ("cholesky", "float64"),
                ("cg", "float64"),
                ("cholesky", "float32"),
                ("cg", "float32"),
            ):
                m = als(train, rank=rank, test=test, threads=threads, solver=solver, dtype=dtype)
                last = m.history[-1]
                sec = min(h["seconds"] for h in m.history)
                print(
                    f"{name} rank {rank} {solver} {dtype}: test RMSE {last['test_rmse']:.4f}, train RMSE "
                    f"{last['train_rmse']:.4f} after {len(m.history)} iterations, {sec:.3f} s/epoch",
                    flush=True,
                )
                rows.append((name, rank, f"{solver} {dtype}", last["test_rmse"], last["train_rmse"], sec))
    return rows


# ------------------------------------------------------------------ speed


def speed(args: argparse.Namespace) -> dict:
    from threadpoolctl import threadpool_limits

    t0 = time.perf_counter()
    if args.shape == "synthetic":
        r = synthetic_ratings(args.users, args.items, args.ratings, rank=20, noise=0.5, seed=0)
    else:
        r = next(x[1] for x in _quality_sets() if x[0] == args.shape)
    gen = time.perf_counter() - t0
    n = len(r)
    print(
        f"{args.shape}: {n:,d} ratings, {r.num_users:,d} users, {r.num_items:,d} items ({gen:.1f} s)",
        flush=True,
    )
    k, th, iters = args.rank, args.threads, args.iters
    kw = {} if args.solver is None else {"solver": args.solver}
    if args.dtype is not None:
        kw["dtype"] = args.dtype

    import scipy.sparse as sp
    from implicit.cpu.als import AlternatingLeastSquares

    csr = sp.csr_matrix((r.rating.astype(np.float32), (r.user, r.item)), shape=(r.num_users, r.num_items))
    t0 = time.perf_counter()
    trainset = None
    if not args.als_only:
        trainset = _surprise_data(r, (float(r.rating.min()), float(r.rating.max()))).build_full_trainset()
    surprise_build = time.perf_counter() - t0
    print(f"surprise trainset build: {surprise_build:.1f} s", flush=True)

    def gas_als():
        return min(h["seconds"] for h in als(r, rank=k, iters=iters, threads=th, **kw).history)

    def gas_sgd():
        return min(h["seconds"] for h in sgd(r, rank=k, iters=iters, threads=th).history)

    def implicit_als():
        stamps = []
        with threadpool_limits(args.blas_threads, "blas"):
            model = AlternatingLeastSquares(
                factors=k,
                regularization=0.1,
                iterations=iters,
                num_threads=th,
                random_state=0,
                calculate_training_loss=False,
            )
            t0 = time.perf_counter()
            model.fit(csr, show_progress=False, callback=lambda *a: stamps.append(time.perf_counter()))
        times = np.diff([t0, *stamps])
        return float(times.min())

    def surprise_svd():
        from surprise import SVD

        algo = SVD(n_factors=k, n_epochs=iters, random_state=0)
        t0 = time.perf_counter()
        algo.fit(trainset)
        return (time.perf_counter() - t0) / iters

    # warm-ups: compile gaslab's kernels for this rank (small set), implicit's first call
    small = synthetic_ratings(2000, 500, 20000, seed=1)
    als(small, rank=k, iters=1, threads=th, **kw)
    sgd(small, rank=k, iters=1, threads=th)
    solvers = {"gaslab ALS": gas_als, "implicit ALS": implicit_als}
    if not args.als_only:
        solvers.update({"gaslab SGD": gas_sgd, "surprise SVD": surprise_svd})
    cond = conditions(th, args.blas_threads)
    for key, val in cond.items():
        print(f"conditions: {key}: {val}", flush=True)
    best = {name: float("inf") for name in solvers}
    per_round: dict[str, list[float]] = {name: [] for name in solvers}
    loads: dict[str, list[str]] = {name: [] for name in solvers}
    load_start = _load()
    for rnd in range(args.rounds):
        for name, fn in solvers.items():
            before = _load()
            sec = fn()
            after = _load()
            best[name] = min(best[name], sec)
            per_round[name].append(sec)
            loads[name].append(f"{before} -> {after}")
            print(
                f"round {rnd}: {name}: {sec:.3f} s/epoch ({n / sec / 1e6:.2f} M ratings/s), "
                f"load {before} -> {after}",
                flush=True,
            )
    for peer, ours in (("implicit ALS", "gaslab ALS"), ("surprise SVD", "gaslab SGD")):
        if peer in per_round:
            pairs = ", ".join(f"{p / o:.2f}" for p, o in zip(per_round[peer], per_round[ours]))
            print(f"paired {ours} speed-up over {peer} per round: {pairs}", flush=True)
    return {
        "conditions": cond,
        "loads": loads,
        "n": n,
        "users": r.num_users,
        "items": r.num_items,
        "best": best,
        "rounds": per_round,
        "surprise_build": surprise_build,
        "load_start": load_start,
        "load_end": _load(),
    }


def _versions() -> str:
    import implicit
    import numba

    try:
        import surprise

        sv = surprise.__version__
    except ImportError:
        sv = "not installed"
    return (
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"implicit {implicit.__version__}, scikit-surprise {sv}"
    )


def _procs_section(args: argparse.Namespace) -> None:
    rows = procs_quality(args.threads, args.procs)
    lines = [
        f"`python -m bench.mf --procs {args.procs}` ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, "
        f"{_versions()}). The quality split and defaults of the table above; one process with "
        f"{args.threads} threads against {args.procs} local processes (`procs={args.procs}`, each with "
        f"cores / {args.procs} threads). ALS on an HDRF vertex-cut; SGD on a hash edge-cut (each item's "
        "ratings on one process, users' changes added up at the end of each epoch). Seconds include "
        "starting the workers and partitioning.",
        "",
        "| dataset | algorithm | partition | test RMSE, 1 process | test RMSE, "
        f"{args.procs} processes | difference | seconds (1 / {args.procs}) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for name, algo, part, one, many, t1, tn in rows:
        lines.append(
            f"| {name} | {algo} | {part} | {one:.4f} | {many:.4f} | {100 * (many / one - 1):+.2f} % "
            f"| {t1:.2f} / {tn:.2f} |"
        )
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("Matrix factorization on processes", text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ratings", type=int, default=10_000_000)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--rank", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iters", type=int, default=3, help="epochs per timed round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--shape",
        choices=("synthetic", "ml-latest-small", "FilmTrust"),
        default="synthetic",
        help="time ALS/SGD on these ratings (ml-latest-small, FilmTrust: the real set, all ratings)",
    )
    ap.add_argument("--solver", default=None, help="gaslab ALS solver (default: als()'s default)")
    ap.add_argument(
        "--dtype", default=None, help="gaslab ALS factor storage, float64 or float32 (default: als()'s)"
    )
    ap.add_argument("--als-only", action="store_true", help="time gaslab ALS and implicit only")
    ap.add_argument("--blas-threads", type=int, default=1, help="implicit's BLAS threads (1: its advice)")
    ap.add_argument(
        "--procs",
        type=int,
        default=0,
        help="only compare test RMSE of one process with this many (own section in RESULTS.md)",
    )
    ap.add_argument(
        "--solver-quality",
        action="store_true",
        help="only print gaslab ALS's test RMSE with each solver (rank 20 and 64, 10 iterations)",
    )
    args = ap.parse_args()
    if args.solver_quality:
        solver_quality(args.threads)
        return
    if args.procs:
        _procs_section(args)
        return
    qrows = [] if args.skip_quality else quality(args.threads)
    sp = None if args.skip_speed else speed(args)
    if args.no_write:
        return

    lines = [
        f"`python -m bench.mf` ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, {_versions()}).",
    ]
    if qrows:
        lines += [
            "",
            "### Quality: test RMSE on a random 80/20 split (seed 0)",
            "",
            "gaslab with its defaults (ALS: rank 20, weighted-lambda reg 0.1, biases, 10 iterations; "
            "SGD: rank 20, lr 0.02, reg 0.05, decay 0.9, biases, 20 epochs); scikit-surprise `SVD()` "
            "with its defaults (100 factors, lr 0.005, reg 0.02, 20 epochs, `random_state=0`); the "
            "baseline is mean + damped user/item biases (lambda 10). Same training ratings for all "
            "(FilmTrust's 3 repeated pairs: gaslab keeps the last rating, surprise both). The defaults "
            "were chosen on a validation split carved from the training ratings, never the test split.",
            "",
            "| dataset | ratings | train / test | surprise SVD | gaslab ALS | gaslab SGD | bias baseline "
            "| seconds (surprise / ALS / SGD) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, nr, ntr, nte, s, ts, a, ta, g, tg, b in qrows:
            lines.append(
                f"| {name} | {nr:,d} | {ntr:,d} / {nte:,d} | {s:.4f} | {a:.4f} | {g:.4f} | {b:.4f} "
                f"| {ts:.2f} / {ta:.2f} / {tg:.2f} |"
            )
    if sp:
        b, n, rr = sp["best"], sp["n"], sp["rounds"]

        def each(peer: str, ours: str) -> str:
            return ", ".join(f"{p / o:.2f}" for p, o in zip(rr[peer], rr[ours]))

        c = sp["conditions"]
        what = "synthetic rank-20 + noise" if args.shape == "synthetic" else f"the {args.shape} ratings"
        lines += [
            "",
            f"### Speed: {what}, {n:,d} ratings, {sp['users']:,d} users x {sp['items']:,d} items",
            "",
            f"Rank {args.rank}, gaslab ALS solver {args.solver or 'default'} {args.dtype or ''}, "
            f"{args.threads} threads "
            f"(surprise: 1, it has no thread option), best epoch of {args.rounds} interleaved rounds of "
            f"{args.iters} epochs after a warm-up. Load average (1/5/15 min) {sp['load_start']} at the "
            f"start of the timed rounds and {sp['load_end']} at the end: the 2 cores were shared with "
            "other jobs, so absolute numbers are pessimistic; the ratios come from the same run. "
            f"Conditions: {c['cpu']}; gaslab {c['gaslab']}; implicit {c['implicit']}; thread pools "
            f"{c['pools']} (inside implicit's limit: {c['pools_in_implicit']}); environment {c['env']}.",
            "",
            "| solver | s / epoch | M ratings/s | gaslab speed-up (best vs best) | speed-up in each round |",
            "|---|---:|---:|---:|---|",
            f"| gaslab ALS | {b['gaslab ALS']:.3f} | {n / b['gaslab ALS'] / 1e6:.2f} | | |",
            f"| implicit ALS (CPU, CG) | {b['implicit ALS']:.3f} | {n / b['implicit ALS'] / 1e6:.2f} "
            f"| {b['implicit ALS'] / b['gaslab ALS']:.2f}x | {each('implicit ALS', 'gaslab ALS')} |",
        ]
        if "gaslab SGD" in b:
            lines += [
                f"| gaslab SGD | {b['gaslab SGD']:.3f} | {n / b['gaslab SGD'] / 1e6:.2f} | | |",
                f"| surprise SVD | {b['surprise SVD']:.3f} | {n / b['surprise SVD'] / 1e6:.2f} "
                f"| {b['surprise SVD'] / b['gaslab SGD']:.2f}x | {each('surprise SVD', 'gaslab SGD')} |",
                "",
                f"surprise also spent {sp['surprise_build']:.1f} s building its trainset (once, not in "
                "the table).",
            ]
        lines += [
            "",
            "Load average before -> after each measured round: "
            + "; ".join(f"{name}: {', '.join(v)}" for name, v in sp["loads"].items())
            + ". implicit's ALS is the implicit-feedback model (confidence-weighted, every "
            "item of every user through its Gram-matrix trick), so it is the same rank and threads "
            "but not the same objective; the issue names it as the ALS peer.",
        ]
    write_section("Matrix factorization", "\n".join(lines))


if __name__ == "__main__":
    main()
