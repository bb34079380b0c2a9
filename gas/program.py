"""The vertex-program interface (PowerGraph's Gather-Apply-Scatter) and its validation.

A program is a subclass of :class:`VertexProgram` that declares its vertex fields and edge
directions and defines plain-Python scalar methods. The engine compiles those methods with Numba
and binds them into its generic kernels; :func:`validate` checks a program when an engine is built
so that mistakes surface as :class:`gas.ProgramError` naming the method and the fix, never as a
Numba traceback.

The methods a program may define, each with its signature and contract, are listed in the
:class:`VertexProgram` docstring (``help(gas.VertexProgram)``).

Vertex records carry the declared ``vertex_data`` fields plus, when a method reads them, the
read-only ``vid`` (the internal vertex id), ``out_degree``, ``in_degree`` and ``nbrs`` (the sorted
out-neighbour ids); a method's own vertex ``v`` also answers ``v.has_nbr(w)`` in O(1), and ``scatter`` may
change a field of ``nbr`` or ``v`` atomically (``nbr.fetch_add("f", x)``, ``nbr.compare_swap("f", old, new)``,
:mod:`gas._rewrite_atomics`). Edge records carry
the graph's edge columns (such as ``weight``) and the declared ``edge_data`` fields. ``ctx`` has
``iteration``, ``num_vertices``, ``num_edges`` and one field per declared aggregate (its value
after the previous superstep); ``gather`` and ``scatter`` see the same values as that
superstep's ``apply`` (PowerGraph's context is available in every phase).

Program attributes: numbers (``self.alpha = 0.85``) and numpy arrays of a numeric or bool dtype
with 1 or 2 dimensions (``self.weights = np.asarray(w)``, read as ``self.weights[v.vid]`` or
``self.m[i, j]``), as set in ``__init__``. They are read-only inside the methods: an assignment
to ``self.<name>`` or into it (``self.weights[i] = x``) raises :class:`gas.ProgramError` when the
engine is built, and the arrays reach compiled code as read-only views. An array is a kernel
argument (it follows the vertex columns in the column tuple, see :mod:`gas._rewrite`), never a
constant compiled into the kernels: a second instance whose arrays have the same dtypes and
dimensions, whatever their lengths and values, reuses the compiled kernels. The values are
those of the attribute when the engine is built. Other arrays (strings, objects, 3 or more
dimensions) raise :class:`gas.ProgramError` naming the attribute when a method reads them.
Array attributes run on every engine on one process; ``procs > 1`` refuses them with a
:class:`gas.GasError` naming the attribute (a program travels to its workers as JSON).

Fields may be small fixed-size arrays: ``vertex_data = {"w": (np.float64, 8)}`` makes ``v.w`` a
length-8 view of the vertex's row (``v.w[k] = x`` writes it). An array ``gather_type`` such as
``(np.float64, (k, k))`` accumulates into a per-vertex array in place, so gathering a vector or a
small matrix per edge allocates nothing.

Bounds checks: by default (``checked = True``) every integer index a method writes, ``acc[j]``,
``v.x[j]``, ``e.w[i, j]`` or into a local array, is checked against the array's length, compiled or
not. An index outside ``-n..n-1`` (Python's rule: ``-1`` is the last element) stops the run with a
:class:`gas.ProgramError` naming the method, the line and the index, instead of reading or writing
past the end. Setting ``checked = False`` on the class (or passing ``checked=False`` to the engine)
compiles the methods without the checks, as the bundled, tested programs do: an index out of range
then reads or corrupts memory silently. Reads of array attributes (``self.w[i]``) are checked too;
indexing inside compiled helpers is not (``NUMBA_BOUNDSCHECK=1`` checks those).
"""

