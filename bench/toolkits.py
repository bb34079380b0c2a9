"""Toolkit algorithms: gaslab against networkit, igraph, scipy and networkx, side by side, one run.

Usage: python -m bench.toolkits [--graphs rmat slashdot epinions] [--scale 20]
                                [--algos triangles kcore lpa lpa-async scc] [--threads 2]
                                [--rounds 5] [--slow-limit 60] [--no-write]

Graphs: R-MAT (``gas.datasets.rmat``, edge factor 16, a=0.57 b=0.19 c=0.19, seed 0) and
soc-Slashdot0811 / soc-Epinions1 from ../shared/datasets (skipped, with the reason, when absent).
Triangles (local clustering), k-core and label propagation run on the undirected simple view
(``Graph.simple_undirected()``), which every solver gets as its input; SCC runs on the directed
graph (repeated edges collapsed), since on an undirected view it would be connected components.

Per algorithm and graph:

* gaslab's library function (``clustering``, ``core_number``, ``label_propagation_communities``,
  ``label_propagation_async`` with ``consistency="vertex"`` for ``lpa-async``,
  ``strongly_connected_components``) on a ``gas.Graph``, ``--threads`` Numba threads; its first
  call (kernels compiled or loaded from the cache) is reported apart from the warm rounds;
* networkit with ``setNumberOfThreads(--threads)``: ``LocalClusteringCoefficient(turbo=True)``,
  ``CoreDecomposition``, ``PLP``, ``StronglyConnectedComponents``; its graph is built from the
  same edge arrays (``GraphFromCoo``), the build timed apart;
* igraph: ``transitivity_local_undirected(mode="zero")``, ``coreness()``,
  ``community_label_propagation()``, ``connected_components(mode="strong")``;
* scipy: ``csgraph.connected_components(connection="strong")`` (SCC only);
* networkx (the SNAP graphs only): ``clustering``, ``core_number``,
  ``label_propagation_communities``, ``asyn_lpa_communities(seed=0)`` (``lpa-async``),
  ``strongly_connected_components``.

A peer whose warm-up call takes longer than ``--slow-limit`` seconds is not repeated: that call
is its one round, compared with gaslab's median.

Every solver is warmed up once, then all run in turns (gaslab, peer, gaslab, peer, ...) for
``--rounds`` rounds: solvers timed seconds apart see about the same load on a shared machine.
Reported: the median round, edges/s (undirected edges counted once), and gaslab's speed-up
over each peer as the median of the per-round ratios peer / gaslab (paired by round). Label
propagation differs by peer: networkx runs gaslab's rule (semi-synchronous, same answer);
networkit's PLP and igraph's are other rules (parallel or asynchronous, randomised), so only the
time compares. ``lpa-async`` is gaslab's asynchronous variant under ``vertex`` consistency:
neighbours update at the same time on different threads without locks, PLP's own model (PLP
stops when a sweep changes fewer vertices than its threshold; gaslab's variant when no vertex is
scheduled any more, a stricter test).
The answers are checked against networkit's (clustering to 1e-9, cores and SCC counts exactly).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import gas
from gas.algorithms.kcore import core_number
from gas.algorithms.label_propagation import label_propagation_communities
from gas.algorithms.label_propagation_variants import label_propagation_async
from gas.algorithms.scc import strongly_connected_components
from gas.algorithms.triangles import clustering

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.toolkits")

from ._results import write_section
from .compare_trees import cpu_model

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
SNAP = {"slashdot": "soc-Slashdot0811", "epinions": "soc-Epinions1"}
ALGOS = ("triangles", "kcore", "lpa", "lpa-async", "scc")


def _lpa_async(g: gas.Graph, threads: int) -> np.ndarray:
    return label_propagation_async(g, threads=threads, consistency="vertex")


GASLAB = {
    "triangles": clustering,
    "kcore": core_number,
    "lpa": label_propagation_communities,
    "lpa-async": _lpa_async,
    "scc": strongly_connected_components,
}


def _load() -> str:
    return "{:.2f} / {:.2f} / {:.2f}".format(*os.getloadavg())


# ------------------------------------------------------------------ inputs


def load_graphs(names: list[str], scale: int) -> list[tuple[str, gas.Graph | None, str]]:
    """(name, directed graph or None, reason when skipped) for each name asked for."""
    out = []
    for name in names:
        if name == "rmat":
            from gas.datasets import rmat

            g = gas.Graph.from_edges(*rmat(scale, 16, seed=0), num_vertices=1 << scale)
            out.append((f"R-MAT-{scale}", g, ""))
        elif name in SNAP:
            path = SHARED / SNAP[name] / f"{SNAP[name]}.txt.gz"
            if path.exists():
                out.append((SNAP[name], gas.io.load(path), ""))
            else:
                out.append((SNAP[name], None, f"{path} not found (a clone without ../shared)"))
        else:
            raise SystemExit(f"unknown graph {name!r}: choose from rmat, {', '.join(SNAP)}")
    return out


class Inputs:
    """One graph as every solver takes it: the gas graphs, and the peers' graphs built from the
    same edge arrays (each build timed once, reported apart)."""

    def __init__(self, name: str, g: gas.Graph, threads: int, with_nx: bool):
        self.name, self.directed = name, g
        self.undirected = g.simple_undirected()
        u = self.undirected
        half = u.src < u.dst
        self.usrc, self.udst = u.src[half], u.dst[half]  # each undirected edge once
        self.m_undirected = int(self.usrc.shape[0])
        self.threads, self.with_nx = threads, with_nx
        self.builds: dict[str, float] = {}
        self._cache: dict[str, Any] = {}

    def peer(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            t0 = time.perf_counter()
            self._cache[key] = make()
            self.builds[key] = time.perf_counter() - t0
        return self._cache[key]

    def nk(self, directed: bool) -> Any:
        import networkit as nk

        def make():
            s, d = (self.directed.src, self.directed.dst) if directed else (self.usrc, self.udst)
            return nk.GraphFromCoo(
                (s.astype(np.uint64), d.astype(np.uint64)),
                n=self.directed.num_vertices,
                directed=directed,
                weighted=False,
            )

        return self.peer("networkit directed" if directed else "networkit undirected", make)

    def ig(self, directed: bool) -> Any:
        import igraph as ig

        def make():
            s, d = (self.directed.src, self.directed.dst) if directed else (self.usrc, self.udst)
            return ig.Graph(n=self.directed.num_vertices, edges=np.column_stack([s, d]), directed=directed)

        return self.peer("igraph directed" if directed else "igraph undirected", make)

    def scipy(self) -> Any:
        import scipy.sparse as sp

        g, n = self.directed, self.directed.num_vertices
        return self.peer(
            "scipy CSR", lambda: sp.csr_array((np.ones(g.num_edges), (g.src, g.dst)), shape=(n, n))
        )

    def nx(self, directed: bool) -> Any:
        import networkx as nx

        def make():
            G = nx.DiGraph() if directed else nx.Graph()
            G.add_nodes_from(range(self.directed.num_vertices))
            s, d = (self.directed.src, self.directed.dst) if directed else (self.usrc, self.udst)
            G.add_edges_from(zip(s.tolist(), d.tolist()))
            return G

        return self.peer("networkx directed" if directed else "networkx undirected", make)


# ------------------------------------------------------------------ solvers


def _nk_run(algo_cls: Callable[..., Any], G: Any, **kw: Any) -> Callable[[], Any]:
    def go():
        a = algo_cls(G, **kw)
        a.run()
        return a

    return go


def peers(algo: str, inp: Inputs) -> dict[str, Callable[[], Any]]:
    """The peers' calls for one algorithm (graphs built before, outside the timed calls)."""
    import networkit as nk

    nk.setNumberOfThreads(inp.threads)
    out: dict[str, Callable[[], Any]] = {}
    if algo == "scc":
        G, I = inp.nk(True), inp.ig(True)
        out["networkit"] = _nk_run(nk.components.StronglyConnectedComponents, G)
        out["igraph"] = lambda: I.connected_components(mode="strong")
        from scipy.sparse import csgraph

        A = inp.scipy()
        out["scipy"] = lambda: csgraph.connected_components(A, directed=True, connection="strong")
    else:
        G, I = inp.nk(False), inp.ig(False)
        if algo == "triangles":
            out["networkit"] = _nk_run(nk.centrality.LocalClusteringCoefficient, G, turbo=True)
            out["igraph"] = lambda: I.transitivity_local_undirected(mode="zero")
        elif algo == "kcore":
            out["networkit"] = _nk_run(nk.centrality.CoreDecomposition, G)
            out["igraph"] = lambda: I.coreness()
        else:
            out["networkit PLP (other rule)"] = _nk_run(nk.community.PLP, G)
            out["igraph (other rule)"] = lambda: I.community_label_propagation()
    if inp.with_nx:
        import networkx as nx
        from networkx.algorithms.community import asyn_lpa_communities
        from networkx.algorithms.community import label_propagation_communities as nx_lpa

        X = inp.nx(algo == "scc")
        out["networkx"] = {
            "triangles": lambda: nx.clustering(X),
            "kcore": lambda: nx.core_number(X),
            "lpa": lambda: list(nx_lpa(X)),
            "lpa-async": lambda: list(asyn_lpa_communities(X, seed=0)),
            "scc": lambda: list(nx.strongly_connected_components(X)),
        }[algo]
    return out


