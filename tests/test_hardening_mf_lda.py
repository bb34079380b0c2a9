"""Issue 17 hardening of matrix factorization (ALS, SGD) and LDA: divergence, arguments, empty
and truncated corpora, and inputs that claim more than they hold.

Every test here failed on the code before the fix (how is said in each docstring). Expected
values are hand-computed from the tiny synthetic inputs written in each test: no output of
gaslab is used as an expectation.
"""

from __future__ import annotations

import io
import resource
import subprocess
import sys
import tarfile
import time

import numpy as np
import pytest

from gas.algorithms.als import als
from gas.algorithms.lda import lda
from gas.algorithms.sgd import sgd
from gas.cli import main
from gas.errors import ConvergenceError, GasError, InputError
from gas.io.corpus import Corpus, load_corpus, read_ldac, read_text, read_uci
from gas.io.ratings import Ratings

# ------------------------------------------------------------------ helpers


def _ratings(scale: float = 1.0) -> Ratings:
    """30 users x 20 items, 300 ratings in 1..5 (seeded), the odd ones times ``scale``."""
    rng = np.random.default_rng(0)
    u, i = rng.integers(0, 30, 300), rng.integers(0, 20, 300)
    r = rng.integers(1, 6, 300).astype(np.float64)
    r[1::2] *= scale
    return Ratings.from_arrays(u, i, r)


def _write_ratings(path, scale: float = 1.0) -> str:
    users, items, r = _ratings(scale).original()
    rows = zip(users.tolist(), items.tolist(), r.tolist())
    path.write_text("".join(f"{a} {b} {c!r}\n" for a, b, c in rows))
    return str(path)


