"""The vertex-program API: user programs, validation errors, debug mode."""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas.algorithms import pagerank


class UserPageRank(gas.VertexProgram):
    """The README's user-written PageRank: signals neighbours while its rank still moves."""

    vertex_data = {"rank": np.float64, "change": np.float64}
    gather_edges = gas.IN
    dynamic = False
    aggregates = {"dangling": "sum", "change": "sum"}

    def __init__(self, alpha=0.85, tol=1e-6):
        self.alpha = alpha
        self.tol = tol

    def init(self, v, ctx):
        v.rank = 1.0 / ctx.num_vertices

    def gather(self, v, e, nbr):
        return nbr.rank / nbr.out_degree

    def apply(self, v, total, ctx):
        n = ctx.num_vertices
        new = (1.0 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
        v.change = abs(new - v.rank)
        v.rank = new

    def aggregate(self, v):
        return (v.rank if v.out_degree == 0 else 0.0), v.change

    def converged(self, ctx):
        return ctx.change < ctx.num_vertices * self.tol


def _random_graph(seed=0, n=500, m=4000):
    rng = np.random.default_rng(seed)
    return gas.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m))


def test_user_pagerank_equals_bundled():
    g = _random_graph()
    ours = gas.run(g, UserPageRank(tol=1e-12), max_iter=500).output
    bundled = pagerank(g, tol=1e-12, max_iter=500)
    # same fixed point and same stopping rule: identical up to rounding of the division order
    assert np.abs(ours - bundled).sum() < 1e-12


def test_debug_mode_equals_compiled_for_user_program():
    g = _random_graph(1, 60, 300)
    a = gas.run(g, UserPageRank(tol=1e-10), max_iter=200)
    b = gas.run(g, UserPageRank(tol=1e-10), max_iter=200, debug=True)
    assert a.iterations == b.iterations
    assert np.array_equal(a.output, b.output)


class HopCount(gas.VertexProgram):
    """BFS levels by signals: exercises scatter, custom sum and the initial active set."""

    vertex_data = {"level": np.float64, "changed": np.bool_}
    gather_edges = gas.IN
    scatter_edges = gas.OUT
    gather_zero = np.inf

    def init(self, v, ctx):
        v.level = np.inf

    def gather(self, v, e, nbr):
        return nbr.level + 1.0

    def sum(self, a, b):
        return min(a, b)

    def apply(self, v, total, ctx):
        if ctx.iteration == 0:
            total = 0.0
        v.changed = total < v.level
        if v.changed:
            v.level = total

    def scatter(self, v, e, nbr):
        return v.changed and nbr.level > v.level + 1.0


def test_signals_and_stats():
    # chain 0->1->2->3: one new vertex per superstep; hand-computed levels and active counts
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])
    res = gas.run(g, HopCount(), active=[0])
    assert res.output.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert [s["active"] for s in res.stats] == [1, 1, 1, 1]
    assert res.converged and res.iterations == 4


def test_aggregates_visible_to_callers():
    g = _random_graph(2, 100, 500)
    res = gas.run(g, UserPageRank(tol=1e-9), max_iter=300)
    assert res.converged
    # the aggregate 'change' of each iteration is the L1 change of the ranks (recomputed here)
    assert res.stats[-1]["change"] < 100 * 1e-9 <= res.stats[-2]["change"]
    assert set(res.stats[0]) >= {"iteration", "active", "edges", "seconds", "dangling", "change"}


# ---------------------------------------------------------------- malformed programs
class NoApply(gas.VertexProgram):
    vertex_data = {"x": np.float64}

    def gather(self, v, e, nbr):
        return 1.0


class BadField(gas.VertexProgram):
    vertex_data = {"rank": np.float64}

    def gather(self, v, e, nbr):
        return nbr.rnk

    def apply(self, v, total, ctx):
        v.rank = total


class WrongGatherType(gas.VertexProgram):
    vertex_data = {"x": np.int64}
    gather_type = np.int64

    def gather(self, v, e, nbr):
        return 0.5

    def apply(self, v, total, ctx):
        v.x = total


class GatherReturnsNothing(gas.VertexProgram):
    vertex_data = {"x": np.float64}

    def gather(self, v, e, nbr):
        v.x  # noqa: B018  (deliberately returns nothing)

    def apply(self, v, total, ctx):
        v.x = total


