"""Bounds checks of user programs' array indexing (issue 17, section 2).

An index out of range in a compiled method used to read or write past the end of the array
silently (5,000 writes into a 2-slot accumulator: wrong totals, no error); only ``debug=True``
raised, with numpy's IndexError. A checked build (the default for user programs) must raise a
:class:`gas.ProgramError` naming the program, the method and the index, compiled or not, in the
synchronous and the asynchronous engines, and give the same answers as before when every index
is in range.
"""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas._codegen import CheckedKernels, kernel_key
from gas.async_engine import AsyncEngine
from gas.engine import SyncEngine
from gas.program import validate

# every vertex has two in-edges and two out-edges: i -> i+1 and i -> i+7 (mod 40)
N = 40
SRC = np.concatenate([np.arange(N), np.arange(N)])
DST = np.concatenate([(np.arange(N) + 1) % N, (np.arange(N) + 7) % N])


@pytest.fixture(scope="module")
def graph() -> gas.Graph:
    return gas.Graph.from_edges(SRC, DST, num_vertices=N)


class Overflow(gas.VertexProgram):
    """The issue's case: ``writes`` adds into a 2-slot array accumulator."""

    vertex_data = {"s": np.float64}
    gather_type = (np.float64, 2)
    gather_edges = gas.IN

    def __init__(self, writes=5000):
        self.writes = writes

    def gather(self, v, e, nbr, acc):
        for j in range(self.writes):
            acc[j] += 1.0

    def apply(self, v, total, ctx):
        v.s = total[0] + total[1]


# which method of Faulty indexes out of range (its ``bad`` attribute)
METHODS = {"init": 1, "gather": 2, "apply": 3, "scatter": 4, "aggregate": 5, "priority": 6}


class Faulty(gas.VertexProgram):
    """Indexes the array vertex field ``x`` (3 slots) and the edge field ``w`` (2 slots) in every
    method; the method numbered ``bad`` uses index ``k`` instead of a valid one."""

    vertex_data = {"x": (np.float64, 3), "s": np.float64}
    edge_data = {"w": (np.float64, 2)}
    gather_edges = gas.IN
    scatter_edges = gas.OUT
    aggregates = {"total": "sum"}

    def __init__(self, bad=0, k=3):
        self.bad, self.k = bad, k

    def init(self, v, ctx):
        j = self.k if self.bad == 1 else 2
        v.x[j] = 1.0 + v.vid

    def gather(self, v, e, nbr):
        j = self.k if self.bad == 2 else 0
        return nbr.x[j] + e.w[0]

    def apply(self, v, total, ctx):
        j = self.k if self.bad == 3 else 1
        v.x[j] = total
        v.s = total

    def scatter(self, v, e, nbr):
        j = self.k if self.bad == 4 else 2
        e.w[1] = v.x[0]
        return nbr.x[j] > 1e300

    def aggregate(self, v):
        j = self.k if self.bad == 5 else 0
        return v.x[j]

    def priority(self, v):
        j = self.k if self.bad == 6 else 0
        return 0.0 * v.x[j]


def _engine(graph, program, kind, **kw):
    if kind == "sync":
        return SyncEngine(graph, program, **kw)
    if kind == "async-priority-pass":  # one thread: the compiled relaxed-priority pass
        return AsyncEngine(graph, program, scheduler="priority", threads=1, **kw)
    return AsyncEngine(graph, program, consistency="edge", **kw)


@pytest.mark.parametrize("kind", ["sync", "async", "async-priority-pass"])
def test_accumulator_overflow_compiled_raises_naming_gather(graph, kind):
    # before: no error, totals of thousands instead of the in-degree 2 per slot
    eng = _engine(graph, Overflow(5000), kind)
    with pytest.raises(gas.ProgramError, match=r"Overflow\.gather .*index \d+ is out of range") as info:
        eng.run(3)
    msg = str(info.value)
    assert "'acc[j]'" in msg and "gather total 'acc'" in msg and "length 2" in msg
    assert "test_boundscheck.py:" in msg and "Traceback" not in msg