def _cli(argv: list[str], capsys) -> tuple[int, str]:
    """Exit status and stderr of ``gas ARGV`` run in this process (argparse errors included)."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


# ------------------------------------------------------------------ ALS / SGD divergence


def test_als_with_ratings_of_1e300_stops_with_a_convergence_error():
    """Before: ALS returned a model with train RMSE inf (exit 0). A rating of 1e300 cannot be
    squared in float64 (1e600 > 1.8e308), so no finite RMSE exists: the error names the largest
    rating and says to rescale."""
    with pytest.raises(ConvergenceError) as ei:
        als(_ratings(1e300), rank=3, iters=2)
    msg = str(ei.value)
    assert "ALS diverged" in msg and "|r| = 5e+300" in msg and "rescale" in msg
    assert ei.value.result is None and isinstance(ei.value, GasError)
    import networkx as nx

    assert isinstance(ei.value, nx.PowerIterationFailedConvergence)


def test_sgd_with_lr_1e6_stops_after_its_first_epoch():
    """Before: SGD ran its 5 epochs and returned NaN factors. A step of 1e6 on ratings of 1..5
    overflows in the first epoch, so the run stops at iteration 1, naming the learning rate."""
    with pytest.raises(ConvergenceError) as ei:
        sgd(_ratings(), rank=3, lr=1e6, iters=5, threads=1)
    assert ei.value.iterations == 1
    assert "lr=1e+06" in str(ei.value) and "learning rate too high" in str(ei.value)


@pytest.mark.parametrize("procs", [1, 2])
def test_cli_divergence_exits_3_and_writes_no_model(tmp_path, capsys, procs):
    """Before: `gas sgd --lr 1e6` printed train_rmse nan, saved the model and exited 0, on one
    process and with --procs 2. Now: exit status 3, the cause on stderr, no model folder (not
    even with --allow-unconverged: non-finite factors are no answer)."""
    path = _write_ratings(tmp_path / "r.txt")
    model = tmp_path / "model"
    argv = ["sgd", path, "--rank", "3", "--lr", "1e6", "--iters", "2", "-q", "--procs", str(procs)]
    status, err = _cli(argv + ["--save-model", str(model), "--allow-unconverged"], capsys)
    # the library's "lr=1e+06" is said with the CLI's flag (gas.cli.hints)
    assert status == 3 and "SGD diverged" in err and "--lr 1e+06" in err and "lr=" not in err
    assert not model.exists()


@pytest.mark.parametrize(
    "call",
    [
        lambda r: als(r, rank=2, reg=float("nan"), iters=1),
        lambda r: als(r, rank=2, reg=float("inf"), iters=1),
        lambda r: als(r, rank=2, init_std=float("nan"), iters=1),
        lambda r: als(r, rank=2, init_std=float("inf"), iters=1),
        lambda r: sgd(r, rank=2, lr=float("nan"), iters=1),
        lambda r: sgd(r, rank=2, lr=float("inf"), iters=1),
        lambda r: sgd(r, rank=2, reg=float("nan"), iters=1),
        lambda r: sgd(r, rank=2, init_std=float("nan"), iters=1),
        lambda r: sgd(r, rank=2, decay=float("nan"), iters=1),
        lambda r: sgd(r, rank=2, seed=-1, iters=1),
    ],
    ids=["als-reg-nan", "als-reg-inf", "als-init-nan", "als-init-inf", "sgd-lr-nan", "sgd-lr-inf",
         "sgd-reg-nan", "sgd-init-nan", "sgd-decay-nan", "sgd-seed-neg"],
)  # fmt: skip
def test_mf_library_refuses_non_finite_parameters(call):
    """Before: each of these ran (NaN passes `x < 0` tests) and returned NaN factors or, for a
    negative seed, numpy's ValueError. Now an InputError (a GasError and a ValueError) naming
    the parameter, before any work."""
    with pytest.raises(InputError, match="Expected"):
        call(_ratings())


def test_als_rank_beyond_memory_is_refused_before_allocating():
    """Before: numpy's MemoryError (no GasError) from allocating 30+20 vertices x (rank+6) x
    rank float64 accumulators: 10**6 x 10**6 x 8 bytes x 50 = 400 PB. Now an InputError with
    the bytes it would need."""
    with pytest.raises(InputError, match="would need about") as ei:
        als(_ratings(), rank=10**6, iters=1)
    assert "rank 1,000,000" in str(ei.value) and "--rank" in str(ei.value)


@pytest.mark.parametrize(
    "argv",
    [
        ["als", "--reg", "nan"],
        ["als", "--reg", "inf"],
        ["als", "--iters", "0"],
        ["als", "--init-std", "nan"],
        ["als", "--init-std", "-1"],
        ["als", "--seed", "-1"],
        ["als", "--staleness", "-1", "--procs", "2"],
        ["sgd", "--lr", "0"],
        ["sgd", "--lr", "nan"],
        ["sgd", "--lr", "-1"],
        ["sgd", "--reg", "nan"],
        ["sgd", "--decay", "nan"],
        ["sgd", "--iters", "0"],
    ],
)
def test_mf_cli_refuses_bad_arguments_with_status_2(tmp_path, capsys, argv):
    """Before: each ran to exit status 0 (NaN or non-positive values went through, or argparse
    took them); --init-std -1 and --staleness -1 raised only inside the library. Now an argparse
    error naming the option, exit status 2, before reading the file."""
    path = _write_ratings(tmp_path / "r.txt")
    status, err = _cli([argv[0], path, "-q", *argv[1:]], capsys)
    assert status == 2 and f"argument {argv[1]}" in err


# ------------------------------------------------------------------ LDA arguments and empty corpora


def _folder(tmp_path, name: str, docs: dict[str, str]):
    d = tmp_path / name
    d.mkdir()
    for fname, text in docs.items():
        (d / fname).write_text(text)
    return d


def test_text_corpus_of_stop_words_only_is_an_error(tmp_path):
    """Before: a Corpus of 2 documents and 0 words, and `gas lda` printed 50 empty topics with
    exit 0. Now an InputError naming the folder and the stop-word filter."""
    d = _folder(tmp_path, "stop", {"a.txt": "The and of.", "b.txt": "it is a"})
    with pytest.raises(InputError, match="stop words") as ei:
        read_text(d)
    assert ei.value.path == str(d)


def test_text_corpus_emptied_by_min_df_names_the_window(tmp_path):
    """Before: an empty vocabulary. 'cat' is in 2 documents and 'mat', 'sat', 'dog' in 1
    (hand-counted), so min_df=3 keeps none: the error gives the window and those frequencies."""
    d = _folder(tmp_path, "t", {"a.txt": "The cat sat on the mat", "b.txt": "a dog and a cat"})
    with pytest.raises(InputError, match=r"min_df=3.*occur in 1 to 2 documents"):
        read_text(d, min_df=3)


@pytest.mark.parametrize("body", ["", "\n\n  \n"])
def test_empty_ldac_corpus_is_an_error(tmp_path, body):
    """Before: a Corpus of 0 documents (and empty topics from `gas lda`). Now an InputError."""
    p = tmp_path / "c.dat"
    p.write_text(body)
    with pytest.raises(InputError, match="no documents") as ei:
        read_ldac(p)
    assert ei.value.path == str(p)


def test_empty_text_folder_and_zero_token_corpus_are_errors(tmp_path):
    """Before: an empty folder gave a Corpus of 0 documents, and lda() on a corpus with no token
    (2 empty documents) returned topics of nothing. Now InputErrors."""
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no documents"):
        read_text(tmp_path / "empty")
    with pytest.raises(InputError, match="no tokens"):
        lda(Corpus.from_documents([[], []]), topics=2, iters=1)


def test_truncated_tar_gz_corpus_is_an_input_error(tmp_path):
    """Before: EOFError ('Compressed file ended before the end-of-stream marker') traceback."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in ("a.txt", "b.txt"):
            data = (f"{name} cats and dogs chase zebras " * 200).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    p = tmp_path / "docs.tar.gz"
    p.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    with pytest.raises(InputError, match="truncated") as ei:
        load_corpus(p)
    assert ei.value.path == str(p)


