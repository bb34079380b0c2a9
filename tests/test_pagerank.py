"""PageRank against networkx.pagerank (the oracle) on real and hand-made graphs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_digraph, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

import gas
import gas.datasets
from gas.algorithms import pagerank

SHARED_DIRECTED = [
    "wiki-Vote/Wiki-Vote.txt",
    "p2p-Gnutella08/p2p-Gnutella08.txt",
    "p2p-Gnutella31/p2p-Gnutella31.txt",
    "email-Eu-core/email-Eu-core.txt.gz",
    "ca-GrQc/ca-GrQc.txt",
    # the largest (76 k vertices, 509 k edges; networkx takes seconds): slow, `.ci/run` runs it
    pytest.param("soc-Epinions1/soc-Epinions1.txt.gz", marks=pytest.mark.slow),
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


def test_pagerank_raises_when_not_converged():
    # issue 17: a run that stops short raises (it used to warn and return the ranks)
    g, _ = _graph_and_nx(SMALL["chain"][0])
    with pytest.raises(gas.ConvergenceError, match="stopped after 2 supersteps"):
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


# -- Anderson extrapolation (pagerank's extrapolate_every) ------------------------------------------


def _extrapolated_model(g: gas.Graph, alpha: float, every: int, steps: int):
    """The same supersteps written independently with dense numpy and the iterates themselves:
    power iteration with dangling mass spread evenly; after every ``every``-th step, with
    m = min(4, every - 2) and the last m + 1 steps f_j = y_{j+1} - y_j, weights a (sum 1)
    minimising |sum a_j f_j| (normal equations with a ridge of 1e-10 * trace / (m + 1)), and
    x = sum a_j y_{j+1} when |sum a_j f_j| <= |f_m| / 2. Returns the iterates and how many
    extrapolations ran."""
    n = g.num_vertices
    m = min(4, every - 2)
    deg = np.bincount(g.src, minlength=n).astype(float)
    M = np.zeros((n, n))
    np.add.at(M, (g.dst, g.src), 1.0)
    M /= np.where(deg > 0, deg, 1.0)
    x = np.full(n, 1.0 / n)
    out, done, ys = [], 0, [x]
    for it in range(1, steps + 1):
        new = (1 - alpha) / n + alpha * (M @ x + x[deg == 0].sum() / n)
        ys.append(new)
        if it % every == 0:
            Y = np.array(ys[-(m + 2) :])  # y_0 .. y_{m+1}
            F = np.diff(Y, axis=0)  # f_0 .. f_m, one per row
            H = F @ F.T
            k = m + 1
            w = np.linalg.solve(H + 1e-10 * np.trace(H) / k * np.eye(k), np.ones(k))
            a = w / w.sum()
            if np.linalg.norm(a @ F) <= 0.5 * np.linalg.norm(F[-1]):
                new = a @ Y[1:]
                done += 1
            ys = [new]
        x = new
        out.append(x.copy())
    return out, done


@pytest.mark.parametrize("every", [4, 6])
def test_extrapolated_supersteps_match_a_numpy_model(every):
    from gas.algorithms.pagerank_extrapolate import _Extrapolation

    g = gas.datasets.rmat_graph(11, 8, seed=3)
    eng = gas.SyncEngine(g, gas.algorithms.PageRankProgram(0.85, 0.0), threads=2)
    got = []
    hook = _Extrapolation(g.out_degree, every)
    eng.run(24, between=hook, progress=lambda stat: got.append(eng.columns["rank"].copy()))
    want, done = _extrapolated_model(g, 0.85, every, 24)
    assert done >= 2 and hook.count == done  # the case exercises the extrapolation
    for a, b in zip(got, want):
        assert np.abs(a - b).sum() <= 1e-12
    assert abs(got[-1].sum() - 1.0) <= 1e-12


@pytest.mark.parametrize("weighted", [False, True])
def test_extrapolation_takes_fewer_supersteps_to_networkx_answer(weighted):
    # R-MAT scale 12: to networkx's rule at 1e-12 the extrapolated runs take fewer supersteps
    # than power iteration (measured: 15 against 17, unweighted and weighted); both
    # answers are within networkx's own error bound for that rule, N * tol * alpha / (1 - alpha),
    # of networkx's answer at tol 1e-15
    g = gas.datasets.rmat_graph(12, 8, seed=1)
    kw = {}
    if weighted:
        w = np.random.default_rng(1).uniform(0.5, 2.0, g.num_edges)
        g = gas.Graph.from_edges(g.src, g.dst, num_vertices=g.num_vertices, weights=w)
        kw = {"weight": "weight"}
    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_vertices))
    w = g.edata["weight"] if weighted else np.ones(g.num_edges)
    G.add_weighted_edges_from(zip(g.src.tolist(), g.dst.tolist(), w.tolist()))
    ref = nx.pagerank(G, alpha=0.85, tol=1e-15, max_iter=10**4, weight="weight")
    ref = np.array([ref[int(i)] for i in g.ids])
    plain, rp = pagerank(g, tol=1e-12, extrapolate_every=0, max_iter=500, return_result=True, **kw)
    fast, rf = pagerank(g, tol=1e-12, max_iter=500, return_result=True, **kw)
    assert rf.iterations < rp.iterations
    # the supersteps that extrapolated say so in their statistics (what gas pagerank marks)
    assert any(s.get("extrapolated") for s in rf.stats)
    assert not any(s.get("extrapolated") for s in rp.stats)
    bound = g.num_vertices * 1e-12 * 0.85 / 0.15
    assert np.abs(plain - ref).sum() <= bound
    assert np.abs(fast - ref).sum() <= bound


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 60).flatmap(
        lambda n: st.tuples(
            st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n)
        )
    ),
    st.sampled_from([1e-6, 1e-12]),
)
def test_extrapolated_pagerank_keeps_networkx_accuracy(graph, tol):
    # any graph (dangling vertices, self-loops, isolated ones): the default run (extrapolated)
    # stops by networkx's rule and stays within that rule's error bound, N * tol * alpha /
    # (1 - alpha), of networkx's answer at tol 1e-15 (the oracle)
    n, edges = graph
    src = np.array([a for a, _ in edges], np.int64)
    dst = np.array([b for _, b in edges], np.int64)
    g = gas.Graph.from_edges(src, dst, num_vertices=n)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    ref = nx.pagerank(G, tol=1e-15, max_iter=10**4)
    ours = pagerank(g, tol=tol, max_iter=1000)
    assert np.abs(ours - np.array([ref[i] for i in range(n)])).sum() <= max(n * tol * 0.85 / 0.15, 1e-14)


def test_extrapolation_needs_a_few_supersteps_between():
    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match="extrapolate_every >= 3"):
        pagerank(g, extrapolate_every=2)
