"""Per-vertex inputs as program attributes, and the run's context in ``gather``.

A program may keep numeric numpy arrays on ``self`` (set in ``__init__``) and read them inside
its compiled methods; they reach the kernels as arguments, so a second instance with other
values of the same dtype and dimensions reuses the compiled kernels. Writing a program attribute
inside a method is refused when the engine is built. ``gather`` (and ``scatter``) may take the
run's context as one more parameter.

One compiled program class (:class:`Weighted`) serves every compiled case; the expected values
are hand-computed (and re-derived with numpy from the edge list).
"""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas.errors import GasError, ProgramError

# edges 0->1, 0->2, 1->2, 2->0, 3->2: in-neighbours 0: {2}, 1: {0}, 2: {0, 1, 3}, 3: {}
SRC, DST = [0, 0, 1, 2, 3], [1, 2, 2, 0, 2]
W = [1.0, 2.0, 3.0, 4.0]
B = [[0.0, 100.0], [0.0, 200.0], [0.0, 300.0], [0.0, 400.0]]


class Weighted(gas.VertexProgram):
    """``x(v) = w[v] + b[v, 1] + (iteration + 1) * (sum of w over v's in-neighbours)``, from the
    last superstep's ``iteration``: a 1-D and a 2-D array attribute, and ``ctx`` in ``gather``."""

    vertex_data = {"x": np.float64}
    dynamic = False

    def __init__(self, w, b, shift=0):
        self.w = np.asarray(w, dtype=np.float64)
        self.b = np.asarray(b, dtype=np.float64)
        self.shift = shift  # moves the gather's index (0; a test of the bounds checks sets 10)

    def gather(self, v, e, nbr, ctx):
        return self.w[nbr.vid + self.shift] * (ctx.iteration + 1)

    def apply(self, v, total, ctx):
        v.x = total + self.w[v.vid] + self.b[v.vid, 1]


def _graph():
    return gas.Graph.from_edges(SRC, DST, num_vertices=4)


def _expected(w, b, last_iteration):
    """numpy's version of the formula above (the hand-computed values are in the tests)."""
    w, b = np.asarray(w, np.float64), np.asarray(b, np.float64)
    nbr_sum = np.zeros(4)
    np.add.at(nbr_sum, DST, w[SRC])
    return w + b[:, 1] + (last_iteration + 1) * nbr_sum


def _kernel_module(eng):
    k = eng.k
    return getattr(k, "_module", k)


def _compiled(mod):
    return sum(len(getattr(mod, n).signatures) for n in dir(mod) if n.startswith("k_"))


def test_sync_reads_arrays_and_ctx_and_reuses_the_kernels():
    g = _graph()
    eng = gas.SyncEngine(g, Weighted(W, B))
    res = eng.run(2)  # supersteps 0 and 1: the last gather multiplies by 2
    # hand-computed: x0 = 1 + 100 + 2*w2 = 107; x1 = 2 + 200 + 2*w0 = 204;
    # x2 = 3 + 300 + 2*(w0 + w1 + w3) = 317; x3 = 4 + 400 (no in-neighbour) = 404
    assert res.output.tolist() == [107.0, 204.0, 317.0, 404.0]
    assert np.array_equal(res.output, _expected(W, B, 1))
    mod = _kernel_module(eng)
    compiled = _compiled(mod)

    # other values, same dtype and dimensions: the same kernels, nothing compiled again
    w2, b2 = [10.0, 0.0, -1.0, 5.0], np.zeros((4, 2))
    eng2 = gas.SyncEngine(g, Weighted(w2, b2))
    res2 = eng2.run(3)  # last iteration 2: factor 3
    # hand-computed: x0 = 10 + 3*(-1) = 7; x1 = 0 + 3*10 = 30; x2 = -1 + 3*(10 + 0 + 5) = 44; x3 = 5
    assert res2.output.tolist() == [7.0, 30.0, 44.0, 5.0]
    assert _kernel_module(eng2) is mod and _compiled(mod) == compiled

    # the same program as plain Python (debug) agrees
    dbg = gas.SyncEngine(g, Weighted(W, B), debug=True).run(2)
    assert dbg.output.tolist() == res.output.tolist()


