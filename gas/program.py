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
from typing import TYPE_CHECKING, Any

import numpy as np

from gas.errors import ProgramError
from gas.program_spec import ARRAY_METHODS, METHODS, ProgramSpec, Slots, field_dtype, gather_decl, overridden

if TYPE_CHECKING:
    from gas._boundscheck import BoundsChecks

__all__ = ["EdgeDir", "IN", "OUT", "ALL", "NONE", "VertexProgram", "BoundProgram", "validate", "Slots"]


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
    "_nbr_start": np.dtype(np.int64),
}
#: the read-only neighbour list of a vertex: ``v.nbrs`` is its out-neighbours' ids, in the
#: graph's edge order (sorted by target); built from these two hidden columns
NBRS, NBR_START, NBR_DST = "nbrs", "_nbr_start", "_nbr_dst"
AGG_OPS = {"sum": 0, "max": 1, "min": 2}

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
        ``gas.Slots(np.int64)`` keeps each edge's value instead (``apply`` gets the vertex's
        values as an array; see :class:`gas.program_spec.Slots`).
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
class BoundProgram:
    """A validated program bound to a graph: the engine's columns, rewritten methods and flags.

    ``vertex_columns`` / ``edge_columns`` list ``(name, dtype)`` in the order of the column
    tuples ``_VC`` / ``_EC`` the rewritten methods index; ``functions`` maps method names to
    the rewritten functions ``f(self, _VC, _EC, ...)``; ``spec`` is the program's
    :class:`gas.program_spec.ProgramSpec` (what its methods read and write), whose answers the
    engines read through the properties below.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> bound = validate(PageRankProgram(), gas.Graph.from_edges([0, 1], [1, 0]))
    >>> [k for k, _ in bound.vertex_columns], bound.consistency_needed
    (['rank', 'contrib', 'change', 'out_degree'], 'vertex')
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
    spec: ProgramSpec
    checks: BoundsChecks | None = None  # the index checks compiled in; None: an unchecked build
    gather_slots: bool = False  # gather_type = Slots(...): apply gets the gather values as an array

    @property
    def checked(self) -> bool:
        """True if the methods were rewritten with bounds checks."""
        return self.checks is not None

    @property
    def gather_nbr_fields(self) -> frozenset[str] | None:
        """:attr:`gas.program_spec.ProgramSpec.gather_nbr_fields` of the program."""
        return self.spec.gather_nbr_fields

    @property
    def consistency_needed(self) -> str:
        """:attr:`gas.program_spec.ProgramSpec.consistency_needed` of the program."""
        return self.spec.consistency_needed

    @property
    def schedules_itself(self) -> bool:
        """True if the program defines ``priority(v)`` (a vertex with priority > 0 is scheduled)."""
        return self.spec.has_priority

    def write_sites(self, role: str) -> list[str]:
        """``method: role.field`` for each write to the parameter ``role`` (``"nbr"`` or ``"e"``)."""
        return self.spec.write_sites(role)

    @property
    def gather_base(self) -> np.dtype:
        """The scalar type of the gather total (its element type for an array gather)."""
        return self.gather_type.base

    @property
    def vertex_dtype(self) -> np.dtype:
        """The structured dtype of the declared vertex fields (the built-in ones left out)."""
        return np.dtype([(k, t) for k, t in self.vertex_columns if k not in self.builtin_columns])

    def params(self) -> np.ndarray:
        """The program's numeric attributes as a 1-element structured array."""
        arr = np.zeros(1, self.param_dtype)
        for name in self.param_dtype.names or ():
            if name != "_" and not name.startswith("_gas_"):
                arr[0][name] = getattr(self.program, name)
        return arr


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


def _check_instance(program: Any) -> None:
    """A :class:`VertexProgram` instance, not its class nor another object."""
    if isinstance(program, type):
        raise ProgramError(
            f"Expected a vertex program instance (got the class {program.__name__}); "
            f"pass {program.__name__}() instead"
        )
    if not isinstance(program, VertexProgram):
        raise ProgramError(f"Expected a gas.VertexProgram subclass instance (got {type(program).__name__})")


def _check_edge_dirs(program: VertexProgram, cls_name: str) -> None:
    """``gather_edges`` and ``scatter_edges`` are edge directions."""
    for attr in ("gather_edges", "scatter_edges"):
        val = getattr(program, attr)
        if not isinstance(val, (int, EdgeDir)) or int(val) not in (0, 1, 2, 3):
            raise ProgramError(
                f"Expected {cls_name}.{attr} to be gas.IN, gas.OUT, gas.ALL or gas.NONE (got {val!r})"
            )


