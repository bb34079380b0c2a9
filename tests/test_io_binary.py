"""Binary ``.npz`` graph format: round trip, atomic output, rejection of corrupt/foreign files.

Oracle: the graph that was saved (its arrays are compared one by one) and, for the CSC arrays
rebuilt on load, the ones :class:`gas.Graph` built when the graph was first made.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np
import pytest

import gas
from gas.io import load, load_npz, save
from gas.io.binary import FORMAT_VERSION

ARRAYS = ("out_indptr", "src", "dst", "in_indptr", "in_src", "in_eid", "ids")


def assert_same_graph(a: gas.Graph, b: gas.Graph) -> None:
    assert (a.num_vertices, a.num_edges, a.num_duplicates) == (
        b.num_vertices,
        b.num_edges,
        b.num_duplicates,
    )
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert np.array_equal(x, y), name
    assert a.edata.keys() == b.edata.keys()
    for k in a.edata:
        assert a.edata[k].dtype == b.edata[k].dtype
        assert np.array_equal(a.edata[k], b.edata[k]), k


GRAPHS = {
    "weighted_ids": lambda: gas.Graph.from_edges(
        [10, 20, 20, 10], [20, 30, 30, 30], weights=[0.5, -1.0, 2.0, np.inf]
    ),
    "isolated": lambda: gas.Graph.from_edges([0, 3], [3, 3], num_vertices=6),
    "empty": lambda: gas.Graph.from_edges([], [], num_vertices=0),
    "huge_ids": lambda: gas.Graph.from_edges(
        np.array([2**64 - 1, 5], dtype=np.uint64), np.array([5, 2**63], dtype=np.uint64)
    ),
    "edge_columns": lambda: gas.Graph.from_edges(
        [0, 1, 2],
        [1, 2, 0],
        edge_data={"t": np.array([3, 1, 2], np.int32), "xy": np.arange(6.0).reshape(3, 2)},
        dedupe=False,
    ),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("compress", [False, True])
def test_round_trip(tmp_path, name, compress):
    g = GRAPHS[name]()
    p = tmp_path / "g.npz"
    save(g, p, compress=compress)
    assert_same_graph(g, load_npz(p))
    assert_same_graph(g, load(p))
    assert sorted(os.listdir(tmp_path)) == ["g.npz"]  # no temporary file left behind


def test_name_is_kept_exactly(tmp_path):
    g = GRAPHS["weighted_ids"]()
    p = tmp_path / "graph.bin"
    save(g, str(p))
    assert sorted(os.listdir(tmp_path)) == ["graph.bin"]  # np.savez would append ".npz"
    assert_same_graph(g, load_npz(p))
    assert_same_graph(g, load(p))  # recognised by content, not by name


def test_overwrite_is_atomic_on_failure(tmp_path):
    p = tmp_path / "g.npz"
    save(GRAPHS["isolated"](), p)
    before = p.read_bytes()
    ids = np.empty(3, dtype=object)
    ids[:] = ["a", "b", "c"]
    bad = gas.Graph.from_edges([0, 1], [1, 2], num_vertices=3)
    bad.ids = ids
    with pytest.raises(gas.GraphError, match="dtype object"):
        save(bad, p)
    assert p.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["g.npz"]


def test_object_edge_column_rejected(tmp_path):
    g = gas.Graph.from_edges([0], [1])
    g.edata["label"] = np.array([{"x": 1}], dtype=object)
    with pytest.raises(gas.GraphError, match="'label'"):
        save(g, tmp_path / "g.npz")
    assert os.listdir(tmp_path) == []


def _rewrite(original, target, changes):
    """Copy an .npz written by save() with some arrays replaced or (value None) removed."""
    with np.load(original) as z:
        data = {k: z[k] for k in z.files}
    for k, v in changes.items():
        if v is None:
            data.pop(k)
        else:
            data[k] = v
    np.savez(target, **data)


@pytest.mark.parametrize(
    "changes,fragment",
    [
        ({"format": np.array("something-else")}, "format marker"),
        ({"version": None}, "missing format version"),
        ({"src": None}, "'src' is missing"),
        ({"src": np.array([0, 0, 1, 1], np.int32)}, "1-D int64"),
        ({"dst": np.array([1, 2, 9, 0])}, "outside"),
        ({"out_indptr": np.array([0, 3, 2, 4])}, "inconsistent"),
        ({"src": np.array([0, 1, 0, 1])}, "does not match"),
        ({"ids": np.array([1.0, 2.0, 3.0])}, "'ids'"),
        ({"ids": np.array([1, 2])}, "2 ids for 3 vertices"),
        ({"edata/weight": np.array([1.0])}, "edge column 'weight'"),
    ],
)
def test_corrupt_arrays_rejected(tmp_path, changes, fragment):
    good = tmp_path / "good.npz"
    save(gas.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0], weights=[1.0, 2.0, 3.0, 4.0]), good)
    bad = tmp_path / "bad.npz"
    _rewrite(good, bad, changes)
    with pytest.raises(gas.InputError, match=fragment) as e:
        load_npz(bad)
    assert str(bad) in str(e.value)


def test_newer_version_rejected(tmp_path):
    good = tmp_path / "good.npz"
    save(gas.Graph.from_edges([0], [1]), good)
    bad = tmp_path / "v2.npz"
    _rewrite(good, bad, {"version": np.array(FORMAT_VERSION + 1)})
    with pytest.raises(gas.InputError, match=f"unsupported binary format version {FORMAT_VERSION + 1}"):
        load_npz(bad)


@pytest.mark.parametrize(
    "content",
    [b"", b"not a zip at all\n", b"PK\x03\x04garbage-after-a-zip-signature"],
)
def test_foreign_or_truncated_file(tmp_path, content):
    p = tmp_path / "x.npz"
    p.write_bytes(content)
    with pytest.raises(gas.InputError, match="not a gaslab binary graph") as e:
        load_npz(p)
    assert str(p) in str(e.value)


def test_truncated_real_file(tmp_path):
    p = tmp_path / "g.npz"
    save(gas.Graph.from_edges(np.arange(1000), np.arange(1, 1001)), p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(gas.InputError, match="not a gaslab binary graph"):
        load_npz(p)


def test_pickled_member_refused(tmp_path):
    p = tmp_path / "pickle.npz"
    ids = np.empty(2, dtype=object)
    ids[:] = ["a", "b"]
    np.savez(p, format=np.array("gaslab-graph"), version=np.array(1), ids=ids)
    with pytest.raises(gas.InputError, match="not a gaslab binary graph"):
        load_npz(p)


def test_plain_zip_is_not_a_graph(tmp_path):
    p = tmp_path / "a.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("readme.txt", "hello")
    with pytest.raises(gas.InputError, match="format marker"):
        load_npz(p)


def test_missing_file(tmp_path):
    with pytest.raises(gas.InputError, match="file not found"):
        load_npz(tmp_path / "missing.npz")
