"""The asynchronous engine: schedulers, consistency models, and the bundled algorithms on it.

References: networkx (PageRank, components, shortest paths), numpy sums over the edge list,
hand-worked schedules on tiny graphs, and the same program run on one thread.
"""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np
import pytest
from conftest import nx_digraph, shared_path

import gas
import gas.datasets
from gas._atomic_max import atomic_max_nonneg
from gas.algorithms import coloring, count_conflicts
from gas.greedy_coloring import greedy_coloring

SNAP = [  # every graph under ../shared/datasets (the bitcoin ones are CSV with signed weights)
    "wiki-Vote/Wiki-Vote.txt",
    "p2p-Gnutella08/p2p-Gnutella08.txt",
    "p2p-Gnutella31/p2p-Gnutella31.txt",
    "email-Eu-core/email-Eu-core.txt.gz",
    "email-Enron/email-Enron.txt.gz",
    "ca-GrQc/ca-GrQc.txt",
    "ca-HepTh/CA-HepTh.txt",
    "ca-HepPh/ca-HepPh.txt.gz",
    "ca-CondMat/CA-CondMat.txt",
    "as-733/as20000102.txt.gz",
    "as-caida/as-caida20071105.txt.gz",
    "oregon1/oregon1_010331.txt.gz",
    "ego-Facebook/facebook_combined.txt.gz",
    "soc-Epinions1/soc-Epinions1.txt.gz",
    "soc-Slashdot0811/soc-Slashdot0811.txt.gz",
]
two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 Numba threads")


def _load_shared(rel):
    return gas.load(shared_path(rel))


def _nx(rel):
    return nx_digraph(shared_path(rel))


# -- PageRank --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wiki_vote():
    """wiki-Vote and networkx's PageRank of it (tol 1e-13), loaded and computed once for the
    module's five scheduler/model cases."""
    g = _load_shared("wiki-Vote/Wiki-Vote.txt")
    ref = nx.pagerank(_nx("wiki-Vote/Wiki-Vote.txt"), alpha=0.85, tol=1e-13, max_iter=1000)
    return g, np.array([ref[int(i)] for i in g.ids])


@pytest.mark.parametrize(
    "scheduler,consistency",
    [("priority", "full"), ("fifo", "full"), ("sweep", "full"), ("priority", "edge"), ("fifo", "vertex")],
)
def test_async_pagerank_matches_networkx(wiki_vote, scheduler, consistency):
    g, ref = wiki_vote
    r = gas.algorithms.pagerank(g, tol=1e-12, engine="async", scheduler=scheduler, consistency=consistency)
    assert np.abs(r - ref).sum() <= 1e-6
    assert abs(r.sum() - 1.0) < 1e-12


def test_async_pagerank_small_cases_and_weights():
    # dangling vertex 3, a self-loop and a sink: networkx as the reference
    src, dst = [0, 0, 1, 2, 2, 4], [1, 2, 2, 0, 3, 4]
    w = [1.0, 3.0, 2.0, 1.0, 0.5, 1.0]
    g = gas.Graph.from_edges(src, dst, weights=w)
    G = nx.DiGraph()
    G.add_weighted_edges_from(zip(src, dst, w))
    for weight in (None, "weight"):
        ref = nx.pagerank(G, tol=1e-14, max_iter=2000, weight=weight)
        ref = np.array([ref[i] for i in range(5)])
        for cons in ("full", "edge"):
            r = gas.algorithms.pagerank(
                g, tol=1e-14, engine="async", consistency=cons, weight=weight, max_iter=10**5
            )
            np.testing.assert_allclose(r, ref, atol=1e-10)


def test_async_priority_does_less_work_than_sync():
    # the work measure: edge visits to a tight answer (L1 <= 1e-8 against a converged run)
    g = _load_shared("wiki-Vote/Wiki-Vote.txt")
    ref = gas.algorithms.pagerank(g, tol=1e-15, max_iter=1000)
    r_sync, res_sync = gas.algorithms.pagerank(g, tol=1e-12, max_iter=1000, return_result=True)
    r_async, res_async = gas.algorithms.pagerank(
        g, tol=1e-13, max_iter=10**6, engine="async", scheduler="priority", return_result=True
    )
    assert np.abs(r_sync - ref).sum() <= 1e-8 and np.abs(r_async - ref).sum() <= 1e-8
    assert res_async.edge_updates < res_sync.edge_updates


