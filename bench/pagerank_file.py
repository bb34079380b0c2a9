"""PageRank from a text file, end to end: ``gas pagerank FILE`` against igraph, networkit and
pandas + python-graphblas, each a whole process from the same file to a ranks file (issue 21).

Usage: python -m bench.pagerank_file [--scale 22] [--rounds 3] [--threads 2] [--dir /tmp]
                                     [--keep-file PATH] [--slow-limit 300] [--peers ...]
                                     [--tree SRC] [--section-file F] [--no-write]

``--tree SRC`` runs gaslab from another source tree (e.g. ``git archive <commit>`` unpacked), so a
checkout being edited does not change the run; start the script from outside the checkout with
that tree first on PYTHONPATH (then the checkout, for ``bench``) to keep the parent off it too.

The file: R-MAT (``gas.datasets.rmat``, edge factor 16, a=0.57 b=0.19 c=0.19, seed 0) written as
``src<TAB>dst`` lines in the generator's order, ids as generated (not renumbered: not every id in
``0..2**scale-1`` is used; repeated edges and self-loops kept). It is written once (under
``--dir``, or at ``--keep-file``) and reused while its size matches the size recorded next to it.

Every contender runs as a fresh subprocess (interpreter start, imports and, for gaslab, loading
its kernels from the warm Numba cache count alike), reads the file, builds its graph, solves to
an L1 error <= 1e-6 and writes ``id<TAB>rank`` for every vertex that appears in the file (the
vertex set ``gas pagerank`` has), on the graph with repeated edges collapsed and self-loops kept
(what ``gas pagerank`` and networkit's reader do by default):

* gaslab: ``python -m gas.cli pagerank FILE --output OUT --threads T --top 0`` (the ``gas``
  script's entry point without the pyenv shim), its defaults otherwise (``--max-error 1e-6``:
  stops once the L1 distance to the fixed point is provably below 1e-6);
* igraph: ``Graph.Read_Edgelist`` (ids ``0..max id``), ``simplify(multiple=True, loops=False)``,
  ``pagerank(implementation="prpack")`` (PRPACK's own tolerance);
* networkit: ``graphio.EdgeListReader('\\t', 0, directed=True, continuous=True)`` (it drops
  repeated edges itself), ``centrality.PageRank(damp=0.85, distributeSinks=DistributeSinks)``
  with the L1 norm and ``tol = 1e-6 * (1 - alpha) / alpha`` (the same bound as gaslab's rule),
  ``setNumberOfThreads(T)``;
* pandas + python-graphblas: ``read_csv(sep='\\t', header=None, dtype=int64, engine='c')``
  (pyarrow when installed), ``Matrix.from_coo`` (a scalar value: repeats collapse), power iteration with the
  dangling mass spread evenly (``bench/pagerank.py``'s solver), for the iteration count a
  reference run shows reaching an L1 error <= 1e-6 (an oracle count: favours graphblas),
  ``nthreads = T``.

The peers write with the same code as gaslab's TSV writer (``"%d\\t%.17g\\n"`` lines joined in
chunks of 65,536; ``np.savetxt`` is slower, pandas' ``to_csv`` too). Every peer prints its own
phases (read, build, solve, write) as a JSON line; gaslab's come from its progress output.

One warm-up run of gaslab (its time reported as the first call), then ``--rounds`` rounds in
turns (each round runs every contender once). A contender whose run takes longer than
``--slow-limit`` seconds or fails (out of memory) is dropped from later rounds, with a note.
Afterwards (not timed) every output is read back and compared with a reference: scipy power
iteration on the deduplicated edges to an L1 change below 1e-10, restricted to the vertices in
the file and renormalized (with uniform teleport and dangling mass spread evenly, PageRank on
``0..max id`` restricted to the vertices present is proportional to PageRank on those alone).
Reported per contender: median and fastest wall time, the median over rounds of the per-round
ratio contender / gaslab, M edges (lines) / s, CPU seconds (user + system of the process: less
moved by other jobs than wall time), the L1 error, and the load average before and after each run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.pagerank_file")

from ._results import write_section
from .compare_trees import cpu_model, site_of

ROOT = Path(__file__).resolve().parents[1]
ALPHA = 0.85
TITLE = "PageRank from a text file, end to end (issue 21)"

# ---- the peers, each run as `python -c CODE path out threads [iters]`; each prints a JSON line

_WRITER = """
def write_ranks(path, ids, ranks):
    line = "%d\\t%.17g\\n"
    ids, ranks = ids.tolist(), ranks.tolist()
    with open(path, "w") as f:
        for i in range(0, len(ids), 1 << 16):
            f.write("".join(line % p for p in zip(ids[i : i + (1 << 16)], ranks[i : i + (1 << 16)])))
