"""Vertices and per-vertex inputs as the public entry points take them, turned into internal ids.

Every public function that takes vertices takes ORIGINAL ids (the labels in ``graph.ids``);
results are numpy arrays by internal id. The run entry points (:func:`gas.run`,
:func:`gas.runtime.local.run_distributed`, ...) convert once, here, and keep internal ids
inside:

* :func:`active_mask_of` turns ``active=`` (original ids, or a boolean mask of length
  ``num_vertices``, which is by internal position) into a boolean mask by internal id;
* :func:`vertex_inputs` turns ``init={"field": values}`` (an array by internal id, or a dict or
  pandas Series by original id) and ``init_edges={"field": array by edge id}`` into
  :class:`VertexInputs`, the values an engine writes right after the program's ``init``.

Examples
--------
>>> import gas
>>> from gas.algorithms.components import ComponentsProgram
>>> g = gas.Graph.from_edges([10, 20], [20, 30])
>>> active_mask_of(g, [30]).tolist()
[False, False, True]
>>> vertex_inputs(g, ComponentsProgram(), {"label": {20: 7}}).vertex["label"][0].tolist()
[1]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas.errors import GasError, GraphError
from gas.graph import Graph
from gas.program_spec import ProgramSpec

__all__ = ["VertexInputs", "active_mask_of", "vertex_inputs", "starting_state"]

#: rows of a field's starting values (None: every vertex, in internal id order) and the values
Rows = tuple[np.ndarray | None, np.ndarray]


def _is_pandas(x: Any) -> bool:
    """Whether ``x`` is a pandas object (told by its type's module: pandas is not imported)."""
    return type(x).__module__.split(".")[0] == "pandas"


def _id_array(ids: Any) -> np.ndarray:
    """Original ids as an array for :meth:`Graph.index_of` (text as Python strings)."""
    a = np.asarray(ids)
    return a.astype(object) if a.dtype.kind in "US" else a


def active_mask_of(graph: Any, active: Any) -> Any:
    """``active`` as a boolean mask by internal id (None stays None).

    ``active`` holds original vertex ids (``graph.ids`` labels), or is a boolean mask of length
    ``num_vertices`` (by internal position, passed through). A graph that is not a
    :class:`gas.Graph` (a partition view) has no original ids: ``active`` is returned unchanged
    (internal ids or a mask, as the engines take it).

    Raises
    ------
    GraphError
        An id that is not in the graph, or a boolean mask of the wrong length.

    Examples
    --------
    >>> import gas, networkx as nx
    >>> g = gas.Graph.from_networkx(nx.DiGraph([("a", "b"), ("b", "c")]))
    >>> active_mask_of(g, ["c", "a"]).tolist()
    [True, False, True]
    >>> active_mask_of(g, [True, False, False]).tolist()  # a mask: by internal position
    [True, False, False]
    """
    if active is None or not isinstance(graph, Graph):
        return active
    n = graph.num_vertices
    a = np.asarray(active)
    if a.dtype == np.bool_:
        if a.shape != (n,):
            raise GraphError(
                f"Expected 'active' as a boolean mask to have one entry per vertex ({n}) (got shape "
                f"{a.shape}); hint: pass original vertex ids, or a mask by internal id"
            )
        return a.copy()
    mask = np.zeros(n, np.bool_)
    if a.size:
        try:
            mask[np.atleast_1d(graph.index_of(_id_array(a.ravel())))] = True
        except GraphError as exc:
            raise GraphError(
                f"active: {exc}; hint: 'active' takes original vertex ids (graph.ids), or a boolean "
                "mask by internal id"
            ) from None
    return mask


@dataclass(frozen=True)
class VertexInputs:
    """Starting values an engine writes over the program's ``init``, by internal id.

    Attributes
    ----------
    vertex : dict of str to (rows, values)
        For each vertex field, the internal ids written (None: every vertex, in order) and
        their values, already of the field's dtype.
    edges : dict of str to ndarray
        For each program edge field, one value per edge (by edge id, the graph's order).

    Examples
    --------
    >>> import numpy as np
    >>> cols = {"x": np.zeros(3)}
    >>> VertexInputs({"x": (np.array([2]), np.array([5.0]))}).write(cols, {})
    >>> cols["x"].tolist()
    [0.0, 0.0, 5.0]
    """

    vertex: dict[str, Rows] = field(default_factory=dict)
    edges: dict[str, np.ndarray] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.vertex or self.edges)

    def write(self, columns: dict[str, np.ndarray], edge_columns: dict[str, np.ndarray]) -> None:
        """Write the values into an engine's (whole graph's) vertex and edge columns."""
        for name, (rows, vals) in self.vertex.items():
            if rows is None:
                columns[name][:] = vals
            else:
                columns[name][rows] = vals
        for name, vals in self.edges.items():
            edge_columns[name][:] = vals