@pytest.mark.parametrize(
    "extra, option",
    [
        (["--beta", "inf"], "--beta"),
        (["--alpha", "inf"], "--alpha"),
        (["--iters", "0"], "--iters"),
        (["--min-df", "1.5"], "--min-df"),
        (["--max-df", "-1"], "--max-df"),
        (["--ll-every", "-1"], "--ll-every"),
    ],
)
def test_lda_cli_refuses_bad_arguments_with_status_2(tmp_path, capsys, extra, option):
    """Before (run on the old tree): --beta inf hung (no answer in 60 s on these 5 tokens: the
    sampler's cdf is inf/inf), --alpha inf, --iters 0 and --ll-every -1 ran to exit 0, and
    --min-df 1.5 / --max-df -1 were ignored for this lda-c corpus (exit 0; a text corpus failed
    only after being read). Now argparse errors naming the option, exit status 2."""
    p = tmp_path / "c.dat"
    p.write_text("2 0:2 1:1\n1 1:3\n")
    status, err = _cli(["lda", str(p), "-q", *extra], capsys)
    assert status == 2 and f"argument {option}" in err


def test_lda_library_refuses_infinite_priors():
    """Before: beta=inf and alpha=inf ran to meaningless uniform topics, and topics=2.5 was
    truncated to 2. Now InputErrors naming the parameter."""
    c = Corpus.from_documents([["a", "b"], ["b", "c"]])
    for kw in ({"beta": float("inf")}, {"alpha": float("inf")}, {"topics": 2.5}):
        with pytest.raises(InputError, match="Expected"):
            lda(c, iters=1, **{"topics": 2, **kw})


def test_lda_cli_default_max_df_keeps_words_in_every_document(tmp_path, capsys):
    """Before: the default --max-df 1.0 was read as 'at most 1 document', silently dropping
    every word found in 2 or more documents: here 'cat' and 'dog' (both documents, counted by
    hand), leaving 'mat sat'. --max-df 1.0 is the fraction 1.0: all four words stay."""
    d = _folder(tmp_path, "t", {"a.txt": "The cat sat on the mat with a dog", "b.txt": "dog and cat"})
    assert main(["lda", str(d), "--topics", "1", "--iters", "1", "-q"]) == 0
    top = capsys.readouterr().out.splitlines()[1].split("\t")[1].split()
    assert sorted(top) == ["cat", "dog", "mat", "sat"]


# ------------------------------------------------------------------ inputs that claim more than they hold

BOMB = "1\n1\n1\n1 1 2000000000\n"  # 21 bytes: 1 document, 1 word, one count of 2,000,000,000


def test_uci_count_of_two_billion_is_refused_before_allocating(tmp_path):
    """Issue 17 §5: one count of 2,000,000,000 made `gas lda` allocate until the kernel killed it
    at 21.7 GB. Run here under a 3 GiB address-space limit: before, MemoryError traceback (exit
    1) from np.repeat (16 GB of token ids); now exit status 2 within seconds, naming the file,
    line 4, the count, the bytes it would need and --max-tokens."""
    p = tmp_path / "docword.bomb.txt"
    p.write_text(BOMB)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "gas.cli", "lda", str(p), "-q"],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=300,
    )
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    assert f"{p}:4:" in r.stderr and "2,000,000,000" in r.stderr
    assert "238.4 GiB" in r.stderr  # 2e9 tokens x 128 bytes, by hand: 2.56e11 / 2**30
    assert "--max-tokens" in r.stderr
    assert time.perf_counter() - t0 < 120


