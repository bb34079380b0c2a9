"""Personalized PageRank (``personalization=``, ``nstart=``, ``dangling=``) against
``networkx.pagerank`` at ``tol=1e-13`` on both sides, by original id or by internal-id array,
weighted, on the bundled ego-Facebook and on two processes; ``gas pagerank --personalization``
and its bad inputs."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms.pagerank import pagerank
from gas.algorithms.pagerank_personal import vertex_weights
from gas.cli import main

BUNDLED = Path(__file__).resolve().parents[1] / "datasets" / "data" / "ego-Facebook.txt.gz"
TIGHT = dict(tol=1e-13, max_iter=1000)


def _digraph(seed: int = 5, n: int = 80) -> nx.DiGraph:
    """A random digraph with non-contiguous ids, dangling vertices (no out-edge, and one whose
    only out-edge weighs 0), isolated ones and random weights."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.04, directed=True, seed=seed)
    G = nx.relabel_nodes(G, {v: 3 * v + 7 for v in G})
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.random())
    u = next(x for x in sorted(G) if G.out_degree(x) == 1)
    G[u][next(iter(G[u]))]["weight"] = 0.0
    assert sum(G.out_degree(x, weight="weight") == 0 for x in G) >= 3
    return G


def _weights(G: nx.DiGraph, seed: int, share: float) -> dict:
    rng = np.random.default_rng(seed)
    return {v: float(rng.random()) for v in sorted(G) if rng.random() < share}


def _ref(g: gas.Graph, G: nx.DiGraph, **kw) -> np.ndarray:
    """networkx's answer (the reference) by internal id."""
    d = nx.pagerank(G, **TIGHT, **kw)
    return np.array([d[v] for v in g.ids.tolist()])


@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("which", ["personalization", "nstart", "dangling", "all"])
def test_matches_networkx_with_and_without_extrapolation(weight, which):
    G = _digraph()
    g = gas.Graph.from_networkx(G)
    args = {
        "personalization": _weights(G, 1, 0.3),
        "nstart": _weights(G, 2, 1.0),
        "dangling": _weights(G, 3, 0.4),
    }
    kw = args if which == "all" else {which: args[which]}
    want = _ref(g, G, weight=weight, **kw)
    for every in (6, 0):  # the Anderson extrapolation reaches networkx's fixed point too
        got = pagerank(g, weight=weight, extrapolate_every=every, **TIGHT, **kw)
        assert np.abs(got - want).sum() <= 1e-6
        assert got.sum() == pytest.approx(1.0, abs=1e-12)
    # the same vectors as arrays by internal id give the same ranks
    arrays = {k: vertex_weights(g, v, k) * 7.0 for k, v in kw.items()}
    again = pagerank(g, weight=weight, extrapolate_every=0, **TIGHT, **arrays)
    np.testing.assert_allclose(again, got, rtol=0, atol=1e-14)


def test_uniform_personalization_is_plain_pagerank_and_strings_work():
    G = nx.relabel_nodes(_digraph(seed=8), lambda v: f"v{v}")
    g = gas.Graph.from_networkx(G)
    plain = pagerank(g, **TIGHT)
    uniform = pagerank(g, personalization={v: 2.0 for v in G}, **TIGHT)
    assert np.abs(uniform - plain).sum() <= 1e-10
    pers = {"v7": 1.0, "v37": 3.0}  # reference: networkx on the same string-labelled graph
    assert (
        np.abs(
            pagerank(g, personalization=pers, **TIGHT) - _ref(g, G, personalization=pers, weight=None)
        ).sum()
        <= 1e-6
    )


def test_ego_facebook_personalized_matches_networkx():
    g = gas.load(BUNDLED)
    G = nx.DiGraph()  # directed as stored: every edge u < v, so many dangling vertices
    G.add_nodes_from(g.ids.tolist())
    G.add_edges_from(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist()))
    pers = {0: 1.0, 107: 2.0, 1684: 1.0, 3980: 0.5}
    got = pagerank(g, personalization=pers, **TIGHT)
    assert np.abs(got - _ref(g, G, personalization=pers, weight=None)).sum() <= 1e-6


@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("consistency", [None, "full"])
def test_async_engine_matches_networkx(weight, consistency):
    G = _digraph(seed=9)
    g = gas.Graph.from_networkx(G)
    kw = {"personalization": _weights(G, 7, 0.3), "nstart": _weights(G, 8, 1.0)}
    got = pagerank(g, weight=weight, engine="async", consistency=consistency, **TIGHT, **kw)
    assert np.abs(got - _ref(g, G, weight=weight, **kw)).sum() <= 1e-6
    with pytest.raises(gas.ConvergenceError, match="personalized PageRank stopped at its budget"):
        pagerank(g, weight=weight, engine="async", tol=1e-15, max_iter=1, **kw)


