"""Consistent snapshots of a distributed run, and reading the last good one back.

A snapshot is taken after superstep ``s`` completes (every ``K`` supersteps), when every
replica holds the same data: each rank writes ``D/step-<s>/rank-<r>.npz`` with its masters'
vertex rows, their next-active flags and the program-written data of its edges (global edge
ids), each file written to a temporary name, fsynced and renamed, and beside it
``rank-<r>.npz.sha256``, the SHA-256 of its bytes. After a barrier rank 0 writes
``manifest.json`` the same way (fsynced, then the folder), listing every rank file with its size
and checksum; a step folder without a manifest is incomplete and ignored, so a crash at any
moment leaves the previous snapshot usable. The two newest complete snapshots are kept;
incomplete folders older than the newest one, and folders newer than it (from the run a resumed
run replaces), are removed. A rank rewriting a step folder first removes its manifest.

Reading verifies the manifest (JSON, the keys and types below) and every rank file (size,
checksum, arrays and their shapes). A snapshot that fails is reported on stderr, naming the bad
file, and the previous complete snapshot is used instead; when none is good, a :class:`GasError`
names the problem of each. Resuming reassembles global arrays from all rank files, so the new
run may use another number of processes.

Files are plain ``.npz`` read with ``allow_pickle=False``; the manifest is JSON::

    {"ranks": int >= 1, "num_vertices": int >= 0, "num_edges": int >= 0, "step": int >= 0,
     "done": bool, "aggregates": {name: number}, "meta": {...},
     "files": {"rank-0.npz": {"bytes": int, "sha256": hex}, ...},
     "sha256": hex of the canonical JSON of the rest}

Examples
--------
>>> import tempfile, numpy as np
>>> d = tempfile.mkdtemp()
>>> latest(d) is None
True
>>> ids = np.arange(3)
>>> save_rank(d, 4, 0, ids, {"x": ids * 0.5}, np.ones(3, bool), ids[:0], {})
>>> write_manifest(d, 4, {"ranks": 1, "num_vertices": 3, "num_edges": 0, "done": False})
>>> manifest, vertex, active, edges = load(d)
>>> manifest["step"], vertex["x"].tolist(), bool(active.all())
(4, [0.0, 0.5, 1.0], True)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from gas.errors import GasError
from gas.io.atomic import fsync_folder

__all__ = ["save_rank", "write_manifest", "latest", "snapshots", "load_snapshot", "load", "restore_state"]

_CHUNK = 1 << 20


class _Bad(GasError):
    """A snapshot that cannot be used (the message names the file and the problem)."""


def _step_dir(root: str | os.PathLike, step: int) -> Path:
    return Path(root) / f"step-{step:08d}"


def _sha256(path: Path) -> tuple[int, str]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


def _write_durably(path: Path, data: bytes | None = None, arrays: dict | None = None) -> None:
    """Write ``data`` (or an ``.npz`` of ``arrays``) to a temporary file, fsync it, rename it to
    ``path`` and fsync the folder; the temporary file is removed on any failure."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            if arrays is not None:
                np.savez(f, **arrays)
            else:
                f.write(data or b"")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_folder(path.parent)


def _cannot_write(root: str | os.PathLike, exc: OSError) -> GasError:
    return GasError(
        f"{root}: cannot write the checkpoint ({exc.strerror or exc}); pass a writable folder "
        "as --checkpoint-dir"
    )


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
    """Write one rank's share of snapshot ``step`` atomically, with its checksum beside it."""
    d = _step_dir(root, step)
    arrays = {"vid": vids, "active": active.astype(np.uint8), "eid": eids}
    arrays.update({f"v_{k}": v for k, v in vcols.items()})
    arrays.update({f"e_{k}": v for k, v in ecols.items()})
    path = d / f"rank-{rank}.npz"
    try:
        d.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):  # a resumed run rewriting an older step
            (d / "manifest.json").unlink()
        _write_durably(path, arrays=arrays)
        size, digest = _sha256(path)
        _write_durably(d / f"rank-{rank}.npz.sha256", f"{digest} {size}\n".encode())
    except OSError as exc:
        raise _cannot_write(root, exc) from None


def _rank_checksums(d: Path, ranks: int) -> dict[str, dict[str, Any]]:
    files = {}
    for r in range(ranks):
        name = f"rank-{r}.npz"
        try:
            digest, size = (d / f"{name}.sha256").read_text().split()
            files[name] = {"bytes": int(size), "sha256": digest}
        except (OSError, ValueError):  # no side file: hash the rank file itself
            if not (d / name).is_file():
                raise GasError(
                    f"{d / name}: rank {r}'s snapshot file is not visible to rank 0; --checkpoint-dir "
                    "must name a folder every rank shares (on one machine, or a shared file system)"
                ) from None
            size, digest = _sha256(d / name)
            files[name] = {"bytes": size, "sha256": digest}
    return files


