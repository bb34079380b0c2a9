"""Bounded staleness (SSP) benchmark: PageRank on 2 worker processes, one slowed, BSP vs SSP s=1,2,3.

Graph: soc-Slashdot0811 from ../shared/datasets (or an R-MAT graph with ``--rmat SCALE``). Every
run uses the same workers (``LocalCluster(2)``, HDRF partition) and PageRank with a tight
tolerance (``--tol``, default 1e-13 per vertex) so that the answers of BSP and SSP can be
compared at the 1e-6 L1 level. Rank 1 sleeps ``--delay`` seconds at the start of each superstep
(the straggler). Rows: BSP without straggler (reference answer), BSP with the straggler (the
``s = 0`` loop: BSP bit for bit), then SSP s = 1, 2, 3 with the straggler; then the same with a
moving straggler (``any:DELAY``: one rank per superstep, drawn by a fixed hash). Columns: wall time,
supersteps per worker, observed staleness (mean, max over all supersteps of all workers),
seconds each worker spent blocked, and the L1 distance to the BSP answer.

Run: ``python bench/ssp.py [--delay 0.05] [--tol 1e-13] [--rmat 18]``; writes "## Bounded
staleness (SSP)" into bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import gas
from gas.algorithms.pagerank import PageRankProgram
from gas.partition import partition
from gas.runtime.local import LocalCluster

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "soc-Slashdot0811"


def _load(args: argparse.Namespace) -> tuple[str, gas.Graph]:
    if args.rmat:
        from gas.datasets.generators import rmat_graph

        return f"R-MAT-{args.rmat}", rmat_graph(args.rmat, 16, seed=1)
    files = sorted(p for p in DATA.iterdir() if p.name.endswith((".txt", ".txt.gz")))
    return "soc-Slashdot0811", gas.load(str(files[0]))


def als_rows(args: argparse.Namespace) -> tuple[str, list[dict]]:
    """ALS (ml-latest-small, 80/20 split seed 0, defaults, 10 iterations) on 2 processes:
    BSP and SSP with a fixed and a moving straggler; wall time of the run on warm workers."""
    from gas.algorithms.als import ALSStaticProgram
    from gas.algorithms.mf_model import _Fit
    from gas.io.ratings import read_ratings

    path = DATA.parent / "ml-latest-small" / "ml-latest-small.zip"
    train, test = read_ratings(path).split(0.2, seed=0)
    fit = _Fit(train, "als", 20, 0.1, 0, None, True)
    prog = ALSStaticProgram(20, 0.1, True, True, fit.mean, 0, 0.1, num_users=fit.num_users)
    g, iters = fit.graph, 10
    rows = []
    with LocalCluster(2) as c:
        a = partition(g, "hdrf", num_parts=2, seed=0)
        c.run(g, prog, assignment=a, max_iter=2, staleness=0)  # warm-up: JIT, worker start
        runs = [("BSP, no straggler", 0, None)]
        runs += [("BSP + straggler", 0, (1, args.delay))]
        runs += [(f"SSP s={s} + straggler", s, (1, args.delay)) for s in (1, 2, 3)]
        runs += [("BSP + moving straggler", 0, ("any", args.delay))]
        runs += [(f"SSP s={s} + moving straggler", s, ("any", args.delay)) for s in (1, 2, 3)]
        for label, s, strag in runs:
            t0 = time.perf_counter()
            res = c.run(g, prog, assignment=a, max_iter=2 * iters, staleness=s, straggler=strag)
            wall = time.perf_counter() - t0
            m = fit.model(res.vertex_data["w"])
            row = {
                "run": label,
                "wall": wall,
                "clocks": res.ssp.get("clocks", []),
                "mean": res.ssp.get("staleness_mean", 0.0),
                "max": res.ssp.get("staleness_max", 0),
                "wait": res.ssp.get("wait_seconds", []),
                "rmse": m.rmse(test),
            }
            rows.append(row)
            print(row, flush=True)
    return f"ml-latest-small ({len(train):,} training ratings)", rows


def als_section(args: argparse.Namespace) -> str:
    name, rows = als_rows(args)
    base = rows[0]["rmse"]
    load = os.getloadavg()
    lines = [
        f"ALS (rank 20, weighted reg 0.1, biases, 10 iterations = 20 half-steps) on {name}, test RMSE on "
        f"the 20 % split (seed 0), `--procs 2` (HDRF), `ALSStaticProgram` (every vertex active, the "
        f"side that solves alternates; SSP runs static programs), delay {args.delay:g} s per "
        f"superstep. Wall time of the run on warm workers; load average after the runs {load[0]:.1f}; "
        f"`python bench/ssp.py --als --delay {args.delay:g}`.",
        "",
        "| run | wall s | vs BSP + same straggler | staleness mean | staleness max | blocked s "
        "(rank 0, rank 1) | test RMSE | vs BSP |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    ref_wall = {}
    for r in rows:
        kind = "moving" if "moving" in r["run"] else ("fixed" if "straggler" in r["run"] else "none")
        if r["run"].startswith("BSP"):
            ref_wall[kind] = r["wall"]
        ratio = r["wall"] / ref_wall[kind] if kind in ref_wall and not r["run"].startswith("BSP") else None
        wait = ", ".join(f"{w:.2f}" for w in r["wait"]) if r["wait"] else "-"
        lines.append(
            f"| {r['run']} | {r['wall']:.2f} | {'' if ratio is None else f'{ratio:.2f}x'} | "
            f"{r['mean']:.2f} | {r['max']} | {wait} | {r['rmse']:.4f} | "
            f"{100 * (r['rmse'] / base - 1):+.2f} % |"
        )
    lines += [
        "",
        "Reading: ALS runs a fixed number of half-steps, so SSP's gain is the delay a rank no longer "
        "waits for: with a moving straggler each rank sleeps only in its own slow supersteps (about "
        "half of them) and runs ahead in the others; with a fixed straggler the slow rank's 20 "
        "delays bound the run either way. The price is solving against factors up to s half-steps "
        "old: the test RMSE column shows what that costs after 10 iterations. The moving straggler's "
        "draws (a fixed hash of the superstep) need not split 20 supersteps evenly between the two "
        "ranks; the rank drawn more often sets the wall time.",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delay", type=float, default=0.05, help="seconds added to each superstep of rank 1")
    ap.add_argument("--tol", type=float, default=1e-13)
    ap.add_argument("--max-iter", type=int, default=3000)
    ap.add_argument("--rmat", type=int, default=0, help="use an R-MAT graph of this scale instead")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--als", action="store_true", help="only the ALS table (own section)")
    args = ap.parse_args()
    if args.als:
        text = als_section(args)
        print(text)
        if not args.no_write:
            from _results import write_section

            write_section("Bounded staleness (SSP): ALS", text)
        return
    name, g = _load(args)
    print(f"{name}: {g.num_vertices:,} vertices, {g.num_edges:,} edges; load average {os.getloadavg()}")
    prog = PageRankProgram(tol=args.tol)
    rows = []
    with LocalCluster(2) as c:
        a = partition(g, "hdrf", num_parts=2, seed=0)
        c.run(g, prog, assignment=a, max_iter=2)  # warm-up: JIT, worker start
        c.run(g, prog, assignment=a, max_iter=2, staleness=1)
        runs = [("BSP, no straggler", None, None), ("BSP + straggler", None, (1, args.delay))]
        runs += [(f"SSP s={s} + straggler", s, (1, args.delay)) for s in (1, 2, 3)]
        # transient: one rank per superstep, a different one each time (the same draw for all runs)
        runs += [("BSP + moving straggler", None, ("any", args.delay))]
        runs += [(f"SSP s={s} + moving straggler", s, ("any", args.delay)) for s in (1, 2, 3)]
        ref = None
        for label, s, strag in runs:
            t0 = time.perf_counter()
            res = c.run(g, prog, assignment=a, max_iter=args.max_iter, staleness=s, straggler=strag)
            wall = time.perf_counter() - t0
            if ref is None:
                ref = res.output
            l1 = float(np.abs(res.output - ref).sum())
            ssp = getattr(res, "ssp", {}) or {}
            clocks = ssp.get("clocks", [res.iterations, res.iterations])
            row = {
                "run": label,
                "wall": wall,
                "clocks": clocks,
                "mean": ssp.get("staleness_mean", 0.0),
                "max": ssp.get("staleness_max", 0),
                "wait": ssp.get("wait_seconds", []),
                "l1": l1,
                "converged": res.converged,
            }
            rows.append(row)
            print(row, flush=True)
    load = os.getloadavg()
    lines = [
        f"PageRank (tol {args.tol:g} per vertex, networkx rule) on {name} ({g.num_vertices:,} vertices, "
        f"{g.num_edges:,} edges), `--procs 2` (HDRF), rank 1 slowed by {args.delay:g} s per superstep. "
        f"One run per row on a machine shared with other agents (2 cores, load average after the "
        f"runs {load[0]:.1f}); `python bench/ssp.py`.",
        "",
        "| run | wall s | supersteps (rank 0, rank 1) | staleness mean | staleness max | blocked s "
        "(rank 0, rank 1) | L1 vs BSP | converged |",
        "|---|---:|---|---:|---:|---|---:|---|",
    ]
    for r in rows:
        wait = ", ".join(f"{w:.2f}" for w in r["wait"]) if r["wait"] else "-"
        lines.append(
            f"| {r['run']} | {r['wall']:.2f} | {', '.join(map(str, r['clocks']))} | {r['mean']:.2f} | "
            f"{r['max']} | {wait} | {r['l1']:.1e} | {r['converged']} |"
        )
    lines += [
        "",
        "Observed staleness: per superstep, the largest lag (in supersteps) of any peer data read "
        "behind what BSP would read; mean and max over every superstep of both workers.",
        "",
        "Reading: with a *constant* straggler SSP does not finish sooner here. The slow rank sets the "
        "pace either way (its supersteps cost the delay), and the fast rank, always s supersteps ahead, "
        "iterates on boundary values s supersteps old, so information crosses the partition boundary "
        "once per s + 1 supersteps: the supersteps needed grow about like rho^(1/(s+1)) per superstep "
        "instead of rho (the bound of asynchronous Jacobi iterations), and the stopping rule needs s + 2 "
        "passing supersteps in a row (one stale superstep can show a near-zero change). The answer is "
        "the BSP one (L1 well under 1e-6).",
        "",
        f"The *moving* straggler (`--straggler any:{args.delay:g}`) slows one rank per superstep, drawn "
        "by a fixed hash of the superstep (the same draws in every run), so under BSP every superstep "
        "pays the delay while under SSP each rank pays it only in its own slow supersteps and may run "
        "ahead in the others. It does not save wall time here either: the supersteps needed grow by "
        "more than the delays saved (PageRank's mass crosses the boundary every superstep, so stale "
        "boundary values slow its convergence per superstep almost as much as with a fixed straggler). "
        "Programs whose progress per superstep depends less on fresh boundary values (SGD-style "
        "updates, the setting of Ho et al.) are where SSP pays; PageRank is not one of them.",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from _results import write_section

        write_section("Bounded staleness (SSP)", text)


if __name__ == "__main__":
    main()
