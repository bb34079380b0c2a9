"""k-core numbers and label propagation communities through per-vertex slots (``gas.Slots``),
exact against networkx on the undirected simple view (``core_number``,
``label_propagation_communities``: each community's smallest id), plus ``gas kcore`` and
``gas label-propagation``."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms.community import label_propagation_communities as nx_lpa

import gas
from gas.algorithms import core_number, label_propagation_communities

BUNDLED = Path(__file__).resolve().parents[1] / "datasets" / "data" / "ego-Facebook.txt.gz"


def _nx(g: gas.Graph) -> nx.Graph:
    G = nx.Graph()  # independent reference: networkx on the undirected simple view
    G.add_nodes_from(g.ids.tolist())
    G.add_edges_from((int(a), int(b)) for a, b in zip(g.ids[g.src], g.ids[g.dst]) if a != b)
    return G


def _graphs():
    rng = np.random.default_rng(4)
    for n, m in ((40, 30), (150, 400), (200, 1200)):
        yield (
            f"random-{m}",
            gas.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n),
        )
    e = np.array(nx.karate_club_graph().edges())
    yield "karate", gas.Graph.from_edges(e[:, 0] + 5, e[:, 1] + 5)


def test_h_index_and_its_count_match_the_definition():
    from gas.algorithms.kcore import h_index

    rng = np.random.default_rng(7)
    for _ in range(3000):
        values = rng.integers(0, 12, rng.integers(0, 10)).astype(np.int32)
        cap = int(rng.integers(0, 12))
        # reference: the definition, by brute force (largest h <= cap with h values >= h)
        h = max(k for k in range(cap + 1) if k == 0 or (values >= k).sum() >= k)
        assert h_index(values, cap) == (h, int((values >= h).sum()))


@pytest.mark.parametrize("name, g", list(_graphs()))
def test_synchronous_core_program_equals_networkx(name, g):
    # CoreProgram is what procs > 1 runs; here on one process. Reference: networkx
    from gas.algorithms.kcore import CoreProgram

    want = nx.core_number(_nx(g))
    res = gas.run(g.simple_undirected(), CoreProgram(), max_iter=1000)
    assert res.converged and res.output.tolist() == [want[v] for v in g.ids.tolist()]


def test_core_number_on_two_processes_and_its_budget():
    g = next(_graphs())[1]
    want = nx.core_number(_nx(g))  # reference: networkx
    assert core_number(g, procs=2).tolist() == [want[v] for v in g.ids.tolist()]
    with pytest.raises(gas.ConvergenceError):
        core_number(g, max_iter=0)


@pytest.mark.parametrize("name, g", list(_graphs()) + [("ego-Facebook", gas.load(BUNDLED))])
def test_core_numbers_and_communities_equal_networkx(name, g):
    G = _nx(g)
    ids = g.ids.tolist()
    want = nx.core_number(G)
    assert core_number(g).tolist() == [want[v] for v in ids]
    best = {v: min(c) for c in nx_lpa(G) for v in c}
    assert g.ids[label_propagation_communities(g)].tolist() == [best[v] for v in ids]


@pytest.mark.parametrize("cascade, threads", [(False, 1), (True, 1), (True, 2)])
def test_peeling_program_equals_networkx_with_and_without_the_worklist(cascade, threads):
    # reference: networkx's core numbers. With the worklist each pass finishes one level (every
    # vertex left has more neighbours than the pass's smallest degree, which rises), so the
    # passes are at most the largest core number plus one. Without it a chain of removals
    # towards lower ids takes a pass per vertex. Hand-worked: the path 9 - 8 - ... - 0 hanging
    # off the triangle 10 - 11 - 12 (edge 0 - 10); only 9 has one neighbour, and removing it
    # leaves 8 with one, and so on down to 0: ten passes for level 1, then one for the triangle.
    # On two threads each thread drains the worklist its removals fill: one pass per level too
    from gas.algorithms.kcore import PeelCoreProgram

    path = np.arange(9, 0, -1)
    g = gas.Graph.from_edges(np.r_[path, 0, 10, 11, 12], np.r_[path - 1, 10, 11, 12, 10])
    for _, h in list(_graphs()) + [("path and triangle", g)]:
        S = h.simple_undirected()
        eng = gas.AsyncEngine(
            S, PeelCoreProgram(), scheduler="priority", priority_ratio=1.0, threads=threads, cascade=cascade,
        )  # fmt: skip
        res = eng.run(max_iter=10_000, priority=1.0 / (1.0 + S.out_degree))
        want = nx.core_number(_nx(S))
        assert res.converged and res.output.tolist() == [want[v] for v in S.ids.tolist()]
        if cascade:
            assert res.iterations <= max(want.values()) + 1
    assert res.iterations == (2 if cascade else 11)  # the path and triangle


_NX_LPA: dict[str, dict[int, int]] = {}


def _nx_communities(name: str, g: gas.Graph) -> list[int]:
    """networkx's communities (each named by its smallest id) by original id, computed once."""
    if name not in _NX_LPA:
        _NX_LPA[name] = {v: min(c) for c in nx_lpa(_nx(g)) for v in c}
    return [_NX_LPA[name][v] for v in g.ids.tolist()]


