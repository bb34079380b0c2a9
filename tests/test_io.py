"""Text edge-list reading: formats, weights, huge ids, exact floats, errors, real SNAP files.

Oracle throughout: a pure-Python reading of the same text (``str.splitlines`` +
``re.split`` on spaces/tabs/commas + Python's ``int()``/``float()``), written independently of
the Numba parser.
"""

from __future__ import annotations

import bz2
import gzip
import random
import re
import zipfile

import numpy as np
import pytest
from conftest import shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

import gas
from gas.io import _parse_small, _parse_threads, load, read_edgelist

_SEP = re.compile(r"[ \t,]+")


def oracle(text: str, weighted: bool) -> tuple[list[int], list[int], list[float]]:
    """Independent reference reader (pure Python)."""
    src, dst, w = [], [], []
    for raw in text.splitlines():
        fields = [f for f in _SEP.split(raw.strip(" \t,")) if f]
        if not fields or fields[0][0] in "#%":
            continue
        src.append(int(fields[0]))
        dst.append(int(fields[1]))
        if weighted:
            w.append(float(fields[2]))
    return src, dst, w


def write(tmp_path, content: bytes | str, name: str = "g.txt"):
    p = tmp_path / name
    p.write_bytes(content.encode() if isinstance(content, str) else content)
    return p


FORMATS = {
    "lf": "1 2\n3 4\n",
    "crlf": "# Nodes: 3\r\n1\t2\r\n3\t4\r\n",
    "cr_only": "1 2\r3 4\r",
    "no_final_newline": "# c\n1\t2\n3\t4",
    "crlf_no_final_newline": "1\t2\r\n3\t4",
    "commas": "1,2\n3,4\n",
    "mixed_runs": "  1 \t, 2  \n\t3,,,4\t\n",
    "comments_blank": "% matrix market style\n\n#x\n   \n1 2\n  # indented\n3 4\n\n",
    "trailing_comment": "1 2 # first\n3 4\t% second\n",
    "plus_sign": "+1 2\n3 +4\n",
    "leading_zeros": "0000000000000000000000001 02\n3 4\n",
    "one_line": "7 7",
}


@pytest.fixture
def kernel_only(monkeypatch):
    """Small plain files take the kernel too (they take numpy's path by default)."""
    monkeypatch.setattr(_parse_small, "PLAIN_MAX_BYTES", 0)


@pytest.mark.parametrize("path", ["default", "kernel", "threads"])
@pytest.mark.parametrize("name", sorted(FORMATS))
def test_formats_match_oracle(tmp_path, name, path, monkeypatch):
    if path != "default":  # the kernel: on one thread, or on a piece of the file per thread
        monkeypatch.setattr(_parse_small, "PLAIN_MAX_BYTES", 0)
        monkeypatch.setattr(_parse_threads, "THREADED_MIN_BYTES", 0 if path == "threads" else 1 << 60)
    text = FORMATS[name]
    src, dst, w = read_edgelist(write(tmp_path, text))
    ref_s, ref_d, _ = oracle(text, weighted=False)
    assert w is None
    assert src.dtype == np.int64 and dst.dtype == np.int64
    assert src.tolist() == ref_s and dst.tolist() == ref_d


def test_short_lines_grow_arrays_and_large_file_is_mapped(tmp_path, kernel_only):
    # 4-byte lines overflow the initial capacity (bytes / 12) several times; > 1 MB is mmapped
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 10, size=(400_000, 2))
    text = "".join(f"{a} {b}\n" for a, b in ids.tolist())
    src, dst, _ = read_edgelist(write(tmp_path, text))
    assert src.tolist() == ids[:, 0].tolist() and dst.tolist() == ids[:, 1].tolist()


def test_utf8_bom_is_skipped(tmp_path):
    src, dst, _ = read_edgelist(write(tmp_path, b"\xef\xbb\xbf5 6\n"))
    assert (src.tolist(), dst.tolist()) == ([5], [6])


