"""Consistent snapshots of a distributed run, and reading the last complete one back.

A snapshot is taken after superstep ``s`` completes (every ``K`` supersteps), when every
replica holds the same data: each rank writes ``D/step-<s>/rank-<r>.npz`` with its masters'
vertex rows, their next-active flags and the program-written data of its edges (global edge
ids), each file written to a temporary name and renamed. After a barrier rank 0 writes
``manifest.json`` the same way; a step folder without a manifest is incomplete and ignored, so a
crash at any moment leaves the previous snapshot usable. The two newest complete snapshots are
kept. Resuming reassembles global arrays from all rank files, so the new run may use another
number of processes.

Files are plain ``.npz`` read with ``allow_pickle=False``; the manifest is JSON.

Examples
--------
>>> import tempfile, numpy as np
>>> d = tempfile.mkdtemp()
>>> latest(d) is None
True
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from gas.errors import GasError

__all__ = ["save_rank", "write_manifest", "latest", "load", "restore_state"]


def _step_dir(root: str | os.PathLike, step: int) -> Path:
    return Path(root) / f"step-{step:08d}"


def save_rank(
    root: str | os.PathLike,
    step: int,
    rank: int,
    vids: np.ndarray,
    vcols: dict[str, np.ndarray],
    active: np.ndarray,
    eids: np.ndarray,
    ecols: dict[str, np.ndarray],
) -> None:
    """Write one rank's share of snapshot ``step`` atomically."""
    d = _step_dir(root, step)
    d.mkdir(parents=True, exist_ok=True)
    arrays = {"vid": vids, "active": active.astype(np.uint8), "eid": eids}
    arrays.update({f"v_{k}": v for k, v in vcols.items()})
    arrays.update({f"e_{k}": v for k, v in ecols.items()})
    tmp = d / f".rank-{rank}.{os.getpid()}.npz"
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, d / f"rank-{rank}.npz")


def write_manifest(root: str | os.PathLike, step: int, manifest: dict[str, Any], keep: int = 2) -> None:
    """Mark snapshot ``step`` complete (after every rank wrote its file); drop older ones."""
    d = _step_dir(root, step)
    tmp = d / f".manifest.{os.getpid()}.json"
    tmp.write_text(json.dumps({**manifest, "step": step}, indent=1))
    os.replace(tmp, d / "manifest.json")
    done = sorted(p for p in Path(root).glob("step-*") if (p / "manifest.json").exists())
    for old in done[:-keep]:
        shutil.rmtree(old, ignore_errors=True)


def latest(root: str | os.PathLike) -> Path | None:
    """The newest complete snapshot folder under ``root`` (None if there is none)."""
    root = Path(root)
    if not root.is_dir():
        return None
    done = sorted(p for p in root.glob("step-*") if (p / "manifest.json").exists())
    return done[-1] if done else None


def load(
    root: str | os.PathLike,
) -> tuple[dict[str, Any], dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray]]:
    """The last complete snapshot as global arrays.

    Returns
    -------
    manifest : dict
    vertex : dict of name to ndarray
        Every vertex's data (indexed by internal id).
    active : ndarray of bool
        Vertices active in the next superstep.
    edges : dict of name to ndarray
        Program-written edge data (indexed by global edge id, the graph's CSR order).
    """
    d = latest(root)
    if d is None:
        raise GasError(
            f"{root}: no complete checkpoint found (hint: was the run started with --checkpoint-dir?)"
        )
    manifest = json.loads((d / "manifest.json").read_text())
    n, m = int(manifest["num_vertices"]), int(manifest["num_edges"])
    vertex: dict[str, np.ndarray] = {}
    edges: dict[str, np.ndarray] = {}
    active = np.zeros(n, np.bool_)
    seen = np.zeros(n, np.bool_)
    for r in range(int(manifest["ranks"])):
        path = d / f"rank-{r}.npz"
        if not path.exists():
            raise GasError(f"{path}: missing although the manifest lists {manifest['ranks']} ranks")
        with np.load(path, allow_pickle=False) as z:
            vid = z["vid"]
            if vid.size and (vid.min() < 0 or vid.max() >= n):
                raise GasError(f"{path}: vertex ids outside 0..{n - 1}")
            seen[vid] = True
            active[vid] = z["active"] != 0
            eid = z["eid"]
            for key in z.files:
                if key.startswith("v_"):
                    a = z[key]
                    out = vertex.setdefault(key[2:], np.zeros((n, *a.shape[1:]), a.dtype))
                    out[vid] = a
                elif key.startswith("e_"):
                    a = z[key]
                    out = edges.setdefault(key[2:], np.zeros((m, *a.shape[1:]), a.dtype))
                    out[eid] = a
    if not seen.all():
        raise GasError(f"{d}: {int((~seen).sum())} vertices are missing from the snapshot")
    return manifest, vertex, active, edges


def restore_state(root: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """The last complete snapshot as ``(manifest, restore)``, ``restore`` in the form the runners'
    ``restore=`` takes (``step``, ``done``, ``vertex``, ``active``, ``edges``)."""
    manifest, vertex, active, edges = load(root)
    restore = {"step": manifest["step"], "done": manifest["done"], "vertex": vertex}
    restore.update(active=active, edges=edges)
    return manifest, restore