"""

IGRAPH = (
    """
import json, os, sys, time
t0 = time.perf_counter()
import numpy as np
import igraph as ig
"""
    + _WRITER
    + """
path, out = sys.argv[1], sys.argv[2]
t1 = time.perf_counter()
G = ig.Graph.Read_Edgelist(path, directed=True)
t2 = time.perf_counter()
G.simplify(multiple=True, loops=False, combine_edges=None)
present = np.flatnonzero(np.asarray(G.degree()) > 0)
t3 = time.perf_counter()
pr = np.asarray(G.pagerank(damping=0.85, implementation="prpack"))
t4 = time.perf_counter()
write_ranks(out, present, pr[present] / pr[present].sum())
t5 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "read": t2 - t1, "build": t3 - t2, "solve": t4 - t3,
                  "write": t5 - t4, "n": G.vcount(), "m": G.ecount()}))
"""
)

NETWORKIT = (
    """
import json, os, sys, time
t0 = time.perf_counter()
import numpy as np
import networkit as nk
"""
    + _WRITER
    + """
path, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
nk.setNumberOfThreads(threads)
t1 = time.perf_counter()
G = nk.graphio.EdgeListReader("\\t", 0, directed=True, continuous=True).read(path)
t2 = time.perf_counter()
deg = np.asarray(nk.centrality.DegreeCentrality(G, outDeg=True, ignoreSelfLoops=False).run().scores())
ideg = np.asarray(nk.centrality.DegreeCentrality(G, outDeg=False, ignoreSelfLoops=False).run().scores())
present = np.flatnonzero((deg > 0) | (ideg > 0))
t3 = time.perf_counter()
pr = nk.centrality.PageRank(G, damp=0.85, tol=1e-6 * 0.15 / 0.85,
                            distributeSinks=nk.centrality.SinkHandling.DistributeSinks)
pr.norm = nk.centrality.Norm.L1_NORM
pr.maxIterations = 1000
pr.run()
x = np.asarray(pr.scores())
x = x / x.sum()
t4 = time.perf_counter()
write_ranks(out, present, x[present] / x[present].sum())
t5 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "read": t2 - t1, "build": t3 - t2, "solve": t4 - t3,
                  "write": t5 - t4, "n": G.numberOfNodes(), "m": G.numberOfEdges(),
                  "iterations": pr.numberOfIterations()}))
"""
)

GRAPHBLAS = (
    """
import json, os, sys, time
t0 = time.perf_counter()
import numpy as np
import pandas as pd
import graphblas as gb
"""
    + _WRITER
    + """
path, out, threads, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
gb.ss.config["nthreads"] = threads
t1 = time.perf_counter()
try:
    import pyarrow  # noqa: F401
    engine = "pyarrow"
except ImportError:
    engine = "c"
df = pd.read_csv(path, sep="\\t", header=None, names=["s", "d"], dtype=np.int64, engine=engine)
src, dst = df["s"].to_numpy(), df["d"].to_numpy()
del df
t2 = time.perf_counter()
n = int(max(src.max(), dst.max())) + 1
A = gb.Matrix.from_coo(dst, src, 1.0, nrows=n, ncols=n, dtype=float)  # repeats collapse
del src, dst
deg = A.reduce_columnwise(gb.monoid.plus).new().to_dense(fill_value=0.0)
ideg = A.reduce_rowwise(gb.monoid.plus).new().to_dense(fill_value=0.0)
present = np.flatnonzero((deg > 0) | (ideg > 0))
inv = gb.Vector.from_dense(np.divide(1.0, deg, out=np.zeros(n), where=deg > 0))
dmask = gb.Vector.from_dense((deg == 0).astype(np.float64))
t3 = time.perf_counter()
x = gb.Vector.from_dense(np.full(n, 1.0 / n))
for _ in range(iters):
    d = x.ewise_mult(dmask).reduce().value or 0.0
    y = A.mxv(x.ewise_mult(inv), gb.semiring.plus_times).new()
    x = gb.Vector.from_dense(np.full(n, 0.85 * d / n + 0.15 / n))
    x(accum=gb.binary.plus) << y.apply(gb.binary.times, right=0.85)
