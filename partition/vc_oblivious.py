"""``oblivious``: PowerGraph's greedy streaming vertex-cut (Gonzalez et al., OSDI 2012).

Score form, as in PowerGraph's implementation of the heuristic: each part scores one point per
endpoint it already holds plus the HDRF-style balance term weighted by ``lam``; the edge goes
to the best part (ties at random). See :mod:`gas.partition._greedy` for the formula and
:mod:`gas.partition._stream` for the stream order (default: a seeded uniform shuffle).
"""

from __future__ import annotations

import numpy as np

from gas.errors import InputError
from gas.partition._greedy import greedy_stream
from gas.partition._stream import EdgeStream
from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import seed_to_uint


class _GreedyBase(Partitioner):
    degree_weighted = False
    defaults = {"lam": 1.0, "order": "shuffle"}

    def check_options(self) -> None:
        super().check_options()
        lam = self.options["lam"]
        if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not lam >= 0:
            raise InputError(f"Expected lam (the balance weight) to be a number >= 0 (got {lam!r})")

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        stream = EdgeStream(inp.src, inp.dst, self.options["order"], seed)
        parts = greedy_stream(
            stream.src,
            stream.dst,
            inp.num_vertices,
            num_parts,
            float(self.options["lam"]),
            self.degree_weighted,
            seed_to_uint(seed),
        )
        return stream.to_input_order(parts)


@register
class Oblivious(_GreedyBase):
    """Greedy streaming vertex-cut: prefer parts holding the endpoints, then the lighter part.

    Parameters
    ----------
    lam : float, default 1.0
        Weight of the balance term.
    order : {"shuffle", "input"}, default "shuffle"
        Stream order: a seeded uniform permutation, or the input order.

    Examples
    --------
    >>> from gas.partition import partition
    >>> star = ([0, 0, 0, 0], [1, 2, 3, 4])
    >>> partition(star, "oblivious", 2).edges_per_part.tolist()  # replication beats balance
    [4, 0]
    >>> partition(star, "oblivious", 2, lam=10.0).edges_per_part.tolist()
    [2, 2]
    """

    name = "oblivious"
    kind = "vertex-cut"
    summary = "PowerGraph greedy (score form), shuffled stream"


@register
class HDRF(_GreedyBase):
    """High-Degree (are) Replicated First (Petroni et al., CIKM 2015), streaming vertex-cut.

    Parameters
    ----------
    lam : float, default 1.0
        The balance weight lambda. With ``lam = 1`` and the default shuffled order the edge
        balance stays near 1; on a *sorted* stream (``order="input"`` on a CSR graph) ``lam = 1``
        puts most edges on one part, so raise ``lam`` if the input order must be kept.
    order : {"shuffle", "input"}, default "shuffle"
        Stream order.

    Examples
    --------
    >>> from gas.partition import partition
    >>> star = ([0, 0, 0, 0], [1, 2, 3, 4])
    >>> partition(star, "hdrf", 2, lam=10.0).edges_per_part.tolist()  # the hub is replicated
    [2, 2]
    """

    name = "hdrf"
    kind = "vertex-cut"
    summary = "HDRF: replicate high-degree vertices first (partial degrees), shuffled stream"
    degree_weighted = True
