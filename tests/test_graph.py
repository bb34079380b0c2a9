"""Graph construction: id mapping, duplicates, self-loops, CSR/CSC consistency, converters."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gas
from gas.threads import num_threads


def test_arbitrary_ids_are_compacted_in_order_and_kept():
    big = 2**63 + 5  # past int64: stored as uint64
    g = gas.Graph.from_edges(np.array([big, 7], np.uint64), np.array([7, 2**40], np.uint64))
    assert g.ids.tolist() == [7, 2**40, big]
    assert g.index_of(big) == 2
    assert g.src.tolist() == [0, 2] and g.dst.tolist() == [1, 0]


def test_num_vertices_keeps_numbers_and_isolated_vertices():
    g = gas.Graph.from_edges([0, 3], [3, 1], num_vertices=6)
    assert g.num_vertices == 6 and g.ids.tolist() == list(range(6))
    with pytest.raises(gas.GraphError, match="outside 0..2"):
        gas.Graph.from_edges([0, 3], [1, 2], num_vertices=3)


def test_duplicates_collapse_last_weight_wins_like_networkx():
    src, dst, w = [0, 0, 1, 0], [1, 1, 1, 1], [1.0, 2.0, 3.0, 4.0]
    g = gas.Graph.from_edges(src, dst, weights=w)
    G = nx.DiGraph()
    for s, d, x in zip(src, dst, w):
        G.add_edge(s, d, weight=x)  # oracle: networkx keeps the last attribute
    assert g.num_edges == G.number_of_edges() == 2
    assert g.num_duplicates == 2
    assert g.weights.tolist() == [G[0][1]["weight"], G[1][1]["weight"]]
    assert g.num_self_loops == 1
    kept = gas.Graph.from_edges(src, dst, weights=w, dedupe=False)
    assert kept.num_edges == 4 and kept.weights.tolist() == [1.0, 2.0, 4.0, 3.0]


def test_bad_ids_rejected():
    with pytest.raises(gas.GraphError, match="non-negative"):
        gas.Graph.from_edges([-1], [2])
    with pytest.raises(gas.GraphError, match="equal length"):
        gas.Graph.from_edges([1, 2], [2])
    with pytest.raises(gas.GraphError, match="integer"):
        gas.Graph.from_edges(["a"], ["b"])
    with pytest.raises(gas.GraphError, match="Unknown vertex id 5"):
        gas.Graph.from_edges([1], [2]).index_of(5)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=80))
def test_csr_and_csc_describe_the_same_edge_set(edges):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    g = gas.Graph.from_edges(src, dst, num_vertices=31)
    expect = sorted(set(edges))  # oracle: Python set of pairs
    csr = [(u, int(g.dst[e])) for u in range(31) for e in range(g.out_indptr[u], g.out_indptr[u + 1])]
    assert csr == expect
    csc = sorted((int(g.in_src[k]), v) for v in range(31) for k in range(g.in_indptr[v], g.in_indptr[v + 1]))
    assert csc == expect
    for v in range(31):
        for k in range(g.in_indptr[v], g.in_indptr[v + 1]):
            e = g.in_eid[k]
            assert g.src[e] == g.in_src[k] and g.dst[e] == v


def test_from_networkx_undirected_strings_and_isolated():
    G = nx.Graph()
    G.add_edge("a", "b", weight=2.0)
    G.add_edge("b", "b")
    G.add_node("z")
    g = gas.Graph.from_networkx(G)
    assert g.ids.tolist() == ["a", "b", "z"]
    assert g.num_edges == 3  # a->b, b->a, b->b
    pairs = sorted(zip(g.src.tolist(), g.dst.tolist(), g.weights.tolist()))
    assert pairs == [(0, 1, 2.0), (1, 0, 2.0), (1, 1, 1.0)]
    assert g.index_of("z") == 2


def test_from_scipy_and_pandas():
    import pandas as pd

    A = sp.csr_array(np.array([[0, 2.5, 0], [0, 0, 1.0], [4.0, 0, 0]]))
    g = gas.Graph.from_scipy(A)
    assert list(zip(g.src.tolist(), g.dst.tolist(), g.weights.tolist())) == [
        (0, 1, 2.5),
        (1, 2, 1.0),
        (2, 0, 4.0),
    ]
    df = pd.DataFrame({"source": [10, 30], "target": [30, 20]})
    g2 = gas.Graph.from_pandas(df)
    assert g2.ids.tolist() == [10, 20, 30]
    with pytest.raises(gas.GraphError, match="column named 'target'"):
        gas.Graph.from_pandas(df.rename(columns={"target": "t"}))


def test_info_counts():
    g = gas.Graph.from_edges([1, 1, 2, 3, 3], [2, 2, 2, 1, 4])
    info = g.info()
    assert info["vertices"] == 4 and info["edges"] == 4
    assert info["self_loops"] == 1 and info["duplicate_edges"] == 1
    assert info["out_degree"] == (0, 1.0, 2)
    assert info["memory_bytes"] == g.nbytes() > 0


def test_symmetrized_matches_networkx_to_directed():
    rng = np.random.default_rng(4)
    src, dst = rng.integers(0, 40, 120), rng.integers(0, 40, 120)
    g = gas.Graph.from_edges(src, dst).symmetrized()
    H = nx.Graph(list(zip(src.tolist(), dst.tolist()))).to_directed()  # oracle
    ours = sorted(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist()))
    assert ours == sorted(H.edges())


@pytest.mark.parametrize("threads", [1, 2])
def test_parallel_build_matches_numpy_stable_sorts(threads):
    # numpy reference: np.lexsort (stable) by (src, dst), the last of each duplicate pair kept
    # (its weight is the input position), then a stable argsort by target for the in-edges
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 200, 5000), rng.integers(0, 200, 5000)
    with num_threads(threads):
        g = gas.Graph.from_edges(src, dst, num_vertices=200, weights=np.arange(5000.0))
    order = np.lexsort((dst, src))
    s, d = src[order], dst[order]
    last = np.append((s[1:] != s[:-1]) | (d[1:] != d[:-1]), True)
    np.testing.assert_array_equal(g.src, s[last])
    np.testing.assert_array_equal(g.dst, d[last])
    np.testing.assert_array_equal(g.weights, order[last].astype(float))
    by_dst = np.argsort(g.dst, kind="stable")
    np.testing.assert_array_equal(g.in_eid, by_dst)
    np.testing.assert_array_equal(g.in_src, g.src[by_dst])
    np.testing.assert_array_equal(g.in_indptr, np.r_[0, np.cumsum(np.bincount(g.dst, minlength=200))])
