"""Strongly connected components against networkx (``strongly_connected_components``, each
set's smallest id): random graphs, chains both ways (the trim's and the phases' worst cases),
self-loops, the pivot phase and the colouring after it, repeated calls (the engines kept on the
graph), a shared SNAP graph, and ``gas scc``."""

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


def _layered() -> gas.Graph:
    """A 12-cycle with chords at 0 (the pivot's component), cycles hanging below it (reached from
    it, not reaching it: the colouring's work), cycles above it (reaching it), chains, parallel
    edges and self-loops (which the trims must not count as neighbours)."""
    hub = (
        [(i, (i + 1) % 12) for i in range(12)] + [(0, k) for k in range(2, 7)] + [(k, 0) for k in range(2, 7)]
    )
    below = [(20, 21), (21, 22), (22, 20), (2, 20), (21, 30), (30, 31), (31, 30), (31, 32)]
    above = [(40, 41), (41, 40), (41, 5), (42, 40), (43, 42), (42, 43), (44, 44), (44, 43)]
    extra = [(20, 21), (21, 22), (40, 41), (32, 32), (50, 50), (50, 51), (51, 52)]
    src, dst = zip(*(hub + below + above + extra))
    return gas.Graph.from_edges(np.array(src), np.array(dst), dedupe=False)


def test_pivot_colouring_parallel_edges_and_self_loops():
    g = _layered()
    assert g.ids[scc(g)].tolist() == _want(g)  # labels by internal id; g.ids names them


def test_pivot_phase_finds_the_pivots_component():
    from gas.algorithms import scc as mod
    from gas.engine_base import engine_for

    g = _layered()
    n = g.num_vertices
    label, alive = np.arange(n), np.ones(n, np.bool_)
    mod._first_trim(g, alive, label)
    root = mod._pivot(g, alive)
    # the synchronous engine, as across processes (scc() runs them on the asynchronous one)
    engines = [engine_for(g, p(), "sync") for p in mod._PROGRAMS[:2]]
    mod._pivot_phase(*engines, alive, label)
    G = nx.DiGraph(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist()))  # reference: networkx
    comp = nx.node_connected_component(G.to_undirected(), 0)  # the hub cycle's weak component
    want = next(c for c in nx.strongly_connected_components(G) if int(g.ids[root]) in c)
    assert int(g.ids[root]) in range(12) and sorted(g.ids[~alive & (label == root)].tolist()) == sorted(want)
    assert set(range(12)) <= want <= comp  # the hub cycle, as built


def test_repeated_calls_and_thread_counts_agree():
    rng = np.random.default_rng(7)
    g = gas.Graph.from_edges(rng.integers(0, 400, 900), rng.integers(0, 400, 900), num_vertices=400)
    want = _want(g)
    for threads in (1, 2, 1, None):  # every call after the first reuses the engines kept on g
        assert g.ids[scc(g, threads=threads)].tolist() == want


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
