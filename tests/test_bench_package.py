"""bench/ is a package: its scripts run as ``python -m bench.NAME`` and import each other as
modules of the package, with no ``sys.path`` edits (issue 18)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_"))


def test_bench_is_a_package():
    assert (ROOT / "bench" / "__init__.py").exists()
    assert len(SCRIPTS) >= 10  # guards the checks below against an empty glob


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_no_sys_path_edit(path):
    # Any use of sys.path (insert, append, slice assignment) counts, wherever it is.
    tree = ast.parse(path.read_text())
    uses = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "path" and ast.unparse(node.value) == "sys"
    ]
    assert uses == [], f"{path.name} edits sys.path at lines {uses}"


@pytest.mark.parametrize("name", ["pagerank", "pagerank_extrapolate", "boundscheck", "cuda", "startup"])
def test_runs_as_a_module(name):
    # These import bench.pagerank (and bench._results): under -m that works only as a package.
    cmd = [sys.executable, "-m", f"bench.{name}", "--help"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage:")


def test_startup_reads_the_quickstart_command():
    from bench.startup import quickstart_commands

    cmds = quickstart_commands()
    assert cmds[-1][:2] == ["gas", "pagerank"]
    assert all(c[0] == "gas" for c in cmds)
