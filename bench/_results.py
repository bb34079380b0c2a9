"""Replace one '## Section' of bench/RESULTS.md, keeping the others (shared by the bench scripts)."""

from __future__ import annotations

import re
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def write_section(title: str, body: str) -> None:
    """Write ``## title`` + body into RESULTS.md, replacing an older section of that title."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    block = f"## {title}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(block + "\n", text)
    else:
        text = text.rstrip() + "\n\n" + block
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(text.rstrip() + "\n")
    tmp.replace(RESULTS)
