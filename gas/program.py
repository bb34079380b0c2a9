"""The vertex-program interface (PowerGraph's Gather-Apply-Scatter) and its validation.

A program is a subclass of :class:`VertexProgram` that declares its vertex fields and edge
directions and defines plain-Python scalar methods. The engine compiles those methods with Numba
and binds them into its generic kernels; :func:`validate` checks a program when an engine is built
so that mistakes surface as :class:`gas.ProgramError` naming the method and the fix, never as a
Numba traceback.

Methods a program may define (``self`` holds the numeric attributes set in ``__init__``;
``v`` and ``nbr`` are vertex records, ``e`` an edge record, ``ctx`` the superstep context)::

    init(self, v, ctx)              set initial vertex data (default: zeros)
    gather(self, v, e, nbr) -> T    one edge's contribution, of type ``gather_type``
    sum(self, a, b) -> T            combine two contributions (default ``a + b``)
    gather(self, v, e, nbr, acc)    with an array ``gather_type``: add the edge's contribution
                                    into the accumulator ``acc`` in place (returns nothing)
    sum(self, a, b)                 with an array ``gather_type``: fold ``b`` into ``a`` in place
    apply(self, v, total, ctx)      update ``v`` from the gathered total (required)
    scatter(self, v, e, nbr) -> bool  may write ``e``; True (or a number > 0: a priority)
                                    signals ``nbr``; writing ``nbr`` needs the asynchronous
                                    engine with ``consistency="full"``
    aggregate(self, v) -> float or tuple   one value per name in ``aggregates``
    priority(self, v) -> float      the vertex's own claim to run, from its data: > 0 schedules
                                    it as a signal of that priority would (no per-edge signal
                                    needed; see ``gas.async_engine``)
    converged(self, ctx) -> bool    plain Python, after each superstep: True stops the run

Vertex records carry the declared ``vertex_data`` fields plus, when a method reads them, the
read-only ``vid`` (the internal vertex id), ``out_degree`` and ``in_degree``. Edge records carry
the graph's edge columns (such as ``weight``) and the declared ``edge_data`` fields. ``ctx`` has
``iteration``, ``num_vertices``, ``num_edges`` and one field per declared aggregate (its value
after the previous superstep).

Fields may be small fixed-size arrays: ``vertex_data = {"w": (np.float64, 8)}`` makes ``v.w`` a
length-8 view of the vertex's row (``v.w[k] = x`` writes it). An array ``gather_type`` such as
``(np.float64, (k, k))`` accumulates into a per-vertex array in place, so gathering a vector or a
small matrix per edge allocates nothing.

Bounds checks: by default (``checked = True``) every integer index a method writes, ``acc[j]``,
``v.x[j]``, ``e.w[i, j]`` or into a local array, is checked against the array's length, compiled
or not. An index outside ``-n..n-1`` (Python's rule: ``-1`` is the last element) stops the run
with a :class:`gas.ProgramError` naming the method, the line and the index, instead of reading or
writing past the end. Setting ``checked = False`` on the class (or passing ``checked=False`` to
the engine) compiles the methods without the checks, as the bundled, tested programs do: an
index out of range then reads or corrupts memory silently. Arrays indexed inside compiled
helper functions a method calls are not checked (set ``NUMBA_BOUNDSCHECK=1`` to check those).
"""

from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from gas.errors import ProgramError

if TYPE_CHECKING:
    from gas._boundscheck import BoundsChecks

__all__ = ["EdgeDir", "IN", "OUT", "ALL", "NONE", "VertexProgram", "ProgramSpec", "validate"]


class EdgeDir(enum.IntEnum):
    """Which edges of a vertex a phase visits."""

    NONE = 0
    IN = 1
    OUT = 2
    ALL = 3


IN, OUT, ALL, NONE = EdgeDir.IN, EdgeDir.OUT, EdgeDir.ALL, EdgeDir.NONE

