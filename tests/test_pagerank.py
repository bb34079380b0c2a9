"""PageRank against networkx.pagerank (the oracle) on real and hand-made graphs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_digraph, shared_path

import gas
from gas.algorithms import pagerank

SHARED_DIRECTED = [
    "wiki-Vote/Wiki-Vote.txt",
    "p2p-Gnutella08/p2p-Gnutella08.txt",
    "p2p-Gnutella31/p2p-Gnutella31.txt",
    "email-Eu-core/email-Eu-core.txt.gz",
    "ca-GrQc/ca-GrQc.txt",
    "soc-Epinions1/soc-Epinions1.txt.gz",
]


def _l1_vs_networkx(g: gas.Graph, G: nx.DiGraph, **kw) -> float:
    ours = pagerank(g, tol=1e-13, max_iter=1000, **kw)
    ref = nx.pagerank(
        G,
        tol=1e-13,
        max_iter=1000,
        **({"weight": kw["weight"]} if "weight" in kw else {"weight": None}),
    )
    ref_arr = np.array([ref[i] for i in g.ids.tolist()])
    return float(np.abs(ours - ref_arr).sum())


@pytest.mark.parametrize("rel", SHARED_DIRECTED)
def test_pagerank_matches_networkx_on_shared_graphs(rel):
    path = shared_path(rel)
    g = gas.io.load(path)
    G = nx_digraph(path)  # oracle graph built with plain Python parsing
    assert g.num_vertices == G.number_of_nodes()
    assert g.num_edges == G.number_of_edges()
    assert _l1_vs_networkx(g, G) <= 1e-6


def _graph_and_nx(edges, n=None):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    g = gas.Graph.from_edges(src, dst, num_vertices=n)
    G = nx.DiGraph()
    G.add_nodes_from(range(n) if n is not None else sorted(set(src) | set(dst)))
    G.add_edges_from(edges)
    return g, G


SMALL = {
    "star_in": ([(i, 0) for i in range(1, 8)], None),
    "star_out": ([(0, i) for i in range(1, 8)], None),
    "chain": ([(i, i + 1) for i in range(9)], None),
    "sink": ([(0, 1), (1, 2), (2, 0), (2, 3)], None),
    "self_loop": ([(0, 0), (0, 1), (1, 2), (2, 0), (2, 2)], None),
    "duplicate_edges": ([(0, 1), (0, 1), (1, 0), (1, 2), (1, 2), (2, 0)], None),
    "isolated_vertex": ([(0, 1), (1, 2)], 5),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_pagerank_small_cases_match_networkx(name):
    edges, n = SMALL[name]
    g, G = _graph_and_nx(edges, n)
    assert _l1_vs_networkx(g, G) <= 1e-10
    assert abs(pagerank(g).sum() - 1.0) < 1e-9


def test_pagerank_star_by_hand():
    # Hand-computed: star with k leaves pointing at the centre; the centre is dangling.
    # leaves: x_l = (1-a)/N + a*x_c/N ; centre: x_c = (1-a)/N + a*(k*x_l + x_c/N)
    k, a = 4, 0.85
    N = k + 1
    # unknowns (x_c, x_l):  x_c*(1 - a/N) - a*k*x_l = (1-a)/N ;  -a/N*x_c + x_l = (1-a)/N
    M = np.array([[1 - a / N, -a * k], [-a / N, 1.0]])
    xc, xl = np.linalg.solve(M, np.full(2, (1 - a) / N))
    g = gas.Graph.from_edges(list(range(1, k + 1)), [0] * k)
    r = pagerank(g, alpha=a, tol=1e-14, max_iter=500)
    assert r[0] == pytest.approx(xc, abs=1e-12)
    assert np.allclose(r[1:], xl, atol=1e-12)


def test_pagerank_empty_graph():
    g = gas.Graph.from_edges([], [])
    assert pagerank(g).shape == (0,)


def test_pagerank_weighted_matches_networkx():
    rng = np.random.default_rng(3)
    src = rng.integers(0, 60, 400)
    dst = rng.integers(0, 60, 400)
    w = rng.uniform(0.1, 5.0, 400)
    g = gas.Graph.from_edges(src, dst, weights=w)
    G = nx.DiGraph()
    for s, d, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        G.add_edge(s, d, weight=x)  # last duplicate wins, as in gaslab
    ours = pagerank(g, tol=1e-13, max_iter=1000, weight="weight")
    ref = nx.pagerank(G, tol=1e-13, max_iter=1000, weight="weight")
    assert np.abs(ours - np.array([ref[i] for i in g.ids.tolist()])).sum() <= 1e-10


def test_pagerank_warns_when_not_converged():
    g, _ = _graph_and_nx(SMALL["chain"][0])
    with pytest.warns(RuntimeWarning, match="did not reach"):
        pagerank(g, tol=1e-15, max_iter=2)


def test_pagerank_debug_mode_equals_compiled():
    g, _ = _graph_and_nx(SMALL["self_loop"][0] + [(3, 1), (4, 3)])
    a = pagerank(g, tol=1e-12)
    b = pagerank(g, tol=1e-12, debug=True)
    assert np.array_equal(a, b)


def test_pagerank_threads_do_not_change_result():
    rng = np.random.default_rng(0)
    g = gas.Graph.from_edges(rng.integers(0, 2000, 20000), rng.integers(0, 2000, 20000))
    a = pagerank(g, tol=1e-12, threads=1)
    b = pagerank(g, tol=1e-12, threads=2)
    assert np.abs(a - b).sum() < 1e-12


@pytest.mark.parametrize("relabel", [0, 1])
@pytest.mark.parametrize("segment_size", [0, 7, 64, 1000])
def test_segmented_gather_matches_networkx(segment_size, relabel, monkeypatch):
    # the cache-blocked gather (used on big graphs) forced onto a small one, with and without
    # sources numbered by degree
    from gas.config import CONFIG

    monkeypatch.setitem(CONFIG, "segment_size", segment_size)
    monkeypatch.setitem(CONFIG, "relabel", relabel)
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 900, 9000), rng.integers(0, 900, 9000)
    g = gas.Graph.from_edges(src, dst, num_vertices=1000)  # 1000 > segment sizes: blocked path
    G = nx.DiGraph()
    G.add_nodes_from(range(1000))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    assert _l1_vs_networkx(g, G) <= 1e-10
    # user programs take the same path: weighted gather reads edge data through seg_eid
    w = rng.uniform(0.5, 2.0, 9000)
    gw = gas.Graph.from_edges(src, dst, num_vertices=1000, weights=w)
    Gw = nx.DiGraph()
    Gw.add_nodes_from(range(1000))
    for s, d, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        Gw.add_edge(s, d, weight=x)
    ours = pagerank(gw, tol=1e-13, max_iter=1000, weight="weight")
    ref = nx.pagerank(Gw, tol=1e-13, max_iter=1000, weight="weight")
    assert np.abs(ours - np.array([ref[i] for i in range(1000)])).sum() <= 1e-10
