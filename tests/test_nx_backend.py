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
    assert BackendInterface.can_run("pagerank", (G, 0.85, {0: 1.0}), {}) is True
    reason = BackendInterface.can_run("pagerank", (G, 0.85, {0: -1.0, 1: 2.0}), {})
    assert "negative" in reason and "personalization" in reason
    assert "NaN" in BackendInterface.can_run("pagerank", (G,), {"nstart": {0: 0.0}})
    assert "callable" in BackendInterface.can_run(
        "single_source_dijkstra_path_length", (G, 0), {"weight": lambda u, v, d: 1}
    )
    assert "largest_first" in BackendInterface.can_run("greedy_color", (G, "smallest_last"), {})
    assert "direct" in BackendInterface.can_run("greedy_color", (nx.DiGraph(G),), {})
    assert "does not implement" in BackendInterface.can_run("betweenness_centrality", (G,), {})
    with pytest.raises(NotImplementedError, match="for the given arguments"):
        nx.pagerank(G, personalization={0: -1.0, 1: 1.0}, backend="gaslab")


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


def _toolkit_graph() -> nx.Graph:
    G = nx.powerlaw_cluster_graph(150, 3, 0.4, seed=7)  # many triangles, a few isolated-ish nodes
    G = nx.relabel_nodes(G, {i: (f"v{i}" if i % 3 else i * 10) for i in G})  # str and int, not 0..n-1
    G.add_nodes_from(["iso", ("t", 1)])
    return G


def _same(got, want) -> None:
    """Equal values of the same Python types (networkx's int 0 vs float coefficients)."""
    assert got == want
    if isinstance(want, dict):
        assert list(got) == list(want)
        assert [type(x) for x in got.values()] == [type(x) for x in want.values()]
    else:
        assert type(got) is type(want)


def test_toolkit_functions_match_networkx():
    G = _toolkit_graph()
    some = [0, "v1", "iso", "absent"]
    for f, args in [
        (nx.triangles, ()),
        (nx.triangles, (some,)),
        (nx.triangles, ("v2",)),
        (nx.clustering, ()),
        (nx.clustering, (some,)),
        (nx.clustering, (0,)),
        (nx.average_clustering, ()),
        (nx.average_clustering, (some, None, False)),
        (nx.transitivity, ()),
        (nx.core_number, ()),
    ]:
        _same(f(G, *args, backend="gaslab"), f(G, *args))  # reference: networkx itself
    assert nx.transitivity(nx.path_graph(4), backend="gaslab") == 0  # networkx's int 0
    M = nx.MultiGraph(G)
    M.add_edges_from(list(G.edges)[:20])
    _same(nx.triangles(M, backend="gaslab"), nx.triangles(M))  # a multigraph counts neighbour sets


def test_scc_and_label_propagation_match_networkx():
    D = nx.gnm_random_graph(200, 500, seed=8, directed=True)
    D.add_edges_from([("a", "b"), ("b", "a"), (0, 0)])
    got = list(nx.strongly_connected_components(D, backend="gaslab"))
    want = list(nx.strongly_connected_components(D))
    assert sorted(map(sorted, map(lambda c: map(str, c), got))) == sorted(
        map(sorted, map(lambda c: map(str, c), want))
    )
    assert nx.number_strongly_connected_components(D, backend="gaslab") == len(want)
    G = _toolkit_graph()
    got = nx.community.label_propagation_communities(G, backend="gaslab")
    want = nx.community.label_propagation_communities(G)  # reference: networkx, same order too
    assert type(got) is type(want) and list(got) == list(want)


def test_toolkit_raises_networkx_exceptions():
    D = nx.gnm_random_graph(20, 40, seed=1, directed=True)
    M = nx.MultiGraph([(0, 1), (1, 2), (2, 0)])
    L = nx.Graph([(0, 1), (1, 1)])
    cases = [
        (nx.triangles, (D,), nx.NetworkXNotImplemented),
        (nx.triangles, (M, [0]), nx.NetworkXNotImplemented),
        (nx.clustering, (M,), nx.NetworkXNotImplemented),
        (nx.transitivity, (M,), nx.NetworkXNotImplemented),
        (nx.core_number, (M,), nx.NetworkXNotImplemented),
        (nx.core_number, (L,), nx.NetworkXNotImplemented),
        (nx.strongly_connected_components, (M,), nx.NetworkXNotImplemented),
        (nx.community.label_propagation_communities, (D,), nx.NetworkXNotImplemented),
        (nx.triangles, (L, 99), nx.NetworkXError),
        (nx.clustering, (L, [[0]]), nx.NetworkXError),
    ]
    for f, args, exc in cases:
        with pytest.raises(exc) as mine:
            r = f(*args, backend="gaslab")
            list(r) if not isinstance(r, dict) else None
        with pytest.raises(exc) as theirs:  # reference: networkx raises the same, same message
            list(f(*args))
        assert str(mine.value) == str(theirs.value)


def test_toolkit_declines_with_reasons():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    assert "unweighted" in BackendInterface.can_run("clustering", (nx.path_graph(3), None, "w"), {})
    assert "directed" in BackendInterface.can_run("clustering", (D,), {})
    assert "successors" in BackendInterface.can_run("transitivity", (D,), {})
    D.add_edge(1, 0)  # reciprocal: networkx's directed cores count both
    with pytest.raises(NotImplementedError) as info:
        nx.core_number(D, backend="gaslab")
    assert "u->v and v->u" in str(info.value.__cause__)
    L = nx.cycle_graph(5)
    L.add_edge(0, 0)
    with pytest.raises(NotImplementedError) as info:
        nx.community.label_propagation_communities(L, backend="gaslab")
    assert "self-loop" in str(info.value.__cause__)
    with nx.config.backend_priority(algos=["gaslab"]), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nx.core_number(D) == nx.core_number(D, backend="networkx")  # fell back to networkx