from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gas._rewrite_atomics import ATOMIC_METHODS
from gas._rewrite_memo import rewrite_once
from gas.errors import ProgramError
from gas.program_spec import (
    METHODS,
    ProgramSpec,
    Slots,
    array_fields,
    check_labels,
    check_signatures,
    field_dtype,
    gather_decl,
    method_table,
    native_dtype,
    overridden,
    param_dtype,
    program_attributes,
    takes_ctx,
)

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
#: ``v.has_nbr(w)``: whether ``w`` is in ``v.nbrs``, in O(1) from a per-thread table of marks
HAS_NBR, NBR_MARKS = "has_nbr", "_nbr_marks"
_CALLS = (NBRS, HAS_NBR, *ATOMIC_METHODS)  # names on a vertex besides its fields (X.fetch_add: scatter)
AGG_OPS = {"sum": 0, "max": 1, "min": 2}

# what each positional parameter is: vertex record, edge record, context, or a plain value
_ROLES = {"v": "vertex", "nbr": "vertex", "e": "edge", "ctx": "ctx"}


class VertexProgram:
    """Base class of vertex programs; subclass it and override the methods you need.

    Methods
    -------
    Define the ones the program needs (``self``: the ``__init__`` attributes; ``v``, ``nbr``: vertex
    records, ``e``: an edge record, ``ctx``: the superstep context; their fields: module docstring)::

        init(self, v, ctx)              set initial vertex data (default: zeros)
        gather(self, v, e, nbr) -> T    one edge's contribution, of type ``gather_type``
        gather(self, v, e, nbr, ctx) -> T   the same, reading the run's context
        sum(self, a, b) -> T            combine two contributions (default ``a + b``)
        gather(self, v, e, nbr, acc[, ctx])  with an array ``gather_type``: add the edge's
                                        contribution into the accumulator ``acc`` in place
                                        (returns nothing)
        sum(self, a, b)                 with an array ``gather_type``: fold ``b`` into ``a`` in place
        apply(self, v, total, ctx)      update ``v`` from the gathered total (required)
        scatter(self, v, e, nbr[, ctx]) -> bool  may write ``e``; True (or a number > 0: a
                                        priority) signals ``nbr``; writing ``nbr`` needs the
                                        asynchronous engine with ``consistency="full"``
        aggregate(self, v) -> float or tuple   one value per name in ``aggregates``
        priority(self, v) -> float      the vertex's own claim to run, from its data: > 0 schedules
                                        it as a signal of that priority would (no per-edge signal
                                        needed; see ``gas.async_engine``)
        converged(self, ctx) -> bool    plain Python, after each superstep: True stops the run

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
    inner_steps, fastmath : int, bool
        Gather-apply rounds per superstep (1); reordered float sums (False): :mod:`gas.engine_steps`.

    Instance attributes set in ``__init__`` are visible in the methods as ``self.<name>``:
    numbers, and numeric or bool numpy arrays of 1 or 2 dimensions (per-vertex inputs such as
    ``self.weights[v.vid]``). They are read-only there (see the module docstring).

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

    A per-vertex input as a numpy array attribute (read-only in the methods, indexed by
    internal vertex id) and a ``gather`` that reads the run's context: each superstep adds the
    in-neighbours' weights times ``iteration + 1``.

    >>> class Weighted(gas.VertexProgram):
    ...     vertex_data = {"x": np.float64}
    ...     dynamic = False
    ...     def __init__(self, weights):
    ...         self.weights = np.asarray(weights, dtype=np.float64)
    ...     def gather(self, v, e, nbr, ctx):
    ...         return self.weights[nbr.vid] * (ctx.iteration + 1)
    ...     def apply(self, v, total, ctx):
    ...         v.x += total
    >>> gas.run(g, Weighted([1.0, 2.0, 4.0]), max_iter=2).output.tolist()  # 3 * in-neighbour's
    [12.0, 3.0, 6.0]
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
    inner_steps: int = 1
    fastmath: bool | set[str] = False


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
    #: the numpy-array attributes the methods read, ``(name, element dtype, ndim)``: they follow the
    #: vertex columns in ``_VC`` (``self.w`` -> ``_VC[len(vertex_columns) + i]``), read-only
    program_arrays: list[tuple[str, np.dtype, int]] = field(default_factory=list)
    #: where ``ctx`` sits in ``_VC`` when a ``gather`` or ``scatter`` takes it (after the arrays),
    #: else None; those methods read it as ``_VC[ctx_column][0]``
    ctx_column: int | None = None
    #: where the per-thread marks of ``v.has_nbr`` sit in ``_VC`` (after ctx), else None
    marks_column: int | None = None

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

    def extra_columns(self, ctx: np.ndarray) -> tuple[np.ndarray, ...]:
        """What follows the vertex columns in the ``_VC`` tuple the kernels receive: the
        program's array attributes the methods read (C-contiguous, native byte order, read-only
        views, so a compiled method cannot write them), then ``ctx`` when a ``gather`` or
        ``scatter`` takes it (the engine's own ``ctx`` array, so it sees each superstep's
        values). Passed as kernel arguments, not compiled in: two programs whose arrays share
        element type and dimensions share the kernels."""
        out = []
        for name, dt, _ in self.program_arrays:
            arr = np.ascontiguousarray(getattr(self.program, name), dtype=dt)
            view = arr.view()
            view.flags.writeable = False
            out.append(view)
        if self.ctx_column is not None:
            out.append(ctx)
        return tuple(out)

    def params(self) -> np.ndarray:
        """The program's numeric attributes as a 1-element structured array."""
        arr = np.zeros(1, self.param_dtype)
        for name in self.param_dtype.names or ():
            if name != "_" and not name.startswith("_gas_"):
                arr[0][name] = getattr(self.program, name)
        return arr


