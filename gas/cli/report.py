"""What the graph subcommands print and write after a run on several processes.

Rank 0 prints the same summary as a one-process run and writes ``--output``; a run that did
not meet its stopping rule ends in :class:`gas.ConvergenceError` (exit status 3) after writing
only with ``--allow-unconverged``; non-finite scores or distances are never written.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from gas.cli.common import write_values
from gas.errors import ConvergenceError, convergence_error

__all__ = ["normalized", "peer_status", "report"]


def _what(command: str, engine: str) -> str:
    names = {"pagerank": "PageRank", "cc": "Connected components", "sssp": "SSSP"}
    return ("Asynchronous " if engine == "async" and command == "pagerank" else "") + names[command]


def _nonfinite(command: str, g: Any, res: Any) -> ConvergenceError | None:
    """An error for scores or distances that are not numbers (PageRank: not finite)."""
    values = res.output
    if command == "cc" or not np.issubdtype(values.dtype, np.floating):
        return None
    bad = np.flatnonzero(np.isnan(values) if command == "sssp" else ~np.isfinite(values))
    if not bad.size:
        return None
    return convergence_error(
        f"{_what(command, 'sync')} produced {bad.size} non-finite values (first at vertex "
        f"{g.ids[bad[0]]}: {values[bad[0]]}): the run diverged; nothing is written",
        iterations=res.iterations,
    )


def _unconverged(
    command: str, args: argparse.Namespace, g: Any, res: Any, engine: str
) -> ConvergenceError | None:
    """The error a run that did not meet its stopping rule ends with (None if it did): how far
    it got, the residual against the target, the partial output in ``result``."""
    if res.converged:
        return None
    if command == "pagerank":
        msg, change = _pagerank_shortfall(args, g, res, engine)
        target = g.num_vertices * args.tol
        limit = getattr(args, "max_error_target", None)  # gas.cli.stats.use_max_error's
        why = "" if limit is None else f" (that is, an L1 error bound below --max-error {limit:g})"
        return convergence_error(
            f"{msg}, target N*tol = {target:.1e}{why}",
            iterations=res.iterations,
            residual=change,
            target=target,
            result=res,
        )
    last = res.stats[-1] if res.stats else {}
    left = int(last.get("scheduled", last.get("active", 0)))
    msg = (
        f"{_what(command, engine)} stopped after {res.iterations} "
        f"{'rounds' if engine == 'async' else 'supersteps'} with {left:,d} vertices still "
        f"{'scheduled' if engine == 'async' else 'active'}"
    )
    return convergence_error(msg, iterations=res.iterations, residual=float(left), target=0.0, result=res)


def _pagerank_shortfall(args: argparse.Namespace, g: Any, res: Any, engine: str) -> tuple[str, float]:
    """How far an unconverged PageRank got: a message and its L1 change (the synchronous
    engine's last one; for the asynchronous engine, one power-iteration step from its ranks)."""
    from gas.algorithms.pagerank import power_step_change, shortfall_message
    from gas.graph import Graph

    if engine != "async":  # "sync" or "cuda": supersteps
        change = float(res.aggregates.get("change", float("nan")))
    else:
        change = power_step_change(g, res.output, args.alpha) if isinstance(g, Graph) else float("nan")
    work = sum(int(s.get("edges", 0)) + int(s.get("active", 0)) for s in res.stats)
    return shortfall_message(res, engine, args.max_iter, change, work, g.num_vertices), change


def report(command: str, args: argparse.Namespace, g: Any, res: Any, engine: str = "sync") -> int:
    """What the one-process subcommands print and write, from a distributed result (status 0).

    Parameters
    ----------
    command : {"pagerank", "cc", "sssp"}
    args : argparse.Namespace
        The subcommand's options (``quiet``, ``output``, ``top``, ``tol``, ...).
    g : gas.Graph or a view with ``ids`` and ``num_vertices``
    res : gas.RunResult
        Rank 0's whole result.
    engine : {"sync", "async"}

    Raises
    ------
    gas.ConvergenceError
        The run did not converge (after writing the output only with ``--allow-unconverged``),
        or its values are not finite (before anything is printed).

    Examples
    --------
    >>> import argparse, gas
    >>> from gas.algorithms.components import ComponentsProgram
    >>> g = gas.Graph.from_edges([0, 2], [1, 3])
    >>> res = gas.SyncEngine(g, ComponentsProgram()).run(10)
    >>> report("cc", argparse.Namespace(quiet=True, output=None), g, res)
    components	2
    largest	2
    0
    """
    if (bad := _nonfinite(command, g, res)) is not None:
        raise bad
    if command == "pagerank" and getattr(args, "max_error_target", None) is not None:
        from gas.cli.stats import use_max_error

        use_max_error(args, g.num_vertices)  # a file job's tol: its ranks knew the vertex count
    err = _unconverged(command, args, g, res, engine)
    rec, final = _record(command, args, g, res, err)
    if err is None and final[3]:
        err = final[3]
    if err is not None and not getattr(args, "allow_unconverged", False):
        rec.finish(False, *final[:3])
        raise err
    _print_and_write(command, args, g, res)
    rec.finish(err is None, *final[:3])
    if err is not None:
        raise err
    return 0


def _record(
    command: str, args: argparse.Namespace, g: Any, res: Any, err: ConvergenceError | None
) -> tuple[Any, tuple[float | None, float | None, str, ConvergenceError | None]]:
    """The run's :class:`gas.cli.stats.StatsRecorder` (``--stats``, ``--plot``, the end line)
    and its final ``(residual, error bound, note, error)``: PageRank's L1 bound
    (:func:`gas.cli.stats.pagerank_bound`), with an error when it is above ``--max-error``."""
    from gas.cli.stats import StatsRecorder, pagerank_bound

    pagerank = command == "pagerank"
    rec = StatsRecorder(args, command, float(args.alpha) if pagerank else None)
    rec.extend(res.stats)
    residual = err.residual if err is not None and isinstance(err.residual, float) else None
    if not pagerank:
        return rec, (residual, None, "", None)
    residual, bound, note = pagerank_bound(args, g, res.output, res)
    limit = getattr(args, "max_error_target", None)
    if limit is None or bound is None:
        return rec, (residual, bound, note, None)
    note += f"; --max-error {limit:g}"
    if bound <= limit:
        return rec, (residual, bound, note, None)
    short = convergence_error(
        f"PageRank ended with an L1 error bound of {bound:.1e}, above --max-error {limit:g}; "
        "hint: lower --max-error for this engine, or run --engine sync",
        iterations=res.iterations,
        residual=bound,
        target=limit,
        result=res,
    )
    return rec, (residual, bound, note, short)


def peer_status(rank: int, res: Any) -> int:
    """Exit status of a launcher rank other than 0 (which reports).

    0, or the job's :class:`gas.ConvergenceError` when the run did not converge (every rank
    agrees on that).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> peer_status(1, SimpleNamespace(converged=True, iterations=3))
    0
    """
    if res.converged:
        return 0
    raise convergence_error(
        f"rank {rank}: the run stopped without converging after {res.iterations} steps "
        "(rank 0 reports how far it got)",
        iterations=res.iterations,
    )


def _summary(res: Any) -> None:
    """Supersteps, seconds, bytes sent and the staleness observed, on stderr."""
    secs = sum(s["seconds"] for s in res.stats)
    sent = sum(s.get("bytes_sent", 0) for s in res.stats)
    print(
        f"{res.iterations} {'rounds' if res.stats and 'steps' in res.stats[0] else 'supersteps'} "
        f"in {secs:.2f} s; rank 0 sent {sent / 1e6:.1f} MB",
        file=sys.stderr,
    )
    ssp = getattr(res, "ssp", None)
    if ssp:
        print(
            f"staleness bound {ssp['staleness']}: observed mean {ssp.get('staleness_mean', 0):.2f}, "
            f"max {ssp.get('staleness_max', 0)}; supersteps per worker {ssp.get('clocks')}; "
            f"blocked seconds per worker {ssp.get('wait_seconds')}",
            file=sys.stderr,
        )


def _print_and_write(command: str, args: argparse.Namespace, g: Any, res: Any) -> None:
    """The summary on stdout and stderr, and the ``--output`` file."""
    if not args.quiet:
        _summary(res)
    if command == "pagerank":
        values, fmt = res.output, "%.17g"
        top = getattr(args, "top", 0)
        if top:
            print("id\tscore")
            for v in np.argsort(-values, kind="stable")[:top].tolist():
                print(f"{g.ids[v]}\t{values[v]:.17g}")
    elif command == "cc":
        values, fmt = g.ids[res.output], "%s"
        labels, sizes = np.unique(values, return_counts=True)
        print(f"components\t{labels.size}")
        if sizes.size:
            print(f"largest\t{int(sizes.max())}")
    else:
        values, fmt = res.output, "%.17g"
        reach = np.isfinite(values)
        print(f"reachable\t{int(reach.sum())}")
        if reach.any():
            print(f"max_distance\t{float(values[reach].max()):.17g}")
    if args.output:
        write_values(args.output, g.ids, values, fmt)
        if not args.quiet:
            print(f"wrote {g.num_vertices:,d} lines to {args.output}", file=sys.stderr)


def normalized(command: str, engine: str, res: Any) -> Any:
    """Asynchronous PageRank solves an unnormalized system: scale its output to sum 1.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> normalized("pagerank", "async", SimpleNamespace(output=np.array([1.0, 3.0]))).output.tolist()
    [0.25, 0.75]
    """
    if command == "pagerank" and engine == "async" and res.output.size:
        res.output = res.output / res.output.sum()
    return res
