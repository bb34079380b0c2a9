"""The CUDA engine's launch shapes: threads per block and the degree thresholds of its bins.

:class:`gas.cuda_engine.CudaEngine` sorts the vertices by how many edges their ``gather`` reads
and gives each degree class its own kernel (cuGraph's segments, Gunrock's TWC): a thread per
vertex below ``warp_degree`` edges, a warp of 32 threads per vertex up to ``block_degree``, a
block per vertex up to ``lb_degree``, and above it equal chunks of ``lb_chunk`` edges spread
over many blocks (Gunrock's LB), so one hub never serialises a block. Vertices with no gather
edge get the gather's zero without an edge kernel.

The defaults suit a GPU; the tests use small values so that every bin runs on graphs the
CUDA simulator can run in seconds.

Examples
--------
>>> t = CudaTuning(block_threads=64, block_degree=128, lb_degree=512, lb_chunk=128)
>>> t.warps_per_block
2
"""

from __future__ import annotations

from dataclasses import dataclass

from gas.errors import GasError

__all__ = ["CudaTuning", "WARP", "SIMULATOR"]

#: threads of a warp (every NVIDIA GPU so far, and the simulator)
WARP = 32


@dataclass(frozen=True)
class CudaTuning:
    """Threads per block and the gather bins' degree thresholds (see the module docstring).

    Parameters
    ----------
    block_threads : int, default 256
        Threads per block of every kernel (a multiple of 32).
    warp_degree : int, default 32
        Vertices with at least this many gather edges get a warp (below: a thread).
    block_degree : int, default 1024
        From this many edges a vertex gets a whole block (cuGraph's threshold).
    lb_degree : int, default 16384
        From this many edges a vertex's list is cut into chunks of ``lb_chunk`` edges, each
        gathered by its own block, and the chunks' totals are folded afterwards.
    lb_chunk : int, default 4096
        Edges per block in the chunked path (16 per thread at 256 threads).
    scan_items : int, default 8
        Elements each thread of a prefix-sum block scans one after the other.
    max_blocks : int, default 8192
        Most blocks of a launch; kernels loop over the rest with a grid stride (the tests use
        2, so that a simulated launch runs few threads, each taking many items).
    """

    block_threads: int = 256
    warp_degree: int = WARP
    block_degree: int = 1024
    lb_degree: int = 16384
    lb_chunk: int = 4096
    scan_items: int = 8
    max_blocks: int = 8192

    def __post_init__(self) -> None:
        if self.block_threads < WARP or self.block_threads % WARP or self.block_threads > 1024:
            raise GasError(
                f"Expected block_threads to be a multiple of {WARP} from {WARP} to 1024 "
                f"(got {self.block_threads})"
            )
        if not 1 <= self.warp_degree <= self.block_degree <= self.lb_degree:
            raise GasError(
                "Expected 1 <= warp_degree <= block_degree <= lb_degree (got "
                f"{self.warp_degree}, {self.block_degree}, {self.lb_degree})"
            )
        if min(self.lb_chunk, self.scan_items, self.max_blocks) < 1:
            raise GasError(
                "Expected lb_chunk, scan_items and max_blocks >= 1 (got "
                f"{self.lb_chunk}, {self.scan_items}, {self.max_blocks})"
            )

    @property
    def warps_per_block(self) -> int:
        """Vertices one block of the warp bin gathers."""
        return self.block_threads // WARP

    @property
    def scan_span(self) -> int:
        """Elements one block of a prefix sum covers."""
        return self.block_threads * self.scan_items


#: the default under numba-cuda's simulator, which runs each GPU thread as a Python thread: one
#: warp per block and few blocks (results do not depend on the launch shape, only the time)
SIMULATOR = CudaTuning(block_threads=32, max_blocks=2)
