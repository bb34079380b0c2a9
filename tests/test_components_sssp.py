"""Connected components and SSSP against networkx (the oracle)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_digraph, shared_path

import gas
from gas.algorithms import connected_components, sssp


def _nx_components(G: nx.DiGraph) -> dict:
    label = {}
    for comp in nx.weakly_connected_components(G):
        m = min(comp)
        for v in comp:
            label[v] = m
    return label


@pytest.mark.parametrize(
    "rel", ["p2p-Gnutella08/p2p-Gnutella08.txt", "wiki-Vote/Wiki-Vote.txt", "ca-GrQc/ca-GrQc.txt"]
)
def test_cc_matches_networkx_on_shared(rel):
    path = shared_path(rel)
    g = gas.io.load(path)
    ref = _nx_components(nx_digraph(path))
    ours = connected_components(g)  # by internal id: g.ids gives the smallest original id
    assert g.ids[ours].tolist() == [ref[i] for i in g.ids.tolist()]


def test_cc_small_cases():
    g = gas.Graph.from_edges([5, 6, 9, 9], [6, 7, 9, 3], num_vertices=12)
    G = nx.DiGraph()
    G.add_nodes_from(range(12))
    G.add_edges_from([(5, 6), (6, 7), (9, 9), (9, 3)])
    ref = _nx_components(G)
    assert connected_components(g).tolist() == [ref[i] for i in range(12)]
    assert connected_components(gas.Graph.from_edges([], [])).shape == (0,)


def test_cc_random_graphs_and_debug_mode():
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 300, 250), rng.integers(0, 300, 250)
    g = gas.Graph.from_edges(src, dst)
    G = nx.DiGraph(list(zip(src.tolist(), dst.tolist())))
    ref = _nx_components(G)
    expect = [ref[i] for i in g.ids.tolist()]
    assert g.ids[connected_components(g)].tolist() == expect
    assert g.ids[connected_components(g, debug=True)].tolist() == expect


def test_cc_on_graphs_listing_both_directions_uses_out_edges_only():
    # a random undirected graph, stored with both directions (as simple_undirected and undirected
    # loads store it): the out-edge program must give networkx's undirected components, in the
    # normal and the debug engine; a directed graph keeps the all-edges program
    from gas.algorithms.components import lists_both_directions

    rng = np.random.default_rng(2)
    src, dst = rng.integers(0, 400, 300), rng.integers(0, 400, 300)
    G = nx.Graph(list(zip(src.tolist(), dst.tolist())))
    G.add_nodes_from(range(400))
    ref = {v: min(c) for c in nx.connected_components(G) for v in c}  # independent reference
    g = gas.Graph.from_edges(src, dst, num_vertices=400).simple_undirected()
    assert lists_both_directions(g)
    assert not lists_both_directions(gas.Graph.from_edges(src, dst, num_vertices=400))
    expect = [ref[i] for i in g.ids.tolist()]
    assert g.ids[connected_components(g)].tolist() == expect
    assert g.ids[connected_components(g, debug=True)].tolist() == expect
    assert g.ids[connected_components(g, engine="async")].tolist() == expect


def test_sssp_weighted_matches_dijkstra():
    rng = np.random.default_rng(2)
    src, dst = rng.integers(0, 400, 3000), rng.integers(0, 400, 3000)
    w = rng.uniform(0.0, 10.0, 3000)
    g = gas.Graph.from_edges(src, dst, weights=w)
    G = nx.DiGraph()
    for s, d, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        G.add_edge(s, d, weight=x)
    source = int(src[0])
    ref = nx.single_source_dijkstra_path_length(G, source)
    ours = sssp(g, source)
    expect = np.array([ref.get(i, np.inf) for i in g.ids.tolist()])
    assert np.array_equal(np.isinf(ours), np.isinf(expect))
    fin = np.isfinite(expect)
    assert np.allclose(ours[fin], expect[fin], rtol=0, atol=1e-9)


def test_sssp_hops_match_bfs_on_shared():
    path = shared_path("wiki-Vote/Wiki-Vote.txt")
    g = gas.io.load(path)
    G = nx_digraph(path)
    source = 30
    ref = nx.single_source_shortest_path_length(G, source)
    ours = sssp(g, source)
    expect = np.array([ref.get(i, np.inf) for i in g.ids.tolist()], dtype=float)
    assert np.array_equal(ours, expect)


def test_sssp_refuses_negative_weights_and_unknown_source():
    g = gas.Graph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0])
    with pytest.raises(gas.GraphError, match="non-negative"):
        sssp(g, 0)
    g2 = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(gas.GraphError, match="Unknown vertex id 99"):
        sssp(g2, 99)
    # hop counts ignore weights
    assert sssp(g, 0, weight=None).tolist() == [0.0, 1.0, 2.0]


def test_sssp_unreachable_is_inf():
    g = gas.Graph.from_edges([0, 2], [1, 3])
    assert sssp(g, 0).tolist() == [0.0, 1.0, np.inf, np.inf]
