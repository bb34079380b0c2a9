"""Process runtime benchmark: PageRank with --procs 1 and 2, compute vs exchange, bytes vs prediction.

For each partitioner, a fixed number of supersteps (tol 0) of PageRank on an R-MAT graph, one
warm-up job first (JIT, worker start), then timed jobs on the same workers. Reported per
superstep: wall time, the part rank 0 spent inside exchange steps (waiting included), and the
bytes rank 0 sent, against the partitioner's prediction: sync sends every mirror's vertex data
(rank, contrib, change: 24 bytes) from its master, and reduce_gather one 8-byte partial per
mirror that has local in-edges, so the total per superstep is bounded by
``(RF - 1) * n * (24 + 8)`` bytes over all ranks (predicted here from the assignment itself).
Rank 0 sends about half of it with two ranks.

Run: ``python bench/runtime.py [--scale 20] [--iters 20]``; writes "## Process runtime" into
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from gas.algorithms.pagerank import PageRankProgram
from gas.datasets.generators import rmat_graph
from gas.engine import SyncEngine
from gas.partition import partition
from gas.runtime.local import LocalCluster


def predicted_bytes(g, a) -> float:
    """Sync (24 B per mirror) + partial sums (8 B per mirror with local in-edges), all ranks."""
    rf = a.num_replicas.sum() / g.num_vertices
    mirrors = (rf - 1.0) * g.num_vertices
    return mirrors * (24 + 8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    g = rmat_graph(args.scale, 16, seed=1)
    print(f"R-MAT-{args.scale}: {g.num_vertices:,} vertices, {g.num_edges:,} edges")
    prog = PageRankProgram(tol=0.0)
    eng = SyncEngine(g, prog)
    eng.run(2)
    best1 = min(_timed(lambda: SyncEngine(g, prog).run(args.iters)) for _ in range(2))
    rows = []
    with LocalCluster(2) as c:
        for method in ("random", "grid", "hdrf"):
            a = partition(g, method, num_parts=2, seed=0)
            c.run(g, prog, assignment=a, max_iter=2)  # warm-up
            res = None
            best = np.inf
            for _ in range(2):
                t0 = time.perf_counter()
                r = c.run(g, prog, assignment=a, max_iter=args.iters)
                dt = time.perf_counter() - t0
                if dt < best:
                    best, res = dt, r
            st = res.stats
            per = np.mean([s["seconds"] for s in st])
            exch = np.mean([s["exchange_seconds"] for s in st])
            sent0 = np.mean([s["bytes_sent"] for s in st])
            pred = predicted_bytes(g, a)
            rf = a.num_replicas.sum() / g.num_vertices
            rows.append((method, rf, per, exch, sent0, pred, best))
    t1 = best1 / args.iters
    lines = [
        f"PageRank, R-MAT-{args.scale} ({g.num_vertices:,} vertices, {g.num_edges:,} edges), {args.iters} "
        f"supersteps, best of 2 after a warm-up; 2 cores shared with other agents' jobs (noisy). "
        f"`--procs 1`: {t1 * 1e3:.1f} ms per superstep (whole run {best1:.2f} s incl. init).",
        "",
        "| partitioner | RF | ms/superstep (procs 2) | of which exchange (rank 0) | vs procs 1 "
        "| MB sent/superstep (rank 0) | predicted MB (all ranks) |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, rf, per, exch, sent0, pred, _best in rows:
        lines.append(
            f"| {method} | {rf:.3f} | {per * 1e3:.1f} | {exch * 1e3:.1f} | {per / t1:.2f}x "
            f"| {sent0 / 1e6:.2f} | {pred / 1e6:.2f} |"
        )
    lines += [
        "",
        f"Host: {os.cpu_count()} cores. Exchange time includes waiting for the slower rank. The bytes "
        "rank 0 sends are one of two directions; with 2 ranks the total is about twice the rank-0 figure.",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from _results import write_section

        write_section("Process runtime", text)


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