def test_accumulator_overflow_debug_raises_the_same_error(graph):
    # before: numpy's IndexError, not a gas error naming the method
    with pytest.raises(gas.ProgramError, match=r"Overflow\.gather .*index 2 is out of range"):
        SyncEngine(graph, Overflow(5000), debug=True).run(1)


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("debug", [False, True])
def test_field_out_of_range_names_the_method(graph, method, debug):
    eng = SyncEngine(graph, Faulty(bad=METHODS[method], k=3), debug=debug)
    with pytest.raises(gas.ProgramError) as info:
        eng.run(2)
    msg = str(info.value)
    assert f"Faulty.{method} " in msg, msg
    field = "nbr.x" if method in ("gather", "scatter") else "v.x"
    assert f"vertex field '{field}' (declared (float64, 3))" in msg, msg
    assert "index 3 is out of range" in msg and "valid: -3..2" in msg, msg


def test_async_engine_names_apply_and_scatter(graph):
    for method in ("apply", "scatter"):
        eng = AsyncEngine(graph, Faulty(bad=METHODS[method], k=7), consistency="edge")
        with pytest.raises(gas.ProgramError, match=rf"Faulty\.{method} .*index 7 is out of range"):
            eng.run(5)


def test_negative_indices_follow_python(graph):
    # -3 is the first of 3 slots, as in Python and numpy; -4 is out of range in every mode
    ok = SyncEngine(graph, Faulty(bad=3, k=-3)).run(2)
    ref = SyncEngine(graph, Faulty(bad=3, k=-3), debug=True).run(2)
    np.testing.assert_array_equal(ok.vertex_data["x"], ref.vertex_data["x"])
    assert np.all(ok.vertex_data["x"][:, 0] == ok.vertex_data["s"])
    for debug in (False, True):
        with pytest.raises(gas.ProgramError, match=r"index -4 is out of range"):
            SyncEngine(graph, Faulty(bad=3, k=-4), debug=debug).run(2)


class Moments(gas.VertexProgram):
    """The README's NeighbourMoments: sum of the in-neighbours' x and of their outer products,
    with a 2-D accumulator indexed ``acc[a, b]`` and a 2-D field."""

    gather_edges = gas.IN

    def __init__(self, k=3, extra=0):
        self.k, self.extra = k, extra
        self.vertex_data = {"x": (np.float64, k), "gram": (np.float64, (k, k))}
        self.gather_type = (np.float64, (k, k))

    def init(self, v, ctx):
        for j in range(self.k):
            v.x[j] = (v.vid % 5) + 0.5 * j

    def gather(self, v, e, nbr, acc):
        for a in range(self.k):
            for b in range(self.k + self.extra):
                acc[a, b] += nbr.x[a] * nbr.x[b % self.k]

    def apply(self, v, total, ctx):
        t = (1.0, 2)  # a heterogeneous tuple indexed by constants still compiles
        for a in range(self.k):
            for b in range(self.k):
                v.gram[a][b] = total[a, b] * t[0]


def _moments_reference(k):
    """numpy: x[u] = u % 5 + 0.5 j; gram[v] = sum over in-edges u -> v of outer(x[u], x[u])."""
    x = (np.arange(N) % 5)[:, None] + 0.5 * np.arange(k)[None, :]
    gram = np.zeros((N, k, k))
    np.add.at(gram, DST, x[SRC][:, :, None] * x[SRC][:, None, :])
    return gram


def test_in_range_vector_program_same_answers(graph):
    ref = _moments_reference(3)
    checked = gas.run(graph, Moments(3), max_iter=1).vertex_data["gram"]
    plain = SyncEngine(graph, Moments(3), checked=False).run(1).vertex_data["gram"]
    debug = SyncEngine(graph, Moments(3), debug=True).run(1).vertex_data["gram"]
    np.testing.assert_allclose(checked, ref, rtol=1e-12)
    np.testing.assert_array_equal(checked, plain)
    np.testing.assert_array_equal(checked, debug)


