"""The numpy paths for small inputs: the plain-file parser and the small builds.

Each is checked against an oracle written here in plain Python (``int()`` of the split fields,
numpy's stable argsort) and against the compiled kernel it stands in for, on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gas import _build
from gas.config import CONFIG
from gas.io import _parse
from gas.io._parse_small import PLAIN_MAX_BYTES, parse_plain
from gas.io._parse_threads import parse_edges_threaded

SEPS = [" ", "\t", ",", "  ", " ,\t"]


def _oracle(text: str, skip_rows: int) -> list[tuple[int, int]]:
    """Edges of a plain file as the grammar reads them: Python's own split and ``int()``."""
    out = []
    for ln in text.split("\n")[skip_rows:]:
        fields = ln.replace(",", " ").replace("\t", " ").split()
        if fields and fields[0][0] not in "#%":
            out.append((int(fields[0]), int(fields[1])))
    return out


def _kernel(buf: np.ndarray, skip_rows: int, mode: int) -> tuple:
    return _parse.parse_edges(buf, skip_rows, mode, 16)


def _edges(out: tuple) -> list[tuple[int, int]]:
    k = out[3]
    return list(zip(out[0][:k].tolist(), out[1][:k].tolist(), strict=True))


ids = st.integers(0, 10**18 - 1).map(str) | st.integers(0, 999).map(lambda x: f"00{x}")
plain_line = st.one_of(
    st.tuples(
        st.sampled_from(["", " ", "\t"]), ids, st.sampled_from(SEPS), ids, st.sampled_from(["", " ", ","])
    ).map("".join),
    st.sampled_from(["", "   ", "# comment 1 2", "% 3 x y", "  #x"]),
)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(plain_line, min_size=1, max_size=30), skip=st.integers(0, 3), end=st.booleans())
def test_plain_files_parse_as_python_and_the_kernel_do(lines, skip, end):
    text = "\n".join(lines) + ("\n" if end else "")
    expect = _oracle(text, skip)
    buf = np.frombuffer(text.encode(), np.uint8)
    for mode in (_parse.MODE_AUTO, _parse.MODE_UNWEIGHTED):
        got = parse_plain(buf, skip, mode)
        kern = _kernel(buf, skip, mode)
        if not expect:  # no edge: the kernel's "no edges" error path decides
            assert got is None
            continue
        assert got is not None, "a plain file must take the numpy path"
        assert _edges(got) == expect == _edges(kern)
        assert got[6] is False and got[7] is False and got[8] == 0  # no big id, unweighted, no error


# any line at all: weights, signs, trailing comments, '\r', one column, letters, long ids
odd_line = st.one_of(
    plain_line,
    st.sampled_from(
        [
            "1 2 0.5",
            "1 2 3",
            "+1 2",
            "-1 2",
            "1 2 #c",
            "1",
            "1 2\r",
            "\r",
            "x y",
            "1 2 x",
            "12345678901234567890 1",
            "1234567890123456789 1",
            "1\t\t2\t3\t4",
            "1 2%",
            "#\r5 6",
        ]
    ),
)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(odd_line, min_size=1, max_size=12), skip=st.integers(0, 2))
def test_any_file_the_numpy_path_takes_gives_the_kernels_answer(lines, skip):
    text = "\n".join(lines)
    buf = np.frombuffer(text.encode(), np.uint8)
    for mode in (_parse.MODE_AUTO, _parse.MODE_UNWEIGHTED, _parse.MODE_WEIGHTED):
        got = parse_plain(buf, skip, mode)
        if got is None:
            continue  # declined: the kernel parses it (and names the line of an error)
        kern = _kernel(buf, skip, mode)
        assert kern[8] == 0, "the numpy path answered a file the kernel refuses"
        assert _edges(got) == _edges(kern) and got[7] == kern[7] and got[6] == kern[6]


