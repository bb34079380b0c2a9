"""Start-up: the README Quickstart's first command with cold and with warm compile caches.

Usage: python -m bench.startup [--rounds 5] [--breakdown-rounds 1] [--no-write]

The command is read from the README's Quickstart (the first line of its first ``bash`` block,
without the ``pip install -e . &&`` part; several commands joined by ``&&`` run in turn and count
together). Each ``gas ...`` command runs the function pyproject.toml names as the ``gas`` script
(``gas.cli:main``, say), from the repository root, so the checkout's own package runs whatever
``gas`` script is installed.

Per round, in new processes:

* *cold*: fresh, empty ``GAS_CACHE_DIR`` (generated kernel modules) and ``NUMBA_CACHE_DIR``
  (every compiled function, gaslab's own included), so everything compiles;
* *warm*: the same command again with the same folders (everything loads from the caches), and
  the last command once more as ``python -m gas.cli ...`` (:func:`gas.cli.__main__.run`, which
  exits without the interpreter's teardown);
* ``python -c "import gas"`` and ``python -c "import gas.cli.app"`` (the command's imports).

The table gives the median over ``--rounds`` rounds (and the range). A breakdown run (cold and
warm, ``--breakdown-rounds`` of each, medians) runs the command's ``gas.cli.app.main`` inside a
small driver that times: the imports, the graph load, everything from the loaded graph to the end
(engine build, kernel compile or cache load, supersteps, output), and, inside each, the time
Numba spends compiling (its ``numba:compile`` events, outermost ones only). The machine may be
shared: the CPU model, the load average before and after, and the thread count are recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

if not __package__:  # started as a file: the relative imports below need the package
    raise SystemExit("run this benchmark as a module: python -m bench.startup")

from ._results import write_section
from .compare_trees import cpu_model

ROOT = Path(__file__).resolve().parents[1]
TITLE = "Start-up (issue 21)"
CPU: list[float] = []  # CPU seconds of each process run, in order

# Runs one `gas` command in-process and prints a JSON line of phase times on stderr (last line).
_DRIVER = r"""
import json, sys, time
t0 = time.perf_counter()
from numba.core import event
compile_s = {"load": 0.0, "rest": 0.0}
phase = ["load"]
depth = [0]
class _Listener(event.Listener):
    def on_start(self, ev):
        if depth[0] == 0:
            self.t = time.perf_counter()
        depth[0] += 1
    def on_end(self, ev):
        depth[0] -= 1
        if depth[0] == 0:
            compile_s[phase[0]] += time.perf_counter() - self.t
event.register("numba:compile", _Listener())
import gas.cli.app
import gas.cli.common
t1 = time.perf_counter()
marks = {}
_load = gas.cli.common.load_graph
def load_graph(*a, **k):
    marks["load0"] = time.perf_counter()
    try:
        return _load(*a, **k)
    finally:
        marks["load1"] = time.perf_counter()
        phase[0] = "rest"
for mod in list(sys.modules.values()):  # the subcommand modules import it by name
    if getattr(mod, "__name__", "").startswith("gas.cli") and getattr(mod, "load_graph", None) is _load:
        mod.load_graph = load_graph
status = gas.cli.app.main(sys.argv[1:])
t2 = time.perf_counter()
l0, l1 = marks.get("load0", t1), marks.get("load1", t1)
print(json.dumps({"import": t1 - t0, "before_load": l0 - t1, "load": l1 - l0, "rest": t2 - l1,
                  "compile_load": compile_s["load"], "compile_rest": compile_s["rest"],
                  "status": status}), file=sys.stderr)
