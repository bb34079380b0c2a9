"""The networkx backend: ``nx.f(G, backend="gaslab")`` against networkx itself on one graph.

Usage: python -m bench.nx_backend [--vertices 200000] [--edges 1000000] [--threads 2]
                                  [--rounds 2] [--only pagerank triangles ...] [--write]

The graph is ``networkx.gnm_random_graph(--vertices, --edges, seed=1)`` (undirected; its
directed twin, same seed, for ``pagerank`` directed, SCC and WCC). Per function, in turns:
networkx once (its calls take seconds and vary little), then gaslab ``--rounds`` times with the
converted-graph cache cleared before each call ("+ conversion": the time a user's first call
costs) and ``--rounds`` times with it kept ("cached"). Reported: networkx's time, gaslab's best
of the rounds each way, and the speed-ups (the issue's goal: at least 5x with the conversion).
The answers are compared with networkx's (exactly for counts and sets, 1e-6 for PageRank).
Conditions (CPU, threads, load before and after) go with the table; ``--write`` replaces the
"networkx backend" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import networkx as nx

from bench.compare_trees import cpu_model

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.nx_backend")


def _cases(U: nx.Graph, D: nx.DiGraph) -> dict[str, tuple[nx.Graph, Callable[..., Any]]]:
    """name -> (graph, call taking the backend keyword arguments)."""
    return {
        "pagerank, undirected": (U, lambda **kw: nx.pagerank(U, **kw)),
        "pagerank, directed": (D, lambda **kw: nx.pagerank(D, **kw)),
        "strongly_connected_components": (D, lambda **kw: list(nx.strongly_connected_components(D, **kw))),
        "core_number": (U, lambda **kw: nx.core_number(U, **kw)),
        "clustering": (U, lambda **kw: nx.clustering(U, **kw)),
        "triangles": (U, lambda **kw: nx.triangles(U, **kw)),
        "connected_components": (U, lambda **kw: list(nx.connected_components(U, **kw))),
        "weakly_connected_components": (D, lambda **kw: list(nx.weakly_connected_components(D, **kw))),
    }


def _same(a: Any, b: Any) -> bool:
    """Whether two answers agree (dicts of numbers to 1e-6, lists of sets as sets)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-6 for k in a)
    return sorted(map(sorted, a)) == sorted(map(sorted, b))


def _timed(f: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vertices", type=int, default=200_000)
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="function names (prefixes) to run")
    ap.add_argument("--write", action="store_true", help="replace the section of bench/RESULTS.md")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")  # networkx's notes about its converted-graph cache
    nx.config.warnings_to_ignore.add("cache")
    load0 = os.getloadavg()
    U = nx.gnm_random_graph(args.vertices, args.edges, seed=1)
    D = nx.gnm_random_graph(args.vertices, args.edges, seed=1, directed=True)
    kw = {"backend": "gaslab", "threads": args.threads}
    rows = []
    for name, (G, call) in _cases(U, D).items():
        if args.only and not any(name.startswith(o) for o in args.only):
            continue
        call(**kw)  # compile or load the kernels once, outside the timings
        t_nx, want = _timed(call)
        cold, warm, agree = [], [], True
        run = lambda f=call: f(**kw)  # noqa: E731
        for _ in range(args.rounds):
            G.__networkx_cache__.clear()
            t, got = _timed(run)
            cold.append(t)
            agree &= _same(want, got)
            warm.append(_timed(run)[0])
        c, w = min(cold), min(warm)
        rows.append((name, t_nx, c, t_nx / c, w, t_nx / w, agree))
        print(f"{name:32s} networkx {t_nx:7.2f} s  gaslab + conversion {c:6.3f} s ({t_nx / c:5.1f}x)  "
              f"cached {w:6.3f} s ({t_nx / w:6.1f}x)  same answer: {agree}", flush=True)  # fmt: skip
    load1 = os.getloadavg()
    head = (
        f"`python -m bench.nx_backend --rounds {args.rounds}` "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {cpu_model()}, {os.cpu_count()} CPUs; "
        f"load average {load0[0]:.2f} at the start, "
        f"{load1[0]:.2f} at the end; networkx {nx.__version__}, one thread; "
        f"gaslab {args.threads} Numba threads). "
        f'`nx.f(G, backend="gaslab")` on `gnm_random_graph({args.vertices:_}, {args.edges:_}, seed=1)` '
        "(its directed twin for directed PageRank, SCC and WCC); networkx timed once, gaslab best of "
        "the rounds with the converted-graph cache cleared (+ conversion) and kept (cached)."
    )
    table = [
        "| function | networkx s | gaslab + conversion s | speed-up | gaslab cached s | speed-up "
        "| same answer |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, t_nx, c, sc, w, sw, agree in rows:
        same = "yes" if agree else "NO"
        table.append(f"| {name} | {t_nx:.2f} | {c:.3f} | {sc:.1f}x | {w:.3f} | {sw:.0f}x | {same} |")
    print("\n" + head + "\n\n" + "\n".join(table))
    if args.write:
        from bench._results import write_section

        write_section("networkx backend (bench/nx_backend.py)", head + "\n\n" + "\n".join(table))
    if not all(r[-1] for r in rows):
        raise SystemExit("some answers differ from networkx's")


if __name__ == "__main__":
    main()
