"""Memory and size limits of the corpus and ratings readers.

A header or a count can claim far more than the file holds; the readers check such claims
against :func:`default_max_tokens` (what :func:`available_memory` holds at
:data:`BYTES_PER_TOKEN` bytes a token) before allocating anything for them. See "Limits" in
:mod:`gas.io.corpus`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gas.errors import InputError

__all__ = ["BYTES_PER_TOKEN", "available_memory", "default_max_tokens"]


#: Bytes ``gas lda`` holds per token at its peak (the token edges of the graph and their CSR/CSC
#: copies, the topic of every token and the sampler's per-token arrays): the unit of
#: :func:`default_max_tokens`.
BYTES_PER_TOKEN = 128

_FALLBACK_MEMORY = 4 << 30  # when /proc/meminfo cannot be read
_MIN_DEFAULT_TOKENS = 1 << 20  # the default limit never goes below this


def _proc_kib(path: str, key: str) -> int | None:
    """The ``key:`` entry (in KiB) of a ``/proc`` status file, in bytes; None if absent."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def available_memory() -> int:
    """Bytes this process can still allocate: ``MemAvailable`` of ``/proc/meminfo``.

    Capped by the address-space limit (``ulimit -v``, ``RLIMIT_AS``) less what the process
    already maps; 4 GiB when ``/proc/meminfo`` cannot be read.

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    avail = _proc_kib("/proc/meminfo", "MemAvailable")
    avail = _FALLBACK_MEMORY if avail is None else avail
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        unlimited = soft == resource.RLIM_INFINITY or soft < 0
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        return avail
    if not unlimited:
        mapped = _proc_kib("/proc/self/status", "VmSize") or 0
        avail = min(avail, max(soft - mapped, 0))
    return avail


def default_max_tokens() -> int:
    """The default ``max_tokens``: :func:`available_memory` over :data:`BYTES_PER_TOKEN` (at
    least 2**20)."""
    return max(available_memory() // BYTES_PER_TOKEN, _MIN_DEFAULT_TOKENS)


def _token_limit(max_tokens: int | None) -> int:
    """``max_tokens`` checked, or the default when None."""
    if max_tokens is None:
        return default_max_tokens()
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, (int, np.integer)) or max_tokens < 1:
        raise InputError(f"Expected max_tokens to be a whole number >= 1 (got {max_tokens!r})")
    return int(max_tokens)


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:,.1f} GiB"


_LIMIT_HINT = (
    "the limit is max_tokens (by default what the available memory, now {avail}, holds at {per} "
    "bytes a token); if the file is right and the machine has the memory, raise it with "
    "--max-tokens N (library: max_tokens=N)"
)


def _over_limit(what: str, value: int, limit: int, path: str, line: int | None, text: str) -> InputError:
    """The error for a claim of ``value`` tokens/documents/words over ``limit``."""
    return InputError(
        f"{what} {value:,d}, more than the limit of {limit:,d} (gas lda would need about "
        f"{_gib(float(value) * BYTES_PER_TOKEN)} for that many)",
        path=path,
        line=line,
        text=text,
        hint=_LIMIT_HINT.format(avail=_gib(available_memory()), per=BYTES_PER_TOKEN),
    )


def _check_tokens(count: np.ndarray, limit: int, path: str, line_of: Callable[[int], int]) -> None:
    """Refuse counts adding up to more than ``limit`` tokens (at the line that crosses it), or
    to no token at all. Summed in float64: no int64 overflow, exact to 2**53."""
    total = np.cumsum(count, dtype=np.float64)
    if total.size == 0 or total[-1] <= 0:
        raise InputError(
            "the corpus holds no tokens (no document has a word with a positive count)",
            path=path,
            hint="a topic model needs at least one word in one document",
        )
    if total[-1] <= limit:
        return
    i = int(np.argmax(total > limit))
    raise _over_limit(
        "the word counts add up, by this line, to", int(total[i]), limit, path, line_of(i), str(int(count[i]))
    )
