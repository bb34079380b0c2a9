"""Turn a vertex program's methods into functions over column arrays (struct of arrays).

Users write ``nbr.rank`` and ``v.rank = x``; the engine stores each field as its own array, so
that a gather streams through one dense column instead of striding over records. This module
rewrites each method's syntax tree:

* a vertex parameter becomes an integer vertex id: ``v.f`` -> ``_VC[i][v]`` (``v.vid`` -> ``v``);
* an edge parameter becomes an integer edge id: ``e.f`` -> ``_EC[j][e]``;
* ``self.x`` and ``ctx.x`` stay attribute reads of small records, except a numpy-array attribute
  of the program: ``self.w`` -> ``_VC[k]``, an array that follows the vertex columns in the tuple
  (a kernel argument, never a constant compiled into the code); writing ``self.<anything>``
  (``self.w[i] = x`` included) is refused;
* a ``gather`` or ``scatter`` that takes the run's context as a last parameter loses it and
  reads it from the tuple instead: ``ctx = _VC[c][0]`` as its first line (the kernels call every
  gather and scatter the same way);
* two parameters are added in front of the others' places: ``f(self, _VC, _EC, ...)``;
* in a checked build (the default, see :class:`BoundsChecks`) every integer index the user writes,
  ``acc[j]``, ``v.x[j]``, ``a[i, j]``, goes through :func:`check_index`: an index outside
  ``-n..n-1`` (Python's rule: negative ones count from the end) is replaced by 0 and recorded in
  the program's parameter record, and the engine raises a :class:`gas.ProgramError` naming the
  method, the line and the index after the kernel returns. Compiled code cannot raise inside a
  parallel loop without losing its parallelism (Numba runs a ``prange`` that may raise on one
  thread), hence the record instead of an exception. Inside ``for j in range(lo, hi)``, an
  access that runs on every iteration (not under an ``if``, no ``break``/``continue``/``return``
  in the loop) with a base the loop does not change, indexed by ``j`` or by values the loop does
  not change, is checked once when the loop starts (:func:`check_range`, :func:`check_fixed`):
  if it would go out of range the loop runs no iteration and the failure is recorded. The loop
  body then stays as written, which Numba vectorizes: on a per-edge loop over 8 slots, checking
  every access cost 2.1-2.9x, checking the loop about 1x (bench/RESULTS.md, "Bounds checks in
  compiled programs"). Indexing the result of a call (``f(x)[i]``) is not checked.

Line numbers are kept, so errors and tracebacks point at the user's file. Unknown fields and
other misuse raise :class:`gas.ProgramError` naming the method, the line and the fix.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import difflib
import hashlib
import inspect
import sys
import textwrap
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas._boundscheck import (
    ERROR_FIELDS,
    BoundsChecks,
    CheckSite,
    MethodChecks,
    check_fixed,
    check_index,
    check_range,
    extent,
)
from gas._rewrite_atomics import ATOMIC_METHODS, atomic_call
from gas._rewrite_atomics import HELPERS as ATOMIC_HELPERS
from gas._rewrite_nbrs import HELPERS as NBR_HELPERS
from gas._rewrite_nbrs import has_nbr_call, marks_on_entry, neighbour_slice
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


__all__ = ["rewrite_method", "BoundsChecks", "MethodChecks", "check_index", "ERROR_FIELDS"]


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else "."


_FIX = {
    "self": "set self.{a} to a number or a numeric numpy array in __init__",
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


_CHECK = "_gas_check_index"
_RANGE_CHECK = "_gas_check_range"
_FIXED_CHECK = "_gas_check_fixed"
_EXTENT = "_gas_extent"
_HELPERS = (_CHECK, _RANGE_CHECK, _FIXED_CHECK, _EXTENT)


@dataclass
class _Loop:
    """A ``for var in range(lo[, hi])`` loop whose accesses are checked once at its start: the
    subscripts run on every iteration (no guard, no early exit) with bases the loop does not
    change, indexed by ``var`` or by expressions the loop does not change."""

    var: str
    assigned: set[str]
    guard: int
    folds: list[tuple[str, ast.AST, int, int, ast.AST | None]] = field(default_factory=list)


def _program_array(base: ast.AST) -> bool:
    """A program's array attribute as rewritten: ``_VC[k]`` (a constant position)."""
    return (
        isinstance(base, ast.Subscript)
        and isinstance(base.value, ast.Name)
        and base.value.id == "_VC"
        and isinstance(base.slice, ast.Constant)
    )