def check(algo: str, ours: np.ndarray, nk_result: Any, inp: Inputs) -> str:
    """Whether gaslab's answer matches networkit's (gaslab indexes by internal id, which is the
    vertex number every peer was given)."""
    if algo == "triangles":
        ok = np.allclose(ours, np.asarray(nk_result.scores()), rtol=0, atol=1e-9)
    elif algo == "kcore":
        ok = np.array_equal(ours, np.asarray(nk_result.scores(), np.int64))
    elif algo == "scc":
        ok = np.unique(ours).shape[0] == nk_result.numberOfComponents()
    else:
        return "other rule"
    return "yes" if ok else "NO"


# ------------------------------------------------------------------ timing


def bench_algo(algo: str, inp: Inputs, rounds: int, slow_limit: float) -> list[dict[str, Any]]:
    """One algorithm on one graph: gaslab's first call, then every solver in turns."""
    g = inp.directed if algo == "scc" else inp.undirected
    m = g.num_edges if algo == "scc" else inp.m_undirected
    fn = GASLAB[algo]
    t0 = time.perf_counter()
    ours = fn(g, threads=inp.threads)
    first = time.perf_counter() - t0
    solvers = {"gaslab": lambda: fn(g, threads=inp.threads)}
    once = first > slow_limit  # every solver called once: gaslab's first call is its round
    if once:
        print(f"  {algo}: gaslab's first call took {first:.1f} s > {slow_limit} s: one call each", flush=True)
    others = peers(algo, inp)
    results = {}
    for label, f in others.items():  # warm-up, and the time limit
        t0 = time.perf_counter()
        results[label] = f()
        took = time.perf_counter() - t0
        if once or took > slow_limit:
            print(f"  {algo}: {label} took {took:.1f} s: not repeated", flush=True)
            others[label] = None
            results[label] = (results[label], took)
        else:
            solvers[label] = f
    times: dict[str, list[float]] = {k: [] for k in solvers}
    if once:
        times["gaslab"].append(first)
    else:
        solvers["gaslab"]()  # warm
        for _ in range(rounds):
            for label, f in solvers.items():
                t0 = time.perf_counter()
                f()
                times[label].append(time.perf_counter() - t0)
    base = np.array(times["gaslab"])
    nk_key = next(k for k in results if k.startswith("networkit"))
    nk_result = results[nk_key] if others[nk_key] is not None else results[nk_key][0]
    agrees = check(algo, ours, nk_result, inp)
    rows = [_row(algo, inp.name, "gaslab", base, base, m, first=first, agrees=agrees, single=once)]
    for label in others:
        if others[label] is None:  # one slow round, paired with gaslab's median
            t = np.array([results[label][1]])
            rows.append(_row(algo, inp.name, label, t, np.array([np.median(base)]), m, single=True))
        else:
            rows.append(_row(algo, inp.name, label, np.array(times[label]), base, m))
    return rows


