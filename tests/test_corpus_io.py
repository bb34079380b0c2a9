"""Corpus loaders (UCI bag-of-words, lda-c, raw text) and the synthetic LDA corpus.

Expected values are written by hand for the toy files, or come from an independent plain-Python
reader (str.split) for the AP corpus; the AP totals are those in ../shared/datasets/README.md.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from collections import Counter

import numpy as np
import pytest
from conftest import shared_path

from gas.datasets import lda_corpus
from gas.errors import InputError
from gas.io.corpus import STOP_WORDS, Corpus, load_corpus, read_ldac, read_text, read_uci

UCI = "3\n4\n4\n1 1 2\n1 4 1\n3 2 5\n3 3 1\n"
VOCAB = "ant\nbee\ncat\ndog\n"
# hand-written: document 2 is empty
UCI_DENSE = [[2, 0, 0, 1], [0, 0, 0, 0], [0, 5, 1, 0]]


def test_uci_plain_and_gzip_with_vocab(tmp_path):
    (tmp_path / "docword.toy.txt").write_text(UCI)
    (tmp_path / "vocab.toy.txt").write_text(VOCAB)
    with gzip.open(tmp_path / "docword.toy.txt.gz", "wt") as f:
        f.write(UCI)
    for name in ("docword.toy.txt", "docword.toy.txt.gz"):
        c = read_uci(tmp_path / name)
        assert c.vocab == ["ant", "bee", "cat", "dog"]
        assert c.dense().tolist() == UCI_DENSE
        assert c.num_docs == 3 and c.num_tokens == 9
        assert c.doc_lengths().tolist() == [3, 0, 6]


def test_uci_without_vocab_uses_ids(tmp_path):
    (tmp_path / "docword.x.txt").write_text(UCI)
    c = read_uci(tmp_path / "docword.x.txt")
    assert c.vocab == ["1", "2", "3", "4"]
    assert load_corpus(tmp_path / "docword.x.txt").dense().tolist() == UCI_DENSE


@pytest.mark.parametrize(
    "text, line, value",
    [
        ("3\n4\n4\n1 1 2\n1 x 1\n3 2 5\n3 3 1\n", 5, "x"),
        ("3\n4\n4\n1 1 2\n1 9 1\n3 2 5\n3 3 1\n", 5, "9"),
        ("3\n4\n4\n1 1 2\n1 4 1\n0 2 5\n3 3 1\n", 6, "0"),
        ("3\nfour\n4\n1 1 2\n", 2, "four"),
    ],
)
def test_uci_errors_name_file_line_value(tmp_path, text, line, value):
    p = tmp_path / "docword.bad.txt"
    p.write_text(text)
    with pytest.raises(InputError) as ei:
        read_uci(p)
    assert ei.value.path == str(p) and ei.value.line == line and ei.value.text == value


def test_uci_truncated(tmp_path):
    p = tmp_path / "docword.bad.txt"
    p.write_text("3\n4\n5\n1 1 2\n")
    with pytest.raises(InputError, match="NNZ = 5"):
        read_uci(p)


def test_ldac_toy_and_errors(tmp_path):
    (tmp_path / "vocab.txt").write_text(VOCAB)
    (tmp_path / "toy.dat").write_text("2 0:2 3:1\n0\n2 1:5 2:1\n")
    c = read_ldac(tmp_path / "toy.dat")
    assert c.dense().tolist() == UCI_DENSE and c.vocab[3] == "dog"
    assert load_corpus(tmp_path).dense().tolist() == UCI_DENSE  # folder with one .dat + vocab.txt
    for body, line in (("2 0:2 3:1\n3 1:5 2:1\n", 2), ("1 0:2\n1 0-2\n", 2), ("1 0:2\n\n1 7:1\n", 3)):
        (tmp_path / "bad.dat").write_text(body)
        with pytest.raises(InputError) as ei:
            read_ldac(tmp_path / "bad.dat")
        assert ei.value.line == line and str(tmp_path / "bad.dat") in str(ei.value)


def test_ap_matches_plain_python_reader():
    dat = shared_path("ap/ap.dat")
    vocab = (dat.parent / "vocab.txt").read_text().split("\n")
    c = load_corpus(dat)
    # README of ../shared/datasets: 2,246 documents, 10,473 words, 435,838 tokens, 302,031 nonzeros
    assert (c.num_docs, c.num_words, c.num_tokens, c.doc.size) == (2246, 10473, 435838, 302031)
    lines = [ln for ln in dat.read_text().splitlines() if ln.strip()]
    for d in (0, 1, 1000, 2245):
        ref = {}
        for pair in lines[d].split()[1:]:
            i, n = pair.split(":")
            ref[vocab[int(i)]] = int(n)
        mine = c.doc == d
        assert {c.vocab[w]: int(n) for w, n in zip(c.word[mine], c.count[mine])} == ref


def _tar(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("latin-1")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


DOCS = {
    "b/2.txt": "From: x@y.edu\nSubject: dogs\n\nThe dog chased the Cat; the cat ran.",
    "a/1.txt": "Cats and dogs. A cat!",
    "c/3.txt": "The zebra.",
}


def test_text_folder_and_tar_agree(tmp_path):
    for name, text in DOCS.items():
        (tmp_path / "f" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "f" / name).write_text(text, encoding="latin-1")
    _tar(tmp_path / "docs.tar.gz", DOCS)
    a, b = load_corpus(tmp_path / "f"), load_corpus(tmp_path / "docs.tar.gz")
    assert a.vocab == b.vocab and a.dense().tolist() == b.dense().tolist()
    assert a.doc_names == ["a/1.txt", "b/2.txt", "c/3.txt"]
    # hand-tokenised: header dropped, lower-cased, stop words ('the', 'and', 'a') removed
    assert a.vocab == ["cat", "cats", "chased", "dog", "dogs", "ran", "zebra"]
    assert a.dense().tolist() == [[1, 1, 0, 0, 1, 0, 0], [2, 0, 1, 1, 0, 1, 0], [0, 0, 0, 0, 0, 0, 1]]


def test_text_document_frequency_window(tmp_path):
    _tar(tmp_path / "d.tar", DOCS)
    assert read_text(tmp_path / "d.tar", min_df=2).vocab == ["cat"]
    assert read_text(tmp_path / "d.tar", max_df=1).vocab == ["cats", "chased", "dog", "dogs", "ran", "zebra"]
    assert "cat" not in read_text(tmp_path / "d.tar", max_df=0.5).vocab  # in 2 of 3 documents
    kept = read_text(tmp_path / "d.tar", stop_words=None, strip_headers=False).vocab
    assert {"the", "and", "from", "subject"} <= set(kept)
    assert "the" in STOP_WORDS
    with pytest.raises(InputError, match="min_df"):
        read_text(tmp_path / "d.tar", min_df=1.5)


def test_20news_group_tarball():
    p = shared_path("20news-bydate/20news-bydate.sci.space.tar.gz")
    c = load_corpus(p, min_df=2)
    assert c.num_docs == 987  # README: 987 documents (593 train / 394 test)
    with tarfile.open(p) as tar:  # independent count of one document's words (plain re/Counter)
        import re

        m = tar.extractfile(c.doc_names[0]).read().decode("latin-1")
    body = m.split("\n\n", 1)[1] if ":" in m.split("\n", 1)[0] else m
    ref = Counter(w for w in re.findall("[a-z]+", body.lower()) if len(w) > 1 and w not in STOP_WORDS)
    mine = {c.vocab[w]: int(n) for w, n in zip(c.word[c.doc == 0], c.count[c.doc == 0])}
    assert mine == {w: n for w, n in ref.items() if w in set(c.vocab)}


def test_unknown_format(tmp_path):
    (tmp_path / "x.csv").write_text("1,2\n")
    with pytest.raises(InputError, match="format"):
        load_corpus(tmp_path / "x.csv")
    with pytest.raises(InputError, match="No such"):
        load_corpus(tmp_path / "missing.dat")


def test_corpus_helpers():
    c = Corpus.from_tokens([0, 0, 2, 2, 2], [1, 1, 0, 2, 0], 3)
    assert c.dense().tolist() == [[0, 2, 0], [0, 0, 0], [2, 0, 1]]
    s = c.subset(np.array([2, 0]))
    assert s.dense().tolist() == [[2, 0, 1], [0, 2, 0]] and s.doc_names == ["2", "0"]
    d, w = c.tokens()
    assert d.tolist() == [0, 0, 2, 2, 2] and sorted(w[2:].tolist()) == [0, 0, 2]


def test_synthetic_corpus_is_seeded_and_follows_its_topics():
    c1, phi, theta = lda_corpus(num_docs=200, doc_length=50, num_words=300, topics=5, seed=3)
    c2, phi2, _ = lda_corpus(num_docs=200, doc_length=50, num_words=300, topics=5, seed=3)
    assert np.array_equal(c1.dense(), c2.dense()) and np.array_equal(phi, phi2)
    assert c1.doc_lengths().tolist() == [50] * 200
    np.testing.assert_allclose(theta.sum(1), 1.0)
    # word frequencies follow the mixture sum_d theta_d phi (chi-square-free check: L1 distance)
    expected = (theta.sum(0) @ phi) / 200
    observed = c1.dense().sum(0) / c1.num_tokens
    assert np.abs(observed - expected).sum() < 0.15
