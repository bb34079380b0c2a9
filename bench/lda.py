"""LDA (collapsed Gibbs): gaslab against the `lda` package and tomotopy, side by side, one run.

Usage: python bench/lda.py [--sweeps 20] [--topics 50 200 1000] [--threads 2] [--ll-sweeps 200]
                           [--quick] [--no-write]

Corpora: AP (Blei's lda-c, ../shared/datasets/ap, 2,246 documents, 435,838 tokens) and a
synthetic corpus drawn from the LDA generative process (20,000 documents x 100 tokens, 10,000
words, 50 topics, alpha 0.1, beta 0.01, seed 0; ``gas.datasets.lda_corpus``).

For each corpus and K, every sampler starts from its own random state and runs ``--sweeps``
sweeps with alpha = 0.1, beta = 0.01 (tomotopy: no hyperparameter optimisation):

* tokens/s per sweep: tokens x sweeps / wall time of the sweeps (gaslab after a warm-up run that
  compiles the kernels; its per-sweep times exclude setup);
* log-likelihood per token after those sweeps: the joint ``log p(w, z)`` of each sampler's final
  assignments, computed by one function (``gas.algorithms.lda_sampler.loglikelihood``) for all,
  so the figures are comparable (the `lda` package's own ``loglikelihood()`` is the same formula,
  checked below).

The `lda` package is O(K) per token, so at K = 1000 it runs ``min(sweeps, 3)`` sweeps (its
log-likelihood cell is then left out). ``--ll-sweeps`` sweeps on AP at K = 50 give the 1 %
log-likelihood check against `lda`; the synthetic corpus at K = 50 gives the topic recovery
(mean over the generating topics of the best cosine with a learned topic).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from gas.datasets import lda_corpus  # noqa: E402
from gas.io.corpus import Corpus, load_corpus  # noqa: E402

L = importlib.import_module("gas.algorithms.lda")
S = importlib.import_module("gas.algorithms.lda_sampler")
SHARED = ROOT.parent / "shared" / "datasets"
ALPHA, BETA = 0.1, 0.01


def ll_of(c: Corpus, doc, word, z, K) -> float:
    counts = S.counts_from_assignments(doc, word, np.asarray(z, np.int64), c.num_docs, c.num_words, K)
    return float(S.loglikelihood(*counts, ALPHA, BETA)) / c.num_tokens


def run_gaslab(c: Corpus, K: int, sweeps: int, threads: int, seed: int = 1):
    L.lda(c.subset(np.arange(min(20, c.num_docs))), topics=K, iters=1, threads=threads)  # compile
    m = L.lda(c, topics=K, alpha=ALPHA, beta=BETA, iters=sweeps, seed=seed, ll_every=0, threads=threads)
    return c.num_tokens * sweeps / m.seconds.sum(), m.loglik_per_token()[-1], m


def _lda_package():
    """The `lda` package (this script is also named lda.py: import with bench/ off the path)."""
    here = str(ROOT / "bench")
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        return importlib.import_module("lda")
    finally:
        sys.path[:] = saved


def run_ldapkg(c: Corpus, K: int, sweeps: int, seed: int = 1):
    import logging

    import scipy.sparse as sp

    ldapkg = _lda_package()

    logging.getLogger("lda").setLevel(logging.WARNING)
    X = sp.csr_matrix((c.count, (c.doc, c.word)), shape=(c.num_docs, c.num_words))
    m = ldapkg.LDA(n_topics=K, n_iter=sweeps, alpha=ALPHA, eta=BETA, random_state=seed, refresh=10**9)
    t0 = time.perf_counter()
    m.fit(X)
    dt = time.perf_counter() - t0
    # the package's own log-likelihood of its final state, and ours from its counts
    own = m.loglikelihood() / c.num_tokens
    ours = float(S.loglikelihood(m.ndz_, m.nzw_.T.copy(), m.nz_, ALPHA, BETA)) / c.num_tokens
    return c.num_tokens * sweeps / dt, ours, own


def run_tomotopy(c: Corpus, K: int, sweeps: int, workers: int, seed: int = 1):
    import tomotopy as tp

    mdl = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed)
    doc, word = c.tokens()
    starts = np.concatenate([[0], np.cumsum(c.doc_lengths())])
    for d in range(c.num_docs):
        ws = word[starts[d] : starts[d + 1]]
        if ws.size:
            mdl.add_doc([c.vocab[j] for j in ws])
    mdl.optim_interval = 0  # keep alpha and eta fixed, as the other samplers
    mdl.train(0, workers=workers)
    t0 = time.perf_counter()
    mdl.train(sweeps, workers=workers)
    dt = time.perf_counter() - t0
    index = {w: i for i, w in enumerate(c.vocab)}
    vmap = np.array([index[w] for w in mdl.used_vocabs], np.int64)
    D2, W2, Z2 = [], [], []
    for i, d in enumerate(mdl.docs):
        D2.append(np.full(len(d.words), i))
        W2.append(vmap[np.asarray(d.words, np.int64)])
        Z2.append(np.asarray(d.topics, np.int64))
    sub = Corpus.from_tokens(np.concatenate(D2), np.concatenate(W2), c.vocab)
    ll = ll_of(sub, np.concatenate(D2), np.concatenate(W2), np.concatenate(Z2), K)
    return sub.num_tokens * sweeps / dt, ll


def best_match_cosine(learned: np.ndarray, true: np.ndarray) -> float:
    a = learned / np.linalg.norm(learned, axis=1, keepdims=True)
    b = true / np.linalg.norm(true, axis=1, keepdims=True)
    return float((b @ a.T).max(axis=1).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweeps", type=int, default=20)
    ap.add_argument("--topics", type=int, nargs="+", default=[50, 200, 1000])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ll-sweeps", type=int, default=200, help="sweeps of the 1 %% check (0: skip)")
    ap.add_argument("--quick", action="store_true", help="a 2,000-document synthetic corpus")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    corpora: list[tuple[str, Corpus, np.ndarray | None]] = []
    if (SHARED / "ap" / "ap.dat").exists():
        corpora.append(("AP", load_corpus(SHARED / "ap" / "ap.dat"), None))
    n = 2000 if args.quick else 20_000
    syn, phi, _ = lda_corpus(
        num_docs=n, doc_length=100, num_words=10_000, topics=50, alpha=ALPHA, beta=BETA, seed=0
    )
    corpora.append((f"synthetic {n // 1000}k x 100", syn, phi))
    load0 = os.getloadavg()[0]
    rows, notes = [], []
    for name, c, phi_true in corpora:
        for K in args.topics:
            print(f"{name} K={K} ...", file=sys.stderr, flush=True)
            g1, gll1, gm = run_gaslab(c, K, args.sweeps, 1)
            g2, gll2, _ = run_gaslab(c, K, args.sweeps, args.threads)
            lsweeps = args.sweeps if K < 1000 else min(args.sweeps, 3)
            lt, lll, lown = run_ldapkg(c, K, lsweeps)
            notes.append(f"{name} K={K}: lda package loglik/token {lll:.4f} ours vs {lown:.4f} its own")
            t1, tll1 = run_tomotopy(c, K, args.sweeps, 1)
            t2, tll2 = run_tomotopy(c, K, args.sweeps, args.threads)
            rec = ""
            if phi_true is not None and K == phi_true.shape[0]:
                rec = f"{best_match_cosine(gm.topic_word, phi_true):.3f}"
            rows.append(
                f"| {name} | {K} | {g1 / 1e6:.2f} | {g2 / 1e6:.2f} | {lt / 1e6:.2f} | {t1 / 1e6:.2f} | "
                f"{t2 / 1e6:.2f} | {g1 / lt:.1f}x | {g1 / t1:.2f} | {gll1:.4f} | "
                f"{(f'{lll:.4f}' if lsweeps == args.sweeps else '-')} | {tll1:.4f} | {rec} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    check = ""
    if args.ll_sweeps and corpora[0][0] == "AP":
        c = corpora[0][1]
        _, gll, _ = run_gaslab(c, 50, args.ll_sweeps, args.threads)
        _, lll, _ = run_ldapkg(c, 50, args.ll_sweeps)
        check = (
            f"Log-likelihood per token after {args.ll_sweeps} sweeps on AP, K = 50: gaslab {gll:.4f}, "
            f"`lda` {lll:.4f}, difference {100 * abs(gll - lll) / abs(lll):.2f} % (target: within 1 %)."
        )
        print(check, file=sys.stderr)
    load1 = os.getloadavg()[0]
    body = "\n".join(
        [
            f"`python bench/lda.py --sweeps {args.sweeps} --threads {args.threads}`"
            + (" --quick" if args.quick else "")
            + f": alpha {ALPHA}, beta {BETA}, {args.sweeps} sweeps from each sampler's own random start. "
            "M tokens/s = tokens x sweeps / wall time of the sweeps. loglik = joint log p(w, z) per "
            "token of the final assignments, one formula for all. gaslab 1 and tomotopy 1: one thread; "
            f"gaslab {args.threads} / tomotopy {args.threads}: {args.threads} threads / workers. "
            f"Machine: 2 cores shared with other agents (1-min load average {load0:.1f} at start, "
            f"{load1:.1f} at end), so absolute figures are pessimistic; compare within a row.",
            "",
            f"| corpus | K | gaslab 1 | gaslab {args.threads} | lda | tomotopy 1 | tomotopy {args.threads} "
            "| gaslab 1 / lda | gaslab 1 / tomotopy 1 | loglik gaslab | loglik lda | loglik tomotopy "
            "| topic recovery (cosine) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            check,
            "",
            "Check of the shared log-likelihood formula against the `lda` package's own: "
            + "; ".join(notes)
            + ".",
        ]
    )
    print(body)
    if not args.no_write:
        from _results import write_section

        write_section("LDA", body)


if __name__ == "__main__":
    main()
