"""Property tests of every partitioner on random graphs (hypothesis).

Invariants: every edge assigned exactly once; every vertex has exactly one master and it is one
of its replicas; replicas are exactly the parts of the incident edges (plus the master); the
replication factor is >= 1; grid stays within its bound; per-part lists agree with the
per-edge/per-vertex arrays; and the report recomputed here from the raw assignment with plain
Python sets (the independent oracle) equals the reported one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gas
from gas.partition import available_methods, grid_bound, partition

VERTEX_CUT = [n for n, c in available_methods().items() if c.kind == "vertex-cut"]
EDGE_CUT = [n for n, c in available_methods().items() if c.kind == "edge-cut"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def graphs(draw, max_vertices=25, max_edges=80):
    """(src, dst, n, P): a random multigraph with self-loops and isolated vertices allowed."""
    n = draw(st.integers(1, max_vertices))
    m = draw(st.integers(1, max_edges))
    ids = st.integers(0, n - 1)
    src = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    parts = draw(st.integers(1, min(m, n, 9)))
    return src, dst, n, parts


def naive_replicas(a) -> list[set[int]]:
    """Replica sets from the raw per-edge parts (plus the master for vertices without edges)."""
    reps: list[set[int]] = [set() for _ in range(a.num_vertices)]
    for s, d, p in zip(a.src.tolist(), a.dst.tolist(), a.edge_part.tolist(), strict=True):
        reps[s].add(p)
        reps[d].add(p)
    if a.kind == "edge-cut":
        for v, p in enumerate(a.vertex_part.tolist()):
            reps[v].add(p)
    return reps


def naive_report(a, gather_bytes: int = 8) -> dict:
    """The report's figures from their definitions, with Python sets and lists."""
    P, n, m = a.num_parts, a.num_vertices, a.num_edges
    reps = naive_replicas(a)
    master = a.master.tolist()
    for v in range(n):
        if not reps[v]:
            reps[v] = {master[v]}
    total = sum(len(r) for r in reps)
    edges = [0] * P
    for p in a.edge_part.tolist():
        edges[p] += 1
    verts = [sum(1 for r in reps if p in r) for p in range(P)]
    masters = [master.count(p) for p in range(P)]
    out = {
        "replication_factor": total / n,
        "edge_balance": max(edges) / (m / P),
        "vertex_balance": max(verts) / (total / P),
        "master_balance": max(masters) / (n / P),
        "mirrors": total - n,
        "bytes_per_superstep": (total - n) * gather_bytes,
    }
    if a.kind == "edge-cut":
        vp = a.vertex_part.tolist()
        pairs = list(zip(a.src.tolist(), a.dst.tolist(), strict=True))
        out["edge_cut_fraction"] = sum(vp[s] != vp[d] for s, d in pairs) / m
        ghosts = [set() for _ in range(P)]
        for s, d in pairs:
            if vp[s] != vp[d]:
                ghosts[vp[d]].add(s)
                ghosts[vp[s]].add(d)
        out["ghosts"] = sum(len(g) for g in ghosts)
    return out