def _check_required(program: VertexProgram, cls_name: str, fns: dict[str, Any]) -> dict[str, str]:
    """The methods the declarations need exist: apply, and gather / scatter / aggregate when the
    program gathers, scatters or declares aggregates (with known reduction operators). Returns
    the aggregates."""
    if fns["apply"] is None:
        raise ProgramError(f"{cls_name} has no apply method. Fix: define {METHODS['apply'][1]}")
    if program.gather_edges != NONE and fns["gather"] is None:
        raise ProgramError(
            f"{cls_name} gathers over {EdgeDir(program.gather_edges).name} edges but has no gather "
            f"method. Fix: define {METHODS['gather'][1]}, or set gather_edges = gas.NONE"
        )
    if program.scatter_edges != NONE and fns["scatter"] is None:
        raise ProgramError(
            f"{cls_name} scatters over {EdgeDir(program.scatter_edges).name} edges but has no "
            f"scatter method. Fix: define {METHODS['scatter'][1]}, or set scatter_edges = gas.NONE"
        )
    aggs = dict(program.aggregates or {})
    if aggs and fns["aggregate"] is None:
        raise ProgramError(
            f"{cls_name} declares aggregates {list(aggs)} but has no aggregate method. "
            f"Fix: define {METHODS['aggregate'][1]}"
        )
    for k, op in aggs.items():
        if op not in AGG_OPS:
            raise ProgramError(f"{cls_name}.aggregates['{k}'] must be one of {sorted(AGG_OPS)} (got {op!r})")
    return aggs


def _check_signatures(program: VertexProgram, cls_name: str, fns: dict[str, Any], gt: np.dtype) -> None:
    """Every defined method takes the parameters the engine passes; ``converged`` is a method."""
    methods = _method_table(gt)
    for name, fn in fns.items():
        if fn is None:
            continue
        want = methods[name][0]
        n_params = len(inspect.signature(fn).parameters)
        if n_params != len(want) + 1:
            hint = ""
            if name == "gather" and gt.shape:
                hint = f" (gather_type {program.gather_type!r} is an array, so gather adds into acc)"
            elif name == "gather" and n_params == len(ARRAY_METHODS["gather"][0]) + 1:
                hint = " (the acc form is for an array gather_type such as (np.float64, 4))"
            raise ProgramError(
                f"{cls_name}.{name} takes {n_params} parameters; expected {len(want) + 1}: "
                f"{methods[name][1]}{hint}"
            )
    conv = getattr(type(program), "converged", None)
    if conv is not None and not callable(conv):
        raise ProgramError(f"{cls_name}.converged must be a method converged(self, ctx) -> bool")


def _vertex_fields(program: VertexProgram, cls_name: str) -> dict[str, np.dtype]:
    """The declared vertex fields' dtypes: valid, not built-in names, at least one."""
    fields: dict[str, np.dtype] = {}
    for k, t in dict(program.vertex_data).items():
        if not str(k).isidentifier():
            raise ProgramError(f"{cls_name}.vertex_data field {k!r} is not a valid identifier")
        if k in BUILTIN_VERTEX_FIELDS or k == NBRS:
            raise ProgramError(
                f"{cls_name}.vertex_data field '{k}' is built in (read-only); choose another name"
            )
        fields[k] = field_dtype(t, f"{cls_name}.vertex_data['{k}']")
    if not fields:
        raise ProgramError(
            f"{cls_name}.vertex_data declares no fields. Fix: e.g. vertex_data = {{'value': np.float64}}"
        )
    return fields


def _method_table(gt: np.dtype) -> dict[str, tuple[tuple[str, ...], str]]:
    """The methods' parameters and signatures for a program with gather type ``gt``."""
    return {**METHODS, **ARRAY_METHODS} if gt.shape else METHODS


@dataclass
class _Layout:
    """The columns a bound program's rewritten methods index, and the names they may use."""

    vcols: list[tuple[str, np.dtype]]
    ecols: list[tuple[str, np.dtype]]
    builtins: list[str]
    graph_cols: list[str]
    known: dict[str, list[str]]


