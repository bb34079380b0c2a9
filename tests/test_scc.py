"""Strongly connected components against networkx (``strongly_connected_components``, each
set's smallest id): random graphs, chains both ways (the trim's and the phases' worst cases),
self-loops, a shared SNAP graph, and ``gas scc``."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import shared_path

import gas
from gas.algorithms import strongly_connected_components as scc


def _want(g: gas.Graph) -> list[int]:
    G = nx.DiGraph()  # independent reference: networkx on the same edges, by original id
    G.add_nodes_from(g.ids.tolist())
    G.add_edges_from(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist()))
    best = {v: min(c) for c in nx.strongly_connected_components(G) for v in c}
    return [best[v] for v in g.ids.tolist()]


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    m = int(rng.integers(0, 3 * n))
    g = gas.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n)
    assert g.ids[scc(g)].tolist() == _want(g)  # labels by internal id; g.ids names them


def test_chains_cycles_and_self_loops():
    up = gas.Graph.from_edges(np.arange(500), np.arange(1, 501))
    down = gas.Graph.from_edges(np.arange(1, 501), np.arange(500))
    ring = gas.Graph.from_edges(np.r_[np.arange(50), 7, 7], np.r_[np.arange(1, 50), 0, 7, 60])
    for g in (up, down, ring):
        assert g.ids[scc(g)].tolist() == _want(g)  # labels by internal id; g.ids names them
    assert scc(gas.Graph.from_edges([], [], num_vertices=0)).tolist() == []


def test_shared_gnutella():
    g = gas.load(shared_path("p2p-Gnutella08/p2p-Gnutella08.txt"))
    assert g.ids[scc(g)].tolist() == _want(g)  # labels by internal id; g.ids names them


def test_cli(tmp_path, capsys):
    from gas.cli.app import main

    f = tmp_path / "g.tsv"
    f.write_text("5\t6\n6\t5\n6\t7\n8\t8\n")
    out = tmp_path / "c.tsv"
    assert main(["scc", str(f), "-q", "-o", str(out)]) == 0
    # hand-computed: {5, 6}, {7}, {8}
    assert out.read_text().splitlines() == ["5\t5", "6\t5", "7\t7", "8\t8"]
    assert "components\t3" in capsys.readouterr().out


def test_cli_degree(tmp_path):
    from gas.cli.app import main

    f = tmp_path / "g.tsv"
    f.write_text("5\t6\n6\t5\n6\t7\n8\t8\n")
    out = tmp_path / "d.tsv"
    assert main(["degree", str(f), "-q", "-o", str(out)]) == 0
    # hand-counted from the four edges (8's self-loop counts once each way)
    assert out.read_text().splitlines() == ["5\t1\t1", "6\t1\t2", "7\t1\t0", "8\t1\t1"]