def _cast(what: str, values: Any, dtype: np.dtype) -> np.ndarray:
    """``values`` as an array of the field's base dtype, refusing a lossy kind of cast."""
    a = np.asarray(values)
    base = dtype.base
    if a.dtype.kind == "O" or not np.can_cast(a.dtype, base, casting="same_kind"):
        raise GasError(
            f"{what} holds {a.dtype} values, which do not cast safely to the field's {base}; "
            f"hint: convert them first (e.g. values.astype(np.{base.name}))"
        )
    return a.astype(base, copy=False)


def _labelled(graph: Any, what: str, values: Any) -> tuple[np.ndarray, Any]:
    """The internal ids and values of a dict or pandas Series keyed by original id."""
    if _is_pandas(values):
        keys, vals = values.index.to_numpy(), values.to_numpy()
    else:
        keys, vals = list(values.keys()), list(values.values())
    if not isinstance(graph, Graph):
        raise GasError(f"{what}: a partition view has no original ids; pass an array by internal id instead")
    if len(keys) == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    try:
        rows = np.atleast_1d(np.asarray(graph.index_of(_id_array(keys)), np.int64))
    except GraphError as exc:
        raise GraphError(f"{what}: {exc}; hint: a dict or Series is keyed by original vertex id") from None
    if np.unique(rows).size != rows.size:
        raise GasError(f"{what} names some vertex more than once (keys must be unique original ids)")
    return rows, vals


def _vertex_field(graph: Any, what: str, values: Any, dtype: np.dtype) -> Rows:
    """One vertex field's starting values: every vertex's (an array) or some (a dict, a Series)."""
    n, shape = graph.num_vertices, dtype.shape
    if isinstance(values, Mapping) or _is_pandas(values):
        rows, vals = _labelled(graph, what, values)
        a = _cast(what, vals, dtype)
        if rows.size == 0:
            a = np.zeros((0, *shape), dtype.base)
        if a.shape != (rows.size, *shape):
            raise GasError(f"{what}: expected values of shape {shape or 'scalar'} (got {a.shape[1:]})")
        return rows, a
    a = _cast(what, values, dtype)
    if a.shape != (n, *shape):
        raise GasError(
            f"{what}: expected an array of shape {(n, *shape)} (one value per vertex, by internal id) "
            f"(got shape {a.shape}); hint: pass a dict or pandas Series keyed by original id for some "
            "vertices only"
        )
    return None, a


def _fields(what: str, init: Any, known: dict[str, np.dtype], program: Any) -> dict[str, Any]:
    """``init`` as a dict of known fields (a pandas DataFrame: one field per column)."""
    if init is None:
        return {}
    if _is_pandas(init) and hasattr(init, "columns"):
        init = {str(c): init[c] for c in init.columns}
    if not isinstance(init, Mapping):
        raise GasError(f"Expected {what} to be a dict {{field: values}} (got {type(init).__name__})")
    for name in init:
        if name not in known:
            kind = "vertex" if what == "init" else "edge"
            raise GasError(
                f"{what} field {name!r} is not one of {type(program).__name__}'s {kind} fields: "
                f"{sorted(known) or 'none'}"
            )
    return dict(init)


