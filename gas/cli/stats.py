"""``--stats FILE`` and ``--plot FILE.png``: what each iteration of a run did, kept and drawn.

Every iterative subcommand adds the two options with :func:`add_stats_options` and records its
run with a :class:`StatsRecorder`: the recorder wraps the progress callback the library calls
once per iteration (superstep, round, sweep or epoch), keeps each statistics dict, and at the
end writes them (``.csv``: one row per iteration; ``.json``: the rows and the final residual),
atomically, draws the residual per iteration on a log scale (matplotlib, the optional ``plot``
extra) and prints the final residual and error bound on stderr. :func:`recording` does the same
for a run that stops short (:class:`gas.ConvergenceError`), before the error goes on.

Examples
--------
>>> import argparse
>>> rec = StatsRecorder(argparse.Namespace(stats=None, plot=None, quiet=True), "cc")
>>> show = rec.wrap(None)
>>> show({"iteration": 0, "active": 4, "edges": 8, "seconds": 0.01})
>>> show({"iteration": 1, "active": 1, "edges": 2, "seconds": 0.01})
>>> [r["residual"] for r in rec.rows]
[4, 1]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gas.cli.args import plot_path, stats_path
from gas.errors import ConvergenceError, GasError
from gas.io.atomic import atomic_open

__all__ = [
    "StatsRecorder",
    "add_stats_options",
    "finish_pagerank",
    "pagerank_bound",
    "recording",
    "use_max_error",
]

#: What each workload's residual is: (column of the statistics, how the end line names it,
#: whether it is a change between iterations of a metric rather than a column of its own)
_RESIDUALS: dict[str, tuple[str, str, bool]] = {
    "pagerank": ("change", "L1 change of the last iteration", False),
    "katz": ("change", "L1 change of the last iteration", False),
    "eigenvector": ("change", "L1 change of the last iteration", False),
    "hits": ("change", "L1 change of the hubs (divided by their maximum)", False),
    "cc": ("active", "vertices left to update", False),
    "sssp": ("active", "vertices left to update", False),
    "diameter": ("active", "vertices left to update", False),
    "coloring": ("scheduled", "vertices still scheduled", False),
    "als": ("train_rmse", "change of the training RMSE over the last iteration", True),
    "sgd": ("train_rmse", "change of the training RMSE over the last epoch", True),
    "lda": ("loglik_per_token", "change of the log-likelihood per token between its last two", True),
}

#: Why a workload prints no error bound
_NO_BOUND = {
    "katz": "no contraction factor is known for the normalized iterate; --tol (networkx's rule) stops it",
    "eigenvector": "no contraction factor is known (it is the unknown eigenvalue gap); --tol stops it",
    "hits": "no contraction factor is known (it is the unknown eigenvalue gap); --tol stops it",
    "cc": "none needed: a converged run is exact",
    "sssp": "none needed: a converged run is exact",
    "diameter": "none: HyperLogLog counters are estimates (relative error about 1.04/sqrt(registers))",
    "coloring": "none needed: a colouring is checked directly (conflicting edges)",
    "als": "none: a non-convex fit, stopped after its iterations (or, --engine async, when no vertex "
    "moved more than --tol)",
    "sgd": "none: a fixed number of epochs of a non-convex fit",
    "lda": "none: a fixed number of Gibbs sweeps",
}


def add_stats_options(p: argparse.ArgumentParser) -> None:
    """``--stats FILE`` (``.csv`` or ``.json``) and ``--plot FILE.png``, both checked at parse time.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> add_stats_options(p)
    >>> p.parse_args(["--stats", "run.csv"]).stats
    'run.csv'
    """
    g = p.add_argument_group("per-iteration statistics")
    g.add_argument(
        "--stats",
        type=stats_path,
        metavar="FILE",
        default=None,
        help="write each iteration's statistics (residual, active vertices, seconds, ...) here, "
        "as CSV (.csv) or JSON (.json), atomically",
    )
    g.add_argument(
        "--plot",
        type=plot_path,
        metavar="FILE.png",
        default=None,
        help="draw the residual per iteration (log scale) here; needs matplotlib: pip install 'gaslab[plot]'",
    )


class StatsRecorder:
    """Keeps a run's per-iteration statistics; writes, draws and summarises them at the end.

    Parameters
    ----------
    args : argparse.Namespace
        ``stats``, ``plot`` (paths or None) and ``quiet``.
    command : str
        The subcommand (a key of the residual table: what the residual column is).
    alpha : float, optional
        PageRank's damping factor: each row then also gets ``error_bound``, the L1 bound
        ``alpha / (1 - alpha) * change`` on the distance to the fixed point
        (:func:`gas.cli.error_bound.contraction_bound`).
    """

    def __init__(self, args: argparse.Namespace, command: str, alpha: float | None = None) -> None:
        self.stats = getattr(args, "stats", None)
        self.plot = getattr(args, "plot", None)
        self.quiet = bool(getattr(args, "quiet", False))
        self.command = command
        self.alpha = alpha
        self.rows: list[dict[str, Any]] = []
        self.done = False
        self.target_note = ""  # appended to a ConvergenceError's message (what the target meant)
        self._elapsed = 0.0

    def wrap(self, progress: Callable[[dict[str, Any]], None] | None) -> Callable[[dict[str, Any]], None]:
        """A progress callback that records each statistics dict, then calls ``progress``."""

        def record(stat: dict[str, Any]) -> None:
            self.record(stat)
            if progress is not None:
                progress(stat)

        return record

    def record(self, stat: dict[str, Any]) -> None:
        """Keep the scalars of one iteration's statistics, with ``residual`` (and ``error_bound``)."""
        row = {k: v for k, v in stat.items() if isinstance(v, (bool, int, float, str))}
        self._elapsed += float(row.get("seconds", 0.0))
        row["elapsed"] = self._elapsed
        key, _, delta = _RESIDUALS.get(self.command, ("change", "", False))
        if delta:
            prev = next((r[key] for r in reversed(self.rows) if key in r), None)
            if key in row and prev is not None:
                row["residual"] = abs(float(row[key]) - float(prev))
        elif key in row:
            row["residual"] = row[key]
        if self.alpha is not None and "change" in row and not row.get("extrapolated"):
            from gas.cli.error_bound import contraction_bound

            row["error_bound"] = contraction_bound(float(row["change"]), self.alpha)
        self.rows.append(row)

    def extend(self, stats: Iterable[dict[str, Any]]) -> None:
        """Record a finished run's statistics (``RunResult.stats``) when no callback saw them."""
        if not self.rows:
            for stat in stats:
                self.record(stat)

    def residual(self) -> float | None:
        """The last iteration's residual (None when no iteration had one)."""
        return next((float(r["residual"]) for r in reversed(self.rows) if "residual" in r), None)

    def finish(
        self,
        converged: bool = True,
        residual: float | None = None,
        bound: float | None = None,
        note: str = "",
    ) -> None:
        """Write ``--stats``, draw ``--plot`` and print the end line (once; not with ``--quiet``).

        ``residual`` and ``bound`` override the recorded ones (a workload that measures them
        after the run); ``note`` says what the bound is, or why there is none.
        """
        if self.done:
            return
        self.done = True
        if residual is None:
            residual = 0.0 if converged and self.command in ("cc", "sssp", "diameter", "coloring") else None
            residual = self.residual() if residual is None else residual
        if bound is None and self.alpha is not None and self.rows and "error_bound" in self.rows[-1]:
            bound = float(self.rows[-1]["error_bound"])
        final = {
            "converged": converged,
            "iterations": len(self.rows),
            "residual": residual,
            "error_bound": bound,
        }
        if self.stats:
            self._write(final)
        if self.plot:
            self._draw()
        if not self.quiet:
            print(self.summary(final, note), file=sys.stderr)

    def summary(self, final: dict[str, Any], note: str = "") -> str:
        """The end line: the residual (what it measures) and the error bound, or why none.

        Examples
        --------
        >>> rec = StatsRecorder(argparse.Namespace(), "pagerank")
        >>> rec.summary({"residual": 1e-9, "error_bound": 5.7e-9, "converged": True}, "L1")
        'residual 1.0e-09 (L1 change of the last iteration); error bound 5.7e-09 (L1)'
        """
        what = _RESIDUALS.get(self.command, ("", "residual", False))[1]
        res = final.get("residual")
        head = "residual n/a" if res is None else f"residual {_number(res)} ({what})"
        if not final.get("converged", True):
            head = "stopped short: " + head
        bound = final.get("error_bound")
        if bound is not None:
            return f"{head}; error bound {bound:.1e}" + (f" ({note})" if note else "")
        return f"{head}; error bound: {note or _NO_BOUND.get(self.command, 'none')}"

    def _write(self, final: dict[str, Any]) -> None:
        """The rows as CSV, or rows and final values as JSON (by the extension), atomically."""
        if os.path.splitext(self.stats)[1].lower() == ".json":
            doc = {"command": self.command, **final, "rows": self.rows}
            text = json.dumps(_finite(doc), indent=1) + "\n"
        else:
            columns: dict[str, None] = {}
            for row in self.rows:
                columns.update(dict.fromkeys(row))
            buf = io.StringIO()
            w = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
            w.writeheader()
            w.writerows({k: _cell(v) for k, v in row.items()} for row in self.rows)
            text = buf.getvalue()
        with atomic_open(self.stats) as f:
            f.write(text)
        if not self.quiet:
            print(f"wrote {len(self.rows):,d} iterations' statistics to {self.stats}", file=sys.stderr)

    def _draw(self) -> None:
        """The residual (and error bound) per iteration, log scale where every value is > 0."""
        try:
            from matplotlib.figure import Figure
        except ImportError as exc:  # found at parse time, but broken
            raise GasError(
                f"--plot: matplotlib fails to import ({exc}); pip install 'gaslab[plot]'"
            ) from None
        fig = Figure(figsize=(6.4, 4.0))
        ax = fig.add_subplot()
        what = _RESIDUALS.get(self.command, ("", "residual", False))[1]
        series = [("residual", f"residual: {what}"), ("error_bound", "L1 error bound")]
        positive = True
        for key, label in series:
            pts = [(r.get("iteration", i), float(r[key])) for i, r in enumerate(self.rows) if key in r]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, marker=".", label=label)
                positive = positive and all(y > 0 for y in ys)
        if positive and self.rows:
            ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel("residual")
        ax.set_title(f"gas {self.command}: convergence")
        ax.grid(True, which="both", alpha=0.3)
        if self.rows:
            ax.legend()
        ext = os.path.splitext(self.plot)[1].lower().lstrip(".")
        with atomic_open(self.plot, "wb") as f:
            fig.savefig(f, format=ext)
        if not self.quiet:
            print(f"drew the convergence plot in {self.plot}", file=sys.stderr)