BUILTIN_VERTEX_FIELDS = {
    "vid": np.dtype(np.int64),
    "out_degree": np.dtype(np.int64),
    "in_degree": np.dtype(np.int64),
}
AGG_OPS = {"sum": 0, "max": 1, "min": 2}

# method name -> (parameter names after self, signature shown in error messages)
_METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "init": (("v", "ctx"), "init(self, v, ctx)"),
    "gather": (("v", "e", "nbr"), "gather(self, v, e, nbr) -> gather_type"),
    "sum": (("a", "b"), "sum(self, a, b) -> gather_type"),
    "apply": (("v", "total", "ctx"), "apply(self, v, total, ctx)"),
    "scatter": (("v", "e", "nbr"), "scatter(self, v, e, nbr) -> bool"),
    "aggregate": (("v",), "aggregate(self, v) -> float or tuple of float"),
    "priority": (("v",), "priority(self, v) -> float"),
}
# the same for programs whose gather_type is an array: gather and sum work in place
_ARRAY_METHODS = {
    "gather": (("v", "e", "nbr", "acc"), "gather(self, v, e, nbr, acc) (adds into acc in place)"),
    "sum": (("a", "b"), "sum(self, a, b) (folds b into a in place)"),
}
# what each positional parameter is: vertex record, edge record, context, or a plain value
_ROLES = {"v": "vertex", "nbr": "vertex", "e": "edge", "ctx": "ctx"}


class VertexProgram:
    """Base class of vertex programs; subclass it and override the methods you need.

    Class attributes
    ----------------
    vertex_data : dict of str to dtype
        Per-vertex fields, e.g. ``{"rank": np.float64}``; ``(np.float64, 8)`` declares a
        fixed-size array field (set it on the instance in ``__init__`` when the size is a
        run-time choice).
    edge_data : dict of str to dtype
        Per-edge fields a program adds (written by ``scatter``); graph edge columns such as
        ``weight`` are available without declaring them. Array fields as for ``vertex_data``.
    gather_edges, scatter_edges : EdgeDir
        ``IN``, ``OUT``, ``ALL`` or ``NONE`` (defaults ``IN`` and ``NONE``).
    gather_type : numpy scalar type, or (scalar type, shape)
        Type of ``gather``'s result and of the total passed to ``apply`` (default float64). With
        a shape, e.g. ``(np.float64, (4, 4))``, the total is an array and ``gather`` adds into it
        in place: ``gather(self, v, e, nbr, acc)``.
    gather_zero : number
        The total of a vertex with no edges to gather over; the identity of ``sum`` (for an
        array ``gather_type``, every element starts from it).
    dynamic : bool
        True (default): only signalled vertices run in the next superstep. False: every vertex
        runs every superstep until ``converged`` says so or ``max_iter`` is reached.
    aggregates : dict of str to {"sum", "max", "min"}
        Global map-reduce over all vertices after every superstep, visible as ``ctx.<name>``.
    output : str
        The vertex field returned as the result array by :func:`gas.run` (default: the first).
    checked : bool
        True (default): bounds-check the methods' array indexing (see the module docstring).
        False: compile without the checks (a trusted, tested program; slightly faster).

    Examples
    --------
    A user-written PageRank (networkx's normalization; dangling mass spread evenly):

    >>> import numpy as np, gas
    >>> class MyPageRank(gas.VertexProgram):
    ...     vertex_data = {"rank": np.float64, "change": np.float64}
    ...     gather_edges = gas.IN
    ...     dynamic = False
    ...     aggregates = {"dangling": "sum", "change": "sum"}
    ...     def __init__(self, alpha=0.85, tol=1e-10):
    ...         self.alpha, self.tol = alpha, tol
    ...     def init(self, v, ctx):
    ...         v.rank = 1.0 / ctx.num_vertices
    ...     def gather(self, v, e, nbr):
    ...         return nbr.rank / nbr.out_degree
    ...     def apply(self, v, total, ctx):
    ...         n = ctx.num_vertices
    ...         new = (1.0 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
    ...         v.rank, v.change = new, abs(new - v.rank)
    ...     def aggregate(self, v):
    ...         return (v.rank if v.out_degree == 0 else 0.0), v.change
    ...     def converged(self, ctx):
    ...         return ctx.iteration > 0 and ctx.change < ctx.num_vertices * self.tol
    >>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
    >>> res = gas.run(g, MyPageRank(), max_iter=100)
    >>> np.round(res.output, 6).tolist()
    [0.333333, 0.333333, 0.333333]
    """

    vertex_data: dict[str, Any] = {}
    edge_data: dict[str, Any] = {}
    gather_edges: EdgeDir = IN
    scatter_edges: EdgeDir = NONE
    gather_type: Any = np.float64
    gather_zero: Any = 0
    dynamic: bool = True
    aggregates: dict[str, str] = {}
    output: str | None = None
    checked: bool = True