class ScatterNotSignal(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def apply(self, v, total, ctx):
        v.x = 1.0

    def scatter(self, v, e, nbr):
        return (1.5, 2.5)  # a signal is a bool or one number (its priority), not a tuple


class WrongArity(gas.VertexProgram):
    vertex_data = {"x": np.float64}

    def gather(self, v, nbr):
        return 1.0

    def apply(self, v, total, ctx):
        v.x = total


class UnknownParam(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE

    def apply(self, v, total, ctx):
        v.x = self.scale * total


class NotCompilable(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE

    def apply(self, v, total, ctx):
        v.x = "text"


class MissingGather(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    gather_edges = gas.ALL

    def apply(self, v, total, ctx):
        v.x = total


CASES = [
    (NoApply(), r"NoApply has no apply method.*define apply\(self, v, total, ctx\)"),
    (BadField(), r"BadField\.gather .*unknown vertex field 'nbr\.rnk'; did you mean 'rank'"),
    (
        WrongGatherType(),
        r"WrongGatherType\.gather returns float64, which does not fit gather_type int64",
    ),
    (GatherReturnsNothing(), r"GatherReturnsNothing\.gather returns nothing"),
    (ScatterNotSignal(), r"ScatterNotSignal\.scatter returns UniTuple.*; it must return True"),
    (WrongArity(), r"WrongArity\.gather takes 3 parameters; expected 4"),
    (
        UnknownParam(),
        r"UnknownParam\.apply .*unknown program attribute 'self\.scale'.*set self\.scale",
    ),
    (NotCompilable(), r"NotCompilable\.apply cannot be compiled"),
    (MissingGather(), r"gathers over ALL edges but has no gather method"),
    (NoApply, r"got the class NoApply"),
]


@pytest.mark.parametrize(
    "program,pattern",
    CASES,
    ids=[type(c[0]).__name__ if not isinstance(c[0], type) else "class" for c in CASES],
)
def test_malformed_programs_rejected_with_named_method(program, pattern):
    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(gas.ProgramError, match=pattern) as info:
        gas.SyncEngine(g, program)
    # raised by gaslab, not chained from a Numba traceback
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__ or info.value.__context__ is None


class UsesWeight(gas.VertexProgram):
    vertex_data = {"x": np.float64}

    def gather(self, v, e, nbr):
        return e.weight

    def apply(self, v, total, ctx):
        v.x = total


def test_edge_fields_and_missing_weight():
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 1], weights=[1.5, 2.0, 4.0])
    assert gas.run(g, UsesWeight()).output.tolist() == [0.0, 5.5, 2.0]
    with pytest.raises(gas.ProgramError, match="unknown edge field 'e.weight'"):
        gas.SyncEngine(gas.Graph.from_edges([0], [1]), UsesWeight())


def test_a_first_build_compiles_no_method_on_its_own():
    # the type check types each method alone (for its messages) but compiles none of them to
    # machine code: the kernels that inline the methods are the only compiled code; a program
    # without init compiles no init kernel (the kernels are those of the test above), and one
    # that aggregates without scattering no separate aggregate kernel (UserPageRank's, above)
    from numba.core import event

    from gas._typecheck import typecheck

    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 1], weights=[1.5, 2.0, 4.0])
    eng = gas.SyncEngine(g, UsesWeight())
    compiled = []

    class Seen(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Seen()):
        typecheck(eng.spec, eng.VC, eng.EC, eng.params, eng.ctx)
        assert eng.run(3).output.tolist() == [0.0, 5.5, 2.0]  # as above
    assert not set(compiled) & set(eng.spec.functions.values())
    assert getattr(eng.k, "_module", eng.k).k_init.signatures == []
    pr = gas.SyncEngine(_random_graph(), UserPageRank())
    pr.run(3)
    assert getattr(pr.k, "_module", pr.k).k_aggregate.signatures == []


def test_the_type_check_compiles_whole_methods_where_numba_differs(monkeypatch):
    # another Numba's pipeline API (the type-only pipeline raises TypeError): the check falls
    # back to compiling each method, with the same messages (WrongGatherType's, above)
    import gas._typecheck_pipeline as pipeline

    def other_numba(fn, argtypes):
        raise TypeError("compile_extra() got an unexpected keyword argument")

    monkeypatch.setattr(pipeline, "return_type", other_numba)
    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(gas.ProgramError, match=r"WrongGatherType\.gather returns float64"):
        gas.SyncEngine(g, WrongGatherType())


SCRIPT = """
import numpy as np, gas
ns = {"__name__": "not_importable_namespace", "np": np, "gas": gas}
exec(compile(open(__file__ + ".prog").read(), __file__ + ".prog", "exec"), ns)
g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
print(gas.run(g, ns["Twice"]()).output.tolist())
"""

PROG = """
class Twice(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    def gather(self, v, e, nbr):
        return abs(nbr.vid * 2.0)
    def apply(self, v, total, ctx):
        v.x = total
"""


def test_cached_kernels_reload_in_a_new_process(tmp_path):
    # a program from a namespace that is not an importable module, run in two processes: the
    # second loads the kernels from the on-disk cache and must give the same answer
    import os
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    (tmp_path / "run.py.prog").write_text(PROG)
    env = dict(os.environ, GAS_CACHE_DIR=str(tmp_path / "cache"))
    outs = [
        subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
        for _ in range(2)
    ]
    for out in outs:
        assert out.returncode == 0, out.stderr
    # hand-computed: vertex v gathers 2 * (its in-neighbour's id): 0 <- 2, 1 <- 0, 2 <- 1
    assert outs[0].stdout.strip() == outs[1].stdout.strip() == "[4.0, 0.0, 2.0]"
    assert list((tmp_path / "cache").glob("__pycache__/*.nbi"))  # kernels were cached on disk


