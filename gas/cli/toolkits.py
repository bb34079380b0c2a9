"""``gas triangles`` and ``gas clustering``: triangle counts and clustering coefficients on the
undirected simple view of an edge list (directions, repeated edges and self-loops ignored, as
networkx's ``triangles``/``clustering`` on ``G.to_undirected()``); ``gas scc``: strongly
connected components (each labelled by its smallest original id).

Each prints a summary on stdout and writes ``id<TAB>value`` per vertex with ``--output``;
``--procs N`` runs the vertex programs on N local processes (same answer), and
``gas label-propagation --engine async`` runs the asynchronous variant.
"""

from __future__ import annotations

import argparse
from typing import Any

from gas.cli.args import procs
from gas.cli.common import HelpFormatter, add_async_options, add_common_options, load_graph, write_output
from gas.errors import GasError

__all__ = ["register"]


def _where(args: argparse.Namespace) -> dict[str, Any]:
    """The library keywords of ``--procs``/``--partition`` (none on one process)."""
    if getattr(args, "procs", 1) <= 1:
        return {}
    return {"procs": args.procs, "partition": args.partition}


def _cmd_triangles(args: argparse.Namespace) -> int:
    from gas.algorithms import transitivity, triangles

    g = load_graph(args)
    tri = triangles(g, threads=args.threads, **_where(args))
    print(f"triangles\t{int(tri.sum()) // 3}")
    print(f"transitivity\t{transitivity(g, threads=args.threads, **_where(args)):.6f}")
    write_output(args, g, tri, "%d")
    return 0


def _cmd_clustering(args: argparse.Namespace) -> int:
    from gas.algorithms import clustering

    g = load_graph(args)
    coef = clustering(g, threads=args.threads, **_where(args))
    print(f"average_clustering\t{float(coef.mean()) if coef.size else 0.0:.6f}")
    write_output(args, g, coef, "%.17g")
    return 0


def _cmd_scc(args: argparse.Namespace) -> int:
    import numpy as np

    from gas.algorithms import strongly_connected_components

    g = load_graph(args)
    comp = strongly_connected_components(g, threads=args.threads, **_where(args))
    labels, sizes = np.unique(comp, return_counts=True)
    print(f"components\t{labels.size}")
    if sizes.size:
        print(f"largest\t{int(sizes.max())}")
    write_output(args, g, g.ids[comp], "%s")  # each component named by its smallest original id
    return 0


def _cmd_kcore(args: argparse.Namespace) -> int:
    from gas.algorithms import core_number

    g = load_graph(args)
    core = core_number(g, threads=args.threads, **_where(args))
    print(f"max_core\t{int(core.max()) if core.size else 0}")
    write_output(args, g, core, "%d")
    return 0


def _cmd_label_propagation(args: argparse.Namespace) -> int:
    import numpy as np

    from gas.algorithms import label_propagation_communities

    g = load_graph(args)
    if args.engine == "async":
        if args.procs > 1:
            raise GasError("--engine async label propagation runs on one process: drop --procs")
        from gas.algorithms.label_propagation_variants import label_propagation_async

        label = label_propagation_async(
            g, threads=args.threads, scheduler=args.scheduler, consistency=args.consistency or "edge"
        )
    else:
        label = label_propagation_communities(g, threads=args.threads, **_where(args))
    print(f"communities\t{np.unique(label).size}")
    write_output(args, g, g.ids[label], "%s")  # each community named by its smallest original id
    return 0


def _cmd_degree(args: argparse.Namespace) -> int:
    import numpy as np

    g = load_graph(args)
    din, dout = g.in_degree, g.out_degree
    print(f"max_in\t{int(din.max()) if din.size else 0}")
    print(f"max_out\t{int(dout.max()) if dout.size else 0}")
    both = np.char.add(np.char.add(din.astype(str), "\t"), dout.astype(str))
    write_output(args, g, both, "%s")
    return 0


def register(sub: Any) -> None:
    """Add ``triangles`` and ``clustering`` to the ``gas`` command's subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["triangles", "g.txt"]).command
    'triangles'
    """
    for name, func, what, fmt in (
        ("triangles", _cmd_triangles, "triangles through each vertex", "id<TAB>count"),
        ("clustering", _cmd_clustering, "local clustering coefficient of each vertex", "id<TAB>coefficient"),
        ("scc", _cmd_scc, "strongly connected components", "id<TAB>component (its smallest id)"),
        ("degree", _cmd_degree, "in- and out-degree of each vertex (as stored)", "id<TAB>in<TAB>out"),
        ("kcore", _cmd_kcore, "core number (k-core decomposition) of each vertex", "id<TAB>core"),
        (
            "label-propagation",
            _cmd_label_propagation,
            "label propagation communities (networkx's semi-synchronous rule)",
            "id<TAB>label (the community's smallest id)",
        ),
    ):
        p = sub.add_parser(
            name,
            help=what,
            formatter_class=HelpFormatter,
            description=f"The {what}"
            + (
                ""
                if name in ("scc", "degree")
                else ", on the undirected simple view (directions, repeated edges and self-loops ignored)"
            )
            + f"; --output writes {fmt}.",
        )
        add_common_options(p)
        if name != "degree":
            _add_procs_options(p)
        if name == "label-propagation":
            add_async_options(p)
        p.set_defaults(func=func)


def _add_procs_options(p: argparse.ArgumentParser) -> None:
    """``--procs`` and ``--partition`` (the toolkits take no snapshots or staleness)."""
    from gas.partition import available_methods

    g = p.add_argument_group("process runtime")
    g.add_argument("--procs", type=procs, default=1, help="run on N local processes (same answer)")
    g.add_argument(
        "--partition",
        default="hdrf",
        choices=list(available_methods()),
        metavar="METHOD",
        help="partitioner for --procs: " + ", ".join(available_methods()),
    )
