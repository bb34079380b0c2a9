"""Stream orders for the streaming partitioners: the input order, or a seeded uniform shuffle.

A sorted edge list is the worst case for greedy streaming: with balance weight 1 the first
edges of a sorted stream pull almost everything onto one part. The default order is therefore
a uniformly random permutation drawn from the seed.

The shuffle is cache-friendly for streams far larger than the cache: every edge goes to one of
``ceil(m / 2**14)`` buckets chosen by a seeded hash of its edge id (a counting-sort scatter with
a few thousand sequential write streams), then each bucket is shuffled in place with
Fisher-Yates. Independent uniform buckets plus uniform shuffles inside them give a uniform
permutation. The permutation is never stored: mapping per-edge results back to the input order
recomputes the bucket of each edge and replays the Fisher-Yates swaps backwards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gas.partition.hashing import hash_vertex, next_random, reduce_range, seed_state, seed_to_uint

__all__ = ["EdgeStream", "vertex_order", "ORDERS"]

ORDERS = ("shuffle", "input")
_BUCKET = 1 << 14


@njit(cache=True)
def _scatter(src: np.ndarray, dst: np.ndarray, seed: np.uint64, nb: np.int64, s: np.ndarray, d: np.ndarray):
    m = src.shape[0]
    ptr = np.zeros(nb + 1, np.int64)
    for e in range(m):
        ptr[reduce_range(hash_vertex(e, seed), nb) + 1] += 1
    for b in range(nb):
        ptr[b + 1] += ptr[b]
    pos = ptr[:-1].copy()
    for e in range(m):
        b = reduce_range(hash_vertex(e, seed), nb)
        k = pos[b]
        s[k] = src[e]
        d[k] = dst[e]
        pos[b] = k + 1
    state = np.empty(1, np.uint64)
    for b in range(nb):
        state[0] = seed_state(seed, b)
        lo = ptr[b]
        for i in range(ptr[b + 1] - 1, lo, -1):
            j = lo + reduce_range(next_random(state), i - lo + 1)
            s[i], s[j] = s[j], s[i]
            d[i], d[j] = d[j], d[i]
    return ptr


@njit(cache=True)
def _gather_back(parts: np.ndarray, ptr: np.ndarray, seed: np.uint64) -> np.ndarray:
    nb = ptr.shape[0] - 1
    m = parts.shape[0]
    work = parts.copy()
    biggest = 0
    for b in range(nb):
        biggest = max(biggest, ptr[b + 1] - ptr[b])
    swaps = np.empty(biggest, np.int64)
    state = np.empty(1, np.uint64)
    for b in range(nb):
        state[0] = seed_state(seed, b)
        lo = ptr[b]
        hi = ptr[b + 1]
        for i in range(hi - 1, lo, -1):
            swaps[hi - 1 - i] = lo + reduce_range(next_random(state), i - lo + 1)
        for i in range(lo + 1, hi):
            j = swaps[hi - 1 - i]
            work[i], work[j] = work[j], work[i]
    out = np.empty(m, parts.dtype)
    pos = ptr[:-1].copy()
    for e in range(m):
        b = reduce_range(hash_vertex(e, seed), nb)
        out[e] = work[pos[b]]
        pos[b] += 1
    return out


class EdgeStream:
    """The edges in the order a streaming partitioner reads them.

    Parameters
    ----------
    src, dst : ndarray of int64
        Edges in input order.
    order : {"shuffle", "input"}
        ``"shuffle"``: a uniform random permutation determined by ``seed``; ``"input"``: as given.
    seed : int
        Seed of the permutation.

    Attributes
    ----------
    src, dst : ndarray
        Edges in stream order (``int32`` when every id fits, else ``int64``).

    Examples
    --------
    >>> import numpy as np
    >>> st = EdgeStream(np.arange(5), np.arange(5) + 10, "shuffle", seed=3)
    >>> sorted(st.src.tolist())
    [0, 1, 2, 3, 4]
    >>> st.to_input_order(st.src).tolist()
    [0, 1, 2, 3, 4]
    """

    def __init__(self, src: np.ndarray, dst: np.ndarray, order: str, seed: int) -> None:
        if order not in ORDERS:
            raise ValueError(f"Expected order in {ORDERS} (got {order!r})")
        self.order = order
        self._seed = seed_to_uint(seed)
        m = src.shape[0]
        top = max(int(src.max()), int(dst.max())) if m else 0
        # int32 ids when they fit: half the memory traffic in the shuffle and the kernels
        dtype = np.int32 if top < 2**31 else np.int64
        if order == "input":
            self._ptr = None
            self.src, self.dst = src.astype(dtype), dst.astype(dtype)
        else:
            self.src, self.dst = np.empty(m, dtype), np.empty(m, dtype)
            nb = max(1, -(-m // _BUCKET))
            self._ptr = _scatter(src, dst, self._seed, nb, self.src, self.dst)

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Per-edge ``values`` given in stream order, rearranged into input order."""
        if self._ptr is None:
            return values
        return _gather_back(values, self._ptr, self._seed)


def vertex_order(num_vertices: int, order: str, seed: int) -> np.ndarray:
    """Vertex visiting order for vertex-streaming partitioners (``"shuffle"`` or ``"input"``).

    Examples
    --------
    >>> vertex_order(4, "input", 0).tolist()
    [0, 1, 2, 3]
    >>> sorted(vertex_order(4, "shuffle", 7).tolist())
    [0, 1, 2, 3]
    """
    if order not in ORDERS:
        raise ValueError(f"Expected order in {ORDERS} (got {order!r})")
    if order == "input":
        return np.arange(num_vertices, dtype=np.int64)
    return np.random.default_rng(seed_to_uint(seed).item()).permutation(num_vertices)
