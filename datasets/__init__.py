"""Graphs to try things on: synthetic generators and one small real graph bundled with gaslab.

The bundled files and their sources, counts and citations are listed in ``data/README.md``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gas.errors import InputError
from gas.graph import Graph
from gas.io.edgelist import read_edgelist

from .generators import powerlaw, rmat, rmat_graph
from .synthetic_corpus import lda_corpus
from .synthetic_ratings import synthetic_ratings

__all__ = [
    "bundled",
    "load_bundled",
    "lda_corpus",
    "powerlaw",
    "rmat",
    "rmat_graph",
    "synthetic_ratings",
    "BUNDLED",
]

_DATA = Path(__file__).resolve().parent / "data"

#: Name -> file name under ``data/`` of each bundled graph.
BUNDLED = {"ego-Facebook": "ego-Facebook.txt.gz"}


def bundled(name: str = "ego-Facebook") -> Path:
    """Path of a bundled graph file.

    Raises
    ------
    InputError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> bundled().name
    'ego-Facebook.txt.gz'
    """
    if name not in BUNDLED:
        raise InputError(
            f"no bundled dataset named {name!r}",
            hint=f"bundled datasets: {', '.join(sorted(BUNDLED))}",
        )
    return _DATA / BUNDLED[name]


def load_bundled(name: str = "ego-Facebook", *, symmetric: bool = False) -> Graph:
    """Load a bundled graph.

    Parameters
    ----------
    name : str, default "ego-Facebook"
        One of :data:`BUNDLED`.
    symmetric : bool, default False
        Store each listed edge in both directions (for undirected graphs such as ego-Facebook,
        whose file lists each edge once).

    Examples
    --------
    >>> g = load_bundled()
    >>> g.num_vertices, g.num_edges
    (4039, 88234)
    >>> load_bundled(symmetric=True).num_edges
    176468
    """
    src, dst, w = read_edgelist(bundled(name))
    if symmetric:
        loops = src == dst
        src, dst = np.concatenate([src, dst[~loops]]), np.concatenate([dst, src[~loops]])
        if w is not None:
            w = np.concatenate([w, w[~loops]])
    return Graph.from_edges(src, dst, weights=w)