x = x.to_dense(fill_value=0.0)
t4 = time.perf_counter()
write_ranks(out, present, x[present] / x[present].sum())
t5 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "read": t2 - t1, "build": t3 - t2, "solve": t4 - t3,
                  "write": t5 - t4, "n": n, "m": int(A.nvals), "iterations": iters,
                  "engine": engine}))
"""
)

PEERS = {"igraph": IGRAPH, "networkit": NETWORKIT, "pandas + graphblas": GRAPHBLAS}


# ---- the file and the reference


def edge_file(scale: int, keep: str | None, folder: str) -> tuple[Path, int]:
    """The R-MAT text file (written unless a file of the recorded size is there) and its edge count."""
    path = Path(keep) if keep else Path(folder) / f"rmat{scale}_ef16_seed0.tsv"
    meta = path.with_name(path.name + ".meta.json")
    if path.exists() and meta.exists():
        info = json.loads(meta.read_text())
        if info.get("size") == path.stat().st_size and info.get("scale") == scale:
            print(f"reusing {path} ({info['size'] / 1e6:.0f} MB, {info['edges']:,} lines)", flush=True)
            return path, int(info["edges"])
    from gas.datasets import rmat

    from .parse import _format_edges

    src, dst = rmat(scale, 16, seed=0)
    t0 = time.perf_counter()
    tmp = path.with_name(path.name + ".tmp")
    empty = np.empty(0, np.int64)
    with open(tmp, "wb") as f:
        for i in range(0, src.shape[0], 1 << 23):
            f.write(_format_edges(src[i : i + (1 << 23)], dst[i : i + (1 << 23)], empty).tobytes())
    tmp.replace(path)
    meta.write_text(json.dumps({"scale": scale, "edges": int(src.shape[0]), "size": path.stat().st_size}))
    print(
        f"wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s", flush=True
    )
    return path, int(src.shape[0])


def reference(scale: int, path: Path) -> tuple[np.ndarray, np.ndarray, int, int]:
    """PageRank on ``0..max id`` of the deduplicated R-MAT edges (scipy power iteration to an L1
    change below 1e-10), the vertices present, the edge count after deduplication, and the power
    iterations from the uniform vector that reach an L1 error <= 1e-6 (cached next to the file)."""
    cache = path.with_name(path.name + ".ref.npz")
    if cache.exists() and cache.stat().st_mtime >= path.stat().st_mtime:
        z = np.load(cache)
        return z["ref"], z["present"], int(z["m"]), int(z["k"])
    import scipy.sparse as sp

    from gas.datasets import rmat

    src, dst = rmat(scale, 16, seed=0)
    n = int(max(src.max(), dst.max())) + 1
    key = np.unique(src * n + dst)
    del src, dst
    src, dst = key // n, key % n
    del key
    present = np.flatnonzero(np.bincount(src, minlength=n) + np.bincount(dst, minlength=n))
    A = sp.csr_array((np.ones(src.shape[0]), (dst, src)), shape=(n, n))
    deg = np.bincount(src, minlength=n).astype(np.float64)
    m = int(src.shape[0])
    del src, dst
    inv = np.divide(1.0, deg, out=np.zeros(n), where=deg > 0)
    dangling = deg == 0

    def step(x):
        return ALPHA * (A @ (x * inv) + x[dangling].sum() / n) + (1 - ALPHA) / n

    ref = np.full(n, 1.0 / n)
    for _ in range(2000):
        nxt = step(ref)
        change = float(np.abs(nxt - ref).sum())
        ref = nxt
        if change < 1e-10:
            break
    x, k = np.full(n, 1.0 / n), 0
    while float(np.abs(x - ref).sum()) > 1e-6 and k < 500:
        x, k = step(x), k + 1
    np.savez(cache, ref=ref, present=present, m=m, k=k)
    return ref, present, m, k


def l1_error(out: Path, ref: np.ndarray, present: np.ndarray) -> tuple[float, bool]:
    """L1 distance of a ranks file to the reference restricted to its ids (renormalized), and
    whether its ids are exactly the vertices present in the file."""
    import pandas as pd

    df = pd.read_csv(out, sep="\t", header=None, names=["id", "rank"], dtype={"id": np.int64}, engine="c")
    ids, vals = df["id"].to_numpy(), df["rank"].to_numpy()
    order = np.argsort(ids, kind="stable")
    ids, vals = ids[order], vals[order]
    r = ref[ids] / ref[ids].sum()
    return float(np.abs(vals - r).sum()), bool(np.array_equal(ids, present))


# ---- running


_GAS_PATTERNS = {
    "load": r"loaded .* in ([0-9.]+) s",
    "supersteps": r"iterations in ([0-9.]+) s \(sum",
    "outside": r"; ([0-9.]+) s outside them",
    "iterations": r"(\d+) iterations in",
}


def gaslab_cmd(path: Path, out: Path, threads: int) -> list[str]:
    return [sys.executable, "-m", "gas.cli", "pagerank", str(path), "--output", str(out)] + [
        "--threads",
        str(threads),
        "--top",
        "0",
    ]


def run_one(label: str, path: Path, out: Path, threads: int, iters: int, limit: float, gas_env: dict) -> dict:
    """One contender as a fresh process: wall time, its phases, load average before and after."""
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if label == "gaslab":
        env.update(gas_env)
        cmd = gaslab_cmd(path, out, threads)
    else:
        cmd = [sys.executable, "-c", PEERS[label], str(path), str(out), str(threads), str(iters)]
    if out.exists():
        out.unlink()
    load0 = os.getloadavg()[0]
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit * 2, cwd=out.parent)
    except subprocess.TimeoutExpired:
        return {"ok": False, "why": f"killed after {limit * 2:.0f} s", "wall": float("inf")}
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime
    rec = {"wall": wall, "cpu": cpu, "load0": load0, "load1": os.getloadavg()[0], "ok": p.returncode == 0}
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        rec["why"] = f"exit status {p.returncode}: " + " / ".join(tail)
        return rec
    if label == "gaslab":
        for k, pat in _GAS_PATTERNS.items():
            mt = re.search(pat, p.stderr)
            rec[k] = float(mt.group(1)) if mt else float("nan")
        rec["rest"] = wall - rec["load"] - rec["supersteps"] - rec["outside"]
        bound = re.search(r"error bound ([0-9.e+-]+)", p.stderr)
        rec["bound"] = bound.group(1) if bound else "?"
    else:
        rec.update(json.loads(p.stdout.strip().splitlines()[-1]))
        rec["rest"] = wall - sum(rec[k] for k in ("imports", "read", "build", "solve", "write"))
    return rec


def gaslab_stages(path: Path, threads: int, n: int, gas_env: dict) -> dict[str, float]:
    """Once, in a fresh process: ``import gas.cli.app``, and the stages of ``gas.io.load`` as
    bench/load.py times them (parse, id mapping, CSR, CSC), and gaslab's TSV writer on the
    vertices present (empty when those internals moved)."""
    code = f"""
