"""One id convention: original ids in (``active=``, ``init=``, sources), arrays by internal id out.

Small graphs whose ids are not ``0..n-1`` (10, 20, ... and strings), so an internal id mistaken
for an original one (or the reverse) shows. References: networkx, or hand computation from the
edge list (named at each check).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.sssp import HopsProgram
from gas.errors import GasError, GraphError
from gas.options import Restore, RunOptions

# 10 -> 20 -> 30 -> 10 (a cycle), 30 -> 40, and 60 -> 50 apart: internal ids 0..5 in id order
SRC, DST = [10, 20, 30, 30, 60], [20, 30, 10, 40, 50]


def _graph() -> gas.Graph:
    return gas.Graph.from_edges(SRC, DST)


def _strings() -> gas.Graph:
    return gas.Graph.from_networkx(nx.DiGraph([("b", "c"), ("c", "a"), ("d", "e")]))


class SeededSum(gas.VertexProgram):
    """``total = base + sum over in-edges of nbr.base * e.x``, one superstep; ``init`` sets
    ``base = 1`` and leaves ``x`` at 0, so ``init=`` / ``init_edges=`` show in the total."""

    vertex_data = {"base": np.float64, "total": np.float64}
    edge_data = {"x": np.float64}
    gather_edges = gas.IN
    dynamic = False
    output = "total"

    def init(self, v, ctx):
        v.base = 1.0
        v.total = 0.0

    def gather(self, v, e, nbr):
        return nbr.base * e.x

    def apply(self, v, total, ctx):
        v.total = v.base + total


def _hand_total(g: gas.Graph, base: np.ndarray, x: np.ndarray) -> np.ndarray:
    """SeededSum's answer computed from the edge list by a plain loop (the reference)."""
    out = base.astype(np.float64).copy()
    for e in range(g.num_edges):
        out[g.dst[e]] += base[g.src[e]] * x[e]
    return out


# -- active= -------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sync", "async"])
def test_active_takes_original_ids(engine):
    g = _graph()
    src = g.index_of(20)
    res = gas.run(g, HopsProgram(src), active=[20], engine=engine, max_iter=20)
    # networkx's hop counts from 20 (oracle), by original id, put in internal order
    ref = nx.single_source_shortest_path_length(nx.DiGraph(list(zip(SRC, DST))), 20)
    assert res.output.tolist() == [float(ref.get(i, np.inf)) for i in g.ids.tolist()]
    # a boolean mask is by internal position: the same run
    mask = np.zeros(g.num_vertices, bool)
    mask[src] = True
    assert gas.run(g, HopsProgram(src), active=mask, engine=engine, max_iter=20).output.tolist() == (
        res.output.tolist()
    )
    # the internal id 1 is not an original id of this graph
    with pytest.raises(GraphError, match=r"active: Unknown vertex id 1\b.*original vertex ids"):
        gas.run(g, HopsProgram(src), active=[1], engine=engine)


def test_active_with_string_ids_and_sssp_source():
    s = _strings()
    res = gas.run(s, HopsProgram(s.index_of("b")), active=["b"], max_iter=10)
    # hand-computed: b -> c -> a; d, e unreachable
    want = {"a": 2.0, "b": 0.0, "c": 1.0, "d": np.inf, "e": np.inf}
    assert res.output.tolist() == [want[i] for i in s.ids.tolist()]
    # sssp routes its source as a mask: right on ids that are not 0..n-1
    g = _graph()
    assert gas.algorithms.sssp(g, source=30).tolist() == [1.0, 2.0, 0.0, 1.0, np.inf, np.inf]
    with pytest.raises(GraphError, match="Expected 'active' as a boolean mask"):
        gas.run(s, HopsProgram(0), active=[True, False])


def test_triangles_nodes_take_string_ids():
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    s = gas.Graph.from_networkx(G)
    ref = nx.triangles(G.to_undirected())  # oracle
    assert gas.algorithms.triangles(s, nodes="a") == ref["a"]
    assert gas.algorithms.triangles(s, nodes=["d", "c"]).tolist() == [ref["d"], ref["c"]]
    with pytest.raises(GasError, match="Node 'z' is not in the graph"):
        gas.algorithms.triangles(s, nodes="z")


# -- connected_components ------------------------------------------------------------------


@pytest.mark.parametrize("make", [_graph, _strings])
def test_components_are_internal_ids_and_ids_give_the_labels(make):
    g = make()
    labels = gas.algorithms.connected_components(g)
    assert labels.dtype == np.int64
    # networkx's weak components (oracle): each vertex labelled by its component's smallest
    # member in internal order (internal ids follow the order of the original ids)
    G = g.to_networkx()
    for comp in nx.weakly_connected_components(G):
        rows = np.asarray(g.index_of(np.array(sorted(comp, key=str), dtype=g.ids.dtype)))
        assert set(labels[rows].tolist()) == {int(rows.min())}
        assert set(g.ids[labels[rows]].tolist()) == {g.ids[rows.min()]}
    assert gas.algorithms.connected_components(gas.Graph.from_edges([], [])).dtype == np.int64


