"""Neighbour lists and slots across processes, slots on the asynchronous engine, and the label
propagation variants built on them (gas/runtime/gather_local.py,
algorithms/label_propagation_variants.py)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms.kcore import CoreProgram
from gas.algorithms.label_propagation import label_propagation_communities, largest_first_coloring
from gas.algorithms.label_propagation_variants import (
    community_labels,
    label_propagation_async,
    label_propagation_phased,
)
from gas.algorithms.triangles import triangles
from gas.runtime.local import LocalCluster, run_distributed


def _graph(n: int = 120, m: int = 420, seed: int = 5) -> tuple[nx.Graph, gas.Graph]:
    G = nx.gnm_random_graph(n, m, seed=seed)
    e = np.array(G.edges(), np.int64)
    return G, gas.Graph.from_edges(e[:, 0], e[:, 1], num_vertices=n).simple_undirected()


def _is_lpa_fixed_point(G: nx.Graph, label: dict) -> bool:
    """networkx-side check: every vertex with neighbours holds one of their most frequent labels."""
    for v in G:
        counts: dict = {}
        for u in G[v]:
            counts[label[u]] = counts.get(label[u], 0) + 1
        if counts and counts.get(label[v], 0) < max(counts.values()):
            return False
    return True


def test_neighbour_lists_and_slots_on_two_processes():
    G, g = _graph(n=60, m=150, seed=11)
    # reference: networkx (triangles, cores); the one-process sweeps for label propagation
    # (themselves checked against networkx in test_kcore_lpa.py)
    want = nx.triangles(G)
    assert triangles(g, procs=2).tolist() == [want[v] for v in range(60)]
    with LocalCluster(2) as cluster:
        core = run_distributed(g, CoreProgram(), cluster=cluster, partition="random", max_iter=100)
        color = largest_first_coloring(g.out_indptr, g.dst)
        phased = label_propagation_phased(g, color, procs=2, cluster=cluster)
    cores = nx.core_number(G)
    assert core.converged and core.output.tolist() == [cores[v] for v in range(60)]
    assert np.array_equal(community_labels(g, phased), label_propagation_communities(g))


def test_scc_command_on_two_processes(tmp_path):
    from gas.cli.app import main

    D = nx.gnm_random_graph(80, 160, seed=2, directed=True)
    smallest = {v: min(c) for c in nx.strongly_connected_components(D) for v in c}  # reference
    f, out = tmp_path / "g.tsv", tmp_path / "o.tsv"
    f.write_text("".join(f"{u + 100}\t{v + 100}\n" for u, v in D.edges()))
    assert main(["scc", str(f), "-q", "--procs", "2", "-o", str(out)]) == 0
    got = {int(a): int(b) for a, b in (line.split("\t") for line in out.read_text().splitlines())}
    assert got == {v + 100: smallest[v] + 100 for v in D if D.degree(v)}


def test_slots_on_the_asynchronous_engine_hold_each_edge_value():
    class FirstAndMax(gas.VertexProgram):
        vertex_data = {"first": np.int64, "top": np.int64}
        gather_edges = gas.ALL
        gather_type = gas.Slots(np.int64)
        dynamic = False

        def gather(self, v, e, nbr):
            return nbr.vid * 10

        def apply(self, v, total, ctx):
            v.first = total[0] if total.shape[0] else -1
            total.sort()
            v.top = total[-1] if total.shape[0] else -1

    g = gas.Graph.from_edges([0, 1, 2, 3], [1, 2, 0, 0])
    res = gas.run(g, FirstAndMax(), engine="async", max_iter=1, threads=1)
    # hand-computed, as on the synchronous engine: in-edges first (0 <- 2, 3), then out-edges
    assert res.vertex_data["first"].tolist() == [20, 0, 10, 0]
    assert res.vertex_data["top"].tolist() == [30, 20, 10, 0]


@pytest.mark.parametrize("threads", [1, 2])
def test_asynchronous_label_propagation_reaches_a_fixed_point(threads):
    G, g = _graph(n=200, m=500, seed=3)
    label = label_propagation_async(g, threads=threads)
    assert _is_lpa_fixed_point(G, dict(enumerate(label.tolist())))
    # each community is named by its smallest member (hand rule of the API)
    for c in np.unique(label):
        assert c == np.flatnonzero(label == c).min()
    if threads == 1:  # one thread, fifo: the same answer every run
        assert np.array_equal(label, label_propagation_async(g, threads=1))


def test_two_cliques_split_asynchronously():
    # hand-computed: two 5-cliques joined by one edge stay two communities
    G = nx.barbell_graph(5, 0)
    e = np.array(G.edges(), np.int64)
    g = gas.Graph.from_edges(e[:, 0], e[:, 1])
    assert label_propagation_async(g, threads=1).tolist() == [0] * 5 + [5] * 5


def test_slots_refusals_across_processes():
    class AllSlots(gas.VertexProgram):
        vertex_data = {"x": np.int64}
        gather_edges = gas.ALL
        gather_type = gas.Slots(np.int64)

        def gather(self, v, e, nbr):
            return 1

        def apply(self, v, total, ctx):
            v.x = total.shape[0]

    g = gas.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(gas.GasError, match="one process"):
        gas.run(g, CoreProgram(), engine="async", procs=2)
    with pytest.raises(gas.GasError, match="ALL edges"):
        gas.run(g, AllSlots(), procs=2)
