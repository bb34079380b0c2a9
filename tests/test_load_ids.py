"""Loading with arbitrary ids: the linear id mapping, the one-sort CSR build, ``undirected=``.

Oracles: ``np.unique(..., return_inverse=True)`` for the id mapping (sorted unique ids, inverse
as internal ids), the two-counting-sort CSR build kept as the general path, and the graph the
CLI's ``--undirected`` builds today (``load(...)`` then ``symmetrized()``).
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from gas import _build, graph_build
from gas._build import (
    build_csc,
    build_csr,
    build_csr_by_two_sorts,
    compact_ids,
)
from gas.cli.common import load_graph
from gas.graph import Graph
from gas.graph_build import build_in_edges, csr_of, out_edges_of
from gas.io.load import load


@pytest.fixture(autouse=True, params=["linear", "default", "sorts"])
def paths(request, monkeypatch):
    """Every test three times: with the linear id mapping and one-sort CSR/CSC builds forced on
    these small inputs (``LINEAR_MIN_EDGES = 0``), with the default (sort-based below 2**20
    edges, numpy's sorts below 2**18), and with the sort-based kernels at every size
    (``NUMPY_MAX_EDGES = 0``)."""
    if request.param == "linear":
        monkeypatch.setattr(_build, "LINEAR_MIN_EDGES", 0)
    if request.param == "sorts":
        monkeypatch.setattr(_build, "NUMPY_MAX_EDGES", 0)
    return request.param


def _oracle(s: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids, inv = np.unique(np.concatenate([s, d]), return_inverse=True)
    return ids, inv[: s.shape[0]], inv[s.shape[0] :]


# dense ids and ids * 7 + 3 take the direct-address table; ids spread over 2**40 and 64-bit ids
# past 2**63 take the hash map (also through several doublings of its table: 40,000 ids)
LAYOUTS = {
    "dense": lambda x: x,
    "times7plus3": lambda x: x * 7 + 3,
    "spread_2_40": lambda x: x * 1_000_003 * 8191 + 12345,
    "uint64_past_2_63": lambda x: x.astype(np.uint64) * np.uint64(2**44) + np.uint64(2**63 + 5),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_compact_ids_matches_unique(layout):
    rng = np.random.default_rng(7)
    base_s = rng.integers(0, 40_000, 50_000)
    base_d = rng.integers(0, 40_000, 50_000)
    s, d = LAYOUTS[layout](base_s), LAYOUTS[layout](base_d)
    ids, si, di = compact_ids(s, d)
    oi, os_, od = _oracle(s, d)
    assert ids.dtype == s.dtype
    np.testing.assert_array_equal(ids, oi)
    np.testing.assert_array_equal(si, os_)
    np.testing.assert_array_equal(di, od)


def test_compact_ids_edge_cases():
    empty = np.empty(0, np.int64)
    ids, s, d = compact_ids(empty, empty)
    assert ids.size == s.size == d.size == 0
    one = np.array([2**62], np.int64)
    ids, s, d = compact_ids(one, one)  # a self-loop on one huge id
    assert ids.tolist() == [2**62] and s.tolist() == d.tolist() == [0]
    near = np.array([2**63 + 5, 2**63 + 1, 2**63 + 9], np.uint64)  # past 2**63, close: direct table
    ids, s, d = compact_ids(near, near[::-1].copy())
    assert (
        ids.tolist() == [2**63 + 1, 2**63 + 5, 2**63 + 9]
        and s.tolist() == [1, 0, 2]
        and d.tolist() == [2, 0, 1]
    )
    top = np.array([0, 2**64 - 1], np.uint64)
    ids, s, d = compact_ids(top, top[::-1].copy())
    assert ids.tolist() == [0, 2**64 - 1] and s.tolist() == [0, 1] and d.tolist() == [1, 0]


@pytest.mark.parametrize("dedupe", [True, False])
@pytest.mark.parametrize("n,m", [(1, 4), (3, 300), (9, 200), (500, 6000)])
def test_build_csr_matches_two_sorts(n, m, dedupe):
    rng = np.random.default_rng(n)
    s = rng.integers(0, n, m)
    d = rng.integers(0, n, m)
    fast = build_csr(s, d, n, dedupe)
    ref = build_csr_by_two_sorts(s, d, n, dedupe)
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_array_equal(a, b)
    # and against a Python oracle: CSR rows in (src, dst) order, the LAST duplicate kept
    last = {}
    for i, pair in enumerate(zip(s.tolist(), d.tolist(), strict=True)):
        last[pair] = i
    if dedupe:
        assert sorted(last.values(), key=lambda i: (s[i], d[i])) == fast[3].tolist()


@pytest.mark.parametrize("weighted", [False, True])
def test_load_undirected_equals_cli_symmetrized(tmp_path, weighted):
    p = tmp_path / "g.txt"
    rows = ["100 200 1.5", "200 100 2.5", "300 100 4", "300 300 1", "100 200 9"]
    p.write_text("\n".join(r if weighted else " ".join(r.split()[:2]) for r in rows) + "\n")
    g = load(p, undirected=True)
    ns = argparse.Namespace(file=str(p), keep_duplicates=False, skip_rows=0, undirected=True, quiet=True)
    ref = load_graph(ns, weights=weighted)  # what `gas ... --undirected [--weighted]` builds
    for name in ("ids", "out_indptr", "src", "dst", "in_indptr", "in_src", "in_eid"):
        np.testing.assert_array_equal(getattr(g, name), getattr(ref, name))
    assert sorted(g.edata) == sorted(ref.edata)
    for k in g.edata:
        np.testing.assert_array_equal(g.edata[k], ref.edata[k])
    # hand-checked: {100, 200, 300}, edges 100<->200, 100<->300 and the self-loop 300->300
    assert g.ids.tolist() == [100, 200, 300] and g.num_edges == 5
    if weighted:  # the input's own edge wins over the added reverse; the last duplicate wins
        w = {(int(g.ids[a]), int(g.ids[b])): x for a, b, x in zip(g.src, g.dst, g.weights, strict=True)}
        assert w == {(100, 200): 9.0, (200, 100): 2.5, (100, 300): 4.0, (300, 100): 4.0, (300, 300): 1.0}


def test_directed_false_on_every_constructor():
    import networkx as nx
    import pandas as pd
    import scipy.sparse as sp

    expect = Graph.from_edges([5, 6, 7], [6, 7, 7]).symmetrized()
    pairs = sorted(zip(expect.ids[expect.src].tolist(), expect.ids[expect.dst].tolist(), strict=True))
    assert pairs == [(5, 6), (6, 5), (6, 7), (7, 6), (7, 7)]  # hand-checked
    graphs = [
        Graph.from_edges([5, 6, 7], [6, 7, 7], directed=False),
        Graph.from_pandas(pd.DataFrame({"a": [5, 6, 7], "b": [6, 7, 7]}), "a", "b", directed=False),
        Graph.from_networkx(nx.DiGraph([(5, 6), (6, 7), (7, 7)]), directed=False),
        Graph.from_networkx(nx.Graph([(5, 6), (6, 7), (7, 7)])),  # default: G's own directedness
    ]
    for g in graphs:
        assert sorted(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist(), strict=True)) == pairs
    A = sp.csr_array(([1.0, 2.0], ([0, 1], [1, 2])), shape=(3, 3))
    g = Graph.from_scipy(A, directed=False)
    assert sorted(zip(g.src.tolist(), g.dst.tolist(), g.weights.tolist(), strict=True)) == [
        (0, 1, 1.0),
        (1, 0, 1.0),
        (1, 2, 2.0),
        (2, 1, 2.0),
    ]
    # directed=True on an undirected networkx graph: each edge once, as G.edges lists it
    g = Graph.from_networkx(nx.Graph([(5, 6), (6, 7)]), directed=True)
    assert sorted(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist(), strict=True)) == [(5, 6), (6, 7)]


def test_build_csc_matches_stable_argsort():
    # oracle: numpy's stable argsort of the targets of CSR-ordered edges
    rng = np.random.default_rng(3)
    n = 300
    indptr, s, d, _ = build_csr(rng.integers(0, n, 5000), rng.integers(0, n, 5000), n, True)
    in_indptr, in_src, in_eid = build_csc(s, d, n)
    order = np.argsort(d, kind="stable")
    np.testing.assert_array_equal(in_eid, order)
    np.testing.assert_array_equal(in_src, s[order])
    np.testing.assert_array_equal(in_indptr, np.concatenate([[0], np.cumsum(np.bincount(d, minlength=n))]))


@pytest.mark.parametrize("bin_edges", [64, None])
@pytest.mark.parametrize("dedupe", [True, False])
@pytest.mark.parametrize("n,m", [(1, 4), (9, 200), (500, 6000), (3000, 20000)])
def test_build_in_edges_matches_lexsort(n, m, dedupe, bin_edges, monkeypatch):
    # oracle: numpy's stable lexsort (CSC: by target then source, CSR: by source then target,
    # ties in input order) over the edges kept, the LAST of each repeated pair with dedupe
    if bin_edges:  # many small bins, as a large graph has
        monkeypatch.setattr(graph_build, "_BIN_EDGES", bin_edges)
    rng = np.random.default_rng(n + m)
    s = rng.integers(0, n, m)
    d = rng.integers(0, n, m)
    d[: m // 5] = n // 2  # a hub: one long in-edge list
    keep = np.arange(m)
    if dedupe:
        last = {}
        for i, pair in enumerate(zip(s.tolist(), d.tolist(), strict=True)):
            last[pair] = i
        keep = np.array(sorted(last.values()), dtype=np.int64)
    csc = keep[np.lexsort((s[keep], d[keep]))]
    csr = keep[np.lexsort((d[keep], s[keep]))]
    in_indptr, in_src, take = build_in_edges(s, d, n, dedupe, with_take=True)
    np.testing.assert_array_equal(take, csc)
    np.testing.assert_array_equal(in_src, s[csc])
    np.testing.assert_array_equal(
        in_indptr, np.concatenate([[0], np.cumsum(np.bincount(d[keep], minlength=n))])
    )
    out_indptr, in_eid = out_edges_of(in_src, n)
    np.testing.assert_array_equal(
        out_indptr, np.concatenate([[0], np.cumsum(np.bincount(s[keep], minlength=n))])
    )
    at = np.empty(m, np.int64)
    at[csr] = np.arange(csr.shape[0])  # CSR position of each input edge kept
    np.testing.assert_array_equal(in_eid, at[csc])
    src, dst = csr_of(in_indptr, in_eid, out_indptr)
    np.testing.assert_array_equal(src, s[csr])
    np.testing.assert_array_equal(dst, d[csr])


@pytest.mark.parametrize("dedupe", [True, False])
def test_from_edges_weights_follow_their_edges(dedupe):
    # oracle: a Python dict of (src, dst) -> the last weight given (dedupe), or every weight in
    # input order per pair (parallel edges kept); both build paths run (fixture "paths")
    rng = np.random.default_rng(5)
    s, d = rng.integers(0, 40, 3000), rng.integers(0, 40, 3000)
    w = rng.random(3000)
    g = Graph.from_edges(s, d, num_vertices=50, weights=w, dedupe=dedupe)
    got: dict[tuple[int, int], list[float]] = {}
    for a, b, x in zip(g.src.tolist(), g.dst.tolist(), g.weights.tolist(), strict=True):
        got.setdefault((a, b), []).append(x)
    want: dict[tuple[int, int], list[float]] = {}
    for a, b, x in zip(s.tolist(), d.tolist(), w.tolist(), strict=True):
        want[(a, b)] = [x] if dedupe else want.get((a, b), []) + [x]
    assert got == want
    assert g.num_duplicates == (3000 - len(want) if dedupe else 0)
    np.testing.assert_array_equal(g.in_src, g.src[g.in_eid])  # CSC slots name their CSR edges
    np.testing.assert_array_equal(np.diff(g.in_indptr), np.bincount(g.dst, minlength=50))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_hash_numbering_names_every_id_once(threads):
    # oracle: numpy's unique; each endpoint's number must lead back to its id, every id once
    # (about 135,000 distinct ids over 8 bins, a bin's table doubling several times from 1,024
    # slots); the one-thread table over all ids, the path it replaced, gives the same id set
    from gas import _hash_ids
    from gas.threads import num_threads

    rng = np.random.default_rng(threads)
    s = rng.integers(0, 2**62, 90_000)
    d = np.concatenate([s[:45_000], rng.integers(0, 2**62, 45_000)])
    ps, pd = np.empty_like(s), np.empty_like(d)
    with num_threads(threads):
        uniq = _hash_ids.hash_number(s, d, ps, pd)
    np.testing.assert_array_equal(np.sort(uniq), np.unique(np.concatenate([s, d])))
    np.testing.assert_array_equal(uniq[ps], s)
    np.testing.assert_array_equal(uniq[pd], d)
    ref = _hash_ids._hash_number(s, d, np.empty_like(s), np.empty_like(d))
    np.testing.assert_array_equal(np.sort(ref), np.sort(uniq))


def test_in_edge_ids_are_made_when_first_read(paths):
    # oracle: numpy's stable argsort of the CSR-ordered targets gives each in-edge slot's edge id
    rng = np.random.default_rng(11)
    s, d = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    g = Graph.from_edges(s, d, num_vertices=300)
    if paths == "linear":  # built in-edges first, without edge data: no edge ids yet
        assert g._in_eid is None
    np.testing.assert_array_equal(g.in_eid, np.argsort(g.dst, kind="stable"))
    np.testing.assert_array_equal(g.in_src, g.src[g.in_eid])
