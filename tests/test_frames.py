"""Embedding in pandas/networkx pipelines: from_pandas with any column names and labels, the
networkx attribute round trip, ``g.frame``, ``g.to_networkx(**results)`` and CSV/Parquet output.

Oracles: networkx's own PageRank on the same labelled graph, the graph built from the integer
ids of the same file, and hand-written expected frames and files.
"""

from __future__ import annotations

import argparse
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from gas.algorithms.pagerank import pagerank
from gas.cli.common import write_output
from gas.datasets import bundled
from gas.errors import GasError, GraphError
from gas.graph import Graph
from gas.io.load import load


def test_snap_pipeline_with_string_ids():
    # ego-Facebook read by pandas with SNAP's column names, ids turned into strings, loaded
    # undirected: the same graph (relabelled) as gas.load(..., undirected=True) of the file
    path = bundled("ego-Facebook")
    df = pd.read_csv(path, sep=" ", names=["FromNodeId", "ToNodeId"], comment="#")
    df = df.astype(str).radd("u")
    g = Graph.from_pandas(df, source="FromNodeId", target="ToNodeId", directed=False)
    ref = load(path, undirected=True)
    assert g.num_vertices == ref.num_vertices == 4039 and g.num_edges == ref.num_edges == 176468
    assert g.ids.dtype == object and g.ids.tolist() == sorted(f"u{i}" for i in ref.ids.tolist())
    ranks = pagerank(g, tol=1e-10)
    out = g.frame(pagerank=ranks).sort_values("pagerank", ascending=False)
    assert out.index.name == "id"
    ref_ranks = pagerank(ref, tol=1e-10)
    ref_top = ["u" + str(x) for x in ref.ids[np.argsort(-ref_ranks, kind="stable")[:5]].tolist()]
    assert out.index[:5].tolist() == ref_top
    # independent oracle: networkx's PageRank of the labelled undirected graph
    G = nx.from_pandas_edgelist(df, "FromNodeId", "ToNodeId")
    nx_ranks = nx.pagerank(G, tol=1e-10)
    assert max(abs(out.loc[k, "pagerank"] - v) for k, v in nx_ranks.items()) < 1e-6
    assert g.index_of("u107") == g.ids.tolist().index("u107")


def test_from_pandas_errors_name_the_users_column():
    df = pd.DataFrame({"FromNodeId": [1.5, 2.0], "ToNodeId": [2, 3]})
    with pytest.raises(GraphError, match="column 'FromNodeId'"):
        Graph.from_pandas(df, "FromNodeId", "ToNodeId")
    with pytest.raises(GraphError, match="column named 'source'"):
        Graph.from_pandas(df)
    df = pd.DataFrame({"FromNodeId": ["a", None], "ToNodeId": ["b", "c"]})
    with pytest.raises(GraphError, match="column 'FromNodeId'.*missing value at position 1"):
        Graph.from_pandas(df, "FromNodeId", "ToNodeId")
    df = pd.DataFrame({"s": [1, 2], "t": [2, 3], "w": ["x", "y"]})
    with pytest.raises(GraphError, match="column 'w'"):
        Graph.from_pandas(df, "s", "t", weight="w")


def test_from_pandas_categoricals_and_negative_ints():
    df = pd.DataFrame({"a": pd.Categorical(["x", "y", "x"]), "b": pd.Categorical(["y", "z", "y"])})
    g = Graph.from_pandas(df, "a", "b")
    assert g.ids.tolist() == ["x", "y", "z"] and g.num_edges == 2 and g.num_duplicates == 1
    df = pd.DataFrame({"a": [-3, 1], "b": [1, 5], "w": [0.5, 2.0]})
    g = Graph.from_pandas(df, "a", "b", weight="w")
    assert g.ids.tolist() == [-3, 1, 5] and g.index_of(-3) == 0
    assert sorted(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist(), g.weights.tolist(), strict=True)) == [
        (-3, 1, 0.5),
        (1, 5, 2.0),
    ]


