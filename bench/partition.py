"""Partitioning: replication factor and balance of every method, and throughput on R-MAT-22.

Usage: python -m bench.partition [--parts 4 8 16 30] [--scale 22] [--skip-rmat] [--no-write]

Quality: on the shared SNAP graphs (wiki-Vote, email-Enron, soc-Epinions1, soc-Slashdot0811,
ca-HepPh), each made undirected, deduplicated and self-loop-free (each {u, v} once, as the
published figures are computed), every method at each part count, seed 0. Published
replication factors at 30 parts (Zhang et al., KDD 2017, from the table in their public
README) are printed beside ours. pymetis (METIS k-way, an edge-cut) is a reference row when
installed. Edge-cut rows report the replication factor of their placement view (an edge stored
with its target's owner) so that they sit in the same column.

Throughput: R-MAT scale 22 (edge factor 16, a=0.57 b=0.19 c=0.19, seed 0, deduplicated: about
65 M edges), 30 parts, after a warm-up compile on a tiny graph; "assign" is the method's own
work (shuffle included for streaming methods), "derive" builds masters, replicas and the report.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

import gas
from gas.io import load
from gas.partition import EdgeCut, EdgeInput, available_methods, partition, undirected_simple

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.partition")

from ._results import write_section

ROOT = Path(__file__).resolve().parents[1]

SHARED = ROOT.parent / "shared" / "datasets"
GRAPHS = {
    "wiki-Vote": "wiki-Vote/Wiki-Vote.txt",
    "email-Enron": "email-Enron/email-Enron.txt.gz",
    "soc-Epinions1": "soc-Epinions1/soc-Epinions1.txt.gz",
    "soc-Slashdot0811": "soc-Slashdot0811/soc-Slashdot0811.txt.gz",
    "ca-HepPh": "ca-HepPh/ca-HepPh.txt.gz",
}
# Zhang et al., KDD 2017 (NE), replication factors at 30 parts.
PUBLISHED_30 = {
    "wiki-Vote": {"random": 9.28, "oblivious": 3.85, "hdrf": 3.90, "ne": 2.35},
    "email-Enron": {"random": 5.10, "oblivious": 2.30, "hdrf": 2.12, "ne": 1.34},
}
TARGET = {"random": 1.10, "oblivious": 1.02, "hdrf": 1.02, "ne": 1.20}  # ours <= published x this
NOTES = """Notes on the tables:

* ne: edge balance is about 1.0, but vertex and master balance are poor (2-7): NE fills the parts
  one after another, so the last part collects the leftover low-degree periphery, and a vertex
  with a single replica must be mastered where it lives. Masters of replicated vertices are
  spread to compensate, which is why every other vertex-cut shows master balance <= 1.004.
* dbh, hybrid, hash: placement by hashing a vertex, so a few vertices whose edges all hash
  together set the maximum; on these small graphs at 30 parts their edge balance is 1.06-1.34
  (no balance term can correct it). On R-MAT-22 it is <= 1.05. The greedy streaming methods
  (oblivious, hdrf, grid) and ne stay at <= 1.01 everywhere.
