"""PageRank: gaslab (bundled and a user-written program) against peers, side by side, one run.

Usage: python -m bench.pagerank [--scales 20 22] [--threads 2] [--iters 20] [--rounds 7]
                                [--no-write] [--whole-job]

``--whole-job`` measures only the whole job from edge arrays to ranks (below), ``--rounds``
rounds in turns, and writes its own section of RESULTS.md.

For each graph (R-MAT scale 20 and 22 with edge factor 16, a=0.57 b=0.19 c=0.19, seed 0; and
soc-Slashdot0811 when ../shared/datasets is present) it reports:

* per iteration: every solver is built and warmed up, then each runs ``--iters`` iterations in
  turn, for ``--rounds`` rounds (solvers timed seconds apart see about the same load on a shared
  machine). Per solver: the fastest and the median round, edges/s of the fastest, gaslab's
  speed-up fastest against fastest, and the median over rounds of the per-round ratio. Solvers:
  gaslab's bundled ``PageRankProgram`` (what ``gas.algorithms.pagerank`` runs) and the
  user-written programs (whole ``run`` calls, init included), a scipy CSR power iteration,
  python-graphblas (SuiteSparse) ``mxv``, networkit (total time / its iteration count), and
  networkx on graphs under 1 M edges. ``bench/pagerank_layout.py`` measures what numbering
  sources by degree does;
* to a tolerance: wall time to an L1 error <= 1e-6 against a reference converged to an L1 change
  below 1e-10 (scipy power iteration), for gaslab, scipy, graphblas (the same iteration count)
  and igraph's PRPACK solver; both the solve on a ready solver and the whole job from the edge
  arrays in a random order (gaslab: the graph, the engine and its blocked layout; scipy: the CSR
  matrix; graphblas: the matrix; igraph: its graph), solvers in turns, best of 3;
* ``gas pagerank`` start-up on the bundled graph with a warm compile cache;
* with ``--whole-job``, only the whole job from the edge arrays (in a random order) to ranks at
  L1 error <= 1e-6 by power iteration: gaslab (``Graph.from_edges``, the engine, its blocked
  layout, the supersteps), scipy (``csr_array``) and python-graphblas (``Matrix.from_coo``), one
  warm-up round then ``--rounds`` rounds in turns; per solver the fastest and median round and
  the median over rounds of the per-round ratio peer / gaslab, plus gaslab's phases.

Every solver uses the same normalization (networkx's: dangling mass spread evenly).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import gas
from gas.algorithms.pagerank import PageRankProgram

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.pagerank")

from ._results import write_section
from .compare_trees import cpu_model

ROOT = Path(__file__).resolve().parents[1]

ALPHA = 0.85
REPEAT = 3  # to a tolerance: best of this many rounds, solvers in turns
SHARED = ROOT.parent / "shared" / "datasets"


class UserPageRank(gas.VertexProgram):
    """The README's user-written PageRank (keeps share = rank / out_degree in apply)."""

    vertex_data = {"rank": np.float64, "share": np.float64, "change": np.float64}
    gather_edges = gas.IN
    dynamic = False
    aggregates = {"dangling": "sum", "change": "sum"}

    def __init__(self, alpha=0.85, tol=0.0):
        self.alpha, self.tol = alpha, tol

    def init(self, v, ctx):
        v.rank = 1.0 / ctx.num_vertices
        v.share = v.rank / v.out_degree if v.out_degree > 0 else 0.0

    def gather(self, v, e, nbr):
        return nbr.share

    def apply(self, v, total, ctx):
        n = ctx.num_vertices
        new = (1 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
        v.change = abs(new - v.rank)
        v.rank = new
        v.share = new / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_degree == 0 else 0.0), v.change


class NaiveUserPageRank(UserPageRank):
    """The same, but gathering ``nbr.rank / nbr.out_degree`` (two arrays and a division per edge)."""

    def gather(self, v, e, nbr):
        return nbr.rank / nbr.out_degree


def scipy_solver(src, dst, n):
    import scipy.sparse as sp

    A = sp.csr_array((np.ones(src.shape[0]), (dst, src)), shape=(n, n))
    deg = np.bincount(src, minlength=n).astype(np.float64)
    inv = np.divide(1.0, deg, out=np.zeros(n), where=deg > 0)
    dangling = deg == 0

    def run(iters, x=None):
        x = np.full(n, 1.0 / n) if x is None else x
        for _ in range(iters):
            d = x[dangling].sum()
            x = ALPHA * (A @ (x * inv) + d / n) + (1 - ALPHA) / n
        return x

    return run