# -- consistency --------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", SNAP)
def test_coloring_under_edge_consistency_has_no_conflicts(rel):
    g = _load_shared(rel)
    colors = coloring(g, consistency="edge", threads=2)
    assert count_conflicts(g, colors) == 0
    deg = g.out_degree + g.in_degree
    assert colors.min() >= 0 and colors.max() <= deg.max()  # greedy never needs more than deg+1


@two_threads
def test_vertex_consistency_in_parallel_produces_conflicts_on_a_dense_graph():
    # G(n, 1/2): with two threads, neighbours colour themselves at the same time and read each
    # other's old colours; timing decides how many (a loaded machine can run the two threads one
    # after the other), so the graph is large enough to keep both busy and a few runs are tried
    rng = np.random.default_rng(0)
    n = 4000
    s, d = np.nonzero(np.triu(rng.random((n, n)) < 0.5, 1))
    g = gas.Graph.from_edges(s, d, num_vertices=n)
    assert count_conflicts(g, coloring(g, consistency="edge", threads=2)) == 0
    runs = []
    for _ in range(10):
        runs.append(count_conflicts(g, coloring(g, consistency="vertex", threads=2)))
        if runs[-1]:
            break
    assert max(runs) > 0, runs
    # repair mode signals conflicting neighbours until none is left
    assert count_conflicts(g, coloring(g, consistency="vertex", threads=2, repair=True)) == 0


class PushIds(gas.VertexProgram):
    """Each vertex adds its id and one count to every out-neighbour (writes neighbours: full)."""

    vertex_data = {"total": np.float64, "count": np.int64}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def apply(self, v, total, ctx):
        pass

    def scatter(self, v, e, nbr):
        nbr.total += v.vid
        nbr.count += 1
        return False


@two_threads
def test_full_consistency_program_writing_neighbours_gives_the_sequential_result():
    g = _load_shared("email-Eu-core/email-Eu-core.txt.gz")
    src = np.repeat(np.arange(g.num_vertices), np.diff(g.out_indptr))
    # numpy reference: sum of in-neighbour ids and in-degree (no lost updates)
    want_total = np.bincount(g.dst, weights=src.astype(np.float64), minlength=g.num_vertices)
    want_count = np.bincount(g.dst, minlength=g.num_vertices)
    for threads in (1, 2):
        eng = gas.AsyncEngine(g, PushIds(), consistency="full", threads=threads)
        eng.run()
        np.testing.assert_array_equal(eng.columns["total"], want_total)
        np.testing.assert_array_equal(eng.columns["count"], want_count)
    assert greedy_coloring(g, 2).max() > greedy_coloring(g, 1).max()  # distance 2 was used


def test_models_that_do_not_protect_the_writes_are_refused():
    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(gas.ProgramError, match=r"consistency='full'.*|nbr\.total"):
        gas.AsyncEngine(g, PushIds(), consistency="edge")
    with pytest.raises(gas.ProgramError, match="engine='async', consistency='full'"):
        gas.SyncEngine(g, PushIds())

    class MarksEdges(gas.VertexProgram):
        vertex_data = {"x": np.float64}
        edge_data = {"seen": np.int64}
        gather_edges = gas.NONE
        scatter_edges = gas.OUT

        def apply(self, v, total, ctx):
            v.x = 1.0

        def scatter(self, v, e, nbr):
            e.seen += 1
            return False

    with pytest.raises(gas.ProgramError, match=r"scatter: e\.seen.*Fix: consistency='edge'"):
        gas.AsyncEngine(g, MarksEdges(), consistency="vertex")
    eng = gas.AsyncEngine(g, MarksEdges())  # default: the weakest safe model
    assert eng.consistency == "edge"
    eng.run()
    assert eng.edge_columns["seen"].tolist() == [1, 1]
    with pytest.raises(gas.GasError, match="known: fifo, priority, sweep"):
        gas.AsyncEngine(g, MarksEdges(), scheduler="lifo")


def test_greedy_colorings_are_proper():
    g = _load_shared("ca-GrQc/ca-GrQc.txt")
    G = nx.Graph(_nx("ca-GrQc/ca-GrQc.txt"))
    G.remove_edges_from(nx.selfloop_edges(G))
    pos = {int(x): i for i, x in enumerate(g.ids)}
    G = nx.relabel_nodes(G, pos)
    c1, c2 = greedy_coloring(g, 1), greedy_coloring(g, 2)
    assert all(c1[u] != c1[v] for u, v in G.edges)
    # distance 2: the square of the graph (networkx) must be properly coloured
    G2 = nx.power(G, 2)
    assert all(c2[u] != c2[v] for u, v in G2.edges)


