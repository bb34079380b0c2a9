"""Numba threads: the count set for a block and restored afterwards (:func:`num_threads`), and
the order in which a kernel's ``prange`` hands vertex ranges to them (:func:`spread_step`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numba

from gas.errors import GasError

__all__ = ["num_threads", "spread_step"]


@contextlib.contextmanager
def num_threads(n: int | None) -> Iterator[int]:
    """Run the block with ``n`` Numba threads (``None``: leave as is); restore the old count.

    Examples
    --------
    >>> with num_threads(1) as t:
    ...     t
    1
    """
    old = numba.get_num_threads()
    if n is None:
        yield old
        return
    if not isinstance(n, int) or n < 1:
        raise GasError(f"Expected 'threads' to be a positive integer (got {n!r})")
    n = min(n, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(old)


def spread_step(n: int) -> int:
    """A step coprime with ``n``, about ``n / 2``: a kernel's ``prange`` over ``n`` vertex ranges
    runs range ``(i * step) % n`` at iteration ``i`` (each range once).

    Numba schedules a ``prange`` statically: each of ``T`` threads runs one contiguous block of
    about ``n / T`` iterations. Taken in id order, the ranges of an active set that lies in one
    part of the id range (one side of a bipartite graph: ALS's users, LDA's documents) all fell
    to one thread while the others idled; in this order every thread's block holds ranges from
    the whole id range. (An engine on one thread makes one range, ``n = 1``: it visits the
    vertices in id order, which SGD's sequential order relies on.) Measured on a 3 M-rating ALS,
    2 threads: 2.16 s against 4.06 s for 3 iterations (bench/RESULTS.md, "Vertex ranges in a
    spread order").

    Examples
    --------
    >>> step = spread_step(8)
    >>> step, [(i * step) % 8 for i in range(8)], spread_step(1)
    (5, [0, 5, 2, 7, 4, 1, 6, 3], 1)
    """
    step = n // 2 + 1
    while True:  # the first coprime step from n // 2 + 1 (consecutive integers: at most a few tries)
        a, b = step, n
        while b:
            a, b = b, a % b
        if a == 1:
            return step
        step += 1
