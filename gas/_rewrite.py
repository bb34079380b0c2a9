"""Turn a vertex program's methods into functions over column arrays (struct of arrays).

Users write ``nbr.rank`` and ``v.rank = x``; the engine stores each field as its own array, so
that a gather streams through one dense column instead of striding over records. This module
rewrites each method's syntax tree:

* a vertex parameter becomes an integer vertex id: ``v.f`` -> ``_VC[i][v]`` (``v.vid`` -> ``v``);
* an edge parameter becomes an integer edge id: ``e.f`` -> ``_EC[j][e]``;
* ``self.x`` and ``ctx.x`` stay attribute reads of small records;
* two parameters are added in front of the others' places: ``f(self, _VC, _EC, ...)``.

Line numbers are kept, so errors and tracebacks point at the user's file. Unknown fields and
other misuse raise :class:`gas.ProgramError` naming the method, the line and the fix.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import inspect
import sys
import textwrap
import threading
import types
from collections.abc import Callable
from typing import Any

from gas.errors import ProgramError

# CPython 3.11's conversions between source, Python AST objects and its C AST keep one recursion
# counter per interpreter, not per thread: two threads parsing or compiling at once can fail
# with "SystemError: AST constructor recursion depth mismatch". Ranks run as threads in one
# process (tests, the in-process hub), so every parse and compile of program source holds this.
AST_LOCK = threading.RLock()


def parse_source(src: str) -> ast.Module:
    """``ast.parse(src)`` under :data:`AST_LOCK` (safe when several threads build engines)."""
    with AST_LOCK:
        return ast.parse(src)


__all__ = ["rewrite_method"]


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else "."


_FIX = {
    "self": "set self.{a} to a number in __init__",
    "vertex": "declare it in vertex_data, e.g. vertex_data = {{'{a}': np.float64, ...}}",
    "edge": "declare it in edge_data, or load the graph with a weight column for 'weight'",
    "ctx": "declare aggregates to add context fields",
}
_WHAT = {
    "self": "program attribute",
    "vertex": "vertex field",
    "edge": "edge field",
    "ctx": "context field",
}


class _Rewriter(ast.NodeTransformer):
    def __init__(
        self,
        where: str,
        roles: dict[str, str],
        known: dict[str, list[str]],
        vcols: dict[str, int],
        ecols: dict[str, int],
        line0: int,
        filename: str,
    ) -> None:
        self.where, self.roles, self.known = where, roles, known
        self.vcols, self.ecols = vcols, ecols
        self.line0, self.filename = line0, filename

    def _err(self, node: ast.AST, msg: str) -> ProgramError:
        line = self.line0 + getattr(node, "lineno", 1) - 1
        return ProgramError(f"{self.where} ({self.filename}:{line}) {msg}")

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if not isinstance(node.value, ast.Name) or node.value.id not in self.roles:
            return self.generic_visit(node)
        name, attr = node.value.id, node.attr
        role = self.roles[name]
        if role not in self.known:
            return node
        names = self.known[role]
        if attr not in names:
            raise self._err(
                node,
                f"uses unknown {_WHAT[role]} '{name}.{attr}'{_suggest(attr, names)} "
                f"Known: {sorted(names)}. Fix: {_FIX[role].format(a=attr)}.",
            )
        if role == "vertex":
            if attr == "vid":
                if isinstance(node.ctx, ast.Store):
                    raise self._err(node, f"assigns '{name}.vid', which is read-only")
                return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
            table, idx = "_VC", self.vcols[attr]
        elif role == "edge":
            table, idx = "_EC", self.ecols[attr]
        else:
            return node
        col = ast.Subscript(value=ast.Name(id=table, ctx=ast.Load()), slice=ast.Constant(idx), ctx=ast.Load())
        return ast.copy_location(
            ast.Subscript(value=col, slice=ast.Name(id=name, ctx=ast.Load()), ctx=node.ctx), node
        )

    def visit_Name(self, node: ast.Name) -> ast.AST:
        role = self.roles.get(node.id)
        if role in ("vertex", "edge"):
            raise self._err(
                node,
                f"uses the {role} '{node.id}' other than through its fields ({node.id}.<field>); "
                f"pass the field values instead",
            )
        return node


def rewrite_method(
    fn: Callable[..., Any],
    where: str,
    roles_by_position: tuple[str, ...],
    known: dict[str, list[str]],
    vcols: dict[str, int],
    ecols: dict[str, int],
) -> Callable[..., Any]:
    """Return ``fn`` rewritten to take ``(self, _VC, _EC, *params)`` with ids for records.

    ``roles_by_position`` gives the role of each parameter after ``self``: ``"vertex"``,
    ``"edge"``, ``"ctx"`` or ``""`` for a plain value.
    """
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        raise ProgramError(
            f"{where}: gaslab needs the source code of this method to compile it, and Python has "
            f"none for it (defined with exec or at an interactive prompt without history). "
            f"Fix: define the program in a .py file or a notebook cell."
        ) from None
    tree = parse_source(src)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise ProgramError(f"{where} must be defined with 'def' (got {type(fdef).__name__})")
    fdef.decorator_list = []
    params = [a.arg for a in fdef.args.args]
    roles = {params[0]: "self"} if params else {}
    for p, r in zip(params[1:], roles_by_position):
        if r:
            roles[p] = r
    line0 = fn.__code__.co_firstlineno
    fdef.body = [
        _Rewriter(where, roles, known, vcols, ecols, line0, fn.__code__.co_filename).visit(s)
        for s in fdef.body
    ]
    fdef.args.args = fdef.args.args[:1] + [ast.arg(arg="_VC"), ast.arg(arg="_EC")] + fdef.args.args[1:]
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, line0 - 1)
    with AST_LOCK:
        code = compile(tree, fn.__code__.co_filename, "exec")
    # Run the new definition in a module of its own, registered under a name derived from the
    # method's identity: Numba's on-disk cache re-imports the module of a compiled function's
    # globals when it loads a kernel, and the rewrite always runs before kernels are loaded.
    tag = hashlib.sha1(f"{fn.__module__}.{fn.__qualname__}|{code.co_filename}".encode()).hexdigest()[:16]
    modname = f"_gas_rewritten_{tag}"
    module = types.ModuleType(modname)
    env = module.__dict__
    env.update({k: v for k, v in fn.__globals__.items() if k not in ("__name__", "__spec__", "__loader__")})
    env["__name__"] = modname
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            env[name] = cell.cell_contents
    exec(code, env)
    sys.modules[modname] = module
    out = env[fdef.name]
    out.__qualname__ = f"{where}"
    out.__gas_source__ = ast.unparse(tree)
    return out
