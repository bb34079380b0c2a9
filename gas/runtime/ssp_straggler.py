"""Simulated stragglers for bounded-staleness (SSP) runs: parsing and per-superstep delays.

A straggler is given as ``(rank, seconds)`` or a ``"RANK:SECONDS"`` string; ``RANK`` may be
``any`` for a transient straggler, a different rank each superstep drawn by a fixed hash
(:func:`slow_rank`), so that BSP and SSP runs meet the same delays. :func:`straggler_delay` is the
sleep one rank takes at the start of a superstep. Used by :mod:`gas.runtime.ssp` (which
re-exports these names) and by the command line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.errors import GasError
from gas.splitmix import GOLDEN, finalize64

ANY_RANK = -1  # the straggler moves: each superstep one rank, drawn by :func:`slow_rank`


MAX_STRAGGLER_SECONDS = 3600.0  # a simulated delay per superstep; past it timers overflow


def parse_straggler(spec: Any) -> tuple[int, float]:
    """``(rank, seconds)`` from a tuple or a ``"RANK:SECONDS"`` string.

    ``RANK`` may be ``any``: a *transient* straggler, a different rank each superstep
    (:func:`slow_rank`), returned as rank ``ANY_RANK`` (-1).

    Examples
    --------
    >>> parse_straggler("1:0.05")
    (1, 0.05)
    >>> parse_straggler("any:0.05")
    (-1, 0.05)
    """
    if isinstance(spec, str):
        rank_s, sep, secs_s = spec.partition(":")
        try:
            if not sep:
                raise ValueError
            rank = ANY_RANK if rank_s.strip().lower() == "any" else int(rank_s)
            secs = float(secs_s)
        except ValueError:
            raise GasError(
                f"Expected --straggler RANK:SECONDS or any:SECONDS, e.g. 1:0.05 (got {spec!r})"
            ) from None
    else:
        try:
            rank = ANY_RANK if str(spec[0]).lower() == "any" else int(spec[0])
            secs = float(spec[1])
        except (TypeError, ValueError, IndexError):
            raise GasError(f"Expected a straggler (rank, seconds) (got {spec!r})") from None
    if rank < ANY_RANK or not np.isfinite(secs) or not 0 <= secs <= MAX_STRAGGLER_SECONDS:
        raise GasError(
            f"Expected a straggler rank >= 0 (or any) and a delay >= 0 seconds, at most "
            f"{MAX_STRAGGLER_SECONDS:g} (got {rank}:{secs})"
        )
    return rank, secs


def slow_rank(superstep: int, size: int) -> int:
    """The rank a transient straggler (``any:SECONDS``) slows in ``superstep``: a fixed hash.

    Every rank computes the same answer, so BSP and SSP runs meet the same delays.

    Examples
    --------
    >>> [slow_rank(c, 2) for c in range(8)]
    [1, 0, 0, 0, 0, 0, 0, 0]
    >>> sum(slow_rank(c, 2) for c in range(1000))  # about half the supersteps on each rank
    495
    """
    z = np.uint64((int(superstep) + 1) * int(GOLDEN) & 0xFFFFFFFFFFFFFFFF)
    return int(int(finalize64(z)) >> 32) % size


def straggler_delay(straggler: Any, rank: int, size: int, superstep: int) -> float:
    """Seconds ``rank`` sleeps at the start of ``superstep`` (0 without a straggler)."""
    if straggler is None:
        return 0.0
    srank, secs = parse_straggler(straggler)
    if srank == ANY_RANK:
        srank = slow_rank(superstep, size)
    return secs if srank == rank else 0.0
