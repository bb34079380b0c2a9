"""Loading a text edge list into a graph: gaslab's ``load`` against pandas' ``read_csv`` + ``factorize``.

Usage: python -m bench.load [--scale 20] [--string-scale 18] [--repeat 3] [--results]

R-MAT (edge factor 16, seed 0, ``gas.datasets.rmat``) written to temporary text files with the
vertex ids laid out four ways:

- ``dense``: the generator's ids (a permutation of ``0..2**scale-1``; not every id is used);
- ``sparse``: ``id * 7 + 3`` (ids not ``0..n-1``: the case of issue 21);
- ``sparse64``: ``id * 0x9E3779B97F4A7C15 mod 2**63``, ids spread over 63 bits;
- ``strings``: ``"v<id>"`` labels (at ``--string-scale``, smaller: pandas holds one Python string
  per field), read by ``gas.io.load(path, labels=True)`` and, as a second row, by pandas and
  built with ``Graph.from_pandas``.

gaslab: ``gas.io.load(path)`` (parse, id mapping, CSR and CSC build, duplicates collapsed), or
for strings ``load(path, labels=True)`` and ``read_csv`` + ``Graph.from_pandas``. pandas:
``read_csv(sep='\\t', header=None, engine='c')`` + ``pd.factorize`` of both columns together
(codes only: no graph). Each gets an
untimed warm-up, then ``--repeat`` alternating timed runs; the table gives the median and the
per-edge throughput. For ``sparse`` and ``sparse64`` the stages of gaslab's load are timed too
(median; ``--before`` adds one run of the sort-based stages they replaced). The
machine is shared: the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from gas._build import build_csc, build_csr, build_csr_by_two_sorts, compact_ids, compact_ids_by_sort
from gas.datasets import rmat
from gas.graph import Graph
from gas.io import read_edgelist
from gas.io.load import load

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.load")

from ._results import write_section
from .compare_trees import cpu_model
from .parse import _format_edges

LAYOUTS = {
    "dense": lambda x: x,
    "sparse": lambda x: x * 7 + 3,
    "sparse64": lambda x: (x.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(1)).astype(
        np.int64
    ),
}


def _median_pair(ours, theirs, repeat: int) -> tuple[float, float]:
    """Median wall time of each; runs alternate so both see the same machine load."""
    ours()
    theirs()
    t_ours, t_theirs = [], []
    for _ in range(repeat):
        for fn, times in ((ours, t_ours), (theirs, t_theirs)):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return float(np.median(t_ours)), float(np.median(t_theirs))


def _pandas_ints(path: str):
    import pandas as pd

    df = pd.read_csv(path, sep="\t", header=None, names=["s", "d"], dtype=np.int64, engine="c")
    return pd.factorize(np.concatenate([df["s"].to_numpy(), df["d"].to_numpy()]))


def _read_strings(path: str):
    import pandas as pd

    return pd.read_csv(path, sep="\t", header=None, names=["s", "d"], dtype=str, engine="c")


def _pandas_strings(path: str):
    import pandas as pd

    df = _read_strings(path)
    return pd.factorize(pd.concat([df["s"], df["d"]], ignore_index=True))


def _stages(path: str, repeat: int, before: bool = False) -> dict[str, float]:
    """Median seconds of each stage of ``load(path)`` (``before``: with the sort-based id
    mapping and the two-counting-sort CSR build that the linear ones replaced)."""
    times: dict[str, list[float]] = {"parse": [], "id mapping": [], "CSR": [], "CSC": []}
    ids_fn = compact_ids_by_sort if before else compact_ids
    for _ in range(repeat):
        t0 = time.perf_counter()
        s, d, _ = read_edgelist(path)
        t1 = time.perf_counter()
        ids, si, di = ids_fn(s, d)
        t2 = time.perf_counter()
        if before:
            _, ss, dd, _ = build_csr_by_two_sorts(si, di, ids.shape[0], True)
        else:
            _, ss, dd, _ = build_csr(si, di, ids.shape[0], True, with_take=False)
        t3 = time.perf_counter()
        build_csc(ss, dd, ids.shape[0])
        t4 = time.perf_counter()
        for k, t in zip(times, np.diff([t0, t1, t2, t3, t4]), strict=True):
            times[k].append(float(t))
    return {k: float(np.median(v)) for k, v in times.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20, help="R-MAT scale of the integer files")
    ap.add_argument("--string-scale", type=int, default=18, help="R-MAT scale of the string file")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each (median)")
    ap.add_argument("--results", action="store_true", help="write the table into bench/RESULTS.md")
    ap.add_argument("--before", action="store_true", help="also time the replaced stages once (slow)")
    args = ap.parse_args(argv)
    import pandas as pd

    load0 = os.getloadavg()
    src, dst = rmat(args.scale, 16, seed=0)
    rows, stages = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, f in LAYOUTS.items():
            path = os.path.join(tmp, f"{name}.tsv")
            Path(path).write_bytes(_format_edges(f(src), f(dst), np.empty(0, np.int64)))
            g = load(path)
            codes, uniq = _pandas_ints(path)
            assert g.num_vertices == uniq.shape[0]  # same vertex set found by both
            assert np.array_equal(g.ids, np.sort(uniq))
            del codes, uniq, g
            t_ours, t_pd = _median_pair(lambda p=path: load(p), lambda p=path: _pandas_ints(p), args.repeat)
            rows.append((name, args.scale, src.shape[0], os.path.getsize(path), t_ours, t_pd))
            print(f"{name}: gaslab {t_ours:.2f} s, pandas {t_pd:.2f} s", flush=True)
            if name in ("sparse", "sparse64"):
                stages[name] = _stages(path, args.repeat)
                if args.before and name == "sparse":
                    stages["sparse, before"] = _stages(path, 1, before=True)
                for k, st in stages.items():
                    print(f"  {k}: " + ", ".join(f"{a} {v:.2f} s" for a, v in st.items()), flush=True)
            os.remove(path)
        s2, d2 = rmat(args.string_scale, 16, seed=0)
        path = os.path.join(tmp, "strings.tsv")
        with open(path, "w") as fh:
            fh.writelines(f"v{a}\tv{b}\n" for a, b in zip(s2.tolist(), d2.tolist(), strict=True))

        def via_pandas(p=path):
            return Graph.from_pandas(_read_strings(p), "s", "d")

        g = load(path, labels=True)
        assert g.ids.tolist() == via_pandas().ids.tolist()  # the same labels, in the same order
        del g
        size = os.path.getsize(path)
        for name, ours in (
            ("strings", lambda p=path: load(p, labels=True)),
            ("strings via pandas", via_pandas),
        ):
            t_ours, t_pd = _median_pair(ours, lambda p=path: _pandas_strings(p), args.repeat)
            rows.append((name, args.string_scale, s2.shape[0], size, t_ours, t_pd))
            print(f"{name}: gaslab {t_ours:.2f} s, pandas {t_pd:.2f} s", flush=True)
    body = _table(rows, stages, args, load0, os.getloadavg(), pd.__version__)
    print(body)
    if args.results:
        write_section("Loading edge lists", body)


def _table(rows, stages, args, load0, load1, pandas_version: str) -> str:
    lines = [
        f"R-MAT edge factor 16, seed 0, written as text; median of {args.repeat} alternating runs "
        f"after a warm-up; {numba.get_num_threads()} Numba threads; load average {load0[0]:.1f} "
        f"at the start and {load1[0]:.1f} at the end (a shared machine: other jobs ran). "
        f"`python -m bench.load`, {time.strftime('%Y-%m-%d %H:%M')}, {cpu_model()}, "
        f"{os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"pandas {pandas_version}.",
        "",
        "| ids | scale | edges | MB | gaslab s | gaslab M edges/s | pandas s | pandas M edges/s "
        "| gaslab / pandas |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, scale, m, size, t1, t2 in rows:
        lines.append(
            f"| {name} | {scale} | {m:,} | {size / 1e6:.0f} | {t1:.2f} | {m / t1 / 1e6:.1f} | "
            f"{t2:.2f} | {m / t2 / 1e6:.1f} | {t2 / t1:.2f}x |"
        )
    lines += [
        "",
        "gaslab: `gas.io.load(path)` builds the whole graph (CSR and CSC, duplicates collapsed); "
        "strings: `gas.io.load(path, labels=True)`; strings via pandas: `read_csv(dtype=str)` + "
        "`Graph.from_pandas`. pandas: `read_csv(engine='c')` + `pd.factorize` of both columns "
        "(codes and labels only, no graph).",
    ]
    for name, st in stages.items():
        text = ", ".join(f"{k} {v:.2f} s" for k, v in st.items())
        lines += ["", f"Stages of gaslab's load, `{name}` file: {text}."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
