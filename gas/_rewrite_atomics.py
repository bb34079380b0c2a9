"""The rewrite of a vertex program's atomic calls (see :mod:`gas._rewrite` and :mod:`gas._atomics`).

In ``scatter``, ``X.fetch_add("f", x)`` and ``X.compare_swap("f", expected, new)`` on a vertex
parameter ``X`` (``v`` or ``nbr``) and a declared scalar field ``f`` become
``_gas_fetch_add(_VC[i], X, x)`` and ``_gas_compare_swap(_VC[i], X, expected, new)``: one atomic
instruction on the field's column, which returns the value it found. Such a write to a
neighbour is safe under every consistency model (threads may add to one vertex at once and
none of the additions is lost), so it does not count as a neighbour write: a program whose
scatter only writes its neighbours this way runs under ``vertex`` consistency, several
threads at once.

Examples
--------
>>> import ast
>>> from types import SimpleNamespace
>>> node = ast.parse('nbr.fetch_add("deg", -1)', mode="eval").body
>>> rw = SimpleNamespace(where="S.scatter", vcols={"deg": 0}, vertex_dtypes={"deg": "int32"})
>>> rw.visit = lambda x: x
>>> ast.unparse(atomic_call(node, "nbr", rw))
'_gas_fetch_add(_VC[0], nbr, -1)'
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from gas._atomics import compare_swap, fetch_add

__all__ = ["ATOMIC_METHODS", "HELPERS", "atomic_call"]

#: the vertex methods this module rewrites, and how many arguments each takes after the field
ATOMIC_METHODS = {"fetch_add": 1, "compare_swap": 2}
_TARGET = {"fetch_add": "_gas_fetch_add", "compare_swap": "_gas_compare_swap"}
#: the names the rewritten code calls, for the rewritten method's module
HELPERS = {"_gas_fetch_add": fetch_add, "_gas_compare_swap": compare_swap}


def atomic_call(node: ast.Call, name: str, rw: Any) -> ast.AST:
    """``X.<method>("f", ...)`` -> ``_gas_<method>(_VC[i], X, ...)``. ``rw`` is the rewriter:
    its ``where`` (``"Cls.method"``), ``vcols`` (field -> position in ``_VC``),
    ``vertex_dtypes`` (the declared fields'), ``visit`` (rewrites the other arguments) and
    ``_err`` (misuse raises ``rw._err(node, message)``)."""
    method = node.func.attr  # type: ignore[attr-defined]
    where, dtypes = rw.where, rw.vertex_dtypes

    def fail(msg: str) -> Exception:
        return rw._err(node, msg)

    if not where.endswith(".scatter"):
        raise fail(
            f"calls '{name}.{method}' outside scatter. Fix: change other vertices' data in scatter "
            f"(its writes to '{name}' run while other updates run); gather and apply read and write v"
        )
    want = ATOMIC_METHODS[method]
    args = node.args
    if node.keywords or len(args) != 1 + want or not isinstance(args[0], ast.Constant):
        usage = '"field", x' if method == "fetch_add" else '"field", expected, new'
        raise fail(
            f"calls '{name}.{method}' wrongly. Fix: {name}.{method}({usage}), the field named in quotes"
        )
    field = args[0].value
    if not isinstance(field, str) or field not in dtypes:
        raise fail(
            f"calls '{name}.{method}' on {field!r}, which is not a declared vertex field "
            f"({sorted(dtypes)}). Fix: name a field of vertex_data in quotes"
        )
    dt = np.dtype(dtypes[field])
    kinds = "iu" if method == "compare_swap" else "iuf"
    if dt.shape or dt.kind not in kinds or (dt.kind == "f" and dt != np.float64) or dt.itemsize < 4:
        allowed = "a 32- or 64-bit integer" + (" or float64" if method == "fetch_add" else "")
        raise fail(f"calls '{name}.{method}' on '{field}' ({dt}); it needs {allowed} field")
    col = ast.Subscript(
        value=ast.Name(id="_VC", ctx=ast.Load()), slice=ast.Constant(rw.vcols[field]), ctx=ast.Load()
    )
    rest = [rw.visit(a) for a in args[1:]]
    out = ast.Call(
        func=ast.Name(id=_TARGET[method], ctx=ast.Load()),
        args=[col, ast.Name(id=name, ctx=ast.Load()), *rest],
        keywords=[],
    )
    return ast.copy_location(out, node)