@dataclass
class ProgramSpec:
    """Everything the engine needs about a validated program (columns, functions, flags).

    ``vertex_columns`` / ``edge_columns`` list ``(name, dtype)`` in the order of the column
    tuples ``_VC`` / ``_EC`` the rewritten methods index; ``functions`` maps method names to
    the rewritten functions ``f(self, _VC, _EC, ...)``.
    """

    program: VertexProgram
    name: str
    vertex_columns: list[tuple[str, np.dtype]]
    builtin_columns: list[str]
    edge_columns: list[tuple[str, np.dtype]]
    graph_edge_fields: list[str]
    param_dtype: np.dtype
    ctx_dtype: np.dtype
    gather_type: np.dtype
    gather_zero: Any
    gather_shape: tuple[int, ...]
    functions: dict[str, Any]
    originals: dict[str, Any]
    agg_names: list[str]
    agg_ops: tuple[int, ...]
    output: str
    writes: frozenset[tuple[str, str, str]] = frozenset()
    gather_refs: frozenset[tuple[str, str]] = frozenset()
    checks: BoundsChecks | None = None  # the index checks compiled in; None: an unchecked build

    @property
    def checked(self) -> bool:
        """True if the methods were rewritten with bounds checks."""
        return self.checks is not None

    @cached_property
    def gather_nbr_fields(self) -> frozenset[str] | None:
        """The vertex fields ``gather`` uses on ``nbr``, if it uses none of them on ``v``, not
        ``nbr.vid`` and no array field there (else None): then its neighbour reads may come from
        copies of those columns in another vertex order (the relabelled cache-blocked layout,
        ``gas._segments``). An array field is excluded because ``gather`` may hand it to a helper
        that writes it, and the write would land in the copy."""
        nbr = {f for r, f in self.gather_refs if r == "nbr"}
        mine = {f for r, f in self.gather_refs if r == "v"}
        dtypes = dict(self.vertex_columns)
        if "vid" in nbr or nbr & mine or any(r == "nbr" for _, r, _ in self.writes):
            return None
        if any(np.dtype(dtypes[f]).shape for f in nbr if f in dtypes):
            return None
        return frozenset(nbr)

    @property
    def consistency_needed(self) -> str:
        """The weakest consistency model this program is safe under (see ``gas.async_engine``):
        ``"full"`` if a method writes a neighbour, ``"edge"`` if one writes an edge, else
        ``"vertex"``."""
        roles = {w[1] for w in self.writes}
        return "full" if "nbr" in roles else ("edge" if "e" in roles else "vertex")

    @property
    def schedules_itself(self) -> bool:
        """True if the program defines ``priority(v)`` (a vertex with priority > 0 is scheduled)."""
        return "priority" in self.functions

    def write_sites(self, role: str) -> list[str]:
        """``method: role.field`` for each write to the parameter ``role`` (``"nbr"`` or ``"e"``)."""
        return sorted(f"{m}: {r}.{f}" for m, r, f in self.writes if r == role)

    @property
    def gather_base(self) -> np.dtype:
        """The scalar type of the gather total (its element type for an array gather)."""
        return self.gather_type.base

    @property
    def vertex_dtype(self) -> np.dtype:
        return np.dtype([(k, t) for k, t in self.vertex_columns if k not in self.builtin_columns])

    def params(self) -> np.ndarray:
        """The program's numeric attributes as a 1-element structured array."""
        arr = np.zeros(1, self.param_dtype)
        for name in self.param_dtype.names or ():
            if name != "_" and not name.startswith("_gas_"):
                arr[0][name] = getattr(self.program, name)
        return arr