def check_assignment(a) -> None:
    P, n, m = a.num_parts, a.num_vertices, a.num_edges
    # every edge exactly once: one part id in range per edge, and the per-part lists partition
    assert a.edge_part.shape == (m,) and a.edge_part.dtype == np.int32
    assert a.edge_part.min() >= 0 and a.edge_part.max() < P
    listed = np.concatenate([a.part_edges(p) for p in range(P)])
    assert np.array_equal(np.sort(listed), np.arange(m))
    for p in range(P):
        assert np.all(a.edge_part[a.part_edges(p)] == p)
    # replicas are exactly the parts of the incident edges (plus the master if none)
    reps = naive_replicas(a)
    master = a.master
    assert master.shape == (n,) and master.dtype == np.int32
    for v in range(n):
        got = a.replicas(v).tolist()
        want = sorted(reps[v]) if reps[v] else [int(master[v])]
        assert got == want
        assert int(master[v]) in got  # exactly one master, and it is a replica
        assert sorted(a.mirror_parts(v).tolist() + [int(master[v])]) == got
    assert a.num_replicas.min() >= 1
    # per-part vertex lists, masters and mirrors agree with the per-vertex view
    for p in range(P):
        local = a.part_vertices(p).tolist()
        assert local == [v for v in range(n) if p in a.replicas(v).tolist()]
        assert a.part_masters(p).tolist() == [v for v in local if master[v] == p]
        assert a.part_mirrors(p).tolist() == [v for v in local if master[v] != p]
    for p in range(P):  # the local view a worker receives
        view = a.part_view(p)
        assert np.array_equal(view.vertices[view.src_local], a.src[view.edges])
        assert np.array_equal(view.vertices[view.dst_local], a.dst[view.edges])
        assert np.array_equal(view.master, master[view.vertices])
    r = a.report(gather_bytes=8)
    assert r.replication_factor >= 1.0
    for key, want in naive_report(a).items():
        assert getattr(r, key) == pytest.approx(want, rel=1e-12), key


@pytest.mark.parametrize("method", VERTEX_CUT)
@SETTINGS
@given(g=graphs(), seed=st.integers(0, 2**32))
def test_vertex_cut_invariants(method, g, seed):
    src, dst, n, parts = g
    a = partition((src, dst), method, parts, seed=seed, num_vertices=n)
    assert a.kind == "vertex-cut"
    check_assignment(a)
    if method == "grid":
        assert int(a.num_replicas.max()) <= grid_bound(parts) <= 2 * math.ceil(math.sqrt(parts))


@pytest.mark.parametrize("method", EDGE_CUT)
@SETTINGS
@given(g=graphs(), seed=st.integers(0, 2**32))
def test_edge_cut_invariants(method, g, seed):
    src, dst, n, parts = g
    a = partition((src, dst), method, parts, seed=seed, num_vertices=n)
    assert a.kind == "edge-cut"
    assert a.vertex_part.shape == (n,) and a.vertex_part.min() >= 0 and a.vertex_part.max() < parts
    assert np.array_equal(a.master, a.vertex_part)
    assert np.array_equal(a.edge_part, a.vertex_part[dst])  # an edge lives with its target
    check_assignment(a)
    vp = a.vertex_part
    for p in range(parts):
        owned = set(np.flatnonzero(vp == p).tolist())
        want = set()
        for s, d in zip(src.tolist(), dst.tolist(), strict=True):
            if (s in owned) != (d in owned):
                want.add(d if s in owned else s)
        assert a.part_ghosts(p).tolist() == sorted(want)


@pytest.mark.parametrize("method", ["random", "grid", "hdrf", "oblivious", "dbh", "ne"])
@pytest.mark.parametrize("parts", [64, 65, 130])
def test_many_parts_use_several_bit_words(method, parts):
    """P > 64 needs several 64-bit words per replica set: the invariants still hold."""
    rng = np.random.default_rng(parts)
    src = rng.integers(0, 60, 600)
    dst = rng.integers(0, 60, 600)
    a = partition((src, dst), method, parts, seed=1)
    check_assignment(a)
    if method == "grid":
        assert int(a.num_replicas.max()) <= grid_bound(parts)


@SETTINGS
@given(g=graphs(max_vertices=40, max_edges=150), seed=st.integers(0, 1000))
def test_same_result_from_graph_and_from_arrays(g, seed):
    """A Graph is partitioned in its CSR edge order: equal to passing its src/dst arrays."""
    src, dst, n, parts = g
    graph = gas.Graph.from_edges(src, dst, num_vertices=n, dedupe=False)
    for method in ("hdrf", "ne", "ldg"):
        if parts > graph.num_edges:
            continue
        a = partition(graph, method, parts, seed=seed)
        b = partition((graph.src, graph.dst), method, parts, seed=seed, num_vertices=n)
        assert np.array_equal(a.edge_part, b.edge_part)
        assert np.array_equal(a.master, b.master)
