"""The rewrite of a vertex program's neighbour-list syntax (see :mod:`gas._rewrite`).

* ``X.nbrs`` -> ``_EC[k][_VC[s][X] : _VC[s][X] + _VC[d][X]]``: a slice of the column of
  out-neighbour ids, from the vertex's first out-edge, out-degree long (read-only);
* ``v.has_nbr(w)`` -> ``_gas_is_marked(_gas_row, v, w)``, with
  ``_gas_row = _gas_marked_row(_VC[m], v, ...)`` as the method's first statement: the calling
  thread's row of bits, set at ``v``'s neighbours (rewritten only when the thread last marked
  another vertex), so each question costs O(1) (:func:`gas.setops.marked_row`).
  Only the method's own vertex (its first vertex parameter) has ``has_nbr``: one row per thread
  can hold one vertex's marks.

Examples
--------
>>> import ast
>>> node = ast.parse("v.nbrs", mode="eval").body
>>> ast.unparse(neighbour_slice(node, "v", {"_nbr_start": 2, "out_degree": 1}, {"_nbr_dst": 0}))
'_EC[0][_VC[2][v]:_VC[2][v] + _VC[1][v]]'
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gas.setops import is_marked, marked_row

__all__ = ["neighbour_slice", "has_nbr_call", "marks_on_entry", "HELPERS"]

_IS_MARKED, _MARKED_ROW, _ROW = "_gas_is_marked", "_gas_marked_row", "_gas_row"
#: the names the rewritten code calls, for the rewritten method's module
HELPERS = {_IS_MARKED: is_marked, _MARKED_ROW: marked_row}


def _load(table: str, idx: int, at: str | None = None) -> ast.AST:
    """``table[idx]``, or ``table[idx][at]``."""
    col = ast.Subscript(value=ast.Name(id=table, ctx=ast.Load()), slice=ast.Constant(idx), ctx=ast.Load())
    if at is None:
        return col
    return ast.Subscript(value=col, slice=ast.Name(id=at, ctx=ast.Load()), ctx=ast.Load())


def neighbour_slice(node: ast.Attribute, name: str, vcols: dict[str, int], ecols: dict[str, int]) -> ast.AST:
    """``X.nbrs`` -> ``_EC[k][_VC[s][X] : _VC[s][X] + _VC[d][X]]`` (a load; the caller refuses
    a store)."""
    start = _load("_VC", vcols["_nbr_start"], name)
    stop = ast.BinOp(
        left=_load("_VC", vcols["_nbr_start"], name),
        op=ast.Add(),
        right=_load("_VC", vcols["out_degree"], name),
    )
    dst = _load("_EC", ecols["_nbr_dst"])
    out = ast.Subscript(value=dst, slice=ast.Slice(lower=start, upper=stop), ctx=ast.Load())
    return ast.copy_location(out, node)


def has_nbr_call(
    node: ast.Call,
    name: str,
    roles: dict[str, str],
    visit: Callable[[ast.AST], ast.AST],
    err: Callable[[ast.AST, str], Exception],
) -> ast.AST:
    """``v.has_nbr(w)`` -> ``_gas_is_marked(_gas_row, v, w)`` (``w`` rewritten by ``visit``);
    misuse raises ``err(node, message)``."""
    first = next((k for k, r in roles.items() if r == "vertex"), None)
    if name != first:
        raise err(
            node,
            f"calls '{name}.has_nbr'; only the method's own vertex '{first}' has it. "
            f"Fix: ask '{first}.has_nbr(...)', or search {name}.nbrs (np.searchsorted)",
        )
    if len(node.args) != 1 or node.keywords:
        raise err(node, f"calls '{name}.has_nbr' with {len(node.args)} arguments; it takes one vertex id")
    args = [ast.Name(id=_ROW, ctx=ast.Load()), ast.Name(id=name, ctx=ast.Load()), visit(node.args[0])]
    call = ast.Call(func=ast.Name(id=_IS_MARKED, ctx=ast.Load()), args=args, keywords=[])
    return ast.copy_location(call, node)


def marks_on_entry(fdef: ast.FunctionDef, vertex: str, vcols: dict[str, int], ecols: dict[str, int]) -> None:
    """``_gas_row = _gas_marked_row(_VC[m], v, _VC[s], _VC[d], _EC[k])`` as the method's
    first statement (:func:`gas.setops.marked_row`)."""
    args = [
        _load("_VC", vcols["_nbr_marks"]),
        ast.Name(id=vertex, ctx=ast.Load()),
        _load("_VC", vcols["_nbr_start"]),
        _load("_VC", vcols["out_degree"]),
        _load("_EC", ecols["_nbr_dst"]),
    ]
    call = ast.Call(func=ast.Name(id=_MARKED_ROW, ctx=ast.Load()), args=args, keywords=[])
    first = ast.Assign(targets=[ast.Name(id=_ROW, ctx=ast.Store())], value=call)
    fdef.body.insert(0, ast.copy_location(first, fdef.body[0]))
