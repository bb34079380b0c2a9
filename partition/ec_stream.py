"""``ldg`` and ``fennel``: streaming edge-cuts (see :mod:`gas.partition._vstream`)."""

from __future__ import annotations

import math

import numpy as np

from gas.errors import InputError
from gas.partition._stream import vertex_order
from gas.partition._vstream import FENNEL, LDG, vertex_stream
from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import seed_to_uint


class _VertexStreamBase(Partitioner):
    kind = "edge-cut"
    mode = LDG

    def check_options(self) -> None:
        super().check_options()
        for k in ("slack", "gamma"):
            if k in self.options:
                x = self.options[k]
                if isinstance(x, bool) or not isinstance(x, (int, float)) or not x >= 1.0:
                    raise InputError(f"Expected {k} to be a number >= 1 (got {x!r})")
        if self.options["balance"] not in ("edges", "vertices"):
            raise InputError(f"Expected balance 'edges' or 'vertices' (got {self.options['balance']!r})")

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        n, m = inp.num_vertices, inp.num_edges
        if self.options["balance"] == "edges":
            weight = np.asarray(inp.in_degree, dtype=np.float64) + 1.0
        else:
            weight = np.ones(n, dtype=np.float64)
        total = float(weight.sum())
        cap = max(float(weight.max()), float(self.options["slack"]) * total / num_parts)
        gamma = float(self.options.get("gamma", 1.5))
        # Fennel's alpha = sqrt(P) m / n**gamma, rescaled from vertex counts to weight units
        alpha = math.sqrt(num_parts) * m / n**gamma * (n / total) ** gamma if n else 0.0
        order = vertex_order(n, self.options["order"], seed).astype(np.int64)
        o_ptr, o_nbr, _ = inp.out_adj
        i_ptr, i_nbr, _ = inp.in_adj
        return vertex_stream(
            order,
            o_ptr,
            o_nbr,
            i_ptr,
            i_nbr,
            weight,
            num_parts,
            self.mode,
            cap,
            alpha,
            gamma,
            seed_to_uint(seed),
        )


@register
class LinearDeterministicGreedy(_VertexStreamBase):
    """LDG streaming edge-cut: most neighbours, discounted by fullness.

    Parameters
    ----------
    slack : float, default 1.05
        Part capacity is ``slack`` times the mean part weight.
    balance : {"edges", "vertices"}, default "edges"
        Vertex weight ``1 + in-degree`` (balances the edges stored on each part) or 1.
    order : {"shuffle", "input"}, default "shuffle"
        Vertex stream order.

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]), "ldg", 2)
    >>> int(a.vertices_per_part.max()) <= 6
    True
    """

    name = "ldg"
    summary = "Linear Deterministic Greedy, shuffled vertex stream"
    defaults = {"slack": 1.05, "balance": "edges", "order": "shuffle"}
    mode = LDG


@register
class Fennel(_VertexStreamBase):
    """Fennel streaming edge-cut with ``alpha = sqrt(P) m / n**gamma``.

    Parameters
    ----------
    gamma : float, default 1.5
        Exponent of the size penalty.
    slack : float, default 1.05
        Hard capacity: ``slack`` times the mean part weight (the paper's nu; it used 1.1).
    balance : {"edges", "vertices"}, default "edges"
        Vertex weight ``1 + in-degree`` (balances the edges stored on each part) or 1.
    order : {"shuffle", "input"}, default "shuffle"
        Vertex stream order.

    Examples
    --------
    >>> from gas.partition import partition
    >>> a = partition(([0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]), "fennel", 2)
    >>> 0 <= a.edge_cut_fraction <= 1
    True
    """

    name = "fennel"
    summary = "Fennel, shuffled vertex stream"
    defaults = {"gamma": 1.5, "slack": 1.05, "balance": "edges", "order": "shuffle"}
    mode = FENNEL