sys.exit(status)
"""


def quickstart_commands(readme: Path = ROOT / "README.md") -> list[list[str]]:
    """The README Quickstart's first command line, split at ``&&``, without ``pip install``.

    Examples
    --------
    >>> cmds = quickstart_commands()
    >>> cmds[-1][:2]
    ['gas', 'pagerank']
    """
    text = readme.read_text()
    block = re.search(r"## Quickstart\s.*?```bash\n(.*?)\n", text, re.S)
    if block is None:
        raise SystemExit("README.md has no ```bash block under '## Quickstart'")
    cmds = [shlex.split(part) for part in block.group(1).split("&&")]
    cmds = [c for c in cmds if c and c[0] != "pip"]
    if not cmds or any(c[0] != "gas" for c in cmds):
        raise SystemExit(f"expected only gas commands after pip install, got {block.group(1)!r}")
    return cmds


def _env(caches: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GAS_CACHE_DIR"] = str(caches / "gas")
    env["NUMBA_CACHE_DIR"] = str(caches / "numba")
    return env


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of one process, and its stderr (the process must succeed); its CPU seconds
    (user + system, from the finished children's usage) are added to :data:`CPU`."""
    t, c = time.perf_counter(), _cpu()
    out = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    CPU.append(_cpu() - c)
    if out.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return dt, out.stderr


def _entry() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["gas"]


def gas_argv(args: list[str]) -> list[str]:
    """How the checkout's ``gas`` script (``[project.scripts]`` of pyproject.toml, as ``pip
    install -e .`` installs it) runs ``gas ARGS``, as a command line of this interpreter.

    Examples
    --------
    >>> gas_argv(["info", "g.txt"])[-2:]
    ['info', 'g.txt']
    """
    module, func = _entry().split(":")
    return [sys.executable, "-c", f"import sys; from {module} import {func}; sys.exit({func}())", *args]


def _commands_seconds(cmds: list[list[str]], env: dict[str, str]) -> tuple[list[float], float]:
    """Wall seconds of each command, and their CPU seconds together."""
    n = len(CPU)
    wall = [_run(gas_argv(c[1:]), env)[0] for c in cmds]
    return wall, sum(CPU[n:])


