"""The CUDA engine (issue 19) against the CPU engine and cuGraph; the bound of a PageRank superstep.

**With a GPU** (``gas.cuda_device.gpu_present()``): R-MAT graphs of ``--scales`` (edge factor 16,
seed 0, duplicates collapsed, vertices without edges dropped; SSSP weights uniform in [0, 1))
and the largest graph of ../shared/datasets (skipped, with the reason, when absent). PageRank
runs ``--iters`` supersteps at tolerance 0 (time per superstep) and to networkx's tolerance (L1
change < N * 1e-6; cuGraph gets ``tol = N * 1e-6``, its L1 rule); CC, weighted SSSP and hop
counts (from the vertex of largest out-degree) run to their fixed point. Solvers: the CUDA
engine (default tuning), the CPU engine (:class:`gas.SyncEngine`, the same program) and cuGraph
(PageRank, WCC on the symmetrised graph, SSSP, BFS) when it imports. Each is built and warmed
up, then timed in turns, best of ``--rounds``: gaslab's whole ``run`` call (init, supersteps,
the copy back), cuGraph's call on a ready graph. Also: the engine's ``device_bytes``, the free
device memory its build and warm-up took, each answer against the CPU engine's (PageRank: L1).

**Without a GPU** it re-runs itself in numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``; or
``--simulator``) on R-MAT scale 8, edge factor 8, with a small :class:`CudaTuning` so that every
gather bin runs: CUDA against CPU, and each bin's vertices. Its times are not GPU figures.

Both print the conditions and the bound (:func:`pagerank_bytes`). ``--write`` puts the result
into "## The CUDA engine (issue 19)" of bench/RESULTS.md (GPU and simulator runs: a part each).
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import os
import platform
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.cuda")

from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram
from gas.algorithms.sssp import HopsProgram, SSSPProgram
from gas.cuda_layout import index_dtype
from gas.cuda_tuning import CudaTuning
from gas.datasets import rmat
from gas.engine import SyncEngine
from gas.errors import GasError
from gas.graph import Graph
from gas.program import BUILTIN_VERTEX_FIELDS
from gas.program_spec import ProgramSpec

from ._results import RESULTS, write_section
from .boundscheck import _in_turns
from .compare_trees import cpu_model

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
SECTION = "The CUDA engine (issue 19)"
#: the H100 SXM5's memory bandwidth (80 GB HBM3) in NVIDIA's datasheet, bytes/s (2022 announcements: 3 TB/s)
H100_BANDWIDTH = 3.35e12
SECTOR = 32  # bytes a scattered 8-byte read costs at worst (one DRAM sector)
ALGOS = ("pagerank", "cc", "sssp", "hops")
PR_TOL = 1e-6  # PageRankProgram's default: L1 change < N * tol
SIM_NOTE = "The kernels ran in numba-cuda's simulator, thread by thread on the CPU: its times are not GPU \
figures, and none is recorded. The run shows that the CUDA engine gives the CPU engine's answers (same \
tolerance and supersteps), and which gather bins ran."
#: the deduplicated R-MAT-8 (edge factor 8) has in-degrees up to 86: these put vertices in every bin
SIM_TUNING = CudaTuning(block_threads=32, warp_degree=8, block_degree=32, lb_degree=64, lb_chunk=16)


def rmat_counts(scale: int, edge_factor: int = 16, exact: bool = True) -> tuple[int, int, str]:
    """``(vertices, edges, how)`` of the R-MAT graph this benchmark builds: with ``exact``, the
    vertices with at least one edge and the distinct edges of ``rmat(scale, edge_factor, seed=0)``
    (R-MAT-24: about 35 s and 4.4 GB here); else ``2**scale`` and ``edge_factor * 2**scale``."""
    if not exact:
        return 1 << scale, edge_factor << scale, "nominal: 2^S vertices, edge factor x 2^S edges"
    src, dst = rmat(scale, edge_factor, seed=0)
    seen = np.zeros(1 << scale, bool)
    seen[src] = seen[dst] = True
    src <<= scale  # src becomes the key src * 2^scale + dst (in place: saves 2 GB at scale 24)
    src |= dst
    src.sort()
    m = int(src.size and 1 + np.count_nonzero(src[1:] != src[:-1]))
    how = f"counted from rmat({scale}, {edge_factor}, seed=0): vertices with an edge, distinct edges"
    return int(seen.sum()), m, how


def pagerank_bytes(num_vertices: int, num_edges: int) -> dict[str, Any]:
    """Bytes one PageRank superstep of gaslab's CUDA engine moves, best and worst case.

    Per in-edge: the source's index (the width :func:`gas.cuda_layout.index_dtype` uploads)
    and its ``contrib`` (8 B read whole; a 32 B sector when scattered reads share none; the
    edge id handed to ``gather`` is not read: a dead load). Per vertex, from the kernels of
    ``gas/_template_cuda.py`` and what :class:`PageRankProgram`'s methods read and write
    (:class:`ProgramSpec`): gather reads the vertex's degree-order entry and two int64 offsets
    and writes the total; apply reads the total and its fields and writes its fields; the
    aggregate reads its fields. Scalars (context, aggregates) are not counted.

    Examples
    --------
    >>> b = pagerank_bytes(1000, 16000)
    >>> b["edge_best"], b["edge_worst"], b["vertex"]
    (12, 36, 104)
    """
    spec = ProgramSpec.of(PageRankProgram())
    size = {**spec.vertex_fields, **BUILTIN_VERTEX_FIELDS}
    total = spec.gather_type.itemsize

    def fields(access: frozenset) -> int:
        return sum(size[f].itemsize for role, f in access if role == "v")

    terms = {
        "gather: degree-order entry, two offsets, total written": 8 + 16 + total,
        "apply: total read": total,
        "apply: fields read": fields(spec.reads["apply"]),
        "apply: fields written": fields(spec.writes["apply"]),
        "aggregate: fields read": fields(spec.reads["aggregate"]),
    }
    index = np.dtype(index_dtype(SimpleNamespace(num_vertices=num_vertices, num_edges=num_edges))).itemsize
    value = spec.vertex_fields["contrib"].itemsize
    vertex = sum(terms.values())
    out = {"index": index, "value": value, "edge_best": index + value, "edge_worst": index + SECTOR}
    out.update(vertex=vertex, terms=terms, n=num_vertices, m=num_edges)
    for case in ("best", "worst"):
        out[f"bytes_{case}"] = num_edges * out[f"edge_{case}"] + num_vertices * vertex
        out[f"seconds_{case}"] = out[f"bytes_{case}"] / H100_BANDWIDTH
    return out


def bound_section(scale: int, exact: bool) -> list[str]:
    """The section's head: what runs, the bound of a PageRank superstep on R-MAT-``scale``
    (:func:`pagerank_bytes`) and the goal, as markdown lines."""
    n, m, how = rmat_counts(scale, 16, exact)
    b = pagerank_bytes(n, m)
    terms = "; ".join(f"{k} {v} B" for k, v in b["terms"].items())
    gb = {c: b[f"bytes_{c}"] / 1e9 for c in ("best", "worst")}
    ms = {c: b[f"seconds_{c}"] * 1e3 for c in ("best", "worst")}
    return [
        "`python -m bench.cuda`: gaslab's CUDA engine against its CPU engine and cuGraph on R-MAT "
        "graphs and the largest shared graph on a machine with a GPU; without one, a correctness "
        "and bin check in numba-cuda's simulator (see the module docstring).",
        "",
        "**Bound of a PageRank superstep** (`bench.cuda.pagerank_bytes`: the bytes the engine's "
        "kernels must move, from the index width it uploads and the fields `PageRankProgram` "
        f"reads and writes). R-MAT-{scale}, edge factor 16: {n:,} vertices, {m:,} edges ({how}).",
        "",
        f"- per in-edge: source index {b['index']} B + `contrib` {b['value']} B = {b['edge_best']} B "
        f"(best: read whole), or {b['index']} + {SECTOR} = {b['edge_worst']} B (worst: every "
        "scattered read costs a 32 B sector);",
        f"- per vertex: {b['vertex']} B ({terms});",
        f"- per superstep: best {gb['best']:.2f} GB, {ms['best']:.2f} ms; worst {gb['worst']:.2f} GB, "
        f"{ms['worst']:.2f} ms at {H100_BANDWIDTH / 1e12:.2f} TB/s (NVIDIA's published HBM3 "
        "bandwidth of the H100 SXM5).",
        "",
        f"**Goal**: a PageRank superstep of the CUDA engine on R-MAT-{scale} at >= 0.5x the bound's "
        f"throughput, i.e. in at most twice its time (<= {2 * ms['best']:.2f} ms with the best-case "
        f"bytes, <= {2 * ms['worst']:.2f} ms if every gathered value costs a sector), and no slower "
        "than cuGraph's PageRank per iteration on the same GPU. **To be measured when a GPU is "
        "available**: no GPU figure has been recorded here.",
    ]


def with_weights(src: np.ndarray, dst: np.ndarray) -> Graph:
    """The graph of these edges (no duplicates, no isolated vertex), weights U[0, 1) (seed 1)."""
    g = Graph.from_edges(src, dst)
    w = np.random.default_rng(1).random(g.num_edges)
    return Graph.from_edges(g.src, g.dst, num_vertices=g.num_vertices, weights=w)


def largest_shared() -> tuple[str, Path] | str:
    """``(name, path)`` of the graph with the most edges in ../shared/datasets (its README's
    table), or the reason there is none."""
    readme = SHARED / "README.md"
    best: tuple[int, str, Path] | None = None
    for line in readme.read_text().splitlines() if readme.exists() else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or "graph" not in cells[1] or not cells[3].replace(",", "").isdigit():
            continue
        path = SHARED / cells[4].strip("`")
        edges = int(cells[3].replace(",", ""))
        if path.exists() and (best is None or edges > best[0]):
            best = (edges, cells[0], path)
    return (best[1], best[2]) if best else f"no graph listed in {readme} was found"


def make_program(algo: str, g: Graph, tol: float = PR_TOL) -> tuple[Any, Any, int]:
    """``(program, active, max_iter)`` of an algorithm on ``g`` (source: largest out-degree)."""
    source, budget = (int(np.argmax(g.out_degree)) if g.num_vertices else 0), g.num_vertices + 1
    if algo in ("pagerank", "cc"):
        return (PageRankProgram(tol=tol) if algo == "pagerank" else ComponentsProgram()), None, budget
    prog = SSSPProgram(source) if algo == "sssp" else HopsProgram(source)
    return prog, [source], budget


@dataclass
class Setup:
    """How to measure ("gpu" or "simulator"; tuning None: the default; cugraph None: not run)."""

    mode: str
    cuda: Any
    tuning: CudaTuning | None
    iters: int
    rounds: int
    threads: int
    cpu: bool = True
    cugraph: Any = None


@dataclass
class Row:
    """One solver on one graph (of ``m`` edges) and algorithm; times in seconds, best round."""

    graph: str
    algo: str
    solver: str
    m: int
    total: float
    per_step: float | None = None
    supersteps: int | None = None
    edges: int | None = None
    check: str = "—"
    device_bytes: int | None = None
    free_drop: float = float("nan")
    bins: dict[str, int] = field(default_factory=dict)
    bound: float | None = None  # PageRank: the best-case bound's seconds per superstep on this graph


def free_bytes(cuda: Any) -> float:
    """Free device memory once pending frees are done (NaN in the simulator: unknown)."""
    from gas.cuda_device import device_memory, is_simulator

    gc.collect()
    if is_simulator():
        return float("nan")
    cuda.current_context().deallocations.clear()
    return float(device_memory()[0])  # type: ignore[index]


def check(algo: str, got: Any, ref: Any) -> str:
    """How the answer ``got`` (a gaslab run, or cuGraph's array) compares with the run ``ref``
    (PageRank: L1 distance; others: identical or not)."""
    if ref is None:
        return "—"
    got, ref = getattr(got, "output", got), ref.output
    if algo == "pagerank":
        return f"L1 {float(np.abs(got - ref).sum()):.1e}"
    differ = int(np.count_nonzero(got != ref))
    return "identical" if differ == 0 else f"{differ:,} of {ref.size:,} differ"


def timed(g: Graph, algo: str, setup: Setup, keep: dict, tol: float = PR_TOL, iters: int = 0) -> tuple:
    """Every solver of ``algo`` on ``g`` (PageRank to ``tol``, or ``iters`` supersteps) built, warmed
    up and timed in turns; ``keep[label]``: each one's last answer. Returns the times, the CUDA
    engine's ``device_bytes`` and the free device memory its build and warm-up took."""
    from gas.cuda_engine import CudaEngine

    prog, active, budget = make_program(algo, g, tol)
    budget = iters or budget

    def runner(label: str, eng: Any) -> Any:
        return lambda: keep.__setitem__(label, eng.run(budget, active=active))

    before = free_bytes(setup.cuda)
    eng = CudaEngine(g, prog, threads=setup.threads, tuning=setup.tuning)
    fns = {"gaslab CUDA": runner("gaslab CUDA", eng)}
    fns["gaslab CUDA"]()  # warm-up: kernels compiled or loaded
    drop = before - free_bytes(setup.cuda)
    if setup.cpu:
        cpu = SyncEngine(g, make_program(algo, g, tol)[0], threads=setup.threads)
        fns["gaslab CPU"] = runner("gaslab CPU", cpu)
    if setup.cugraph is not None:
        try:
            fns["cuGraph"] = cugraph_solver(setup, g, algo, active[0] if active else 0, keep, iters)
        except Exception as exc:  # a peer that fails must not stop the benchmark
            print(f"  cuGraph {algo} skipped: {type(exc).__name__}: {exc}", flush=True)
    for fn in list(fns.values())[1:]:
        fn()  # warm-up
    return _in_turns(fns, setup.rounds), eng.device_bytes, drop


def converge(name: str, g: Graph, algo: str, setup: Setup) -> list[Row]:
    """One algorithm to its tolerance (PageRank; on a GPU also per superstep) or fixed point."""
    keep: dict[str, Any] = {}
    times, device_bytes, drop = timed(g, algo, setup, keep)
    step: dict[str, float] = {}
    if algo == "pagerank" and setup.mode == "gpu":  # simulator times would mean nothing
        fixed = timed(g, algo, setup, {}, tol=0.0, iters=setup.iters)[0]
        step = {label: min(ts) / setup.iters for label, ts in fixed.items()}
    ref = keep.get("gaslab CPU")
    rows = []
    for label, ts in times.items():
        got = keep[label]
        row = Row(name, algo, label, g.num_edges, min(ts), step.get(label))
        if hasattr(got, "stats"):
            row.supersteps, row.edges = got.iterations, got.edge_updates
        if label != "gaslab CPU":
            row.check = check(algo, got, ref)
        rows.append(row)
    cuda = rows[0]
    cuda.device_bytes, cuda.free_drop = device_bytes, drop
    if algo == "pagerank":
        cuda.bound = pagerank_bytes(g.num_vertices, g.num_edges)["seconds_best"]
    cuda.bins = dict(sum((Counter(s.get("bins", {})) for s in keep["gaslab CUDA"].stats), Counter()))
    if ref is not None and ref.iterations != cuda.supersteps:
        cuda.check += f"; supersteps {cuda.supersteps}, CPU {ref.iterations}"
    return rows


def bench_graph(name: str, g: Graph, setup: Setup, notes: list[str]) -> list[Row]:
    """Every algorithm on ``g``: a row per solver (an algorithm the GPU refuses: a note)."""
    print(f"\n== {name}: {g.num_vertices:,} vertices, {g.num_edges:,} edges", flush=True)
    rows: list[Row] = []
    for algo in ALGOS:
        t0 = time.perf_counter()
        try:
            got = converge(name, g, algo, setup)
        except GasError as exc:  # say, the graph does not fit in the free device memory
            notes.append(f"{name} {algo} skipped: {exc}")
            print(notes[-1], flush=True)
            continue
        took = f"{algo}: {time.perf_counter() - t0:.0f} s in all ({setup.mode})"
        print("\n".join([*table(got, setup.mode)[2:], took]), flush=True)
        rows += got
    return rows


def cugraph_solver(setup: Setup, g: Graph, algo: str, source: int, out: dict, iters: int = 0) -> Any:
    """A callable that runs cuGraph's ``algo`` on a ready graph and puts its answer, indexed by
    vertex id like gaslab's, in ``out["cuGraph"]``. ``iters``: PageRank for exactly that many
    iterations (tolerance 1e-30) instead of to ``N * 1e-6`` (cuGraph's tol bounds the L1 change)."""
    import cudf

    cg, n = setup.cugraph, g.num_vertices
    df = cudf.DataFrame({"src": g.src.astype(np.int32), "dst": g.dst.astype(np.int32)})
    weighted = algo == "sssp"
    if weighted:
        df["w"] = g.edata["weight"]
    G = cg.Graph(directed=algo != "cc")  # WCC needs the undirected (symmetrised) graph
    G.from_cudf_edgelist(
        df, source="src", destination="dst", edge_attr="w" if weighted else None, renumber=False
    )

    def by_vertex(res: Any, col: str) -> np.ndarray:
        a = np.full(n, np.inf)
        a[res["vertex"].to_numpy()] = res[col].to_numpy()
        a[a >= 2**31 - 1] = np.inf  # unreachable: INT32_MAX (BFS), the float's largest (SSSP)
        return a

    its, tol = (iters, 1e-30) if iters else (1000, n * PR_TOL)
    calls = {
        "pagerank": lambda: cg.pagerank(G, alpha=0.85, max_iter=its, tol=tol, fail_on_nonconvergence=False),
        "cc": lambda: cg.weakly_connected_components(G),
        "sssp": lambda: cg.sssp(G, source=source),
        "hops": lambda: cg.bfs(G, start=source, return_predecessors=False),
    }
    column = {"pagerank": "pagerank", "cc": "labels"}.get(algo, "distance")

    def go() -> None:
        res = calls[algo]()
        got = by_vertex(res[0] if isinstance(res, tuple) else res, column)  # pagerank: (df, converged)
        if algo == "cc":  # labels renamed to each component's smallest vertex id, as gaslab's
            _, first, inv = np.unique(got, return_index=True, return_inverse=True)
            got = first[inv]
        out["cuGraph"] = got
        setup.cuda.synchronize()

    return go


def gpu_description(cuda: Any) -> str:
    """The GPU's name, memory and driver (nvidia-smi's; else the name numba reports)."""
    import subprocess

    query = ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"]
    try:
        smi = subprocess.run(query, capture_output=True, text=True, check=True).stdout.splitlines()[0]
        return "{}, {}, driver {}".format(*(x.strip() for x in smi.split(",")))  # name, memory, driver
    except (OSError, subprocess.CalledProcessError, IndexError):
        name = getattr(cuda.get_current_device(), "name", "unnamed GPU")
        return f"{name.decode() if isinstance(name, bytes) else name} (nvidia-smi unavailable)"


def conditions(setup: Setup, loads: tuple[float, ...]) -> dict[str, str]:
    """The run's conditions: machine, load, versions, GPU, settings."""
    import numba

    versions = f"Python {platform.python_version()}, numba {numba.__version__}, numba-cuda "
    versions += importlib.metadata.version("numba-cuda")
    sim = "the numba-cuda simulator (NUMBA_ENABLE_CUDASIM=1): no GPU"
    runs = f"{setup.rounds} round(s) in turns, best; PageRank per superstep: {setup.iters} a run"
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "CPU": f"{cpu_model()}, {os.cpu_count()} cores; CPU engine threads {setup.threads}",
        "load average": " -> ".join(f"{x:.2f}" for x in loads) + (" (before -> after)" if loads[1:] else ""),
        "versions": versions,
        "CUDA": gpu_description(setup.cuda) if setup.mode == "gpu" else sim,
        "cuGraph": f"cugraph {setup.cugraph.__version__}" if setup.cugraph is not None else "not run",
        "tuning": repr(setup.tuning or CudaTuning()),
        "timed runs": runs if setup.mode == "gpu" else "none recorded (simulator)",
    }


