"""Every ``gas`` subcommand through a table of bad arguments and bad inputs (issue 17, sections 4-5).

Each row asserts the exit status (2: bad input or argument; 3: a run that did not converge), that
no Python traceback reaches stderr, and that the message names the problem. Most rows run
in-process through :func:`gas.cli.main` (argparse errors raise ``SystemExit``); the rows that
start worker processes run ``python -m gas.cli`` in a subprocess, so that a traceback printed
by a worker is seen too. Below the table: the library side of the same fixes (the ``.npz``
reader checks every header against the bytes present before allocating; weights refused with
the file and line).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import gas
from gas.cli import main
from gas.cli.args import max_procs
from gas.io._parse import locate_edge
from gas.io.binary import load_npz
from gas.io.edgelist import read_edgelist
from gas.io.ranges import read_share

TIB8 = 2**40  # int64 entries: 8 TiB


def _npy(arr: np.ndarray, shape: tuple[int, ...] | None = None) -> bytes:
    """``arr`` as .npy bytes; with ``shape``, a header that claims that shape instead."""
    b = io.BytesIO()
    if shape is None:
        np.lib.format.write_array(b, arr, allow_pickle=False)
        return b.getvalue()
    header = {"descr": np.lib.format.dtype_to_descr(arr.dtype), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(b, header)
    return b.getvalue() + arr.tobytes()


def _npz(path, arrays: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> str:
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        for k, v in arrays.items():
            z.writestr(k + ".npy", v)
    return str(path)


def _saved_arrays(tmp) -> dict[str, np.ndarray]:
    """The arrays gas.save writes for a small weighted graph (4 edges, 3 vertices)."""
    p = tmp / "base.npz"
    gas.save(gas.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 1], weights=[1.0, 2.0, 3.0, 4.0]), p)
    with np.load(p) as z:
        return {k: z[k] for k in z.files}


def _hostile_npz(tmp, name: str, **changes: bytes | None) -> str:
    """A copy of the base graph's .npz with some members replaced (bytes) or removed (None);
    ``edata__weight`` names the member ``edata/weight``."""
    members = {k: _npy(v) for k, v in _saved_arrays(tmp).items()}
    for k, v in changes.items():
        k = k.replace("__", "/")
        if v is None:
            members.pop(k)
        else:
            members[k] = v
    return _npz(tmp / name, members)


def _object_npy() -> bytes:
    b = io.BytesIO()
    np.save(b, np.array([1, "x", None, 2.0], dtype=object), allow_pickle=True)
    return b.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Good and hostile inputs, by name (the table's ``{name}`` placeholders)."""
    tmp = tmp_path_factory.mktemp("cli_errors")
    rng = np.random.default_rng(7)
    f: dict[str, str] = {}

    def text(name: str, content: str | bytes) -> None:
        p = tmp / name
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
        f[name.split(".")[0]] = str(p)

    edges = rng.integers(0, 60, size=(300, 2))
    text("good.txt", "".join(f"{s} {d}\n" for s, d in edges))
    text("weighted.txt", "".join(f"{s} {d} {w:.3f}\n" for (s, d), w in zip(edges, rng.random(300))))
    text(
        "ratings.txt", "".join(f"{u} {i} {r}\n" for u, i, r in rng.integers([0, 0, 1], [20, 15, 6], (200, 3)))
    )
    text("empty.txt", "")
    text("comments.txt", "# only a comment\n\n% another\n")
    text("garbage.bin", bytes(rng.integers(128, 256, 400, dtype=np.uint8)))
    text("overflow.txt", "0 1\n1 18446744073709551616\n")  # 2**64: one past uint64
    text("abc.txt", "0 1 1.0\n1 2 abc\n")
    # weights PageRank must refuse (issue 17 section 1); the bad value is on line 3 of each
    text("winf.txt", "0 1 1.0\n1 2 2.0\n2 0 inf\n2 1 1\n")
    text("wneg.txt", "# src dst w\n0 1 1.0\n2 0 -3\n1 2 2\n")
    text("wnan.txt", "0 1 1.0\n1 2 0.5\n2 0 nan\n")
    lines = [f"{s} {d} {w:.3f}" for (s, d), w in zip(edges, rng.random(300))]
    lines[250] = "7 9 -1.5"  # line 251: in the second share of two
    text("wneg_big.txt", "\n".join(lines) + "\n")
    base = _saved_arrays(tmp)
    whole = (tmp / "base.npz").read_bytes()
    (tmp / "trunc.npz").write_bytes(whole[: len(whole) // 2])
    f["trunc"] = str(tmp / "trunc.npz")
    flipped = bytearray(whole)
    flipped[whole.index(b"\x93NUMPY", whole.index(b"src.npy")) + 130] ^= 0xFF  # in src's data
    (tmp / "flip.npz").write_bytes(bytes(flipped))
    f["flip"] = str(tmp / "flip.npz")
    f["strw"] = _hostile_npz(tmp, "strw.npz", edata__weight=_npy(np.array(["a", "b", "c", "d"])))
    f["huge"] = _hostile_npz(tmp, "huge.npz", src=_npy(base["src"], (TIB8,)))
    f["hugew"] = _hostile_npz(tmp, "hugew.npz", edata__weight=_npy(base["edata/weight"], (TIB8,)))
    f["objw"] = _hostile_npz(tmp, "objw.npz", edata__weight=_object_npy())
    f["shortw"] = _hostile_npz(tmp, "shortw.npz", edata__weight=_npy(np.array([1.0, 2.0])))
    f["negw"] = _hostile_npz(tmp, "negw.npz", edata__weight=_npy(np.array([1.0, -2.0, 3.0, 4.0])))
    (tmp / "adir").mkdir()
    f["adir"] = str(tmp / "adir")
    f["missing"] = str(tmp / "no-such-file.txt")
    f["out"] = str(tmp / "out.tsv")
    bad_ck = tmp / "ck_badjson" / "step-00000010"
    bad_ck.mkdir(parents=True)
    (bad_ck / "manifest.json").write_text("{this is not json")
    f["ck_badjson"] = str(bad_ck.parent)
    docs = tmp / "docs_empty"
    docs.mkdir()
    f["docs_empty"] = str(docs)
    stop = tmp / "docs_stop"
    stop.mkdir()
    for i in range(3):
        (stop / f"d{i}.txt").write_text("the and of the a an\n")
    f["docs_stop"] = str(stop)
    f["too_many"] = str(max_procs() + 1)
    return f


def _run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    out, err = capsys.readouterr()
    return int(status), out, err


def _fill(argv: list[str], files: dict[str, str]) -> list[str]:
    return [a.format(**files) for a in argv]


def _row(argv: str, status: int, *fragments: str, marks=(), id: str | None = None):
    return pytest.param(argv.split(), status, fragments, marks=marks, id=id or argv)


_GRAPH_CMDS = [
    "pagerank {IN}",
    "cc {IN}",
    "sssp {IN} --source 0",
    "info {IN}",
    "coloring {IN}",
    "partition {IN} --parts 2",
]
# hostile input -> what the message must hold (issue 17 section 4 and 5)
_BAD_INPUTS = {
    "missing": ("no-such-file.txt", "not found"),
    "empty": ("empty.txt", "no edges"),
    "comments": ("comments.txt", "no edges"),
    "garbage": ("garbage.bin:1:", "vertex id"),
    "overflow": ("overflow.txt:2:", "does not fit in 64 bits"),
    "abc": ("abc.txt:2:", "'abc'"),
    "strw": ("strw.npz", "'weight' edge column", "<U1"),
    "huge": ("huge.npz", f"({TIB8},)", "8.00 TiB", "file holds 32 bytes"),
    "hugew": ("hugew.npz", f"({TIB8},)", "8.00 TiB"),
    "objw": ("objw.npz", "Python objects"),
    "shortw": ("shortw.npz", "edge column 'weight' has"),
    "adir": ("adir", "directory"),
    "trunc": ("trunc.npz", "cannot read it as .npz"),
    "flip": ("flip.npz", "is corrupt", "CRC"),
}
_INPUT_ROWS = [
    _row(cmd.replace("{IN}", "{" + name + "}"), 2, *frags, id=f"{cmd.split()[0]}-{name}")
    for cmd in _GRAPH_CMDS
    for name, frags in _BAD_INPUTS.items()
    # a bad third column is read (and refused) only where weights are: --weighted, or gas info
    if name != "abc" or cmd.startswith("info")
] + [
    _row("pagerank {abc} --weighted", 2, *_BAD_INPUTS["abc"], id="pagerank-abc"),
    _row("sssp {abc} --source 0 --weighted", 2, *_BAD_INPUTS["abc"], id="sssp-abc"),
]

_ARG_ROWS = [
    # PageRank's damping factor and tolerance, iterations (issue 17 section 4)
    _row("pagerank {good} --alpha 1.5", 2, "--alpha", "[0, 1]"),
    _row("pagerank {good} --alpha -0.1", 2, "--alpha", "[0, 1]"),
    _row("pagerank {good} --alpha nan", 2, "--alpha", "finite"),
    _row("pagerank {good} --tol=-1e-6", 2, "--tol", "> 0"),
    _row("pagerank {good} --tol nan", 2, "--tol", "finite"),
    _row("pagerank {good} --tol inf", 2, "--tol", "finite"),
    _row("pagerank {good} --tol 0", 2, "--tol", "> 0"),
    _row("pagerank {good} --max-iter -1", 2, "--max-iter", ">= 1"),
    _row("pagerank {good} --max-iter 0", 2, "--max-iter", ">= 1"),
    _row("pagerank {good} --extrapolate-every -1", 2, "--extrapolate-every"),
    _row("pagerank {good} --extrapolate-every 2", 2, "--extrapolate-every", "at least 3"),
    _row("pagerank {good} --top -1", 2, "--top", ">= 0"),
    _row("cc {good} --top -1", 2, "--top", ">= 0"),
    _row("pagerank {good} --skip-rows -1", 2, "--skip-rows", ">= 0"),
    _row("pagerank {good} --seed -1", 2, "--seed", ">= 0"),
    _row("pagerank {good} --checkpoint-every 0", 2, "--checkpoint-every", ">= 1"),
    _row("pagerank {good} --max-iter ten", 2, "--max-iter", "'ten'"),
    # counts that compiled code receives: a Numba typing error before
    _row(f"pagerank {{good}} --skip-rows {10**23}", 2, "--skip-rows", "2**63"),
    _row(f"partition {{good}} --method hybrid --threshold {10**23}", 2, "--threshold", "2**63"),
    # threads and processes, on every subcommand that takes them
    *[
        _row(f"{cmd} --threads {t}", 2, "--threads", ">= 1")
        for cmd in ("pagerank {good}", "cc {good}", "sssp {good} --source 0", "coloring {good}")
        for t in ("0", "-1")
    ],
    *[
        _row(f"{cmd} --procs 0", 2, "--procs", ">= 1")
        for cmd in (
            "pagerank {good}",
            "cc {good}",
            "sssp {good} --source 0",
            "coloring {good}",
            "als {ratings}",
            "sgd {ratings}",
            "lda {docs_stop}",
            "resume {adir}",
        )
    ],
    *[
        _row(
            f"{cmd} --procs {{too_many}}", 2, "--procs", "cores", "GAS_MAX_PROCS", id=f"{cmd}-procs-too-many"
        )
        for cmd in (
            "pagerank {good}",
            "cc {good}",
            "sssp {good} --source 0",
            "coloring {good}",
            "als {ratings}",
            "sgd {ratings}",
            "lda {docs_stop}",
            "resume {adir}",
        )
    ],
    _row("coloring {good} --procs 2 --partition bogus", 2, "bogus"),
    # output paths (checked before any work)
    *[
        _row(f"{cmd} -o {{adir}}", 2, "adir", "folder")
        for cmd in (
            "pagerank {good}",
            "cc {good}",
            "sssp {good} --source 0",
            "coloring {good}",
            "partition {good} --parts 2",
        )
    ],
    _row("pagerank {good} --checkpoint-dir {good}", 2, "good.txt", "not a folder"),
    # a device as the input: /dev/zero was read until memory ran out
    _row("info /dev/zero", 2, "/dev/zero", "device"),
    # sssp's source
    _row("sssp {good} --source 99999", 2, "99999", "not in the graph"),
    _row("sssp {good} --source abc", 2, "--source", "'abc'"),
    _row("sssp {good} --source 18446744073709551616", 2, "18446744073709551616", "below 2**64"),
    # weights PageRank and SSSP refuse, with the file and line (issue 17 section 1)
    _row("pagerank {winf} --weighted", 2, "winf.txt:3:", "inf", "finite"),
    _row("pagerank {wneg} --weighted", 2, "wneg.txt:3:", "-3.0"),
    _row("pagerank {wnan} --weighted", 2, "wnan.txt:3:", "NaN"),
    _row("sssp {wneg} --source 0 --weighted", 2, "wneg.txt:3:", "-3.0", ">= 0", "drop --weighted"),
    _row("pagerank {negw} --weighted", 2, "negw.npz", "-2.0", "edge 1 -> 2"),
    _row("sssp {negw} --source 0 --weighted", 2, "negw.npz", "-2.0", "edge 1 -> 2"),
    # partition's own options
    _row("partition {good} --parts 0", 2, "at least 1 part"),
    _row("partition {good} --gather-bytes -1", 2, "--gather-bytes", ">= 0"),
    _row("partition {good} --seed -1", 2, "--seed", ">= 0"),
    _row("partition {good} --lambda nan", 2, "lam", "nan"),
    _row("partition {good} --method ne --alpha nan", 2, "--alpha", "finite"),
    _row("partition {good} --method fennel --gamma inf", 2, "--gamma", "finite"),
    _row("partition {good} --method ldg --slack 0", 2, "slack"),
    _row("partition {good} --method hybrid --threshold -5", 2, "--threshold", ">= 0"),
    _row("partition {good} --method grid --grid-shape five", 2, "ROWSxCOLS"),
    _row("partition {good} --method metis", 2, "metis"),
    # options so large that the method's arithmetic overflowed (OverflowError, ValueError)
    _row("partition {good} --lambda inf", 2, "--lambda", "finite"),
    _row("partition {good} --parts 2 --method ne --alpha 1e308", 2, "'ne'", "--alpha"),
    _row("partition {good} --parts 2 --method fennel --gamma 1e308", 2, "'fennel'", "--gamma"),
    # matrix factorization (gas/cli/mf.py)
    _row("als {ratings} --rank 0", 2, "--rank", ">= 1"),
    _row("als {ratings} --iters 0", 2, "--iters", ">= 1"),
    _row("als {ratings} --reg -1", 2, "--reg", ">= 0"),
    _row("als {ratings} --reg nan", 2, "--reg", "finite"),
    _row("als {ratings} --test-fraction 1.5", 2, "--test-fraction"),
    _row("als {ratings} --init-std -1", 2, "--init-std"),
    _row("als {ratings} --threads 0", 2, "--threads", ">= 1"),
    _row("sgd {ratings} --lr 0", 2, "--lr", "> 0"),
    _row("sgd {ratings} --lr nan", 2, "--lr", "finite"),
    _row("sgd {ratings} --decay -1", 2, "--decay"),
    _row("als {missing}", 2, "no-such-file.txt", "not found"),
    _row("als {empty}", 2, "empty.txt", "no ratings"),
    _row("als {abc}", 2, "abc.txt:2:", "'abc'"),
    _row("als {ratings} -o {adir}", 2, "adir", "folder"),
    _row("recommend {missing} --user 1", 2, "no-such-file.txt"),
    _row("recommend {adir} --user 1", 2, "adir", "model"),
    _row("recommend {adir} --top -1", 2, "--top", ">= 0"),
    # LDA (gas/cli/lda.py)
    _row("lda {docs_stop} --topics 0", 2, "--topics", ">= 1"),
    _row("lda {docs_stop} --alpha -1", 2, "--alpha", "> 0"),
    _row("lda {docs_stop} --beta nan", 2, "--beta", "finite"),
    _row("lda {docs_stop} --iters 0", 2, "--iters", ">= 1"),
    _row("lda {missing}", 2, "no-such-file.txt"),
    _row("lda {garbage} --format uci", 2, "garbage.bin"),
    _row("lda {docs_empty} -q", 2, "docs_empty"),
    _row("lda {docs_stop} -q", 2, "docs_stop"),
    _row(f"lda {{docs_stop}} -q --ll-every {10**23}", 2, "--ll-every", "below 2**63", id="lda-ll-every-1e23"),
    _row(f"lda {{docs_stop}} -q --iters {10**23}", 2, "--iters", "below 2**63", id="lda-iters-1e23"),
    _row("pagerank {good} --straggler any:1e308 --procs 2", 2, "straggler", "3600"),
    # resume (gas/cli/resume.py, checkpoint.py)
    _row("resume {missing}", 2, "no-such-file.txt"),
    _row("resume {good}", 2, "good.txt", "not a folder"),
    _row("resume {adir}", 2, "adir", "no complete checkpoint"),
    _row("resume {ck_badjson}", 2, "manifest"),
    _row("resume {adir} --checkpoint-every 0", 2, "--checkpoint-every", ">= 1"),
]


@pytest.mark.parametrize(("argv", "status", "fragments"), _INPUT_ROWS + _ARG_ROWS)
def test_bad_input_or_argument_is_a_clear_error(files, capsys, monkeypatch, argv, status, fragments):
    monkeypatch.delenv("GAS_MAX_PROCS", raising=False)
    code, _, err = _run_main(_fill(argv, files), capsys)
    assert "Traceback" not in err, err
    assert code == status, err
    for fragment in fragments:
        assert fragment.format(**files) in err, (fragment, err)


# rows that start worker processes, or used to print tracebacks from them: a real subprocess
_SUBPROCESS_ROWS = [
    _row("pagerank {good} --procs {too_many}", 2, "GAS_MAX_PROCS", "cores", id="pagerank-procs-too-many"),
    _row("coloring {good} --procs {too_many}", 2, "GAS_MAX_PROCS", "cores", id="coloring-procs-too-many"),
    _row(
        "sssp {wneg_big} --source 0 --weighted --procs 2 -q",
        2,
        "wneg_big.txt:251:",
        "-1.5",
        id="sssp-procs2-negw",
    ),
    _row("cc {garbage} --procs 2 -q", 2, "garbage.bin:1:", id="cc-procs2-garbage"),
    _row("pagerank {huge} -q", 2, "huge.npz", "8.00 TiB", id="pagerank-huge-npz"),
    _row("pagerank {good} --procs 2 -q -o {adir}", 2, "adir", "folder", id="pagerank-procs2-out-dir"),
]


@pytest.mark.parametrize(("argv", "status", "fragments"), _SUBPROCESS_ROWS)
def test_bad_input_in_a_subprocess_prints_no_traceback(files, argv, status, fragments):
    env = {k: v for k, v in os.environ.items() if k != "GAS_MAX_PROCS"}
    env.setdefault("NUMBA_NUM_THREADS", "2")
    r = subprocess.run(
        [sys.executable, "-m", "gas.cli", *_fill(argv, files)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == status, r.stderr
    for fragment in fragments:
        assert fragment.format(**files) in r.stderr, (fragment, r.stderr)


def test_unexpected_exception_is_an_internal_error_not_a_traceback(files, capsys, monkeypatch):
    import gas.cli.analytics

    def boom(args):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(gas.cli.analytics, "_cmd_info", boom)
    monkeypatch.delenv("GAS_DEBUG", raising=False)
    code, _, err = _run_main(["info", files["good"]], capsys)
    assert code == 1
    assert "internal error: RuntimeError: simulated bug" in err and "Traceback" not in err
    monkeypatch.setenv("GAS_DEBUG", "1")
    code, _, err = _run_main(["info", files["good"]], capsys)
    assert code == 1 and "Traceback" in err  # asked for


def test_oserror_from_a_subcommand_names_the_path(files, capsys, monkeypatch):
    import gas.cli.analytics

    def denied(args):
        raise PermissionError(13, "Permission denied", "/some/where.tsv")

    monkeypatch.setattr(gas.cli.analytics, "_cmd_info", denied)
    code, _, err = _run_main(["info", files["good"]], capsys)
    assert code == 2 and "/some/where.tsv: Permission denied" in err and "Traceback" not in err


# ---------------------------------------------------------------- the .npz reader (section 5)


def test_npz_header_claiming_8_tib_is_refused_before_allocating(files):
    # the old reader called np.load, which allocated the claimed 8 TiB (MemoryError)
    with pytest.raises(gas.InputError) as e:
        load_npz(files["huge"])
    msg = str(e.value)
    assert files["huge"] in msg and f"({TIB8},)" in msg and "8.00 TiB" in msg
    assert "holds 32 bytes" in msg  # the 4 int64 entries present


def test_npz_deflated_member_claiming_more_than_deflate_can_hold(tmp_path):
    # a deflated member's zip entry may claim at most 1032x its compressed size (deflate's limit)
    base = _saved_arrays(tmp_path)
    p = tmp_path / "z.npz"
    _npz(p, {k: _npy(v) for k, v in base.items()}, compression=zipfile.ZIP_DEFLATED)
    raw = bytearray(p.read_bytes())
    with zipfile.ZipFile(p) as z:
        info = z.getinfo("src.npy")
    claimed = info.compress_size * 2000
    # patch the uncompressed size in the central directory entry of src.npy
    cd = raw.rfind(b"PK\x01\x02", 0, raw.find(b"src.npy", raw.find(b"PK\x01\x02")) + 1)
    raw[cd + 24 : cd + 28] = claimed.to_bytes(4, "little")
    p.write_bytes(bytes(raw))
    with pytest.raises(gas.InputError, match=f"'src' claims {claimed:,} bytes"):
        load_npz(p)


def test_npz_string_and_object_weight_columns_are_refused(files):
    # old: sssp TypeError (isnan of <U1), pagerank "cannot be compiled: mul(float64,[unichr x 1])"
    with pytest.raises(gas.InputError, match="'weight' edge column should hold one real number"):
        load_npz(files["strw"])
    with pytest.raises(gas.InputError, match="Python objects"):
        load_npz(files["objw"])


def test_npz_other_string_edge_columns_still_load(tmp_path):
    g = gas.Graph.from_edges([0, 1], [1, 2], edge_data={"label": np.array(["ab", "c"])})
    gas.save(g, tmp_path / "g.npz")
    assert load_npz(tmp_path / "g.npz").edata["label"].tolist() == ["ab", "c"]


def test_npz_compressed_round_trip_reads_every_array(tmp_path):
    g = gas.Graph.from_edges([5, 6, 6], [6, 7, 5], weights=[0.5, 1.5, 2.5])
    gas.save(g, tmp_path / "g.npz", compress=True)
    h = load_npz(tmp_path / "g.npz")
    assert h.ids.tolist() == [5, 6, 7] and h.weights.tolist() == g.weights.tolist()


# ---------------------------------------------------------------- weights with file:line


def test_locate_edge_counts_only_data_lines():
    # hand-computed: line 1 a comment, 2 an edge, 3 blank, 4 an edge (CRLF), 5 blanks, 6 a
    # comment, 7 an edge
    buf = np.frombuffer(b"# c\n1 2\n\n3 4\r\n  \n%x\n5 6", np.uint8)
    assert [locate_edge(buf, 0, k)[0] for k in range(3)] == [2, 4, 7]
    assert locate_edge(buf, 0, 3) == (0, -1)
    assert locate_edge(buf, 2, 0)[0] == 4  # skip_rows=2: lines 1-2 skipped


@pytest.mark.parametrize(
    ("rule", "content", "line", "value"),
    [
        ("finite-nonnegative", "0 1 1\n1 2 inf\n", 2, "inf"),
        ("finite-nonnegative", "# h\n\n0 1 1\n1 2 2\n2 0 -0.5\n", 5, "-0.5"),
        ("nonnegative", "0 1 1\n1 2 inf\n2 3 -1e300\n", 3, "-1e+300"),
        # 20 digits: parsed by Python's float() (the fallback path), whose repr is the reference
        ("nonnegative", "0 1 1\n1 2 -1.2345678901234567890\n", 2, repr(float("-1.2345678901234567890"))),
    ],
)
def test_read_edgelist_check_weights_names_the_line(tmp_path, rule, content, line, value):
    p = tmp_path / "w.txt"
    p.write_text(content)
    with pytest.raises(gas.InputError) as e:
        read_edgelist(p, check_weights=rule)
    assert e.value.line == line and value in str(e.value)
    assert f"{p}:{line}:" in str(e.value)


def test_inf_weight_passes_nonnegative_rule(tmp_path):
    p = tmp_path / "w.txt"
    p.write_text("0 1 inf\n1 2 0\n")
    assert read_edgelist(p, check_weights="nonnegative")[2].tolist() == [np.inf, 0.0]


@pytest.mark.parametrize("shares", [1, 2, 3, 5])
@pytest.mark.parametrize("compressed", [False, True])
def test_read_share_check_weights_names_the_files_line(tmp_path, shares, compressed):
    import gzip

    lines = ["# header"] + [f"{i} {i + 1} 1.0" for i in range(200)]
    lines[150] = "149 150 -2.5"
    lines.insert(80, "")
    text = "\n".join(lines) + "\n"
    expected = lines.index("149 150 -2.5") + 1  # 1-based, counted by hand from the list
    p = tmp_path / ("g.txt.gz" if compressed else "g.txt")
    p.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    found = []
    for r in range(shares):
        try:
            read_share(p, r, shares, check_weights="nonnegative")
        except gas.InputError as exc:
            found.append((exc.line, exc.text))
    assert found == [(expected, "149 150 -2.5")]


def test_from_edges_with_string_weights_is_a_graph_error():
    # old: a bare ValueError from numpy ("could not convert string to float")
    with pytest.raises(gas.GraphError, match="numeric edge weights"):
        gas.Graph.from_edges([0, 1], [1, 2], weights=["a", "b"])


def test_pipe_input_keeps_its_first_lines():
    # old: sniffing for a .npz read the pipe's first buffer (8 KiB) and threw it away: this
    # chain lost its first 539 edges and the run went on with exit 0. Hand count: a path
    # 0 -> 1 -> ... -> 20000 has 20,000 edges and 20,001 vertices.
    chain = "".join(f"{i} {i + 1}\n" for i in range(20000))
    r = subprocess.run(
        [sys.executable, "-m", "gas.cli", "info", "/dev/stdin"],
        input=chain,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "edges\t20,000\n" in r.stdout and "vertices\t20,001\n" in r.stdout


def test_from_edges_keeps_python_int_ids_past_int64_exactly():
    # old: numpy read [2**64 - 1, 5] as float64, the ids lost their low bits and the cast to
    # int64 wrapped around: "non-negative vertex ids (got -9223372036854775808)"
    g = gas.Graph.from_edges([2**64 - 1, 5], [5, 2**63])
    assert g.ids.dtype == np.uint64 and g.ids.tolist() == [5, 2**63, 2**64 - 1]
    with pytest.raises(gas.GraphError, match="past 2\\*\\*64 - 1"):
        gas.Graph.from_edges([2**64, 1], [1, 2])
    with pytest.raises(gas.GraphError, match="not exact"):
        gas.Graph.from_edges(np.array([2.0**60, 1.0]), [1, 2])


def test_ids_past_int64_are_kept_exactly(tmp_path, capsys):
    # ids in 2**63..2**64-1 do not fit int64 but are valid (uint64): a directed 3-cycle, whose
    # PageRank is 1/3 for every vertex (hand-computed: the uniform vector is its fixed point)
    p = tmp_path / "big_ids.txt"
    a, b, c = 2**63, 2**64 - 1, 7
    p.write_text(f"{a} {b}\n{b} {c}\n{c} {a}\n")
    out = tmp_path / "ranks.tsv"
    assert main(["pagerank", str(p), "-q", "--top", "0", "-o", str(out)]) == 0
    ranks = dict(line.split("\t") for line in out.read_text().splitlines())
    assert sorted(map(int, ranks)) == [c, a, b]
    assert all(abs(float(r) - 1 / 3) < 1e-12 for r in ranks.values())