# -- init= and init_edges= ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sync", "async"])
def test_init_values_by_internal_array_and_by_original_id(engine):
    g = _graph()
    x = np.arange(1, g.num_edges + 1, dtype=np.float64)
    base = np.array([2.0, 3.0, 5.0, 7.0, 11.0, 13.0])
    res = gas.run(g, SeededSum(), engine=engine, max_iter=1, init={"base": base}, init_edges={"x": x})
    assert res.output.tolist() == _hand_total(g, base, x).tolist()
    # a dict by original id: only 30 and 60 change, the others keep init's 1.0
    res = gas.run(g, SeededSum(), engine=engine, max_iter=1, init={"base": {30: 4, 60: 0.5}})
    base = np.ones(6)
    base[[g.index_of(30), g.index_of(60)]] = [4.0, 0.5]
    assert res.output.tolist() == base.tolist()  # x stays 0: total = base
    assert res.vertex_data["base"].tolist() == base.tolist()


def test_init_from_pandas_series_and_frame_with_string_ids():
    pd = pytest.importorskip("pandas")
    s = _strings()
    ones = np.ones(s.num_edges)
    res = gas.run(s, SeededSum(), max_iter=1, init={"base": pd.Series([10.0], index=["b"])},
                  init_edges={"x": ones})  # fmt: skip
    base = np.where(s.ids == "b", 10.0, 1.0)
    assert res.output.tolist() == _hand_total(s, base, ones).tolist()  # c gets 1 + 10
    frame = pd.DataFrame({"base": [3.0, 5.0]}, index=["e", "a"])
    res = gas.run(s, SeededSum(), max_iter=1, init=frame)
    want = {"a": 5.0, "e": 3.0}  # the others keep init's 1.0
    assert res.vertex_data["base"].tolist() == [want.get(i, 1.0) for i in s.ids.tolist()]


def test_init_and_active_on_two_processes():
    # the one two-process case (spawning is slow); the worker imports SeededSum from this module.
    # Superstep 0 runs only the active vertices 20 and 30 (original ids); the others keep init's
    # total 0
    g = _graph()
    x = np.linspace(0.5, 2.5, g.num_edges)
    kw = dict(max_iter=1, init={"base": {20: 6.0}}, init_edges={"x": x}, active=[20, 30])
    res = gas.run(g, SeededSum(), procs=2, **kw)
    base = np.ones(6)
    base[g.index_of(20)] = 6.0
    want = np.where(np.isin(g.ids, [20, 30]), _hand_total(g, base, x), 0.0)
    assert np.allclose(res.output, want, rtol=0, atol=1e-12)
    assert res.vertex_data["base"].tolist() == base.tolist()
    assert np.array_equal(gas.run(g, SeededSum(), **kw).output, res.output)  # one process: the same


def test_init_errors_name_the_value_and_the_fix():
    g = _graph()
    with pytest.raises(
        GasError, match=r"init field 'rank' is not one of SeededSum's vertex fields: \['base', "
    ):
        gas.run(g, SeededSum(), init={"rank": np.zeros(6)})
    with pytest.raises(GasError, match=r"expected an array of shape \(6,\).*got shape \(3,\)"):
        gas.run(g, SeededSum(), init={"base": np.zeros(3)})
    with pytest.raises(GraphError, match=r"init\['base'\]: Unknown vertex id 5\b"):
        gas.run(g, SeededSum(), init={"base": {5: 1.0}})
    with pytest.raises(GasError, match=r"holds float64 values.*int64.*astype"):
        gas.run(g, ComponentsProgram(), init={"label": np.zeros(6)})
    with pytest.raises(GasError, match="holds <U1 values"):
        gas.run(g, SeededSum(), init={"base": {10: "x"}})
    with pytest.raises(
        GasError, match=r"init_edges field 'y' is not one of SeededSum's edge fields: \['x'\]"
    ):
        gas.run(g, SeededSum(), init_edges={"y": np.zeros(5)})
    with pytest.raises(GasError, match=r"init_edges\['x'\]: expected an array by edge id"):
        gas.run(g, SeededSum(), init_edges={"x": {10: 1.0}})
    with pytest.raises(GasError, match="Expected init to be a dict"):
        gas.run(g, SeededSum(), init=[1.0] * 6)
    restore = Restore(0, {"base": np.ones(6), "total": np.zeros(6)}, init=True)
    # refused before any process starts
    with pytest.raises(GasError, match=r"init= and a state to restore \(options.restore, initial=\)"):
        gas.run(g, SeededSum(), init={"base": np.ones(6)}, options=RunOptions(restore=restore))


@pytest.mark.usefixtures("cuda_sim")
def test_init_on_the_cuda_engine():
    # the CUDA engine has its own init: the inputs are written between it and the first superstep
    g = _graph()
    x = np.arange(1, g.num_edges + 1, dtype=np.float64)
    res = gas.run(g, SeededSum(), engine="cuda", max_iter=1, init={"base": {30: 4.0}}, init_edges={"x": x})
    base = np.ones(6)
    base[g.index_of(30)] = 4.0
    assert res.output.tolist() == _hand_total(g, base, x).tolist()
