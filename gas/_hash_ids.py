"""Numbering arbitrary 64-bit vertex ids 0..n-1 by hashing (:func:`gas._build.compact_ids`'s path
for ids spread too widely for a direct table).

:func:`hash_number` numbers the ids of the edge endpoints on every thread: a first pass places
every endpoint into one of a few hundred bins by a hash of its id (a stable counting sort, one
write stream per bin), then each thread numbers the bins it takes with a hash table of their own
ids, small enough to stay in cache (a bin holds one part of the ids, so no two threads ever
meet the same id), the bins' numbers are made consecutive and their tables kept side by side in
one array, and last every endpoint's number is looked up in input order in its bin's table
(reads that stay near the cache, where writing the numbers back from the bins' order would be
one random write into a large array per endpoint). :func:`_hash_number`, the
one-thread table over all the ids, is its reference in the tests.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

__all__ = ["hash_number", "run_starts"]


@njit(cache=True)
def _slot(key, shift) -> int:
    """Fibonacci hashing: the top ``64 - shift`` bits of ``key * 2**64 / phi``."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> shift)


@njit(cache=True)
def _hash_insert(table: np.ndarray, shift, key, val: int) -> int:
    """Value of ``key`` in the table, inserting ``val`` for it when absent (linear probing).

    Slot ``h`` is ``table[2h]`` (the key) and ``table[2h + 1]`` (its value + 1, 0 when empty):
    key and value share a cache line."""
    mask = np.int64(table.shape[0] // 2 - 1)
    h = _slot(key, shift)
    while True:
        v = np.int64(table[2 * h + 1])
        if v == 0:
            table[2 * h] = key
            table[2 * h + 1] = val + 1
            return val
        if table[2 * h] == key:
            return v - 1
        h = (h + 1) & mask


@njit(cache=True)
def _hash_number(src: np.ndarray, dst: np.ndarray, prov_s: np.ndarray, prov_d: np.ndarray) -> np.ndarray:
    """Number distinct ids in order of first appearance (src[0], dst[0], src[1], ...).

    Writes each endpoint's number into ``prov_s``/``prov_d`` and returns ``uniq``: ``uniq[k]``
    is the id numbered ``k``. The table
    doubles whenever it is half full, so its size follows the number of distinct ids."""
    bits = 16
    table = np.zeros(2 << bits, src.dtype)
    uniq = np.empty(1 << (bits - 1), src.dtype)
    n = 0
    m = src.shape[0]
    for i in range(2 * m):
        key = src[i >> 1] if i & 1 == 0 else dst[i >> 1]
        k = _hash_insert(table, np.uint64(64 - bits), key, n)
        if k == n:
            if n == uniq.shape[0]:  # half full: double the table and rehash
                bits += 1
                grown = np.empty(1 << (bits - 1), src.dtype)
                grown[:n] = uniq[:n]
                uniq = grown
                table = np.zeros(2 << bits, src.dtype)
                for j in range(n):
                    _hash_insert(table, np.uint64(64 - bits), uniq[j], j)
                _hash_insert(table, np.uint64(64 - bits), key, n)
            uniq[n] = key
            n += 1
        if i & 1 == 0:
            prov_s[i >> 1] = k
        else:
            prov_d[i >> 1] = k
    return uniq[:n].copy()


@njit(cache=True, inline="always")
def _bin_of(key, shift) -> int:
    """The bin of ``key``: the top bits of another multiplicative hash than :func:`_slot`'s, so
    that the ids of one bin still spread over its table's slots (``shift`` below 64: at least
    two bins)."""
    return np.int64((np.uint64(key) * np.uint64(0xD6E8FEB86659FD93)) >> shift)


@njit(cache=True)
def run_starts(start: np.ndarray) -> np.ndarray:
    """The exclusive prefix of a counting sort split over runs of its input: ``start[t, b]``
    holds how many keys of run ``t`` fall in bucket ``b`` and becomes where run ``t``'s first
    one goes (after every key of the buckets before ``b`` and of the runs before ``t`` in
    ``b``). Returns the buckets' ``indptr``.

    Examples
    --------
    >>> start = np.array([[1, 2], [3, 0]])
    >>> run_starts(start).tolist(), start.tolist()
    ([0, 4, 6], [[0, 4], [1, 6]])
    """
    parts, n = start.shape
    indptr = np.empty(n + 1, np.int64)
    run = 0
    for b in range(n):
        indptr[b] = run
        for t in range(parts):
            c = start[t, b]
            start[t, b] = run
            run += c
    indptr[n] = run
    return indptr


@njit(parallel=True, cache=True)
def _bin_endpoints(src, dst, parts, bits, keys):
    """Every endpoint's id (``src[0], dst[0], src[1], ...``) into its bin of ``keys``, in input
    order within a bin. Returns the bins' ``binptr``."""
    m2 = 2 * src.shape[0]
    nb = np.int64(1) << bits
    shift = np.uint64(64 - bits)
    start = np.zeros((parts, nb), np.int64)
    for t in prange(parts):
        for i in range((m2 * t) // parts, (m2 * (t + 1)) // parts):
            key = src[i >> 1] if i & 1 == 0 else dst[i >> 1]
            start[t, _bin_of(key, shift)] += 1
    binptr = run_starts(start)
    for t in prange(parts):
        for i in range((m2 * t) // parts, (m2 * (t + 1)) // parts):
            key = src[i >> 1] if i & 1 == 0 else dst[i >> 1]
            b = _bin_of(key, shift)
            p = start[t, b]
            keys[p] = key
            start[t, b] = p + 1
    return binptr


@njit(cache=True)
def _distinct_in_bin(keys, a0, a1) -> int:
    """Move the distinct ids of the bin ``keys[a0:a1]`` to its first slots, in order of
    appearance (each at or before the slot it was read from); returns how many there are."""
    bits = 10
    table = np.zeros(2 << bits, keys.dtype)
    n = 0
    for p in range(a0, a1):
        key = keys[p]
        if _hash_insert(table, np.uint64(64 - bits), key, n) == n:
            keys[a0 + n] = key
            n += 1
            if 4 * n > 3 * (table.shape[0] // 2):  # 3/4 full: double the table, rehash its ids
                bits += 1
                table = np.zeros(2 << bits, keys.dtype)
                for j in range(n):
                    _hash_insert(table, np.uint64(64 - bits), keys[a0 + j], j)
    return n


@njit(cache=True, inline="always")
def _find(table, base, rbits, key) -> int:
    """The number of ``key``, present in the table region of ``2**rbits`` slots at ``base``."""
    mask = (np.int64(1) << rbits) - 1
    h = _slot(key, np.uint64(64 - rbits))
    while True:
        j = 2 * (base + h)
        if table[j] == key and table[j + 1] != 0:
            return np.int64(table[j + 1]) - 1
        h = (h + 1) & mask


@njit(parallel=True, cache=True)
def _number_bins(keys, binptr, src, dst, prov_s, prov_d, bits):
    """Number the ids bin by bin (threads take bins; numbers consecutive over the bins), keep
    each bin's table in a region of one array (at most half full), then find every endpoint's
    number in input order: returns ``uniq``, ``uniq[k]`` the id numbered ``k``."""
    nb = binptr.shape[0] - 1
    count = np.zeros(nb + 1, np.int64)
    for b in prange(nb):
        count[b + 1] = _distinct_in_bin(keys, binptr[b], binptr[b + 1])
    offset = np.cumsum(count)
    rbits = np.empty(nb, np.int64)
    base = np.zeros(nb + 1, np.int64)
    for b in range(nb):
        r = 1
        while (np.int64(1) << r) < 2 * count[b + 1]:
            r += 1
        rbits[b] = r
        base[b + 1] = base[b] + (np.int64(1) << r)
    table = np.zeros(2 * base[nb], keys.dtype)
    uniq = np.empty(offset[nb], keys.dtype)
    for b in prange(nb):
        region = table[2 * base[b] : 2 * base[b + 1]]
        for j in range(count[b + 1]):
            key = keys[binptr[b] + j]
            uniq[offset[b] + j] = key
            _hash_insert(region, np.uint64(64 - rbits[b]), key, offset[b] + j)
    shift = np.uint64(64 - bits)
    for i in prange(src.shape[0]):
        a = _bin_of(src[i], shift)
        prov_s[i] = _find(table, base[a], rbits[a], src[i])
        b = _bin_of(dst[i], shift)
        prov_d[i] = _find(table, base[b], rbits[b], dst[i])
    return uniq


def hash_number(src: np.ndarray, dst: np.ndarray, prov_s: np.ndarray, prov_d: np.ndarray) -> np.ndarray:
    """Number the distinct ids of ``src`` and ``dst`` (one dtype, int64 or uint64): each
    endpoint's number into ``prov_s``/``prov_d`` (int64, as long as ``src``) and returns
    ``uniq``, ``uniq[k]`` the id numbered ``k`` (in no particular order: the caller sorts).

    Examples
    --------
    >>> import numpy as np
    >>> s, d = np.array([7, 2**40, 7]), np.array([2**40, 5, 5])
    >>> ps, pd = np.empty(3, np.int64), np.empty(3, np.int64)
    >>> uniq = hash_number(s, d, ps, pd)
    >>> uniq[ps].tolist(), uniq[pd].tolist(), sorted(uniq.tolist())
    ([7, 1099511627776, 7], [1099511627776, 5, 5], [5, 7, 1099511627776])
    """
    m2 = 2 * src.shape[0]
    bits = int(min(8, max(1, (m2 >> 15).bit_length())))  # about 32,768 endpoints a bin, at most 256 bins
    keys = np.empty(m2, src.dtype)
    binptr = _bin_endpoints(src, dst, max(1, min(get_num_threads(), m2)), bits, keys)
    return _number_bins(keys, binptr, src, dst, prov_s, prov_d, bits)
