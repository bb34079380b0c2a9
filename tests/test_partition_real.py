"""Replication factors on the shared SNAP graphs against published figures.

Published figures: Zhang et al., "Graph Edge Partitioning via Neighborhood Heuristic", KDD 2017,
replication factors at 30 parts from the table in their public README, computed on the
undirected, deduplicated, self-loop-free edge sets (built here with ``undirected_simple``).
Targets from the issue: random within 10 %, hdrf/oblivious within 2 % (or better), ne at most
1.2 x the published NE figure.
"""

from __future__ import annotations

import pytest
from conftest import shared_path

from gas.io import load
from gas.partition import partition, undirected_simple

PUBLISHED_30 = {  # graph: {method: replication factor at P = 30}
    "wiki-Vote/Wiki-Vote.txt": {"random": 9.28, "oblivious": 3.85, "hdrf": 3.90, "ne": 2.35},
    "email-Enron/email-Enron.txt.gz": {"random": 5.10, "oblivious": 2.30, "hdrf": 2.12, "ne": 1.34},
}
TOLERANCE = {"random": 1.10, "oblivious": 1.02, "hdrf": 1.02, "ne": 1.20}
SOCIAL = [
    "wiki-Vote/Wiki-Vote.txt",
    "soc-Epinions1/soc-Epinions1.txt.gz",
    "soc-Slashdot0811/soc-Slashdot0811.txt.gz",
    "email-Enron/email-Enron.txt.gz",
]

_CACHE: dict[str, object] = {}


def simple_graph(relative: str):
    if relative not in _CACHE:
        _CACHE[relative] = undirected_simple(load(shared_path(relative)))
    return _CACHE[relative]


@pytest.mark.parametrize("relative", list(PUBLISHED_30))
@pytest.mark.parametrize("method", ["random", "oblivious", "hdrf", "ne"])
def test_replication_factor_matches_published(relative, method):
    g = simple_graph(relative)
    r = partition(g, method, 30, seed=0).report()
    published = PUBLISHED_30[relative][method]
    assert r.replication_factor <= published * TOLERANCE[method]
    if method == "random":  # a sanity band on both sides
        assert r.replication_factor >= published / TOLERANCE[method]
    assert r.edge_balance <= 1.1


def test_published_graph_sizes():
    """The simple undirected edge sets (counts from networkx: ``nx.Graph`` of the file's lines,
    self-loops removed, gives 100,762 and 183,831 edges; 183,831 is also SNAP's Enron count)."""
    assert simple_graph("wiki-Vote/Wiki-Vote.txt").num_edges == 100_762
    assert simple_graph("email-Enron/email-Enron.txt.gz").num_edges == 183_831


@pytest.mark.parametrize("relative", SOCIAL)
def test_hdrf_beats_random_on_social_graphs(relative):
    g = simple_graph(relative)
    for parts in (8, 30):
        hdrf = partition(g, "hdrf", parts, seed=1).report().replication_factor
        rand = partition(g, "random", parts, seed=1).report().replication_factor
        assert hdrf < rand
