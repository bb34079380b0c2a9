"""ProgramSpec: the one analysis of what a vertex program's methods read and write.

The expected reads and writes below were written by reading each program's source (quoted in
the comments), not by running the analysis. The runtime's answers (mirror fields, layout) are
literals the code before ProgramSpec computed (gas/runtime/program_analysis.py with its own
bytecode walk, run once on these programs): the refactoring must not change what is shipped.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import gas
from gas.algorithms.lda import LDAProgram
from gas.algorithms.pagerank import DeltaPageRankProgram, PageRankProgram, ResidualPageRankProgram
from gas.algorithms.sgd import SGDProgram
from gas.algorithms.sssp import HopsProgram, SSSPProgram
from gas.program import validate
from gas.program_spec import METHODS, ProgramSpec
from gas.runtime.program_analysis import layout_for, mirror_fields, order_free, reads_vid


# the README's class, verbatim (test_readme_copy checks it)
# fmt: off
class MyPageRank(gas.VertexProgram):
    vertex_data = {"rank": np.float64, "share": np.float64, "change": np.float64}
    gather_edges = gas.IN            # gather over in-edges (IN, OUT, ALL or NONE)
    dynamic = False                  # every vertex runs every superstep
    aggregates = {"dangling": "sum", "change": "sum"}   # global map-reduce, read as ctx.<name>

    def __init__(self, alpha=0.85, tol=1e-6):
        self.alpha, self.tol = alpha, tol   # numeric attributes are visible as self.<name>

    def init(self, v, ctx):
        v.rank = 1.0 / ctx.num_vertices
        v.share = v.rank / v.out_degree if v.out_degree > 0 else 0.0

    def gather(self, v, e, nbr):            # one in-edge nbr -> v
        return nbr.share

    def apply(self, v, total, ctx):         # total = sum of gathers (default +)
        n = ctx.num_vertices
        new = (1 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
        v.change = abs(new - v.rank)
        v.rank = new
        v.share = new / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):                 # one value per declared aggregate
        return (v.rank if v.out_degree == 0 else 0.0), v.change

    def converged(self, ctx):               # plain Python, after each superstep
        return ctx.change < ctx.num_vertices * self.tol
# fmt: on


def test_readme_copy():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert inspect.getsource(MyPageRank) in readme


def _v(*f):
    return {("v", x) for x in f}


def test_readme_pagerank():
    spec = ProgramSpec.of(MyPageRank())
    assert spec.name == "MyPageRank"
    assert spec.methods == ("init", "gather", "apply", "aggregate")  # converged is plain Python
    # init: v.rank = 1.0 / ...; v.share = v.rank / v.out_degree if v.out_degree > 0 else 0.0
    assert spec.reads["init"] == _v("rank", "out_degree")
    assert spec.writes["init"] == _v("rank", "share")
    # gather: return nbr.share
    assert spec.reads["gather"] == {("nbr", "share")} and spec.writes["gather"] == set()
    # apply: v.change = abs(new - v.rank); v.rank = new; v.share = new / v.out_degree ...
    assert spec.reads["apply"] == _v("rank", "out_degree")
    assert spec.writes["apply"] == _v("change", "rank", "share")
    # aggregate: (v.rank if v.out_degree == 0 else 0.0), v.change
    assert spec.reads["aggregate"] == _v("rank", "out_degree", "change")
    assert spec.writes["aggregate"] == set()
    assert dict(spec.vertex_fields) == {k: np.dtype(np.float64) for k in ("rank", "share", "change")}
    assert spec.edge_fields == {} and spec.gather_type == np.float64
    assert spec.mirror_fields == ("share",)
    assert spec.order_free and not spec.reads_vid and not spec.has_priority
    assert spec.consistency_needed == "vertex" and spec.gather_nbr_fields == {"share"}


def test_sssp():
    spec = ProgramSpec.of(SSSPProgram(0))
    assert spec.methods == ("init", "gather", "sum", "apply", "scatter")
    # init: v.dist = np.inf; v.changed = False
    assert spec.reads["init"] == set() and spec.writes["init"] == _v("dist", "changed")
    # gather: return nbr.dist + e.weight
    assert spec.reads["gather"] == {("nbr", "dist"), ("e", "weight")}
    # sum: return min(a, b)
    assert spec.reads["sum"] == set() == spec.writes["sum"]
    # apply: if v.vid == self.source ...; v.changed = total < v.dist; if v.changed: v.dist = total
    assert spec.reads["apply"] == _v("vid", "dist", "changed")
    assert spec.writes["apply"] == _v("changed", "dist")
    # scatter: return v.changed and v.dist + e.weight < nbr.dist
    assert spec.reads["scatter"] == _v("changed", "dist") | {("e", "weight"), ("nbr", "dist")}
    assert spec.writes["scatter"] == set()
    assert spec.reads_vid and spec.layout == "global"
    # HopsProgram overrides gather and scatter without e.weight: the edge column is not read
    hops = ProgramSpec.of(HopsProgram(0))
    assert hops.reads["gather"] == {("nbr", "dist")}
    assert all(r != "e" for m in hops.methods for r, _ in hops.uses(m))


def test_delta_pagerank():
    spec = ProgramSpec.of(DeltaPageRankProgram())
    # init: if v.out_weight == 0.0: v.out_weight = v.out_degree; v.rank = 1.0 / n;
    #       v.contrib = v.rank / v.out_weight if ...; v.delta = 0.0
    assert spec.reads["init"] == _v("out_weight", "out_degree", "rank")
    assert spec.writes["init"] == _v("out_weight", "rank", "contrib", "delta")
    # gather: return nbr.contrib
    assert spec.reads["gather"] == {("nbr", "contrib")}
    # apply: v.delta = new - v.rank; v.rank = new; v.contrib = new / v.out_weight if ...
    assert spec.reads["apply"] == _v("rank", "out_weight")
    assert spec.writes["apply"] == _v("delta", "rank", "contrib")
    # scatter: d = abs(v.delta); return self.alpha * d / v.out_weight if d > self.tol else 0.0
    assert spec.reads["scatter"] == _v("delta", "out_weight") and spec.writes["scatter"] == set()
    assert spec.consistency_needed == "vertex"


# Computed by the code before ProgramSpec (gas/runtime/program_analysis.py at commit 09d101c:
# mirror_fields(program, list(vertex_data)), layout_for, order_free, reads_vid), run once.
OLD_RUNTIME = {
    "PageRankProgram": (["contrib"], "masters_first", True, False),
    "DeltaPageRankProgram": (["contrib", "delta", "out_weight"], "masters_first", True, False),
    "ResidualPageRankProgram": (["res", "sent"], "sorted", False, False),
    "SSSPProgram": (["dist", "changed"], "global", True, True),
    "SGDProgram": (["w", "step"], "sorted", False, False),
    "LDAProgram": (["nk", "nz", "cdf", "phi", "nnz", "rng"], "global", False, True),
}
PROGRAMS = {
    "PageRankProgram": PageRankProgram,
    "DeltaPageRankProgram": DeltaPageRankProgram,
    "ResidualPageRankProgram": ResidualPageRankProgram,
    "SSSPProgram": lambda: SSSPProgram(0),
    "SGDProgram": SGDProgram,
    "LDAProgram": lambda: LDAProgram(4, 2, 3, 0.1, 0.01),
}


@pytest.mark.parametrize("name", sorted(OLD_RUNTIME))
def test_runtime_answers_unchanged(name):
    program = PROGRAMS[name]()
    fields, layout, free, vid = OLD_RUNTIME[name]
    assert mirror_fields(program, list(program.vertex_data)) == fields
    assert list(ProgramSpec.of(program).mirror_fields) == fields
    assert (layout_for(program), order_free(program), reads_vid(program)) == (layout, free, vid)


def test_reads_and_writes_kinds():
    class P(gas.VertexProgram):
        vertex_data = {"x": np.float64, "w": (np.float64, 3), "n": np.int64}
        scatter_edges = gas.OUT

        def gather(self, v, e, nbr):
            return nbr.x

        def apply(self, v, total, ctx):
            v.w[0] = total  # an indexed store writes w and does not read it
            v.n += 1  # an augmented assignment reads and writes n

        def scatter(self, v, e, nbr):
            nbr.x = v.x
            return True

    spec = ProgramSpec.of(P())
    assert spec.reads["apply"] == {("v", "n")}
    assert spec.writes["apply"] == _v("w", "n")
    assert spec.writes["scatter"] == {("nbr", "x")} and spec.reads["scatter"] == {("v", "x")}
    assert spec.consistency_needed == "full" and spec.write_sites("nbr") == ["scatter: nbr.x"]
    assert not spec.order_free  # an array field, and a write to nbr
    assert spec.gather_nbr_fields is None  # a method writes nbr
    assert spec.mirror_fields == ("x",)
    assert validate(P(), gas.Graph.from_edges([0], [1])).consistency_needed == "full"


def test_priority_and_cache():
    class Prio(gas.VertexProgram):
        vertex_data = {"x": np.float64}

        def apply(self, v, total, ctx):
            v.x = total

        def priority(self, v):
            return v.x

    a, b = Prio(), Prio()
    assert ProgramSpec.of(a) is ProgramSpec.of(b)  # analysed once per class and declarations
    assert ProgramSpec.of(a).has_priority and "priority" in ProgramSpec.of(a).methods
    b.vertex_data = {"x": np.float32}  # another declaration: another spec
    assert ProgramSpec.of(b) is not ProgramSpec.of(a)
    assert ProgramSpec.of(b).vertex_fields["x"] == np.float32
    with pytest.raises(AttributeError):  # frozen
        ProgramSpec.of(a).name = "other"  # type: ignore[misc]


def test_base_defines_no_method():
    # overridden() relies on it: a method the class has at all is the program's own
    assert not any(hasattr(gas.VertexProgram, m) for m in METHODS)


def test_plain_method_required():
    class S(gas.VertexProgram):
        vertex_data = {"x": np.float64}

        @staticmethod
        def apply(v, total, ctx):
            pass

    with pytest.raises(gas.ProgramError, match="S.apply must be a plain method, not a staticmethod"):
        ProgramSpec.of(S())
