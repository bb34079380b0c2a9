"""The README's Python examples run as written (documentation that cannot rot silently)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_readme_python_block_runs(index, monkeypatch):
    monkeypatch.chdir(README.parent)  # paths in the README are relative to the repository root
    code = _blocks()[index]
    namespace: dict = {"__name__": f"readme_block_{index}"}
    path = README.parent / f".readme_block_{index}.py"  # a real file: programs need their source
    path.write_text(code)
    try:
        exec(compile(code, str(path), "exec"), namespace)
    finally:
        os.unlink(path)


def test_ci_runs_the_quickstart_test_command_verbatim():
    # CI runs .ci/run; the README's Quickstart promises its second command is what CI runs.
    block = re.search(r"## Quickstart\n\n```bash\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2 and "pytest" in commands[1]
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert commands[1] in ci
