"""Atomic output: write to a temporary file in the target folder, then rename over the target."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO

__all__ = ["atomic_open"]


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[IO]:
    """Open ``path`` for writing so that readers see the old file or the complete new one.

    The data goes to a temporary file beside ``path``; on success it is flushed, fsynced and
    renamed over ``path``. On an exception the temporary file is removed and ``path`` is untouched.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.tsv")
    >>> with atomic_open(p) as f:
    ...     _ = f.write("1\\t0.5\\n")
    >>> open(p).read()
    '1\\t0.5\\n'
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