@pytest.mark.parametrize("threads", [1, 2])
def test_communities_equal_networkx_on_one_and_several_threads(threads):
    # the engine runs the sweeps a pass in id order on one thread and a colour class per batch
    # on several; expected: networkx's label_propagation_communities (independent reference).
    # ego-Facebook's hubs (degree > 1000) take the counting table, the others the short sort
    for name, g in list(_graphs()) + [("ego-Facebook", gas.load(BUNDLED))]:
        assert g.ids[label_propagation_communities(g, threads=threads)].tolist() == _nx_communities(name, g)


@pytest.mark.parametrize("threads", [1, 2])
def test_communities_without_renumbering_equal_networkx(monkeypatch, threads):
    # above RENUMBER_MAX_EDGES the sweep runs the colour classes where they are (the engine
    # keeps the given classes on one thread too); expected: networkx's communities, as above
    import gas.algorithms.label_propagation as lp

    monkeypatch.setattr(lp, "RENUMBER_MAX_EDGES", 0)
    for name, g in _graphs():
        labels = lp.label_propagation_communities(g, threads=threads)
        assert g.ids[labels].tolist() == _nx_communities(name, g)


def test_label_types_give_the_same_communities():
    # the functions run 32-bit labels; the 64-bit program (the classes' default) must reach the
    # same labels on the same schedule, and each equals networkx's (independent reference)
    from gas.algorithms.label_propagation import LabelPropagationProgram, _by_class, largest_first_coloring

    name, g = next(iter(_graphs()))
    s = g.simple_undirected()
    color = largest_first_coloring(s.out_indptr, s.dst)
    R, order = _by_class(s, color, 1)
    got = []
    for kind in (np.int32, np.int64):
        prog = LabelPropagationProgram(order, kind)
        eng = gas.AsyncEngine(R, prog, scheduler="priority", priority_ratio=0.0, consistency="edge",
                              threads=1)  # fmt: skip
        assert eng.run(1000).converged
        assert eng.columns["label"].dtype == kind
        labels = np.empty(s.num_vertices, np.int64)
        labels[order] = eng.columns["label"]
        got.append(labels)
    assert np.array_equal(got[0], got[1])
    assert g.ids[label_propagation_communities(g, threads=1)].tolist() == _nx_communities(name, g)
    with pytest.raises(gas.GasError, match="labels=np.int32 or np.int64"):
        LabelPropagationProgram(order, np.float64)