HELPER_SCRIPT = """
import sys, numpy as np, gas
sys.path.insert(0, sys.argv[1])
import helper_mod
from helper_mod import scale


class Calls(gas.VertexProgram):
    vertex_data = {"x": np.float64, "y": np.float64}

    def gather(self, v, e, nbr):
        return scale(nbr.vid)

    def apply(self, v, total, ctx):
        v.x = total
        v.y = helper_mod.shift(total)


g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
r = gas.run(g, Calls())
print(r.vertex_data["x"].tolist(), r.vertex_data["y"].tolist())
"""

HELPER_MOD = """
from numba import njit


@njit(cache=True)
def _factor():
    return {factor}


@njit(cache=True)
def scale(x):
    return x * _factor()


@njit(cache=True)
def shift(x):
    return x + {offset}
"""


@pytest.mark.slow  # four fresh processes, three of which compile every kernel from scratch
def test_editing_a_compiled_helper_recompiles_the_kernels(tmp_path):
    # the kernels compile in the njit helpers a method calls (directly, through another helper,
    # or as module.helper); with a warm kernel cache, an edit of a helper alone must take effect
    import os
    import subprocess
    import sys

    (tmp_path / "run.py").write_text(HELPER_SCRIPT)
    env = dict(os.environ, GAS_CACHE_DIR=str(tmp_path / "cache"))
    outs = []
    for factor, offset in ((2.0, 0.5), (2.0, 0.5), (3.0, 0.5), (3.0, 10.0)):
        (tmp_path / "helper_mod.py").write_text(HELPER_MOD.format(factor=factor, offset=offset))
        for cached in tmp_path.glob("__pycache__/helper_mod*"):  # its own Numba cache goes too
            cached.unlink()
        out = subprocess.run(
            [sys.executable, str(tmp_path / "run.py"), str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr[-2000:]
        outs.append(out.stdout.strip())
    # hand-computed: vertex v gathers factor * (its in-neighbour's id): 0 <- 2, 1 <- 0, 2 <- 1
    assert outs[0] == outs[1] == "[4.0, 0.0, 2.0] [4.5, 0.5, 2.5]"
    assert outs[2] == "[6.0, 0.0, 3.0] [6.5, 0.5, 3.5]"
    assert outs[3] == "[6.0, 0.0, 3.0] [16.0, 10.0, 13.0]"


@pytest.mark.slow  # two fresh processes, each compiling every kernel from scratch
def test_cached_kernels_survive_a_moved_checkout(tmp_path):
    # the same program file run from two folders (e.g. a developer's clone, then a CI checkout)
    # with one shared kernel cache: the second run must not load kernels bound to the first
    # folder's rewritten module, which is registered under another name there
    import os
    import shutil
    import subprocess
    import sys

    first = tmp_path / "a"
    first.mkdir()
    (first / "run.py").write_text(SCRIPT)
    (first / "run.py.prog").write_text(PROG)
    shutil.copytree(first, tmp_path / "b")
    env = dict(os.environ, GAS_CACHE_DIR=str(tmp_path / "cache"))
    outs = [
        subprocess.run(
            [sys.executable, str(tmp_path / d / "run.py")],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        for d in ("a", "b")
    ]
    for out in outs:
        assert out.returncode == 0, out.stderr[-2000:]
    # hand-computed, as in the test above
    assert outs[0].stdout.strip() == outs[1].stdout.strip() == "[4.0, 0.0, 2.0]"


class _Doubled(UserPageRank):
    def gather(self, v, e, nbr):
        return 2.0 * nbr.rank / nbr.out_degree


def test_methods_are_rewritten_once_per_layout_and_class():
    from gas.program import validate

    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
    first, again = validate(UserPageRank(), g), validate(UserPageRank(tol=1e-3), g)
    assert again.functions["gather"] is first.functions["gather"]  # made once
    unchecked = validate(UserPageRank(), g, checked=False)
    assert unchecked.functions["gather"] is not first.functions["gather"]  # no checks compiled in
    doubled = validate(_Doubled(), g)
    assert doubled.functions["gather"] is not first.functions["gather"]  # its own method
    assert doubled.functions["apply"] is not first.functions["apply"]  # another class's rewrite
    # the subclass's own gather runs: on a 3-cycle every gather total is twice the rank it reads
    # (hand-computed: ranks stay 1/3, so 0.15/3 + 0.85 * 2/3)
    out = gas.run(g, _Doubled(), max_iter=1).output
    assert np.allclose(out, 0.15 / 3 + 0.85 * 2 / 3)