* Edge-cut rows: ldg, fennel and range balance ``1 + in-degree`` per vertex by default (what
  a part stores when edges live with their target), here in the min -> max orientation of the
  undirected edge set; pymetis balances vertex counts (METIS default), hence its edge balance."""
THROUGHPUT_NOTE = (
    "assign = the method's own work (for oblivious and hdrf including the seeded shuffle of the "
    "stream and mapping the result back to input order); derive + report = masters, replica "
    "lists and the report, the same code for every method. Targets from the issue: streaming "
    "methods >= 5 M edges/s, hash methods >= 50 M edges/s; ne (in memory) has none."
)
STREAMING = {"grid", "oblivious", "hdrf", "ldg", "fennel"}
HASHING = {"random", "dbh", "hybrid", "hash", "range"}


def metis_parts(g: gas.Graph, parts: int) -> np.ndarray | None:
    """METIS k-way vertex parts of the symmetric adjacency, or None without pymetis."""
    try:
        import pymetis
    except ImportError:
        return None
    s = np.concatenate([g.src, g.dst])
    d = np.concatenate([g.dst, g.src])
    order = np.lexsort((d, s))
    xadj = np.zeros(g.num_vertices + 1, dtype=np.int64)
    np.cumsum(np.bincount(s, minlength=g.num_vertices), out=xadj[1:])
    _, membership = pymetis.part_graph(parts, xadj=xadj, adjncy=d[order])
    return np.asarray(membership, dtype=np.int32)


def quality(parts_list: list[int]) -> tuple[str, list[str]]:
    methods = list(available_methods())
    partition(([0, 1, 2, 3], [1, 2, 3, 0]), "hdrf", 2)  # warm-up
    for m in methods:
        partition(([0, 1, 2, 3], [1, 2, 3, 0]), m, 2)
    out = []
    misses = []
    for name, rel in GRAPHS.items():
        path = SHARED / rel
        if not path.exists():
            out.append(f"*{name}: not found under {SHARED}, skipped.*\n")
            continue
        g = undirected_simple(load(path))
        pub = PUBLISHED_30.get(name, {})
        head = " | ".join(f"RF P={p}" for p in parts_list)
        rows = [
            f"**{name}**: {g.num_vertices:,} vertices, {g.num_edges:,} undirected edges\n",
            f"| method | kind | {head} | published RF P=30 | edge bal. P=30 | vertex bal. P=30 "
            "| master bal. P=30 | cut frac. P=30 | s P=30 |",
            "|---|---|" + "---:|" * (len(parts_list) + 6),
        ]
        entries = [(m, available_methods()[m].kind) for m in methods] + [("pymetis", "edge-cut")]
        for m, kind in entries:
            cells = []
            last = None
            for p in parts_list:
                t0 = time.perf_counter()
                if m == "pymetis":
                    vp = metis_parts(g, p)
                    if vp is None:
                        break
                    a = EdgeCut(
                        vp,
                        g.src,
                        g.dst,
                        g.num_vertices,
                        p,
                        method="pymetis",
                        seconds=time.perf_counter() - t0,
                    )
                else:
                    a = partition(g, m, p, seed=0)
                r = a.report()
                cells.append(f"{r.replication_factor:.2f}")
                last = r
            if last is None:
                continue
            published = pub.get(m)
            pub_cell = f"{published:.2f}" if published else ""
            if published and 30 in parts_list:
                ours = float(cells[parts_list.index(30)])
                ok = ours <= published * TARGET[m] and (m != "random" or ours >= published / TARGET[m])
                if not ok:
                    misses.append(f"{name} {m}: {ours:.2f} vs published {published:.2f}")
            cut = f"{last.edge_cut_fraction:.3f}" if last.edge_cut_fraction is not None else ""
            rows.append(
                f"| {m} | {kind} | " + " | ".join(cells) + f" | {pub_cell} | {last.edge_balance:.3f} | "
                f"{last.vertex_balance:.3f} | {last.master_balance:.3f} | {cut} | {last.seconds:.3f} |"
            )
        out.append("\n".join(rows) + "\n")
        print("\n".join(rows), flush=True)
    return "\n".join(out), misses


def throughput(scale: int, parts: int) -> str:
    from gas.datasets import rmat

    t0 = time.perf_counter()
    s, d = rmat(scale, 16, seed=0)
    g = gas.Graph.from_edges(s, d, num_vertices=1 << scale)
    del s, d
    build = time.perf_counter() - t0
    inp = EdgeInput(g)
    rows = [
        f"R-MAT scale {scale}: {g.num_vertices:,} vertices, {g.num_edges:,} edges (built in {build:.1f} s), "
        f"{parts} parts.\n",
        "| method | kind | assign s | M edges/s | target | derive + report s | RF | edge bal. |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m, cls in available_methods().items():
        partition(([0, 1, 2, 3], [1, 2, 3, 0]), m, 2)  # compile before timing
        t0 = time.perf_counter()
        a = partition(inp, m, parts, seed=0)
        assign = time.perf_counter() - t0
        t0 = time.perf_counter()
        r = a.report()
        derive = time.perf_counter() - t0
        target = "≥ 5" if m in STREAMING else ("≥ 50" if m in HASHING else "")
        row = (
            f"| {m} | {cls.kind} | {assign:.2f} | {g.num_edges / assign / 1e6:.1f} | {target} | "
            f"{derive:.2f} | {r.replication_factor:.3f} | {r.edge_balance:.3f} |"
        )
        rows.append(row)
        print(row, flush=True)
        del a
    return "\n".join(rows) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", type=int, nargs="+", default=[4, 8, 16, 30], help="part counts")
    ap.add_argument("--scale", type=int, default=22, help="R-MAT scale for the throughput run")
    ap.add_argument("--skip-rmat", action="store_true", help="quality tables only")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = ap.parse_args()

    import numba

    load1 = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    header = (
        f"`python -m bench.partition`, {date.today()}, {numba.config.NUMBA_NUM_THREADS} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}; "
        f"load average {load1} at the start (other jobs shared the machine). Seed 0 everywhere."
    )
    tables, misses = quality(args.parts)
    body = [
        header,
        "",
        "### Replication factor (RF) on the shared SNAP graphs",
        "",
        "Undirected, deduplicated, self-loop-free edge sets (each {u, v} once). Published: Zhang et "
        "al., KDD 2017 (NE), table in their public README, 30 parts. Targets: random within 10 % "
        "of published, oblivious and hdrf within 2 % or better, ne at most 1.2x published NE. "
        "Edge-cut rows (hash, range, ldg, fennel, pymetis) give the RF of their placement view "
        "(each edge stored with its target's owner). Balances and time are at 30 parts.",
        "",
        tables,
        "Targets missed: " + ("; ".join(misses) if misses else "none") + ".",
    ]
    body += ["", NOTES]
    if not args.skip_rmat:
        body += ["", "### Throughput", "", THROUGHPUT_NOTE, "", throughput(args.scale, 30)]
    text = "\n".join(body)
    if not args.no_write:
        write_section("Partitioning", text)
        print("updated bench/RESULTS.md (## Partitioning)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
