"""Triangles and clustering through neighbour lists (``v.nbrs``), against networkx on
``G.to_undirected()`` (self-loops removed): exact counts, coefficients to 1e-12."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms import average_clustering, clustering, transitivity, triangles
from gas.algorithms.triangles import TrianglesProgram

BUNDLED = Path(__file__).resolve().parents[1] / "datasets" / "data" / "ego-Facebook.txt.gz"


def _nx_undirected(g: gas.Graph) -> nx.Graph:
    G = nx.Graph()
    G.add_nodes_from(g.ids.tolist())
    G.add_edges_from((int(a), int(b)) for a, b in zip(g.ids[g.src], g.ids[g.dst]) if a != b)
    return G


def _graphs():
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 60, 500), rng.integers(0, 60, 500)
    src[:5] = dst[:5]  # self-loops (ignored) and, at this density, repeated and reciprocal edges
    yield "random", gas.Graph.from_edges(src, dst, dedupe=False, num_vertices=64)
    k = nx.karate_club_graph()
    e = np.array(k.edges())
    yield "karate", gas.Graph.from_edges(e[:, 0] + 10, e[:, 1] + 10)  # ids not 0..n-1
    hub = np.arange(1, 200)
    yield "hub", gas.Graph.from_edges(np.r_[np.zeros(199, int), hub[:-1]], np.r_[hub, hub[1:]])


@pytest.mark.parametrize("name, g", list(_graphs()))
def test_triangles_and_clustering_equal_networkx(name, g):
    G = _nx_undirected(g)  # independent reference: networkx on the undirected view
    ids = g.ids.tolist()
    want_t = nx.triangles(G)
    assert triangles(g).tolist() == [want_t[v] for v in ids]
    # a graph that already is its undirected simple view is counted as it is (no copy), on
    # one thread and on two, and the program runs by itself on it
    view = g.simple_undirected()
    assert triangles(view, threads=1).tolist() == [want_t[v] for v in ids]
    assert triangles(view, threads=2).tolist() == [want_t[v] for v in ids]
    assert gas.run(view, TrianglesProgram(view), max_iter=1).output.tolist() == [want_t[v] for v in ids]
    want_c = nx.clustering(G)
    assert np.allclose(clustering(g), [want_c[v] for v in ids], rtol=0, atol=1e-12)
    assert average_clustering(g) == pytest.approx(nx.average_clustering(G), abs=1e-12)
    assert average_clustering(g, count_zeros=False) == pytest.approx(
        nx.average_clustering(G, count_zeros=False), abs=1e-12
    )
    assert transitivity(g) == pytest.approx(nx.transitivity(G), abs=1e-12)


def test_bundled_ego_facebook_triangle_count():
    g = gas.load(BUNDLED)
    G = _nx_undirected(g)
    want = nx.triangles(G)
    got = triangles(g)
    assert got.tolist() == [want[v] for v in g.ids.tolist()]
    # the SNAP page gives 1,612,010 triangles for ego-Facebook (each counted at 3 corners)
    assert int(got.sum()) == 3 * 1_612_010


def test_nodes_take_original_ids():
    g = gas.Graph.from_edges([10, 11, 12, 12], [11, 12, 10, 13])
    assert triangles(g, nodes=12) == 1 and triangles(g, nodes=[13, 10]).tolist() == [0, 1]
    with pytest.raises(gas.GasError, match="Node 99 is not in the graph"):
        triangles(g, nodes=99)


def test_neighbour_lists_are_read_only_and_not_on_the_gpu():
    class Writes(gas.VertexProgram):
        vertex_data = {"x": np.int64}
        gather_edges = gas.OUT
        gather_type = np.int64

        def gather(self, v, e, nbr):
            v.nbrs = 0
            return 0

        def apply(self, v, total, ctx):
            v.x = total

    g = gas.Graph.from_edges([0, 1], [1, 0])
    with pytest.raises(gas.ProgramError, match="read-only"):
        gas.SyncEngine(g, Writes())
    with pytest.raises(gas.ProgramError, match="neighbour lists"):
        gas.CudaEngine(g, TrianglesProgram(g))


def test_a_user_program_reads_neighbour_lists():
    # the README's example: neighbours in common with each out-neighbour, summed
    class Common(gas.VertexProgram):
        vertex_data = {"shared": np.int64}
        gather_edges = gas.OUT
        gather_type = np.int64

        def gather(self, v, e, nbr):
            return gas.count_common(v.nbrs, nbr.nbrs)

        def apply(self, v, total, ctx):
            v.shared = total

    g = gas.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3]).simple_undirected()
    # hand-computed: 0~{1,2}, 1~{0,2}, 2~{0,1,3}, 3~{2}; 0: |{1,2}&{0,2}|+|{1,2}&{0,1,3}| = 2
    assert gas.run(g, Common()).output.tolist() == [2, 2, 2, 0]


class _Closed(gas.VertexProgram):
    """Per vertex: the out-neighbour pairs (x, w), w among x's neighbours, that v also has
    (``v.has_nbr``), and whether ids outside the graph count (they must not)."""

    vertex_data = {"shared": np.int64, "outside": np.bool_}
    gather_edges = gas.OUT
    gather_type = np.int64

    def gather(self, v, e, nbr):
        found = 0
        for w in nbr.nbrs:
            found += v.has_nbr(w)
        return found

    def apply(self, v, total, ctx):
        v.shared = total
        v.outside = v.has_nbr(-1) or v.has_nbr(ctx.num_vertices) or v.has_nbr(1 << 40)


def test_has_nbr_answers_membership_on_every_engine():
    # expected: the same sums through sorted-list intersections (gas.count_common), checked
    # against networkx's common_neighbors on each edge
    rng = np.random.default_rng(3)
    g = gas.Graph.from_edges(rng.integers(0, 50, 400), rng.integers(0, 50, 400)).simple_undirected()
    G = nx.Graph(list(zip(g.src.tolist(), g.dst.tolist())))
    want = [sum(len(list(nx.common_neighbors(G, v, x))) for x in G[v]) for v in range(g.num_vertices)]
    # (several processes: tests/test_toolkits_procs.py runs the triangle count, which asks it)
    for opts in ({"threads": 1}, {"threads": 2}, {"engine": "async"}):
        res = gas.run(g, _Closed(), max_iter=1, **opts)
        assert res.output.tolist() == want, opts
        assert not res.vertex_data["outside"].any(), opts


class _AsksNbr(_Closed):
    def gather(self, v, e, nbr):
        return nbr.has_nbr(v.vid)


class _Uncalled(_Closed):
    def gather(self, v, e, nbr):
        return v.has_nbr


class _TwoArgs(_Closed):
    def gather(self, v, e, nbr):
        return v.has_nbr(1, 2)


def test_has_nbr_misuse_is_refused():
    g = gas.Graph.from_edges([0, 1], [1, 0])
    for cls, match in (
        (_AsksNbr, "only the method's own vertex 'v'"),
        (_Uncalled, "without calling it"),
        (_TwoArgs, "takes one vertex id"),
    ):
        with pytest.raises(gas.ProgramError, match=match):
            gas.SyncEngine(g, cls())
    with pytest.raises(gas.ProgramError, match="neighbour lists"):
        gas.CudaEngine(g, _Closed())


def test_cli_writes_original_ids_and_counts(tmp_path, capsys):
    from gas.cli.app import main

    f = tmp_path / "g.tsv"
    f.write_text("10\t11\n11\t12\n12\t10\n12\t13\n13\t13\n11\t10\n")
    out = tmp_path / "t.tsv"
    assert main(["triangles", str(f), "-q", "-o", str(out)]) == 0
    # hand-computed: one triangle 10-11-12; 13 hangs off 12 (its self-loop is ignored)
    assert out.read_text().splitlines() == ["10\t1", "11\t1", "12\t1", "13\t0"]
    assert "triangles\t1" in capsys.readouterr().out
    assert main(["clustering", str(f), "-q", "-o", str(out)]) == 0
    got = dict(line.split("\t") for line in out.read_text().splitlines())
    assert float(got["12"]) == pytest.approx(1 / 3) and float(got["10"]) == 1.0
