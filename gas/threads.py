"""Numba thread count set for a block and restored afterwards."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numba

from gas.errors import GasError

__all__ = ["num_threads"]


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
