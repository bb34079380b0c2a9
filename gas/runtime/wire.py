"""Programs and graph parts on the wire, between rank 0 and the workers of a process job.

A program travels as its class's import path and its instance attributes as JSON (numbers,
strings, field-type dicts; :func:`program_to_json`, :func:`program_from_json`), so its class must
be importable by the workers. A worker's part (edges, edge data, masters) and the global arrays
of a snapshot to restore travel as ``DATA`` messages from rank 0 (:func:`send_part`,
:func:`recv_part`, :func:`send_restore`, :func:`recv_restore`).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from gas.errors import GasError
from gas.program import VertexProgram
from gas.runtime.bsp import WorkerPart
from gas.runtime.protocol import DATA
from gas.runtime.transport import Transport


# ---------------------------------------------------------------------- programs as JSON
def _enc(x: Any) -> Any:
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return x.item()
    if isinstance(x, dict):
        return {"__dict__": [[str(k), _enc(v)] for k, v in x.items()]}
    if isinstance(x, (tuple, list)):
        return {"__tuple__" if isinstance(x, tuple) else "__list__": [_enc(v) for v in x]}
    try:
        return {"__dtype__": np.dtype(x).str}
    except TypeError:
        raise GasError(
            f"Expected program attributes that are numbers, strings or field types (got {type(x).__name__}); "
            "hint: keep other state out of the program instance"
        ) from None


def _dec(x: Any) -> Any:
    if isinstance(x, dict):
        if "__dtype__" in x:
            return np.dtype(x["__dtype__"]).type
        if "__tuple__" in x:
            return tuple(_dec(v) for v in x["__tuple__"])
        if "__list__" in x:
            return [_dec(v) for v in x["__list__"]]
        if "__dict__" in x:
            return {k: _dec(v) for k, v in x["__dict__"]}
        raise GasError(f"unknown encoded value {sorted(x)}")
    return x


def _enc_attr(program: VertexProgram, name: str, value: Any) -> Any:
    """One instance attribute encoded; a numpy array is refused by name (arrays do not travel
    with the program: its JSON carries numbers, strings and field types only)."""
    if isinstance(value, np.ndarray):
        raise GasError(
            f"{type(program).__name__}.{name} is a numpy array (shape {value.shape}), which the process "
            "runtime does not ship to its workers (a program travels as JSON: numbers, strings, "
            f"field types). Hint: run it on one process (procs=1), or pass per-vertex values as a "
            f"vertex field (e.g. vertex_data = {{'{name}': np.float64}} filled before the run)"
        )
    try:
        return _enc(value)
    except GasError as exc:
        raise GasError(f"{type(program).__name__}.{name}: {exc}") from None


def program_to_json(program: VertexProgram) -> dict[str, Any]:
    """Class import path and instance attributes of a program (see the module docstring).

    Raises :class:`gas.GasError` naming the attribute that cannot travel (a numpy array, or
    another object that is not a number, string or field type).

    Examples
    --------
    >>> import numpy as np
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> program_to_json(PageRankProgram(alpha=0.5))["state"]["alpha"]
    0.5
    >>> prog = PageRankProgram()
    >>> prog.bias = np.ones(3)
    >>> program_to_json(prog)
    Traceback (most recent call last):
    ...
    gas.errors.GasError: PageRankProgram.bias is a numpy array (shape (3,)), which the process runtime ...
    """
    cls = type(program)
    return {
        "module": cls.__module__,
        "qualname": cls.__qualname__,
        "state": {k: _enc_attr(program, k, v) for k, v in vars(program).items()},
    }


def program_from_json(spec: dict[str, Any]) -> VertexProgram:
    """Rebuild a program from :func:`program_to_json` (only VertexProgram subclasses)."""
    mod = importlib.import_module(str(spec["module"]))
    obj: Any = mod
    for part in str(spec["qualname"]).split("."):
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, VertexProgram)):
        raise GasError(f"{spec['module']}.{spec['qualname']} is not a VertexProgram")
    prog = obj.__new__(obj)
    for k, v in spec["state"].items():
        setattr(prog, k, _dec(v))
    return prog


# ---------------------------------------------------------------------- parts on the wire
def send_part(t: Transport, dst: int, part: WorkerPart) -> None:
    names = sorted(part.edata)
    meta = {
        "rank": part.rank,
        "num_parts": part.num_parts,
        "num_vertices": part.num_vertices,
        "num_edges": part.num_edges,
        "edata": names,
    }
    arrays = [part.src, part.dst, part.eid, part.master, *[part.edata[k] for k in names]]
    t.send(dst, DATA, 0, arrays, meta)


def recv_part(t: Transport) -> WorkerPart:
    msg = t.recv(0, DATA, 0)
    m = msg.meta or {}
    a = msg.arrays
    names = list(m.get("edata", []))
    if len(a) != 4 + len(names):
        raise GasError(f"rank {t.rank}: a part arrived with {len(a)} arrays (expected {4 + len(names)})")
    n = int(m["num_vertices"])
    src, dst = a[0].astype(np.int64), a[1].astype(np.int64)
    if a[3].shape != (n,) or (src.size and (max(src.max(), dst.max()) >= n or min(src.min(), dst.min()) < 0)):
        raise GasError(f"rank {t.rank}: a part arrived with vertex ids outside 0..{n - 1}")
    return WorkerPart(
        rank=int(m["rank"]),
        num_parts=int(m["num_parts"]),
        num_vertices=n,
        num_edges=int(m["num_edges"]),
        src=src,
        dst=dst,
        eid=a[2].astype(np.int64),
        master=a[3].astype(np.int32),
        edata=dict(zip(names, a[4:])),
    )


def send_restore(t: Transport, dst: int, restore: dict[str, Any]) -> dict[str, Any]:
    """Send the global arrays of a snapshot (a restore dict, :meth:`gas.options.Restore.as_dict`);
    returns the job note describing them."""
    vn, en = sorted(restore["vertex"]), sorted(restore["edges"])
    arrays = [restore["active"].astype(np.uint8), *[restore["vertex"][k] for k in vn]]
    arrays += [restore["edges"][k] for k in en]
    t.send(dst, DATA, 0, arrays)
    return {"step": int(restore["step"]), "done": bool(restore.get("done")), "vertex": vn, "edges": en}


def recv_restore(t: Transport, note: dict[str, Any]) -> dict[str, Any]:
    a = t.recv(0, DATA, 0).arrays
    vn, en = list(note["vertex"]), list(note["edges"])
    if len(a) != 1 + len(vn) + len(en):
        raise GasError(f"rank {t.rank}: a snapshot arrived with {len(a)} arrays")
    return {
        "step": int(note["step"]),
        "done": bool(note["done"]),
        "init": bool(note.get("init")),
        "active": a[0] != 0,
        "vertex": dict(zip(vn, a[1 : 1 + len(vn)])),
        "edges": dict(zip(en, a[1 + len(vn) :])),
    }