def rate(row: Row) -> float | None:
    """Edges/s: PageRank's edges per superstep, or the edges a gaslab run visited (else None)."""
    if row.per_step is not None:
        return row.m / row.per_step
    return row.edges / row.total if row.edges and row.total else None


def _mem(row: Row) -> str:
    def size(b: float) -> str:
        return "n/a" if np.isnan(b) else f"{b / 2**20:,.1f} MB" if b >= 2**20 else f"{b / 2**10:,.1f} kB"

    return "—" if row.device_bytes is None else f"{size(row.device_bytes)} / {size(row.free_drop)}"


def table(rows: list[Row], mode: str) -> list[str]:
    """The results as markdown (simulator: correctness only, no times, rates or ratios)."""
    sim = mode == "simulator"
    head = ["graph", "algorithm", "solver", "supersteps"]
    head += [] if sim else ["ms / superstep", "to tolerance ms", "M edges/s", "time / CUDA engine's"]
    head += ["device memory: estimate / free drop", "check vs CPU engine"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|" + "---:|" * (len(head) - 5) + "---|---|"]
    cuda: Row | None = None
    for r in rows:
        cuda = r if r.solver == "gaslab CUDA" else cuda
        cols = [r.graph, r.algo, r.solver, "—" if r.supersteps is None else str(r.supersteps)]
        if not sim:
            cols += ["—" if t is None else f"{t * 1e3:,.2f}" for t in (r.per_step, r.total)]
            speed = rate(r)
            cols.append("—" if speed is None else f"{speed / 1e6:,.1f}")
            ratio = "—" if cuda is None or r is cuda else f"x{r.total / cuda.total:.2f}"
            if r.bound and r.per_step:  # the goal: at most 2x the bound's time
                ratio = f"superstep / best-case bound x{r.per_step / r.bound:.2f}"
            if r.per_step and cuda is not None and cuda.per_step and r is not cuda:
                ratio += f" (per superstep x{r.per_step / cuda.per_step:.2f})"
            cols.append(ratio)
        lines.append("| " + " | ".join([*cols, _mem(r), r.check]) + " |")
    return lines


def bins_table(rows: list[Row]) -> list[str]:
    """Vertices each gather bin took over a run of the CUDA engine, and the bins no run used."""
    names = ("lb", "block", "warp", "thread", "empty")
    lines = ["| graph | algorithm | " + " | ".join(names) + " |", "|---|---|" + "---:|" * len(names)]
    cuda = [r for r in rows if r.solver == "gaslab CUDA"]
    for r in cuda:
        lines.append(f"| {r.graph} | {r.algo} | " + " | ".join(f"{r.bins.get(b, 0):,}" for b in names) + " |")
    unused = [b for b in names if not any(r.bins.get(b, 0) for r in cuda)]
    lines += ["", "Every bin ran." if not unused else f"Bins no run used: {', '.join(unused)}."]
    return lines


def write_part(title: str, lines: list[str], bound: list[str]) -> None:
    """Write the section: the bound and the goal, then the "### Simulator run" and "### GPU run"
    parts (``title`` replaced, the other kept as it was)."""
    text = RESULTS.read_text() if RESULTS.exists() else ""
    found = re.search(rf"^## {re.escape(SECTION)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    subsections = re.finditer(r"^### (.+?)\n(.*?)(?=^### |\Z)", found[1] if found else "", re.S | re.M)
    parts = {p[1].strip(): p[2].strip() for p in subsections}
    parts[title] = "\n".join(lines).strip()
    body = [*bound, ""]
    for name in ("Simulator run", "GPU run"):
        if name in parts:
            body += [f"### {name}", "", parts[name], ""]
    write_section(SECTION, "\n".join(body))


#: the command line: flag, argparse keywords
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("--scales", dict(type=int, nargs="*", default=[22, 23, 24, 25], help="R-MAT scales on a GPU")),
    ("--iters", dict(type=int, help="PageRank supersteps a timed run (default: 20; simulator: 3)")),
    ("--rounds", dict(type=int, help="timed rounds, solvers in turns (default: 3; simulator: 1)")),
    ("--threads", dict(type=int, help="threads of the CPU engine (default: every core)")),
    ("--no-cpu", dict(action="store_true", help="skip the CPU engine (and the checks against it)")),
    ("--no-cugraph", dict(action="store_true", help="skip cuGraph even when it imports")),
    ("--no-shared", dict(action="store_true", help="skip the largest graph of ../shared/datasets")),
    ("--simulator", dict(action="store_true", help="run the simulator check even with a GPU")),
    ("--sim-scale", dict(type=int, default=8, help="R-MAT scale of the simulator check (edge factor 8)")),
    ("--bound-scale", dict(type=int, default=24, help="R-MAT scale of the bound")),
    ("--nominal-counts", dict(action="store_true", help="bound from 2^S vertices, 16 x 2^S edges")),
    ("--write", dict(action="store_true", help=f"write the result into '## {SECTION}' of RESULTS.md")),
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see ``python -m bench.cuda --help``)."""
    ap = argparse.ArgumentParser(
        prog="python -m bench.cuda",
        description=__doc__,
        formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, width=100),
    )
    for flag, kw in OPTIONS:
        extra = " (default: %(default)s)" if "default" in kw else ""
        ap.add_argument(flag, **{**kw, "help": kw["help"] + extra})
    args = ap.parse_args(argv)
    for name in ("iters", "rounds", "threads"):
        value = getattr(args, name)
        if value is not None and value < 1:
            ap.error(f"--{name} must be >= 1 (got {value})")
    bad = [s for s in [*args.scales, args.sim_scale, args.bound_scale] if not 1 <= s <= 31]
    if bad:
        ap.error(f"R-MAT scales must lie in 1..31 (got {bad[0]})")
    return args


def choose_mode(args: argparse.Namespace, argv: list[str]) -> str:
    """ "gpu", or "simulator": this module runs again with ``argv`` and NUMBA_ENABLE_CUDASIM=1
    when it is not set (it must be set before numba.cuda is first imported)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "simulator"
    if not args.simulator:
        from gas.cuda_device import gpu_present

        if gpu_present():
            return "gpu"
        print("No usable GPU: running the simulator check (NUMBA_ENABLE_CUDASIM=1).", flush=True)
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    os.execve(sys.executable, [sys.executable, "-m", "bench.cuda", *argv], env)


def make_setup(args: argparse.Namespace, mode: str) -> Setup:
    """The settings of a run in ``mode`` (imports cugraph on the GPU path only)."""
    from gas.cuda_device import cuda_module

    gpu = mode == "gpu"
    cugraph = None
    if gpu and not args.no_cugraph:
        try:
            import cugraph  # only on the GPU path: it needs a GPU to import usefully
        except Exception as exc:  # ImportError, or a broken CUDA install underneath it
            print(f"cuGraph not run: import cugraph failed ({type(exc).__name__}: {exc})", flush=True)
    iters, rounds = args.iters or (20 if gpu else 3), args.rounds or (3 if gpu else 1)
    threads = args.threads or os.cpu_count() or 1
    tuning = None if gpu else SIM_TUNING  # None: the engine's default
    return Setup(mode, cuda_module(), tuning, iters, rounds, threads, not args.no_cpu, cugraph)


def graphs(args: argparse.Namespace, mode: str) -> tuple[list[tuple[str, Any]], list[str]]:
    """``(name, build)`` of each graph to run, and the reasons for the ones skipped."""
    from gas.io import load

    if mode == "simulator":
        sim = args.sim_scale
        return [(f"R-MAT-{sim} (edge factor 8)", lambda: with_weights(*rmat(sim, 8)))], []
    todo = [(f"R-MAT-{s}", lambda s=s: with_weights(*rmat(s, 16))) for s in args.scales]
    shared = largest_shared() if not args.no_shared else "--no-shared"
    if isinstance(shared, str):
        return todo, [f"largest shared graph skipped: {shared}"]
    name, path = shared
    return [*todo, (name, lambda: (lambda g: with_weights(g.src, g.dst))(load(path)))], []


def report(setup: Setup, cond: dict[str, str], rows: list[Row], notes: list[str]) -> list[str]:
    """The run's part of the section: conditions, the table, the bins, the notes."""
    lines = [f"- {k}: {v}" for k, v in cond.items()] + [f"- {n}" for n in notes] + [""]
    if setup.mode == "simulator":
        lines += [SIM_NOTE, ""]
    lines += [*table(rows, setup.mode), "", "Vertices each gather bin took over a run:", ""]
    return lines + bins_table(rows)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    mode = choose_mode(args, argv)
    load0 = os.getloadavg()[0]
    try:
        setup = make_setup(args, mode)
    except GasError as exc:  # numba-cuda missing or broken: the message says what to install
        raise SystemExit(f"python -m bench.cuda: {exc}") from None
    for k, v in conditions(setup, (load0,)).items():
        print(f"{k}: {v}", flush=True)
    head = bound_section(args.bound_scale, not args.nominal_counts)
    print("\n" + "\n".join(head), flush=True)
    todo, notes = graphs(args, mode)
    print("\n".join(notes), flush=True)
    rows: list[Row] = []
    for name, build in todo:
        t0 = time.perf_counter()
        g = build()
        print(f"built {name} in {time.perf_counter() - t0:.1f} s", flush=True)
        rows += bench_graph(name, g, setup, notes)
        del g
        gc.collect()
    cond = conditions(setup, (load0, os.getloadavg()[0]))
    lines = report(setup, cond, rows, notes)
    print("\n" + "\n".join(lines), flush=True)
    if args.write:
        write_part("Simulator run" if mode == "simulator" else "GPU run", lines, head)
        print(f"\nwrote '## {SECTION}' in {RESULTS}", flush=True)


if __name__ == "__main__":
    main()
