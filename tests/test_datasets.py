"""Generators (R-MAT, power law) and the bundled ego-Facebook graph.

Oracles: the R-MAT pair distribution is compared with the exact Kronecker product of the
quadrant probabilities (computed here with ``numpy.outer``); the bundled file is read a second
time with ``gzip`` + ``str.split``; the counts are those SNAP publishes for ego-Facebook.
"""

from __future__ import annotations

import gzip
import hashlib

import numba
import numpy as np
import pytest

import gas
from gas.datasets import BUNDLED, bundled, load_bundled, powerlaw, rmat, rmat_graph


def test_rmat_shape_and_range():
    src, dst = rmat(10, edge_factor=8, seed=3)
    assert src.dtype == np.int64 and dst.dtype == np.int64
    assert src.shape == dst.shape == (8 * 1024,)
    assert src.min() >= 0 and dst.min() >= 0
    assert max(src.max(), dst.max()) < 1024


def test_rmat_deterministic_and_seed_dependent():
    a = rmat(12, seed=7)
    b = rmat(12, seed=7)
    c = rmat(12, seed=8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_rmat_independent_of_thread_count():
    serial = rmat(13, seed=11, parallel=False)
    before = numba.get_num_threads()
    results = []
    try:
        for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(t)
            results.append(rmat(13, seed=11))
    finally:
        numba.set_num_threads(before)
    for src, dst in results:
        assert np.array_equal(src, serial[0]) and np.array_equal(dst, serial[1])


@pytest.mark.parametrize("scale", [3, 4, 5])
@pytest.mark.parametrize("noise", [0.0, 0.5])
def test_rmat_pair_distribution(scale, noise):
    # oracle: P(src, dst) is the Kronecker product of the per-level quadrant probabilities; the
    # label bijection permutes pairs, so compare the sorted frequency vectors.
    from gas.datasets.generators import _level_probabilities

    probs = _level_probabilities(scale, 0.57, 0.19, 0.19, noise, seed=5)
    assert np.allclose(probs.sum(axis=1), 1.0) and (probs >= 0).all()
    if noise:
        assert not np.allclose(probs[0], [0.57, 0.19, 0.19, 0.05])
    n = 1 << scale
    expected = np.ones((1, 1))
    for level in range(scale):
        expected = np.kron(expected, probs[level].reshape(2, 2))
    src, dst = rmat(scale, edge_factor=400_000 // n, seed=5, noise=noise)
    freq = np.bincount(src * n + dst, minlength=n * n) / src.size
    tol = 6 * np.sqrt(expected.max() / src.size)  # six standard deviations of the largest cell
    assert np.abs(np.sort(freq) - np.sort(expected.ravel())).max() < tol


def test_rmat_alias_tables_exact():
    # oracle: numpy.kron of the per-level 2x2 quadrant matrices; the alias tables must realise
    # each (source bits, target bits) pattern of a group with that probability (to 2**-32)
    from gas.datasets.generators import _group_tables, _level_probabilities

    probs = _level_probabilities(10, 0.57, 0.19, 0.19, 0.3, seed=1)
    tables, widths = _group_tables(probs)
    assert widths.tolist() == [4, 4, 2]
    bucket = 1 << 24
    for g, k in enumerate(widths.tolist()):
        thr = (tables[g] & np.uint64(0xFFFFFFFF)).astype(np.int64)
        own = ((tables[g] >> np.uint64(32)) & np.uint64(0xFF)).astype(np.int64)
        alias = ((tables[g] >> np.uint64(40)) & np.uint64(0xFF)).astype(np.int64)
        assert thr.min() >= 0 and thr.max() <= bucket
        real = np.bincount(own, weights=thr, minlength=256)
        real += np.bincount(alias, weights=bucket - thr, minlength=256)
        expected = np.ones((1, 1))
        for level in range(4 * g, 4 * g + k):
            expected = np.kron(expected, probs[level].reshape(2, 2))
        for sb in range(2**k):
            for db in range(2**k):
                assert abs(real[(sb << 4) | db] / 2**32 - expected[sb, db]) < 2**-31
        assert real.sum() == 2**32


def test_rmat_labels_permuted_and_skewed():
    src, dst = rmat(14, seed=0)
    deg = np.bincount(np.concatenate([src, dst]), minlength=1 << 14)
    assert deg.max() > 20 * deg.mean()  # heavy-tailed, as R-MAT should be
    top = np.argsort(deg)[-10:]
    assert top.min() > 10  # the hubs are not the lowest ids: labels were permuted


def test_rmat_rejects_bad_parameters():
    with pytest.raises(ValueError, match="scale"):
        rmat(0)
    with pytest.raises(ValueError, match="a \\+ b \\+ c"):
        rmat(4, a=0.6, b=0.3, c=0.3)
    with pytest.raises(ValueError, match="noise"):
        rmat(4, noise=1.5)


def test_rmat_graph():
    g = rmat_graph(9, edge_factor=4, seed=2)
    src, dst = rmat(9, edge_factor=4, seed=2)
    assert g.num_vertices == 512
    # oracle: distinct (src, dst) pairs counted with a Python set
    assert g.num_edges == len(set(zip(src.tolist(), dst.tolist(), strict=True)))
    assert rmat_graph(9, edge_factor=4, seed=2, dedupe=False).num_edges == src.size


def test_powerlaw():
    src, dst = powerlaw(5000, avg_degree=10, exponent=2.1, seed=4)
    assert src.shape == dst.shape == (50_000,)
    assert src.min() >= 0 and max(src.max(), dst.max()) < 5000
    again = powerlaw(5000, avg_degree=10, exponent=2.1, seed=4)
    assert np.array_equal(src, again[0]) and np.array_equal(dst, again[1])
    deg = np.bincount(src, minlength=5000)
    assert deg.max() > 50 * deg.mean()
    assert np.argmax(deg) != 0  # labels shuffled
    # steeper exponent -> lighter tail
    light = np.bincount(powerlaw(5000, avg_degree=10, exponent=3.5, seed=4)[0]).max()
    assert light < deg.max()
    with pytest.raises(ValueError, match="exponent"):
        powerlaw(10, exponent=1.0)


def test_bundled_facebook():
    path = bundled()
    assert path.exists() and path.name == BUNDLED["ego-Facebook"]
    # sha256 recorded in datasets/data/README.md
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == "7cc432d08910b3a940ce90f7da94c13aaf048b04724eafcdf3050b28acc49daf"
    g = load_bundled()
    assert (g.num_vertices, g.num_edges) == (4039, 88234)  # SNAP's published counts
    with gzip.open(path, "rt") as f:  # oracle: gzip + str.split
        pairs = {tuple(map(int, line.split())) for line in f}
    got = set(zip(g.ids[g.src].tolist(), g.ids[g.dst].tolist(), strict=True))
    assert got == pairs
    sym = load_bundled(symmetric=True)
    assert sym.num_edges == 2 * 88234
    assert np.array_equal(sym.in_degree, sym.out_degree)


def test_bundled_unknown_name_lists_known():
    with pytest.raises(gas.InputError, match="ego-Facebook"):
        bundled("nope")