def test_networkx_attribute_round_trip():
    G = nx.DiGraph()
    G.add_edge("a", "b", cap=2.5, hops=1)
    G.add_edge("b", "c", cap=1.0, hops=4)
    G.add_node("z")
    for k, (age, score) in zip("abcz", [(31, 0.5), (20, 1.5), (44, 2.5), (7, 3.5)], strict=True):
        G.nodes[k].update(age=age, score=score)
    g = Graph.from_networkx(G, node_attrs=["age", "score"], edge_attrs=["cap", "hops"])
    assert g.vdata["age"].dtype.kind == "i" and g.vdata["score"].dtype == np.float64
    assert g.edata["hops"].dtype.kind == "i" and g.edata["cap"].dtype == np.float64
    H = g.to_networkx()
    assert dict(H.nodes(data=True)) == dict(G.nodes(data=True))
    assert sorted(H.edges(data=True)) == sorted(G.edges(data=True))
    # the vertex columns survive symmetrizing, and a missing attribute is an error or the default
    assert g.symmetrized().vdata["age"].tolist() == [31, 20, 44, 7]
    G.add_edge("c", "z")
    with pytest.raises(GraphError, match=r"edge attribute 'cap'.*'c' -> 'z'.*default="):
        Graph.from_networkx(G, edge_attrs=["cap"])
    G.add_node("new")
    with pytest.raises(GraphError, match=r"node attribute 'age'.*'new'"):
        Graph.from_networkx(G, node_attrs=["age"])
    g = Graph.from_networkx(G, node_attrs=["age"], edge_attrs=["cap"], default=-1)
    assert g.vdata["age"].tolist() == [31, 20, 44, 7, -1]  # G.nodes order: a, b, c, z, new
    assert g.vdata["age"][g.index_of("new")] == -1


def test_frame_and_to_networkx_results():
    g = Graph.from_edges([10, 20, 20], [20, 30, 10])
    ranks = np.array([0.2, 0.3, 0.5])
    f = g.frame(rank=ranks, label=np.array([1, 1, 2]), vec=np.arange(6.0).reshape(3, 2))
    expect = pd.DataFrame(
        {"rank": ranks, "label": [1, 1, 2], "vec_0": [0.0, 2.0, 4.0], "vec_1": [1.0, 3.0, 5.0]},
        index=pd.Index([10, 20, 30], name="id"),
    )
    pd.testing.assert_frame_equal(f, expect)
    with pytest.raises(GasError, match=r"'rank' to hold one value per vertex \(3\) \(got 2\)"):
        g.frame(rank=ranks[:2])
    H = g.to_networkx(rank=ranks)
    assert dict(H.nodes(data="rank")) == {10: 0.2, 20: 0.3, 30: 0.5}
    assert sorted(H.edges()) == [(10, 20), (20, 10), (20, 30)]


def test_frame_without_pandas_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    g = Graph.from_edges([0], [1])
    with pytest.raises(GasError, match="pip install pandas"):
        g.frame(x=np.zeros(2))


def _out(path):
    return argparse.Namespace(output=str(path), quiet=True)


def test_write_output_by_extension(tmp_path, monkeypatch):
    g = Graph.from_edges([10, 20], [20, 30])
    vals = np.array([0.25, 0.5, 0.125])
    write_output(_out(tmp_path / "r.tsv"), g, vals, "%.17g")
    assert (tmp_path / "r.tsv").read_text() == "10\t0.25\n20\t0.5\n30\t0.125\n"
    write_output(_out(tmp_path / "r.csv"), g, vals, "%.17g")
    assert (tmp_path / "r.csv").read_text() == "id,value\n10,0.25\n20,0.5\n30,0.125\n"
    back = pd.read_csv(tmp_path / "r.csv")
    assert back["id"].tolist() == [10, 20, 30] and back["value"].tolist() == vals.tolist()
    with monkeypatch.context() as m:  # without pyarrow: a clear message, the old file kept
        m.setitem(sys.modules, "pyarrow", None)
        (tmp_path / "old.parquet").write_bytes(b"old")
        with pytest.raises(GasError, match=r"pip install 'gaslab\[parquet\]'"):
            write_output(_out(tmp_path / "old.parquet"), g, vals, "%.17g")
        assert (tmp_path / "old.parquet").read_bytes() == b"old"
    pytest.importorskip("pyarrow")
    write_output(_out(tmp_path / "r.parquet"), g, vals, "%.17g")
    t = pd.read_parquet(tmp_path / "r.parquet")
    assert t["id"].tolist() == [10, 20, 30] and t["value"].tolist() == vals.tolist()


def test_write_output_string_ids_csv(tmp_path):
    g = Graph.from_pandas(pd.DataFrame({"s": ["a,b", "c"], "t": ["c", "d"]}), "s", "t")
    write_output(_out(tmp_path / "r.csv"), g, np.array([1, 2, 3]), "%d")
    assert (tmp_path / "r.csv").read_text() == 'id,value\n"a,b",1\nc,2\nd,3\n'
