"""Two checkouts of gaslab side by side: PageRank per iteration and the process runtime's bytes.

A restructuring must not change speed or traffic. This script runs the same measurement on two
source trees (say, the commit before a refactor and the working tree) in turns: child process
for tree A, then for tree B, repeated ``--pairs`` times, so a drifting load on a shared machine
hits both alike. Each child imports gaslab from its own tree (a temporary folder laying the
tree out as the installed package: ``gas/`` with ``algorithms``, ``partition`` and ``datasets``
inside, first on ``PYTHONPATH``), builds R-MAT (edge factor 16, seed 0), warms up, and reports:

* ``sync``: ms per iteration of the bundled ``PageRankProgram`` and of the README's
  user-written PageRank (whole ``run`` calls of ``--iters`` supersteps, tol 0, best of
  ``--rounds``), ``--threads`` Numba threads;
* ``runtime``: a two-process job (``LocalCluster(2)``, HDRF and random partitions) of
  ``--iters`` supersteps on R-MAT-``--runtime-scale``: bytes rank 0 sent per superstep (exact,
  so equal trees give equal bytes) and ms per superstep (best of ``--rounds``).

Ratios are B / A per pair; the table gives the median pair ratio and the range.

Run: ``python -m bench.compare_trees --a ../before --b . [--scale 20] [--pairs 4]``. Prints a
markdown table; it writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CHILD = r'''
import json, sys, time
import numpy as np
import gas
from gas.algorithms.pagerank import PageRankProgram
from gas.datasets import rmat


class ReadmePageRank(gas.VertexProgram):
    """The README's user-written PageRank ("Writing a vertex program"), tol 0."""

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

    def converged(self, ctx):
        return ctx.change < ctx.num_vertices * self.tol


def best(f, rounds):
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def sync(scale, iters, rounds, threads):
    g = gas.Graph.from_edges(*rmat(scale, 16, seed=0), num_vertices=1 << scale)
    res = {}
    for name, prog in (("bundled", PageRankProgram(tol=0.0)), ("readme", ReadmePageRank())):
        eng = gas.SyncEngine(g, prog, threads=threads)
        eng.run(2)
        res[name] = best(lambda: eng.run(iters), rounds) / iters
    return res


def runtime(scale, iters, rounds):
    from gas.partition import partition
    from gas.runtime.local import LocalCluster

    g = gas.Graph.from_edges(*rmat(scale, 16, seed=0), num_vertices=1 << scale)
    prog = PageRankProgram(tol=0.0)
    res = {}
    with LocalCluster(2) as c:
        for m in ("hdrf", "random"):
            a = partition(g, m, num_parts=2, seed=0)
            c.run(g, prog, assignment=a, max_iter=2)
            secs, sent = [], []
            for _ in range(rounds):
                st = c.run(g, prog, assignment=a, max_iter=iters).stats
                secs.append(float(np.mean([s["seconds"] for s in st])))
                sent.append(float(np.mean([s["bytes_sent"] for s in st])))
            res[m] = {"seconds": min(secs), "bytes": sent[0], "bytes_all_equal": len(set(sent)) == 1}
    return res


if __name__ == "__main__":  # spawned workers import this file
    kind, args = sys.argv[1], json.loads(sys.argv[2])
    out = sync(**args) if kind == "sync" else runtime(**args)
    print("RESULT " + json.dumps(out))
'''


def site_of(tree: Path, into: Path) -> Path:
    """A folder laying ``tree`` out as the installed package (symlinks), for PYTHONPATH."""
    gas = into / "gas"
    gas.mkdir(parents=True)
    for entry in (tree / "gas").iterdir():
        (gas / entry.name).symlink_to(entry.resolve())
    for sub in ("algorithms", "partition", "datasets"):
        (gas / sub).symlink_to((tree / sub).resolve())
    return into


def child(site: Path, script: Path, kind: str, args: dict) -> dict:
    """Run one measurement in a fresh process importing gaslab from ``site``."""
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run(
        [sys.executable, str(script), kind, json.dumps(args)],
        env=env, cwd=script.parent, capture_output=True, text=True, check=False,
    )  # fmt: skip
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"child failed for {site}:\n{out.stderr[-3000:]}")


def cpu_model() -> str:
    """The CPU's model name (Linux), for the record of the run's conditions."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def ratio_cell(a: list[float], b: list[float]) -> str:
    r = [y / x for x, y in zip(a, b)]
    return f"{np.median(r):.3f} ({min(r):.3f}–{max(r):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="first source tree (e.g. the commit before a change)")
    ap.add_argument("--b", required=True, help="second source tree (e.g. the working tree)")
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--runtime-scale", type=int, default=18)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        script = tmp_path / "child.py"
        script.write_text(CHILD)
        sites = {k: site_of(Path(getattr(args, k)), tmp_path / k) for k in ("a", "b")}
        load0 = os.getloadavg()
        t0 = time.perf_counter()
        sync_args = dict(scale=args.scale, iters=args.iters, rounds=args.rounds, threads=args.threads)
        rt_args = dict(scale=args.runtime_scale, iters=args.iters, rounds=args.rounds)
        got: dict[str, dict[str, list]] = {k: {"sync": [], "runtime": []} for k in sites}
        for i in range(args.pairs):
            for k, site in sites.items():
                got[k]["sync"].append(child(site, script, "sync", sync_args))
                got[k]["runtime"].append(child(site, script, "runtime", rt_args))
            print(f"pair {i + 1}/{args.pairs} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        load1 = os.getloadavg()
    print(
        f"A = {args.a}, B = {args.b}; {args.pairs} pairs in turns (A then B), {args.rounds} rounds "
        f"each, {time.perf_counter() - t0:.0f} s; load average {load0[0]:.2f} at the start, "
        f"{load1[0]:.2f} at the end; {os.cpu_count()} CPUs ({cpu_model()}); both sides "
        f"{args.threads} Numba threads on one process, cores // 2 per rank on two.\n"
    )
    print("| measure | A (median) | B (median) | B / A, median pair (range) |")
    print("|---|---:|---:|---:|")
    for name in ("bundled", "readme"):
        a = [r[name] for r in got["a"]["sync"]]
        b = [r[name] for r in got["b"]["sync"]]
        label = f"R-MAT-{args.scale} {name} PageRank, ms/iteration ({args.threads} threads)"
        print(f"| {label} | {np.median(a) * 1e3:.1f} | {np.median(b) * 1e3:.1f} | {ratio_cell(a, b)} |")
    for m in ("hdrf", "random"):
        a = [r[m]["seconds"] for r in got["a"]["runtime"]]
        b = [r[m]["seconds"] for r in got["b"]["runtime"]]
        label = f"R-MAT-{args.runtime_scale} procs 2 ({m}), ms/superstep"
        print(f"| {label} | {np.median(a) * 1e3:.1f} | {np.median(b) * 1e3:.1f} | {ratio_cell(a, b)} |")
        ba = {r[m]["bytes"] for r in got["a"]["runtime"]}
        bb = {r[m]["bytes"] for r in got["b"]["runtime"]}
        same = "identical" if ba == bb and len(ba) == 1 else "differ"
        label = f"R-MAT-{args.runtime_scale} procs 2 ({m}), bytes rank 0 sent/superstep"
        print(f"| {label} | {sorted(ba)[0]:,.0f} | {sorted(bb)[0]:,.0f} | {same} |")


if __name__ == "__main__":
    main()