def _param_fields(program: VertexProgram) -> dict[str, Any]:
    """Numeric attributes of the instance and its class (not the base class's settings)."""
    out = program_attributes(program, VertexProgram)
    numeric = (bool, int, float, np.bool_, np.integer, np.floating)
    skip = set(vars(VertexProgram))
    return {
        k: v
        for k, v in out.items()
        if isinstance(v, numeric) and not isinstance(v, EdgeDir) and (k in vars(program) or k not in skip)
    }


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


def _vertex_fields(program: VertexProgram, cls_name: str) -> dict[str, np.dtype]:
    """The declared vertex fields' dtypes: valid, not built-in names, at least one."""
    fields: dict[str, np.dtype] = {}
    for k, t in dict(program.vertex_data).items():
        if not str(k).isidentifier():
            raise ProgramError(f"{cls_name}.vertex_data field {k!r} is not a valid identifier")
        if k in BUILTIN_VERTEX_FIELDS or k in _CALLS:
            raise ProgramError(
                f"{cls_name}.vertex_data field '{k}' is built in (read-only); choose another name"
            )
        fields[k] = field_dtype(t, f"{cls_name}.vertex_data['{k}']")
    if not fields:
        raise ProgramError(
            f"{cls_name}.vertex_data declares no fields. Fix: e.g. vertex_data = {{'value': np.float64}}"
        )
    return fields


@dataclass
class _Layout:
    """The columns a bound program's rewritten methods index, and the names they may use."""

    vcols: list[tuple[str, np.dtype]]
    ecols: list[tuple[str, np.dtype]]
    builtins: list[str]
    graph_cols: list[str]
    known: dict[str, list[str]]
    arrays: dict[str, int]  # program array attribute -> its position in _VC
    ctx_column: int | None  # the position of ctx in _VC (a gather or scatter takes it), else None
    marks_column: int | None  # the position of v.has_nbr's marks in _VC (after ctx), else None