import json, os, tempfile, time, sys
t0 = time.perf_counter()
import gas.cli.app
t1 = time.perf_counter()
out = {{"import gas.cli.app": t1 - t0}}
try:
    from bench.load import _stages
    _stages({str(path)!r}, 1)  # kernels loaded (or compiled: other specialisations) untimed
    out.update(_stages({str(path)!r}, 1))
except Exception as exc:  # the lead may be moving these internals
    out["stages failed"] = repr(exc)[:200]
import numpy as np
from gas.cli.common import write_values
ids, vals = np.arange({n}, dtype=np.int64) * 7, np.random.default_rng(0).random({n}) / {n}
t0 = time.perf_counter()
write_values(os.path.join(tempfile.mkdtemp(), "w.tsv"), ids, vals, "%.17g")
out["write ({n:,} lines)"] = time.perf_counter() - t0
print(json.dumps(out))
"""
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    env["PYTHONPATH"] = os.pathsep.join([*gas_env.values(), str(ROOT)])  # the tree's gas, this bench
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=path.parent)
    if p.returncode != 0:
        return {"stages failed": p.stderr.strip().splitlines()[-1:]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"Python {platform.python_version()}"]
    for name in ("numpy", "numba", "scipy", "pandas", "igraph", "networkit", "python-graphblas", "pyarrow"):
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} not installed")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dir", default=tempfile.gettempdir(), help="folder of the text file (kept)")
    ap.add_argument("--keep-file", default=None, metavar="PATH", help="the text file's path (kept)")
    ap.add_argument("--slow-limit", type=float, default=300.0, help="drop a contender slower than this (s)")
    ap.add_argument("--peers", nargs="*", default=list(PEERS), choices=list(PEERS))
    ap.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md alone")
    ap.add_argument("--section-file", default=None, help="also write the section text here")
    ap.add_argument(
        "--tree",
        default=None,
        help="run gaslab from this source tree (a checkout, or `git archive` of a commit) instead of "
        "the installed package (laid out as the package, first on PYTHONPATH)",
    )
    args = ap.parse_args(argv)

    path, lines = edge_file(args.scale, args.keep_file, args.dir)
    t0 = time.perf_counter()
    ref, present, m_dedup, k = reference(args.scale, path)
    print(
        f"reference: {ref.shape[0]:,} ids, {present.shape[0]:,} present, {m_dedup:,} edges after "
        f"deduplication, {k} power iterations to 1e-6 ({time.perf_counter() - t0:.1f} s)",
        flush=True,
    )
    outdir = Path(tempfile.mkdtemp(prefix="pr_file_"))
    gas_env = {"PYTHONPATH": str(site_of(Path(args.tree), outdir / "site"))} if args.tree else {}
    outs = {c: outdir / f"{c.split()[0]}.tsv" for c in ["gaslab", *args.peers]}
    load_start = os.getloadavg()
    first = run_one("gaslab", path, outs["gaslab"], args.threads, k, args.slow_limit, gas_env)
    print(f"gaslab warm-up (first call): {first['wall']:.2f} s  {first}", flush=True)
    active = ["gaslab", *args.peers]
    runs: dict[str, list[dict]] = {c: [] for c in active}
    notes: list[str] = []
    errors: dict[str, tuple[float, bool]] = {}
    for r in range(args.rounds):
        for c in list(active):
            rec = run_one(c, path, outs[c], args.threads, k, args.slow_limit, gas_env)
            runs[c].append(rec)
            print(f"round {r + 1} {c}: {rec['wall']:.2f} s  {rec}", flush=True)
            if rec["ok"] and c not in errors:
                errors[c] = l1_error(outs[c], ref, present)
                print(f"  L1 error {errors[c][0]:.2e}, same vertex set: {errors[c][1]}", flush=True)
            if not rec["ok"] or rec["wall"] > args.slow_limit:
                why = rec.get("why", f"{rec['wall']:.0f} s > --slow-limit {args.slow_limit:.0f} s")
                notes.append(f"{c} dropped after round {r + 1}: {why}")
                active.remove(c)
                if c == "gaslab":
                    raise SystemExit(f"gaslab failed: {why}")
    load_end = os.getloadavg()
    stages = gaslab_stages(path, args.threads, present.shape[0], gas_env)
    print(f"gaslab stages: {stages}", flush=True)
    body = section(args, path, lines, m_dedup, present.shape[0], k, first, runs, errors, notes, stages)
    body += (
        f"\n\nLoad average (1 min) {load_start[0]:.2f} / {load_start[1]:.2f} / {load_start[2]:.2f} "
        f"at the start, {load_end[0]:.2f} / {load_end[1]:.2f} / {load_end[2]:.2f} at the end."
    )
    print("\n" + body)
    if args.section_file:
        Path(args.section_file).write_text(f"## {TITLE}\n\n{body}\n")
    if not args.no_write:
        write_section(TITLE, body)


def section(args, path, lines, m_dedup, n_present, k, first, runs, errors, notes, stages) -> str:
    g = runs["gaslab"]
    ok_rounds = [i for i, rec in enumerate(g) if rec["ok"]]
    gw = np.array([g[i]["wall"] for i in ok_rounds])
    out = [
        f"`python -m bench.pagerank_file --scale {args.scale} --rounds {args.rounds} --threads "
        f"{args.threads}`, {time.strftime('%Y-%m-%d')} — {cpu_model()}, {os.cpu_count()} cores "
        f"(shared with other jobs), {args.threads} threads for every contender (igraph's PRPACK: "
        f"one). R-MAT-{args.scale} (edge factor 16, seed 0) as text: {lines:,} lines "
        f"({path.stat().st_size / 1e6:.0f} MB, in the page cache), {m_dedup:,} edges after "
        f"collapsing repeats, {n_present:,} vertices present (ids up to 2^{args.scale}, not "
        "renumbered). Each contender is one fresh process from the file to a TSV of "
        "`id<TAB>rank` for every vertex present; one warm-up run of gaslab, then "
        f"{args.rounds} rounds in turns. Ratio: contender / gaslab in the same round, median over "
        "rounds (above 1: gaslab faster). L1 error against a scipy power iteration to an L1 "
        "change < 1e-10. Versions: " + versions() + ".",
        "",
        "| contender | median s | fastest s | this / gaslab (median paired, range) | M lines/s (median) "
        "| CPU s (median) | L1 error | load avg before → after (per round) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c, recs in runs.items():
        good = [(i, rec) for i, rec in enumerate(recs) if rec["ok"]]
        if not good:
            out.append(f"| {c} | failed | | | | | | |")
            continue
        w = np.array([rec["wall"] for _, rec in good])
        ratio = [rec["wall"] / g[i]["wall"] for i, rec in good if i < len(g) and g[i]["ok"]]
        err = errors.get(c, (float("nan"), False))
        loads = ", ".join(f"{rec['load0']:.1f}→{rec['load1']:.1f}" for _, rec in good)
        out.append(
            f"| {c} | {np.median(w):.2f} | {w.min():.2f} | {np.median(ratio):.2f} "
            f"({min(ratio):.2f}–{max(ratio):.2f}) | "
            f"{lines / np.median(w) / 1e6:.1f} | {np.median([rec['cpu'] for _, rec in good]):.1f} | "
            f"{err[0]:.1e}{'' if err[1] else ' (other vertex set)'} "
            f"| {loads} |"
        )
    out += ["", "Phases, median over rounds (s):", ""]
    out += [
        "| contender | start + imports | read | build | solve | write | other |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c, recs in runs.items():
        good = [rec for rec in recs if rec["ok"]]
        if not good:
            continue

        def med(key, good=good):
            return float(np.median([rec[key] for rec in good]))

        if c == "gaslab":
            out.append(
                f"| gaslab | (in other) | load (parse, ids, CSR, CSC) {med('load'):.2f} | (in load) | "
                f"{med('supersteps'):.2f} in {med('iterations'):.0f} supersteps + {med('outside'):.2f} "
                f"set-up | (in other) | {med('rest'):.2f} |"
            )
        else:
            its = f" in {med('iterations'):.0f} iterations" if "iterations" in good[0] else ""
            out.append(
                f"| {c} | {med('imports'):.2f} | {med('read'):.2f} | {med('build'):.2f} | "
                f"{med('solve'):.2f}{its} | {med('write'):.2f} | {med('rest'):.2f} |"
            )
    st = ", ".join(f"{a} {v:.2f} s" if isinstance(v, float) else f"{a}: {v}" for a, v in stages.items())
    out += [
        "",
        f"gaslab: first (warm-up) call {first['wall']:.2f} s"
        f"{' (a tree on a new path: its kernels compile)' if args.tree else ''}; error bound it printed "
        f"{g[ok_rounds[0]].get('bound', '?')}; its *other* is interpreter start, imports, the "
        f"output and the exit. Measured apart, once (a fresh process): {st}. gaslab from "
        f"{args.tree or 'the installed package'}. graphblas runs {k} power iterations (the count that "
        "reaches 1e-6 from the reference; an oracle, favouring it); networkit stops at an L1 "
        "change below 1e-6 * 0.15 / 0.85; igraph's PRPACK to its own tolerance.",
    ]
    if gw.size:
        out.append("")
        out.append(f"gaslab median {np.median(gw):.2f} s.")
    for note in notes:
        out.append(f"Note: {note}.")
    return "\n".join(out)


if __name__ == "__main__":
    main()