def test_large_files_weights_and_the_config_switch_take_the_kernel(monkeypatch):
    plain = np.frombuffer(b"1 2\n", np.uint8)
    assert parse_plain(plain, 0, _parse.MODE_AUTO) is not None
    monkeypatch.setitem(CONFIG, "numpy_small", 0)  # what `gas warmup` sets: compile the kernels
    assert parse_plain(plain, 0, _parse.MODE_AUTO) is None
    assert _build._numpy_max() == 0
    monkeypatch.setitem(CONFIG, "numpy_small", 1)
    big = np.frombuffer(b"1 2\n" * (PLAIN_MAX_BYTES // 4 + 1), np.uint8)
    assert parse_plain(big, 0, _parse.MODE_AUTO) is None
    w = np.frombuffer(b"1 2\n", np.uint8)
    assert parse_plain(w, 0, _parse.MODE_WEIGHTED) is None


def test_bundled_graph_takes_the_numpy_path_with_the_kernels_arrays():
    import gzip
    from pathlib import Path

    raw = gzip.decompress((Path(__file__).parents[1] / "datasets/data/ego-Facebook.txt.gz").read_bytes())
    buf = np.frombuffer(raw, np.uint8)
    got, kern = parse_plain(buf, 0, _parse.MODE_AUTO), _kernel(buf, 0, _parse.MODE_AUTO)
    assert got is not None and got[3] == kern[3] == 88_234  # SNAP's count for ego-Facebook
    np.testing.assert_array_equal(got[0][: got[3]], kern[0][: kern[3]])
    np.testing.assert_array_equal(got[1][: got[3]], kern[1][: kern[3]])


@pytest.mark.parametrize("n,m", [(1, 0), (1, 5), (7, 300), (300, 5000), (5000, 300)])
def test_small_builds_equal_the_kernels(n, m):
    # oracle: numpy's stable argsort and a bincount; the kernels must agree with the numpy paths
    rng = np.random.default_rng(n + m)
    keys = rng.integers(0, n, m)
    indptr, order = _build.counting_order(keys, n)
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
    np.testing.assert_array_equal(indptr, np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n))]))
    k_indptr, k_order = _build._counting_order(keys, n, 2)
    np.testing.assert_array_equal(k_indptr, indptr)
    np.testing.assert_array_equal(k_order, order)
    s, d = np.sort(keys), rng.integers(0, 3, m)
    np.testing.assert_array_equal(_build._first_of_runs(s), _build._mark_new(s))
    np.testing.assert_array_equal(_build._last_pairs(s, d), _build._last_of_runs(s, d))


# ---------------------------------------------------------------- several threads

any_line = st.one_of(
    odd_line,
    st.sampled_from(["1 2 1e400", "3 4 nan", "5 6 0.12345678901234567", "7 8 -inf", "1 2 x\r\n", "9\t9"]),
)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(any_line, min_size=1, max_size=40),
    skip=st.integers(0, 2),
    threads=st.integers(2, 5),
    ends=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_threads_give_the_one_thread_parse_errors_included(lines, skip, threads, ends):
    # oracle: the one-thread kernel on the whole file; every field of its answer must match
    # (edges, weights, fallback rows, error code, line and byte offsets)
    buf = np.frombuffer(ends.join(lines).encode(), np.uint8)
    for mode in (_parse.MODE_AUTO, _parse.MODE_UNWEIGHTED, _parse.MODE_WEIGHTED):
        one = _parse.parse_edges(buf, skip, mode, 16)
        many = parse_edges_threaded(buf, skip, mode, threads, min_bytes=0)
        k = one[3]
        assert many[3] == k
        for a, b in ((one[0], many[0]), (one[1], many[1])):
            np.testing.assert_array_equal(a[:k], b[:k])
        if one[7]:
            np.testing.assert_array_equal(one[2][:k], many[2][:k])
        np.testing.assert_array_equal(one[4][: one[5]], many[4][: many[5]])
        assert one[5:] == many[5:]
