"""What a vertex program's code reads and writes, for laying out its workers.

The distributed runtime asks the program's :class:`gas.program_spec.ProgramSpec` (the one
analysis of a program, shared with the engines) for a worker's vertex numbering
(:func:`layout_for`: ``global`` when a method reads ``vid``, ``masters_first`` when the visiting
order cannot matter, else ``sorted``) and for the vertex fields a mirror must receive from its
master (:func:`mirror_fields`: only those ``gather``, ``sum`` and ``scatter`` name). Used by
:mod:`gas.runtime.bsp`.
"""

from __future__ import annotations

from gas.program import VertexProgram
from gas.program_spec import ProgramSpec

__all__ = ["reads_vid", "order_free", "layout_for", "mirror_fields"]


def reads_vid(program: VertexProgram) -> bool:
    """True if a method of ``program`` reads ``vid`` (it then runs on the global numbering).

    Examples
    --------
    >>> from gas.algorithms.sssp import SSSPProgram
    >>> reads_vid(SSSPProgram(0))
    True
    """
    return ProgramSpec.of(program).reads_vid


def order_free(program: VertexProgram) -> bool:
    """True when the order a worker visits its vertices in cannot change ``program``'s result
    (see :attr:`gas.program_spec.ProgramSpec.order_free`).

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> order_free(PageRankProgram())
    True
    """
    return ProgramSpec.of(program).order_free


def layout_for(program: VertexProgram) -> str:
    """The vertex numbering a worker uses for ``program`` (see :func:`build_partition`).

    Examples
    --------
    >>> from gas.algorithms.pagerank import PageRankProgram
    >>> layout_for(PageRankProgram())
    'masters_first'
    """
    return ProgramSpec.of(program).layout


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
    used = ProgramSpec.of(program).names_in(("gather", "sum", "scatter"))
    return [f for f in fields if f in used]
