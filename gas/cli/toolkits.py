"""``gas triangles`` and ``gas clustering``: triangle counts and clustering coefficients on the
undirected simple view of an edge list (directions, repeated edges and self-loops ignored, as
networkx's ``triangles``/``clustering`` on ``G.to_undirected()``); ``gas scc``: strongly
connected components (each labelled by its smallest original id).

Each prints a summary on stdout and writes ``id<TAB>value`` per vertex with ``--output`` (one
process: these programs read whole neighbour lists).
"""

from __future__ import annotations

import argparse
from typing import Any

from gas.cli.common import HelpFormatter, add_common_options, load_graph, write_output

__all__ = ["register"]


def _cmd_triangles(args: argparse.Namespace) -> int:
    from gas.algorithms import transitivity, triangles

    g = load_graph(args)
    tri = triangles(g, threads=args.threads)
    print(f"triangles\t{int(tri.sum()) // 3}")
    print(f"transitivity\t{transitivity(g, threads=args.threads):.6f}")
    write_output(args, g, tri, "%d")
    return 0


def _cmd_clustering(args: argparse.Namespace) -> int:
    from gas.algorithms import clustering

    g = load_graph(args)
    coef = clustering(g, threads=args.threads)
    print(f"average_clustering\t{float(coef.mean()) if coef.size else 0.0:.6f}")
    write_output(args, g, coef, "%.17g")
    return 0


def _cmd_scc(args: argparse.Namespace) -> int:
    import numpy as np

    from gas.algorithms import strongly_connected_components

    g = load_graph(args)
    comp = strongly_connected_components(g, threads=args.threads)
    labels, sizes = np.unique(comp, return_counts=True)
    print(f"components\t{labels.size}")
    if sizes.size:
        print(f"largest\t{int(sizes.max())}")
    write_output(args, g, comp, "%s")
    return 0


def _cmd_kcore(args: argparse.Namespace) -> int:
    from gas.algorithms import core_number

    g = load_graph(args)
    core = core_number(g, threads=args.threads)
    print(f"max_core\t{int(core.max()) if core.size else 0}")
    write_output(args, g, core, "%d")
    return 0


def _cmd_label_propagation(args: argparse.Namespace) -> int:
    import numpy as np

    from gas.algorithms import label_propagation_communities

    g = load_graph(args)
    label = label_propagation_communities(g, threads=args.threads)
    print(f"communities\t{np.unique(label).size}")
    write_output(args, g, label, "%s")
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
        p.set_defaults(func=func)
