"""PageRank per iteration with the blocked gather's sources numbered by degree, or keeping ids.

Usage: python -m bench.pagerank_layout [--graphs rmat20 rmat22 grid] [--rounds 15] [--threads 2]

Two engines of the bundled ``PageRankProgram`` on two copies of the same graph, one built with
``CONFIG["relabel"] = 1`` (sources numbered by out-degree, see ``gas._segments``) and one with
``0`` (ids kept), run in turns: each round runs 5 supersteps on each. On a shared machine the
time of a superstep moves with other work by more than the effect measured, so the table gives
the fastest round, the median round and the median of the per-round ratios (a ratio of two runs
made seconds apart). Graphs: R-MAT scale 20 and 22 (edge factor 16, seed 0, as in
``bench/pagerank.py``) and a 1024 x 1024 grid with 10 % random extra edges (ids with locality).
Prints a markdown table; nothing is written.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import gas
from gas.algorithms.pagerank import PageRankProgram
from gas.config import CONFIG
from gas.datasets import rmat


def _grid(side: int = 1024) -> tuple[np.ndarray, np.ndarray, int]:
    idx = np.arange(side * side).reshape(side, side)
    a, b = idx[:, :-1].ravel(), idx[:, 1:].ravel()
    c, d = idx[:-1, :].ravel(), idx[1:, :].ravel()
    rng = np.random.default_rng(0)
    extra = rng.integers(0, side * side, (2, side * side // 10))
    src = np.concatenate([a, b, c, d, extra[0]])
    dst = np.concatenate([b, a, d, c, extra[1]])
    return src, dst, side * side


def _graph(name: str) -> tuple[np.ndarray, np.ndarray, int]:
    if name.startswith("rmat"):
        scale = int(name[4:])
        s, d = rmat(scale, 16, seed=0)
        return s, d, 1 << scale
    if name == "grid":
        return _grid()
    raise SystemExit(f"unknown graph {name!r}: expected rmat<scale> or grid")


def measure(name: str, rounds: int, threads: int) -> dict[str, float]:
    src, dst, n = _graph(name)
    engines = {}
    saved = CONFIG["relabel"]
    try:
        for relabel in (0, 1):
            CONFIG["relabel"] = relabel
            g = gas.Graph.from_edges(src, dst, num_vertices=n)
            eng = gas.SyncEngine(g, PageRankProgram(0.85, 0.0), threads=threads)
            eng.run(1)  # compiles / loads kernels and builds the layout
            engines[relabel] = (eng, g.num_edges)
        times: dict[int, list[float]] = {0: [], 1: []}
        for _ in range(rounds):
            for relabel, (eng, _) in engines.items():
                CONFIG["relabel"] = relabel
                t0 = time.perf_counter()
                eng.run(5)
                times[relabel].append((time.perf_counter() - t0) / 5)
    finally:
        CONFIG["relabel"] = saved
    m = engines[0][1]
    kept, numbered = np.array(times[0]), np.array(times[1])
    return {
        "edges": m,
        "kept_min": kept.min(),
        "kept_med": float(np.median(kept)),
        "num_min": numbered.min(),
        "num_med": float(np.median(numbered)),
        "ratio_med": float(np.median(kept / numbered)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", nargs="*", default=["rmat20", "rmat22", "grid"])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    print(
        "| graph | edges | ids kept: fastest / median ms | numbered by degree: fastest / median ms "
        "| median paired speed-up |"
    )
    print("|---|---:|---:|---:|---:|")
    for name in args.graphs:
        r = measure(name, args.rounds, args.threads)
        print(
            f"| {name} | {r['edges']:,} | {r['kept_min'] * 1e3:.1f} / {r['kept_med'] * 1e3:.1f} "
            f"| {r['num_min'] * 1e3:.1f} / {r['num_med'] * 1e3:.1f} | {r['ratio_med']:.2f}x |",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
