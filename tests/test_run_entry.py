"""gas.run, the one run entry point, and its typed, frozen options (gas.options).

Oracles: networkx (pagerank, weakly connected components, Dijkstra) for the answers; the same
bundled algorithm on one process for the process runs (within 1e-9).
"""

import dataclasses

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms import connected_components, pagerank, sssp
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram
from gas.options import CheckpointOptions, Restore, RunOptions, Staleness

SRC = [0, 1, 2, 3, 4, 5, 2, 6, 8, 8]
DST = [1, 2, 0, 4, 5, 3, 3, 7, 9, 0]
WEIGHTS = [1.0, 2.0, 3.0, 1.0, 1.0, 2.0, 5.0, 0.5, 4.0, 1.5]


@pytest.fixture(scope="module")
def graph() -> gas.Graph:
    return gas.Graph.from_edges(SRC, DST, num_vertices=11, edge_data={"weight": WEIGHTS})


def _nx(g: gas.Graph) -> nx.DiGraph:
    d = nx.DiGraph()
    d.add_nodes_from(g.ids.tolist())
    for s, t, w in zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist(), g.edata["weight"].tolist()):
        d.add_edge(s, t, weight=w)
    return d


# ---------------------------------------------------------------------- procs=2 equals procs=1
def test_pagerank_on_two_processes_equals_one_and_networkx(graph):
    one = pagerank(graph, tol=1e-13, max_iter=500, extrapolate_every=0)
    two = pagerank(graph, tol=1e-13, max_iter=500, procs=2, partition="random")
    assert np.abs(two - one).max() < 1e-9
    ref = nx.pagerank(_nx(graph), alpha=0.85, tol=1e-13, max_iter=500, weight=None)
    assert np.abs(two - np.array([ref[int(v)] for v in graph.ids])).max() < 1e-9


def test_weighted_pagerank_on_two_processes(graph):
    one = pagerank(graph, tol=1e-13, max_iter=500, weight="weight", extrapolate_every=0)
    two = pagerank(graph, tol=1e-13, max_iter=500, weight="weight", procs=2)
    assert np.abs(two - one).max() < 1e-9
    ref = nx.pagerank(_nx(graph), alpha=0.85, tol=1e-13, max_iter=500, weight="weight")
    assert np.abs(two - np.array([ref[int(v)] for v in graph.ids])).max() < 1e-9


def test_components_on_two_processes(graph):
    two = connected_components(graph, procs=2, partition="hdrf")
    assert two.tolist() == connected_components(graph).tolist()
    expect = np.empty(graph.num_vertices, np.int64)
    for comp in nx.weakly_connected_components(_nx(graph)):
        for v in comp:
            expect[graph.index_of(v)] = min(comp)
    assert two.tolist() == expect.tolist()


def test_sssp_on_two_processes(graph):
    two = sssp(graph, source=0, procs=2, partition="random")
    assert np.allclose(two, sssp(graph, source=0), atol=1e-9, rtol=0)
    ref = nx.single_source_dijkstra_path_length(_nx(graph), 0, weight="weight")
    expect = [ref.get(int(v), np.inf) for v in graph.ids]
    assert np.allclose(two, expect, atol=1e-9, rtol=0)
    assert np.isinf(two[graph.index_of(10)])  # isolated: unreachable


# ---------------------------------------------------------------------- gas.run itself
def test_run_takes_program_and_graph_in_either_order(graph):
    a = gas.run(graph, ComponentsProgram(), max_iter=50)
    b = gas.run(ComponentsProgram(), graph, max_iter=50)
    assert a.converged and b.converged
    assert a.output.tolist() == b.output.tolist()


def test_run_without_a_program_says_so(graph):
    with pytest.raises(gas.GasError, match="VertexProgram"):
        gas.run(graph, graph)
    with pytest.raises(gas.GasError, match="VertexProgram"):
        gas.run(graph, ComponentsProgram)  # the class, not an instance


def test_run_refuses_bad_engine_and_procs(graph):
    with pytest.raises(gas.GasError, match="Unknown engine 'later'"):
        gas.run(graph, ComponentsProgram(), engine="later")
    with pytest.raises(gas.GasError, match="procs >= 1"):
        gas.run(graph, ComponentsProgram(), procs=0)
    with pytest.raises(gas.GasError, match="RunOptions"):
        gas.run(graph, ComponentsProgram(), options={"threads": 1})


def test_run_keywords_override_options(graph):
    prog = PageRankProgram(tol=1e-12)
    base = gas.run(graph, prog, max_iter=300, options=RunOptions(debug=True), debug=False)
    ref = gas.SyncEngine(graph, prog).run(300)
    assert np.array_equal(base.output, ref.output)


def test_run_two_processes_matches_one(graph):
    prog = PageRankProgram(tol=1e-13)
    one = gas.run(graph, prog, max_iter=400)
    two = gas.run(prog, graph, procs=2, max_iter=400, options=RunOptions(seed=3))
    assert two.converged
    assert np.abs(two.output - one.output).max() < 1e-9
    assert all("bytes_sent" in s for s in two.stats)