@pytest.mark.parametrize("kind", ["gz", "bz2", "zip"])
def test_compressed_round_trip(tmp_path, kind):
    text = "# header\r\n10\t20\t0.25\r\n20\t30\t-1e3\r\n"
    raw = text.encode()
    p = tmp_path / f"g.{kind}"
    if kind == "gz":
        p.write_bytes(gzip.compress(raw))
    elif kind == "bz2":
        p.write_bytes(bz2.compress(raw))
    else:
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("inner/g.txt", raw)
    src, dst, w = read_edgelist(p)
    ref = oracle(text, weighted=True)
    assert (src.tolist(), dst.tolist(), w.tolist()) == ref


def test_zip_member_selection(tmp_path):
    p = tmp_path / "two.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("a.txt", "1 2\n")
        z.writestr("b.txt", "3 4\n5 6\n")
    with pytest.raises(gas.InputError, match=r"2 files.*\n.*member="):
        read_edgelist(p)
    src, _, _ = read_edgelist(p, member="b.txt")
    assert src.tolist() == [3, 5]
    with pytest.raises(gas.InputError, match="no member 'c.txt'"):
        read_edgelist(p, member="c.txt")


def test_corrupt_gzip(tmp_path):
    p = write(tmp_path, gzip.compress(b"1 2\n" * 1000)[:-30], "bad.gz")
    with pytest.raises(gas.InputError, match="corrupt or truncated") as e:
        read_edgelist(p)
    assert str(p) in str(e.value)


def test_weights_modes(tmp_path):
    p = write(tmp_path, "1 2 0.5\n2 3 1.5\n")
    assert read_edgelist(p)[2].tolist() == [0.5, 1.5]
    assert read_edgelist(p, weights=True)[2].tolist() == [0.5, 1.5]
    assert read_edgelist(p, weights=False)[2] is None
    two = write(tmp_path, "1 2\n2 3\n", "two.txt")
    assert read_edgelist(two)[2] is None
    with pytest.raises(gas.InputError, match=r":1: expected a third column"):
        read_edgelist(two, weights=True)


def test_four_column_csv_keeps_third(tmp_path):
    # SNAP bitcoin layout: source,target,rating,time
    text = "6,2,4,1289241911.72836\n6,5,-2,1289241941.53378\n1,15,1,1289243140.39049\n"
    src, dst, w = read_edgelist(write(tmp_path, text, "b.csv"))
    assert (src.tolist(), dst.tolist(), w.tolist()) == oracle(text, weighted=True)


def test_auto_mode_rejects_later_extra_column(tmp_path):
    p = write(tmp_path, "1 2\n3 4\n5 6 0.5\n")
    with pytest.raises(gas.InputError, match=r":3: found a third column") as e:
        read_edgelist(p)
    assert "5 6 0.5" in str(e.value) and "weights=False" in str(e.value)
    assert read_edgelist(p, weights=False)[0].tolist() == [1, 3, 5]


def test_huge_ids(tmp_path):
    top = 2**64 - 1
    p = write(tmp_path, f"{top} 0\n{2**63} {2**63 - 1}\n")
    src, dst, _ = read_edgelist(p)
    assert src.dtype == np.uint64
    assert src.tolist() == [top, 2**63] and dst.tolist() == [0, 2**63 - 1]
    src, dst, _ = read_edgelist(write(tmp_path, f"{2**63 - 1} 1\n", "i.txt"))
    assert src.dtype == np.int64 and src.tolist() == [2**63 - 1]
    g = load(p)
    assert g.ids.dtype == np.uint64 and g.ids.tolist() == sorted([top, 2**63, 0, 2**63 - 1])


def test_skip_rows_counts_physical_lines(tmp_path):
    p = write(tmp_path, "source,target\n1,2\n3,4\n")
    src, _, _ = read_edgelist(p, skip_rows=1)
    assert src.tolist() == [1, 3]
    with pytest.raises(gas.InputError, match=r":2: expected a non-negative(.|\n)*skip_rows=2"):
        read_edgelist(write(tmp_path, "a b\nsource,target\n1,2\n", "h.txt"), skip_rows=1, weights=False)


