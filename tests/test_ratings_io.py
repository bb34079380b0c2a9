"""Ratings loaders: formats, separate user/item id spaces, the bipartite graph, bad input.

References are plain-Python parses (str.split) of the same text, or the counts in
../shared/datasets/README.md for the real files.
"""

from __future__ import annotations

import gzip
import os
import tempfile
import zipfile

import numpy as np
import pytest
from conftest import shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from gas.errors import InputError
from gas.io.ratings import Ratings, read_pairs, read_ratings


def _python_parse(text: str) -> list[tuple[str, str, float]]:
    """Independent reader: split each data line on whitespace, commas or '::'."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#%":
            continue
        parts = line.replace("::", " ").replace(",", " ").split()
        rows.append((parts[0], parts[1], float(parts[2])))
    return rows


def _as_triples(r: Ratings) -> list[tuple[str, str, float]]:
    u, i, x = r.original()
    return [(str(a), str(b), float(c)) for a, b, c in zip(u.tolist(), i.tolist(), x.tolist())]


UDATA = "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n196\t377\t4.5\t1\n"
CSV = "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,4.0,964981247\n5,1,2.5,1\n"
DAT = "1::1193::5::978300760\n1::661::3::978302109\n2::1193::4::978298413\n"
FILMTRUST = "1,1,2\n1,2,4\n5,1,3.5"  # no final newline, as the shared copy


@pytest.mark.parametrize(
    "name, text, header_lines",
    [("u.data", UDATA, 0), ("ratings.csv", CSV, 1), ("ratings.dat", DAT, 0), ("ratings.txt", FILMTRUST, 0)],
)
def test_formats_match_a_python_parse(tmp_path, name, text, header_lines):
    p = tmp_path / name
    p.write_text(text)
    r = read_ratings(p)
    body = "\n".join(text.splitlines()[header_lines:])
    assert _as_triples(r) == _python_parse(body)
    assert r.user_ids.dtype == np.int64 and r.item_ids.dtype == np.int64


@pytest.mark.parametrize("kind", ["gz", "zip-one", "zip-movielens"])
def test_compressed(tmp_path, kind):
    if kind == "gz":
        p = tmp_path / "ratings.csv.gz"
        with gzip.open(p, "wt") as f:
            f.write(CSV)
    else:
        p = tmp_path / "ml.zip"
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("ml-latest-small/ratings.csv", CSV)
            if kind == "zip-movielens":
                z.writestr("ml-latest-small/movies.csv", "movieId,title\n1,Toy Story\n")
                z.writestr("ml-latest-small/README.txt", "readme")
    assert _as_triples(read_ratings(p)) == _python_parse("\n".join(CSV.splitlines()[1:]))


def test_zip_without_a_ratings_member_names_the_members(tmp_path):
    p = tmp_path / "x.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("a.csv", "1,2,3\n")
        z.writestr("b.csv", "1,2,3\n")
    with pytest.raises(InputError, match="a.csv"):
        read_ratings(p)
    assert len(read_ratings(p, member="b.csv")) == 1


def test_user_and_item_id_spaces_are_separate(tmp_path):
    # user 5 and item 5 are different vertices; users come first in the graph
    p = tmp_path / "r.txt"
    p.write_text("5 5 1.0\n5 7 2.0\n7 5 3.0\n")
    r = read_ratings(p)
    assert r.user_ids.tolist() == [5, 7] and r.item_ids.tolist() == [5, 7]
    g = r.graph()
    assert g.num_vertices == 4 and g.num_edges == 3
    # hand-computed: users 5,7 -> vertices 0,1; items 5,7 -> vertices 2,3
    edges = sorted(zip(g.src.tolist(), g.dst.tolist(), g.weights.tolist()))
    assert edges == [(0, 2, 1.0), (0, 3, 2.0), (1, 2, 3.0)]
    assert g.in_degree[:2].tolist() == [0, 0] and g.out_degree[2:].tolist() == [0, 0]


def test_string_ids_fall_back_and_keep_text(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("user,item,rating\nA3F,0439,4\nB1,0439,5\nA3F,x-7,1.5\n-3,0439,2\n")
    r = read_ratings(p)
    assert sorted(r.user_ids.tolist()) == ["-3", "A3F", "B1"]
    assert _as_triples(r) == [
        ("A3F", "0439", 4.0),
        ("B1", "0439", 5.0),
        ("A3F", "x-7", 1.5),
        ("-3", "0439", 2.0),
    ]


def test_duplicates_keep_the_last_rating_in_the_graph(tmp_path):
    p = tmp_path / "r.txt"
    p.write_text("1 2 3\n1 2 5\n")
    g = read_ratings(p).graph()
    assert g.num_edges == 1 and g.weights.tolist() == [5.0] and g.num_duplicates == 1


@pytest.mark.parametrize(
    "text, line, needle",
    [
        ("1 2 3\n1 3 nan\n", 2, "'nan' is not finite"),
        ("1 2 3\n1 3 inf\n", 2, "'inf' is not finite"),
        ("1 2 3\n\n1 3 -1e999\n", 3, "not finite"),
        ("1 2 3\n1 3 abc\n", 2, "'abc' is not a number"),
        ("1 2 3\n1 3\n", 2, "expected 3 columns"),
        ("u1 i1 4\nu2 i2 five\n", 2, "'five' is not a number"),
        ("u1 i1 4\nu2 i2 nan\n", 2, "not finite"),
        ("1 2 3\n1.5 3 2\n", 2, "whole-number id"),
    ],
)
def test_bad_values_name_file_line_and_value(tmp_path, text, line, needle):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(InputError) as info:
        read_ratings(p)
    msg = str(info.value)
    assert needle in msg
    assert f"{p}:{line}:" in msg
    assert info.value.line == line and info.value.path == str(p)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "userId,movieId,rating\n"])
def test_empty_files(tmp_path, text):
    p = tmp_path / "empty.csv"
    p.write_text(text)
    with pytest.raises(InputError, match="no ratings found"):
        read_ratings(p)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_ratings(tmp_path / "nope.txt")


def test_from_arrays_rejects_nan():
    with pytest.raises(InputError, match="finite"):
        Ratings.from_arrays([1, 2], [1, 1], [1.0, np.nan])


def test_split_partitions_the_rows():
    rng = np.random.default_rng(3)
    u, i = rng.integers(0, 30, 500), rng.integers(0, 40, 500)
    x = rng.random(500)
    r = Ratings.from_arrays(u, i, x)
    train, test = r.split(0.2, seed=0)
    assert len(test) == 100 and len(train) == 400
    both = sorted(_as_triples(train) + _as_triples(test))
    assert both == sorted(_as_triples(r))
    again_train, _ = r.split(0.2, seed=0)
    assert _as_triples(again_train) == _as_triples(train)


def test_read_pairs(tmp_path):
    p = tmp_path / "pairs.csv"
    p.write_text("userId,movieId\n1,31,extra\n7,5\n")
    users, items = read_pairs(p)
    assert users.tolist() == [1, 7] and items.tolist() == [31, 5]
    p.write_text("u1 i1\nu2 i2 4.0\n")
    users, items = read_pairs(p)
    assert users.tolist() == ["u1", "u2"] and items.tolist() == ["i1", "i2"]
    p.write_text("5\n")
    with pytest.raises(InputError, match="2 columns"):
        read_pairs(p)


def test_shared_movielens_and_filmtrust_counts():
    # counts from ../shared/datasets/README.md (parsed independently by its authors)
    ml = read_ratings(shared_path("ml-latest-small/ml-latest-small.zip"))
    assert (ml.num_users, ml.num_items, len(ml)) == (610, 9724, 100836)
    assert ml.rating.min() == 0.5 and ml.rating.max() == 5.0
    ft = read_ratings(shared_path("filmtrust/ratings.txt"))
    assert (ft.num_users, ft.num_items, len(ft)) == (1508, 2071, 35497)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 2**63 - 1),
            st.integers(0, 2**63 - 1),
            st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=40,
    ),
    sep=st.sampled_from(["\t", ",", " ", "::"]),
    header=st.booleans(),
    timestamp=st.booleans(),
)
def test_any_separator_header_and_timestamp_round_trip(rows, sep, header, timestamp):
    # reference: the rows themselves, written out with Python's repr of each float
    lines = [f"userId{sep}movieId{sep}rating\n"] if header else []
    lines += [f"{u}{sep}{i}{sep}{x!r}" + (f"{sep}1260759144" if timestamp else "") + "\n" for u, i, x in rows]
    with tempfile.TemporaryDirectory() as folder:
        p = os.path.join(folder, "r.txt")
        with open(p, "w") as f:
            f.write("".join(lines))
        r = read_ratings(p)
    u, i, x = r.original()
    assert list(zip(u.tolist(), i.tolist(), x.tolist())) == [(a, b, float(c)) for a, b, c in rows]