def test_uci_count_limit_is_overridable_and_names_the_line(tmp_path):
    """The limit is max_tokens: 3 tokens (2 + 1, by hand) pass max_tokens=3 and fail
    max_tokens=2 at line 5, the line that crosses it (before: no such parameter)."""
    p = tmp_path / "docword.x.txt"
    p.write_text("2\n2\n2\n1 1 2\n2 2 1\n")
    assert read_uci(p, max_tokens=3).num_tokens == 3
    with pytest.raises(InputError, match="more than the limit of 2") as ei:
        read_uci(p, max_tokens=2)
    assert ei.value.line == 5 and ei.value.text == "1"
    with pytest.raises(InputError, match="no tokens"):  # all counts 0: nothing to model
        p.write_text("2\n2\n1\n1 1 0\n")
        read_uci(p)


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("1000000000000\n1\n1\n1 1 1\n", 1, "documents D"),
        ("1\n1000000000000\n1\n1 1 1\n", 2, "words W"),
        ("2\n3\n1000000\n1 1 1\n", 3, "NNZ = 1,000,000"),
        ("-1\n3\n1\n1 1 1\n", 1, "non-negative"),
    ],
)
def test_uci_header_claims_beyond_the_file_are_refused(tmp_path, text, line, what):
    """Before: D or W of 10**12 built a list of 10**12 names (the process grew until killed; not
    rerun here), and NNZ was compared only after parsing. Now an InputError at the header line,
    before anything is allocated from it: the 6 bytes '1 1 1\\n' hold 1 line, not 1,000,000."""
    p = tmp_path / "docword.h.txt"
    p.write_text(text)
    t0 = time.perf_counter()
    with pytest.raises(InputError, match=what) as ei:
        read_uci(p)
    assert ei.value.line == line and ei.value.path == str(p)
    assert time.perf_counter() - t0 < 5


@pytest.mark.parametrize(
    "body, match",
    [("1 0:2000000000\n", "2,000,000,000"), ("1 1000000000000:1\n", "vocabulary size 1,000,000,000,001")],
)
def test_ldac_claims_beyond_the_limit_are_refused(tmp_path, body, match):
    """Before: a count of 2e9 went on to np.repeat in lda(), and a word id of 10**12 without a
    vocabulary built 10**12 word names (not rerun here). Now an InputError at line 1."""
    p = tmp_path / "c.dat"
    p.write_text(body)
    with pytest.raises(InputError, match=match) as ei:
        read_ldac(p, max_tokens=10**9)
    assert ei.value.line == 1 and "--max-tokens" in str(ei.value)


def test_lda_refuses_a_run_beyond_available_memory():
    """lda() with 10**9 topics on 2 documents and 2 words needs (2+2+1) x 56e9 bytes, about
    261 GiB (by hand): refused before allocating (before: np.zeros of 10**9 topics per vertex)."""
    c = Corpus.from_documents([["a", "b"], ["b"]])
    with pytest.raises(InputError, match=r"would need about 26\d\.\d GiB"):
        lda(c, topics=10**9, iters=1)


def test_ratings_parse_is_checked_against_available_memory(tmp_path, monkeypatch):
    """A ratings file has no header to bound it: its parse allocates about 4 bytes per byte of
    text (len // 8 rows of 3 float64/int64 columns). With the available memory reported as 1 KB
    (monkeypatched), a 600-byte file is refused before parsing (before: read regardless)."""
    import gas.io.limits
    from gas.io.ratings import read_pairs, read_ratings

    path = _write_ratings(tmp_path / "r.txt")
    assert len(read_ratings(path)) == 300
    (tmp_path / "small.txt").write_text("1 2 3.5\n" * 75)  # 600 bytes: 2,400 to parse > 1,000
    monkeypatch.setattr(gas.io.limits, "available_memory", lambda: 1000)
    for reader in (read_ratings, read_pairs):
        with pytest.raises(InputError, match="would need about") as ei:
            reader(tmp_path / "small.txt")
        assert ei.value.path == str(tmp_path / "small.txt")
