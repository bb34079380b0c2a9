"""Bounded staleness (SSP) benchmark: PageRank on 2 worker processes, one slowed, BSP vs SSP s=1,2,3.

Graph: soc-Slashdot0811 from ../shared/datasets (or an R-MAT graph with ``--rmat SCALE``). Every
run uses the same workers (``LocalCluster(2)``, HDRF partition). Two programs: power iteration
(``PageRankProgram``, networkx's stopping rule, ``--tol``) and accumulated deltas
(``AccumulativePageRankProgram``, which stops on a bound of the remaining error; ``--delta-tol``,
by default the tolerance whose bound guarantees L1 <= 1e-6). Each row's answer is compared with
``networkx.pagerank`` (tol 1e-15) by L1. Stragglers: rank 1 sleeps ``--delay`` seconds at the
start of each superstep (fixed), or one rank per superstep drawn by a fixed hash (moving,
``any:DELAY``). Rows per program: BSP without straggler, BSP with it (the ``s = 0`` loop: BSP
bit for bit), SSP s = 1, 2, 3 with it (fresh reads, the default); for power iteration also
SSP s = 2 with ``fresh=False`` (never reading a peer's later supersteps), for accumulated deltas
SSP s = 2 with ``--sweeps`` local sweeps (a waiting rank passes mass on inside its part). Columns: wall time,
supersteps per worker, observed staleness (mean, max over all supersteps of all workers),
seconds each worker spent blocked, L1 vs networkx.

Run: ``python -m bench.ssp [--delay 0.05] [--rmat 18]``; writes "## Bounded staleness (SSP)"
into bench/RESULTS.md (``--als``: the ALS table, its own section).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import gas
from gas.algorithms.pagerank import PageRankProgram
from gas.algorithms.pagerank_delta import AccumulativePageRankProgram
from gas.partition import partition
from gas.runtime.local import LocalCluster

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.ssp")

from ._results import write_section

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
    from gas.algorithms.mf_fit import _Fit
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
        f"`python -m bench.ssp --als --delay {args.delay:g}`.",
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


def _networkx(g: gas.Graph, alpha: float) -> np.ndarray:
    import networkx as nx

    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_vertices))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))
    ref = nx.pagerank(G, alpha=alpha, tol=1e-15, max_iter=10_000)
    return np.array([ref[v] for v in range(g.num_vertices)])


def pagerank_rows(args: argparse.Namespace, g: gas.Graph, ref: np.ndarray) -> list[dict]:
    progs = {
        "power": PageRankProgram(tol=args.tol),
        "delta": AccumulativePageRankProgram(tol=args.delta_tol),
    }
    runs = []
    for kind, who in (("fixed", 1), ("moving", "any")):
        strag = (who, args.delay)
        for name in progs:  # the two programs alternate: load drifts hit both alike
            runs.append((name, kind, "BSP", None, strag, True))
            runs += [(name, kind, f"SSP s={s}", s, strag, True) for s in (1, 2, 3)]
            if name == "power":
                runs.append((name, kind, "SSP s=2, fresh=False", 2, strag, False))
            elif args.sweeps:
                runs.append((name, kind, f"SSP s=2, sweeps {args.sweeps}", 2, strag, args.sweeps))
    runs = [(n, "none", "BSP", None, None, True) for n in progs] + runs
    rows = []
    with LocalCluster(2) as c:
        a = partition(g, "hdrf", num_parts=2, seed=0)
        for prog in progs.values():  # warm-up: JIT, worker start
            c.run(g, prog, assignment=a, max_iter=2)
            c.run(g, prog, assignment=a, max_iter=2, staleness=1)
        for name, kind, label, s, strag, opt in runs:
            t0 = time.perf_counter()
            # opt: True (fresh reads), False (fresh=False) or a number of local sweeps
            fresh, sweeps = opt is not False, (0 if isinstance(opt, bool) else int(opt))
            kw = dict(staleness=s, straggler=strag, fresh=fresh, sweeps=sweeps)
            res = c.run(g, progs[name], assignment=a, max_iter=args.max_iter, **kw)
            wall = time.perf_counter() - t0
            y = res.output / res.output.sum()  # power iteration's sums to 1 already
            ssp = getattr(res, "ssp", {}) or {}
            row = {
                "program": name,
                "straggler": kind,
                "run": label,
                "wall": wall,
                "clocks": ssp.get("clocks", [res.iterations, res.iterations]),
                "mean": ssp.get("staleness_mean", 0.0),
                "max": ssp.get("staleness_max", 0),
                "wait": ssp.get("wait_seconds", []),
                "sweeps": ssp.get("sweeps", []),
                "l1": float(np.abs(y - ref).sum()),
                "converged": res.converged,
            }
            rows.append(row)
            print(row, flush=True)
    return rows


def pagerank_section(args: argparse.Namespace, name: str, g: gas.Graph, rows: list[dict], load) -> str:
    bsp = {(r["program"], r["straggler"]): r["wall"] for r in rows if r["run"] == "BSP"}
    best = {k: min(w for (p, kk), w in bsp.items() if kk == k) for k in ("none", "fixed", "moving")}
    label = {"power": "power iteration", "delta": "accumulated deltas"}
    where = {"none": "no straggler", "fixed": "fixed straggler (rank 1)", "moving": "moving straggler"}
    lines = [
        f"PageRank on {name} ({g.num_vertices:,} vertices, {g.num_edges:,} edges), `--procs 2` (HDRF), "
        f"delay {args.delay:g} s per superstep on the slowed rank. Power iteration: `PageRankProgram`, "
        f"tol {args.tol:g} per vertex (networkx's rule); accumulated deltas: "
        f"`AccumulativePageRankProgram`, tol {args.delta_tol:.3g} (its stopping bound then guarantees "
        f"L1 <= {2 * g.num_vertices * args.delta_tol:.2g}). L1 against `networkx.pagerank` (tol 1e-15). "
        f"One run per row, the two programs alternating, on a machine shared with other agents "
        f"(2 cores; load average before {load[0]:.1f}, after {load[1]:.1f}); `python -m bench.ssp`.",
        "",
        "| program | straggler | run | wall s | vs BSP, same program | vs best BSP | supersteps (rank 0, 1) "
        "| staleness mean | max | blocked s (rank 0, 1) | L1 vs networkx |",
        "|---|---|---|---:|---:|---:|---|---:|---:|---|---:|",
    ]
    for r in rows:
        k = r["straggler"]
        wait = ", ".join(f"{w:.2f}" for w in r["wait"]) if r["wait"] else "-"
        own = r["wall"] / bsp[(r["program"], k)]
        run = r["run"] + ("" if r["converged"] else " (not converged)")
        if any(r["sweeps"]):
            run += f" (ran {', '.join(map(str, r['sweeps']))})"
        lines.append(
            f"| {label[r['program']]} | {k} | {run} | "
            f"{r['wall']:.2f} | {own:.2f}x | {r['wall'] / best[k]:.2f}x | "
            f"{', '.join(map(str, r['clocks']))} | {r['mean']:.2f} | {r['max']} | {wait} | {r['l1']:.1e} |"
        )
    lines += [
        "",
        "Observed staleness: per superstep, the largest lag (in supersteps) of any peer data read "
        "behind what BSP would read (0 when it read newer data); mean and max over every superstep of "
        "both workers. Fresh reads: before each wait a rank takes every message that has arrived and "
        "consumes those of its peers' later supersteps too (the SSP model bounds how old data may be, "
        "not how new); `fresh=False` keeps to data not from the future, so a straggler reads its "
        "fast peer's values from exactly the superstep before its own. Local sweeps: a rank that must "
        "wait runs up to K extra gathers and applies on its own part (sweeps run per rank in "
        "parentheses; their time counts as blocked).",
        "",
        "Reading. A fixed straggler sets the pace whatever the bound: its supersteps each cost the "
        "delay, its fast peer can run at most s supersteps ahead (so no more supersteps than it in "
        "the long run), and SSP saves only the part of each superstep the straggler spent waiting for "
        "its peer (the peer's compute and the message round trips, a few ms of about 56). It wins only "
        "if the straggler needs no more supersteps than under BSP: power iteration needs a few more "
        "(stale boundary values, and s + 2 passing supersteps to stop); accumulated deltas need about "
        "as many as their own BSP run (every change is delivered once, staleness only delays it, and "
        "one passing superstep stops), but their BSP run needs more supersteps than power iteration's "
        "to the same accuracy (the unnormalized sum converges at rate alpha from zero; power iteration "
        "starts from the uniform vector). Local sweeps let the fast rank pass mass on inside its part "
        "while it waits, but with a vertex cut most paths soon cross to a vertex mastered or an edge "
        "held by the straggler, so they save few supersteps here. A moving straggler is where SSP "
        "pays: under BSP every superstep costs the delay, under SSP each rank pays it only in its own "
        "slow supersteps and runs ahead in the others.",
        "",
        "**Targets, from this run** (issue 5: SSP s = 2 finishes PageRank sooner than BSP with the "
        "straggler, L1 <= 1e-6):",
        "",
    ]
    variants = [("power", "SSP s=2"), ("delta", "SSP s=2")]
    if args.sweeps:
        variants.append(("delta", f"SSP s=2, sweeps {args.sweeps}"))
    for k in ("fixed", "moving"):
        for prog, run in variants:
            r = next(x for x in rows if (x["program"], x["straggler"], x["run"]) == (prog, k, run))
            own = r["wall"] / bsp[(prog, k)]
            vs = r["wall"] / best[k]
            ok = vs < 1 and r["l1"] <= 1e-6 and r["converged"]
            lines.append(
                f"- {where[k]}, {label[prog]}: {run} {r['wall']:.2f} s = {own:.2f}x its own BSP, "
                f"{vs:.2f}x the fastest BSP ({best[k]:.2f} s); L1 {r['l1']:.1e}; staleness mean "
                f"{r['mean']:.2f}, max {r['max']}; supersteps {', '.join(map(str, r['clocks']))}: "
                f"**{'met' if ok else 'not met'}**."
            )
    for k in ("fixed", "moving"):
        cands = [x for x in rows if x["straggler"] == k and x["run"].startswith("SSP s=2")]
        b = min((x for x in cands if x["converged"] and x["l1"] <= 1e-6), key=lambda x: x["wall"])
        met = "met" if b["wall"] < best[k] else "not met"
        lines.append(
            f"- Overall, {where[k]}: the fastest SSP s=2 run ({label[b['program']]}, {b['run']}) took "
            f"{b['wall'] / best[k]:.2f}x the fastest BSP run: **{met}**."
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delay", type=float, default=0.05, help="seconds added to a slowed superstep")
    ap.add_argument("--tol", type=float, default=1e-12, help="power iteration: per-vertex tolerance")
    ap.add_argument(
        "--delta-tol",
        type=float,
        default=None,
        help="accumulated deltas: per-vertex tolerance (default 5e-7 / N: guaranteed L1 <= 1e-6)",
    )
    ap.add_argument("--max-iter", type=int, default=3000)
    ap.add_argument(
        "--sweeps", type=int, default=16, help="deltas: an SSP s=2 row with this many local sweeps"
    )
    ap.add_argument("--rmat", type=int, default=0, help="use an R-MAT graph of this scale instead")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--from-log", default=None, help="re-render from the printed rows of an earlier run")
    ap.add_argument("--load-after", type=float, default=float("nan"), help="with --from-log")
    ap.add_argument("--als", action="store_true", help="only the ALS table (own section)")
    args = ap.parse_args()
    if args.als:
        text = als_section(args)
        print(text)
        if not args.no_write:
            write_section("Bounded staleness (SSP): ALS", text)
        return
    name, g = _load(args)
    if args.delta_tol is None:
        args.delta_tol = 5e-7 / g.num_vertices
    load0 = os.getloadavg()[0]
    print(f"{name}: {g.num_vertices:,} vertices, {g.num_edges:,} edges; load average {load0}")
    ref = None if args.from_log else _networkx(g, 0.85)
    if args.from_log:  # re-render the table from the rows a run printed (one dict per line)
        import ast

        lines = Path(args.from_log).read_text().splitlines()
        rows = [ast.literal_eval(x) for x in lines if x.startswith("{'program'")]
        load0 = float(lines[0].rsplit(" ", 1)[1])
        load1 = args.load_after
    else:
        rows = pagerank_rows(args, g, ref)
        load1 = os.getloadavg()[0]
    text = pagerank_section(args, name, g, rows, (load0, load1))
    print(text)
    if not args.no_write:
        write_section("Bounded staleness (SSP)", text)


if __name__ == "__main__":
    main()
