"""``gas als``, ``gas sgd`` and ``gas recommend``: matrix factorization from the command line.

``gas als RATINGS`` / ``gas sgd RATINGS`` train on a ratings file (``user item rating
[timestamp]``; see :func:`gas.io.ratings.read_ratings`), print the train and test RMSE of every
iteration on stderr, and then, on stdout, ``key<TAB>value`` lines with the final RMSEs.
``--test FILE`` or ``--test-fraction F`` (split with ``--seed``) gives the held-out set;
``--save-model DIR`` writes the model folder; ``--predict PAIRS`` writes
``user<TAB>item<TAB>prediction`` with the original ids (to ``--output`` or stdout). Pairs with a
user or item the training set lacks are predicted as the global mean (plus the known side's
bias), and their number is reported. ``gas recommend MODEL --user ID`` lists the best unseen
items of a saved model.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from gas.cli.args import (
    finite_float,
    nonneg_float,
    nonneg_int,
    positive_float,
    positive_int,
    procs,
)
from gas.cli.common import HelpFormatter, add_async_options, add_deprecated_flag, add_unconverged_option
from gas.cli.hints import cli_message
from gas.cli.stats import StatsRecorder, add_stats_options
from gas.errors import ConvergenceError, GasError

__all__ = ["register"]


def _open_fraction(text: str) -> float:
    """``--test-fraction``: a number strictly between 0 and 1."""
    x = finite_float(text)
    if not 0.0 < x < 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1), got {text!r}")
    return x


def _decay(text: str) -> float:
    """``--decay``: a step multiplier in ``(0, 1]``."""
    x = finite_float(text)
    if not 0.0 < x <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return x


def _common(p: argparse.ArgumentParser, iters: int) -> None:
    p.add_argument("file", metavar="RATINGS", help="ratings file: user item rating [timestamp] (.gz/.zip ok)")
    p.add_argument("--rank", type=positive_int, default=20, help="number of latent factors")
    p.add_argument("--iters", type=positive_int, default=iters, help="iterations (epochs)")
    p.add_argument(
        "--biases", action=argparse.BooleanOptionalAction, default=True, help="learn user and item biases"
    )
    p.add_argument(
        "--init-std", type=nonneg_float, default=0.1, help="standard deviation of the starting factors"
    )
    test = p.add_mutually_exclusive_group()
    test.add_argument("--test", metavar="FILE", default=None, help="held-out ratings to report the RMSE on")
    test.add_argument(
        "--test-fraction",
        type=_open_fraction,
        default=None,
        help="hold out this random fraction of RATINGS as the test set",
    )
    p.add_argument("--seed", type=nonneg_int, default=0, help="seed of the split and of the starting factors")
    p.add_argument("--save-model", metavar="DIR", default=None, help="write the trained model to this folder")
    p.add_argument("--predict", metavar="PAIRS", default=None, help="predict these 'user item' pairs")
    p.add_argument(
        "--output", "-o", metavar="FILE", default=None, help="where --predict writes (default: stdout)"
    )
    p.add_argument("--threads", type=positive_int, default=None, help="Numba threads (default: all cores)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    add_unconverged_option(p)  # a diverged run (exit status 3) has no finite model: nothing is written
    add_stats_options(p)
    _add_engine_options(p)


def _add_engine_options(p: argparse.ArgumentParser) -> None:
    """``--engine``, ``--scheduler``, ``--consistency`` as the graph subcommands declare them
    (:func:`gas.cli.common.add_async_options`); ALS and SGD default to ``edge`` consistency."""
    add_async_options(p)
    for action in p._actions:
        if action.dest == "consistency":
            action.help = "async engine: consistency model (default: edge; see gas.algorithms.mf_async)"


def _add_async_als_options(p: argparse.ArgumentParser) -> None:
    """ALS's ``--tol`` and ``--priority-ratio``, for ``--engine async`` (:func:`gas.algorithms.als`)."""
    p.add_argument(
        "--tol",
        type=nonneg_float,
        default=1e-3,
        help="--engine async: a vertex whose vector moved more than this reschedules its neighbours",
    )
    p.add_argument(
        "--priority-ratio",
        type=nonneg_float,
        default=0.01,
        help="--scheduler priority: a round runs the vertices of at least this share of the top priority",
    )


def _add_regularization(p: argparse.ArgumentParser) -> None:
    """ALS's ``--reg`` and ``--weighted-lambda`` (``--weighted`` before issue 21: a hidden,
    deprecated spelling, since ``--weighted`` means edge weights on the graph subcommands)."""
    p.add_argument(
        "--reg",
        type=nonneg_float,
        default=0.1,
        help="regularization (times each user's or item's number of ratings with --weighted-lambda)",
    )
    p.add_argument(
        "--weighted-lambda",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="weighted-lambda regularization (Zhou et al. 2008): lambda * number of ratings",
    )
    for old, value in (("--weighted", True), ("--no-weighted", False)):
        new = "--weighted-lambda" if value else "--no-weighted-lambda"
        add_deprecated_flag(p, old, dest="weighted_lambda", const=value, note=f"use {new}")