@contextlib.contextmanager
def recording(rec: StatsRecorder) -> Iterator[StatsRecorder]:
    """Finish ``rec`` (write ``--stats``/``--plot``, print how far the run got) when the run
    stops short with :class:`gas.ConvergenceError`, then let the error go on (exit status 3).

    Examples
    --------
    >>> rec = StatsRecorder(argparse.Namespace(quiet=True), "cc")
    >>> with recording(rec):
    ...     pass
    >>> rec.done  # a run that ends normally is finished by its command
    False
    """
    try:
        yield rec
    except ConvergenceError as exc:
        if rec.target_note and exc.args and rec.target_note not in str(exc):
            exc.args = (f"{exc.args[0]} ({rec.target_note})", *exc.args[1:])
        residual = getattr(exc, "residual", None)
        rec.finish(converged=False, residual=residual if isinstance(residual, float) else None)
        raise


def use_max_error(
    args: argparse.Namespace, num_vertices: int | None = None, rec: StatsRecorder | None = None
) -> None:
    """``gas pagerank``'s stopping rule: without ``--tol``, set ``args.tol`` to the networkx-rule
    tolerance that stops once the L1 error bound is below ``--max-error``
    (:func:`gas.cli.error_bound.pagerank_tol`).

    ``args.max_error_target`` says which rule the run uses (None: ``--tol``, networkx's rule).
    Called before the graph is loaded (``num_vertices`` None: checks ``--alpha``, and the
    tolerance is only provisional; a scaled-out file job's ranks recompute it from the vertex
    count, :func:`gas.cli.error_bound.program_for_job`) and again once it is known.

    Raises
    ------
    gas.GasError
        ``--alpha 1``: no contraction factor, no bound.

    Examples
    --------
    >>> ns = argparse.Namespace(tol=None, max_error=1e-6, alpha=0.5, engine="sync")
    >>> use_max_error(ns, 10)
    >>> ns.tol, ns.max_error_target
    (1e-07, 1e-06)
    """
    from gas.cli.error_bound import pagerank_tol

    if getattr(args, "max_error_target", None) is None:
        if args.tol is not None:
            args.max_error_target = None
            return
        if float(args.alpha) >= 1.0:
            raise GasError(
                "--alpha 1 has no contraction factor, so --max-error cannot be bounded; "
                "hint: give --tol (networkx's rule: L1 change below num_vertices * tol) or --alpha below 1"
            )
        args.max_error_target = float(args.max_error)
    limit = args.max_error_target
    n = 1 if num_vertices is None else num_vertices
    args.tol = pagerank_tol(limit, float(args.alpha), n, getattr(args, "engine", "sync") or "sync")
    if rec is not None:
        rec.target_note = f"that is, an L1 error bound below --max-error {limit:g}"


