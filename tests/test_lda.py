"""LDA by collapsed Gibbs sampling on the engine.

References: the exact sequential sampler ``lda_reference`` (plain O(K) collapsed Gibbs,
Griffiths and Steyvers 2004), counts recomputed from the edges with numpy, the joint
log-likelihood recomputed with scipy.special.gammaln, and the generating topics of a synthetic
corpus. Timing lives in bench/lda.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import gammaln

from gas.algorithms.lda import _setup, _start, heldout_perplexity, lda, lda_reference
from gas.algorithms.lda_sampler import counts_from_assignments, loglikelihood
from gas.datasets import lda_corpus
from gas.errors import GasError
from gas.io.corpus import Corpus


@pytest.fixture(scope="module")
def small():
    return lda_corpus(num_docs=300, doc_length=60, num_words=150, topics=4, alpha=0.1, beta=0.05, seed=4)


def test_one_document_one_topic():
    c = Corpus.from_documents([["a", "b", "a", "c", "c", "c"]])
    m = lda(c, topics=1, iters=5)
    assert m.assignments.tolist() == [0] * 6
    np.testing.assert_allclose(m.doc_topic, [[1.0]])
    # hand-computed: one topic, counts a=2, b=1, c=3, beta=0.01, W=3: (n_w + beta) / (6 + 0.03)
    np.testing.assert_allclose(m.topic_word, [[2.01 / 6.03, 1.01 / 6.03, 3.01 / 6.03]])


def test_counts_consistent_with_assignments_after_every_sweep(small):
    c, _, _ = small
    K = 4
    st = _setup(c, K, 0.1, 0.01, seed=3, ll_every=1, threads=None, debug=False)
    eng, D, W = st.eng, c.num_docs, c.num_words
    z_prev = eng.edge_columns["z"][st.eid].astype(np.int64)
    for _ in range(4):
        res = eng.run(1)
        z = eng.edge_columns["z"][st.eid].astype(np.int64)
        assert z.min() >= 0 and z.max() < K
        nk_col = eng.columns["nk"]
        # numpy recount from the edges: documents are exact after their own scatter ...
        ndk = np.zeros((D, K), np.int64)
        np.add.at(ndk, (st.doc, z), 1)
        np.testing.assert_array_equal(nk_col[:D], ndk)
        # ... words and the hub hold the counts of the assignments the sweep started from
        nwk = np.zeros((W, K), np.int64)
        np.add.at(nwk, (st.word, z_prev), 1)
        np.testing.assert_array_equal(nk_col[D : D + W], nwk)
        np.testing.assert_array_equal(nk_col[D + W], np.bincount(z_prev, minlength=K))
        # each document's list of nonzero topics matches its counts
        for d in range(0, D, 37):
            nnz = eng.columns["nnz"][d]
            assert sorted(eng.columns["nz"][d, :nnz].tolist()) == np.flatnonzero(ndk[d]).tolist()
        # the aggregate is the exact log-likelihood of the state the sweep started from
        ref = loglikelihood(*counts_from_assignments(st.doc, st.word, z_prev, D, W, K), 0.1, 0.01)
        assert res.aggregates["ll"] == pytest.approx(ref, rel=1e-9)
        z_prev = z


def test_fixed_seed_identical_results_any_thread_count(small):
    c, _, _ = small
    a = lda(c, topics=4, iters=8, seed=11, threads=1)
    b = lda(c, topics=4, iters=8, seed=11, threads=2)
    d = lda(c, topics=4, iters=8, seed=12, threads=2)
    assert np.array_equal(a.assignments, b.assignments) and np.array_equal(a.loglik, b.loglik)
    assert not np.array_equal(a.assignments, d.assignments)


def test_debug_mode_runs_the_same_program():
    c, _, _ = lda_corpus(num_docs=6, doc_length=10, num_words=12, topics=2, seed=0)
    a = lda(c, topics=4, iters=2, seed=5)
    b = lda(c, topics=4, iters=2, seed=5, debug=True)
    assert np.array_equal(a.assignments, b.assignments)


def test_loglikelihood_matches_scipy():
    rng = np.random.default_rng(0)
    ndk = rng.integers(0, 5, (7, 4))
    nwk = rng.integers(0, 5, (9, 4))
    nwk[:, 0] += ndk[:, 0].sum() - nwk[:, 0].sum() if ndk[:, 0].sum() > nwk[:, 0].sum() else 0
    nk = nwk.sum(0)
    a, b = 0.3, 0.02
    D, K = ndk.shape
    W = nwk.shape[0]
    # scipy: log p(w|z) + log p(z), Dirichlet-multinomial, written independently
    ref = K * (gammaln(W * b) - W * gammaln(b)) + np.sum(gammaln(nwk + b)) - np.sum(gammaln(nk + W * b))
    ref += (
        D * (gammaln(K * a) - K * gammaln(a)) + np.sum(gammaln(ndk + a)) - np.sum(gammaln(ndk.sum(1) + K * a))
    )
    assert loglikelihood(ndk, nwk, nk, a, b) == pytest.approx(ref, rel=1e-12)


def test_loglik_close_to_exact_sampler(small):
    c, _, _ = small
    m = lda(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2)
    r = lda_reference(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2)
    # compare the mean of the last 20 sweeps (the chains fluctuate sweep to sweep)
    mine = m.loglik[-1]
    ref = r.loglik[-20:].mean()
    assert abs(mine - ref) / abs(ref) < 0.01
    assert m.loglik[-1] > m.loglik[0] + 0.1 * abs(m.loglik[0])


@pytest.mark.parametrize("dense", [False, True])
def test_token_sampler_draws_the_collapsed_conditional(dense):
    """Both token samplers (the document-bucket one and the walk over all K) against the
    conditional written out with numpy: p(k) ~ (n_dk^- + a) (n_wk^- + b) / (n_k + W b), the token's
    own old topic taken off the document's and the word's counts (the totals stay as given)."""
    from gas.algorithms.lda_sampler import sample_token, sample_token_dense, seed_states

    a, b, W = 0.1, 0.05, 30
    nd0 = np.array([3, 0, 1, 0, 5, 2, 0, 1], np.int32)  # zeros: the smoothing bucket matters
    nw0 = np.array([1, 4, 2, 0, 0, 7, 1, 3], np.int32)
    nk = np.array([40, 55, 20, 31, 60, 70, 12, 25])
    K, o = nd0.size, 5  # the token sits on topic 5 in the document and in the word
    phi = (nw0 + b) / (nk + W * b)
    ndm, nwm = nd0.astype(float), nw0.astype(float)
    ndm[o] -= 1
    nwm[o] -= 1
    want = (ndm + a) * (nwm + b) / (nk + W * b)
    want /= want.sum()
    nz0 = np.flatnonzero(nd0).astype(np.int32)
    nz0 = np.concatenate([nz0, np.zeros(K - nz0.size, np.int32)])
    n = 40_000
    states = seed_states(7, n, 3)
    got = np.zeros(K)
    for i in range(n):
        nd, nz, buf = nd0.copy(), nz0.copy(), np.zeros(K + K // 8)
        if dense:
            new, nnz, _ = sample_token_dense(nd, nz, 5, buf, phi.astype(np.float32), nw0, o, a, b, states[i])
        else:
            new, nnz, _ = sample_token(nd, nz, 5, buf, np.cumsum(phi), nw0, o, a, b, states[i])
        got[new] += 1
        # the document's counts and topic list follow the move
        expect = nd0.copy()
        expect[o] -= 1
        expect[new] += 1
        assert nd.tolist() == expect.tolist()
        assert sorted(nz[:nnz].tolist()) == np.flatnonzero(expect).tolist()
    # every topic within 4.5 binomial standard deviations of its probability
    sd = np.sqrt(n * want * (1 - want))
    assert np.all(np.abs(got - n * want) < 4.5 * sd), (got / n, want)


def test_document_bucket_sampler_on_the_engine(small, monkeypatch):
    """DENSE_RATIO = 0: every token takes the document-bucket path (the small corpus's K = 4
    would otherwise always walk all K); both chains match the exact sampler."""
    import importlib

    lda_module = importlib.import_module("gas.algorithms.lda")
    c, _, _ = small
    r = lda_reference(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2)
    ref = r.loglik[-20:].mean()
    monkeypatch.setattr(lda_module, "DENSE_RATIO", 0)
    sparse = lda(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2)
    monkeypatch.setattr(lda_module, "DENSE_RATIO", 8)
    dense = lda(c, topics=4, alpha=0.1, beta=0.05, iters=60, seed=2)
    assert not np.array_equal(sparse.assignments, dense.assignments)  # the two paths ran
    for m in (sparse, dense):
        assert abs(m.loglik[-1] - ref) / abs(ref) < 0.01


def _best_match_cosine(learned, true):
    a = learned / np.linalg.norm(learned, axis=1, keepdims=True)
    b = true / np.linalg.norm(true, axis=1, keepdims=True)
    return float((b @ a.T).max(axis=1).mean())


def test_recovers_generating_topics_and_heldout_perplexity():
    c, phi, _ = lda_corpus(num_docs=600, doc_length=80, num_words=200, topics=4, alpha=0.1, beta=0.05, seed=9)
    train, test = c.subset(np.arange(500)), c.subset(np.arange(500, 600))
    m = lda(train, topics=4, alpha=0.1, beta=0.05, iters=80, seed=0)
    assert _best_match_cosine(m.topic_word, phi) >= 0.9
    ppl = heldout_perplexity(m, test, seed=1)
    # unigram baseline (numpy): training word frequencies, scored on the same held-out halves
    freq = (np.bincount(train.tokens()[1], minlength=c.num_words) + 0.05) / (train.num_tokens + 0.05 * 200)
    d, w = test.tokens()
    key = np.random.default_rng(1).random(d.size)
    order = np.lexsort((key, d))
    d, w = d[order], w[order]
    lengths = test.doc_lengths()
    pos = np.arange(d.size) - np.concatenate([[0], np.cumsum(lengths)[:-1]])[d]
    scored = w[pos >= lengths[d] // 2]
    unigram = float(np.exp(-np.log(freq[scored]).mean()))
    assert ppl < 0.8 * unigram
    # the true model's own perplexity (true topics, fold-in) is a floor LDA cannot beat by much
    assert ppl > 0.9 * heldout_perplexity(
        type(m)(m.doc_topic, phi, m.loglik, m.loglik_iters, m.vocab, 0.1, 0.05, 0, m.assignments),
        test,
        seed=1,
    )


def test_transform_finds_the_topic_of_a_single_topic_document(small):
    c, phi, _ = small
    m = lda(c, topics=4, alpha=0.1, beta=0.05, iters=40, seed=0)
    k_true = 2
    k_model = int(np.argmax(m.topic_word @ phi[k_true]))
    words = np.argsort(-phi[k_true])[:10]
    doc = np.zeros((1, c.num_words), np.int64)
    doc[0, words] = 3
    theta = m.transform(doc)
    np.testing.assert_allclose(theta.sum(1), 1.0)
    assert int(np.argmax(theta[0])) == k_model and theta[0, k_model] > 0.7


def test_outputs_and_save(tmp_path, small):
    c, _, _ = small
    m = lda(c, topics=4, iters=5, ll_every=2)
    np.testing.assert_allclose(m.doc_topic.sum(1), 1.0)
    np.testing.assert_allclose(m.topic_word.sum(1), 1.0)
    assert m.loglik_iters.tolist() == [0, 2, 4, 5]
    assert len(m.top_words(4)) == 4 and all(len(t) == 4 for t in m.top_words(4))
    m.save(tmp_path / "model")
    np.testing.assert_array_equal(np.load(tmp_path / "model" / "doc_topic.npy"), m.doc_topic)
    assert (tmp_path / "model" / "vocab.txt").read_text().split("\n")[:2] == c.vocab[:2]


def test_count_matrix_input_and_errors():
    X = np.array([[2, 0, 1], [0, 3, 0]])
    m = lda(X, topics=4, iters=3)
    assert m.doc_topic.shape == (2, 4) and m.vocab == ["0", "1", "2"]
    with pytest.raises(GasError, match="topics"):
        lda(X, topics=0)
    with pytest.raises(GasError, match="alpha"):
        lda(X, alpha=-1.0)
    with pytest.raises(GasError, match="Corpus"):
        lda(np.array([1.5, 2.0]))


def test_cli_lda(tmp_path, capsys):
    from gas.cli import main

    c, _, _ = lda_corpus(num_docs=40, doc_length=30, num_words=25, topics=4, seed=1)
    with open(tmp_path / "toy.dat", "w") as f:
        for d in range(c.num_docs):
            sel = c.doc == d
            f.write(f"{sel.sum()} " + " ".join(f"{w}:{n}" for w, n in zip(c.word[sel], c.count[sel])) + "\n")
    (tmp_path / "vocab.txt").write_text("\n".join(c.vocab) + "\n")
    argv = [str(tmp_path / "toy.dat"), "--topics", "4", "--iters", "6", "--ll-every", "2"]
    argv += [
        "--save-model",
        str(tmp_path / "m"),
        "--output-topics",
        str(tmp_path / "t.tsv"),
        "--top-words",
        "3",
    ]
    assert main(["lda", *argv]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "topic\ttop words" and len(out.splitlines()) == 5
    assert "loglik/token" in err and "M tokens/s" in err
    dt = np.load(tmp_path / "m" / "doc_topic.npy")
    assert dt.shape == (40, 4) and np.allclose(dt.sum(1), 1.0)
    assert np.load(tmp_path / "m" / "topic_word.npy").shape == (4, 25)
    assert (tmp_path / "t.tsv").read_text().splitlines() == out.splitlines()[1:]
    assert main(["lda", str(tmp_path / "missing.dat")]) == 2
    assert "missing.dat" in capsys.readouterr().err


# ---------------------------------------------------------------------- on several processes
@pytest.mark.parametrize("procs, method", [(2, "hash"), pytest.param(3, "fennel", marks=pytest.mark.slow)])
def test_processes_give_the_one_process_assignments(small, procs, method):
    from gas.partition import partition

    c, _, _ = small
    st = _start(c, 4, 0.1, 0.05, seed=3, ll_every=2)
    D, W = c.num_docs, c.num_words
    a = partition(st.graph, method, num_parts=procs, seed=0)
    # the split is real: every process holds documents, and some words have tokens on several
    assert set(a.vertex_part[:D].tolist()) == set(range(procs))
    doc_part = a.vertex_part[st.doc]
    parts_of_word = (
        np.stack([np.bincount(st.word[doc_part == q], minlength=W) for q in range(procs)]) > 0
    ).sum(0)
    assert parts_of_word.max() > 1
    one = lda(c, topics=4, alpha=0.1, beta=0.05, iters=12, seed=3, ll_every=2)
    many = lda(c, topics=4, alpha=0.1, beta=0.05, iters=12, seed=3, ll_every=2, procs=procs, partition=method)
    # documents are whole on one process and sample from their own random streams; words' and the
    # hub's counts are integer sums over the processes: the same chain, token for token
    np.testing.assert_array_equal(many.assignments, one.assignments)
    assert many.loglik_iters.tolist() == one.loglik_iters.tolist() == [0, 2, 4, 6, 8, 10, 12]
    np.testing.assert_allclose(many.loglik, one.loglik, rtol=1e-9)  # aggregates: another sum order
    assert abs(many.loglik_per_token()[-1] / one.loglik_per_token()[-1] - 1) < 0.01  # the 1 %
    np.testing.assert_array_equal(many.doc_topic, one.doc_topic)
    np.testing.assert_array_equal(many.topic_word, one.topic_word)


def test_counts_on_two_processes_match_the_assignments(small):
    """Vertex counts of a 2-process run recomputed with numpy from the returned topics."""
    from gas.runtime.local import LocalCluster, run_distributed

    c, _, _ = small
    K, D, W = 4, c.num_docs, c.num_words
    st = _start(c, K, 0.1, 0.01, seed=5, ll_every=1)
    initial = {"vertex": {"nk": st.nk, "rng": st.rng}, "edges": {"z": st.z}}
    with LocalCluster(2) as cl:
        runs = [
            run_distributed(
                st.graph, st.program, partition="ldg", max_iter=t, initial=initial, edges=True, cluster=cl
            )
            for t in (2, 3)
        ]
    z2, z3 = (r.edge_data["z"][st.eid].astype(np.int64) for r in runs)
    nk = runs[1].vertex_data["nk"]
    ndk = np.zeros((D, K), np.int64)
    np.add.at(ndk, (st.doc, z3), 1)
    np.testing.assert_array_equal(nk[:D], ndk)  # documents: exact after their own scatter
    nwk = np.zeros((W, K), np.int64)
    np.add.at(nwk, (st.word, z2), 1)
    np.testing.assert_array_equal(nk[D : D + W], nwk)  # words: the sweep's start, summed over processes
    np.testing.assert_array_equal(nk[D + W], np.bincount(z2, minlength=K))  # the hub's totals
    # the last sweep's aggregate, reduced over masters, is the exact log-likelihood of its start
    ref = loglikelihood(*counts_from_assignments(st.doc, st.word, z2, D, W, K), 0.1, 0.01)
    assert runs[1].stats[-1]["ll"] == pytest.approx(ref, rel=1e-9)


def test_processes_refuse_a_vertex_cut(small):
    c, _, _ = small
    with pytest.raises(ValueError, match="edge-cut partitioner .*'hdrf'.*document"):
        lda(c, topics=4, iters=1, procs=2, partition="hdrf")
    with pytest.raises(ValueError, match="Unknown partitioner"):
        lda(c, topics=4, iters=1, procs=2, partition="nope")
    with pytest.raises(GasError, match="procs"):
        lda(c, topics=4, iters=1, procs=0)


def test_cli_lda_on_two_processes(tmp_path, capsys):
    from gas.cli import main

    c, _, _ = lda_corpus(num_docs=40, doc_length=30, num_words=25, topics=4, seed=1)
    with open(tmp_path / "toy.dat", "w") as f:
        for d in range(c.num_docs):
            sel = c.doc == d
            f.write(f"{sel.sum()} " + " ".join(f"{w}:{n}" for w, n in zip(c.word[sel], c.count[sel])) + "\n")
    (tmp_path / "vocab.txt").write_text("\n".join(c.vocab) + "\n")
    argv = ["lda", str(tmp_path / "toy.dat"), "--topics", "4", "--iters", "6", "--ll-every", "3"]
    assert main(argv) == 0
    one_out, one_err = capsys.readouterr()
    assert main([*argv, "--procs", "2", "--partition", "fennel"]) == 0
    two_out, two_err = capsys.readouterr()
    assert two_out == one_out  # the same chain: the same top words
    assert "loglik/token" in two_err and "M tokens/s" in two_err
    assert main([*argv, "-q", "--procs", "2", "--partition", "grid"]) == 2
    assert "edge-cut" in capsys.readouterr().err
