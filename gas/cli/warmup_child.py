"""A ``gas warmup`` child: ``python -m gas.cli.warmup_child FILE TARGET...``.

Runs each target's ``gas`` commands (:data:`gas.cli.warmup.TARGETS`) in this process with their
output discarded, and prints one JSON line per target on stdout: its wall seconds, exit status,
and how many functions Numba compiled for it (its outermost ``numba:compile`` events) and in how
many seconds. Functions loaded from the caches do not count, so a target already warm reports 0.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from typing import Any

from numba.core import event

__all__ = ["main"]


class _CompileCounter(event.Listener):
    """Counts Numba's outermost compilations (a kernel compiling its helpers counts once)."""

    def __init__(self) -> None:
        self.depth = 0
        self.count = 0
        self.seconds = 0.0
        self._t = 0.0

    def on_start(self, ev: Any) -> None:
        if self.depth == 0:
            self._t = time.perf_counter()
        self.depth += 1

    def on_end(self, ev: Any) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.count += 1
            self.seconds += time.perf_counter() - self._t


def main(argv: list[str]) -> int:
    """Warm the targets ``argv[1:]`` on the graph file ``argv[0]``; 0 if all succeeded."""
    from gas.cli.app import main as gas_main
    from gas.cli.warmup import target_commands
    from gas.config import CONFIG

    # the bundled graph is small enough for the loader's numpy paths, which compile nothing:
    # warm the parser's and the builds' kernels, which a user's larger files take, instead
    CONFIG["numpy_small"] = 0
    counter = _CompileCounter()
    event.register("numba:compile", counter)
    path, names = argv[0], argv[1:]
    worst = 0
    for name in names:
        t0, n0, s0 = time.perf_counter(), counter.count, counter.seconds
        status, error = 0, ""
        for cmd in target_commands(name, path):
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                status = gas_main(cmd)
            if status != 0:
                error = (err.getvalue().strip().splitlines() or [f"exit status {status}"])[0]
                break
        worst = max(worst, status)
        result = {
            "target": name,
            "status": status,
            "seconds": time.perf_counter() - t0,
            "compiled": counter.count - n0,
            "compile_seconds": counter.seconds - s0,
            "error": error,
        }
        print(json.dumps(result), flush=True)
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
