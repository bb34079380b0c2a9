"""The bundled algorithms by name: the vertex program, superstep limit and start set of a run.

The ``gas`` command and the process runtime name a workload by a word (``pagerank``, ``cc``,
``sssp``); :func:`program_for` turns that word and plain values into what an engine runs.
:func:`program_for_job` does the same from the argument dictionary of a scaled-out file job:
the runtime finds it by the dotted name :data:`PROGRAM_FOR_JOB` (carried in the job as
``"builder"``), so that the runtime never imports the algorithms.

Examples
--------
>>> import gas
>>> from gas.algorithms.registry import program_for
>>> g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
>>> program, max_iter, active = program_for("pagerank", g, alpha=0.85, tol=1e-8, max_iter=50)
>>> type(program).__name__, max_iter, active
('PageRankProgram', 50, None)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.errors import GasError

__all__ = ["COMMANDS", "PROGRAM_FOR_JOB", "program_for", "program_for_job", "parse_id"]

# the workloads that run on several processes through the runtime
COMMANDS = ("pagerank", "cc", "sssp")

# what the runtime resolves (importlib, "module:function") to build a file job's program
PROGRAM_FOR_JOB = "gas.algorithms.registry:program_for_job"


def parse_id(text: Any, graph: Any) -> Any:
    """An original vertex id given as text (``--source``): a string for string-labelled graphs.

    Parameters
    ----------
    text : str
        The id as typed.
    graph : gas.Graph or a view with ``ids``
        Whose ``ids`` dtype decides: ``object`` (string labels) keeps the text, else an integer.

    Raises
    ------
    gas.GasError
        Text that is not an integer, for a graph with integer ids.

    Examples
    --------
    >>> import gas
    >>> parse_id("2", gas.Graph.from_edges([0, 1], [1, 2]))
    2
    """
    if graph.ids.dtype == object:
        return text
    try:
        return int(text)
    except ValueError:
        raise GasError(f"Expected --source to be an integer vertex id (got {text!r})") from None


def program_for(
    command: str,
    graph: Any,
    *,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    source: Any = None,
    hops: bool = False,
    engine: str = "sync",
) -> tuple[Any, int, np.ndarray | None]:
    """The program, superstep limit and start set that run ``command`` on ``graph``.

    Parameters
    ----------
    command : {"pagerank", "cc", "sssp"}
        The workload.
    graph : gas.Graph or a view with ``ids``, ``num_vertices``, ``edata`` and ``index_of``
        Only its size, ids and weight column are read (never the edges).
    alpha, tol, max_iter : float, float, int
        PageRank's damping factor, tolerance and superstep limit.
    source : original vertex id, optional
        SSSP's source (required for ``"sssp"``).
    hops : bool
        SSSP: count hops even when the graph has weights.
    engine : {"sync", "async"}
        PageRank on the asynchronous engine uses the pull form (it writes only its own vertex).

    Returns
    -------
    program : gas.VertexProgram
    max_iter : int
        ``num_vertices + 1`` for components and distances (enough for any graph).
    active : numpy.ndarray or None
        The vertices active first, as a boolean mask by internal id (SSSP: the source), None
        for all; a mask means the same to the engines and to :func:`gas.run` (which takes
        original ids otherwise).

    Raises
    ------
    gas.GasError
        An unknown command, an unknown source, or a negative or NaN weight for SSSP.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([0, 1], [1, 2], weights=[1.0, 2.0])
    >>> program, max_iter, active = program_for("sssp", g, source=0)
    >>> type(program).__name__, max_iter, np.flatnonzero(active).tolist()
    ('SSSPProgram', 4, [0])
    """
    if command == "pagerank":
        from gas.algorithms.pagerank import DeltaPageRankProgram, PageRankProgram

        if engine == "async":  # the pull form: it writes only its own vertex
            return DeltaPageRankProgram(alpha, tol), max_iter, None
        return PageRankProgram(alpha, tol), max_iter, None
    if command == "cc":
        from gas.algorithms.components import ComponentsProgram

        return ComponentsProgram(), graph.num_vertices + 1, None
    if command == "sssp":
        return _sssp(graph, source, hops)
    raise GasError(f"{command} has no distributed runner")


def _sssp(graph: Any, source: Any, hops: bool) -> tuple[Any, int, np.ndarray]:
    from gas.algorithms.sssp import HopsProgram, SSSPProgram

    s = int(graph.index_of(source))
    weighted = not hops and "weight" in graph.edata
    # min() is NaN when a weight is: "not >= 0" refuses both
    if weighted and graph.edata["weight"].size and not graph.edata["weight"].min() >= 0:
        raise GasError(
            "SSSP needs non-negative edge weights (got a negative or NaN weight, the smallest "
            f"{graph.edata['weight'].min()}); count hops instead (hops=True) or fix the input"
        )
    prog = SSSPProgram(s) if weighted else HopsProgram(s)
    first = np.zeros(graph.num_vertices, np.bool_)  # a mask: by internal id for every runner
    first[s] = True
    return prog, graph.num_vertices + 1, first


def program_for_job(command: str, args: dict[str, Any], view: Any) -> tuple[Any, int, np.ndarray | None]:
    """:func:`program_for` from a file job's argument dictionary (the ``gas`` options by name).

    Parameters
    ----------
    command : str
        The job's ``"command"``.
    args : dict
        The job's ``"args"``: ``alpha``, ``tol``, ``max_iter`` (PageRank), ``source`` as typed
        and ``hops`` (SSSP), optionally ``engine``.
    view : a graph view
        Ids, size and minimum weight of the scaled-out load.

    Returns
    -------
    tuple
        ``(program, max_iter, active)`` as :func:`program_for`.

    Examples
    --------
    >>> import gas
    >>> g = gas.Graph.from_edges([5, 6], [6, 7])
    >>> program, max_iter, active = program_for_job("sssp", {"source": "6", "hops": True}, g)
    >>> type(program).__name__, np.flatnonzero(active).tolist()
    ('HopsProgram', [1])
    """
    if command == "pagerank":
        return program_for(
            command,
            view,
            alpha=args["alpha"],
            tol=args["tol"],
            max_iter=args["max_iter"],
            engine=args.get("engine") or "sync",
        )
    if command == "sssp":
        return program_for(command, view, source=parse_id(args["source"], view), hops=args.get("hops", False))
    return program_for(command, view)