def test_two_processes_give_networkx_answer():
    G = _digraph(seed=11)
    g = gas.Graph.from_networkx(G)
    kw = {
        "personalization": _weights(G, 4, 0.3),
        "nstart": _weights(G, 5, 1.0),
        "dangling": _weights(G, 6, 0.3),
    }
    got = pagerank(g, weight="weight", procs=2, **TIGHT, **kw)
    assert np.abs(got - _ref(g, G, weight="weight", **kw)).sum() <= 1e-6


@pytest.mark.parametrize(
    ("kw", "fragments"),
    [
        ({"personalization": {7: 1.0, 8: 1.0}}, ["personalization", "Unknown vertex id 8"]),
        ({"personalization": {"7": 1.0}}, ["personalization", "'7'", "integers"]),
        ({"nstart": {7: -1.0, 10: 2.0}}, ["nstart", "-1.0", "vertex 7"]),
        ({"dangling": {7: float("nan")}}, ["dangling", "nan"]),
        ({"personalization": {7: 0.0}}, ["personalization", "all zero", "ZeroDivisionError"]),
        ({"personalization": np.ones(3)}, ["personalization", "shape (3,)"]),
        ({"personalization": {7: "x"}}, ["personalization", "numbers"]),
        (
            {"personalization": {7: 1.0}, "dangling": {10: 1.0}, "engine": "async"},
            ["engine='sync'", "dangling"],
        ),
    ],
)
def test_bad_vectors_are_clear_input_errors(kw, fragments):
    g = gas.Graph.from_networkx(_digraph())
    with pytest.raises(gas.InputError) as exc:
        pagerank(g, **kw)
    for f in fragments:
        assert f in str(exc.value), (f, str(exc.value))


def test_networkx_also_refuses_an_all_zero_personalization():
    with pytest.raises(ZeroDivisionError):  # the reference behaviour the InputError replaces
        nx.pagerank(nx.DiGraph([(1, 2)]), personalization={1: 0.0})


def test_a_missed_tolerance_raises_convergence_error():
    g = gas.Graph.from_networkx(_digraph())
    with pytest.raises(gas.ConvergenceError) as exc:
        pagerank(g, personalization={7: 1.0}, tol=1e-15, max_iter=3, extrapolate_every=0)
    assert exc.value.result is not None and exc.value.result.shape == (g.num_vertices,)


def test_cli_personalization_round_trip(tmp_path, capsys):
    G = _digraph(seed=3)
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{u} {v}\n" for u, v in G.edges))
    G = nx.DiGraph(G.edges)  # as the file loads: unweighted, only vertices with edges
    pers, dang, start = tmp_path / "p.tsv", tmp_path / "d.tsv", tmp_path / "n.tsv"
    pers.write_text("# id\tweight\n\n10\t1\n25\t3.5\n")
    dang.write_text("13\t1\n")
    start.write_text("".join(f"{v}\t{i % 3}\n" for i, v in enumerate(sorted(G))))
    out = tmp_path / "out.tsv"
    argv = ["pagerank", str(graph), "--tol", "1e-13", "--max-iter", "1000", "-q", "-o", str(out)]
    assert main([*argv, "--personalization", str(pers), "--dangling", str(dang), "--nstart", str(start)]) == 0
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    got = {int(a): float(b) for a, b in rows}
    nstart = {v: i % 3 for i, v in enumerate(sorted(G))}
    want = nx.pagerank(G, personalization={10: 1, 25: 3.5}, dangling={13: 1}, nstart=nstart, **TIGHT)
    assert got.keys() == want.keys()
    assert sum(abs(got[v] - want[v]) for v in want) <= 1e-6
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "extra", "fragments"),
    [
        ("10\t1\n13\tabc\n", [], ["p.tsv:2:", "'abc'", "hint:", "--personalization"]),
        ("10\t1\nx\t1\n", [], ["p.tsv:2:", "integer vertex id", "'x'"]),
        ("10\t1\t2\n", [], ["p.tsv:1:", "2 fields"]),
        ("10\t-1\n", [], ["p.tsv:1:", "'-1'", ">= 0"]),
        ("# only\n10\t1\n999\t1\n", [], ["p.tsv:3:", "vertex 999 is not in the graph"]),
        ("10\t1\n10\t2\n", [], ["p.tsv:2:", "listed twice", "line 1"]),
        ("10\t0\n", [], ["p.tsv", "weight > 0"]),
        ("10\t1\n", ["--engine", "async", "--dangling", "{p}"], ["--engine async", "--dangling"]),
        ("10\t1\n", ["--procs", "2", "--checkpoint-dir", "ck"], ["--personalization", "--checkpoint-dir"]),
    ],
)
def test_cli_bad_personalization_files(tmp_path, capsys, content, extra, fragments):
    graph = tmp_path / "g.txt"
    graph.write_text("10 13\n13 25\n25 10\n25 40\n")
    (tmp_path / "p.tsv").write_text(content)
    extra = [a.format(p=tmp_path / "p.tsv") for a in extra]
    assert main(["pagerank", str(graph), "-q", "--personalization", str(tmp_path / "p.tsv"), *extra]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for f in fragments:
        assert f in err, (f, err)