# -- schedulers -------------------------------------------------------------------------------


class CountRuns(gas.VertexProgram):
    vertex_data = {"runs": np.int64, "when": np.int64}
    gather_edges = gas.NONE
    scatter_edges = gas.OUT

    def init(self, v, ctx):
        v.when = -1

    def apply(self, v, total, ctx):
        v.runs += 1
        v.when = ctx.iteration

    def scatter(self, v, e, nbr):
        return nbr.vid + 1.0 if v.runs == 1 else 0.0


def test_a_vertex_signalled_several_times_runs_once():
    # hand-worked: leaves 1..5 all signal the centre 0 in round 0; it runs once, in round 1
    g = gas.Graph.from_edges([1, 2, 3, 4, 5], [0, 0, 0, 0, 0])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="fifo")
    res = eng.run(active=[1, 2, 3, 4, 5])
    assert eng.columns["runs"].tolist() == [1, 1, 1, 1, 1, 1]
    assert eng.columns["when"].tolist() == [1, 0, 0, 0, 0, 0]
    assert res.converged and res.iterations == 2 and res.updates == 6


def test_priority_runs_the_highest_signal_first():
    # hand-worked: 0 signals 1..4 with priority = id + 1; one vertex per round, highest first
    g = gas.Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", priority_fraction=1e-9, min_batch=1)
    eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 4, 3, 2, 1]
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="fifo")
    eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 1, 1, 1, 1]


@pytest.mark.parametrize("threads", [1, 2])
def test_priority_ratio_one_is_exact_max_priority_first(threads):
    # hand-worked: 0 signals 1..4 with priority = id + 1; ratio 1 runs only the highest each round
    # (threads=1: the compiled id-order pass; threads=2: batches fixed at the round's start)
    g = gas.Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", priority_ratio=1.0, threads=threads)
    eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 4, 3, 2, 1]


@pytest.mark.parametrize("threads", [1, 2])
def test_relaxed_priority_runs_everything_above_the_threshold(threads):
    # hand-worked: priorities 2, 3, 4, 5; ratio 0.5 gives threshold 2.5 in round 1 (3 vertices
    # run), then vertex 1 alone
    g = gas.Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", priority_ratio=0.5, threads=threads)
    res = eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 2, 1, 1, 1]
    assert [s["active"] for s in res.stats] == [1, 3, 1]


def test_relaxed_priority_pass_serves_signals_to_later_ids_in_the_same_pass():
    # hand-worked, one thread: the initial vertex runs alone (priority inf); then a pass in id
    # order runs 1, which signals 2, which signals 3, all in round 1. Along 3 -> 2 -> 1 -> 0 each
    # signal goes to an id the pass has left behind: one hop per round
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", threads=1)
    eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 1, 1, 1]
    g = gas.Graph.from_edges([3, 2, 1], [2, 1, 0])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", threads=1)
    eng.run(active=[3])
    assert eng.columns["when"].tolist() == [3, 2, 1, 0]
    # with ``cascade`` the pass's worklist runs 2, 1 and 0 right after the vertex that signalled
    # each: the whole chain in round 1
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", threads=1, cascade=True)
    res = eng.run(active=[3])
    assert eng.columns["when"].tolist() == [1, 1, 1, 0]
    assert [s["active"] for s in res.stats] == [1, 3]


class Stamp(gas.VertexProgram):
    vertex_data = {"when": np.int64}
    gather_edges = gas.NONE
    scatter_edges = gas.NONE

    def init(self, v, ctx):
        v.when = -1

    def apply(self, v, total, ctx):
        v.when = ctx.iteration


def test_first_priorities_schedule_only_the_positive_ones():
    # hand-worked, no signals: priorities 0, 2, 3, 1 with ratio 1 run vertex 2 first (round 0),
    # then 1, then 3; vertex 0 is never scheduled
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])
    eng = gas.AsyncEngine(g, Stamp(), scheduler="priority", priority_ratio=1.0, threads=1)
    eng.run(priority=np.array([0.0, 2.0, 3.0, 1.0]))
    assert eng.columns["when"].tolist() == [-1, 1, 0, 2]
    with pytest.raises(gas.GasError, match="one finite value >= 0 per vertex"):
        eng.run(priority=np.array([1.0, np.nan, 1.0, 1.0]))
    with pytest.raises(gas.GasError, match="one finite value >= 0 per vertex"):
        eng.run(priority=np.ones(3))