def _layout(
    spec: ProgramSpec,
    graph: Any,
    fields: dict[str, np.dtype],
    edge_fields: dict[str, np.dtype],
    aggs: dict[str, str],
    params: dict[str, Any],
    arrays: dict[str, np.ndarray],
    ctx_in_columns: bool,
) -> _Layout:
    """The vertex columns (declared fields, the built-ins the methods name, then the program's arrays
    and ``ctx`` when read through ``_VC``) and edge columns (the graph's named ones, then declared)."""
    names_used = spec.names_in()
    marks = HAS_NBR in names_used
    adjacency = NBRS in names_used or marks
    builtins = [
        b for b in ("out_degree", "in_degree") if b in names_used or (adjacency and b == "out_degree")
    ]
    if adjacency:  # v.nbrs: a slice of the out-neighbour column from the vertex's first out-edge
        builtins.append(NBR_START)
    graph_cols = [k for k in graph.edata if k not in edge_fields and k in names_used]
    known = {
        "vertex": list(fields) + [b for b in BUILTIN_VERTEX_FIELDS if b != NBR_START] + [*_CALLS],
        "edge": list(edge_fields) + [k for k in graph.edata if k not in edge_fields],
        "ctx": ["iteration", "num_vertices", "num_edges", *aggs],
        "self": list(params) + list(arrays),
    }
    vcols = list(fields.items()) + [(b, BUILTIN_VERTEX_FIELDS[b]) for b in builtins]
    ecols = [(k, graph.edata[k].dtype) for k in graph_cols] + list(edge_fields.items())
    if adjacency:
        ecols.append((NBR_DST, np.dtype(np.int64)))
    apos = {k: len(vcols) + i for i, k in enumerate(arrays)}
    ctx_column = len(vcols) + len(arrays) if ctx_in_columns else None
    marks_column = len(vcols) + len(arrays) + int(ctx_in_columns) if marks else None
    return _Layout(vcols, ecols, builtins, graph_cols, known, apos, ctx_column, marks_column)


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

    methods = method_table(gt)
    vindex = {k: i for i, (k, _) in enumerate(lay.vcols)}
    if lay.marks_column is not None:
        vindex[NBR_MARKS] = lay.marks_column
    eindex = {k: i for i, (k, _) in enumerate(lay.ecols)}
    table = BoundsChecks() if checked else None
    rewritten = {}
    for name, fn in fns.items():
        if fn is None:
            continue
        roles = tuple(_ROLES.get(a, "") for a in methods[name][0])
        ctx_last = takes_ctx(name, fn, gt)  # gather/scatter(..., ctx)
        if ctx_last:
            roles += ("ctx",)
        mc = None
        if table is not None:
            labels = check_labels(name, methods[name][0], gt)
            names = list(inspect.signature(fn).parameters)[1:]
            labels = tuple(lab.format(p) for lab, p in zip(labels, names))
            mc = MethodChecks(table, labels, {"vertex": fields, "edge": edge_fields}, len(gt.shape))
        rewritten[name] = rewrite_method(
            fn,
            f"{cls_name}.{name}",
            roles,
            lay.known,
            vindex,
            eindex,
            mc,
            arrays=lay.arrays,
            ctx_column=lay.ctx_column if ctx_last else None,
            vertex_dtypes=fields,
        )
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
    check_signatures(program, cls_name, fns, gt)
    fields = _vertex_fields(program, cls_name)
    edge_fields = {
        k: field_dtype(t, f"{cls_name}.edge_data['{k}']") for k, t in dict(program.edge_data).items()
    }
    spec = ProgramSpec.of(program)
    params = _param_fields(program)
    arrays = array_fields(program, spec.names_in(), VertexProgram)
    ctx_in_columns = any(fn is not None and takes_ctx(name, fn, gt) for name, fn in fns.items())
    lay = _layout(spec, graph, fields, edge_fields, aggs, params, arrays, ctx_in_columns)
    if checked is None:
        checked = bool(getattr(program, "checked", True))
    rewritten, table = rewrite_once(_rewrite_methods, fns, cls_name, gt, lay, fields, edge_fields, checked)
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
        param_dtype=param_dtype(params, checked),
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
        program_arrays=[(k, native_dtype(a.dtype), a.ndim) for k, a in arrays.items()],
        ctx_column=lay.ctx_column,
        marks_column=lay.marks_column,
    )