@pytest.mark.parametrize("weights", [[3, 1, 4, 1, 5], [0.5, 1.5, 2.0, 0.25, 1.0]])
def test_dijkstra_keeps_networkx_types(weights):
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, weights[0]), (1, 2, weights[1]), (0, 2, weights[2]),
                               (2, 3, weights[3]), (3, 4, weights[4])], weight="w")  # fmt: skip
    _same(nx.single_source_dijkstra_path_length(G, 0, weight="w", backend="gaslab"),
          nx.single_source_dijkstra_path_length(G, 0, weight="w"))  # fmt: skip
    G.add_edge(4, 5)  # w missing: networkx's default 1, an int among floats
    if isinstance(weights[0], float):
        with pytest.raises(NotImplementedError) as info:
            nx.single_source_dijkstra_path_length(G, 0, weight="w", backend="gaslab")
        assert "mixes ints and floats" in str(info.value.__cause__)


@pytest.mark.parametrize(
    "G",
    [
        nx.MultiGraph([(5, 2, {"w": 2}), (5, 2, {"w": 3.5}), (2, 2), (9, 5)]),
        nx.MultiDiGraph([("a", "b", {"w": 2}), ("a", "b"), ("b", "a"), (("t", 1), "a", {"w": 7})]),
        nx.Graph([(3, 1, {"w": 2}), (1, 7), (7, 7, {"w": 4})]),
    ],
)
def test_conversion_matches_networkx_adjacency(G):
    # reference: networkx's own sparse matrix (parallel weights added) and degrees
    g = BackendInterface.convert_from_nx(G, edge_attrs={"w": 1})
    A = nx.to_scipy_sparse_array(G, nodelist=g.nodes, weight="w").tocoo()
    built = g.graph_for("w", "sum")
    got = sorted(zip(built.src.tolist(), built.dst.tolist(), built.weights.tolist()))
    assert got == sorted(zip(A.row.tolist(), A.col.tolist(), A.data.tolist()))
    assert g.degree().tolist() == [d for _, d in G.degree(g.nodes)]
    assert g.number_of_edges() == G.number_of_edges()
    assert g.number_of_selfloops() == nx.number_of_selfloops(G)
    S = g.simple()
    assert S.simple_undirected() is S
    want = nx.Graph(G.to_undirected(as_view=True))
    want.remove_edges_from(nx.selfloop_edges(want))
    assert S.num_edges == 2 * want.number_of_edges()


def test_centrality_matches_networkx():
    G = _weighted_digraph()
    beta = {u: 1.0 + (i % 3) for i, u in enumerate(G)}
    # references: networkx's own functions (hits: ARPACK, so agreement to the tolerance)
    for f, kw, bound in [
        (nx.katz_centrality, dict(alpha=0.01, beta=beta, weight="w", tol=1e-12), 1e-9),
        (nx.eigenvector_centrality, dict(weight="w", tol=1e-12, max_iter=1000), 1e-8),
    ]:
        got, want = f(G, backend="gaslab", **kw), f(G, **kw)
        assert list(got) == list(want) and sum(abs(got[k] - want[k]) for k in want) <= bound
    U = nx.gnm_random_graph(100, 400, seed=9)
    got, want = nx.hits(U, tol=1e-12, backend="gaslab"), nx.hits(U, tol=1e-12)
    for g, w in zip(got, want):
        assert sum(abs(g[k] - w[k]) for k in w) <= 1e-8
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.katz_centrality(G, max_iter=2, backend="gaslab")
    with pytest.raises(nx.NetworkXError, match="beta dictionary"):
        nx.katz_centrality(G, beta={0: 1.0}, backend="gaslab")


def test_views_and_graph_classes_with_their_own_adjacency():
    # networkx's k-components approximation runs core_number on an _AntiGraph (adj = the complement)
    # and many functions on subgraph views; reference: networkx on the same objects.
    from networkx.algorithms.approximation.kcomponents import _AntiGraph

    K = nx.karate_club_graph()
    A = _AntiGraph(nx.complement(K))
    assert nx.core_number(A, backend="gaslab") == nx.core_number(A)
    V = nx.subgraph_view(nx.MultiGraph(K), filter_node=lambda n: n % 3 != 0)
    assert nx.triangles(V, backend="gaslab") == nx.triangles(V)
    want = nx.pagerank(V, tol=1e-12)
    got = nx.pagerank(V, tol=1e-12, backend="gaslab")
    assert sum(abs(got[k] - want[k]) for k in want) <= 1e-10


def test_personalized_pagerank_matches_networkx():
    G = nx.gnm_random_graph(150, 600, seed=8, directed=True)
    G.add_node(500)  # a dangling vertex without edges
    p = {0: 1.0, 7: 3.0, "not a node": 5.0}  # networkx ignores keys that are not nodes
    nstart = {v: 1.0 + v % 3 for v in G}
    dangling = {1: 1.0, 2: 1.0}
    want = nx.pagerank(G, personalization=p, nstart=nstart, dangling=dangling, tol=1e-13)  # reference
    got = nx.pagerank(G, personalization=p, nstart=nstart, dangling=dangling, tol=1e-13, backend="gaslab")
    assert list(got) == list(want)
    assert sum(abs(got[v] - want[v]) for v in G) <= 1e-6
    with pytest.raises(ZeroDivisionError):  # as networkx
        nx.pagerank(G, personalization={"x": 1.0}, backend="gaslab")
