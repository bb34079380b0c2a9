"""A superstep's inner steps (``VertexProgram.inner_steps``, :mod:`gas.engine_steps`).

Independent reference: the rounds written out in numpy (every round's gathers read the values
the previous round left, then the active vertices apply; one scatter per superstep). The
values are whole numbers, so every order of the sums gives the same floats.
"""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas.engine_steps import gathers_from_active

STEPS = 3


class Rounds(gas.VertexProgram):
    """Gathers its own value and its neighbour's over every edge: a round sees the last one."""

    vertex_data = {"x": np.float64, "runs": np.int64}
    gather_edges = gas.ALL
    scatter_edges = gas.OUT
    inner_steps = STEPS

    def init(self, v, ctx):
        v.x = float(v.vid % 5 + 1)
        v.runs = 0

    def gather(self, v, e, nbr):
        return nbr.x + v.x

    def apply(self, v, total, ctx):
        v.x = total - 2.0 * v.x
        v.runs += 1

    def scatter(self, v, e, nbr):
        return True


def _reference(src, dst, n, first, supersteps):
    """The rounds in numpy: per superstep, STEPS rounds over ``active``, then one scatter."""
    x = (np.arange(n) % 5 + 1).astype(np.float64)
    runs = np.zeros(n, np.int64)
    active = np.zeros(n, bool)
    active[first] = True
    for _ in range(supersteps):
        if not active.any():
            break
        for _ in range(STEPS):
            total = np.zeros(n)
            np.add.at(total, dst, x[src] + x[dst])  # in-edges of dst
            np.add.at(total, src, x[dst] + x[src])  # out-edges of src
            new = total - 2.0 * x
            x[active] = new[active]
            runs[active] += 1
        signal = np.zeros(n, bool)
        signal[dst[active[src]]] = True
        active = signal
    return x, runs


# users 0-3 rate items 4-7: one side gathers only from the other
BIPARTITE = (np.array([0, 0, 1, 2, 2, 3, 3, 3]), np.array([4, 5, 5, 6, 4, 7, 4, 5]))
# a triangle 0-1-2 and a tail 2 -> 3: active neighbours gather from each other
TANGLED = (np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3]))


@pytest.mark.parametrize("threads", [1, 2])
def test_one_side_runs_its_rounds_back_to_back_with_the_rounds_answer(threads):
    src, dst = BIPARTITE
    g = gas.Graph.from_edges(src, dst, num_vertices=8)
    eng = gas.SyncEngine(g, Rounds(), threads=threads)
    users = np.arange(4)
    assert eng._steps_back_to_back(eng.active_mask(users))  # the one-kernel path
    res = eng.run(max_iter=5, active=users)
    x, runs = _reference(src, dst, 8, users, 5)
    assert res.converged and res.iterations == 2  # users, then the items they signalled
    np.testing.assert_array_equal(eng.columns["runs"], runs)
    np.testing.assert_array_equal(eng.columns["x"], x)


def test_active_neighbours_run_the_rounds_one_pass_each():
    src, dst = TANGLED
    g = gas.Graph.from_edges(src, dst, num_vertices=4)
    eng = gas.SyncEngine(g, Rounds(), threads=2)
    assert not eng._steps_back_to_back(eng.active_mask(None))
    res = eng.run(max_iter=2)
    x, runs = _reference(src, dst, 4, np.arange(4), 2)
    assert res.iterations == 2
    np.testing.assert_array_equal(eng.columns["runs"], runs)
    np.testing.assert_array_equal(eng.columns["x"], x)


def test_plain_python_gives_the_same_rounds():
    src, dst = BIPARTITE
    g = gas.Graph.from_edges(src, dst, num_vertices=8)
    eng = gas.SyncEngine(g, Rounds(), debug=True)
    eng.run(max_iter=5, active=np.arange(4))
    np.testing.assert_array_equal(eng.columns["x"], _reference(src, dst, 8, np.arange(4), 5)[0])


def test_the_check_counts_active_vertices_with_an_active_neighbour():
    # hand-worked on the triangle 0-1-2 with the tail 2 -> 3, gathering over in-edges only:
    # 1 gathers from 0, 2 from 1, 0 from 2, 3 from 2
    src, dst = TANGLED
    g = gas.Graph.from_edges(src, dst, num_vertices=4)
    topo = (g.out_indptr, g.dst, g.in_indptr, g.in_src)
    chunks = np.array([0, 2, 4])
    for active, expected in (([1, 1, 1, 1], 4), ([1, 0, 0, 1], 0), ([0, 0, 1, 1], 1), ([1, 1, 0, 0], 1)):
        got = gathers_from_active(chunks, np.array(active, np.uint8), *topo, True, False)
        assert got == expected, active


@pytest.mark.parametrize("steps", [0, -1, 1.5, True, "2"])
def test_inner_steps_must_be_a_whole_number_from_one(steps):
    prog = Rounds()
    prog.inner_steps = steps
    with pytest.raises(gas.ProgramError, match="inner_steps"):
        gas.SyncEngine(gas.Graph.from_edges([0], [1]), prog)


def test_the_asynchronous_engine_refuses_inner_steps():
    with pytest.raises(gas.ProgramError, match="synchronous engine"):
        gas.AsyncEngine(gas.Graph.from_edges([0], [1]), Rounds())


def test_fastmath_flags_are_checked():
    prog = Rounds()
    prog.fastmath = {"nnan"}  # assuming values finite is not offered
    with pytest.raises(gas.ProgramError, match="fastmath"):
        gas.SyncEngine(gas.Graph.from_edges([0], [1]), prog)


def test_two_processes_run_the_rounds_one_pass_each_with_the_same_answer():
    # across processes each round is a gather, its exchange and an apply (gas.run, local workers)
    src, dst = BIPARTITE
    g = gas.Graph.from_edges(src, dst, num_vertices=8)
    res = gas.run(g, Rounds(), procs=2, max_iter=5, active=np.arange(4))
    x, runs = _reference(src, dst, 8, np.arange(4), 5)
    np.testing.assert_array_equal(res.vertex_data["runs"], runs)
    np.testing.assert_array_equal(res.vertex_data["x"], x)