def finish_pagerank(
    rec: StatsRecorder, args: argparse.Namespace, g: Any, ranks: Any, res: Any, personalized: bool = False
) -> None:
    """Finish a one-process PageRank's record with its residual and error bound.

    Raises
    ------
    gas.ConvergenceError
        With ``--max-error``: the bound measured after the run is above it (the asynchronous
        engine's per-vertex rule only approximates it); ``result`` holds the ranks.
    """
    from gas.errors import convergence_error

    residual, bound, note = pagerank_bound(args, g, ranks, res, personalized)
    limit = getattr(args, "max_error_target", None)
    if limit is not None:
        note += f"; --max-error {limit:g}"
    short = limit is not None and bound is not None and bound > limit
    rec.finish(converged=not short, residual=residual, bound=bound, note=note)
    if short:
        rec.target_note = ""  # the message says it
        raise convergence_error(
            f"PageRank ended with an L1 error bound of {bound:.1e}, above --max-error {limit:g}; "
            "hint: lower --max-error for this engine, or run --engine sync",
            iterations=res.iterations,
            residual=bound,
            target=limit,
            result=ranks,
        )


def pagerank_bound(
    args: argparse.Namespace, g: Any, ranks: Any, res: Any, personalized: bool = False
) -> tuple[float | None, float | None, str]:
    """PageRank's final residual, L1 error bound and what the bound is (or why there is none).

    The synchronous engine's last step bounds the error by ``alpha / (1 - alpha)`` times its L1
    change (unless the last step was an extrapolation); otherwise one more power step from the
    ranks bounds it by ``|G(x) - x| / (1 - alpha)`` (uniform teleport only). See
    :mod:`gas.cli.error_bound` for the derivation.
    """
    from gas.algorithms.pagerank import power_step_change
    from gas.cli.error_bound import contraction_bound, residual_bound

    alpha = float(args.alpha)
    if alpha >= 1.0:
        return None, None, "none: alpha = 1 has no contraction factor"
    last = res.stats[-1] if getattr(res, "stats", None) else {}
    change = float(res.aggregates.get("change", math.nan)) if getattr(res, "aggregates", None) else math.nan
    if math.isfinite(change) and "change" in last and not last.get("extrapolated"):
        why = "L1 distance to the fixed point, from the last change"
        return change, contraction_bound(change, alpha), why
    if personalized or not hasattr(g, "edata"):
        return None, None, "none: the run's last step does not bound it"
    weight = "weight" if getattr(args, "weighted", False) and "weight" in g.edata else None
    step = power_step_change(g, ranks, alpha, weight)
    return step, residual_bound(step, alpha), "L1 distance to the fixed point, from one more power step"


def _number(x: Any) -> str:
    x = float(x)
    return f"{int(x):d}" if x.is_integer() and abs(x) < 1e15 else f"{x:.1e}"


def _cell(v: Any) -> Any:
    return "" if isinstance(v, float) and not math.isfinite(v) else v


def _finite(x: Any) -> Any:
    """``x`` with non-finite floats as None (JSON has no NaN)."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x