def test_two_dimensional_axis_is_named(graph):
    with pytest.raises(gas.ProgramError, match=r"Moments\.gather .*index 3 is out of range .*\(axis 1\)"):
        gas.run(graph, Moments(3, extra=1), max_iter=1)


class LocalArray(gas.VertexProgram):
    vertex_data = {"s": np.float64}
    gather_edges = gas.NONE

    def __init__(self, k=2):
        self.k = k

    def apply(self, v, total, ctx):
        tmp = np.zeros(2)
        tmp[self.k - 1] = 1.0
        v.s = tmp.sum()


def test_local_array_is_checked_too(graph):
    assert np.all(gas.run(graph, LocalArray(2), max_iter=1).output == 1.0)
    with pytest.raises(gas.ProgramError, match=r"LocalArray\.apply .*index 2 .* for 'tmp'"):
        gas.run(graph, LocalArray(3), max_iter=1)


def test_error_is_raised_again_on_a_second_run(graph):
    eng = SyncEngine(graph, Overflow(3))
    for _ in range(2):  # the record of the failure is reset once reported
        with pytest.raises(gas.ProgramError, match="Overflow.gather"):
            eng.run(1)


def test_checked_and_unchecked_builds_are_cached_apart(graph):
    on, off = validate(Overflow(), graph, True), validate(Overflow(), graph, False)
    assert on.checked and not off.checked
    assert kernel_key(on, True) != kernel_key(off, True)
    assert "_gas_check_range" in on.functions["gather"].__gas_source__  # once per loop
    assert "_gas_check_index" in on.functions["apply"].__gas_source__  # once per access
    assert "_gas_check" not in off.functions["gather"].__gas_source__ + off.functions["apply"].__gas_source__
    assert on.functions["gather"].__module__ != off.functions["gather"].__module__


def test_bundled_pagerank_uses_the_unchecked_build(graph):
    from gas.algorithms.pagerank import PageRankProgram

    eng = SyncEngine(graph, PageRankProgram())
    assert not eng.spec.checked and not isinstance(eng.k, CheckedKernels)
    forced = SyncEngine(graph, PageRankProgram(), checked=True)
    assert forced.spec.checked and isinstance(forced.k, CheckedKernels)
    np.testing.assert_array_equal(eng.run(30).output, forced.run(30).output)


class LoopForms(gas.VertexProgram):
    """Loops whose accesses are checked once per loop: a guarded access and an early exit must
    not be reported (they never run out of range), an index the loop does not change must be."""

    vertex_data = {"x": (np.float64, 4), "s": np.float64}
    gather_type = (np.float64, 2)
    gather_edges = gas.IN

    def __init__(self, fixed=0):
        self.fixed = fixed

    def init(self, v, ctx):
        for j in range(4):
            v.x[j] = v.vid + j

    def gather(self, v, e, nbr, acc):
        for j in range(4):  # only j < 2 reaches the 2-slot accumulator
            if j < 2:
                acc[j] += nbr.x[j]
        for j in range(6):
            if j >= 2:
                break
            acc[j] += 0.5 * nbr.x[j]
        for j in range(2):
            acc[j] += nbr.x[self.fixed]

    def apply(self, v, total, ctx):
        v.s = total[0] + total[1]


@pytest.mark.parametrize("debug", [False, True])
def test_loop_checks_follow_what_runs(graph, debug):
    # hand-computed: x_u[j] = u + j, so s_v = sum over in-edges u -> v of
    # 1.5 * (x_u[0] + x_u[1]) + 2 * x_u[fixed]
    for fixed in (1, -1):
        res = SyncEngine(graph, LoopForms(fixed), debug=debug).run(1)
        u = SRC.astype(np.float64)
        contrib = 1.5 * (2 * u + 1) + 2 * (u + (fixed % 4))
        np.testing.assert_allclose(res.vertex_data["s"], np.bincount(DST, contrib, minlength=N), rtol=1e-12)
    with pytest.raises(gas.ProgramError, match=r"LoopForms\.gather .*index 4 is out of range .*'nbr\.x'"):
        SyncEngine(graph, LoopForms(4), debug=debug).run(1)