def _column_or_name(base: ast.AST) -> bool:
    """A name, a program array ``_VC[k]``, or a field's row ``_VC[c][v]`` / ``_EC[c][e]``: a
    base a loop's start may evaluate even if the loop does not run (no index of the user's in
    it, nothing to fail)."""
    if isinstance(base, ast.Name) or _program_array(base):
        return True
    return (
        isinstance(base, ast.Subscript)
        and isinstance(base.slice, ast.Name)
        and isinstance(base.value, ast.Subscript)
        and isinstance(base.value.slice, ast.Constant)
        and isinstance(base.value.value, ast.Name)
        and base.value.value.id in ("_VC", "_EC")
    )


def _stored_names(nodes: list[ast.stmt]) -> set[str]:
    return {
        n.id
        for s in nodes
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }


def _range_loop(node: ast.For) -> tuple[str, ast.AST, ast.AST] | None:
    """``(var, lo, hi)`` of ``for var in range(lo, hi)`` (or ``range(hi)``) when its accesses
    may be checked at its start: pure bounds, no ``else``, no way out of the body but its end,
    and ``var`` not assigned in the body. Else None."""
    it = node.iter
    if not (
        isinstance(node.target, ast.Name)
        and not node.orelse
        and isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and 1 <= len(it.args) <= 2
        and not it.keywords
        and all(_is_pure(a) and not isinstance(a, ast.Starred) for a in it.args)
    ):
        return None
    exits = (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)
    for s in node.body:
        if any(isinstance(n, exits) for n in ast.walk(s)):
            return None
    if node.target.id in _stored_names(node.body):
        return None
    lo, hi = (ast.Constant(0), it.args[0]) if len(it.args) == 1 else (it.args[0], it.args[1])
    return node.target.id, lo, hi


