"""Scatter's reads of ``v`` made once per vertex (``ProgramSpec.scatter_hoist``): which fields
qualify, and that a field a scatter writes is still read afresh on every edge."""

import numpy as np
import pytest

import gas
from gas.algorithms.pagerank import ResidualPageRankProgram
from gas.program import validate


class AddsToNeighbours(gas.VertexProgram):
    """``nbr.x += v.x``: on a self-loop the scatter changes the value it reads."""

    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def init(self, v, ctx):
        v.x = 1.0 if v.vid == 0 else 0.0

    def apply(self, v, total, ctx):
        pass

    def scatter(self, v, e, nbr):
        nbr.x += v.x
        return False


class CopiesToNeighbours(AddsToNeighbours):
    """``nbr.y += v.x``: ``x`` is never written, so it is read once per vertex."""

    vertex_data = {"x": np.float64, "y": np.float64}

    def scatter(self, v, e, nbr):
        nbr.y += v.x
        return False


class ReadsAVector(AddsToNeighbours):
    vertex_data = {"x": np.float64, "vec": (np.float64, 3)}

    def scatter(self, v, e, nbr):
        e.w = v.vec[0] + v.x + v.out_degree
        return False

    edge_data = {"w": np.float64}


def _hoisted(program, g):
    spec = validate(program, g)
    names = [name for name, _ in spec.vertex_columns]
    return sorted(names[i] for i in spec.scatter_hoist)


def test_which_reads_are_made_once_per_vertex():
    g = gas.Graph.from_edges([0, 0], [0, 1])
    # by hand: residual push reads v.sent and writes only nbr.res
    assert _hoisted(ResidualPageRankProgram(), g) == ["sent"]
    assert _hoisted(AddsToNeighbours(), g) == []  # x is written (nbr.x)
    assert _hoisted(CopiesToNeighbours(), g) == ["x"]
    assert _hoisted(ReadsAVector(), g) == ["out_degree", "x"]  # an array field is not hoisted


@pytest.mark.parametrize("debug", [False, True])
def test_a_written_field_is_read_again_after_a_self_loop(debug):
    # edges 0 -> 0 and 0 -> 1, x = [1, 0]; vertex 0 scatters in edge order: the self-loop
    # doubles x[0] to 2, then vertex 1 receives the new x[0] (by hand: x = [2, 2]; a value read
    # once before the loop would give x[1] = 1)
    g = gas.Graph.from_edges([0, 0], [0, 1])
    eng = gas.AsyncEngine(g, AddsToNeighbours(), consistency="full", threads=1, debug=debug)
    eng.run()
    assert eng.columns["x"].tolist() == [2.0, 2.0]
    eng = gas.AsyncEngine(g, CopiesToNeighbours(), consistency="full", threads=1, debug=debug)
    eng.run()
    assert eng.columns["y"].tolist() == [1.0, 1.0]


def test_hoisted_reads_in_the_synchronous_scatter():
    # e.w = vec[0] + x + out_degree of the edge's source; numpy reference on a small graph
    src, dst = np.array([0, 0, 1, 2, 2, 2]), np.array([1, 2, 2, 0, 1, 2])
    g = gas.Graph.from_edges(src, dst)
    eng = gas.SyncEngine(g, ReadsAVector(), threads=2)
    eng.columns["vec"][:, 0] = [10.0, 20.0, 30.0]
    eng.run(1, init=False)
    deg = np.bincount(g.src, minlength=3)
    want = eng.columns["vec"][g.src, 0] + eng.columns["x"][g.src] + deg[g.src]
    np.testing.assert_array_equal(eng.edge_columns["w"], want)
