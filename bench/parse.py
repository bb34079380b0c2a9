"""Edge-list parsing: gaslab's Numba reader against pandas' C parser on the same files.

Usage: python -m bench.parse [--scale 20] [--edge-factor 10] [--repeat 5] [--no-write]

Writes two text edge lists to a temporary folder, both from R-MAT (scale 20, edge factor 10,
seed 0, about 10.5 M edges): ``ids.tsv`` with two TAB-separated ids per line and ``weighted.tsv``
with a third column holding a decimal weight with three fractional digits. Each reader gets one
untimed warm-up (JIT compile, page cache), then ``--repeat`` timed runs, alternating between
the two readers so that both see the same machine load; the table reports each one's best run
and the load average at the start. Both readers run on one thread. The arrays are checked equal
before timing.

pandas: ``read_csv(sep="\\t", header=None, dtype=int64 [, float64], engine="c")``. Note that
pandas' default float converter is not always correctly rounded; gaslab's weights equal Python's
``float()`` bit for bit.
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
from numba import njit

from gas.datasets import rmat
from gas.io import read_edgelist

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.parse")

from ._results import write_section

ROOT = Path(__file__).resolve().parents[1]


@njit(cache=True)
def _put_int(out, pos, v):
    """Write the decimal digits of ``v >= 0`` at ``out[pos:]``; return the new position."""
    start = pos
    while True:
        out[pos] = 48 + v % 10
        pos += 1
        v //= 10
        if v == 0:
            break
    out[start:pos] = out[start:pos][::-1].copy()
    return pos


@njit(cache=True)
def _format_edges(src, dst, milli):
    """Text of ``src<TAB>dst[<TAB>w]`` lines; ``w = milli / 1000`` written with 3 decimals."""
    out = np.empty(src.shape[0] * 64, np.uint8)
    pos = 0
    for i in range(src.shape[0]):
        pos = _put_int(out, pos, src[i])
        out[pos] = 9
        pos = _put_int(out, pos + 1, dst[i])
        if milli.shape[0]:
            out[pos] = 9
            pos = _put_int(out, pos + 1, milli[i] // 1000)
            out[pos] = 46
            frac = milli[i] % 1000
            out[pos + 1] = 48 + frac // 100
            out[pos + 2] = 48 + frac // 10 % 10
            out[pos + 3] = 48 + frac % 10
            pos += 4
        out[pos] = 10
        pos += 1
    return out[:pos]


def _best_pair(ours, theirs, repeat: int) -> tuple[float, float]:
    """Best wall time of each reader; runs alternate so both see the same machine load."""
    ours()  # warm-up: compile, page cache
    theirs()
    t_ours, t_theirs = [], []
    for _ in range(repeat):
        for fn, times in ((ours, t_ours), (theirs, t_theirs)):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return min(t_ours), min(t_theirs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20, help="R-MAT scale (default: %(default)s)")
    ap.add_argument("--edge-factor", type=int, default=10, help="edges per vertex (default: 10)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs (default: %(default)s)")
    ap.add_argument("--rmat-scale", type=int, default=22, help="R-MAT generation timing (default: 22)")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = ap.parse_args(argv)
    args.load = os.getloadavg()[0]
    import pandas as pd

    src, dst = rmat(args.scale, args.edge_factor, seed=0)
    milli = np.random.default_rng(0).integers(0, 100_000, src.shape[0])
    m = src.shape[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, weights in (("ids.tsv", None), ("weighted.tsv", milli)):
            path = os.path.join(tmp, name)
            empty = np.empty(0, np.int64)
            Path(path).write_bytes(_format_edges(src, dst, empty if weights is None else weights))
            size = os.path.getsize(path)
            cols = {0: np.int64, 1: np.int64} | ({} if weights is None else {2: np.float64})

            def ours(path=path):
                return read_edgelist(path)

            def theirs(path=path, cols=cols):
                return pd.read_csv(path, sep="\t", header=None, dtype=cols, engine="c")

            s, d, w = ours()
            df = theirs()
            assert np.array_equal(s, src) and np.array_equal(d, dst)
            assert np.array_equal(df[0].to_numpy(), src) and np.array_equal(df[1].to_numpy(), dst)
            if weights is not None:
                assert np.array_equal(w, weights / 1000)  # exact: float() of 'x.yyy' == x.yyy
            del df
            print(f"{name}: {m:,} edges, {size / 1e6:.1f} MB", flush=True)
            t_ours, t_pd = _best_pair(ours, theirs, args.repeat)
            rows.append((name, m, size, t_ours, t_pd))
            print(
                f"  gaslab {t_ours:.3f}s {size / t_ours / 1e6:.0f} MB/s {m / t_ours / 1e6:.1f} M "
                f"edges/s | pandas {t_pd:.3f}s {size / t_pd / 1e6:.0f} MB/s "
                f"{m / t_pd / 1e6:.1f} M edges/s | speed-up {t_pd / t_ours:.2f}x",
                flush=True,
            )
    gen = _time_rmat(args.rmat_scale)
    body = _table(rows, args, pd.__version__, gen)
    print(body)
    if not args.no_write:
        write_section("Edge-list parsing", body)


def _time_rmat(scale: int) -> list[tuple[str, float]]:
    """Wall time of ``rmat(scale)`` (edge factor 16) with all threads and serially."""
    rmat(4)  # compile / load from cache
    rmat(4, parallel=False)
    out = []
    for label, parallel in ((f"{numba.get_num_threads()} threads", True), ("1 thread", False)):
        t = time.perf_counter()
        src, _ = rmat(scale, 16, seed=0, parallel=parallel)
        out.append((label, time.perf_counter() - t))
        print(f"rmat({scale}) {src.shape[0]:,} edges, {label}: {out[-1][1]:.2f}s", flush=True)
        del src, _
    return out


def _table(rows, args, pandas_version: str, gen: list[tuple[str, float]]) -> str:
    lines = [
        f"R-MAT scale {args.scale}, edge factor {args.edge_factor}, seed 0, written as text; best "
        f"of {args.repeat} alternating runs after a warm-up; one thread for both readers; load "
        f"average {args.load:.1f} at the start (other jobs shared the machine). "
        f"`python -m bench.parse`, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"pandas {pandas_version}.",
        "",
        "| file | edges | MB | gaslab s | gaslab MB/s | gaslab M edges/s | pandas s | pandas MB/s "
        "| pandas M edges/s | gaslab / pandas |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, m, size, t1, t2 in rows:
        lines.append(
            f"| `{name}` | {m:,} | {size / 1e6:.1f} | {t1:.3f} | {size / t1 / 1e6:.0f} | "
            f"{m / t1 / 1e6:.1f} | {t2:.3f} | {size / t2 / 1e6:.0f} | {m / t2 / 1e6:.1f} | "
            f"{t2 / t1:.2f}x |"
        )
    lines += [
        "",
        "gaslab: `gas.io.read_edgelist` (memory-maps the file, one Numba pass, weights exactly as "
        "Python's `float()`). pandas: `read_csv(sep='\\t', header=None, dtype=int64/float64, "
        "engine='c')`.",
        "",
        f"R-MAT generation, same run: `gas.datasets.rmat({args.rmat_scale})` "
        f"({16 << args.rmat_scale:,} edges, edge factor 16) took "
        + ", ".join(f"{t:.2f} s with {label}" for label, t in gen)
        + ".",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
