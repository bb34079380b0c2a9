"""The engine family (issue 18): one base of public steps, engines as siblings on it, and the
between-supersteps hook that may change a run's state."""

from __future__ import annotations

import time

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms.pagerank import PageRankProgram
from gas.async_engine import AsyncEngine
from gas.engine import SyncEngine
from gas.engine_base import ENGINES, Engine, engine_for
from gas.engine_result import RunLog


def test_the_engines_are_siblings_on_the_base():
    assert issubclass(SyncEngine, Engine) and issubclass(AsyncEngine, Engine)
    assert not issubclass(AsyncEngine, SyncEngine)
    assert not issubclass(SyncEngine, AsyncEngine)
    assert ENGINES["sync"] is SyncEngine and ENGINES["async"] is AsyncEngine


def test_engine_for_builds_the_named_engine_and_names_the_known_ones():
    g = gas.Graph.from_edges([0, 1], [1, 0])
    assert type(engine_for(g, PageRankProgram(), "sync")) is SyncEngine
    eng = engine_for(g, PageRankProgram(), "async", scheduler="sweep")
    assert type(eng) is AsyncEngine and eng.scheduler == "sweep"
    with pytest.raises(gas.GasError, match="Unknown engine 'gpu'; known: .*sync"):
        engine_for(g, PageRankProgram(), "gpu")


class MiniBSP(Engine):
    """A user's bulk-synchronous engine, built only from the base's public steps."""

    def run(self, max_iter: int = 100) -> gas.RunResult:
        log = RunLog(self)
        everyone = self.active_mask(None)
        with self.thread_scope():
            self.init()
            log.aggregates = self.aggregate()
            while log.iteration < max_iter:
                t0 = time.perf_counter()
                self.ctx["iteration"] = log.iteration
                self.gather(everyone, everyone=True)
                self.apply(everyone)
                aggs = self.aggregate()
                log.record(t0, self.graph.num_vertices, self.visited_edges(everyone), aggs)
                if log.program_converged():
                    return log.finish(True)
        return log.finish(False)


def _small_graph() -> tuple[gas.Graph, nx.DiGraph]:
    # 7 vertices, a cycle with chords, vertex 6 dangling (no out-edge)
    src = [0, 1, 2, 3, 4, 5, 0, 2, 4, 5, 1]
    dst = [1, 2, 3, 4, 5, 0, 3, 6, 1, 6, 4]
    g = gas.Graph.from_edges(src, dst, num_vertices=7)
    G = nx.DiGraph()
    G.add_nodes_from(range(7))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))
    return g, G


def test_a_user_engine_from_the_public_steps_gives_syncengines_pagerank():
    g, G = _small_graph()
    mine = MiniBSP(g, PageRankProgram(0.85, 1e-12), threads=2).run(200)
    ref = SyncEngine(g, PageRankProgram(0.85, 1e-12), threads=2).run(200)
    assert mine.converged and ref.converged
    assert mine.iterations == ref.iterations
    assert np.abs(mine.output - ref.output).max() <= 1e-15
    # independent oracle: networkx's power iteration, far tighter than the 1e-12 rule
    want = nx.pagerank(G, alpha=0.85, tol=1e-15, max_iter=10**4)
    want = np.array([want[int(i)] for i in g.ids])
    assert np.abs(mine.output - want).sum() <= 1e-9
    assert mine.stats[0]["edges"] == g.num_edges  # PageRank gathers over in-edges only


class Counter(gas.VertexProgram):
    """Adds 1 to ``x`` each superstep; stops once the sum of ``x`` reaches ``goal``."""

    vertex_data = {"x": np.float64}
    gather_edges = gas.NONE
    dynamic = False
    aggregates = {"total": "sum"}

    def __init__(self, goal: float = 1e9) -> None:
        self.goal = float(goal)

    def apply(self, v, total, ctx):
        v.x = v.x + 1.0

    def aggregate(self, v):
        return v.x

    def converged(self, ctx):
        return ctx.total >= self.goal


@pytest.mark.parametrize("engine", ["sync", "async"])
def test_a_between_hook_changes_the_state_the_next_superstep_reads(engine):
    # hand-worked, 3 vertices: superstep 0 makes x = 1; the hook then sets x = 100, so
    # superstep 1 makes 101 and superstep 2 makes 102 (without the hook: 3)
    g = gas.Graph.from_edges([], [], num_vertices=3)
    eng = engine_for(g, Counter(), engine, threads=1)
    order = []

    def hook(e, stat):
        assert e is eng
        order.append(("between", stat["iteration"]))
        if stat["iteration"] == 0:
            e.columns["x"][:] = 100.0

    res = eng.run(3, between=hook, progress=lambda stat: order.append(("progress", stat["iteration"])))
    assert res.output.tolist() == [102.0, 102.0, 102.0]
    assert order[:2] == [("between", 0), ("progress", 0)]  # the hook first, then the reader
    assert [s["total"] for s in res.stats] == [3.0, 303.0, 306.0]


@pytest.mark.parametrize("engine", ["sync", "async"])
def test_refreshed_aggregates_reach_the_stopping_test_and_the_statistics(engine):
    # goal 1000 over 3 vertices: the hook after superstep 0 sets x = 500 and refreshes the
    # aggregates, so the stopping test right after it sees 1500 and the run stops after one
    # superstep; without the refresh it would stop only once 3 * t >= 1000
    g = gas.Graph.from_edges([], [], num_vertices=3)
    eng = engine_for(g, Counter(goal=1000.0), engine, threads=1)
    seen = []

    def hook(e, stat):
        e.columns["x"][:] = 500.0
        stat.update(e.refresh_aggregates())

    res = eng.run(10, between=hook, progress=lambda stat: seen.append(stat["total"]))
    assert res.converged and res.iterations == 1
    assert seen == [1500.0]
    assert res.output.tolist() == [500.0, 500.0, 500.0]
