"""Array-valued vertex and edge fields, and array gathers (vectors and small matrices).

References are numpy computations of the same sums over the edge list (independent of the
engine's CSR/CSC layout and kernels).
"""

from __future__ import annotations

import numpy as np
import pytest

import gas


class NeighbourSum(gas.VertexProgram):
    """Each vertex sums its in-neighbours' vectors and their outer products."""

    gather_edges = gas.IN

    def __init__(self, k: int = 3):
        self.k = k
        self.vertex_data = {"x": (np.float64, k), "s": (np.float64, k), "m": (np.float64, (k, k))}
        self.gather_type = (np.float64, (k + 1, k))

    def init(self, v, ctx):
        for j in range(self.k):
            v.x[j] = (v.vid + 1.0) * (j + 1.0) - 0.5 * j * j

    def gather(self, v, e, nbr, acc):
        for a in range(self.k):
            acc[self.k, a] += nbr.x[a] * e.weight
            for b in range(self.k):
                acc[a, b] += nbr.x[a] * nbr.x[b]

    def apply(self, v, total, ctx):
        for a in range(self.k):
            v.s[a] = total[self.k, a]
            for b in range(self.k):
                v.m[a, b] = total[a, b]


def _reference(src, dst, w, n, k):
    # numpy: X as init writes it, then per-edge contributions added with np.add.at
    vid = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(k, dtype=np.float64)[None, :]
    X = (vid + 1.0) * (j + 1.0) - 0.5 * j * j
    S = np.zeros((n, k))
    np.add.at(S, dst, X[src] * w[:, None])
    M = np.zeros((n, k, k))
    np.add.at(M, dst, np.einsum("ea,eb->eab", X[src], X[src]))
    return X, S, M


@pytest.mark.parametrize("debug", [False, True])
def test_vector_and_matrix_gather_match_numpy(debug):
    rng = np.random.default_rng(0)
    n, m, k = 40, 300, 3
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m)
    g = gas.Graph.from_edges(src, dst, num_vertices=n, weights=w)
    eng = gas.SyncEngine(g, NeighbourSum(k), debug=debug)
    res = eng.run(max_iter=1)
    # the graph deduplicates (last weight wins): build the reference from its own edge list
    gs, gd = np.repeat(np.arange(n), np.diff(g.out_indptr)), g.dst
    X, S, M = _reference(gs, gd, g.edata["weight"], n, k)
    np.testing.assert_allclose(eng.columns["x"], X)
    np.testing.assert_allclose(eng.columns["s"], S, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eng.columns["m"], M, rtol=1e-12, atol=1e-9)
    assert res.output.shape == (n, k)
    assert res.vertex_data["m"].shape == (n, k, k)


def test_run_time_shapes_share_the_kernels_and_stay_correct():
    # field and total lengths are array shapes at run time, not compiled in: one kernel module
    # serves k = 2 and k = 5 (LDA with another topic count does not recompile)
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.0, 2.0, 3.0])
    mods = set()
    for k in (2, 5):
        eng = gas.SyncEngine(g, NeighbourSum(k))
        mods.add(eng.k.__name__)
        eng.run(max_iter=1)
        # hand-computed: vertex 1's only in-neighbour is 0 (x_0[j] = (j + 1) - j^2 / 2), weight 1
        x0 = np.array([(j + 1.0) - 0.5 * j * j for j in range(k)])
        np.testing.assert_allclose(eng.columns["s"][1], x0)
        np.testing.assert_allclose(eng.columns["m"][1], np.outer(x0, x0))
    assert len(mods) == 1


class EdgeVectors(gas.VertexProgram):
    """Scatter writes a vector on every out-edge: (source id, target id)."""

    vertex_data = {"x": np.float64}
    edge_data = {"ends": (np.int64, 2)}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def apply(self, v, total, ctx):
        v.x = 1.0

    def scatter(self, v, e, nbr):
        e.ends[0] = v.vid
        e.ends[1] = nbr.vid
        return False


