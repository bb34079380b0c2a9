"""The CUDA engine's program-independent device kernels: prefix sums, frontier compaction,
degree lists and the chunk search of the edge-balanced paths.

Written with only what numba-cuda's simulator runs as well (shared memory, ``syncthreads``,
atomics; no warp shuffles or votes), so that every line a GPU runs also runs in the tests.
Importing this module imports ``numba.cuda``: only the CUDA engine does, after
:func:`gas.cuda_device.cuda_module` has checked that numba-cuda is installed.

A prefix sum (:func:`exclusive_scan`) runs in blocks of ``block * items`` elements: each thread
sums ``items`` consecutive elements, thread 0 scans the block's ``block`` partial sums in shared
memory (two barriers per block, where a tree takes ``log2(block)``: the simulator pays per
barrier and thread), every thread writes its elements' prefixes, and the blocks' totals are
scanned the same way, recursively, and added back.

Examples
--------
>>> import numpy as np
>>> from numba import cuda
>>> from gas.cuda_tuning import CudaTuning
>>> kern = GenericKernels(CudaTuning(block_threads=32, scan_items=2))
>>> out, total = kern.exclusive_scan(cuda.to_device(np.array([3, 0, 2, 5])), 4)
>>> out.copy_to_host().tolist(), total
([0, 3, 3, 5, 10], 10)
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from gas.cuda_tuning import CudaTuning

__all__ = ["locate", "GenericKernels", "grid", "make_kernels"]


@cuda.jit(device=True)
def locate(offsets, count, x):
    """The largest ``h < count`` with ``offsets[h] <= x`` (binary search; ``offsets`` sorted)."""
    lo = 0
    hi = count
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if offsets[mid] <= x:
            lo = mid
        else:
            hi = mid
    return lo


def grid(items: int, per_block: int) -> int:
    """Blocks to cover ``items`` with ``per_block`` each (at least 1)."""
    return max(1, -(-items // per_block))


def make_kernels(block: int, items: int) -> dict:
    """The generic kernels for ``block`` threads scanning ``items`` elements each."""
    span = block * items

    @cuda.jit
    def k_scan_block(src, idx, use_idx, n, out, sums):
        """Exclusive prefix of ``src[i]`` (``src[idx[i]]`` with ``use_idx``) over this block's
        elements; ``i == n`` (and past it) counts as 0, so ``out[n]`` ends as the total."""
        sh = cuda.shared.array(block, np.int64)
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * span + t * items
        run = np.int64(0)  # int64 throughout (flags may be bytes)
        for j in range(items):
            i = base + j
            if i < n:
                run += np.int64(src[idx[i]] if use_idx else src[i])
        sh[t] = run
        cuda.syncthreads()
        if t == 0:
            acc = np.int64(0)
            for j in range(block):
                x = sh[j]
                sh[j] = acc
                acc += x
            sums[cuda.blockIdx.x] = acc
        cuda.syncthreads()
        run = sh[t]
        for j in range(items):
            i = base + j
            if i <= n:
                out[i] = run
            if i < n:
                run += np.int64(src[idx[i]] if use_idx else src[i])

    @cuda.jit
    def k_add_offsets(out, n1, offs):
        for i in range(cuda.grid(1), n1, cuda.gridsize(1)):
            out[i] += offs[i // span]

    @cuda.jit
    def k_compact(order, signal, pos, n, front):
        """``front[pos[i]] = order[i]`` for each ``i`` whose vertex is signalled."""
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            v = order[i]
            if signal[v]:
                front[pos[i]] = v

    @cuda.jit
    def k_take(a, where, out):
        """``out[j] = a[where[j]]``: a few scalars of a device array, for one copy to the host."""
        for j in range(cuda.grid(1), where.shape[0], cuda.gridsize(1)):
            out[j] = a[where[j]]

    @cuda.jit
    def k_degrees(verts, lo, count, ptr, out):
        """``out[i] = ptr[v+1] - ptr[v]`` for ``v = verts[lo + i]``."""
        for i in range(cuda.grid(1), count, cuda.gridsize(1)):
            v = verts[lo + i]
            out[i] = ptr[v + 1] - ptr[v]

    @cuda.jit
    def k_chunks(verts, lo, count, ptr, chunk, out):
        """Chunks of ``chunk`` edges each listed hub's edge list needs."""
        for i in range(cuda.grid(1), count, cuda.gridsize(1)):
            v = verts[lo + i]
            out[i] = (ptr[v + 1] - ptr[v] + chunk - 1) // chunk

    @cuda.jit
    def k_locate(offsets, count, xs, out):
        """``out[j] = locate(offsets, count, xs[j])`` (the chunk search, for the tests)."""
        for j in range(cuda.grid(1), xs.shape[0], cuda.gridsize(1)):
            out[j] = locate(offsets, count, xs[j])

    @cuda.jit
    def k_fill(a, value):
        for i in range(cuda.grid(1), a.shape[0], cuda.gridsize(1)):
            a[i] = value

    return {k: v for k, v in locals().items() if k.startswith("k_")}


_CACHE: dict[tuple[int, int], dict] = {}


class GenericKernels:
    """The program-independent kernels for one :class:`~gas.cuda_tuning.CudaTuning`, and the
    host calls that launch them."""

    def __init__(self, tuning: CudaTuning) -> None:
        self.block = tuning.block_threads
        self.max_blocks = tuning.max_blocks
        self.span = tuning.scan_span
        key = (tuning.block_threads, tuning.scan_items)
        if key not in _CACHE:
            _CACHE[key] = make_kernels(*key)
        self.k = _CACHE[key]
        self._one = cuda.to_device(np.zeros(1, np.int64))  # a placeholder index array

    def launch(self, name: str, threads: int, *args: object) -> None:
        """Run kernel ``name`` over ``threads`` threads (nothing when there are none)."""
        if threads > 0:
            self.run_kernel(name, min(grid(threads, self.block), self.max_blocks), *args)

    def run_kernel(self, name: str, blocks: int, *args: object) -> None:
        """Launch kernel ``name`` on ``blocks`` blocks (every launch of this class goes here)."""
        self.k[name][blocks, self.block](*args)

    def exclusive_scan(
        self, src: object, n: int, idx: object = None, out: object = None
    ) -> tuple[object, int]:
        """``(out, total)``: ``out[i]`` the sum of ``src[:i]`` (of ``src[idx[:i]]`` with ``idx``)
        for ``i <= n``, on the device; only the total comes to the host."""
        if out is None:
            out = cuda.device_array(n + 1, np.int64)
        self._scan(src, n, idx, out)
        return out, int(out[n : n + 1].copy_to_host()[0])

    def _scan(self, src: object, n: int, idx: object, out: object) -> None:
        nb = grid(n + 1, self.span)
        sums = cuda.device_array(nb, np.int64)
        use = idx is not None
        self.run_kernel("k_scan_block", nb, src, idx if use else self._one, use, n, out, sums)
        if nb > 1:
            offs = cuda.device_array(nb + 1, np.int64)
            self._scan(sums, nb, None, offs)
            self.launch("k_add_offsets", n + 1, out, n + 1, offs)

    def take(self, a: object, where: np.ndarray) -> np.ndarray:
        """``a[where]`` on the host (one small copy)."""
        d_where = cuda.to_device(np.asarray(where, np.int64))
        out = cuda.device_array(len(where), a.dtype)
        self.launch("k_take", len(where), a, d_where, out)
        return out.copy_to_host()
