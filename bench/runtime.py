"""Process runtime benchmark: PageRank with --procs 1 and 2, compute vs exchange, bytes vs prediction.

For each partitioner, a fixed number of supersteps (tol 0) of PageRank on an R-MAT graph, one
warm-up job first (JIT, worker start), then timed jobs on the same workers. Reported per
superstep: wall time, the part rank 0 spent inside exchange steps (waiting included), and the
bytes rank 0 sent, against the partitioner's prediction: sync sends every mirror the fields its
gather reads (PageRank: ``contrib``, 8 bytes; ``rank`` and ``change`` stay on the master, see
``gas.runtime.exchange.mirror_fields``) from its master, and reduce_gather one 8-byte partial per
mirror that has local in-edges, so the total per superstep is bounded by
``(RF - 1) * n * (8 + 8)`` bytes over all ranks (predicted here from the assignment itself).
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
from gas.runtime.exchange import mirror_fields
from gas.runtime.local import LocalCluster

# bytes a mirror receives per superstep: the fields PageRank's gather reads (float64 each)
SYNC_B = 8 * len(mirror_fields(PageRankProgram(), list(PageRankProgram.vertex_data)))


def predicted_bytes(g, a) -> float:
    """Sync (SYNC_B per mirror) + partial sums (8 B per mirror with local in-edges), all ranks."""
    rf = a.num_replicas.sum() / g.num_vertices
    mirrors = (rf - 1.0) * g.num_vertices
    return mirrors * (SYNC_B + 8)


def predicted_rank0(g, a) -> float:
    """Bytes rank 0 sends per superstep (PageRank): SYNC_B per replica of its masters on other
    parts (sync of the fields gather reads), 8 B per rank-0 mirror with local in-edges (partial sum)."""
    nrep = a.num_replicas
    own = a.master == 0
    sync = int((nrep[own] - 1).sum())
    on0 = a.edge_part == 0
    has_in0 = np.zeros(g.num_vertices, bool)
    has_in0[g.dst[on0]] = True
    partial = int((has_in0 & ~own).sum())
    return sync * float(SYNC_B) + partial * 8.0


def rf_of(g, method: str, parts: int) -> float:
    a = partition(g, method, num_parts=parts, seed=0)
    return float(a.num_replicas.sum() / g.num_vertices)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
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
            rows.append((method, rf, per, exch, sent0, pred, best, predicted_rank0(g, a)))
    t1 = best1 / args.iters
    load = os.getloadavg()
    lines = [
        f"PageRank, R-MAT-{args.scale} ({g.num_vertices:,} vertices, {g.num_edges:,} edges), {args.iters} "
        f"supersteps, best of 2 after a warm-up; 2 cores shared with other agents' jobs (load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end of the run). "
        f"`--procs 1`: {t1 * 1e3:.1f} ms per superstep (whole run {best1:.2f} s incl. init).",
        "",
        "| partitioner | RF | ms/superstep (procs 2) | compute | exchange (rank 0) | vs procs 1 "
        "| MB sent/superstep (rank 0) | predicted rank 0 | measured/predicted | predicted MB (all ranks) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for method, rf, per, exch, sent0, pred, _best, pred0 in rows:
        lines.append(
            f"| {method} | {rf:.3f} | {per * 1e3:.1f} | {max(per - exch, 0.0) * 1e3:.1f} | {exch * 1e3:.1f} "
            f"| {per / t1:.2f}x | {sent0 / 1e6:.2f} | {pred0 / 1e6:.2f} | {sent0 / pred0:.3f} "
            f"| {pred / 1e6:.2f} |"
        )
    # projection: per-edge compute cost from procs 1, per-byte cost from the measured exchange
    bpm = SYNC_B + 8  # bytes per mirror and superstep
    c_e = t1 / g.num_edges
    c_b = min(exch / max(sent0, 1.0) for _m, _rf, _per, exch, sent0, *_ in rows)
    c_net = 1.0 / 1.25e9  # a 10 GbE link
    lines += [
        "",
        "Projection to P machines (one rank each): per superstep "
        f"`T(P) = c_e * m / P + c_b * B(P)`, with `B(P) = (RF(P) - 1) * n * {bpm} / P` bytes sent "
        f"per rank ({SYNC_B} B sync + 8 B partial per mirror, spread evenly), "
        f"`c_e` = {c_e * 1e9:.2f} ns per edge (procs 1 here) and `c_b` the per-byte exchange cost: "
        f"{c_b * 1e9:.2f} ns/B measured over loopback (lowest of the three, waiting included) and "
        f"{c_net * 1e9:.2f} ns/B for a 10 GbE link. RF(P) is measured by partitioning this graph.",
        "",
        "| partitioner | P | RF(P) | compute ms | exchange ms (loopback c_b) | share | "
        "exchange ms (10 GbE) | share |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for method in ("random", "grid", "hdrf"):
        for P in (8, 16, 32, 64):
            rf = rf_of(g, method, P)
            comp = c_e * g.num_edges / P
            B = (rf - 1.0) * g.num_vertices * bpm / P
            x1, x2 = c_b * B, c_net * B
            lines.append(
                f"| {method} | {P} | {rf:.2f} | {comp * 1e3:.1f} | {x1 * 1e3:.1f} | {x1 / (comp + x1):.0%} "
                f"| {x2 * 1e3:.1f} | {x2 / (comp + x2):.0%} |"
            )
    lines += [
        "",
        f"Host: {os.cpu_count()} cores. Exchange time includes waiting for the slower rank; compute = "
        "superstep time minus exchange on rank 0 (clamped at 0: the active-count all-reduce is timed as "
        "exchange but falls outside the superstep timer). The bytes rank 0 sends are one of two directions; "
        "the all-ranks prediction is the whole volume. Exchange overtakes compute where "
        f"`(RF(P) - 1) * n * {bpm} * c_b > c_e * m`, i.e. once RF(P) - 1 exceeds "
        f"`c_e * m / ({bpm} n c_b)` = {c_e * g.num_edges / (bpm * g.num_vertices * c_b):.2f} (loopback c_b) "
        f"or {c_e * g.num_edges / (bpm * g.num_vertices * c_net):.2f} (10 GbE).",
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
