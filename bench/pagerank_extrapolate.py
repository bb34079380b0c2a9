"""PageRank to a tolerance with and without Anderson extrapolation (issue 2's "to a tolerance").

Every solver runs until its answer is within L1 1e-6 of a reference (scipy power iteration
until its L1 change is below 1e-10). Power iteration (gaslab's ``PageRankProgram``, scipy,
python-graphblas) needs the same number of iterations ``k`` whoever runs it; gaslab's
``pagerank()`` default (power iteration with an Anderson extrapolation every 6 supersteps) needs
its own count ``k_x``,
found by measuring the error after every superstep. Then each solver runs its count on a ready
solver (graph and matrices built beforehand), in turns, ``--rounds`` rounds; the table gives the
fastest and the median round and the median of the per-round ratios to python-graphblas.

Run: ``python -m bench.pagerank_extrapolate [--scales 20] [--rounds 7] [--threads 2]``.
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np

import gas
from gas.algorithms.pagerank import PageRankProgram
from gas.algorithms.pagerank_extrapolate import _Extrapolation

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.pagerank_extrapolate")

from ._results import write_section
from .pagerank import (
    ALPHA,
    SHARED,
    _in_turns,
    gaslab_solver,
    graphblas_solver,
    power_iterations_to,
    reference,
    scipy_solver,
)

TARGET = 1e-6


def gaslab_extrapolated(g, threads, every=6):
    """gaslab's ``pagerank()`` default on a ready engine: power iteration and its extrapolation
    hook (made afresh for every run, as ``pagerank()`` does)."""
    eng = gas.SyncEngine(g, PageRankProgram(ALPHA, 0.0), threads=threads)

    def run(iters, progress=None):
        eng.run(iters, progress=progress, between=_Extrapolation(g.out_degree, every))
        r = eng.columns["rank"]
        return r / r.sum()

    run.eng = eng
    return run


def _supersteps_to(run, ref, limit=500):
    """Supersteps until the ranks are within TARGET of ``ref`` (measured after each one)."""
    hit = []

    def progress(stat):
        r = run.eng.columns["rank"]
        if not hit and float(np.abs(r / r.sum() - ref).sum()) <= TARGET:
            hit.append(stat["iteration"] + 1)

    run(limit, progress)
    return hit[0] if hit else None


def bench_graph(name, g, threads, rounds, rows):
    n, m = g.num_vertices, g.num_edges
    print(f"\n== {name}: {n:,} vertices, {m:,} edges", flush=True)
    sp_run = scipy_solver(g.src, g.dst, n)
    ref = reference(sp_run, n)
    k = power_iterations_to(sp_run, ref, TARGET)
    xrun = gaslab_extrapolated(g, threads)
    kx = _supersteps_to(xrun, ref)
    print(f"  iterations to L1 {TARGET:g}: power iteration {k}, extrapolated {kx}", flush=True)
    solvers = {
        "gaslab pagerank() (extrapolated)": (xrun, kx),
        "gaslab power iteration": (gaslab_solver(g, threads, PageRankProgram(ALPHA, 0.0)), k),
        "scipy CSR": (sp_run, k),
    }
    try:
        solvers["python-graphblas"] = (graphblas_solver(g.src, g.dst, n, threads), k)
    except ImportError:
        print("  python-graphblas not installed: skipped")
    out = {}

    def job(label):
        run, iters = solvers[label]

        def go():
            out[label] = run(iters)

        return go

    for label in solvers:  # warm-up: compile, build the blocked layout
        job(label)()
    times = _in_turns({label: job(label) for label in solvers}, rounds)
    base = np.array(times.get("python-graphblas", [np.nan] * rounds))
    for label, t in times.items():
        t = np.array(t)
        err = float(np.abs(out[label] / out[label].sum() - ref).sum())
        paired = float(np.median(base / t))
        rows.append((name, label, solvers[label][1], t.min(), float(np.median(t)), paired, err))
        print(
            f"  {label:34s} iters {solvers[label][1]:4d}  fastest {t.min():.3f} s  median "
            f"{np.median(t):.3f} s  graphblas / this (median paired) {paired:.2f}  L1 {err:.1e}",
            flush=True,
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="*", default=[20])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    from gas.datasets import rmat

    load0 = os.getloadavg()[0]
    rows = []
    for gname in ("soc-Slashdot0811", "soc-Epinions1"):
        p = SHARED / gname / f"{gname}.txt.gz"
        if p.exists():
            bench_graph(gname, gas.io.load(p), args.threads, args.rounds, rows)
        else:
            print(f"{p} not found: skipped")
    for s in args.scales:
        g = gas.Graph.from_edges(*rmat(s, 16, seed=0), num_vertices=1 << s)
        bench_graph(f"R-MAT-{s}", g, args.threads, args.rounds, rows)
    if args.no_write:
        return

    load = os.getloadavg()[0]
    lines = [
        f"`python -m bench.pagerank_extrapolate --rounds {args.rounds}` — each solver runs until its "
        f"answer is within L1 {TARGET:g} of a reference (scipy power iteration to an L1 change below "
        "1e-10): power iteration needs the same count whoever runs it; gaslab's `pagerank()` default "
        "(power iteration with an Anderson step over the last 5 steps every 6 supersteps, made "
        "when it at least halves the step) needs its own, measured after every superstep. Then every "
        "solver runs its "
        f"count on a ready solver, in turns, {args.rounds} rounds, {args.threads} threads (load average "
        f"{load0:.2f} at the start, {load:.2f} at the end). R-MAT edge factor 16, seed 0, as in "
        "`bench/pagerank.py`.",
        "",
        "| graph | solver | iterations | fastest s | median s | python-graphblas / this, median paired "
        "| L1 error |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, label, its, best, med, paired, err in rows:
        lines.append(f"| {name} | {label} | {its} | {best:.3f} | {med:.3f} | {paired:.2f} | {err:.1e} |")
    write_section("PageRank to a tolerance: extrapolation", "\n".join(lines))


if __name__ == "__main__":
    main()