def test_edge_vector_field_written_by_scatter():
    g = gas.Graph.from_edges([0, 0, 2, 3], [1, 2, 3, 1])
    eng = gas.SyncEngine(g, EdgeVectors())
    eng.run(max_iter=1)
    ends = eng.edge_columns["ends"]
    # reference: the CSR edge list itself
    np.testing.assert_array_equal(ends[:, 0], np.repeat(np.arange(4), np.diff(g.out_indptr)))
    np.testing.assert_array_equal(ends[:, 1], g.dst)


class MinLabel(gas.VertexProgram):
    vertex_data = {"label": np.int64}
    gather_type = np.int64
    gather_zero = np.iinfo(np.int64).max

    def gather(self, v, e, nbr):
        return nbr.vid

    def sum(self, a, b):
        return min(a, b)

    def apply(self, v, total, ctx):
        v.label = total


class MaxVector(gas.VertexProgram):
    vertex_data = {"x": (np.float64, 2)}
    gather_type = (np.float64, 2)
    gather_zero = -np.inf

    def gather(self, v, e, nbr, acc):
        acc[0] = max(acc[0], nbr.vid)
        acc[1] = max(acc[1], -nbr.vid)

    def sum(self, a, b):
        for j in range(2):
            a[j] = max(a[j], b[j])

    def apply(self, v, total, ctx):
        v.x[0] = total[0]
        v.x[1] = total[1]


def test_combine_uses_the_programs_sum():
    # what a master does with its mirrors' partial totals: the program's own sum, not +
    g = gas.Graph.from_edges([1, 2, 3], [0, 0, 0])
    eng = gas.SyncEngine(g, MinLabel())
    eng.run(max_iter=1)
    assert eng.acc[0] == 1  # min over in-neighbours 1, 2, 3
    eng.combine(np.array([0, 3]), np.array([-5, 7]))
    assert eng.acc[0] == -5 and eng.acc[3] == 7  # 3 had no in-edges: acc was the zero (int64 max)

    eng = gas.SyncEngine(g, MaxVector())
    eng.run(max_iter=1)
    np.testing.assert_array_equal(eng.acc[0], [3.0, -1.0])
    eng.combine(np.array([0]), np.array([[10.0, -7.0]]))
    np.testing.assert_array_equal(eng.acc[0], [10.0, -1.0])
    with pytest.raises(gas.GasError, match="partial totals of shape"):
        eng.combine(np.array([0]), np.zeros(3))


def test_default_array_sum_adds():
    g = gas.Graph.from_edges([1, 2], [0, 0], weights=[1.0, 1.0])
    eng = gas.SyncEngine(g, NeighbourSum(2))
    eng.run(max_iter=1)
    before = eng.acc[0].copy()
    eng.combine(np.array([0]), np.ones((1, 3, 2)))
    np.testing.assert_allclose(eng.acc[0], before + 1.0)


def test_array_program_errors_name_the_fix():
    class Returns(gas.VertexProgram):
        vertex_data = {"x": np.float64}
        gather_type = (np.float64, 2)

        def gather(self, v, e, nbr, acc):
            acc[0] += 1.0
            return acc

        def apply(self, v, total, ctx):
            v.x = total[0]

    g = gas.Graph.from_edges([0], [1])
    with pytest.raises(gas.ProgramError, match="returns nothing|drop the return value"):
        gas.SyncEngine(g, Returns())

    class ScalarForm(gas.VertexProgram):
        vertex_data = {"x": np.float64}
        gather_type = (np.float64, 2)

        def gather(self, v, e, nbr):
            return 1.0

        def apply(self, v, total, ctx):
            v.x = total[0]

    with pytest.raises(gas.ProgramError, match=r"gather\(self, v, e, nbr, acc\)"):
        gas.SyncEngine(g, ScalarForm())

    class BadShape(gas.VertexProgram):
        vertex_data = {"x": (np.float64, 0)}
        gather_edges = gas.NONE

        def apply(self, v, total, ctx):
            pass

    with pytest.raises(gas.ProgramError, match="shape of positive integers"):
        gas.SyncEngine(g, BadShape())
