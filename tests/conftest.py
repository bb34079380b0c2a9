"""Shared test fixtures: where the shared real datasets live, and a skip when they are absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("GAS_SHARED_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets"))


def shared_path(relative: str) -> Path:
    """Path of a file under ../shared/datasets, or skip the test with the reason."""
    p = SHARED / relative
    if not p.exists():
        pytest.skip(f"shared dataset {relative} not found under {SHARED} (a user's clone has no ../shared)")
    return p
