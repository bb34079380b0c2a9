"""gaslab as a networkx backend (gas/nx_backend, gas/nx_backend_info.py): dispatch, answers, reasons, errors.

Every expected value is networkx's own function on the same graph (the independent reference).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib.metadata import entry_points

import networkx as nx
import pytest

from gas import nx_backend
from gas.nx_backend import SHOULD_RUN_MIN_EDGES, BackendInterface

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs")


def _weighted_digraph() -> nx.DiGraph:
    G = nx.gnm_random_graph(120, 600, seed=3, directed=True)
    G.add_nodes_from(["iso", ("t", 1)])  # non-integer, isolated nodes; dangling vertices too
    G.add_edge(5, 5)
    for u, v in G.edges:
        G[u][v]["w"] = float((hash((u, v)) % 7) + 1)
    return G


def _components(result) -> list:
    return sorted(sorted(map(str, c)) for c in result)


def test_entry_points_registered():
    assert "gaslab" in {ep.name for ep in entry_points(group="networkx.backends")}
    info = {ep.name: ep for ep in entry_points(group="networkx.backend_info")}
    assert info["gaslab"].load()()["backend_name"] == "gaslab"
    assert "gaslab" in nx.utils.backends.backends


def test_backend_info_imports_nothing_heavy():
    code = (
        "import sys, gas.nx_backend_info as m; m.get_info(); "
        "print(sorted(m for m in ('numba', 'numpy', 'networkx', 'gas.graph') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("weight", ["w", None])
def test_pagerank_matches_networkx(weight):
    G = _weighted_digraph()
    got = nx.pagerank(G, weight=weight, tol=1e-10, backend="gaslab")
    want = nx.pagerank(G, weight=weight, tol=1e-10)  # reference: networkx
    assert list(got) == list(want)
    assert sum(abs(got[k] - want[k]) for k in want) <= 1e-6
    # 601 edges, under SHOULD_RUN_MIN_EDGES: an explicit backend= skips should_run, so gaslab ran
    # (its converted graph is in networkx's cache).
    assert "gaslab" in G.__networkx_cache__["backends"]


def test_pagerank_multigraph_weights_add_up():
    # networkx's pagerank sums parallel edge weights (to_scipy_sparse_array)
    M = nx.MultiDiGraph([(0, 1, {"weight": 2.0}), (0, 1, {"weight": 3.0}), (0, 2), (1, 2), (2, 0)])
    got = nx.pagerank(M, tol=1e-12, backend="gaslab")
    want = nx.pagerank(M, tol=1e-12)
    assert sum(abs(got[k] - want[k]) for k in want) <= 1e-8


def test_pagerank_positional_arguments_and_gaslab_kwargs():
    G = _weighted_digraph()
    want = nx.pagerank(G, 0.7, None, 200, 1e-10, None, "w")
    got = nx.pagerank(G, 0.7, None, 200, 1e-10, None, "w", backend="gaslab", threads=1, extrapolate_every=6)
    assert sum(abs(got[k] - want[k]) for k in want) <= 1e-6


def test_pagerank_raises_networkx_convergence_error():
    G = _weighted_digraph()
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=2, tol=1e-12, backend="gaslab")


def test_components_match_networkx():
    D = _weighted_digraph()
    D.add_edges_from([(200, 201), (202, 202)])
    U = D.to_undirected()
    assert _components(nx.connected_components(U, backend="gaslab")) == _components(
        nx.connected_components(U)
    )
    got = nx.weakly_connected_components(D, backend="gaslab")
    assert _components(got) == _components(nx.weakly_connected_components(D))
    assert nx.number_connected_components(U, backend="gaslab") == nx.number_connected_components(U) == 5
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.connected_components(D, backend="gaslab")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.weakly_connected_components(U, backend="gaslab")


@pytest.mark.parametrize("cutoff", [None, 2])
def test_shortest_path_lengths_match_networkx(cutoff):
    G = _weighted_digraph()
    got = nx.single_source_shortest_path_length(G, 0, cutoff, backend="gaslab")
    assert got == nx.single_source_shortest_path_length(G, 0, cutoff)
    got = nx.single_source_dijkstra_path_length(G, 0, cutoff and 3.0, "w", backend="gaslab")
    assert got == pytest.approx(nx.single_source_dijkstra_path_length(G, 0, cutoff and 3.0, "w"))


def test_dijkstra_multigraph_takes_smallest_parallel_edge():
    M = nx.MultiGraph([(0, 1, {"w": 5}), (0, 1, {"w": 2}), (1, 2, {"w": 1}), (0, 2, {"w": 9})])
    got = nx.single_source_dijkstra_path_length(M, 0, weight="w", backend="gaslab")
    assert got == nx.single_source_dijkstra_path_length(M, 0, weight="w") == {0: 0, 1: 2, 2: 3}


def test_missing_source_raises_node_not_found():
    G = nx.path_graph(4)
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, 99, backend="gaslab")
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(G, 99, backend="gaslab")


def test_greedy_color_largest_first_matches_networkx():
    G = nx.gnm_random_graph(80, 300, seed=5)
    G.add_edge(3, 3)
    assert nx.greedy_color(G, backend="gaslab") == nx.greedy_color(G, "largest_first")


def test_can_run_gives_reasons():
    G = nx.path_graph(3)
    assert BackendInterface.can_run("pagerank", (G,), {}) is True
    reason = BackendInterface.can_run("pagerank", (G, 0.85, {0: 1.0}), {})
    assert "personalization" in reason
    assert "callable" in BackendInterface.can_run(
        "single_source_dijkstra_path_length", (G, 0), {"weight": lambda u, v, d: 1}
    )
    assert "largest_first" in BackendInterface.can_run("greedy_color", (G, "smallest_last"), {})
    assert "direct" in BackendInterface.can_run("greedy_color", (nx.DiGraph(G),), {})
    assert "does not implement" in BackendInterface.can_run("betweenness_centrality", (G,), {})
    with pytest.raises(NotImplementedError, match="for the given arguments"):
        nx.pagerank(G, nstart={0: 1.0}, backend="gaslab")


def test_should_run_sends_small_graphs_to_networkx():
    small = nx.path_graph(10)
    big = nx.gnm_random_graph(500, SHOULD_RUN_MIN_EDGES, seed=1)
    assert "fewer than" in BackendInterface.should_run("pagerank", (small,), {})
    assert BackendInterface.should_run("pagerank", (big,), {}) is True
    # Through backend_priority, a small graph runs in networkx: no converted graph is cached.
    with nx.config.backend_priority(algos=["gaslab"]), warnings.catch_warnings():
        nx.pagerank(small)
        assert "gaslab" not in small.__networkx_cache__.get("backends", {})
        nx.pagerank(big)
        assert "gaslab" in big.__networkx_cache__["backends"]


def test_convert_round_trip():
    G = nx.MultiDiGraph([("a", "b", {"w": 2.0}), ("a", "b", {"w": 3.0}), ("b", "c")])
    G.add_node("z")
    g = BackendInterface.convert_from_nx(G, edge_attrs={"w": 1})
    back = BackendInterface.convert_to_nx(g)
    assert sorted(back.edges(data="w")) == sorted(G.edges(data="w", default=1.0))
    assert set(back) == set(G) and back.is_multigraph() and back.is_directed()


def test_unknown_gaslab_keyword_is_refused_with_the_reason():
    G = nx.path_graph(3)
    reason = BackendInterface.can_run("pagerank", (G,), {"colour": 1})
    assert "colour" in reason
    assert BackendInterface.can_run("pagerank", (G,), {"threads": 1, "engine": "async", "procs": 1}) is True


def test_on_start_tests_marks_known_differences(monkeypatch):
    # A stand-in for pytest's items: only the listed test gets the xfail marker with the reason.
    class Item:
        def __init__(self, nodeid):
            self.nodeid, self.markers = nodeid, []

        def add_marker(self, marker):
            self.markers.append(marker)

    monkeypatch.setitem(nx_backend.KNOWN_DIFFERENCES, "test_x.py::test_a", "a reason")
    items = [Item("pkg/test_x.py::test_a"), Item("pkg/test_x.py::test_b")]
    BackendInterface.on_start_tests(items)
    assert [m.kwargs["reason"] for m in items[0].markers] == ["a reason"] and items[1].markers == []


def test_negative_weight_is_left_to_networkx():
    # gaslab refuses negative weights; the backend says so with NotImplementedError, which makes
    # networkx run the call itself under backend_priority (reference: networkx's own answer).
    G = nx.gnm_random_graph(300, SHOULD_RUN_MIN_EDGES, seed=4, directed=True)
    nx.set_edge_attributes(G, 1.0, "weight")
    u, v = next(iter(G.edges))
    G.add_edge(u, v, weight=-0.5)
    with pytest.raises(NotImplementedError) as info:
        nx.pagerank(G, backend="gaslab")
    assert "non-negative" in str(info.value.__cause__)
    with nx.config.backend_priority(algos=["gaslab"]):
        assert nx.pagerank(G) == pytest.approx(nx.pagerank(G, backend="networkx"))