def test_async_engine_reads_arrays_and_ctx():
    res = gas.run(_graph(), Weighted(W, B), engine="async", max_iter=2)
    # apply reads no neighbour data, so the order of updates cannot matter: the same values as
    # the synchronous run (rounds 0 and 1)
    assert res.output.tolist() == [107.0, 204.0, 317.0, 404.0]


def test_reads_out_of_range_are_checked():
    with pytest.raises(ProgramError, match=r"Weighted\.gather .*program array 'self\.w'"):
        gas.SyncEngine(_graph(), Weighted(W, B, shift=10)).run(1)


class Writes(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE

    def __init__(self):
        self.w = np.zeros(4)

    def apply(self, v, total, ctx):
        self.w[v.vid] = 1.0


class CountsInSelf(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE

    def __init__(self):
        self.count = 0

    def apply(self, v, total, ctx):
        self.count += 1


@pytest.mark.parametrize("program", [Writes(), CountsInSelf()], ids=["array", "scalar"])
def test_writing_a_program_attribute_is_refused(program):
    with pytest.raises(
        ProgramError, match=r"\.apply \(.*test_program_inputs\.py:\d+\) assigns 'self\."
    ) as info:
        gas.SyncEngine(_graph(), program)
    assert "read-only" in str(info.value) and "vertex_data" in str(info.value)


@pytest.mark.parametrize(
    "value,shape",
    [(np.array(["a", "b", "c", "d"]), r"\(4,\)"), (np.zeros((2, 2, 2)), r"\(2, 2, 2\)")],
    ids=["strings", "3-d"],
)
def test_unsupported_arrays_are_refused(value, shape):
    prog = Weighted(W, B)
    prog.w = value
    with pytest.raises(ProgramError, match=rf"Weighted\.w is a numpy array of dtype .* and shape {shape}"):
        gas.SyncEngine(_graph(), prog)


def test_process_runtime_refuses_array_attributes_by_name():
    with pytest.raises(GasError, match=r"Weighted\.w is a numpy array .*procs=1"):
        gas.run(_graph(), Weighted(W, B), procs=2)


class ArrayGatherCtx(gas.VertexProgram):
    """The array form with ctx: ``acc[0] += scale[u] * iteration`` over in-neighbours ``u``,
    ``acc[1] += 1``; ``scatter`` with ctx signals the out-neighbours in superstep 0 only."""

    vertex_data = {"y": np.float64}
    gather_type = (np.float64, 2)
    scatter_edges = gas.OUT

    def __init__(self):
        self.scale = np.array([1.0, 10.0, 100.0, 1000.0])

    def gather(self, v, e, nbr, acc, ctx):
        acc[0] += self.scale[nbr.vid] * ctx.iteration
        acc[1] += 1.0

    def apply(self, v, total, ctx):
        v.y = total[0] + total[1]

    def scatter(self, v, e, nbr, ctx):
        return ctx.iteration < 1


def test_array_gather_and_scatter_with_ctx_as_plain_python():
    # debug: the methods run as plain Python (no compile). Superstep 0 (iteration 0) gives the
    # in-degrees (0: 1, 1: 1, 2: 3, 3: 0) and signals 0, 1 and 2 (the out-neighbours); in
    # superstep 1 those add the scales of their in-neighbours: 0 <- 2: 100 + 1; 1 <- 0: 1 + 1;
    # 2 <- 0, 1, 3: 1 + 10 + 1000 + 3 (hand-computed); its scatter signals no one
    res = gas.SyncEngine(_graph(), ArrayGatherCtx(), debug=True).run(5)
    assert res.output.tolist() == [101.0, 2.0, 1014.0, 0.0]
    assert res.iterations == 2


@pytest.mark.usefixtures("cuda_sim")
def test_cuda_engine_reads_arrays_and_ctx():
    res = gas.CudaEngine(_graph(), Weighted(W, B)).run(2)
    assert res.output.tolist() == [107.0, 204.0, 317.0, 404.0]
