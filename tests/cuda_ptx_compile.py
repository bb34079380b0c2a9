"""Compile the CUDA engine's kernels for a real GPU (PTX for compute capability 8.0) without
one: run by tests/test_cuda_ptx.py in a fresh process without the simulator.

Input (argv[1]): a JSON list of jobs ``{"program": "module:Class", "args": [...], "weight":
bool, "tuning": {...}, "kernels": [[kind, name, [argument descriptors]], ...]}`` recorded while
the simulator ran the same kernels. Each kernel is compiled by NVVM with the argument types the
simulator saw (``numba.cuda.compile_ptx``), which types and lowers the program's device
functions, the bounds checks and the templates exactly as a GPU build would. Exit status: 0 all
compiled; 1 a kernel failed (printed); 3 NVVM is not installed (the test skips).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np


def _type(d, types, from_dtype):
    kind = d[0]
    if kind == "tuple":
        return types.Tuple([_type(x, types, from_dtype) for x in d[1]])
    if kind == "bool":
        return types.boolean
    if kind == "int64":
        return types.int64
    if kind == "scalar":
        return from_dtype(np.dtype(d[1]))
    dt = np.dtype([tuple(x) for x in d[1]]) if isinstance(d[1], list) else np.dtype(d[1])
    return types.Array(from_dtype(dt), d[2], "C")


def main() -> int:
    from numba import cuda, from_dtype, types

    try:
        cuda.compile_ptx(lambda a: None, (types.float64[:],), cc=(8, 0))
    except Exception as exc:  # noqa: BLE001 (any failure here means no NVVM to compile with)
        print(f"NVVM unavailable: {exc}")
        return 3
    import numba.cuda.dispatcher as dispatcher

    class _Device:  # device functions ask the current device for its compute capability
        compute_capability = (8, 0)

    dispatcher.get_current_device = lambda: _Device()
    sys.path.insert(0, str(Path(__file__).parent))
    import gas
    from gas._codegen_cuda import load_cuda_kernels
    from gas.cuda_kernels import make_kernels
    from gas.cuda_tuning import CudaTuning
    from gas.program import validate

    failed = 0
    for job in json.loads(Path(sys.argv[1]).read_text()):
        mod_name, cls_name = job["program"].split(":")
        program = getattr(importlib.import_module(mod_name), cls_name)(*job["args"])
        edata = {"weight": [1.0]} if job["weight"] else None
        spec = validate(program, gas.Graph.from_edges([0], [1], edge_data=edata))
        tuning = CudaTuning(**job["tuning"])
        kernels = load_cuda_kernels(spec, tuning)
        generic = make_kernels(tuning.block_threads, tuning.scan_items)
        for kind, name, args in job["kernels"]:
            k = getattr(kernels, name) if kind == "prog" else generic[name]
            sig = tuple(_type(a, types, from_dtype) for a in args)
            try:
                cuda.compile_ptx(k.py_func, sig, cc=(8, 0))
                print(f"ok {cls_name}.{name}")
            except Exception as exc:  # noqa: BLE001 (report every failure, then fail)
                failed += 1
                print(f"FAILED {cls_name}.{name}: {type(exc).__name__}: {exc}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