def graphblas_solver(src, dst, n, threads):
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    A = gb.Matrix.from_coo(dst, src, 1.0, nrows=n, ncols=n, dtype=float)
    deg = np.bincount(src, minlength=n).astype(np.float64)
    inv = gb.Vector.from_dense(np.divide(1.0, deg, out=np.zeros(n), where=deg > 0))
    dmask = gb.Vector.from_dense((deg == 0).astype(np.float64))

    def run(iters):
        x = gb.Vector.from_dense(np.full(n, 1.0 / n))
        for _ in range(iters):
            d = x.ewise_mult(dmask).reduce().value or 0.0
            y = A.mxv(x.ewise_mult(inv), gb.semiring.plus_times).new()
            x = gb.Vector.from_dense(np.full(n, ALPHA * d / n + (1 - ALPHA) / n))
            x(accum=gb.binary.plus) << y.apply(gb.binary.times, right=ALPHA)
        return x.to_dense(fill_value=0.0)

    return run


def gaslab_solver(g, threads, program=None):
    """A gaslab solver on graph ``g``: an engine (its kernels load from the compile cache; the
    blocked layout is built in the first gather and kept on ``g`` for other engines)."""
    eng = gas.SyncEngine(g, program or PageRankProgram(ALPHA, 0.0), threads=threads)

    def run(iters):
        eng.run(iters)
        r = eng.columns["rank"]
        return r / r.sum()

    return run


def networkit_solver(src, dst, n, threads):
    import networkit as nk

    nk.setNumberOfThreads(threads)
    G = nk.GraphFromCoo(
        (np.ones(src.shape[0]), (src.astype(np.uint64), dst.astype(np.uint64))),
        n=n,
        directed=True,
        weighted=False,
    )

    def run(iters):
        pr = nk.centrality.PageRank(G, damp=ALPHA, tol=1e-12)
        pr.maxIterations = iters
        pr.run()
        return pr.numberOfIterations()

    return run


def networkx_solver(src, dst, n):
    import networkx as nx

    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    return lambda iters: _nx_iters(G, iters)


def reference(sp_run, n):
    """PageRank by scipy power iteration until the L1 change is below 1e-10 (its own error is
    about that change * alpha / (1 - alpha) < 1e-9)."""
    ref = np.full(n, 1.0 / n)
    for _ in range(1000):
        nxt = sp_run(1, ref)
        change = float(np.abs(nxt - ref).sum())
        ref = nxt
        if change < 1e-10:
            break
    return ref


def power_iterations_to(sp_run, ref, target, limit=500):
    """Power iterations (scipy's, the same whoever runs them) until the L1 error against ``ref``
    is at most ``target`` (at most ``limit``)."""
    x, k = np.full(ref.shape[0], 1.0 / ref.shape[0]), 0
    while float(np.abs(x - ref).sum()) > target and k < limit:
        x = sp_run(1, x)
        k += 1
    return k