@pytest.mark.parametrize("scheduler,threads", [("priority", 1), ("priority", 2), ("fifo", 2)])
def test_residual_pagerank_with_many_dangling_vertices_matches_networkx(scheduler, threads):
    # R-MAT on 512 vertices: about half have no out-edge (many are isolated). The residual form
    # lets dangling vertices absorb their mass and normalises at the end; the reference is
    # networkx.pagerank, which spreads dangling mass uniformly
    g = gas.datasets.rmat_graph(9, 4, seed=3)
    assert (g.out_degree == 0).mean() > 0.3
    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_vertices))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))
    ref = nx.pagerank(G, alpha=0.85, tol=1e-15, max_iter=10**4)
    ref = np.array([ref[int(i)] for i in g.ids])
    r = gas.algorithms.pagerank(
        g, tol=1e-14, engine="async", scheduler=scheduler, consistency="full", threads=threads, max_iter=10**6
    )
    assert np.abs(r - ref).sum() <= 1e-10


def test_schedule_from_a_between_hook():
    # hand-worked: 0 -> 1 runs 0 then 1; the hook after round 0 also schedules the isolated
    # vertex 2, which runs in round 1 next to 1
    g = gas.Graph.from_edges([0], [1], num_vertices=3)
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="priority", threads=1)

    def hook(engine, stat):
        if stat["iteration"] == 0:
            engine.schedule(np.array([False, False, True]), 5.0)

    eng.run(active=[0], between=hook)
    assert eng.columns["when"].tolist() == [0, 1, 1]
    with pytest.raises(gas.GasError, match="between hook"):
        eng.schedule(np.ones(3, bool))


class Want(gas.VertexProgram):
    """Schedules itself while ``want`` > 0 (priority ``want``); a run clears it."""

    vertex_data = {"want": np.float64, "when": np.int64}
    gather_edges = gas.NONE

    def init(self, v, ctx):
        v.want = 1.0
        v.when = -1

    def apply(self, v, total, ctx):
        v.want = 0.0
        v.when = ctx.iteration

    def priority(self, v):
        return v.want


@pytest.mark.parametrize("raise_top", [False, True])
def test_raise_top_priority_sets_the_next_threshold(raise_top):
    # hand-worked, one thread, ratio 1 (only the highest priority runs): all four run in round 0;
    # the callback then gives vertices 1, 2, 3 priorities 1, 1, 10. Told of the 10, the engine
    # runs vertex 3 alone in round 1 and 1, 2 in round 2; not told, its threshold is still the
    # highest priority left after round 0 (0), so 1, 2 and 3 all run in round 1
    g = gas.Graph.from_edges([], [], num_vertices=4)
    eng = gas.AsyncEngine(g, Want(), scheduler="priority", priority_ratio=1.0, threads=1)

    def hook(engine, stat):
        if stat["iteration"] == 0:
            engine.columns["want"][1:] = [1.0, 1.0, 10.0]
            if raise_top:
                engine.raise_top_priority(10.0)
                engine.raise_top_priority(2.0)  # never lowers it

    eng.run(between=hook)
    assert eng.columns["when"].tolist() == ([0, 2, 2, 1] if raise_top else [0, 1, 1, 1])
    with pytest.raises(gas.GasError, match="between hook"):
        eng.raise_top_priority(1.0)


def test_raise_top_priority_rejects_a_negative_value():
    g = gas.Graph.from_edges([], [], num_vertices=2)
    eng = gas.AsyncEngine(g, Want(), scheduler="priority", threads=1)

    def hook(engine, stat):
        engine.raise_top_priority(-1.0)

    with pytest.raises(gas.GasError, match="non-negative"):
        eng.run(between=hook)


def test_residual_shift_moves_a_uniform_residual_into_the_normalisation():
    # every vertex has out-edges, so residuals stay near a common level that the shift removes;
    # the answer still equals networkx.pagerank (independent reference), and the pushes needed
    # to get there are fewer than without the shift (edge counts are deterministic)
    from gas.algorithms.pagerank import ResidualPageRankProgram, _ResidualShift

    rng = np.random.default_rng(5)
    n = 400
    src = np.repeat(np.arange(n), 6)
    dst = rng.integers(0, n, src.size)
    keep = src != dst
    g = gas.Graph.from_edges(src[keep], dst[keep], num_vertices=n)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))
    ref = nx.pagerank(G, alpha=0.85, tol=1e-15, max_iter=10**4)
    ref = np.array([ref[int(i)] for i in g.ids])
    edges = {}
    for limit in (0.0, 0.9):
        prog = ResidualPageRankProgram(0.85, 1e-14, n / (g.num_edges + n))
        eng = gas.AsyncEngine(g, prog, scheduler="priority", consistency="full", threads=1)
        shift = _ResidualShift(g, prog, limit=limit)
        res = eng.run(max_iter=10**6, between=shift)
        y = res.output / res.output.sum()
        assert np.abs(y - ref).sum() <= 1e-10
        assert (shift.shifted > 0.1) == (limit > 0)
        edges[limit] = res.edge_updates
    assert edges[0.9] < edges[0.0]