# ---------------------------------------------------------------------- options
@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: RunOptions(threads=0), "'threads' to be an integer >= 1"),
        (lambda: RunOptions(seed=-1), "'seed' to be an integer >= 0"),
        (lambda: RunOptions(scheduler="lifo"), "Unknown scheduler 'lifo'"),
        (lambda: RunOptions(consistency="strong"), "Unknown consistency model 'strong'"),
        (lambda: RunOptions(priority_ratio=0.0), "'priority_ratio'"),
        (lambda: RunOptions(timeout=float("nan")), "'timeout'"),
        (lambda: RunOptions(launcher="mpi"), "Unknown launcher 'mpi'"),
        (lambda: RunOptions(debug="yes"), "'debug' to be True or False"),
        (lambda: RunOptions(staleness=2), "'staleness' to be a Staleness"),
        (lambda: Staleness(-1), "staleness bound s >= 0"),
        (lambda: Staleness(1, straggler="slow"), "RANK:SECONDS"),
        (lambda: Staleness(1, sweeps=-2), "'sweeps'"),
        (lambda: CheckpointOptions("d", every=0), "'every' to be an integer >= 1"),
        (lambda: CheckpointOptions("", every=1), "'folder'"),
        (lambda: Restore(-1, {}), "'step'"),
        (lambda: Restore(0, {"a": np.zeros(3), "b": np.zeros(4)}), "same rows"),
        (lambda: Restore(0, {}, {"w": np.zeros(2)}), "'active'"),
    ],
)
def test_options_are_validated(make, match):
    with pytest.raises(gas.GasError, match=match):
        make()


def test_options_are_frozen():
    o = RunOptions(threads=2, staleness=Staleness(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.threads = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.staleness.staleness = 5  # type: ignore[union-attr,misc]
    with pytest.raises((AttributeError, TypeError)):
        o.extra = 1  # type: ignore[attr-defined]  # slots: no new attributes either
    assert dataclasses.replace(o, threads=3).threads == 3 and o.threads == 2


def test_options_round_trip_through_json():
    import json

    o = RunOptions(
        seed=4,
        scheduler="sweep",
        max_work=1000,
        staleness=Staleness(2, straggler=(1, 0.25), fresh=False, sweeps=3),
        checkpoint=CheckpointOptions("snaps", every=5, keep=3, meta={"command": "pagerank"}),
    )
    back = RunOptions.from_json(json.loads(json.dumps(o.to_json())))
    assert back == o
    assert o.staleness.to_json() == {"staleness": 2, "straggler": [1, 0.25], "fresh": False, "sweeps": 3}
    assert Staleness(0, straggler="any:0.5").straggler == (-1, 0.5)


def test_restore_keeps_its_arrays_out_of_the_json():
    r = Restore(3, {"x": np.arange(4.0)}, {"y": np.ones(2)}, done=True)
    assert r.to_json() == {"step": 3, "done": True, "init": False, "vertex": ["x"], "edges": ["y"]}
    assert r.active is not None and r.active.tolist() == [True] * 4
    d = Restore.from_dict(r.as_dict())
    assert d.step == 3 and d.done and np.array_equal(d.vertex["x"], np.arange(4.0))


@pytest.mark.parametrize("keep", [1, 3])
def test_checkpoint_options_keep_that_many_snapshots(graph, tmp_path, keep):
    from gas.runtime.checkpoint import snapshots

    ck = CheckpointOptions(str(tmp_path), every=1, keep=keep)
    res = gas.run(graph, PageRankProgram(tol=1e-13), max_iter=6, options=RunOptions(checkpoint=ck))
    assert res.iterations == 6 and not res.converged
    assert len(snapshots(tmp_path)) == keep


def test_max_work_is_for_the_asynchronous_engine(graph):
    with pytest.raises(gas.GasError, match="asynchronous engine's budget"):
        gas.run(graph, ComponentsProgram(), max_work=10)
    res = gas.run(graph, ComponentsProgram(), engine="async", max_iter=1000, max_work=10**6)
    assert res.converged and res.output.tolist() == gas.run(graph, ComponentsProgram()).output.tolist()


def test_launcher_auto_without_a_launcher_runs_here(graph, monkeypatch):
    from gas.runtime.launch import _WORLD_VARS

    for rank_var, _ in _WORLD_VARS:
        monkeypatch.delenv(rank_var, raising=False)
    got = gas.run(graph, ComponentsProgram(), options=RunOptions(launcher="auto"))
    assert got.output.tolist() == gas.run(graph, ComponentsProgram()).output.tolist()


def test_runtime_only_settings_run_on_one_process(graph):
    from gas.runtime.local import initial_state

    prog = PageRankProgram(tol=1e-13)
    done = gas.run(graph, prog, max_iter=400)
    # a restore (and edges=True) needs the process runtime, used here with one process; PageRank's
    # init overwrites rank, so the run reaches the same fixed point
    start = initial_state(graph, prog, {"vertex": {"rank": done.vertex_data["rank"]}})
    again = gas.run(graph, prog, max_iter=400, options=RunOptions(restore=start, edges=True))
    assert again.converged and np.abs(again.output - done.output).max() < 1e-12


def test_asynchronous_pagerank_on_two_processes(graph):
    ref = nx.pagerank(_nx(graph), alpha=0.85, tol=1e-13, max_iter=500, weight=None)
    two = pagerank(graph, tol=1e-13, engine="async", procs=2)
    assert np.abs(two - np.array([ref[int(v)] for v in graph.ids])).max() < 1e-9
    with pytest.raises(gas.GasError, match="one process only"):
        pagerank(graph, engine="async", consistency="full", procs=2)
