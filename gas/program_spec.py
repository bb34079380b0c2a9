"""What a vertex program's code reads and writes: one analysis for the engines and the runtime.

:meth:`ProgramSpec.of` inspects a program once per class and field declarations (the result is
cached) and answers every question the engines and the process runtime ask about it:

- which methods the program defines (:attr:`ProgramSpec.methods`);
- for each method, the vertex and edge fields it reads and writes, found in its source with
  :mod:`ast` (:attr:`ProgramSpec.reads`, :attr:`ProgramSpec.writes`), and every name its code
  objects use (:attr:`ProgramSpec.names`, from the bytecode: a conservative superset that also
  works when the source is not available);
- the declared field dtypes and the gather type;
- what follows from those: the vertex fields a mirror needs from its master
  (:attr:`ProgramSpec.mirror_fields`), whether the visiting order cannot matter
  (:attr:`ProgramSpec.order_free`), whether a method reads ``vid``, whether the program has a
  ``priority``, and the weakest consistency model it is safe under.

It also holds the checks :func:`gas.program.validate` makes on a program's method parameters
(:func:`check_signatures`; ``gather`` and ``scatter`` may take ``ctx`` last) and numpy-array
attributes (:func:`array_fields`). It sits below :mod:`gas.program` (which validates a program
against a graph and rewrites its methods) and imports nothing from the engines or the runtime.
Roles are the canonical parameter names of the methods: ``v`` (the vertex), ``nbr`` (the
neighbour) and ``e`` (the edge).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from gas._rewrite import parse_source
from gas._rewrite_atomics import ATOMIC_METHODS
from gas.errors import ProgramError

__all__ = [
    "ProgramSpec",
    "METHODS",
    "ARRAY_METHODS",
    "CTX_OPTIONAL",
    "field_dtype",
    "scalar_dtype",
    "overridden",
    "Slots",
    "array_fields",
    "param_dtype",
    "check_labels",
    "check_signatures",
    "method_table",
    "native_dtype",
    "takes_ctx",
]

# method name -> (parameter names after self, signature shown in error messages)
METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "init": (("v", "ctx"), "init(self, v, ctx)"),
    "gather": (("v", "e", "nbr"), "gather(self, v, e, nbr) -> gather_type"),
    "sum": (("a", "b"), "sum(self, a, b) -> gather_type"),
    "apply": (("v", "total", "ctx"), "apply(self, v, total, ctx)"),
    "scatter": (("v", "e", "nbr"), "scatter(self, v, e, nbr) -> bool"),
    "aggregate": (("v",), "aggregate(self, v) -> float or tuple of float"),
    "priority": (("v",), "priority(self, v) -> float"),
}
# the same for programs whose gather_type is an array: gather and sum work in place
ARRAY_METHODS = {
    "gather": (("v", "e", "nbr", "acc"), "gather(self, v, e, nbr, acc) (adds into acc in place)"),
    "sum": (("a", "b"), "sum(self, a, b) (folds b into a in place)"),
}
# the methods that may take the run's context as one more, last parameter (PowerGraph's
# icontext is available in gather and scatter too): gather(self, v, e, nbr, ctx), the array
# form gather(self, v, e, nbr, acc, ctx), scatter(self, v, e, nbr, ctx)
CTX_OPTIONAL = ("gather", "scatter")
# the roles whose fields the analysis records (vertex, neighbour, edge)
_ROLES = ("v", "nbr", "e")
# the methods the process runtime looks at (it refuses programs with a priority)
_RUNTIME_METHODS = ("init", "gather", "sum", "apply", "scatter", "aggregate")
# the methods a mirror runs: it must hold every vertex field they name
_MIRROR_METHODS = ("gather", "sum", "scatter")

Access = frozenset[tuple[str, str]]  # (role, field) pairs


class Slots:
    """``gather_type = gas.Slots(np.int64)``: keep each gather edge's value instead of summing.

    ``gather(self, v, e, nbr)`` returns one number per edge, as usual; the engine stores it in
    the vertex's slot for that edge (a scratch of the vertex's gather degree, so no
    accumulator sized by the largest degree), and ``apply(self, v, total, ctx)`` receives the
    slots as a 1-D array, in edge order (in-edges, then out-edges, for ``gas.ALL``), which it may
    reorder in place (``total.sort()``). A program with slots defines no ``sum``.

    Examples
    --------
    >>> import numpy as np
    >>> Slots(np.int64)
    Slots(np.int64)
    """

    def __init__(self, dtype: Any) -> None:
        self.dtype = scalar_dtype(dtype, "Slots(dtype)")

    def __repr__(self) -> str:
        return f"Slots(np.{self.dtype.name})"


def gather_decl(gather_type: Any) -> Any:
    """The dtype declaration inside a ``gather_type`` (a :class:`Slots`' element type)."""
    return gather_type.dtype if isinstance(gather_type, Slots) else gather_type


def scalar_dtype(value: Any, what: str) -> np.dtype:
    """``value`` as a numeric or bool numpy scalar dtype; ``what`` names it in the error.

    Examples
    --------
    >>> scalar_dtype(float, "gather_type")
    dtype('float64')
    """
    try:
        dt = np.dtype(value)
    except TypeError:
        raise ProgramError(
            f"Expected {what} to be a numpy scalar type such as np.float64 (got {value!r})"
        ) from None
    if dt.kind not in "biuf" or dt.shape:
        raise ProgramError(f"Expected {what} to be a numeric or bool scalar type (got {dt})")
    return dt


def field_dtype(value: Any, what: str) -> np.dtype:
    """A scalar type, or a ``(scalar type, shape)`` pair for a fixed-size array field.

    Examples
    --------
    >>> field_dtype((np.float64, 4), "vertex_data['w']")
    dtype(('<f8', (4,)))
    """
    if isinstance(value, tuple) and len(value) == 2 and not isinstance(value[1], str):
        base, shape = value
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if not shape or not all(isinstance(d, (int, np.integer)) and d > 0 for d in shape):
            raise ProgramError(
                f"Expected {what} to have a shape of positive integers such as (np.float64, 8) "
                f"or (np.float64, (4, 4)) (got {value!r})"
            )
        if len(shape) > 2:
            raise ProgramError(f"Expected {what} to have at most 2 dimensions (got shape {shape})")
        bt = scalar_dtype(base, what)
        return np.dtype((bt, tuple(int(d) for d in shape)))
    if isinstance(value, np.dtype) and value.shape:
        return field_dtype((value.base, value.shape), what)
    return scalar_dtype(value, what)


def overridden(program: Any, name: str) -> Any:
    """The function ``program``'s class defines as method ``name``, or None if it defines none.

    :class:`gas.VertexProgram` defines none of the methods of :data:`METHODS`, so a class
    that has the attribute at all defines it. Raises :class:`gas.ProgramError` if it is not a
    plain method.

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> overridden(PageRankProgram(), "gather").__name__, overridden(PageRankProgram(), "scatter")
    ('gather', None)
    """
    fn = getattr(type(program), name, None)
    if fn is None:
        return None
    raw = inspect.getattr_static(type(program), name)
    if isinstance(raw, (staticmethod, classmethod)):
        raise ProgramError(
            f"{type(program).__name__}.{name} must be a plain method, not a {type(raw).__name__}"
        )
    if not inspect.isfunction(fn):
        raise ProgramError(
            f"{type(program).__name__}.{name} must be a method defined with def (got {type(fn).__name__})"
        )
    return fn


def _code_names(fn: Any) -> frozenset[str]:
    """Names a function's code uses (attribute names included), nested code objects too."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return frozenset()
    out: set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        out |= set(c.co_names)
        todo += [k for k in c.co_consts if hasattr(k, "co_names")]
    return frozenset(out)


def _store_targets(t: ast.AST, out: list[ast.Attribute]) -> None:
    """The ``<name>.<field>`` nodes an assignment target writes (through indexing too)."""
    if isinstance(t, (ast.Tuple, ast.List)):
        for x in t.elts:
            _store_targets(x, out)
        return
    while isinstance(t, ast.Subscript):
        t = t.value
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
        out.append(t)


def _accesses(fn: Any, method: str) -> tuple[Access, Access]:
    """``(reads, writes)`` of a method: the ``(role, field)`` of every ``<param>.<field>`` it
    reads, and of every one it assigns (``v.x = ...``, ``nbr.w[k] = ...``; an augmented
    assignment ``v.x += 1`` both reads and writes). Empty if the source is not available."""
    try:
        tree = parse_source(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return frozenset(), frozenset()
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        return frozenset(), frozenset()
    names = [a.arg for a in fdef.args.args][1:]
    role_of = {n: r for n, r in zip(names, METHODS[method][0]) if r in _ROLES}
    stored: list[ast.Attribute] = []  # assigned only
    updated: list[ast.Attribute] = []  # augmented: read and assigned
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                _store_targets(t, stored)
        elif isinstance(node, ast.AnnAssign):
            _store_targets(node.target, stored)
        elif isinstance(node, ast.AugAssign):
            _store_targets(node.target, updated)
    pure = {id(a) for a in stored}
    reads, writes = set(), set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            role = role_of.get(node.value.id)
            if role is not None and id(node) not in pure:
                reads.add((role, node.attr))
    for a in stored + updated:
        if a.value.id in role_of:  # type: ignore[attr-defined]
            writes.add((role_of[a.value.id], a.attr))  # type: ignore[attr-defined]
    return frozenset(reads), frozenset(writes)


# class -> {(its methods, repr of its declarations): spec}; dropped with the class
_CACHE: weakref.WeakKeyDictionary[type, dict[Any, ProgramSpec]] = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()  # engines may be built from several threads


@dataclass(frozen=True)
class ProgramSpec:
    """What a vertex program's methods read and write, and what follows for engines and runtime.

    Build it with :meth:`ProgramSpec.of` (cached per class and field declarations). It depends on
    the program's class, its methods and its ``vertex_data``, ``edge_data`` and ``gather_type``,
    not on a graph or on numeric parameters.

    Attributes
    ----------
    name : str
        The program's class name.
    methods : tuple of str
        The methods the program defines, in the order of :data:`METHODS`.
    reads, writes : mapping of str to frozenset of (role, field)
        Per defined method, the ``(role, field)`` pairs it reads / assigns, with role ``"v"``,
        ``"nbr"`` or ``"e"``: ``("nbr", "rank")`` for ``nbr.rank``. Fields include the built-in
        ``vid``, ``out_degree``, ``in_degree`` and graph edge columns such as ``weight``.
    names : mapping of str to frozenset of str
        Per defined method, every name its code objects use (attributes, globals), nested code
        included: a superset of the fields it touches, available without source.
    vertex_fields, edge_fields : mapping of str to numpy.dtype
        The declared ``vertex_data`` and ``edge_data`` fields, in declaration order.
    gather_type : numpy.dtype
        The gather total's type (with a shape for an array gather).

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> spec = ProgramSpec.of(PageRankProgram())
    >>> sorted(spec.reads["gather"]), spec.mirror_fields, spec.order_free, spec.has_priority
    ([('nbr', 'contrib')], ('contrib',), True, False)
    """

    name: str
    methods: tuple[str, ...]
    reads: Mapping[str, Access]
    writes: Mapping[str, Access]
    names: Mapping[str, frozenset[str]]
    vertex_fields: Mapping[str, np.dtype]
    edge_fields: Mapping[str, np.dtype]
    gather_type: np.dtype
    gather_slots: bool = False

    @classmethod
    def of(cls, program: Any) -> ProgramSpec:
        """The spec of ``program`` (a :class:`gas.VertexProgram` instance), from the cache if
        a program of the same class, methods and field declarations was analysed before.

        Raises :class:`gas.ProgramError` for a method that is not a plain function or a field
        type that is not a numeric scalar (``gas.program.validate`` reports those first).

        Examples
        --------
        >>> from gas.algorithms.sssp import SSSPProgram
        >>> ProgramSpec.of(SSSPProgram(0)) is ProgramSpec.of(SSSPProgram(3))
        True
        """
        klass = type(program)
        decl = (program.vertex_data, program.edge_data, program.gather_type)
        key = (tuple(getattr(klass, m, None) for m in METHODS), repr(decl))
        with _CACHE_LOCK:
            spec = _CACHE.get(klass, {}).get(key)
        if spec is None:
            spec = cls._build(program)
            with _CACHE_LOCK:
                spec = _CACHE.setdefault(klass, {}).setdefault(key, spec)
        return spec

    @classmethod
    def _build(cls, program: Any) -> ProgramSpec:
        name = type(program).__name__
        fns = {m: overridden(program, m) for m in METHODS}
        fns = {m: f for m, f in fns.items() if f is not None}
        access = {m: _accesses(f, m) for m, f in fns.items()}
        vdecl, edecl = dict(program.vertex_data), dict(program.edge_data)
        return cls(
            name=name,
            methods=tuple(fns),
            reads=MappingProxyType({m: a[0] for m, a in access.items()}),
            writes=MappingProxyType({m: a[1] for m, a in access.items()}),
            names=MappingProxyType({m: _code_names(f) for m, f in fns.items()}),
            vertex_fields=MappingProxyType(
                {k: field_dtype(t, f"{name}.vertex_data['{k}']") for k, t in vdecl.items()}
            ),
            edge_fields=MappingProxyType(
                {k: field_dtype(t, f"{name}.edge_data['{k}']") for k, t in edecl.items()}
            ),
            gather_type=field_dtype(gather_decl(program.gather_type), f"{name}.gather_type"),
            gather_slots=isinstance(program.gather_type, Slots),
        )

    def uses(self, method: str) -> Access:
        """The ``(role, field)`` pairs ``method`` reads or writes (empty if not defined)."""
        return self.reads.get(method, frozenset()) | self.writes.get(method, frozenset())

    def names_in(self, methods: tuple[str, ...] | None = None) -> frozenset[str]:
        """Every name the code of ``methods`` (default: all defined methods) uses."""
        pick = self.methods if methods is None else methods
        return frozenset().union(*(self.names.get(m, frozenset()) for m in pick))

    @property
    def atomic_calls(self) -> list[str]:
        """The atomic calls (``X.fetch_add``, ``X.compare_swap``) the methods make, sorted: what
        the engines that cannot run them (several processes, the GPU) look for."""
        return sorted(set(ATOMIC_METHODS) & self.names_in())

    def all_writes(self) -> frozenset[tuple[str, str, str]]:
        """``(method, role, field)`` for every assignment to a field of ``v``, ``nbr`` or ``e``."""
        return frozenset((m, r, f) for m, w in self.writes.items() for r, f in w)

    @property
    def has_priority(self) -> bool:
        """True if the program defines ``priority(v)`` (a vertex with priority > 0 is scheduled)."""
        return "priority" in self.methods

    @property
    def reads_vid(self) -> bool:
        """True if a method other than ``priority`` names ``vid`` (the runtime then numbers a
        worker's vertices globally)."""
        return "vid" in self.names_in(_RUNTIME_METHODS)

    @property
    def mirror_fields(self) -> tuple[str, ...]:
        """The vertex fields a mirror must receive from its master: those ``gather``, ``sum``
        or ``scatter`` name (mirrors run no apply and no aggregate). A name counts even when the
        code uses it for something else (a conservative over-estimate)."""
        used = self.names_in(_MIRROR_METHODS)
        return tuple(f for f in self.vertex_fields if f in used)

    @property
    def order_free(self) -> bool:
        """True when the order a worker visits its vertices in cannot change the result.

        That holds when no method can write another vertex's or an edge's data: only scalar
        vertex fields (an array field can be handed to a helper that writes it, as SGD's gather
        does with the item's vector), no edge fields of its own, and no method other than
        ``priority`` assigns to ``nbr`` or ``e``.
        """
        if self.edge_fields or any(t.shape for t in self.vertex_fields.values()):
            return False
        return not any(
            r in ("e", "nbr") for m in _RUNTIME_METHODS for r, _ in self.writes.get(m, frozenset())
        )

    @property
    def layout(self) -> str:
        """The vertex numbering a worker of the process runtime uses: ``"global"`` if a method
        reads ``vid``, ``"masters_first"`` if the program is order-free, else ``"sorted"``."""
        if self.reads_vid:
            return "global"
        return "masters_first" if self.order_free else "sorted"

    @property
    def consistency_needed(self) -> str:
        """The weakest consistency model this program is safe under (see ``gas.async_engine``):
        ``"full"`` if a method writes a neighbour, ``"edge"`` if one writes an edge, else
        ``"vertex"``."""
        roles = {r for _, r, _ in self.all_writes()}
        return "full" if "nbr" in roles else ("edge" if "e" in roles else "vertex")

    def write_sites(self, role: str) -> list[str]:
        """``method: role.field`` for each write to the parameter ``role`` (``"nbr"`` or ``"e"``)."""
        return sorted(f"{m}: {r}.{f}" for m, r, f in self.all_writes() if r == role)

    @property
    def gather_nbr_fields(self) -> frozenset[str] | None:
        """The vertex fields ``gather`` uses on ``nbr``, if it uses none of them on ``v``, not
        ``nbr.vid`` and no array field there (else None): then its neighbour reads may come from
        copies of those columns in another vertex order (the relabelled cache-blocked layout,
        ``gas._segments``). An array field is excluded because ``gather`` may hand it to a helper
        that writes it, and the write would land in the copy."""
        refs = self.uses("gather")
        nbr = {f for r, f in refs if r == "nbr"}
        mine = {f for r, f in refs if r == "v"}
        if "vid" in nbr or "nbrs" in nbr or nbr & mine or any(r == "nbr" for _, r, _ in self.all_writes()):
            return None
        if any(self.vertex_fields[f].shape for f in nbr if f in self.vertex_fields):
            return None
        return frozenset(nbr)


# ---------------------------------------------------------------------- checks for validate
# What gas.program.validate checks on a program's methods and attributes, and the records it
# makes from them: the methods' parameters (with the optional last ctx of gather and scatter),
# the numpy-array attributes the methods read, the parameter record of the numeric attributes
# and the labels a checked build gives an array gather total.


def program_attributes(program: Any, base: type) -> dict[str, Any]:
    """The public attributes of the instance and of its classes below ``base`` (the instance's
    and a subclass's settings win over a superclass's)."""
    found: dict[str, Any] = {}
    for cls in reversed(type(program).__mro__):
        if cls in (object, base):
            continue
        found.update({k: v for k, v in vars(cls).items() if not k.startswith("_")})
    found.update(vars(program))
    return found


def array_fields(program: Any, used: frozenset[str], base: type) -> dict[str, np.ndarray]:
    """The numpy-array attributes of the instance (and its classes below ``base``) that the
    methods name (``used``), each checked: numeric or bool, 1 or 2 dimensions."""
    found = program_attributes(program, base)
    cls_name = type(program).__name__
    out: dict[str, np.ndarray] = {}
    for k, v in found.items():
        if not isinstance(v, np.ndarray) or k not in used:
            continue
        if v.dtype.kind not in "biuf" or v.dtype.fields is not None or v.ndim not in (1, 2):
            raise ProgramError(
                f"{cls_name}.{k} is a numpy array of dtype {v.dtype} and shape {v.shape}; compiled "
                f"methods read only numeric or bool arrays of 1 or 2 dimensions. Fix: set "
                f"self.{k} = np.asarray(..., dtype=np.float64) (or an integer dtype) in __init__"
            )
        out[k] = v
    return out


def param_dtype(params: dict[str, Any], checked: bool = False) -> np.dtype:
    """The parameter record: one field per numeric attribute, plus where a checked build's
    bounds checks record a failure (:data:`gas._boundscheck.ERROR_FIELDS`)."""

    def kind(v: Any) -> Any:
        if isinstance(v, (bool, np.bool_)):
            return np.bool_
        if isinstance(v, (float, np.floating)):
            return np.float64
        return np.int64

    fields = [(k, kind(v)) for k, v in params.items() if not (checked and k.startswith("_gas_"))]
    if checked:
        from gas._boundscheck import ERROR_FIELDS

        fields += list(ERROR_FIELDS)
    return np.dtype(fields or [("_", np.uint8)])


def check_labels(method: str, names: tuple[str, ...], gt: np.dtype) -> tuple[str, ...]:
    """Descriptions of the parameters of ``method`` that hold an array gather total."""
    if not gt.shape:
        return ()
    shape = gt.shape if len(gt.shape) > 1 else gt.shape[0]
    acc = f"the gather total '{{}}' (gather_type ({gt.base.name}, {shape}))"
    arrays = {"gather": ("acc",), "sum": ("a", "b"), "apply": ("total",)}.get(method, ())
    return tuple(acc if n in arrays else "" for n in names)


def check_signatures(program: Any, cls_name: str, fns: dict[str, Any], gt: np.dtype) -> None:
    """Every defined method takes the parameters the engine passes; ``converged`` is a method."""
    methods = method_table(gt)
    for name, fn in fns.items():
        if fn is None:
            continue
        want = methods[name][0]
        n_params = len(inspect.signature(fn).parameters)
        if n_params != len(want) + 1 and not (name in CTX_OPTIONAL and n_params == len(want) + 2):
            hint = ""
            if name == "gather" and gt.shape:
                hint = f" (gather_type {program.gather_type!r} is an array, so gather adds into acc)"
            elif name == "gather" and n_params == len(ARRAY_METHODS["gather"][0]) + 1:
                hint = " (the acc form is for an array gather_type such as (np.float64, 4))"
            also = f" (or {len(want) + 2} with ctx)" if name in CTX_OPTIONAL else ""
            raise ProgramError(
                f"{cls_name}.{name} takes {n_params} parameters; expected {len(want) + 1}{also}: "
                f"{methods[name][1]}{hint}"
            )
        if name == "gather" and not gt.shape and n_params == len(want) + 2:
            last = list(inspect.signature(fn).parameters)[-1]
            if last == "acc":  # the array form's accumulator, not a context
                raise ProgramError(
                    f"{cls_name}.gather takes a parameter 'acc', the accumulator of an array gather_type "
                    f"such as (np.float64, 4); with gather_type {program.gather_type!r} it returns its "
                    f"value: {methods[name][1]} (a fifth parameter is the run's context, ctx)"
                )
    conv = getattr(type(program), "converged", None)
    if conv is not None and not callable(conv):
        raise ProgramError(f"{cls_name}.converged must be a method converged(self, ctx) -> bool")


def method_table(gt: np.dtype) -> dict[str, tuple[tuple[str, ...], str]]:
    """The methods' parameters and signatures for a program with gather type ``gt``."""
    return {**METHODS, **ARRAY_METHODS} if gt.shape else METHODS


def native_dtype(dt: np.dtype) -> np.dtype:
    """``dt`` in the machine's byte order (compiled code reads only that)."""
    return dt.newbyteorder("=") if dt.byteorder not in ("=", "|") else dt


def takes_ctx(name: str, fn: Any, gt: np.dtype) -> bool:
    """True if method ``name`` (the function ``fn``) takes the run's context as one more, last
    parameter (``gather(self, v, e, nbr, ctx)``; :data:`CTX_OPTIONAL`).

    Examples
    --------
    >>> def gather(self, v, e, nbr, ctx):
    ...     return ctx.iteration
    >>> takes_ctx("gather", gather, np.dtype(np.float64))
    True
    >>> takes_ctx("gather", gather, np.dtype((np.float64, 2)))  # the array form: that is acc
    False
    """
    want = method_table(gt)[name][0]
    return name in CTX_OPTIONAL and len(inspect.signature(fn).parameters) == len(want) + 2
