"""Edge lists with text labels: ``gas.load(path, labels=True)`` and the command line's ``--labels``.

Expected values come from an oracle written here in plain Python (the lines split on the
separators, the labels sorted with ``sorted``) and from ``Graph.from_pandas`` on the same edges.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gas
from gas.io.labels import read_labelled_edgelist


def _oracle(lines: list[str]) -> tuple[list[tuple[str, str]], list[float] | None]:
    edges, weights = [], []
    for ln in lines:
        fields = [f for f in re.split(r"[ \t,]+", ln) if f]  # the grammar's separators only
        if not fields or fields[0][0] in "#%":
            continue
        edges.append((fields[0], fields[1]))
        if len(fields) > 2 and fields[2][0] not in "#%":
            weights.append(float(fields[2]))
    return edges, weights


# labels: any text without separators, line ends or a leading comment mark
label = st.text(
    st.characters(blacklist_characters=" \t,\r\n", blacklist_categories=("Cs",)), min_size=1, max_size=6
).filter(lambda s: s[0] not in "#%")
weight = st.sampled_from(["1", "0.5", "2e3", "7.25", "1e400"])


@settings(max_examples=120, deadline=None)
@given(
    rows=st.lists(st.tuples(label, label, weight), min_size=1, max_size=25),
    weighted=st.booleans(),
    end=st.sampled_from(["\n", "\r\n", "\r"]),
    comment=st.booleans(),
)
def test_labels_read_as_python_splits_them(tmp_path_factory, rows, weighted, end, comment):
    lines = [f"{a}\t{b}\t{w}" if weighted else f"{a} {b}" for a, b, w in rows]
    if comment:
        lines.insert(len(lines) // 2, "# a comment, 1 2")
    p = tmp_path_factory.mktemp("lab") / "g.txt"
    p.write_bytes(end.join(lines).encode("utf-8"))
    edges, weights = _oracle(lines)
    src, dst, w, labels = read_labelled_edgelist(p)
    assert labels.tolist() == sorted({x for e in edges for x in e})
    assert list(zip(labels[src].tolist(), labels[dst].tolist(), strict=True)) == edges
    assert (w is None) if not weighted else w.tolist() == weights


def test_load_with_labels_equals_from_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    rows = [("carol", "alice", 2.0), ("alice", "bob", 0.5), ("bob", "carol", 1.0), ("alice", "bob", 3.0)]
    p = tmp_path / "g.tsv"
    p.write_text("".join(f"{a}\t{b}\t{w}\n" for a, b, w in rows))
    g = gas.load(p, labels=True, undirected=True)
    ref = gas.Graph.from_pandas(
        pd.DataFrame(rows, columns=["s", "t", "w"]), "s", "t", weight="w", directed=False
    )
    assert g.ids.tolist() == ref.ids.tolist() == ["alice", "bob", "carol"]
    for name in ("src", "dst", "weights"):
        np.testing.assert_array_equal(getattr(g, name), getattr(ref, name))


def test_numbers_are_labels_too(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("7 007\n007 10\n")
    g = gas.load(p, labels=True)
    assert g.ids.tolist() == ["007", "10", "7"]  # text order; "7" and "007" are two vertices
    assert [(g.ids[s], g.ids[d]) for s, d in zip(g.src, g.dst, strict=True)] == [("007", "10"), ("7", "007")]


@pytest.mark.parametrize(
    "content, kwargs, message",
    [
        ("alice\n", {}, r":1: expected at least 2 columns"),
        ("a b 1\nc d\n", {}, r":2: expected a third column"),
        ("a b\nc d 3\n", {}, r":2: found a third column"),
        ("a b x\n", {}, r":1: expected a number as the weight, found 'x'"),
        ("a b -1\n", {"check_weights": "nonnegative"}, r":1: expected an edge weight >= 0"),
        ("# only a comment\n", {}, "no edges found"),
        ("a b\n", {"num_vertices": 3}, "num_vertices does not apply to labels"),
    ],
)
def test_bad_labelled_files_name_the_line(tmp_path, content, kwargs, message):
    p = tmp_path / "g.txt"
    p.write_text(content)
    with pytest.raises(gas.InputError, match=message):
        gas.load(p, labels=True, **kwargs)


def test_a_label_that_is_not_utf8_names_its_line(tmp_path):
    p = tmp_path / "g.txt"
    p.write_bytes(b"a b\nc \xff\xfe\n")
    with pytest.raises(gas.InputError, match=r":2: a vertex label is not valid UTF-8"):
        gas.load(p, labels=True)


def test_cli_labels_and_the_hint_that_names_the_flag(tmp_path):
    p = tmp_path / "people.tsv"
    p.write_text("alice\tbob\nbob\tcarol\ncarol\talice\ndave\talice\n")
    out = tmp_path / "cc.tsv"
    run = [sys.executable, "-m", "gas.cli"]
    cmd = [*run, "cc", str(p), "--labels", "-q", "-o", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text().splitlines()[-4:] == ["alice\talice", "bob\talice", "carol\talice", "dave\talice"]
    bad = subprocess.run([*run, "cc", str(p), "-q"], capture_output=True, text=True)
    assert bad.returncode == 2 and "pass --labels" in bad.stderr and "Traceback" not in bad.stderr


def test_long_labels_sharing_their_first_16_bytes_stay_apart(tmp_path):
    # labels of 16 bytes are compared in the hash table's row, longer ones byte by byte in the file
    shared = "a-long-shared-prefix/"
    names = ["x" * 16, "x" * 17, shared + "1", shared + "2", shared + "10"]
    rows = [(names[i], names[(i * 3 + 1) % len(names)]) for i in range(len(names))] * 3
    p = tmp_path / "g.txt"
    p.write_text("".join(f"{a} {b}\n" for a, b in rows))
    src, dst, _, labels = read_labelled_edgelist(p)
    assert labels.tolist() == sorted(names)
    assert list(zip(labels[src].tolist(), labels[dst].tolist(), strict=True)) == rows