# ---------------------------------------------------------------- exact weights


def _decimal_strings(rng: random.Random, count: int) -> list[str]:
    out = []
    for _ in range(count):
        kind = rng.randrange(6)
        if kind == 0:
            out.append(repr(rng.random() * 10 ** rng.randint(-30, 30)))
        elif kind == 1:
            out.append(f"{rng.uniform(-1e6, 1e6):.{rng.randint(0, 17)}f}")
        elif kind == 2:
            out.append(f"{rng.uniform(-1, 1):.{rng.randint(1, 25)}e}")
        elif kind == 3:
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 24)))
            cut = rng.randint(0, len(digits))
            out.append(f"{rng.choice(['', '-', '+'])}{digits[:cut]}.{digits[cut:]}")
        elif kind == 4:
            out.append(f"{rng.randint(0, 2**64)}e{rng.randint(-40, 40)}")
        else:
            out.append(
                rng.choice(
                    [
                        "1",
                        "-2.5",
                        "1e-3",
                        ".5",
                        "5.",
                        "+3",
                        "inf",
                        "-Infinity",
                        "1E5",
                        "-0",
                        "0.0",
                        "1_000.5",
                        "9007199254740993",
                        "2.2250738585072011e-308",
                        "4.9e-324",
                        "1e23",
                        "1e400",
                    ]
                )
            )
    return out


def test_weights_equal_python_float_on_many_strings(tmp_path):
    tokens = _decimal_strings(random.Random(12345), 20000)
    text = "".join(f"{i} {i + 1} {t}\n" for i, t in enumerate(tokens))
    _, _, w = read_edgelist(write(tmp_path, text))
    ref = np.array([float(t) for t in tokens])  # oracle: Python's float()
    assert np.array_equal(w.view(np.int64), ref.view(np.int64))  # bit-exact, signs of zero too


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=False).map(repr),
            st.from_regex(r"\A[+-]?[0-9]{1,22}(\.[0-9]{0,22})?([eE][+-]?[0-9]{1,3})?\Z"),
            st.from_regex(r"\A[+-]?\.[0-9]{1,22}\Z"),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_weights_property_bit_exact(tmp_path_factory, tokens):
    p = tmp_path_factory.mktemp("h") / "w.txt"
    p.write_text("".join(f"0 1 {t}\n" for t in tokens))
    _, _, w = read_edgelist(p)
    ref = np.array([float(t) for t in tokens])  # oracle: Python's float()
    assert np.array_equal(w.view(np.int64), ref.view(np.int64))


# ---------------------------------------------------------------- errors


BAD = [
    # (content, line, offending text, message fragment, hint fragment)
    ("source,target\n1,2\n", 1, "source,target", "non-negative integer vertex id", "skip_rows=1"),
    ("# c\nsrc dst\n1 2\n", 2, "src dst", "found 'src'", "--skip-rows 2"),
    ("1 2\n3\n", 2, "3", "found 1", "columns are separated"),
    ("1 2\n3 \t\n", 2, "3 \t", "found 1", None),
    ("1 2\n-3 4\n", 2, "-3 4", "non-negative, found -3", "relabel"),
    (f"1 2\n5 {2**64}\n", 2, f"5 {2**64}", "does not fit in 64 bits", None),
    ("1 2 0.5\n3 4 nan\n", 2, "3 4 nan", "NaN", None),
    ("1 2 0.5\n3 4\n", 2, "3 4", "third column", "weights=False"),
    ("1 2 0.5\n3 4 abc\n", 2, "3 4 abc", "found 'abc'", None),
    ("1 2\n3 4.5\n", 2, "3 4.5", "found '4.5'", None),
    ("1 2\r\n3x 4\r\n", 2, "3x 4", "found '3x'", None),
    ("1.0 2.0\n", 1, "1.0 2.0", "found '1.0'", "whole numbers"),
    ("1 2 0.5\n" * 40 + "7 8 0x1p3\n", 41, "7 8 0x1p3", "found '0x1p3'", "weights=False"),
]