def _layout(
    spec: ProgramSpec,
    graph: Any,
    fields: dict[str, np.dtype],
    edge_fields: dict[str, np.dtype],
    aggs: dict[str, str],
    params: dict[str, Any],
) -> _Layout:
    """The vertex columns (declared fields, then the built-ins the methods name) and the edge
    columns (the graph's columns the methods name, then the declared edge fields)."""
    names_used = spec.names_in()
    adjacency = NBRS in names_used
    builtins = [
        b for b in ("out_degree", "in_degree") if b in names_used or (adjacency and b == "out_degree")
    ]
    if adjacency:  # v.nbrs: a slice of the out-neighbour column from the vertex's first out-edge
        builtins.append(NBR_START)
    graph_cols = [k for k in graph.edata if k not in edge_fields and k in names_used]
    known = {
        "vertex": list(fields) + [b for b in BUILTIN_VERTEX_FIELDS if b != NBR_START] + [NBRS],
        "edge": list(edge_fields) + [k for k in graph.edata if k not in edge_fields],
        "ctx": ["iteration", "num_vertices", "num_edges", *aggs],
        "self": list(params),
    }
    vcols = list(fields.items()) + [(b, BUILTIN_VERTEX_FIELDS[b]) for b in builtins]
    ecols = [(k, graph.edata[k].dtype) for k in graph_cols] + list(edge_fields.items())
    if adjacency:
        ecols.append((NBR_DST, np.dtype(np.int64)))
    return _Layout(vcols, ecols, builtins, graph_cols, known)


def _rewrite_methods(
    fns: dict[str, Any],
    cls_name: str,
    gt: np.dtype,
    lay: _Layout,
    fields: dict[str, np.dtype],
    edge_fields: dict[str, np.dtype],
    checked: bool,
) -> tuple[dict[str, Any], BoundsChecks | None]:
    """Each defined method rewritten to index the columns of ``lay`` (:mod:`gas._rewrite`), with
    bounds checks recorded in a new table when ``checked``."""
    from gas._boundscheck import BoundsChecks, MethodChecks
    from gas._rewrite import rewrite_method

    methods = _method_table(gt)
    vindex = {k: i for i, (k, _) in enumerate(lay.vcols)}
    eindex = {k: i for i, (k, _) in enumerate(lay.ecols)}
    table = BoundsChecks() if checked else None
    rewritten = {}
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
        rewritten[name] = rewrite_method(fn, f"{cls_name}.{name}", roles, lay.known, vindex, eindex, mc)
    return rewritten, table


def validate(program: Any, graph: Any, checked: bool | None = None) -> BoundProgram:
    """Check a program against a graph and bind it to the graph's columns for the engine.

    ``checked`` (default: the program's ``checked`` attribute) rewrites the methods with bounds
    checks on their array indexing. The checks run in this order, the first failure raising:
    the instance, the edge directions, the required methods and aggregates, the gather type, the
    methods' parameters, the vertex and edge fields, each method's code (:mod:`gas._rewrite`),
    the output field.

    Raises
    ------
    ProgramError
        Naming the method at fault and the fix.

    Examples
    --------
    >>> import gas
    >>> from gas.algorithms.sssp import SSSPProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 2], weights=[1.0, 2.0])
    >>> bound = validate(SSSPProgram(0), g)
    >>> bound.graph_edge_fields, sorted(bound.functions)
    (['weight'], ['apply', 'gather', 'init', 'scatter', 'sum'])
    """
    _check_instance(program)
    cls_name = type(program).__name__
    _check_edge_dirs(program, cls_name)
    fns = {name: overridden(program, name) for name in METHODS}
    aggs = _check_required(program, cls_name, fns)
    gt = field_dtype(gather_decl(program.gather_type), f"{cls_name}.gather_type")
    slots = isinstance(program.gather_type, Slots)
    if slots and fns.get("sum") is not None:
        raise ProgramError(
            f"{cls_name} keeps its gather values in slots (gather_type = {program.gather_type!r}), so "
            "it has no sum; drop sum, or use a number gather_type to sum them"
        )
    _check_signatures(program, cls_name, fns, gt)
    fields = _vertex_fields(program, cls_name)
    edge_fields = {
        k: field_dtype(t, f"{cls_name}.edge_data['{k}']") for k, t in dict(program.edge_data).items()
    }
    spec = ProgramSpec.of(program)
    params = _param_fields(program)
    lay = _layout(spec, graph, fields, edge_fields, aggs, params)
    if checked is None:
        checked = bool(getattr(program, "checked", True))
    rewritten, table = _rewrite_methods(fns, cls_name, gt, lay, fields, edge_fields, checked)
    out = program.output or next(iter(fields))
    if out not in fields:
        raise ProgramError(f"{cls_name}.output = {out!r} is not a vertex_data field ({list(fields)})")
    return BoundProgram(
        program=program,
        name=cls_name,
        vertex_columns=lay.vcols,
        builtin_columns=lay.builtins,
        edge_columns=lay.ecols,
        graph_edge_fields=lay.graph_cols,
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
        spec=spec,
        checks=table,
        gather_slots=slots,
    )