def _is_pure(node: ast.AST) -> bool:
    """True for an expression without side effects (names, constants, attributes, subscripts,
    arithmetic, and the checks themselves), which may be evaluated twice: a checked subscript
    passes its base to the check as well (``x[check(self, x, i, 0, code)]``)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            if not (isinstance(sub.func, ast.Name) and sub.func.id in _HELPERS):
                return False
        elif isinstance(sub, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)):
            return False
    return True


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
        checks: MethodChecks | None = None,
        labels: dict[str, str] | None = None,
        arrays: dict[str, int] | None = None,
    ) -> None:
        self.where, self.roles, self.known = where, roles, known
        self.vertex_dtypes: dict[str, Any] = {}  # the declared fields' (for X.fetch_add)
        self.arrays = arrays or {}
        self.vcols, self.ecols = vcols, ecols
        self.line0, self.filename = line0, filename
        self.checks, self.labels = checks, labels or {}
        self.selfname = next((k for k, r in roles.items() if r == "self"), "self")
        # dimensions of each column (1 + the field's), by (table, position), for the checks
        self.col_ndim: dict[tuple[str, int], int] = {}
        for table, role, cols in (("_VC", "vertex", vcols), ("_EC", "edge", ecols)):
            dtypes = checks.field_dtypes.get(role, {}) if checks else {}
            for name, i in cols.items():
                self.col_ndim[(table, i)] = 1 + len(np.dtype(dtypes[name]).shape) if name in dtypes else 1
        self.marks_used = ""  # the vertex whose has_nbr is called: its row of marks taken on entry
        self.loops: list[_Loop] = []  # enclosing loops whose accesses are checked at their start
        self.guard = 0  # conditional constructs entered (an access there may not run)

    def _guarded(self, node: ast.AST) -> ast.AST:
        self.guard += 1
        try:
            return self.generic_visit(node)
        finally:
            self.guard -= 1

    visit_If = visit_While = visit_Try = visit_IfExp = visit_BoolOp = _guarded
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _guarded
    visit_Lambda = visit_FunctionDef = visit_With = _guarded

    def visit_For(self, node: ast.For) -> ast.AST:
        plan = _range_loop(node) if self.checks is not None else None
        if plan is None:
            return self._guarded(node)
        var, lo, hi = plan
        node.iter = self.visit(node.iter)  # its bounds run once, in the enclosing context
        lo, hi = (ast.Constant(0), node.iter.args[0]) if len(node.iter.args) == 1 else node.iter.args
        loop = _Loop(var, _stored_names(node.body), self.guard)
        self.loops.append(loop)
        try:
            node.body = [self.visit(s) for s in node.body]
        finally:
            self.loops.pop()
        if loop.folds:
            stop = hi
            for kind, base, axis, code, index in loop.folds:
                me = ast.Name(id=self.selfname, ctx=ast.Load())
                args = [me, self._extent_of(base, axis), ast.Constant(code)]
                args += [] if index is None else [copy.deepcopy(index)]
                args += [copy.deepcopy(lo), stop]
                stop = ast.Call(func=ast.Name(id=kind, ctx=ast.Load()), args=args, keywords=[])
            rng = ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[lo, stop], keywords=[])
            node.iter = ast.copy_location(rng, node.iter)
        return node

    def _loop_for(self, base: ast.AST, elts: list[ast.AST]) -> _Loop | None:
        """The innermost loop that can check this access at its start (see :class:`_Loop`)."""
        if not self.loops or self.loops[-1].guard != self.guard:
            return None
        loop = self.loops[-1]
        moving = loop.assigned | {loop.var}
        if not _column_or_name(base) or any(
            isinstance(n, ast.Name) and n.id in moving for n in ast.walk(base)
        ):
            return None
        for x in elts:
            if not self._checkable(x) or (isinstance(x, ast.Name) and x.id == loop.var):
                continue
            if not _is_pure(x) or any(isinstance(n, ast.Name) and n.id in moving for n in ast.walk(x)):
                return None
        return loop

    def _err(self, node: ast.AST, msg: str) -> ProgramError:
        line = self.line0 + getattr(node, "lineno", 1) - 1
        return ProgramError(f"{self.where} ({self.filename}:{line}) {msg}")

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        vertex = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and self.roles.get(f.value.id)
        if vertex == "vertex" and f.attr == "has_nbr":
            self.marks_used = f.value.id
            return has_nbr_call(node, f.value.id, self.roles, self.visit, self._err)
        if vertex == "vertex" and f.attr in ATOMIC_METHODS:
            return atomic_call(node, f.value.id, self)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if not isinstance(node.value, ast.Name) or node.value.id not in self.roles:
            return self.generic_visit(node)
        name, attr = node.value.id, node.attr
        role = self.roles[name]
        if role not in self.known:
            return node
        if attr == "has_nbr" and role == "vertex":
            raise self._err(node, f"uses '{name}.has_nbr' without calling it. Fix: {name}.has_nbr(w)")
        if attr in ATOMIC_METHODS and role == "vertex":
            raise self._err(
                node, f"uses '{name}.{attr}' without calling it. Fix: {name}.{attr}('field', ...)"
            )
        names = self.known[role]
        if attr not in names:
            raise self._err(
                node,
                f"uses unknown {_WHAT[role]} '{name}.{attr}'{_suggest(attr, names)} "
                f"Known: {sorted(names)}. Fix: {_FIX[role].format(a=attr)}.",
            )
        if role == "self":
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                raise self._err(node, _self_write_message(name, attr))
            if attr not in self.arrays:
                return node
            return ast.copy_location(
                ast.Subscript(
                    value=ast.Name(id="_VC", ctx=ast.Load()),
                    slice=ast.Constant(self.arrays[attr]),
                    ctx=ast.Load(),
                ),
                node,
            )
        if role == "vertex":
            if attr == "nbrs":
                if isinstance(node.ctx, ast.Store):
                    raise self._err(node, f"assigns '{name}.nbrs', which is read-only (the graph's edges)")
                return neighbour_slice(node, name, self.vcols, self.ecols)
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

    def _describe(self, base: ast.AST) -> tuple[str, str]:
        """What the user's subscripted expression is, and how to fix an index out of its range."""
        if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            role = self.roles.get(base.value.id)
            dtypes = self.checks.field_dtypes.get(role or "", {}) if self.checks else {}
            if base.attr in dtypes:
                dt = np.dtype(dtypes[base.attr])
                decl = f"({dt.base.name}, {dt.shape if len(dt.shape) > 1 else dt.shape[0]})"
                where = "vertex_data" if role == "vertex" else "edge_data"
                return (
                    f"the {role} field '{base.value.id}.{base.attr}' (declared {decl})",
                    f"keep the index in 0..{{last}}, or declare a longer field in {where}",
                )
            if role == "self" and base.attr in self.arrays:
                return (
                    f"the program array '{base.value.id}.{base.attr}'",
                    "keep the index in 0..{last} (below the array's length along that axis)",
                )
        if isinstance(base, ast.Name) and self.labels.get(base.id):
            return (
                self.labels[base.id],
                "keep the index in 0..{last}, or declare a larger gather_type",
            )
        text = ast.unparse(base)
        return f"'{text}'", "keep the index in 0..{last} (below the array's length)"

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if self.checks is None:
            return self.generic_visit(node)
        text = ast.unparse(node)
        what, hint = self._describe(node.value)
        node = self.generic_visit(node)  # fields become column rows, inner subscripts checked
        base = node.value
        elts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not any(self._checkable(x) for x in elts):
            return node
        if not _is_pure(base):
            # evaluated twice it could act twice (and Numba does not type an assignment
            # expression there): an index into a call's result is left unchecked
            return node
        line = self.line0 + getattr(node, "lineno", 1) - 1
        loop = self._loop_for(base, elts)
        if loop is not None:
            self._fold(loop, base, elts, CheckSite(self.where, self.filename, line, text, what, 0, hint))
            return node
        out = []
        for axis, x in enumerate(elts):
            if self._checkable(x):
                site = CheckSite(self.where, self.filename, line, text, what, axis, hint)
                out.append(self._check_call(base, x, axis, self.checks.table.add(site)))
            elif isinstance(x, ast.Constant) and x.value in (None, Ellipsis):
                out += elts[axis:]  # the axes of what follows a new axis or an ellipsis shift
                break
            else:
                out.append(x)
        index = ast.Tuple(elts=out, ctx=ast.Load()) if isinstance(node.slice, ast.Tuple) else out[0]
        return ast.copy_location(ast.Subscript(value=base, slice=index, ctx=node.ctx), node)

    def _fold(self, loop: _Loop, base: ast.AST, elts: list[ast.AST], site: CheckSite) -> None:
        """Check this access's indices once at ``loop``'s start instead of at each access."""
        for axis, x in enumerate(elts):
            if self._checkable(x):
                code = self.checks.table.add(dataclasses.replace(site, axis=axis))
                if isinstance(x, ast.Name) and x.id == loop.var:
                    loop.folds.append((_RANGE_CHECK, base, axis, code, None))
                else:
                    loop.folds.append((_FIXED_CHECK, base, axis, code, x))
            elif isinstance(x, ast.Constant) and x.value in (None, Ellipsis):
                break

    def _extent_of(self, base: ast.AST, axis: int) -> ast.AST:
        """The length of ``base`` along ``axis``: ``_VC[c].shape[axis + 1]`` for a field's row
        ``_VC[c][v]`` and ``acc.shape[axis]`` for a gather total (no array handed to a function:
        its reference-count updates, on an array every thread shares, slow a vector gather;
        figures: bench/RESULTS.md, "Figures formerly in docstrings"), else
        ``_gas_extent(base, axis)`` (None when ``base`` is not an array)."""
        shape = None
        if _program_array(base):  # a program array: its own shape
            shape = ast.Attribute(value=copy.deepcopy(base), attr="shape", ctx=ast.Load())
        elif isinstance(base, ast.Name) and base.id in self.labels and self.checks is not None:
            if axis < self.checks.gather_ndim:
                shape = ast.Attribute(
                    value=ast.Name(id=base.id, ctx=ast.Load()), attr="shape", ctx=ast.Load()
                )
        elif _column_or_name(base) and isinstance(base, ast.Subscript):
            col = base.value
            if axis + 1 < self.col_ndim.get((col.value.id, col.slice.value), 1):
                shape = ast.Attribute(value=copy.deepcopy(col), attr="shape", ctx=ast.Load())
                axis += 1
        if shape is not None:
            return ast.Subscript(value=shape, slice=ast.Constant(axis), ctx=ast.Load())
        args = [copy.deepcopy(base), ast.Constant(axis)]
        return ast.Call(func=ast.Name(id=_EXTENT, ctx=ast.Load()), args=args, keywords=[])

    def _check_call(self, base: ast.AST, index: ast.AST, axis: int, code: int) -> ast.Call:
        """``_gas_check_index(self, <length of base along axis>, index, code)``."""
        me = ast.Name(id=self.selfname, ctx=ast.Load())
        args = [me, self._extent_of(base, axis), index, ast.Constant(code)]
        return ast.Call(func=ast.Name(id=_CHECK, ctx=ast.Load()), args=args, keywords=[])

    @staticmethod
    def _checkable(x: ast.AST) -> bool:
        """An index expression that may be an integer (not a slice, new axis or ellipsis)."""
        if isinstance(x, (ast.Slice, ast.Starred)):
            return False
        return not (isinstance(x, ast.Constant) and not isinstance(x.value, int))

    def visit_Name(self, node: ast.Name) -> ast.AST:
        role = self.roles.get(node.id)
        if role in ("vertex", "edge"):
            raise self._err(
                node,
                f"uses the {role} '{node.id}' other than through its fields ({node.id}.<field>); "
                f"pass the field values instead",
            )
        return node