def vertex_inputs(graph: Any, program: Any, init: Any = None, init_edges: Any = None) -> VertexInputs:
    """``init`` and ``init_edges`` checked against ``program``'s fields, by internal id.

    Parameters
    ----------
    graph : Graph or a partition view
    program : VertexProgram
    init : dict, optional
        ``{field: values}`` for vertex fields; values are an array by internal id (one per
        vertex, dtype castable to the field's), or a dict or pandas Series keyed by original
        id (vertices left out keep the value ``init`` gave them). A pandas DataFrame indexed by
        original id gives one field per column. Already made :class:`VertexInputs` pass through.
    init_edges : dict, optional
        ``{field: array}`` for the program's edge fields, one value per edge by edge id.

    Raises
    ------
    GasError
        An unknown field (the message lists the program's), a wrong length or shape, values
        that do not cast safely to the field's dtype; :class:`GraphError` for an unknown id.

    Examples
    --------
    >>> import gas, networkx as nx
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> g = gas.Graph.from_networkx(nx.DiGraph([("a", "b"), ("b", "c")]))
    >>> inp = vertex_inputs(g, PageRankProgram(), {"rank": {"c": 1}})
    >>> inp.vertex["rank"][0].tolist(), inp.vertex["rank"][1].tolist()
    ([2], [1.0])
    """
    if isinstance(init, VertexInputs):
        return init
    spec = ProgramSpec.of(program)
    vfields, efields = dict(spec.vertex_fields), dict(spec.edge_fields)
    out = VertexInputs()
    for name, vals in _fields("init", init, vfields, program).items():
        out.vertex[name] = _vertex_field(graph, f"init[{name!r}]", vals, vfields[name])
    m = graph.num_edges
    for name, vals in _fields("init_edges", init_edges, efields, program).items():
        what = f"init_edges[{name!r}]"
        if isinstance(vals, Mapping) or _is_pandas(vals):
            raise GasError(f"{what}: expected an array by edge id (got {type(vals).__name__})")
        a = _cast(what, vals, efields[name])
        want = (m, *efields[name].shape)
        if a.shape != want:
            raise GasError(f"{what}: expected an array of shape {want} (one value per edge) (got {a.shape})")
        out.edges[name] = a
    return out


def starting_state(graph: Graph, program: Any, inputs: VertexInputs, active: Any = None) -> Any:
    """The state a process run starts from when it has ``inputs``: the program's ``init`` run
    here on the whole graph, the inputs written over it, as a step-0
    :class:`gas.options.Restore` that every rank copies its rows from instead of running
    ``init`` (``active``: a mask by internal id, default every vertex).

    Examples
    --------
    >>> import numpy as np, gas
    >>> from gas.algorithms.components import ComponentsProgram
    >>> g = gas.Graph.from_edges([0, 1], [1, 2])
    >>> inp = vertex_inputs(g, ComponentsProgram(), {"label": np.array([5, 6, 7])})
    >>> r = starting_state(g, ComponentsProgram(), inp)
    >>> r.vertex["label"].tolist(), r.vertex["changed"].tolist(), r.init
    ([5, 6, 7], [True, True, True], False)
    """
    from gas.engine import SyncEngine
    from gas.options import Restore

    eng = SyncEngine(graph, program)
    eng.inputs = inputs
    with eng.thread_scope():
        eng.init()
    vertex = {k: eng.columns[k] for k in ProgramSpec.of(program).vertex_fields}
    edges = {k: eng.edge_columns[k] for k in inputs.edges}
    act = np.ones(graph.num_vertices, np.bool_) if active is None else np.asarray(active, np.bool_)
    return Restore(0, vertex, edges, active=act, done=False, init=False)