def _row(algo, graph, solver, t, base, m, first=None, agrees="", single=False) -> dict[str, Any]:
    med = float(np.median(t))
    row = dict(
        algo=algo,
        graph=graph,
        solver=solver,
        median=med,
        best=float(t.min()),
        eps=m / med,
        ratio=float(np.median(t / base)),
        first=first,
        agrees=agrees,
        single=single,
    )
    print(
        f"  {algo:9s} {solver:28s} median {med * 1e3:9.1f} ms  best {t.min() * 1e3:9.1f} ms  "
        f"{m / med / 1e6:8.2f} M edges/s  gaslab speed-up x{row['ratio']:.2f}"
        + (f"  (first call {first:.2f} s, agrees with networkit: {agrees})" if first is not None else "")
        + ("  (one round)" if single else ""),
        flush=True,
    )
    return row


# ------------------------------------------------------------------ report


def table(rows: list[dict[str, Any]], builds: list[tuple[str, str, float]], head: str) -> str:
    lines = [
        head,
        "",
        "| algorithm | graph | solver | median ms | fastest ms | M edges/s (median) "
        "| gaslab speed-up (median paired) | notes |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if r["solver"] == "gaslab":
            note = f"first call {r['first']:.2f} s; agrees with networkit: {r['agrees']}"
            if r["single"]:
                note += "; slow: one call each, gaslab's the first (compile included)"
            ratio = "—"
        else:
            note = "one call (slower than --slow-limit)" if r["single"] else ""
            ratio = f"{r['ratio']:.2f}"
        lines.append(
            f"| {r['algo']} | {r['graph']} | {r['solver']} | {r['median'] * 1e3:.1f} "
            f"| {r['best'] * 1e3:.1f} | {r['eps'] / 1e6:.1f} | {ratio} | {note} |"
        )
    lines += ["", "Peer graph builds from the edge arrays (not in the times above):", ""]
    lines += [f"- {g}: {k} {s:.2f} s" for g, k, s in builds]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", nargs="*", default=["rmat", "slashdot", "epinions"])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--algos", nargs="*", default=list(ALGOS), choices=ALGOS)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--slow-limit", type=float, default=60.0, help="seconds; a peer's slower call is not repeated"
    )
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    load0, t_start = _load(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows, builds, skipped = [], [], []
    for name, g, reason in load_graphs(args.graphs, args.scale):
        if g is None:
            print(f"{name} skipped: {reason}", flush=True)
            skipped.append(f"{name} skipped: {reason}")
            continue
        inp = Inputs(name, g, args.threads, with_nx=name in SNAP.values())
        print(
            f"\n== {name}: {g.num_vertices:,} vertices, {g.num_edges:,} directed edges, "
            f"{inp.m_undirected:,} undirected (load {_load()})",
            flush=True,
        )
        for algo in args.algos:
            rows += bench_algo(algo, inp, args.rounds, args.slow_limit)
        builds += [(name, k, s) for k, s in inp.builds.items()]
        del inp, g
    head = (
        f"`python -m bench.toolkits --rounds {args.rounds} --scale {args.scale} "
        f"--slow-limit {args.slow_limit:g}` ({t_start}; "
        f"{cpu_model()}, {os.cpu_count()} cores, shared with other jobs; load average 1/5/15 min "
        f"{load0} at the start, {_load()} at the end). gaslab {args.threads} Numba threads, "
        f"networkit {args.threads} threads, igraph, scipy and networkx one. Solvers in turns, "
        f"{args.rounds} rounds after a warm-up; speed-up = peer time / gaslab time, the median "
        "of the per-round ratios (under 1: the peer is faster). Triangles = local clustering "
        "coefficients (networkit turbo); kcore, lpa and triangles on the undirected simple view, "
        "scc on the directed graph; edges/s counts undirected edges once. networkit's PLP and "
        "igraph's label propagation are other rules (time only); networkx runs gaslab's rule "
        "(lpa-async: gaslab under vertex consistency, networkx's asyn_lpa_communities)."
        + ("".join(f" {s}." for s in skipped))
    )
    text = table(rows, builds, head)
    print("\n" + text)
    if not args.no_write:
        write_section("Toolkit algorithms", text)


if __name__ == "__main__":
    main()
