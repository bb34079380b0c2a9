"""``gas hits``, ``gas katz`` and ``gas eigenvector``: link-analysis centralities of an edge list.

Each runs the library function of the same name (:func:`gas.algorithms.hits.hits`,
:func:`gas.algorithms.centrality.katz_centrality`,
:func:`gas.algorithms.centrality.eigenvector_centrality`: networkx's iterations, stopping rules
and normalisations), prints the top vertices on stdout and writes ``id<TAB>value`` per vertex
(``id<TAB>hub<TAB>authority`` for HITS) with ``--output``, with the original ids. ``--weighted``
reads the third column as edge weights; ``--procs N`` runs on N local processes with the same
answer. A run that stops at ``--max-iter`` exits with status 3 (its partial scores are written
only with ``--allow-unconverged``).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from gas.cli.args import finite_float, nonneg_int, positive_int, procs, tolerance
from gas.cli.common import (
    HelpFormatter,
    add_common_options,
    load_graph,
    progress_printer,
    unconverged_output,
    write_output,
)
from gas.cli.stats import StatsRecorder, add_stats_options, recording
from gas.errors import ConvergenceError

__all__ = ["register"]


def _how(args: argparse.Namespace, rec: StatsRecorder) -> dict[str, Any]:
    """The run settings every centrality subcommand passes to its library function (``rec``
    records each iteration for ``--stats``/``--plot``)."""
    return dict(
        threads=args.threads,
        procs=args.procs,
        partition=args.partition,
        progress=rec.wrap(progress_printer(args.quiet)),
    )


def _weight(args: argparse.Namespace) -> str | None:
    return "weight" if args.weighted else None


def _print_top(g: Any, order_by: np.ndarray, columns: dict[str, np.ndarray], top: int) -> None:
    """The ``top`` vertices by ``order_by`` (highest first), one ``id<TAB>...`` line each."""
    if not top:
        return
    print("\t".join(["id", *columns]))
    for v in np.argsort(-order_by, kind="stable")[:top].tolist():
        print("\t".join([str(g.ids[v])] + [f"{c[v]:.17g}" for c in columns.values()]))


def _pairs(hubs: np.ndarray, auth: np.ndarray) -> np.ndarray:
    """``hub<TAB>authority`` strings, 17 significant digits each."""
    return np.array([f"{h:.17g}\t{a:.17g}" for h, a in zip(hubs.tolist(), auth.tolist())], dtype=object)


@contextlib.contextmanager
def _unconverged_pairs(args: argparse.Namespace, g: Any) -> Iterator[None]:
    """:func:`gas.cli.common.unconverged_output` for HITS, whose partial result is two arrays."""
    try:
        yield
    except ConvergenceError as exc:
        if args.allow_unconverged and isinstance(exc.result, tuple):
            write_output(args, g, _pairs(*exc.result), "%s")
        raise


def _cmd_hits(args: argparse.Namespace) -> int:
    from gas.algorithms.hits import hits

    g = load_graph(args, weights=args.weighted)
    with _unconverged_pairs(args, g), recording(rec := StatsRecorder(args, "hits")):
        hubs, auth = hits(g, max_iter=args.max_iter, tol=args.tol, weight=_weight(args), **_how(args, rec))
    rec.finish()
    _print_top(g, auth, {"hub": hubs, "authority": auth}, args.top)
    write_output(args, g, _pairs(hubs, auth), "%s")
    return 0


def _cmd_katz(args: argparse.Namespace) -> int:
    from gas.algorithms.centrality import katz_centrality

    g = load_graph(args, weights=args.weighted)
    with unconverged_output(args, g, "%.17g"), recording(rec := StatsRecorder(args, "katz")):
        x = katz_centrality(
            g,
            alpha=args.alpha,
            beta=args.beta,
            max_iter=args.max_iter,
            tol=args.tol,
            weight=_weight(args),
            **_how(args, rec),
        )
    rec.finish()
    _print_top(g, x, {"katz": x}, args.top)
    write_output(args, g, x, "%.17g")
    return 0


def _cmd_eigenvector(args: argparse.Namespace) -> int:
    from gas.algorithms.centrality import eigenvector_centrality

    g = load_graph(args, weights=args.weighted)
    with unconverged_output(args, g, "%.17g"), recording(rec := StatsRecorder(args, "eigenvector")):
        x = eigenvector_centrality(
            g, max_iter=args.max_iter, tol=args.tol, weight=_weight(args), **_how(args, rec)
        )
    rec.finish()
    _print_top(g, x, {"eigenvector": x}, args.top)
    write_output(args, g, x, "%.17g")
    return 0


def _add_shared(p: argparse.ArgumentParser, max_iter: int, tol: float, rule: str) -> None:
    """The options the three subcommands share (after FILE and the common ones)."""
    from gas.partition import available_methods

    add_common_options(p)
    p.add_argument(
        "--max-iter", type=positive_int, default=max_iter, help="most iterations (networkx's default)"
    )
    p.add_argument("--tol", type=tolerance, default=tol, help=f"stop when {rule} (networkx's default)")
    p.add_argument(
        "--weighted", action="store_true", help="use the third column as edge weights (else: every edge 1)"
    )
    p.add_argument("--top", type=nonneg_int, default=10, help="print the top K vertices (0: none)")
    p.add_argument("--procs", type=procs, default=1, help="run on N local processes (same answer)")
    p.add_argument(
        "--partition",
        default="hdrf",
        choices=list(available_methods()),
        metavar="METHOD",
        help="partitioner for --procs: " + ", ".join(available_methods()),
    )
    add_stats_options(p)


def register(sub: Any) -> None:
    """Add ``hits``, ``katz`` and ``eigenvector`` to the ``gas`` command's subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> a = parser.parse_args(["katz", "g.txt", "--alpha", "0.05"])
    >>> a.alpha, a.beta, a.max_iter, a.procs
    (0.05, 1.0, 1000, 1)
    """
    p = sub.add_parser(
        "hits",
        help="HITS hub and authority scores",
        formatter_class=HelpFormatter,
        description="HITS hubs and authorities as networkx.hits: each vector sums to 1; prints the top "
        "authorities; --output writes id<TAB>hub<TAB>authority.",
    )
    _add_shared(p, 100, 1e-8, "the L1 change of the hub vector (divided by its maximum) < tol")
    p.set_defaults(func=_cmd_hits)

    p = sub.add_parser(
        "katz",
        help="Katz centrality",
        formatter_class=HelpFormatter,
        description="Katz centrality as networkx.katz_centrality: x = alpha * A^T x + beta over "
        "in-edges, unit L2 norm; --output writes id<TAB>score.",
    )
    _add_shared(p, 1000, 1e-6, "the L1 change < num_vertices * tol")
    p.add_argument(
        "--alpha", type=finite_float, default=0.1, help="attenuation factor (below 1 / largest eigenvalue)"
    )
    p.add_argument("--beta", type=finite_float, default=1.0, help="every vertex's own weight")
    p.set_defaults(func=_cmd_katz)

    p = sub.add_parser(
        "eigenvector",
        help="eigenvector centrality",
        formatter_class=HelpFormatter,
        description="Eigenvector centrality as networkx.eigenvector_centrality (power iteration on "
        "A^T + I over in-edges, unit L2 norm); --output writes id<TAB>score.",
    )
    _add_shared(p, 100, 1e-6, "the L1 change < num_vertices * tol")
    p.set_defaults(func=_cmd_eigenvector)