@pytest.mark.parametrize("content,line,text,msg,hint", BAD)
def test_bad_input_names_file_line_and_text(tmp_path, content, line, text, msg, hint):
    p = write(tmp_path, content, "bad.txt")
    with pytest.raises(gas.InputError) as e:
        read_edgelist(p)
    s = str(e.value)
    assert s.startswith(f"{p}:{line}: ")
    assert f"(got {text!r})" in s
    assert msg in s
    assert e.value.line == line and e.value.path == str(p)
    if hint:
        assert hint in s.split("hint:", 1)[1]


@pytest.mark.parametrize("content", ["", "# only\n% comments\n\n", "   \r\n"])
def test_no_edges(tmp_path, content):
    p = write(tmp_path, content)
    with pytest.raises(gas.InputError, match=f"no edges found in {re.escape(str(p))}"):
        read_edgelist(p)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(gas.InputError, match="file not found") as e:
        read_edgelist(tmp_path / "nope.txt")
    assert "nope.txt" in str(e.value) and e.value.__cause__ is None
    with pytest.raises(gas.InputError, match="directory"):
        read_edgelist(tmp_path)


# ---------------------------------------------------------------- load()


def test_load_compacts_ids_and_dedupes(tmp_path):
    p = write(tmp_path, "100 200 1\n200 300 2\n100 200 3\n")
    g = load(p)
    assert g.ids.tolist() == [100, 200, 300]
    assert g.num_edges == 2 and g.num_duplicates == 1
    assert g.weights.tolist() == [3.0, 2.0]  # last duplicate wins, as networkx.DiGraph
    g2 = load(p, dedupe=False, weights=False)
    assert g2.num_edges == 3 and g2.weights is None


def test_load_num_vertices(tmp_path):
    p = write(tmp_path, "0 1\n1 3\n")
    g = load(p, num_vertices=5)
    assert g.num_vertices == 5 and g.ids.tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(gas.InputError, match="outside") as e:
        load(p, num_vertices=3)
    assert str(p) in str(e.value)


# ---------------------------------------------------------------- real SNAP files


def _oracle_file(path) -> tuple[np.ndarray, np.ndarray]:
    """Independent reading: gzip (when compressed) + str.split."""
    opener = gzip.open if str(path).endswith(".gz") else open
    s, d = [], []
    with opener(path, "rt") as f:
        for raw in f:
            if raw.startswith("#") or not raw.strip():
                continue
            a, b = raw.split()[:2]
            s.append(int(a))
            d.append(int(b))
    return np.array(s), np.array(d)


@pytest.mark.parametrize(
    "rel,edges,nodes",
    [
        ("wiki-Vote/Wiki-Vote.txt", 103_689, 7_115),
        ("soc-Slashdot0811/soc-Slashdot0811.txt.gz", 905_468, 77_360),
    ],
)
def test_real_snap_files(rel, edges, nodes):
    path = shared_path(rel)
    src, dst, w = read_edgelist(path)
    assert w is None and src.shape == (edges,)  # counts from shared/datasets/README.md
    ref_s, ref_d = _oracle_file(path)
    assert np.array_equal(src, ref_s) and np.array_equal(dst, ref_d)
    g = load(path)
    assert g.num_vertices == nodes


def test_real_bitcoin_csv_weights():
    path = shared_path("soc-sign-bitcoin-otc/soc-sign-bitcoinotc.csv.gz")
    src, dst, w = read_edgelist(path)
    with gzip.open(path, "rt") as f:  # oracle: gzip + str.split + float()
        rows = [line.split(",") for line in f if line.strip()]
    assert src.shape == (35_592,)
    assert src.tolist() == [int(r[0]) for r in rows]
    assert w.tolist() == [float(r[2]) for r in rows]