def _in_turns(fns: dict, rounds: int) -> dict[str, list[float]]:
    """Run every callable once per round, in turns, and return each one's times. On a machine
    shared with other work the load moves by more than the differences measured; solvers timed
    seconds apart in the same round see about the same load, those timed minutes apart do not."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - t0)
    return times


def bench_graph(name, g, threads, iters, rounds, rows, tol_rows):
    """Per iteration (every solver run ``iters`` iterations per round, in turns, ``rounds``
    rounds) and to a tolerance (setup from the edge arrays plus the solve, and the solve alone
    on a ready solver)."""
    m, n = g.num_edges, g.num_vertices
    src, dst = g.src, g.dst  # duplicates collapsed: every solver gets the same edges
    print(f"\n== {name}: {n:,} vertices, {m:,} edges", flush=True)
    warnings.simplefilter("ignore", RuntimeWarning)
    solvers = {
        "gaslab (bundled)": gaslab_solver(g, threads),
        "gaslab (README user program)": gaslab_solver(g, threads, UserPageRank()),
        "gaslab (naive user program)": gaslab_solver(g, threads, NaiveUserPageRank()),
        "scipy CSR": scipy_solver(src, dst, n),
    }
    for label, make in (
        ("python-graphblas", lambda: graphblas_solver(src, dst, n, threads)),
        ("networkit", lambda: networkit_solver(src, dst, n, threads)),
    ):
        try:
            solvers[label] = make()
        except (ImportError, AttributeError, TypeError) as exc:
            print(f"{label} skipped: {exc}")
    if m < 1_000_000:
        solvers["networkx"] = networkx_solver(src, dst, n)
    for fn in solvers.values():
        fn(2)  # warm-up: kernels compiled or loaded, layouts built
    counts = {k: iters for k in solvers}

    def timed(label, fn):
        def go():
            out = fn(iters)
            if label == "networkit":
                counts[label] = max(1, out)

        return go

    times = _in_turns({k: timed(k, fn) for k, fn in solvers.items()}, rounds)
    per = {k: np.array(v) / counts[k] for k, v in times.items()}
    base = per["gaslab (bundled)"]
    for peer, sec in per.items():
        best, med = float(sec.min()), float(np.median(sec))
        paired = float(np.median(sec / base))
        rows.append((name, peer, best, med, m / best / 1e6, best / base.min(), paired))
        print(
            f"  {peer:30s} best {best * 1e3:8.2f} median {med * 1e3:8.2f} ms/iter "
            f"{m / best / 1e6:7.1f} M edges/s  gaslab speed-up best x{best / base.min():5.2f} "
            f"paired median x{paired:5.2f}",
            flush=True,
        )

    # ---- to a tolerance: L1 error <= 1e-6 against a tightly converged reference (its own
    # error is about its last L1 change * alpha / (1 - alpha) < 1e-9, far below the target)
    sp_run = solvers["scipy CSR"]
    ref = reference(sp_run, n)
    k = power_iterations_to(sp_run, ref, 1e-6)
    for label in ("gaslab (README user program)", "gaslab (naive user program)", "networkit"):
        solvers.pop(label, None)  # memory for the builds from edges below (R-MAT-22: GBs each)
    solvers.pop("networkx", None)
    # the jobs from edges get them in a random order, the same for all (an edge list as a file
    # or a generator gives it; the graph's own arrays are sorted, which favours some builders)
    perm = np.random.default_rng(0).permutation(m)
    esrc, edst = src[perm], dst[perm]
    del perm
    power = {
        "gaslab (bundled)": lambda: gaslab_solver(gas.Graph.from_edges(esrc, edst, num_vertices=n), threads),
        "scipy CSR": lambda: scipy_solver(esrc, edst, n),
    }
    if "python-graphblas" in solvers:
        power["python-graphblas"] = lambda: graphblas_solver(esrc, edst, n, threads)
    ends: dict[str, float] = {}
    solves: dict[str, list[float]] = {}
    results: dict[str, np.ndarray] = {}

    def end_to_end(label, make):
        def go():
            results[label] = make()(k)

        return go

    def solve_only(label):
        def go():
            results[label] = solvers[label](k)

        return go

    fns = {}
    for label, make in power.items():
        fns[("end", label)] = end_to_end(label, make)
        fns[("solve", label)] = solve_only(label)
    try:
        import igraph as ig

        def ig_graph():
            return ig.Graph(n=n, edges=np.column_stack([esrc, edst]), directed=True)

        def prpack(G):
            results["igraph PRPACK"] = np.array(G.pagerank(damping=ALPHA, implementation="prpack"))

        G_ig = ig_graph()
        fns[("solve", "igraph PRPACK")] = lambda: prpack(G_ig)
    except ImportError:
        print("igraph not installed: skipped")
    tt = _in_turns(fns, REPEAT)
    if ("solve", "igraph PRPACK") in fns:
        # igraph converts the numpy edge array edge by edge (seconds per M edges): timed once
        del G_ig
        tt[("end", "igraph PRPACK")] = _in_turns({"end": lambda: prpack(ig_graph())}, 1)["end"]
    for (kind, label), v in tt.items():
        if kind == "end":
            ends[label] = min(v)
        else:
            solves[label] = v
    for label, t_end in ends.items():
        err = float(np.abs(results[label] - ref).sum())
        t_solve = min(solves[label])
        its = k if label in power else None
        tol_rows.append((name, label, its, t_solve, t_end, err))
        print(
            f"  to 1e-6: {label:20s} iters {its!s:>4}  solve {t_solve:.3f} s  "
            f"from edges {t_end:.3f} s  L1 err {err:.1e}",
            flush=True,
        )


def whole_job(name, src, dst, n, threads, rounds, rows):
    """The whole job from edge arrays (a random order, duplicates already collapsed) to ranks at
    L1 error <= 1e-6, every solver running the same power-iteration count; solvers in turns."""
    m = src.shape[0]
    sp_run = scipy_solver(src, dst, n)
    ref = reference(sp_run, n)
    k = power_iterations_to(sp_run, ref, 1e-6)
    del sp_run
    perm = np.random.default_rng(0).permutation(m)
    esrc, edst = src[perm], dst[perm]
    del perm
    print(f"\n== {name}: {n:,} vertices, {m:,} edges, {k} iterations to 1e-6", flush=True)
    warnings.simplefilter("ignore", RuntimeWarning)
    makers = {
        "gaslab (bundled)": lambda: gaslab_solver(gas.Graph.from_edges(esrc, edst, num_vertices=n), threads),
        "scipy CSR": lambda: scipy_solver(esrc, edst, n),
    }
    try:
        import graphblas  # noqa: F401

        makers["python-graphblas"] = lambda: graphblas_solver(esrc, edst, n, threads)
    except ImportError:
        print("python-graphblas not installed: skipped")
    results: dict[str, np.ndarray] = {}

    def job(label, make):
        def go():
            results[label] = make()(k)

        return go

    fns = {label: job(label, make) for label, make in makers.items()}
    _in_turns(fns, 1)  # warm-up: kernels from the compile cache, first-touch of the allocator
    times = {label: np.array(v) for label, v in _in_turns(fns, rounds).items()}
    base = times["gaslab (bundled)"]
    for label, t in times.items():
        err = float(np.abs(results[label] - ref).sum())
        paired = float(np.median(t / base))
        rows.append((name, label, k, float(t.min()), float(np.median(t)), paired, err))
        print(
            f"  {label:20s} fastest {t.min():.3f} s  median {np.median(t):.3f} s  "
            f"this / gaslab (median paired) {paired:.2f}  L1 err {err:.1e}",
            flush=True,
        )
    # gaslab's phases, once, after the rounds
    t0 = time.perf_counter()
    g = gas.Graph.from_edges(esrc, edst, num_vertices=n)
    t1 = time.perf_counter()
    eng = gas.SyncEngine(g, PageRankProgram(ALPHA, 0.0), threads=threads)
    t2 = time.perf_counter()
    eng.run(1)
    t3 = time.perf_counter()
    eng.run(k - 1)
    t4 = time.perf_counter()
    print(
        f"  gaslab phases: graph {t1 - t0:.3f} s, engine {t2 - t1:.3f} s, first superstep (blocked "
        f"layout built) {t3 - t2:.3f} s, {k - 1} more supersteps {t4 - t3:.3f} s",
        flush=True,
    )


def whole_job_main(args, rmat):
    load0 = os.getloadavg()
    rows: list[tuple] = []
    for s in args.scales:
        g = gas.Graph.from_edges(*rmat(s, 16, seed=0), num_vertices=1 << s)
        src, dst, n = g.src, g.dst, g.num_vertices
        del g
        whole_job(f"R-MAT-{s}", src, dst, n, args.threads, args.rounds, rows)
        del src, dst
    load1 = os.getloadavg()
    if args.no_write:
        return
    lines = [
        f"`python -m bench.pagerank --whole-job --rounds {args.rounds}` — {cpu_model()}, "
        f"{os.cpu_count()} cores, {args.threads} threads for every solver; load average "
        f"{load0[0]:.2f} before and {load1[0]:.2f} after. The whole job from the edge arrays "
        "(duplicates collapsed, in a random order, the same for every solver) to ranks at an L1 "
        "error <= 1e-6 by power iteration (every solver runs the same iteration count): gaslab "
        "`Graph.from_edges`, the engine, its blocked layout and the supersteps; scipy "
        "`csr_array`; python-graphblas `Matrix.from_coo` (when installed). One warm-up round, "
        f"then {args.rounds} rounds in turns. Ratio: this solver's time / gaslab's in the same "
        "round, the median over rounds (above 1: gaslab is faster).",
        "",
        "| graph | solver | iterations | fastest s | median s | this / gaslab (median paired) | L1 error |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {g} | {p} | {k} | {b:.3f} | {md:.3f} | {r:.2f} | {e:.1e} |" for g, p, k, b, md, r, e in rows
    ]
    write_section("PageRank: whole job from edge arrays", "\n".join(lines))


def _nx_iters(G, iters):
    import networkx as nx

    try:
        return nx.pagerank(G, alpha=ALPHA, tol=1e-30, max_iter=iters)
    except nx.PowerIterationFailedConvergence:
        return None


def startup_seconds():
    data = ROOT / "datasets" / "data" / "ego-Facebook.txt.gz"
    cmd = [sys.executable, "-m", "gas.cli", "pagerank", str(data), "--top", "0", "-q"]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the cache
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="*", default=[20, 22])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--whole-job", action="store_true", help="only the whole job from edge arrays")
    args = ap.parse_args()
    from gas.datasets import rmat

    if args.whole_job:
        whole_job_main(args, rmat)
        return

    load0 = os.getloadavg()[0]
    rows, tol_rows = [], []
    graphs = []
    slash = SHARED / "soc-Slashdot0811" / "soc-Slashdot0811.txt.gz"
    if slash.exists():
        graphs.append(("soc-Slashdot0811", lambda: gas.io.load(slash)))
    for s in args.scales:
        graphs.append(
            (
                f"R-MAT-{s}",
                lambda s=s: gas.Graph.from_edges(*rmat(s, 16, seed=0), num_vertices=1 << s),
            )
        )
    for name, make in graphs:
        t0 = time.perf_counter()
        g = make()
        print(f"built {name} in {time.perf_counter() - t0:.1f} s", flush=True)
        bench_graph(name, g, args.threads, args.iters, args.rounds, rows, tol_rows)
        del g
    start = startup_seconds()
    print(f"\ngas pagerank start-up on the bundled graph (warm cache): {start:.2f} s")
    if args.no_write:
        return

    load = os.getloadavg()[0]
    lines = [
        f"`python -m bench.pagerank` — {args.threads} threads; every solver built and warmed "
        f"up, then {args.iters} iterations each in turn, {args.rounds} rounds (load average "
        f"{load0:.2f} at the start, {load:.2f} at the end). R-MAT edge factor 16 (a=0.57, "
        "b=0.19, c=0.19, seed 0, duplicates collapsed); all solvers with networkx's "
        "normalization; gaslab runs the bundled `PageRankProgram` through whole `run` calls "
        "(init included). Speed-up = peer time / gaslab time, from the fastest rounds and as "
        "the median of the per-round ratios (each ratio from runs seconds apart); under 1 means "
        "the peer is faster.",
        "",
        "| graph | solver | fastest ms / iteration | median ms | M edges/s (fastest) "
        "| gaslab speed-up (fastest) | gaslab speed-up (median paired) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {g} | {p} | {b * 1e3:.1f} | {md * 1e3:.1f} | {e:.0f} | {r:.2f} | {pr:.2f} |"
        for g, p, b, md, e, r, pr in rows
    ]
    lines += [
        "",
        "To a tolerance: wall time to an L1 error ≤ 1e-6 against a reference iterated to an "
        "L1 change < 1e-10, so its own error is below 1e-9. Power iterations run the same "
        "iteration count. *Solve*: on a ready solver (gaslab: a warm engine; scipy, graphblas: "
        "the matrix built). *From edges*: the whole job from the deduplicated edge arrays "
        "in a random order, the same for every solver (gaslab: `Graph.from_edges`, the engine, "
        "its blocked layout; scipy: `csr_array`; "
        "graphblas: `Matrix.from_coo`; igraph: `Graph` from an (m, 2) numpy array, which "
        "it converts edge by edge, timed once). PRPACK is a Gauss-Seidel/direct "
        "solver and runs to its own tolerance. Solvers in turns, best of 3.",
        "",
        "| graph | solver | iterations | solve s | from edges s | L1 error |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {g} | {p} | {k if k is not None else '—'} | {ts:.3f} | {te:.3f} | {e:.1e} |"
        for g, p, k, ts, te, e in tol_rows
    ]
    lines += [
        "",
        f"`gas pagerank` start-up on the bundled ego-Facebook graph with a warm compile cache: "
        f"{start:.2f} s (best of 3, whole process).",
    ]
    write_section("PageRank", "\n".join(lines))


if __name__ == "__main__":
    main()
