"""One rewrite per program layout and process: :func:`gas.program.validate` runs on every engine
built, and rewriting a program's methods (read the source, parse, transform, compile) cost about
9 ms of the 10 ms it took to build an engine on a 2-vertex graph; algorithms that run several
short programs per call (SCC's phases, k-core) paid it each time.

The key holds the method objects themselves (a redefined class has new ones) and everything the
rewrite reads: the layout of columns, the names each role may use and whether bounds checks are
compiled in. The rewritten functions and their bounds-check table are read-only once made, so
bound programs may share them.

Examples
--------
>>> calls = []
>>> make = lambda: calls.append(1) or "rewritten"
>>> memoized(("P", 1), make), memoized(("P", 1), make), len(calls)
('rewritten', 'rewritten', 1)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["memoized"]

_LIMIT = 256  # layouts kept per process (the oldest goes first)
_MEMO: dict[Hashable, Any] = {}
_LOCK = threading.Lock()


def memoized(key: Hashable, make: Callable[[], Any]) -> Any:
    """``make()``, made once per ``key`` (an unhashable key: made every time)."""
    try:
        hash(key)
    except TypeError:
        return make()
    with _LOCK:
        if key in _MEMO:
            return _MEMO[key]
    out = make()
    with _LOCK:
        if len(_MEMO) >= _LIMIT:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = out
    return out


def rewrite_key(
    fns: dict[str, Any], cls_name: str, gt: Any, lay: Any, fields: dict, edge_fields: dict, checked: bool
) -> tuple:
    """The key of one rewrite of ``fns`` (see :func:`gas.program.validate`): the methods, the
    gather type, the layout ``lay`` (columns, known names, arrays, ctx and marks positions), the
    declared fields and whether checks are compiled in."""
    return (
        cls_name,
        tuple(sorted((k, f) for k, f in fns.items() if f is not None)),
        gt,
        tuple(lay.vcols),
        tuple(lay.ecols),
        tuple((role, tuple(names)) for role, names in lay.known.items()),
        tuple(lay.arrays.items()),
        lay.ctx_column,
        lay.marks_column,
        tuple(fields.items()),
        tuple(edge_fields.items()),
        checked,
    )


def rewrite_once(rewrite: Callable[..., Any], fns: dict[str, Any], cls_name: str, *layout: Any) -> Any:
    """``rewrite(fns, cls_name, gt, lay, fields, edge_fields, checked)``, made once per
    :func:`rewrite_key` (``layout`` = the last five)."""
    return memoized(rewrite_key(fns, cls_name, *layout), lambda: rewrite(fns, cls_name, *layout))