def write_manifest(root: str | os.PathLike, step: int, manifest: dict[str, Any], keep: int = 2) -> None:
    """Mark snapshot ``step`` complete (after every rank wrote its file); drop older ones.

    The manifest gets the step and every rank file's size and SHA-256, and is fsynced with its
    folder. The ``keep`` newest complete snapshots up to this one stay; older ones, incomplete
    folders older than this one and any folder newer than it (left by the run a resumed run
    replaces) are removed.

    Raises
    ------
    GasError
        When the manifest cannot be written or a rank's file is not visible to this process.
    """
    d = _step_dir(root, step)
    try:
        files = _rank_checksums(d, int(manifest["ranks"]))
        body = {**manifest, "step": step, "files": files}
        text = json.dumps({**body, "sha256": _digest(body)}, indent=1)
        _write_durably(d / "manifest.json", text.encode())
        fsync_folder(root)  # the step folder's own entry
    except OSError as exc:
        raise _cannot_write(root, exc) from None
    done = [p for p in snapshots(root) if p <= d]
    stale = set(done[:-keep] if keep > 0 else done)
    for other in _step_folders(root):
        if other > d or (other < d and other not in done):
            stale.add(other)  # a newer folder is from an abandoned run; an older one never completed
    stale.discard(d)
    for other in stale:
        shutil.rmtree(other, ignore_errors=True)


def _step_folders(root: str | os.PathLike) -> list[Path]:
    return sorted(p for p in Path(root).glob("step-*") if p.is_dir())


def snapshots(root: str | os.PathLike) -> list[Path]:
    """The complete snapshot folders under ``root`` (those with a manifest), oldest first."""
    if not Path(root).is_dir():
        return []
    return [p for p in _step_folders(root) if (p / "manifest.json").is_file()]


def latest(root: str | os.PathLike) -> Path | None:
    """The newest complete snapshot folder under ``root`` (None if there is none)."""
    done = snapshots(root)
    return done[-1] if done else None