def _self_write_message(name: str, attr: str) -> str:
    return (
        f"assigns '{name}.{attr}', but program attributes are read-only inside compiled methods "
        f"(every vertex shares them). Fix: keep per-vertex state in a vertex_data field "
        f"(v.{attr} = ...), or compute the attribute in __init__"
    )


def _check_no_self_writes(
    fdef: ast.FunctionDef, selfname: str, err: Callable[[ast.AST, str], Exception]
) -> None:
    """Refuse an assignment to ``self.<attr>`` or into it (``self.w[i] = x``, ``self.n += 1``)."""

    def targets(t: ast.AST) -> list[ast.AST]:
        if isinstance(t, (ast.Tuple, ast.List)):
            return [x for e in t.elts for x in targets(e)]
        if isinstance(t, ast.Starred):
            return targets(t.value)
        return [t]

    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign):
            tgts = [x for t in node.targets for x in targets(t)]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            tgts = targets(node.target)
        elif isinstance(node, ast.Delete):
            tgts = [x for t in node.targets for x in targets(t)]
        else:
            continue
        for t in tgts:
            while isinstance(t, ast.Subscript):
                t = t.value
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == selfname:
                raise err(t, _self_write_message(selfname, t.attr))


def _context_from_columns(fdef: ast.FunctionDef, ctx_column: int) -> None:
    """Drop the function's last parameter (a context) and read it from the column tuple
    instead: ``<ctx> = _VC[ctx_column][0]`` as its first statement."""
    ctx_arg = fdef.args.args.pop()
    table = ast.Name(id="_VC", ctx=ast.Load())
    col = ast.Subscript(value=table, slice=ast.Constant(ctx_column), ctx=ast.Load())
    row = ast.Subscript(value=col, slice=ast.Constant(0), ctx=ast.Load())
    first = ast.Assign(targets=[ast.Name(id=ctx_arg.arg, ctx=ast.Store())], value=row)
    fdef.body.insert(0, ast.copy_location(first, fdef.body[0]))