def register(subparsers: Any) -> None:
    """Add the ``als``, ``sgd`` and ``recommend`` subcommands to the ``gas`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> a = parser.parse_args(["als", "ratings.tsv", "--rank", "8"])
    >>> a.algorithm, a.rank, a.iters, a.reg
    ('als', 8, 10, 0.1)
    """
    fmt = HelpFormatter
    p = subparsers.add_parser(
        "als",
        help="matrix factorization by alternating least squares",
        formatter_class=fmt,
        description="Alternating least squares on a ratings file (users and items as a bipartite "
        "graph). Per-iteration RMSE on stderr; final RMSEs on stdout.",
    )
    _common(p, 10)
    _add_regularization(p)
    p.add_argument("--procs", type=procs, default=1, help="run on this many local processes")
    p.add_argument("--partition", default="hdrf", help="partitioner for --procs > 1")
    p.add_argument(
        "--staleness",
        type=nonneg_int,
        default=None,
        metavar="S",
        help="bounded staleness (SSP) with --procs: a process may run S half-steps ahead of the slowest",
    )
    p.add_argument(
        "--straggler",
        default=None,
        metavar="RANK:SECONDS",
        help="slow one process (RANK, or any: a different one each half-step), for experiments",
    )
    _add_async_als_options(p)
    p.add_argument(
        "--solver",
        choices=("cholesky", "cg"),
        default="cholesky",
        help="each vertex's solve: exact normal equations (cholesky) or 3 warm-started CG steps (cg)",
    )
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64", help="factor storage")
    p.set_defaults(func=_cmd_train, algorithm="als")

    p = subparsers.add_parser(
        "sgd",
        help="matrix factorization by SGD with biases",
        formatter_class=fmt,
        description="Biased matrix factorization by stochastic gradient descent (Funk SVD / "
        "surprise SVD updates, Hogwild across threads). Per-epoch RMSE on stderr.",
    )
    _common(p, 20)
    p.add_argument("--lr", type=positive_float, default=0.02, help="initial step size")
    p.add_argument("--reg", type=nonneg_float, default=0.05, help="regularization of factors and biases")
    p.add_argument("--decay", type=_decay, default=0.9, help="step multiplier after each epoch, in (0, 1]")
    p.add_argument("--procs", type=procs, default=1, help="run on this many local processes")
    p.add_argument(
        "--partition",
        default="hash",
        help="edge-cut partitioner for --procs > 1 (hash, range, ldg or fennel: items stay whole)",
    )
    p.set_defaults(func=_cmd_train, algorithm="sgd")

    p = subparsers.add_parser(
        "recommend",
        help="top items of a saved factorization model for one user",
        formatter_class=fmt,
        description="Items with the highest predicted rating for --user, leaving out those the "
        "user rated in training. Prints item<TAB>score lines.",
    )
    p.add_argument("model", metavar="MODEL", help="model folder written by --save-model")
    p.add_argument("--user", required=True, metavar="ID", help="original user id")
    p.add_argument("--top", type=nonneg_int, default=10, help="number of items")
    p.add_argument("--include-seen", action="store_true", help="also list items the user rated in training")
    p.set_defaults(func=_cmd_recommend)


def _cmd_train(args: argparse.Namespace) -> int:
    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    if args.output and not args.predict:
        raise GasError("--output names where --predict writes; give --predict PAIRS too")
    _check_engine_options(args)
    train, test = _read_sets(args, say)
    rec = StatsRecorder(args, args.algorithm)
    try:
        model = _fit(args, train, test, say, rec)
    except ConvergenceError as exc:
        rec.finish(converged=False)
        # divergence: no finite model exists, so nothing is written even with --allow-unconverged;
        # the message names the likely causes (gas.cli's generic hint, about --max-iter, is not them)
        print(f"gas: error: {cli_message(str(exc), getattr(args, 'cli_options', {}))}", file=sys.stderr)
        return 3
    except ValueError as exc:
        if isinstance(exc, GasError):
            raise
        raise GasError(str(exc)) from None
    _print_results(args, model, train, test, say)
    rec.finish()
    if args.save_model:
        model.save(args.save_model)
        say(f"saved the model to {args.save_model}")
    if args.predict:
        _predict(args, model, say)
    return 0


def _check_engine_options(args: argparse.Namespace) -> None:
    """The engine and solver options checked as the library checks them, before any file is read."""
    from gas.algorithms.mf_async import check_engine

    sync_only = {"staleness": args.staleness, "straggler": args.straggler} if args.algorithm == "als" else {}
    check_engine(args.algorithm, args.engine, args.scheduler, args.consistency, args.procs, **sync_only)
    if args.algorithm == "als":
        from gas.algorithms.als import check_solver

        check_solver(args.solver, 1, args.staleness is not None, args.engine, args.procs)