@two_threads
@pytest.mark.parametrize("small", [0, 4096])
def test_sweep_serves_signals_to_later_groups_in_the_same_pass(monkeypatch, small):
    # a path 0-1-2-3 coloured 0,1,0,1: fifo needs a round per hop; a sweep runs colour class 1
    # right after class 0 in the same pass, so two hops per round (hand-worked); the same with
    # every class split between the threads (small=0) and on the calling thread (4096)
    monkeypatch.setattr(gas.async_engine, "SWEEP_SMALL_EDGES", small)
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="sweep", consistency="edge", threads=2)
    eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 0, 1, 1]
    eng = gas.AsyncEngine(g, CountRuns(), scheduler="fifo", consistency="edge", threads=2)
    eng.run(active=[0])
    assert eng.columns["when"].tolist() == [0, 1, 2, 3]


@two_threads
def test_sweep_runs_the_callers_colour_classes():
    # hand-worked, the path 0-1-2-3 with classes {1, 3} (colour 0) then {0, 2}: round 0 runs 0,
    # which signals 1; round 1 runs 1 (class 0) then 2 (class 1, signalled by 1); round 2 runs 3.
    # One thread keeps the caller's classes too (its former id block gave [0, 1, 2, 3])
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 3])
    for threads in (2, 1):
        eng = gas.AsyncEngine(
            g, CountRuns(), scheduler="sweep", consistency="edge", threads=threads, colors=[1, 0, 1, 0]
        )
        eng.run(active=[0])
        assert eng.columns["when"].tolist() == [0, 1, 1, 2]
    bad = gas.AsyncEngine(
        g, CountRuns(), scheduler="sweep", consistency="edge", threads=2, colors=[0, 0, 1, 1]
    )
    with pytest.raises(gas.GasError, match="distance-1 colouring: vertices 0 and 1 both have colour 0"):
        bad.run(active=[0])
    # full consistency also separates 0 and 2 (common neighbour 1)
    full = gas.AsyncEngine(
        g, CountRuns(), scheduler="sweep", consistency="full", threads=2, colors=[1, 0, 1, 0]
    )
    with pytest.raises(gas.GasError, match="distance-2 colouring: vertices 0 and 2"):
        full.run(active=[0])


# -- other algorithms on the async engine -----------------------------------------------------------


@pytest.mark.parametrize("scheduler", ["fifo", "priority", "sweep"])
def test_async_components_and_sssp_match_networkx(scheduler):
    g = _load_shared("p2p-Gnutella08/p2p-Gnutella08.txt")
    G = _nx("p2p-Gnutella08/p2p-Gnutella08.txt")
    comp = gas.algorithms.connected_components(g, engine="async", scheduler=scheduler)
    for cc in nx.weakly_connected_components(G):
        assert {int(g.ids[comp[g.index_of(v)]]) for v in cc} == {min(cc)}
    src = int(g.ids[0])
    dist = gas.algorithms.sssp(g, source=src, engine="async", scheduler=scheduler)
    ref = nx.single_source_shortest_path_length(G, src)
    want = np.array([ref.get(int(i), np.inf) for i in g.ids], dtype=np.float64)
    np.testing.assert_array_equal(dist, want)


def test_debug_mode_runs_the_same_program_as_plain_python():
    g = _load_shared("email-Eu-core/email-Eu-core.txt.gz")
    fast = coloring(g, consistency="edge", threads=1)
    slow = coloring(g, consistency="edge", debug=True)
    np.testing.assert_array_equal(fast, slow)


@numba.njit(parallel=True)
def _raise_all(vals, out):
    for i in numba.prange(vals.shape[0]):
        for r in range(out.shape[0]):
            atomic_max_nonneg(out, r, vals[i])


