"""Work and time to converge: synchronous vs asynchronous PageRank (issue 5's benchmark).

For each graph, every method is run at decreasing tolerances until its answer is within
L1 1e-10 of a converged reference (300 synchronous iterations, at the float64 floor); the table
reports the first tolerance that gets there, the edges visited (gather + scatter) and the best
of 3 wall times. igraph's PRPACK (Gauss-Seidel) is timed on the same graph in the same run; on
graphs under 200 k vertices, async priority and PRPACK then also run in turns (11 rounds), and
the PRPACK target's verdict uses the median of those paired ratios. The synchronous rows are plain
power iteration (the target's baseline) and ``pagerank()``'s default, which adds an Anderson
extrapolation every 6 supersteps (an Aitken one before stop 17).
Convergence curves (L1 error vs edges visited) are written to bench/async_convergence.png.

Run: ``python -m bench.async [--threads 2] [--graphs epinions,slashdot,rmat20]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

import gas
import gas.datasets
from gas.algorithms.pagerank import (
    DeltaPageRankProgram,
    PageRankProgram,
    ResidualPageRankProgram,
    _ResidualShift,
)
from gas.algorithms.pagerank_extrapolate import _Extrapolation

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.async")

from ._results import write_section
from .pagerank import _in_turns

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
TARGET = 1e-10
ALPHA = 0.85
PRIORITY = "async priority, full (residual push)"
TURNS = 11  # rounds of async priority and PRPACK in turns (graphs under TURNS_MAX_N vertices)
TURNS_MAX_N = 200_000
METHODS = [
    # label, engine, scheduler, consistency
    ("sync (power iteration)", "sync", None, None),
    ("sync (power iteration, extrapolated)", "sync-x", None, None),
    ("async fifo, full (residual push)", "async", "fifo", "full"),
    ("async priority, full (residual push)", "async", "priority", "full"),
    ("async sweep, full (residual push)", "async", "sweep", "full"),
    ("async priority, edge (pull)", "async", "priority", "edge"),
]


def _graphs(names):
    out = {}
    for name in names:
        if name == "epinions":
            p = SHARED / "soc-Epinions1" / "soc-Epinions1.txt.gz"
        elif name == "slashdot":
            p = SHARED / "soc-Slashdot0811" / "soc-Slashdot0811.txt.gz"
        elif name.startswith("rmat"):
            scale = int(name[4:])
            out[f"R-MAT-{scale}"] = gas.datasets.rmat_graph(scale, 16, seed=1)
            continue
        else:
            raise SystemExit(f"unknown graph {name}")
        if not p.exists():
            print(f"{p} not found: skipped")
            continue
        out[p.parent.name] = gas.load(p)
    return out


def _run(g, engine, scheduler, consistency, tol, threads):
    # "sync": plain power iteration (the issue's baseline); "sync-x": pagerank()'s default since
    # stop 16, power iteration with an extrapolation every 6 supersteps (Anderson since stop 17)
    # a tolerance below what float64 reaches stops at the budget: the bisection in _first_tol
    # then reads the partial answer (gas.ConvergenceError carries it)
    try:
        return gas.algorithms.pagerank(
            g,
            tol=tol,
            max_iter=10**6 if engine == "async" else 10**4,
            threads=threads,
            engine="sync" if engine == "sync-x" else engine,
            extrapolate_every=6 if engine == "sync-x" else 0,
            scheduler=scheduler or "priority",
            consistency=consistency,
            return_result=True,
        )
    except gas.ConvergenceError as exc:
        return exc.result, exc.run


def _best_time(fn, repeat=3):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _curve(g, method, threads, ref):
    """(edges visited, L1 error) after every round/superstep, from a fresh run."""
    _, engine, scheduler, consistency = method
    points = []
    if engine in ("sync", "sync-x"):
        eng = gas.SyncEngine(g, PageRankProgram(ALPHA, 0.0), threads=threads)
        col = "rank"
    else:
        prog = (
            ResidualPageRankProgram(ALPHA, 1e-17)
            if consistency == "full"
            else DeltaPageRankProgram(ALPHA, 1e-17)
        )
        eng = gas.AsyncEngine(g, prog, scheduler=scheduler, consistency=consistency, threads=threads)
        col = "rank"
    total = [0]

    def progress(stat):
        total[0] += stat["edges"]
        y = eng.columns[col]
        s = y.sum()
        if s > 0:
            points.append((total[0], float(np.abs(y / s - ref).sum())))

    hook = None
    if isinstance(eng.program, ResidualPageRankProgram):
        hook = _ResidualShift(g, eng.program)  # as gas.algorithms.pagerank does
    if engine == "sync-x":
        hook = _Extrapolation(g.out_degree, 6)  # as pagerank() does
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng.run(max_iter=200 if engine != "async" else 5000, progress=progress, between=hook)
    return np.array(points)


def _first_tol(run, ref):
    """The largest grid tolerance 10^-k (k = 6 .. 18 in steps of 0.25) whose answer is within
    TARGET of ``ref``: bisection over the grid (the error falls as the tolerance does)."""
    grid = 10.0 ** -np.arange(6.0, 18.01, 0.25)
    lo, hi = 0, len(grid) - 1
    best = None
    r, res = run(grid[hi])
    err = float(np.abs(r - ref).sum())
    if err > TARGET:
        return None
    best = (grid[hi], res, err)
    while lo < hi:
        mid = (lo + hi) // 2
        r, res = run(grid[mid])
        err = float(np.abs(r - ref).sum())
        if err <= TARGET:
            best, hi = (grid[mid], res, err), mid
        else:
            lo = mid + 1
    return best


class _SSPRunner:
    """PageRank on 2 local processes (HDRF) with staleness ``s``; edges visited = every rank's
    supersteps times its local edges."""

    def __init__(self, g, cluster):
        from gas.partition import partition

        self.g, self.c = g, cluster
        self.a = partition(g, "hdrf", num_parts=2, seed=0)
        self.m_r = np.bincount(self.a.edge_part, minlength=2)

    def __call__(self, s, tol):
        res = self.c.run(self.g, PageRankProgram(ALPHA, tol), assignment=self.a, max_iter=10**4, staleness=s)
        res.edge_visits = int(sum(int(k) * int(m) for k, m in zip(res.ssp["clocks"], self.m_r)))
        return res.output, res


def bench_graph(name, g, threads, rows, curves, cluster=None, turns=None):
    print(f"{name}: {g.num_vertices:,d} vertices, {g.num_edges:,d} edges", flush=True)
    # 300 plain supersteps, past float64's reach (tol 0 never converges: the engine's own run)
    ref = gas.SyncEngine(g, PageRankProgram(ALPHA, 0.0), threads=threads).run(300).output
    ref = ref / ref.sum()
    _run(g, "sync", None, None, 1e-6, threads)  # compile / warm every kernel once
    for m in METHODS[1:]:
        _run(g, m[1], m[2], m[3], 1e-6, threads)
    sync_edges = None
    prio_run = None
    runs = [(m[0], m[1], lambda tol, m=m: _run(g, m[1], m[2], m[3], tol, threads), m) for m in METHODS]
    if cluster is not None:
        ssp = _SSPRunner(g, cluster)
        ssp(1, 1e-6)  # warm-up
        runs += [
            (f"SSP s={s}, 2 processes (power iteration)", "ssp", lambda tol, s=s: ssp(s, tol), None)
            for s in (1, 3)
        ]
    for label, engine, run, method in runs:
        found = _first_tol(run, ref)
        if found is None:
            print(f"  {label}: never reached {TARGET}")
            rows.append(
                (
                    name,
                    f"{label}: did not reach {TARGET:g} (tol down to 1e-18)",
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                )
            )
            continue
        tol, res, err = found
        if label == PRIORITY:
            prio_run = (run, tol)
        secs, _ = _best_time(lambda run=run, tol=tol: run(tol))
        edges = res.edge_visits if engine == "ssp" else res.edge_updates
        if engine == "sync":
            sync_edges = edges
        ratio = edges / sync_edges if sync_edges else float("nan")
        rows.append((name, label, tol, res.iterations, edges / g.num_edges, ratio, secs, err))
        print(
            f"  {label:38s} tol {tol:.1e}  rounds {res.iterations:5d}  edges/m {edges / g.num_edges:7.1f} "
            f"({ratio:.2f}x sync)  {secs:.3f} s  L1 {err:.1e}",
            flush=True,
        )
        if method is not None:
            curves.setdefault(name, {})[label] = _curve(g, method, threads, ref)
    try:
        import igraph as ig

        G = ig.Graph(n=g.num_vertices, edges=np.column_stack([g.src, g.dst]), directed=True)
        secs, r = _best_time(lambda: np.array(G.pagerank(damping=ALPHA, implementation="prpack")))
        err = float(np.abs(r - ref).sum())
        rows.append((name, "igraph PRPACK (Gauss-Seidel)", None, None, None, None, secs, err))
        print(f"  {'igraph PRPACK':38s} {secs:.3f} s  L1 {err:.1e}", flush=True)
        if turns is not None and prio_run is not None and g.num_vertices < TURNS_MAX_N:
            # the two in turns, round by round, so that the machine's load hits both alike
            run, tol = prio_run
            prpack = lambda: G.pagerank(damping=ALPHA, implementation="prpack")  # noqa: E731
            times = _in_turns({"ours": lambda: run(tol), "prpack": prpack}, TURNS)
            ours, theirs = np.array(times["ours"]), np.array(times["prpack"])
            turns[name] = (ours, theirs)
            print(
                f"  in turns x{TURNS}: async priority {ours.min():.3f} / {np.median(ours):.3f} s, "
                f"PRPACK {theirs.min():.3f} / {np.median(theirs):.3f} s (fastest / median), "
                f"median paired ratio {np.median(ours / theirs):.2f}",
                flush=True,
            )
    except ImportError:
        print("  igraph not installed: PRPACK skipped")


def _plot(curves, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no convergence plot")
        return
    fig, axes = plt.subplots(1, len(curves), figsize=(5.5 * len(curves), 4.2), squeeze=False)
    for ax, (name, by_label) in zip(axes[0], curves.items()):
        for label, pts in by_label.items():
            if len(pts):
                ax.semilogy(pts[:, 0] / 1e6, np.maximum(pts[:, 1], 1e-17), label=label)
        ax.axhline(TARGET, color="grey", lw=0.8, ls="--")
        ax.set_title(name)
        ax.set_xlabel("edges visited (millions)")
        ax.set_ylabel("L1 error vs converged PageRank")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def targets_paragraph(rows, turns=None) -> str:
    """The issue's targets, met or not, from the table's rows."""
    by = {(r[0], r[1]): r for r in rows}
    graphs = list(dict.fromkeys(r[0] for r in rows))
    prio = []
    for gname in graphs:
        r = by.get((gname, "async priority, full (residual push)"))
        if r is not None and r[5] is not None:
            prio.append(f"{gname} {r[5]:.2f}x")
    met = [p for p in prio if float(p.rsplit(" ", 1)[1][:-1]) <= 0.5]
    verdict = "met" if len(met) == len(prio) else "missed"
    out = [
        f"Targets, from this run: async priority needs <= 0.5x the edge updates of sync (power "
        f"iteration): {verdict} ({', '.join(prio)}; met on {len(met)} of {len(prio)})."
    ]
    vs_x = []
    for gname in graphs:
        r, x = by.get((gname, PRIORITY)), by.get((gname, "sync (power iteration, extrapolated)"))
        if r is not None and x is not None and r[4] is not None and x[4]:
            vs_x.append(f"{gname} {r[4] / x[4]:.2f}x")
    if vs_x:
        out.append(
            "Against the synchronous engine's extrapolated power iteration (`pagerank()`'s "
            "default: an Anderson step every 6 supersteps since stop 17, an Aitken step in stop 16), "
            f"async priority needs {', '.join(vs_x)} of its edge visits."
        )
    ep = [r for r in rows if r[0] == "soc-Epinions1" and r[6] is not None]
    pair = (turns or {}).get("soc-Epinions1")
    if pair is not None:
        ours, theirs = pair
        ratio = float(np.median(ours / theirs))
        verdict = "met" if ratio < 1.0 else "missed"
        out.append(
            f"Async priority reaching 1e-10 on soc-Epinions1 in less time than igraph's PRPACK, the two run "
            f"in turns {len(ours)} times: {verdict} (median paired ratio {ratio:.2f}; fastest "
            f"{ours.min():.3f} s against {theirs.min():.3f} s, median {np.median(ours):.3f} s against "
            f"{np.median(theirs):.3f} s)."
        )
    elif ep:
        pr = next((r for r in ep if r[1].startswith("igraph")), None)
        ours = next((r for r in ep if r[1] == PRIORITY), None)
        if pr is not None and ours is not None:
            verdict = "met" if ours[6] < pr[6] else "missed"
            out.append(
                f"Async priority reaching 1e-10 on soc-Epinions1 in less time than igraph's PRPACK: "
                f"{verdict} ({ours[6]:.3f} s against {pr[6]:.3f} s, best of 3 each)."
            )
    out.append(
        "Reading: the residual-push priority rows use the relaxed scheduler (a round runs every scheduled "
        "vertex whose priority, residual per edge, is >= 0.03 x the highest; on one thread an id-order "
        "pass that serves vertices raised earlier in the same pass). A vertex is scheduled by its own "
        "priority (the program's `priority(v)`, its residual per edge above the cut), read when the pass "
        "reaches it, so a push is one add per edge with no signal. The pull rows take the top half of "
        "the scheduled vertices per round. Between rounds the mean residual is moved into the final "
        "normalisation (a uniform residual resolves to a multiple of the answer), so the residuals sum "
        "to zero, as power iteration's do once its iterate is normalised. Without that, the push form "
        "solves the system in which dangling vertices absorb their mass, whose slowest mode (about "
        "0.72-0.84 per pass on R-MAT-20, 48 % of its vertices dangling) is not proportional to the "
        "answer; power iteration returns dangling mass uniformly and its error shrinks by about 0.40 per "
        "superstep. The shift gives the push form the same normalisation between rounds. "
        "SSP's stale boundary values multiply the supersteps needed (see the SSP section)."
    )
    return " ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--graphs", default="epinions,slashdot,rmat20")
    ap.add_argument(
        "--no-write", action="store_true", help="print only; do not touch RESULTS.md or the convergence PNG"
    )
    ap.add_argument("--no-ssp", action="store_true", help="skip the SSP rows (2 local processes)")
    args = ap.parse_args()
    rows, curves, turns = [], {}, {}
    from contextlib import nullcontext

    from gas.runtime.local import LocalCluster

    with nullcontext(None) if args.no_ssp else LocalCluster(2) as cluster:
        for name, g in _graphs(args.graphs.split(",")).items():
            bench_graph(name, g, args.threads, rows, curves, cluster, turns)
    if args.no_write:
        return
    _plot(curves, Path(__file__).with_name("async_convergence.png"))

    load = os.getloadavg()[0]
    lines = [
        f"`python -m bench.async --threads {args.threads}` — PageRank (alpha 0.85) until the answer is "
        f"within L1 {TARGET:g} of a converged reference; each method at the first tolerance "
        "(grid of 10^-k, k in steps of 0.25, found by bisection) that gets there. "
        "Edges visited = gather + scatter edges of every update "
        "(m = edges of the graph; SSP: each process's supersteps times its local edges, summed). "
        "Time = best of 3 (SSP: on 2 warm worker processes, 1 thread each, HDRF partition). "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} "
        "at the end "
        "(other agents were running on this machine: absolute times are pessimistic, edge counts are exact).",
        "",
        "| graph | method | tol | rounds | edges visited / m | vs sync | seconds | L1 error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, label, tol, it, em, ratio, secs, err in rows:
        lines.append(
            f"| {name} | {label} | {'' if tol is None else f'{tol:.1e}'} | {'' if it is None else it} | "
            f"{'' if em is None else f'{em:.1f}'} | {'' if ratio is None else f'{ratio:.2f}x'} | "
            f"{'' if secs is None else f'{secs:.3f}'} | {'' if err is None else f'{err:.1e}'} |"
        )
    if turns:
        lines += [
            "",
            f"Async priority and PRPACK in turns, {TURNS} rounds (the wall time of each whole run, engine "
            "built inside it; PRPACK on a ready igraph graph):",
            "",
            "| graph | async priority fastest / median s | PRPACK fastest / median s | median paired ratio |",
            "|---|---|---|---:|",
        ]
        for name, (ours, theirs) in turns.items():
            lines.append(
                f"| {name} | {ours.min():.3f} / {np.median(ours):.3f} | {theirs.min():.3f} / "
                f"{np.median(theirs):.3f} | {np.median(ours / theirs):.2f} |"
            )
    lines += ["", targets_paragraph(rows, turns)]
    lines += [
        "",
        "Convergence curves: `bench/async_convergence.png` (L1 error against edges visited, per round).",
        "Residual push needs `full` consistency (it writes its out-neighbours' residuals); on these graphs "
        "the distance-2 colouring would cost more than `FULL_COLORING_LIMIT` edge visits, so the engine runs "
        "those updates on one thread. The pull form runs under `edge` consistency on both threads.",
    ]
    write_section("Asynchronous engine", "\n".join(lines))


if __name__ == "__main__":
    main()
