"""A command run on a scaled-out load: the job description and what every rank does with it.

Rank 0 describes the job with :func:`file_job` (JSON: it crosses the wire to spawned workers);
every rank runs :func:`run_file_job`: it loads its part with :func:`gas.runtime.ingest.load_part`,
builds the command's program and runs its part. The program comes from the job's ``"builder"``,
a dotted name ``"gas.<module>:<function>"`` resolved with :mod:`importlib` (see
:func:`resolve_builder`), so the runtime imports nothing from the algorithms or the CLI.

Examples
--------
>>> import argparse
>>> args = argparse.Namespace(file="g.txt", partition="hdrf", seed=0, quiet=True)
>>> job = file_job(args, "cc", None)
>>> job["op"], job["command"], job["args"], job["builder"]
('run_file', 'cc', {'partition': 'hdrf', 'seed': 0, 'quiet': True}, 'gas.algorithms.registry:program_for_job')
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gas.errors import GasError
from gas.graph import Graph
from gas.options import CheckpointOptions, RunOptions, Staleness
from gas.runtime.comm import Comm
from gas.runtime.dispatch import run_part
from gas.runtime.ingest import load_part
from gas.runtime.ssp import ssp_job

__all__ = ["IdView", "file_job", "run_file_job", "resolve_builder", "DEFAULT_BUILDER", "Builder"]

DEFAULT_BUILDER = "gas.algorithms.registry:program_for_job"

Builder = Callable[[str, dict[str, Any], Any], tuple[Any, int, Any]]

_JOB_ARGS = (
    "alpha",
    "tol",
    "max_iter",
    "hops",
    "source",
    "weighted",
    "skip_rows",
    "keep_duplicates",
    "undirected",
    "partition",
    "seed",
    "quiet",
    "staleness",
    "straggler",
)


class IdView:
    """What the CLI's program set-up and report read of a graph, from a scaled-out load.

    ``ids`` and ``num_vertices`` are the whole graph's; ``edata["weight"]`` holds only the global
    minimum weight (what the SSSP check needs), never the edges.

    Examples
    --------
    >>> import numpy as np
    >>> v = IdView(np.array([10, 20, 30]), True, 0.5)
    >>> v.num_vertices, v.weights.tolist(), int(v.index_of(20))
    (3, [0.5], 1)
    """

    def __init__(self, ids: np.ndarray, weighted: bool, min_weight: float) -> None:
        self.ids = ids
        self.num_vertices = int(ids.shape[0])
        self.edata = {"weight": np.array([min_weight])} if weighted else {}

    @property
    def weights(self) -> np.ndarray | None:
        return self.edata.get("weight")

    def index_of(self, original: Any) -> Any:
        return Graph.index_of(self, original)  # type: ignore[arg-type]


def file_job(args: Any, command: str, checkpoint: dict[str, Any] | None) -> dict[str, Any]:
    """The job description every rank runs (JSON: it crosses the wire to spawned workers).

    Parameters
    ----------
    args : argparse.Namespace
        The command's parsed options (``file`` and those of them the job needs).
    command : str
        ``"pagerank"``, ``"cc"`` or ``"sssp"``.
    checkpoint : dict or None
        Checkpoint settings, passed to every rank as is.

    Returns
    -------
    dict
        ``op``, ``command``, ``file`` (absolute), ``args``, ``checkpoint`` and ``builder``
        (:data:`DEFAULT_BUILDER`).

    Examples
    --------
    >>> import argparse, os
    >>> job = file_job(argparse.Namespace(file="g.txt", alpha=0.85), "pagerank", None)
    >>> job["file"] == os.path.abspath("g.txt"), job["args"]
    (True, {'alpha': 0.85})
    """
    return {
        "op": "run_file",
        "command": command,
        "file": os.path.abspath(args.file),
        "args": {k: getattr(args, k) for k in _JOB_ARGS if hasattr(args, k)},
        "checkpoint": checkpoint,
        "builder": DEFAULT_BUILDER,
    }


def resolve_builder(name: str) -> Builder:
    """The program builder a job names: ``"gas.<module>:<function>"``, imported by name.

    The builder is called as ``builder(command, args, view)`` and returns ``(program, max_iter,
    active)``. Only names inside the ``gas`` package are accepted: a job crosses the wire, and
    must not make a worker import arbitrary code.

    Raises
    ------
    GasError
        When the name is not ``gas.<module>:<function>`` or does not resolve.

    Examples
    --------
    >>> resolve_builder(DEFAULT_BUILDER).__name__
    'program_for_job'
    >>> resolve_builder("os:system")
    Traceback (most recent call last):
    ...
    gas.errors.GasError: Expected a program builder named 'gas.<module>:<function>' (got 'os:system')
    """
    module, sep, attr = str(name).partition(":")
    if not (isinstance(name, str) and module.startswith("gas.") and sep and attr.isidentifier()):
        raise GasError(f"Expected a program builder named 'gas.<module>:<function>' (got {name!r})")
    try:
        found = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        raise GasError(f"program builder {name!r}: no module {module} ({exc})") from exc
    except AttributeError as exc:
        raise GasError(f"program builder {name!r}: {module} has no {attr}") from exc
    if not callable(found):
        raise GasError(f"program builder {name!r} is not callable (got {type(found).__name__})")
    return found


def run_file_job(
    comm: Comm, job: dict[str, Any], *, threads: int | None = None, progress: Any = None
) -> tuple[IdView, Any]:
    """Every rank: load its part of ``job["file"]``, run the command's program; rank 0 gets all.

    Parameters
    ----------
    comm : Comm
        The job's communicator (every rank calls this with the same job).
    job : dict
        As made by :func:`file_job`; a job without ``"builder"`` uses :data:`DEFAULT_BUILDER`.
    threads : int, optional
        Numba threads on this rank.
    progress : callable, optional
        Per-superstep callback (rank 0 only); also turns on the load report on stderr.

    Returns
    -------
    (IdView, result)
        The whole graph's ids and the run's result (complete on rank 0).
    """
    ns = argparse.Namespace(**job["args"])
    builder = resolve_builder(job.get("builder", DEFAULT_BUILDER))
    t0 = time.perf_counter()
    lp = load_part(
        job["file"],
        comm,
        method=ns.partition,
        seed=ns.seed,
        skip_rows=getattr(ns, "skip_rows", 0),
        dedupe=not getattr(ns, "keep_duplicates", False),
        undirected=getattr(ns, "undirected", False),
        weights=bool(getattr(ns, "weighted", False)),  # the CLI's --weighted: weights only when asked
        check_weights="nonnegative" if job["command"] == "sssp" and not getattr(ns, "hops", False) else None,
    )
    if progress is not None and comm.rank == 0 and not getattr(ns, "quiet", False):
        print(
            f"loaded {job['file']} on {comm.size} ranks (each read its share): {lp.num_vertices:,d} "
            f"vertices, {lp.part.num_edges:,d} edges{' (weighted)' if lp.weighted else ''}, "
            f"{lp.part.src.size:,d} edges on rank 0, in {time.perf_counter() - t0:.2f} s",
            file=sys.stderr,
        )
    view = IdView(lp.ids, lp.weighted, lp.min_weight)
    program, max_iter, active = builder(job["command"], dict(job["args"]), view)
    checkpoint = job.get("checkpoint")
    note = ssp_job(  # validated before any superstep runs
        program,
        getattr(ns, "staleness", None),
        getattr(ns, "straggler", None),
        active=active,
        checkpoint=checkpoint,
    )
    options = RunOptions(
        threads=threads,
        staleness=None if note is None else Staleness.from_json(note),
        checkpoint=CheckpointOptions.from_json(checkpoint) if checkpoint else None,
    )
    on_step = progress if comm.rank == 0 else None
    res = run_part(
        lp.part, program, comm, max_iter=max_iter, active=active, progress=on_step, options=options
    )
    return view, res
