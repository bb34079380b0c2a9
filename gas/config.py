"""Engine tunables, read at call time (change them here or through environment variables).

``segment_size``
    Source vertices per segment of the cache-blocked pull gather (``GAS_SEGMENT_SIZE``). Graphs
    with more vertices than this gather segment by segment when every vertex is active; 0 turns
    blocking off. The default, 2**19, keeps one float64 column slice at 4 MiB.
``relabel``
    1 (default): the blocked gather numbers source vertices by out-degree, highest first, when
    the program's ``gather`` allows it (see ``gas._segments``); 0 keeps their ids
    (``GAS_RELABEL``).
``chunks_per_thread``
    Degree-balanced vertex ranges per thread in each parallel phase (``GAS_CHUNKS_PER_THREAD``).
``numpy_small``
    1 (default): small plain edge-list files are parsed, and graphs of fewer than 2**18 edges
    built, by numpy alone (no kernel to compile on a first run); 0 takes the compiled kernels at
    every size, as ``gas warmup`` does to compile them ahead (``GAS_NUMPY_SMALL``).
"""

from __future__ import annotations

import os

__all__ = ["CONFIG"]

CONFIG: dict[str, int] = {
    "segment_size": int(os.environ.get("GAS_SEGMENT_SIZE", 1 << 19)),
    "chunks_per_thread": int(os.environ.get("GAS_CHUNKS_PER_THREAD", 16)),
    "relabel": int(os.environ.get("GAS_RELABEL", 1)),
    "numpy_small": int(os.environ.get("GAS_NUMPY_SMALL", 1)),
}
