"""The cache-blocked gather's layout (``gas._segments``), with and without numbering the sources
by degree, and the programs whose neighbour reads may use it."""

from __future__ import annotations

import numpy as np
import pytest

import gas
from gas._segments import build_segments
from gas.config import CONFIG
from gas.program import validate


def _graph(seed: int = 3, n: int = 600, m: int = 5000) -> gas.Graph:
    rng = np.random.default_rng(seed)
    # skewed sources so that degree order differs from id order
    src = (n * rng.random(m) ** 3).astype(np.int64)
    dst = rng.integers(0, n, m)
    return gas.Graph.from_edges(src, dst, num_vertices=n)


@pytest.mark.parametrize("relabel", [False, True])
@pytest.mark.parametrize("segment_size", [1, 50, 128, 10_000])
def test_layout_holds_every_edge_once_with_one_block_per_target_and_segment(relabel, segment_size):
    g = _graph()
    sg = build_segments(g, segment_size, chunks=3, relabel=relabel)
    eid = sg.seg_eid.astype(np.int64)
    # every edge id exactly once
    assert np.array_equal(np.sort(eid), np.arange(g.num_edges))
    dst = np.repeat(sg.blk_dst.astype(np.int64), np.diff(sg.blk_ptr.astype(np.int64)))
    assert np.array_equal(dst, g.dst[eid])
    src = sg.seg_src.astype(np.int64)
    if relabel:
        # expected numbering from numpy: out-degree descending, ties by id (a stable sort)
        order = np.argsort(-g.out_degree, kind="stable")
        assert np.array_equal(sg.order, order)
        assert np.array_equal(sg.order[sg.newid], np.arange(g.num_vertices))
        src = sg.order[src]
    else:
        assert sg.order is None
    assert np.array_equal(src, g.src[eid])
    # each segment holds the sources of its id range (in the layout's numbering), and no target
    # has two blocks in one segment (threads splitting a segment never share a total)
    for s in range(sg.num_segments):
        b0, b1 = sg.seg_blk[s], sg.seg_blk[s + 1]
        k0, k1 = sg.blk_ptr[b0], sg.blk_ptr[b1]
        assert np.all(sg.seg_src[k0:k1] // segment_size == s)
        blocks = sg.blk_dst[b0:b1]
        assert np.unique(blocks).shape[0] == blocks.shape[0]


class _RankPull(gas.VertexProgram):
    # the README's program: gathers a field and a built-in degree from the neighbour
    vertex_data = {"rank": np.float64}
    dynamic = False

    def init(self, v, ctx):
        v.rank = (v.vid % 7) + 1.0

    def gather(self, v, e, nbr):
        return nbr.rank / nbr.out_degree

    def apply(self, v, total, ctx):
        v.rank = total + 1.0


class _Diff(gas.VertexProgram):
    # reads the same field on the vertex and the neighbour: no relabelled copies
    vertex_data = {"x": np.float64, "y": np.float64}
    dynamic = False

    def init(self, v, ctx):
        v.x = float(v.vid)

    def gather(self, v, e, nbr):
        return abs(nbr.x - v.x)

    def apply(self, v, total, ctx):
        v.y = total


class _NbrId(gas.VertexProgram):
    vertex_data = {"x": np.float64}
    dynamic = False

    def gather(self, v, e, nbr):
        return float(nbr.vid)

    def apply(self, v, total, ctx):
        v.x = total


class _VecPull(gas.VertexProgram):
    # a vector field read on the neighbour: gather could hand it to a helper that writes it, so
    # no relabelled copies
    vertex_data = {"vec": (np.float64, 3), "out": np.float64}
    dynamic = False

    def init(self, v, ctx):
        for j in range(3):
            v.vec[j] = (v.vid + 1.0) * (j + 1.0)

    def gather(self, v, e, nbr):
        return nbr.vec[0] + 0.5 * nbr.vec[2]

    def apply(self, v, total, ctx):
        v.out = total


def test_which_gathers_may_read_relabelled_copies():
    g = _graph()
    from gas.algorithms.pagerank import PageRankProgram

    assert validate(PageRankProgram(), g).gather_nbr_fields == {"contrib"}
    assert validate(_RankPull(), g).gather_nbr_fields == {"rank", "out_degree"}
    assert validate(_VecPull(), g).gather_nbr_fields is None  # array field on nbr
    assert validate(_Diff(), g).gather_nbr_fields is None  # x read on both
    assert validate(_NbrId(), g).gather_nbr_fields is None  # nbr.vid would be the new number


@pytest.mark.parametrize("relabel", [0, 1])
def test_blocked_gather_with_relabelled_sources_matches_numpy(relabel, monkeypatch):
    monkeypatch.setitem(CONFIG, "segment_size", 64)
    monkeypatch.setitem(CONFIG, "relabel", relabel)
    g = _graph(seed=4)
    n = g.num_vertices
    outdeg = g.out_degree.astype(np.float64)

    # _RankPull for 3 supersteps, iterated with numpy (np.add.at over the edge list)
    rank = (np.arange(n) % 7) + 1.0
    for _ in range(3):
        total = np.zeros(n)
        np.add.at(total, g.dst, rank[g.src] / outdeg[g.src])
        rank = total + 1.0
    eng = gas.SyncEngine(g, _RankPull(), threads=2)
    assert eng._use_segments
    res = eng.run(3)
    assert np.allclose(res.output, rank, rtol=1e-12, atol=0)
    assert (eng._segments().order is not None) == bool(relabel)

    # a second run of the same engine reuses the copies of the degree column
    res = eng.run(3)
    assert np.allclose(res.output, rank, rtol=1e-12, atol=0)

    # vector field on the neighbour: the plain blocked layout
    vec = (np.arange(n)[:, None] + 1.0) * (np.arange(3)[None, :] + 1.0)
    want = np.zeros(n)
    np.add.at(want, g.dst, vec[g.src, 0] + 0.5 * vec[g.src, 2])
    res = gas.SyncEngine(g, _VecPull(), threads=2).run(1)
    assert np.allclose(res.vertex_data["out"], want, rtol=1e-12, atol=0)

    # same field on both ends: the plain blocked layout, still right
    x = np.arange(n, dtype=np.float64)
    want = np.zeros(n)
    np.add.at(want, g.dst, np.abs(x[g.src] - x[g.dst]))
    eng = gas.SyncEngine(g, _Diff(), threads=2)
    res = eng.run(1)
    assert np.allclose(res.vertex_data["y"], want, rtol=1e-12, atol=0)
    assert eng._segments().order is None