@two_threads
def test_concurrent_signal_priorities_keep_the_largest():
    # two threads raise the same slots with interleaved increasing values; the reference is the
    # numpy maximum. A plain `if v > out[r]: out[r] = v` lost it in 12 of 80 such slots when
    # measured (the schedule then depended on thread timing: a flaky resume test in CI)
    up = np.linspace(0.0, 1.0, 2_000_000)
    vals = np.concatenate([up, up * (1 + 1e-9)])
    for _ in range(3):
        out = np.zeros(4)
        _raise_all(vals, out)
        assert (out == vals.max()).all()
    out = np.array([0.0, 3.0, 1.0])
    _raise_all(np.array([2.0, np.inf]), out[:1])
    assert out.tolist() == [np.inf, 3.0, 1.0]


# -- a program's own priority ---------------------------------------------------------------------


class Countdown(gas.VertexProgram):
    """Runs while its own counter is positive; nothing ever signals (scatter_edges = NONE)."""

    vertex_data = {"left": np.int64, "runs": np.int64, "when": np.int64}
    gather_edges = gas.NONE

    def init(self, v, ctx):
        v.left = v.vid % 3
        v.when = -1

    def apply(self, v, total, ctx):
        v.left -= 1
        v.runs += 1
        v.when = ctx.iteration

    def priority(self, v):
        return v.left * 1.0


@pytest.mark.parametrize(
    "scheduler,threads,debug",
    [
        ("priority", 1, False),
        ("priority", 2, False),
        ("fifo", 2, False),
        ("sweep", 1, False),
        ("fifo", 1, True),
    ],
)
def test_a_positive_own_priority_schedules_a_vertex_without_any_signal(scheduler, threads, debug):
    # hand-worked: vertex v starts with v % 3 runs to do and nothing is signalled or active at
    # the start; each vertex runs exactly that many times, one run per round
    g = gas.Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 3, 4, 5])
    eng = gas.AsyncEngine(g, Countdown(), scheduler=scheduler, threads=threads, debug=debug)
    res = eng.run(active=[])
    assert eng.columns["runs"].tolist() == [0, 1, 2, 0, 1, 2]
    assert eng.columns["when"].tolist() == [-1, 0, 1, -1, 0, 1]
    assert res.converged and res.iterations == 2 and res.updates == 6
    assert [s["scheduled"] for s in res.stats] == [2, 0]


def test_the_sync_engine_runs_vertices_whose_own_priority_is_positive_next_superstep():
    # hand-worked: every vertex runs in superstep 0 (all active); afterwards only the vertices
    # with v % 3 == 2 still have a run to do, and run in superstep 1
    g = gas.Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 3, 4, 5])
    eng = gas.SyncEngine(g, Countdown())
    res = eng.run(10)
    assert eng.columns["runs"].tolist() == [1, 1, 2, 1, 1, 2]
    assert res.converged and res.iterations == 2


def test_residual_pagerank_schedules_through_its_own_priority():
    # the bundled push form signals nothing from scatter; its answer still equals
    # networkx.pagerank (independent reference) on a graph with a cycle, a sink and a dangling
    # vertex, on one thread and as plain Python
    from gas.algorithms.pagerank import ResidualPageRankProgram

    src, dst = [0, 1, 2, 2, 3, 5], [1, 2, 0, 3, 4, 4]
    g = gas.Graph.from_edges(src, dst)
    ref = nx.pagerank(nx.DiGraph(list(zip(src, dst))), tol=1e-15, max_iter=10**4)
    ref = np.array([ref[i] for i in range(6)])
    for debug in (False, True):
        prog = ResidualPageRankProgram(0.85, 1e-15)
        eng = gas.AsyncEngine(g, prog, scheduler="priority", consistency="full", threads=1, debug=debug)
        y = eng.run(10**5).output
        assert np.abs(y / y.sum() - ref).sum() <= 1e-12


def test_a_priority_method_that_returns_no_number_is_refused():
    class Bad(Countdown):
        def priority(self, v):
            return v.left, v.runs

    g = gas.Graph.from_edges([0], [1])
    with pytest.raises(gas.ProgramError, match=r"Bad\.priority returns"):
        gas.AsyncEngine(g, Bad())


def test_a_program_with_its_own_priority_is_refused_across_processes():
    # before any worker is spawned: the process runtime schedules by signals only
    from gas.runtime.local import run_distributed

    g = gas.Graph.from_edges([0, 1], [1, 0])
    with pytest.raises(gas.GasError, match="priority"):
        run_distributed(g, Countdown(), procs=2)
