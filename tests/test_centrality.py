"""HITS, Katz and eigenvector centrality against networkx (directed with sinks and isolated
vertices, undirected with a self-loop, weighted, and the shared email-Eu-core graph), the same
answer on two processes, ConvergenceError at max_iter, bad arguments, and the ``gas hits`` /
``gas katz`` / ``gas eigenvector`` commands."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_digraph, shared_path

import gas
from gas.algorithms.centrality import eigenvector_centrality, katz_centrality
from gas.algorithms.hits import hits
from gas.cli.app import main

TOL = 1e-13  # both sides run to this tolerance: L1 differences of ~1e-15 remain


def _directed(weighted: bool) -> tuple[gas.Graph, nx.DiGraph]:
    """A random digraph with sinks (90..94 only receive) and an isolated vertex (95), built as
    a gaslab graph and, independently, as the networkx reference."""
    rng = np.random.default_rng(7)
    src = rng.integers(0, 90, 360)
    dst = rng.integers(0, 95, 360)
    w = rng.uniform(0.5, 2.0, 360)
    g = gas.Graph.from_edges(src, dst, num_vertices=96, weights=w if weighted else None)
    G = nx.DiGraph()
    G.add_nodes_from(range(96))
    for a, b, x in zip(src.tolist(), dst.tolist(), w.tolist()):  # the last duplicate wins, as in gaslab
        G.add_edge(a, b, **({"weight": x} if weighted else {}))
    return g, G


def _undirected() -> tuple[gas.Graph, nx.Graph]:
    G = nx.relabel_nodes(nx.karate_club_graph(), lambda v: v + 5)  # weighted by networkx: drop them
    G = nx.Graph(G.edges())
    G.add_edge(7, 7)  # a self-loop counts once, as in networkx's adjacency
    return gas.Graph.from_networkx(G), G


def _cases():
    yield "directed", *_directed(False), None
    yield "directed-weighted", *_directed(True), "weight"
    yield "undirected", *_undirected(), None


def _vec(d: dict, g: gas.Graph) -> np.ndarray:
    return np.array([d[v] for v in g.ids.tolist()])


@pytest.mark.parametrize("name, g, G, weight", list(_cases()), ids=[c[0] for c in _cases()])
def test_centralities_equal_networkx(name, g, G, weight):
    # references: networkx 3.6.1's katz_centrality, eigenvector_centrality and hits (ARPACK)
    beta = {v: 1.0 + (v % 3) for v in G}  # per-vertex beta keyed by original id
    want = nx.katz_centrality(G, alpha=0.1, beta=beta, tol=TOL, weight=weight)
    got = katz_centrality(g, alpha=0.1, beta=beta, tol=TOL, weight=weight)
    assert np.abs(got - _vec(want, g)).sum() < 1e-12
    raw = nx.katz_centrality(G, alpha=0.1, tol=TOL, weight=weight, normalized=False)
    assert np.abs(katz_centrality(g, tol=TOL, weight=weight, normalized=False) - _vec(raw, g)).sum() < 1e-11

    want = nx.eigenvector_centrality(G, max_iter=2000, tol=TOL, weight=weight)
    got = eigenvector_centrality(g, max_iter=2000, tol=TOL, weight=weight)
    assert np.abs(got - _vec(want, g)).sum() < 1e-12

    hub, auth = nx.hits(G, max_iter=1000, tol=TOL)  # networkx's hits reads "weight" when present
    h, a = hits(g, max_iter=1000, tol=TOL)
    assert np.abs(h - _vec(hub, g)).sum() < 1e-9 and np.abs(a - _vec(auth, g)).sum() < 1e-9
    assert np.isclose(h.sum(), 1.0) and np.isclose(a.sum(), 1.0)


def test_hits_unnormalized_and_starting_vectors():
    g, G = _directed(False)
    hub, auth = nx.hits(G, max_iter=1000, tol=TOL, normalized=False)
    sign = np.sign(sum(auth.values()))  # ARPACK's singular vectors come with either sign
    h, a = hits(g, max_iter=1000, tol=TOL, normalized=False)
    assert np.isclose(np.dot(a, a), 1.0)  # networkx: unit authorities, hubs = A a
    assert np.abs(h - sign * _vec(hub, g)).sum() < 1e-9 and np.abs(a - sign * _vec(auth, g)).sum() < 1e-9
    # the fixed point does not depend on the start: a Mapping by original id, an array by internal id
    start = {v: 1.0 + v % 5 for v in G}
    h2, a2 = hits(g, max_iter=1000, tol=TOL, nstart=start, normalized=False)
    h3, _ = hits(g, max_iter=1000, tol=TOL, nstart=_vec(start, g), normalized=False)
    assert np.abs(h2 - h).sum() < 1e-9 and np.abs(a2 - a).sum() < 1e-9 and np.array_equal(h2, h3)
    # eigenvector and Katz starting vectors: networkx's iterates from the same start
    x0 = {v: float(v % 4) for v in G}
    want = nx.eigenvector_centrality(G, max_iter=2000, tol=TOL, nstart=x0)
    assert np.abs(eigenvector_centrality(g, max_iter=2000, tol=TOL, nstart=x0) - _vec(want, g)).sum() < 1e-12
    want = nx.katz_centrality(G, tol=TOL, nstart=x0, normalized=False)
    got = katz_centrality(g, tol=TOL, nstart=_vec(x0, g), normalized=False)
    assert np.abs(got - _vec(want, g)).sum() < 1e-11


def test_shared_email_eu_core_equals_networkx():
    path = shared_path("email-Eu-core/email-Eu-core.txt.gz")
    G = nx_digraph(path)  # built without gaslab; 1,005 vertices, 25,571 edges, 642 self-loops
    g = gas.load(path)
    want = nx.eigenvector_centrality(G, max_iter=1000, tol=TOL)
    assert np.abs(eigenvector_centrality(g, max_iter=1000, tol=TOL) - _vec(want, g)).sum() < 1e-12
    want = nx.katz_centrality(G, alpha=0.005, tol=TOL)  # below 1 / lambda_max
    assert np.abs(katz_centrality(g, alpha=0.005, tol=TOL) - _vec(want, g)).sum() < 1e-12
    hub, auth = nx.hits(G, max_iter=1000, tol=TOL)
    h, a = hits(g, max_iter=1000, tol=TOL)
    assert np.abs(h - _vec(hub, g)).sum() < 1e-9 and np.abs(a - _vec(auth, g)).sum() < 1e-9


def test_two_processes_give_the_same_answer():
    # two of the three (a spawn each): HITS (its max aggregates, weights and a nstart Mapping)
    # and Katz (a per-vertex beta by internal id): values set before the run travel to the parts
    g, G = _directed(True)
    beta = np.linspace(1.0, 2.0, g.num_vertices)
    for f, kw in (
        (katz_centrality, dict(beta=beta, weight="weight", tol=TOL)),
        (hits, dict(tol=TOL, max_iter=1000, nstart={v: 1.0 + v % 3 for v in G})),
    ):
        one, two = f(g, **kw), f(g, procs=2, **kw)
        for x, y in zip(np.atleast_2d(one), np.atleast_2d(two)):
            assert np.abs(x - y).sum() < 1e-12, f.__name__


def test_max_iter_raises_convergence_error_with_the_partial_scores():
    g, _ = _directed(False)
    # Katz diverges for alpha above 1 / lambda_max (lambda_max of this graph is about 4)
    with pytest.raises(nx.PowerIterationFailedConvergence) as err:
        katz_centrality(g, alpha=0.9, max_iter=50)
    assert isinstance(err.value, gas.ConvergenceError)
    with pytest.raises(gas.ConvergenceError) as err:
        eigenvector_centrality(g, max_iter=3, tol=TOL)
    assert err.value.iterations == 3 and err.value.result.shape == (96,)
    with pytest.raises(gas.ConvergenceError) as err:
        hits(g, max_iter=2, tol=TOL)
    assert err.value.iterations == 2 and len(err.value.result) == 2
    with pytest.raises(gas.ConvergenceError):
        katz_centrality(g, max_iter=0)


def test_bad_arguments_raise_input_errors():
    g = gas.Graph.from_edges([10, 20, 30], [20, 30, 10])
    cases = [
        (katz_centrality, dict(beta={10: 1.0, 20: 1.0}), "no value for 1 of the 3"),
        (katz_centrality, dict(beta={10: 1.0, 20: 1.0, 30: 1.0, 99: 1.0}), "not a vertex"),
        (katz_centrality, dict(nstart=np.ones(4)), "array of 3 values"),
        (katz_centrality, dict(alpha=float("nan")), "alpha"),
        (katz_centrality, dict(weight="cost"), "weight=None or 'weight'"),
        (eigenvector_centrality, dict(nstart={10: 0, 20: 0, 30: 0}), "all zero"),
        (eigenvector_centrality, dict(nstart=[1.0, -1.0, 0.0]), "sum to 0"),
        (eigenvector_centrality, dict(max_iter=-1), "max_iter"),
        (hits, dict(tol=float("inf")), "tol"),
        (hits, dict(nstart={10: 1.0, 20: float("nan"), 30: 1.0}), "not finite"),
    ]
    for f, kw, text in cases:
        with pytest.raises(gas.InputError, match=text):
            f(g, **kw)
    with pytest.raises(gas.InputError, match="null graph"):
        eigenvector_centrality(gas.Graph.from_edges([], [], num_vertices=0))
    with pytest.raises(gas.InputError, match="without edges"):
        hits(gas.Graph.from_edges([], [], num_vertices=3))


def _read(path) -> dict[int, list[float]]:
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    return {int(r[0]): [float(x) for x in r[1:]] for r in rows}


def test_commands_write_original_ids(tmp_path, capsys):
    edges = tmp_path / "g.txt"
    edges.write_text("100 200 2.0\n200 300 1.0\n300 100 0.5\n100 300 1.5\n300 400 1.0\n")
    G = nx.DiGraph()
    G.add_weighted_edges_from(
        [(100, 200, 2.0), (200, 300, 1.0), (300, 100, 0.5), (100, 300, 1.5), (300, 400, 1.0)]
    )
    out = tmp_path / "out.tsv"
    assert (
        main(["hits", str(edges), "-q", "--weighted", "--tol", "1e-13", "--max-iter", "500", "-o", str(out)])
        == 0
    )
    hub, auth = nx.hits(G, tol=1e-13)
    rows = _read(out)
    assert sorted(rows) == [100, 200, 300, 400]
    assert sum(abs(rows[v][0] - hub[v]) + abs(rows[v][1] - auth[v]) for v in G) < 1e-9
    assert (
        main(["katz", str(edges), "-q", "--alpha", "0.2", "--beta", "2", "--tol", "1e-13", "-o", str(out)])
        == 0
    )
    want = nx.katz_centrality(G, alpha=0.2, beta=2.0, tol=1e-13)  # unweighted without --weighted
    assert sum(abs(_read(out)[v][0] - want[v]) for v in G) < 1e-12
    assert (
        main(
            [
                "eigenvector",
                str(edges),
                "-q",
                "--weighted",
                "--tol",
                "1e-13",
                "--max-iter",
                "500",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    want = nx.eigenvector_centrality(G, tol=1e-13, max_iter=500, weight="weight")
    assert sum(abs(_read(out)[v][0] - want[v]) for v in G) < 1e-12
    capsys.readouterr()
    assert main(["eigenvector", str(edges), "-q", "--max-iter", "2", "-o", str(tmp_path / "none.tsv")]) == 3
    assert "stopped after 2 iterations" in capsys.readouterr().err and not (tmp_path / "none.tsv").exists()