def _method_tree(fn: Callable[..., Any], where: str) -> tuple[ast.Module, ast.FunctionDef]:
    """The syntax tree of method ``fn`` (named ``where`` in errors) and its definition."""
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
    return tree, fdef


def rewrite_method(
    fn: Callable[..., Any],
    where: str,
    roles_by_position: tuple[str, ...],
    known: dict[str, list[str]],
    vcols: dict[str, int],
    ecols: dict[str, int],
    checks: MethodChecks | None = None,
    arrays: dict[str, int] | None = None,
    ctx_column: int | None = None,
    vertex_dtypes: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """Return ``fn`` rewritten to take ``(self, _VC, _EC, *params)`` with ids for records.

    ``roles_by_position`` gives the role of each parameter after ``self``: ``"vertex"``,
    ``"edge"``, ``"ctx"`` or ``""`` for a plain value. With ``checks`` every integer index goes
    through :func:`check_index` (sites numbered in ``checks.table``). ``arrays`` maps the
    program's array attributes to their positions in ``_VC``; with ``ctx_column`` the last
    parameter (a context) is dropped and read from ``_VC[ctx_column][0]`` instead.
    ``vertex_dtypes``: the declared fields', for atomic calls (:mod:`gas._rewrite_atomics`).
    """
    tree, fdef = _method_tree(fn, where)
    fdef.decorator_list = []
    params = [a.arg for a in fdef.args.args]
    roles = {params[0]: "self"} if params else {}
    for p, r in zip(params[1:], roles_by_position):
        if r:
            roles[p] = r
    line0 = fn.__code__.co_firstlineno
    labels = {}
    if checks is not None:
        labels = {p: lab for p, lab in zip(params[1:], checks.labels) if lab}
    rw = _Rewriter(where, roles, known, vcols, ecols, line0, fn.__code__.co_filename, checks, labels, arrays)
    rw.vertex_dtypes = vertex_dtypes or {}
    if params:
        _check_no_self_writes(fdef, params[0], rw._err)
    fdef.body = [rw.visit(s) for s in fdef.body]
    if ctx_column is not None:  # gather/scatter(..., ctx): the context comes from the tuple
        _context_from_columns(fdef, ctx_column)
    if rw.marks_used:
        marks_on_entry(fdef, rw.marks_used, vcols, ecols)
    fdef.args.args = fdef.args.args[:1] + [ast.arg(arg="_VC"), ast.arg(arg="_EC")] + fdef.args.args[1:]
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, line0 - 1)
    with AST_LOCK:
        code = compile(tree, fn.__code__.co_filename, "exec")
    # Run the new definition in a module of its own, registered under a name derived from the
    # method's identity: Numba's on-disk cache re-imports the module of a compiled function's
    # globals when it loads a kernel, and the rewrite always runs before kernels are loaded.
    # (a checked build's module is another one: its functions see the check helper)
    ident = f"{fn.__module__}.{fn.__qualname__}|{code.co_filename}|{checks is not None}"
    tag = hashlib.sha1(ident.encode()).hexdigest()[:16]
    modname = f"_gas_rewritten_{tag}"
    module = types.ModuleType(modname)
    env = module.__dict__
    env.update({k: v for k, v in fn.__globals__.items() if k not in ("__name__", "__spec__", "__loader__")})
    env["__name__"] = modname
    env.update(NBR_HELPERS | ATOMIC_HELPERS)
    if checks is not None:
        env.update(
            {_CHECK: check_index, _RANGE_CHECK: check_range, _FIXED_CHECK: check_fixed, _EXTENT: extent}
        )
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            env[name] = cell.cell_contents
    exec(code, env)
    sys.modules[modname] = module
    out = env[fdef.name]
    out.__qualname__ = f"{where}"
    out.__gas_source__ = ast.unparse(tree)
    return out