def _breakdown(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    _, err = _run([sys.executable, "-c", _DRIVER, *cmd[1:]], env)
    return json.loads(err.strip().splitlines()[-1])


def _median(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f}" + (f" ({min(xs):.2f}–{max(xs):.2f})" if len(xs) > 1 else "")


def _bytecode() -> str:
    """Whether the commands' Python writes and reuses bytecode caches (``__pycache__``)."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return (
            "PYTHONDONTWRITEBYTECODE is set here, so every process compiles the Python modules it "
            "imports (a fresh install writes the caches and reuses them)."
        )
    return "Python's bytecode caches are written and reused, as by default."


def _where() -> str:
    """Where ``gas`` and ``gas.algorithms`` are imported from in the commands' processes."""
    code = "import gas, gas.algorithms as a; print(gas.__file__, a.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    paths = out.stdout.split()
    outside = [p for p in paths if not p.startswith(str(ROOT))]
    return "" if not outside else f" Warning: imported from outside this checkout: {', '.join(outside)}."


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="cold/warm pairs (median)")
    ap.add_argument("--breakdown-rounds", type=int, default=1, help="instrumented cold/warm pairs")
    ap.add_argument("--no-write", action="store_true", help="print only; do not touch RESULTS.md")
    args = ap.parse_args(argv)
    cmds = quickstart_commands()
    load0 = os.getloadavg()
    threads = os.environ.get("NUMBA_NUM_THREADS") or str(os.cpu_count())
    cold: list[float] = []
    warm: list[float] = []
    cold_parts: list[list[float]] = []
    cpu_cold: list[float] = []
    cpu_warm: list[float] = []
    warm_m: list[float] = []  # the last command as `python -m gas.cli` (gas.cli.__main__.run)
    imp: dict[str, list[float]] = {"import gas": [], "import gas.cli.app": []}
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="gas-startup-") as tmp:
            env = _env(Path(tmp))
            parts, cpu = _commands_seconds(cmds, env)
            cold_parts.append(parts)
            cold.append(sum(parts))
            cpu_cold.append(cpu)
            parts, cpu = _commands_seconds(cmds, env)
            warm.append(sum(parts))
            cpu_warm.append(cpu)
            warm_m.append(_run([sys.executable, "-m", "gas.cli", *cmds[-1][1:]], env)[0])
            for name in imp:
                imp[name].append(_run([sys.executable, "-c", name], env)[0])
        print(
            f"round {r + 1}: cold {cold[-1]:.2f} s ({cpu_cold[-1]:.2f} s CPU), warm {warm[-1]:.2f} s "
            f"({cpu_warm[-1]:.2f} s CPU); load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    phases: dict[str, dict[str, list[float]]] = {"cold": {}, "warm": {}}
    for _ in range(args.breakdown_rounds):
        with tempfile.TemporaryDirectory(prefix="gas-startup-") as tmp:
            env = _env(Path(tmp))
            for c in cmds[:-1]:  # e.g. a warm-up command before the measured one
                _run(gas_argv(c[1:]), env)
            for kind in ("cold", "warm"):
                got = _breakdown(cmds[-1], env)
                got["start"] = got["import"] + got["before_load"]
                for k, v in got.items():
                    phases[kind].setdefault(k, []).append(float(v))
    load1 = os.getloadavg()
    cpu = (cpu_cold, cpu_warm)
    imp = {"warm_m": warm_m, **imp}
    body = _table(cmds, cold, warm, cpu, cold_parts, imp, phases, load0, load1, threads, args)
    print(body)
    if not args.no_write:
        write_section(TITLE, body)


def _table(cmds, cold, warm, cpu, cold_parts, imp, phases, load0, load1, threads, args) -> str:
    import numba
    import numpy as np

    shown = " && ".join(shlex.join(c) for c in cmds)
    lines = [
        f"`python -m bench.startup --rounds {args.rounds}`, {time.strftime('%Y-%m-%d %H:%M')}: the "
        f"Quickstart's `{shown}` (pyproject's `gas` script: `{_entry()}`, run from the checkout). "
        f"{cpu_model()}, "
        f"{os.cpu_count()} CPUs, {threads} Numba threads; load average {load0[0]:.2f} "
        f"({load0[1]:.2f} over 5 min) before and {load1[0]:.2f} ({load1[1]:.2f}) after"
        f"{' (a shared machine: other jobs ran)' if max(load0[0], load1[0]) > 0.5 else ''}. Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}.{_where()}"
        f" {_bytecode()}",
        "",
        "| run | wall s, median (min–max) | CPU s (user + system), median |",
        "|---|---:|---:|",
        f"| cold: fresh `GAS_CACHE_DIR` and `NUMBA_CACHE_DIR` | {_median(cold)} | {_median(cpu[0])} |",
    ]
    if len(cmds) > 1:
        for i, c in enumerate(cmds):
            lines.append(f"| cold, `{shlex.join(c[:2])}` alone | {_median([p[i] for p in cold_parts])} | |")
    lines += [
        f"| warm: again, same caches | {_median(warm)} | {_median(cpu[1])} |",
        f"| warm, `python -m gas.cli {shlex.join(cmds[-1][1:2])} ...` (exits without the interpreter's "
        f"teardown) | {_median(imp.pop('warm_m'))} | |",
        *(f'| `python -c "{name}"` | {_median(v)} | |' for name, v in imp.items()),
    ]
    if phases["cold"]:
        lines += [
            "",
            f"Breakdown of `{shlex.join(cmds[-1][:2])}` (in-process timers, median of "
            f"{args.breakdown_rounds}; compile = Numba compiling, inside the phase; the interpreter's "
            "start and exit are outside these phases)"
            + (": its cold run comes after the commands before it." if len(cmds) > 1 else "."),
            "",
            "| phase | cold s | of which compile | warm s | of which compile |",
            "|---|---:|---:|---:|---:|",
        ]
        c, w = phases["cold"], phases["warm"]

        def m(d: dict[str, list[float]], k: str) -> str:
            return f"{statistics.median(d[k]):.2f}"

        lines += [
            f"| imports (numba, gas.cli), arguments | {m(c, 'start')} | – | {m(w, 'start')} | – |",
            f"| graph load (parse, ids, CSR/CSC) | {m(c, 'load')} | {m(c, 'compile_load')} | "
            f"{m(w, 'load')} | {m(w, 'compile_load')} |",
            f"| engine, kernels, supersteps, output | {m(c, 'rest')} | {m(c, 'compile_rest')} | "
            f"{m(w, 'rest')} | {m(w, 'compile_rest')} |",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