def _overridden(program: VertexProgram, name: str) -> Any:
    fn = getattr(type(program), name, None)
    base = getattr(VertexProgram, name, None)
    if fn is None or fn is base:
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


def _scalar_dtype(value: Any, what: str) -> np.dtype:
    try:
        dt = np.dtype(value)
    except TypeError:
        raise ProgramError(
            f"Expected {what} to be a numpy scalar type such as np.float64 (got {value!r})"
        ) from None
    if dt.kind not in "biuf" or dt.shape:
        raise ProgramError(f"Expected {what} to be a numeric or bool scalar type (got {dt})")
    return dt


def _field_dtype(value: Any, what: str) -> np.dtype:
    """A scalar type, or a ``(scalar type, shape)`` pair for a fixed-size array field."""
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
        bt = _scalar_dtype(base, what)
        return np.dtype((bt, tuple(int(d) for d in shape)))
    if isinstance(value, np.dtype) and value.shape:
        return _field_dtype((value.base, value.shape), what)
    return _scalar_dtype(value, what)


def _accesses(
    fn: Any, method: str, canonical: tuple[str, ...]
) -> tuple[set[tuple[str, str, str]], set[tuple[str, str]]]:
    """``(writes, refs)`` of a method. ``writes``: ``(method, role, field)`` for every assignment
    to ``<param>.<field>`` (also through an index, ``nbr.w[k] = x``, or an augmented assignment);
    ``refs``: ``(role, field)`` for every use of ``<param>.<field>``, read or written. The role is
    the canonical name of the parameter (``v``, ``e``, ``nbr``)."""
    import ast
    import textwrap

    from gas._rewrite import parse_source

    try:
        tree = parse_source(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return set(), set()
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        return set(), set()
    names = [a.arg for a in fdef.args.args][1:]
    role_of = dict(zip(names, canonical))
    writes: set[tuple[str, str, str]] = set()

    def target(t: ast.AST) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            for x in t.elts:
                target(x)
            return
        while isinstance(t, ast.Subscript):
            t = t.value
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in role_of:
            writes.add((method, role_of[t.value.id], t.attr))

    refs: set[tuple[str, str]] = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            target(node.target)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in role_of:
                refs.add((role_of[node.value.id], node.attr))
    return writes, refs


def _param_fields(program: VertexProgram) -> dict[str, Any]:
    """Numeric attributes of the instance and its class (not the base class's settings)."""
    out: dict[str, Any] = {}
    for cls in reversed(type(program).__mro__):
        if cls in (object, VertexProgram):
            continue
        out.update({k: v for k, v in vars(cls).items() if not k.startswith("_")})
    out.update(vars(program))
    numeric = (bool, int, float, np.bool_, np.integer, np.floating)
    skip = set(vars(VertexProgram))
    return {
        k: v
        for k, v in out.items()
        if isinstance(v, numeric) and not isinstance(v, EdgeDir) and (k in vars(program) or k not in skip)
    }


def _param_dtype(params: dict[str, Any], checked: bool = False) -> np.dtype:
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


def _check_labels(method: str, names: tuple[str, ...], gt: np.dtype) -> tuple[str, ...]:
    """Descriptions of the parameters of ``method`` that hold an array gather total."""
    if not gt.shape:
        return ()
    shape = gt.shape if len(gt.shape) > 1 else gt.shape[0]
    acc = f"the gather total '{{}}' (gather_type ({gt.base.name}, {shape}))"
    arrays = {"gather": ("acc",), "sum": ("a", "b"), "apply": ("total",)}.get(method, ())
    return tuple(acc if n in arrays else "" for n in names)


def validate(program: Any, graph: Any, checked: bool | None = None) -> ProgramSpec:
    """Check a program against a graph and describe it for the engine.

    ``checked`` (default: the program's ``checked`` attribute) rewrites the methods with bounds
    checks on their array indexing.

    Raises
    ------
    ProgramError
        Naming the method at fault and the fix.
    """
    from gas._boundscheck import BoundsChecks, MethodChecks
    from gas._rewrite import rewrite_method

    if isinstance(program, type):
        raise ProgramError(
            f"Expected a vertex program instance (got the class {program.__name__}); "
            f"pass {program.__name__}() instead"
        )
    if not isinstance(program, VertexProgram):
        raise ProgramError(f"Expected a gas.VertexProgram subclass instance (got {type(program).__name__})")
    cls_name = type(program).__name__
    for attr in ("gather_edges", "scatter_edges"):
        val = getattr(program, attr)
        if not isinstance(val, (int, EdgeDir)) or int(val) not in (0, 1, 2, 3):
            raise ProgramError(
                f"Expected {cls_name}.{attr} to be gas.IN, gas.OUT, gas.ALL or gas.NONE (got {val!r})"
            )

    fns = {name: _overridden(program, name) for name in _METHODS}
    if fns["apply"] is None:
        raise ProgramError(f"{cls_name} has no apply method. Fix: define {_METHODS['apply'][1]}")
    if program.gather_edges != NONE and fns["gather"] is None:
        raise ProgramError(
            f"{cls_name} gathers over {EdgeDir(program.gather_edges).name} edges but has no gather "
            f"method. Fix: define {_METHODS['gather'][1]}, or set gather_edges = gas.NONE"
        )
    if program.scatter_edges != NONE and fns["scatter"] is None:
        raise ProgramError(
            f"{cls_name} scatters over {EdgeDir(program.scatter_edges).name} edges but has no "
            f"scatter method. Fix: define {_METHODS['scatter'][1]}, or set scatter_edges = gas.NONE"
        )
    aggs = dict(program.aggregates or {})
    if aggs and fns["aggregate"] is None:
        raise ProgramError(
            f"{cls_name} declares aggregates {list(aggs)} but has no aggregate method. "
            f"Fix: define {_METHODS['aggregate'][1]}"
        )
    for k, op in aggs.items():
        if op not in AGG_OPS:
            raise ProgramError(f"{cls_name}.aggregates['{k}'] must be one of {sorted(AGG_OPS)} (got {op!r})")
    gt = _field_dtype(program.gather_type, f"{cls_name}.gather_type")
    methods = {**_METHODS, **_ARRAY_METHODS} if gt.shape else _METHODS
    for name, fn in fns.items():
        if fn is None:
            continue
        want = methods[name][0]
        n_params = len(inspect.signature(fn).parameters)
        if n_params != len(want) + 1:
            hint = ""
            if name == "gather" and gt.shape:
                hint = f" (gather_type {program.gather_type!r} is an array, so gather adds into acc)"
            elif name == "gather" and n_params == len(_ARRAY_METHODS["gather"][0]) + 1:
                hint = " (the acc form is for an array gather_type such as (np.float64, 4))"
            raise ProgramError(
                f"{cls_name}.{name} takes {n_params} parameters; expected {len(want) + 1}: "
                f"{methods[name][1]}{hint}"
            )
    conv = getattr(type(program), "converged", None)
    if conv is not None and not callable(conv):
        raise ProgramError(f"{cls_name}.converged must be a method converged(self, ctx) -> bool")

    fields: dict[str, np.dtype] = {}
    for k, t in dict(program.vertex_data).items():
        if not str(k).isidentifier():
            raise ProgramError(f"{cls_name}.vertex_data field {k!r} is not a valid identifier")
        if k in BUILTIN_VERTEX_FIELDS:
            raise ProgramError(
                f"{cls_name}.vertex_data field '{k}' is built in (read-only); choose another name"
            )
        fields[k] = _field_dtype(t, f"{cls_name}.vertex_data['{k}']")
    if not fields:
        raise ProgramError(
            f"{cls_name}.vertex_data declares no fields. Fix: e.g. vertex_data = {{'value': np.float64}}"
        )
    edge_fields = {
        k: _field_dtype(t, f"{cls_name}.edge_data['{k}']") for k, t in dict(program.edge_data).items()
    }
    names_used: set[str] = set()
    for fn in fns.values():
        if fn is not None:
            names_used |= set(fn.__code__.co_names)
    builtins = [b for b in ("out_degree", "in_degree") if b in names_used]
    graph_cols = [k for k in graph.edata if k not in edge_fields and k in names_used]
    params = _param_fields(program)
    known = {
        "vertex": list(fields) + list(BUILTIN_VERTEX_FIELDS),
        "edge": list(edge_fields) + [k for k in graph.edata if k not in edge_fields],
        "ctx": ["iteration", "num_vertices", "num_edges", *aggs],
        "self": list(params),
    }
    vcols = [(k, t) for k, t in fields.items()] + [(b, BUILTIN_VERTEX_FIELDS[b]) for b in builtins]
    ecols = [(k, graph.edata[k].dtype) for k in graph_cols] + list(edge_fields.items())
    vindex = {k: i for i, (k, _) in enumerate(vcols)}
    eindex = {k: i for i, (k, _) in enumerate(ecols)}
    rewritten = {}
    writes: set[tuple[str, str, str]] = set()
    gather_refs: set[tuple[str, str]] = set()
    if checked is None:
        checked = bool(getattr(program, "checked", True))
    table = BoundsChecks() if checked else None
    for name, fn in fns.items():
        if fn is None:
            continue
        roles = tuple(_ROLES.get(a, "") for a in methods[name][0])
        mc = None
        if table is not None:
            labels = _check_labels(name, methods[name][0], gt)
            names = list(inspect.signature(fn).parameters)[1:]
            labels = tuple(lab.format(p) for lab, p in zip(labels, names))
            mc = MethodChecks(table, labels, {"vertex": fields, "edge": edge_fields}, len(gt.shape))
        rewritten[name] = rewrite_method(fn, f"{cls_name}.{name}", roles, known, vindex, eindex, mc)
        w, refs = _accesses(fn, name, methods[name][0])
        writes |= {x for x in w if x[1] in ("e", "nbr")}
        if name == "gather":
            gather_refs = refs
    out = program.output or next(iter(fields))
    if out not in fields:
        raise ProgramError(f"{cls_name}.output = {out!r} is not a vertex_data field ({list(fields)})")
    return ProgramSpec(
        program=program,
        name=cls_name,
        vertex_columns=vcols,
        builtin_columns=builtins,
        edge_columns=ecols,
        graph_edge_fields=graph_cols,
        param_dtype=_param_dtype(params, checked),
        ctx_dtype=np.dtype(
            [("iteration", np.int64), ("num_vertices", np.int64), ("num_edges", np.int64)]
            + [(k, np.float64) for k in aggs]
        ),
        gather_type=gt,
        gather_zero=gt.base.type(program.gather_zero),
        gather_shape=tuple(gt.shape),
        functions=rewritten,
        originals={k: v for k, v in fns.items() if v is not None},
        agg_names=list(aggs),
        agg_ops=tuple(AGG_OPS[o] for o in aggs.values()),
        output=out,
        writes=frozenset(writes),
        gather_refs=frozenset(gather_refs),
        checks=table,
    )
