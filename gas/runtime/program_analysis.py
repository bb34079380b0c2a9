"""What a vertex program's code reads and writes, for laying out its workers.

The distributed runtime inspects a program's methods (the names their code objects use, and
their writes) to pick a worker's vertex numbering (:func:`layout_for`: ``global`` when a method
reads ``vid``, ``masters_first`` when the visiting order cannot matter, else ``sorted``) and to
find the vertex fields a mirror must receive from its master (:func:`mirror_fields`: only those
``gather``, ``sum`` and ``scatter`` name). Used by :mod:`gas.runtime.bsp`.
"""

from __future__ import annotations

from typing import Any

from gas.program import VertexProgram

__all__ = ["reads_vid", "order_free", "layout_for", "mirror_fields"]


def _names(fn: Any) -> set[str]:
    """Names a function's code uses (attribute names included), nested code objects too."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return set()
    out: set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        out |= set(c.co_names)
        todo += [k for k in c.co_consts if hasattr(k, "co_names")]
    return out


def _method_names(program: VertexProgram, methods: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for name in methods:
        fn = getattr(type(program), name, None)
        if fn is not None and fn is not getattr(VertexProgram, name, None):
            out |= _names(fn)
    return out


def reads_vid(program: VertexProgram) -> bool:
    """True if a method of ``program`` reads ``vid`` (it then runs on the global numbering)."""
    return "vid" in _method_names(program, ("init", "gather", "sum", "apply", "scatter", "aggregate"))


def order_free(program: VertexProgram) -> bool:
    """True when the order a worker visits its vertices in cannot change ``program``'s result.

    That holds when no method can write another vertex's or an edge's data: only scalar vertex
    fields (an array field can be handed to a helper that writes it, as SGD's gather does with
    the item's vector), no edge fields of its own, and no assignment to ``nbr`` or ``e``.
    """
    from gas.program import _METHODS, _accesses, _field_dtype

    if program.edge_data:
        return False
    if any(_field_dtype(t, f"vertex_data[{k!r}]").shape for k, t in dict(program.vertex_data).items()):
        return False
    for name in ("init", "gather", "sum", "apply", "scatter", "aggregate"):
        fn = getattr(type(program), name, None)
        if fn is not None and fn is not getattr(VertexProgram, name, None):
            writes, _ = _accesses(fn, name, _METHODS[name][0])
            if any(role in ("e", "nbr") for _, role, _ in writes):
                return False
    return True


def layout_for(program: VertexProgram) -> str:
    """The vertex numbering a worker uses for ``program`` (see :func:`build_partition`)."""
    if reads_vid(program):
        return "global"
    return "masters_first" if order_free(program) else "sorted"


def mirror_fields(program: VertexProgram, fields: list[str]) -> list[str]:
    """The vertex ``fields`` a mirror must hold: those ``gather``, ``sum`` or ``scatter`` name.

    Mirrors run no apply and no aggregate, so a field only those read never needs to reach them
    (e.g. PageRank's ``rank`` and ``change``; its gather reads ``contrib``). A name counts even
    when it is used for something else (a conservative over-estimate).

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> mirror_fields(PageRankProgram(), ["rank", "contrib", "change"])
    ['contrib']
    """
    used = _method_names(program, ("gather", "sum", "scatter"))
    return [f for f in fields if f in used]