def _read_sets(args: argparse.Namespace, say: Any) -> tuple[Any, Any]:
    """The training ratings and the test ratings (None without --test/--test-fraction)."""
    from gas.io.ratings import read_ratings

    t0 = time.perf_counter()
    ratings = read_ratings(args.file)
    say(
        f"loaded {args.file}: {len(ratings):,d} ratings, {ratings.num_users:,d} users, "
        f"{ratings.num_items:,d} items in {time.perf_counter() - t0:.2f} s"
    )
    test = None
    if args.test is not None:
        test = read_ratings(args.test)
        train = ratings
    elif args.test_fraction is not None:
        train, test = ratings.split(args.test_fraction, seed=args.seed)
        say(f"split (seed {args.seed}): {len(train):,d} training, {len(test):,d} test ratings")
    else:
        train = ratings
    return train, test


def _fit(args: argparse.Namespace, train: Any, test: Any, say: Any, rec: StatsRecorder) -> Any:
    """Train ``args.algorithm`` with per-iteration RMSE on stderr; the model."""
    from gas.algorithms.als import als
    from gas.algorithms.sgd import sgd

    total = [0.0]  # the running sum of the per-iteration seconds (as gas.cli.common.ProgressPrinter)

    def show(rec: dict[str, Any]) -> None:
        rmse = f"  train RMSE {rec['train_rmse']:.4f}" if "train_rmse" in rec else ""
        if "test_rmse" in rec:
            rmse += f"  test RMSE {rec['test_rmse']:.4f}"
        if "updates" in rec:  # --engine async: one line per round, with the vertex updates so far
            rmse += f"  updates {rec['updates']:,d}"
        total[0] += float(rec["seconds"])
        say(f"iter {rec['iteration']:4d}{rmse}  {rec['seconds']:.3f} s  (total {total[0]:.2f} s)")

    common = dict(
        rank=args.rank,
        biases=args.biases,
        init_std=args.init_std,
        seed=args.seed,
        test=test,
        threads=args.threads,
        progress=rec.wrap(show),
        engine=args.engine,
        scheduler=args.scheduler,
        consistency=args.consistency,
    )
    if args.algorithm != "als":
        return sgd(
            train,
            lr=args.lr,
            reg=args.reg,
            decay=args.decay,
            iters=args.iters,
            procs=args.procs,
            partition=args.partition,
            **common,
        )
    model = als(
        train,
        reg=args.reg,
        iters=args.iters,
        weighted=args.weighted_lambda,
        procs=args.procs,
        partition=args.partition,
        staleness=args.staleness,
        tol=args.tol,
        priority_ratio=args.priority_ratio,
        straggler=args.straggler,
        solver=args.solver,
        dtype=args.dtype,
        **common,
    )
    if "ssp" in model.params:
        ssp = model.params["ssp"]
        say(
            f"staleness bound {ssp['staleness']}: observed mean {ssp.get('staleness_mean', 0):.2f}, "
            f"max {ssp.get('staleness_max', 0)}"
        )
    return model


def _print_results(args: argparse.Namespace, model: Any, train: Any, test: Any, say: Any) -> None:
    """The final RMSEs as key<TAB>value lines on stdout (and the cold-start count on stderr)."""
    last = model.history[-1] if model.history else {}
    print(f"algorithm\t{args.algorithm}")
    print(f"iterations\t{len(model.history)}")
    print(f"train_rmse\t{last.get('train_rmse', model.rmse(train)):.6f}")
    if test is not None:
        pred = model.predict(*test.original()[:2])
        print(f"test_rmse\t{float(np.sqrt(np.mean((pred.values - test.rating) ** 2))):.6f}")
        print(f"test_ratings\t{len(test)}")
        print(f"test_cold_start\t{pred.num_cold}")
        if pred.num_cold:
            say(
                f"{pred.num_cold:,d} test ratings have a user or item absent from training (cold start): "
                f"predicted from the global mean {model.global_mean:.4f} (+ the known side's bias)"
            )


def _predict(args: argparse.Namespace, model: Any, say: Any) -> None:
    from gas.io.atomic import atomic_open
    from gas.io.ratings import read_pairs

    users, items = read_pairs(args.predict)
    pred = model.predict(users, items)
    lines = [f"{u}\t{i}\t{x:.6g}\n" for u, i, x in zip(users.tolist(), items.tolist(), pred.values.tolist())]
    if args.output:
        with atomic_open(args.output) as f:
            f.write("".join(lines))
        say(f"wrote {len(lines):,d} predictions to {args.output}")
    else:
        sys.stdout.write("".join(lines))
    if pred.num_cold:
        say(
            f"{pred.num_cold:,d} of {len(lines):,d} pairs have a user or item absent from training "
            f"(cold start): predicted from the global mean {model.global_mean:.4f} (+ the known side's bias)"
        )


def _cmd_recommend(args: argparse.Namespace) -> int:
    from gas.algorithms.mf_model import MFModel

    if args.top < 0:
        raise GasError(f"Expected --top >= 0 (got {args.top})")
    model = MFModel.load(args.model)
    if model.user_index([args.user])[0] < 0:
        print(
            f"gas: note: user {args.user!r} is not in the model (cold start): "
            f"ranking by global mean + item bias",
            file=sys.stderr,
        )
    items, scores = model.recommend(args.user, args.top, exclude_seen=not args.include_seen)
    print("item\tscore")
    for i, s in zip(items.tolist(), scores.tolist()):
        print(f"{i}\t{s:.6g}")
    return 0