def test_largest_first_coloring_is_networkx_greedy_color():
    from gas.algorithms.label_propagation import largest_first_coloring

    for _, g in _graphs():
        s = g.simple_undirected()
        want = nx.greedy_color(_nx(g), "largest_first")  # expected: networkx
        assert largest_first_coloring(s.out_indptr, s.dst).tolist() == [want[v] for v in g.ids.tolist()]


def test_most_frequent_short_and_long_lists():
    from collections import Counter

    from gas.algorithms.label_propagation_variants import SHORT_LIST, most_frequent

    rng = np.random.default_rng(7)
    for d in (0, 1, 5, SHORT_LIST, SHORT_LIST + 1, 300):
        for _ in range(30):
            labels = rng.integers(0, max(1, d // 3), d) * 1_000_003  # spread keys, many ties
            own = int(labels[0]) if d and rng.random() < 0.7 else 5
            got = most_frequent(labels.copy(), own)
            assert most_frequent(labels.astype(np.int32), own) == got  # 32-bit labels: same choice
            # expected: counted with collections.Counter (networkx's rule: largest of the most
            # frequent; own label kept when among them)
            c = Counter(labels.tolist())
            top = max(c.values(), default=0)
            best = [x for x, k in c.items() if k == top]
            assert got == ((max(best), own in best) if d else (own, True))


def test_max_sweeps_too_small_raises():
    e = np.array(nx.karate_club_graph().edges())
    with pytest.raises(gas.ConvergenceError, match="max_sweeps"):
        label_propagation_communities(gas.Graph.from_edges(e[:, 0], e[:, 1]), max_sweeps=1)


def test_slots_hold_each_edge_value_in_edge_order():
    class FirstAndMax(gas.VertexProgram):
        vertex_data = {"first": np.int64, "top": np.int64}
        gather_edges = gas.ALL
        gather_type = gas.Slots(np.int64)

        def gather(self, v, e, nbr):
            return nbr.vid * 10

        def apply(self, v, total, ctx):
            v.first = total[0] if total.shape[0] else -1
            total.sort()
            v.top = total[-1] if total.shape[0] else -1

    g = gas.Graph.from_edges([0, 1, 2, 3], [1, 2, 0, 0])
    res = gas.run(g, FirstAndMax())
    # hand-computed: in-edges first (0 <- 2, 3), then out-edges (0 -> 1)
    assert res.vertex_data["first"].tolist() == [20, 0, 10, 0]
    assert res.vertex_data["top"].tolist() == [30, 20, 10, 0]


def test_slots_refuse_sum_and_other_engines():
    class WithSum(gas.VertexProgram):
        vertex_data = {"x": np.int64}
        gather_type = gas.Slots(np.int64)

        def gather(self, v, e, nbr):
            return 1

        def sum(self, a, b):
            return a + b

        def apply(self, v, total, ctx):
            v.x = total.shape[0]

    g = gas.Graph.from_edges([0], [1])
    with pytest.raises(gas.ProgramError, match="has no sum"):
        gas.run(g, WithSum())
    from gas.algorithms.kcore import CoreProgram

    with pytest.raises(gas.GasError, match="one process"):  # slots on async: one process only
        gas.run(g, CoreProgram(), engine="async", procs=2)


def test_cli(tmp_path):
    from gas.cli.app import main

    f = tmp_path / "g.tsv"
    f.write_text("10\t11\n11\t12\n12\t10\n12\t13\n20\t21\n21\t22\n22\t20\n")
    out = tmp_path / "o.tsv"
    assert main(["kcore", str(f), "-q", "-o", str(out)]) == 0
    # hand-computed: the two triangles are 2-cores, 13 hangs off 12
    assert out.read_text().split() == "10 2 11 2 12 2 13 1 20 2 21 2 22 2".split()
    assert main(["label-propagation", str(f), "-q", "-o", str(out)]) == 0
    got = dict(line.split("\t") for line in out.read_text().splitlines())
    assert {got["10"], got["11"], got["12"]} == {"10"} and {got["20"], got["21"], got["22"]} == {"20"}