def _is_int(x: Any, low: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


# types of the run's options that `gas ... --checkpoint-dir` records in meta["args"]
_ARG_TYPES: dict[str, tuple[type, ...]] = {
    "alpha": (int, float),
    "tol": (int, float),
    "max_iter": (int,),
    "skip_rows": (int,),
    "seed": (int,),
    "hops": (bool,),
    "keep_duplicates": (bool,),
    "undirected": (bool,),
    "partition": (str,),
    "engine": (str, type(None)),
    "scheduler": (str, type(None)),
    "consistency": (str, type(None)),
}


def _digest(body: dict[str, Any]) -> str:
    """SHA-256 of a manifest's canonical JSON (without its own ``sha256`` key)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _has_type(x: Any, kinds: tuple[type, ...]) -> bool:
    if isinstance(x, bool):
        return bool in kinds
    return isinstance(x, kinds)


def _check_fields(path: Path, manifest: dict[str, Any]) -> None:
    for key, low in {"ranks": 1, "num_vertices": 0, "num_edges": 0, "step": 0}.items():
        if not _is_int(manifest.get(key), low):
            raise _Bad(f"{path}: expected {key!r} to be an integer >= {low} (got {manifest.get(key)!r})")
    for key, kind in {"done": bool, "aggregates": dict, "meta": dict, "files": dict}.items():
        if key in manifest and not isinstance(manifest[key], kind):
            raise _Bad(f"{path}: expected {key!r} to be a {kind.__name__} (got {manifest[key]!r})")
    meta = manifest.get("meta", {})
    for key, kind in {"args": dict, "command": str, "file": str}.items():
        if key in meta and not isinstance(meta[key], kind):
            raise _Bad(f"{path}: expected meta {key!r} to be a {kind.__name__} (got {meta[key]!r})")
    for key, value in meta.get("args", {}).items():
        if key in _ARG_TYPES and not _has_type(value, _ARG_TYPES[key]):
            raise _Bad(f"{path}: unexpected value for the run's option {key!r}: {value!r}")


def _read_manifest(d: Path) -> dict[str, Any]:
    """A snapshot's manifest, its own checksum and its fields' types checked."""
    path = d / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise _Bad(f"{path}: not a readable JSON manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise _Bad(f"{path}: expected a JSON object (got {type(manifest).__name__})")
    own = manifest.pop("sha256", None)  # absent in snapshots written before checksums
    if own is not None and own != _digest(manifest):
        raise _Bad(f"{path}: checksum mismatch (the manifest is corrupt or was edited)")
    _check_fields(path, manifest)
    manifest.setdefault("done", False)
    manifest.setdefault("meta", {})
    return manifest


def _verify(path: Path, entry: Any) -> None:
    """Check a rank file's size and SHA-256 against its manifest entry (if the manifest has one)."""
    if entry is None:  # a snapshot written before checksums were recorded
        return
    if not (isinstance(entry, dict) and _is_int(entry.get("bytes")) and isinstance(entry.get("sha256"), str)):
        raise _Bad(f"{path.parent / 'manifest.json'}: bad entry for {path.name}: {entry!r}")
    size, digest = _sha256(path)
    if size != entry["bytes"]:
        raise _Bad(f"{path}: {size} bytes, the manifest says {entry['bytes']} (truncated or replaced)")
    if digest != entry["sha256"]:
        raise _Bad(f"{path}: checksum mismatch (the file is corrupt)")


def _read_rank(path: Path, n: int, m: int) -> dict[str, np.ndarray]:
    """The arrays of one rank file, with their ids and lengths checked."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (
        OSError,
        ValueError,
        EOFError,
        KeyError,
        TypeError,
        AttributeError,
        zipfile.BadZipFile,
        zlib.error,
    ) as exc:
        raise _Bad(f"{path}: not a readable snapshot file ({type(exc).__name__}: {exc})") from None
    for key in ("vid", "active", "eid"):
        if key not in arrays or arrays[key].ndim != 1:
            raise _Bad(f"{path}: no one-dimensional {key!r} array")
    vid, eid = arrays["vid"], arrays["eid"]
    if vid.dtype.kind not in "iu" or eid.dtype.kind not in "iu":
        raise _Bad(f"{path}: vertex and edge ids must be integers")
    if vid.size and (vid.min() < 0 or vid.max() >= n):
        raise _Bad(f"{path}: vertex ids outside 0..{n - 1}")
    if eid.size and (eid.min() < 0 or eid.max() >= m):
        raise _Bad(f"{path}: edge ids outside 0..{m - 1}")
    for key, a in arrays.items():
        rows = eid.size if key.startswith("e_") else vid.size
        if key not in ("vid", "eid") and (a.ndim == 0 or a.shape[0] != rows or a.dtype.hasobject):
            raise _Bad(f"{path}: array {key!r} has shape {a.shape}, expected {rows} rows")
    return arrays


def load_snapshot(
    d: str | os.PathLike,
) -> tuple[dict[str, Any], dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray]]:
    """One complete snapshot folder as global arrays (see :func:`load`), every file verified.

    Raises
    ------
    GasError
        Naming the manifest or rank file that is missing, corrupt or inconsistent.
    """
    d = Path(d)
    manifest = _read_manifest(d)
    n, m, ranks = manifest["num_vertices"], manifest["num_edges"], manifest["ranks"]
    files = manifest.get("files", {})
    vertex: dict[str, np.ndarray] = {}
    edges: dict[str, np.ndarray] = {}
    active = np.zeros(n, np.bool_)
    seen = np.zeros(n, np.bool_)
    for r in range(ranks):
        path = d / f"rank-{r}.npz"
        if not path.is_file():
            raise _Bad(f"{path}: missing although the manifest lists {ranks} ranks")
        if "files" in manifest and path.name not in files:
            raise _Bad(f"{d / 'manifest.json'}: no checksum for {path.name}")
        _verify(path, files.get(path.name))
        z = _read_rank(path, n, m)
        vid, eid = z["vid"], z["eid"]
        seen[vid] = True
        active[vid] = z["active"] != 0
        for key, a in z.items():
            if key[:2] in ("v_", "e_"):
                into, rows, idx = (vertex, n, vid) if key[0] == "v" else (edges, m, eid)
                out = into.setdefault(key[2:], np.zeros((rows, *a.shape[1:]), a.dtype))
                if out.shape[1:] != a.shape[1:]:
                    raise _Bad(f"{path}: array {key!r} has shape {a.shape}, other ranks {out.shape}")
                out[idx] = a
    if not seen.all():
        raise _Bad(f"{d}: {int((~seen).sum())} vertices are missing from the snapshot")
    return manifest, vertex, active, edges


def load(
    root: str | os.PathLike,
) -> tuple[dict[str, Any], dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray]]:
    """The newest good snapshot as global arrays.

    Snapshots are tried newest first; one whose manifest or rank files fail verification is
    reported on stderr (naming the bad file) and the previous complete one is used.

    Returns
    -------
    manifest : dict
    vertex : dict of name to ndarray
        Every vertex's data (indexed by internal id).
    active : ndarray of bool
        Vertices active in the next superstep.
    edges : dict of name to ndarray
        Program-written edge data (indexed by global edge id, the graph's CSR order).

    Raises
    ------
    GasError
        When ``root`` holds no complete snapshot, or none that passes verification.
    """
    done = snapshots(root)
    if not done:
        raise GasError(
            f"{root}: no complete checkpoint found (hint: was the run started with --checkpoint-dir?)"
        )
    problems = []
    for d in reversed(done):
        try:
            got = load_snapshot(d)
        except _Bad as exc:
            problems.append(str(exc))
            continue
        if problems:
            print(
                f"gas: warning: {'; '.join(problems)}; resuming from the previous snapshot {d} instead",
                file=sys.stderr,
            )
        return got
    raise GasError(f"{root}: no usable checkpoint: {'; '.join(problems)}")


def restore_state(root: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """The newest good snapshot as ``(manifest, restore)``, ``restore`` in the form the runners'
    ``restore=`` takes (``step``, ``done``, ``vertex``, ``active``, ``edges``)."""
    manifest, vertex, active, edges = load(root)
    restore = {"step": manifest["step"], "done": manifest["done"], "vertex": vertex}
    restore.update(active=active, edges=edges)
    return manifest, restore
