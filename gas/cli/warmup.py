"""``gas warmup``: compile the bundled algorithms' kernels into the caches once, ahead of use.

The first run of a command compiles its kernels with Numba (seconds each) and caches them; later
runs load them. ``gas warmup`` runs each bundled graph command once on the bundled ego-Facebook
graph (output discarded), in child processes (:mod:`gas.cli.warmup_child`), so the caches then
hold what those commands compile: the program's kernels, and the edge-list parser's and graph
build's kernels (which a file this small skips for numpy's paths; the children take the
kernels). It is idempotent: a second run finds everything cached and says so (it still loads the
kernels, about a second per child). Progress goes to stderr, the summary to stdout. ``--only``
picks targets; ``--list`` shows them and compiles nothing; ``--jobs N`` spreads the targets over
N processes once the first target (which compiles the loader everyone shares) is done. The
matrix factorization and LDA commands are not warmed (they read ratings or corpora, not graphs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from gas.cli.args import positive_int
from gas.errors import InputError

__all__ = ["TARGETS", "register", "target_commands"]

#: target -> the ``gas`` commands it runs (``FILE``: the bundled graph), in ``--list`` order;
#: ``pagerank`` first (the Quickstart's command) and with ``--undirected`` as there
TARGETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "pagerank": (
        ("pagerank", "FILE", "--undirected", "--top", "0", "-q"),
        ("pagerank", "FILE", "--top", "0", "-q"),
    ),
    "cc": (("cc", "FILE", "-q"),),
    "sssp": (("sssp", "FILE", "--source", "0", "-q"),),
    "info": (("info", "FILE"),),
    "degree": (("degree", "FILE", "-q"),),
    "triangles": (("triangles", "FILE", "-q"),),
    "clustering": (("clustering", "FILE", "-q"),),
    "scc": (("scc", "FILE", "-q"),),
    "kcore": (("kcore", "FILE", "-q"),),
    "label-propagation": (("label-propagation", "FILE", "-q"),),
    "hits": (("hits", "FILE", "-q"),),
    "katz": (("katz", "FILE", "-q"),),
    "eigenvector": (("eigenvector", "FILE", "--undirected", "-q"),),  # directed: no convergence
    "diameter": (("diameter", "FILE", "-q"),),
    "coloring": (("coloring", "FILE", "-q"),),
}


#: target -> the target whose program it runs too (run in the same child, after it)
_SHARES = {"clustering": "triangles"}


def target_commands(name: str, path: str) -> list[list[str]]:
    """The argument lists of ``gas`` that target ``name`` runs on the graph file ``path``.

    Examples
    --------
    >>> target_commands("cc", "g.txt")
    [['cc', 'g.txt', '-q']]
    """
    return [[path if a == "FILE" else a for a in cmd] for cmd in TARGETS[name]]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``gas warmup`` to the subcommands."""
    p = sub.add_parser(
        "warmup",
        help="compile the bundled algorithms' kernels into the caches ahead of use",
        description=__doc__.splitlines()[0].split(": ", 1)[1],
    )
    p.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help=f"targets to warm (default: all of {', '.join(TARGETS)})",
    )
    p.add_argument("--list", action="store_true", help="list the targets and their commands; compile nothing")
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=min(2, os.cpu_count() or 1),
        help="processes compiling at once (default: %(default)s)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="only the final summary")
    p.set_defaults(func=_run)


def _targets(args: argparse.Namespace) -> list[str]:
    names = list(dict.fromkeys(args.only or TARGETS))
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        raise InputError(
            f"Expected a warmup target (got {unknown[0]!r})",
            hint=f"--only takes some of: {', '.join(TARGETS)} (see gas warmup --list)",
        )
    return names


def _bundled() -> str:
    from gas.datasets import bundled

    return str(bundled())


def _run(args: argparse.Namespace) -> int:
    names = _targets(args)
    path = _bundled()
    if args.list:
        for name in names:
            cmds = "; ".join("gas " + " ".join(c) for c in target_commands(name, path))
            print(f"{name}\t{cmds}")
        return 0
    t0 = time.perf_counter()
    if not args.quiet:
        print(
            f"warmup: {len(names)} target(s) on {os.path.basename(path)}, up to {args.jobs} processes "
            "(progress per target; a cold target takes seconds to a minute)",
            file=sys.stderr,
            flush=True,
        )
    results = _warm(names, args.jobs, args.quiet)
    failed = [r for r in results if r["status"] != 0]
    compiled = [r for r in results if r["compiled"]]
    total = time.perf_counter() - t0
    functions = sum(r["compiled"] for r in results)
    seconds = sum(r["compile_seconds"] for r in results)
    print(
        f"warmup: {len(results) - len(failed)} of {len(names)} targets ready in {total:.1f} s; "
        f"compiled {functions} functions ({seconds:.1f} s of compiling) for "
        f"{', '.join(r['target'] for r in compiled) or 'none: all were cached'}"
    )
    for r in failed:
        print(f"gas: error: warmup target {r['target']} failed: {r['error']}", file=sys.stderr)
    return 1 if failed else 0


def _warm(names: list[str], jobs: int, quiet: bool) -> list[dict[str, Any]]:
    """Run the targets in child processes: the first alone (it compiles the shared loader), then
    the others over ``jobs`` processes. One result dict per target, in ``names`` order."""
    results: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()

    def report(r: dict[str, Any]) -> None:
        with lock:
            results[r["target"]] = r
            if quiet:
                return
            if r["status"] != 0:
                what = "failed"
            elif r["compiled"]:
                what = f"compiled {r['compiled']} functions in {r['compile_seconds']:.1f} s"
            else:
                what = "cached"
            print(
                f"warmup [{len(results)}/{len(names)}] {r['target']}: {what} ({r['seconds']:.1f} s)",
                file=sys.stderr,
                flush=True,
            )

    _child(names[:1], report)
    groups: dict[str, list[str]] = {}  # targets sharing a program run in one child, in turn
    for name in names[1:]:
        groups.setdefault(_SHARES.get(name, name), []).append(name)
    batches: list[list[str]] = [[] for _ in range(min(jobs, len(groups)))]
    for i, group in enumerate(groups.values()):
        batches[i % len(batches)] += group
    threads = [threading.Thread(target=_child, args=(b, report)) for b in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [results[n] for n in names]


def _child(names: list[str], report: Any) -> None:
    """One child process warming ``names`` in turn; each target's result goes to ``report``."""
    if not names:
        return
    cmd = [sys.executable, "-m", "gas.cli.warmup_child", _bundled(), *names]
    seen = set()
    with tempfile.TemporaryFile("w+") as errors:  # a file, not a pipe: a chatty child never blocks
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            r = json.loads(line)
            seen.add(r["target"])
            report(r)
        proc.wait()
        errors.seek(0)
        err = errors.read()
    for name in names:
        if name not in seen:  # the child died before reporting it
            tail = err.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
            report(
                {
                    "target": name,
                    "status": 1,
                    "seconds": 0.0,
                    "compiled": 0,
                    "compile_seconds": 0.0,
                    "error": tail[0],
                }
            )
