"""``--stats FILE``, ``--plot FILE.png`` and ``gas pagerank --max-error`` (issue 21, items 6 and 7).

Run in-process through gas.cli.main. The PageRank reference is networkx.pagerank at tol=1e-15
(an independent implementation); by networkx's own rule it is within REF_ERR of the fixed point,
which the comparisons allow for (at tol=1e-14 on ego-Facebook's 4,039 vertices that margin is
2.3e-10, larger than a --max-error 1e-10 run's error: the reference must be this tight).
"""

from __future__ import annotations

import csv
import json
import re
import sys

import networkx as nx
import pytest

from gas.cli import main
from gas.cli.error_bound import contraction_bound, residual_bound, tol_for_max_error


def _graph() -> nx.DiGraph:
    """60 vertices, ids 0..59 (original = internal), some without out-edges (dangling)."""
    G = nx.gnp_random_graph(60, 0.05, seed=7, directed=True)
    G.remove_edges_from([e for e in G.edges() if e[0] % 9 == 0])  # sinks
    G.remove_nodes_from([v for v in list(G) if G.degree(v) == 0])
    return nx.convert_node_labels_to_integers(G)


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("g") / "g.tsv"
    path.write_text("".join(f"{u}\t{v}\n" for u, v in _graph().edges()))
    return path


#: the reference's own L1 error: networkx stops at an L1 change below N * tol, so (error_bound.py)
#: it is within alpha / (1 - alpha) * N * tol of the fixed point
REF_ERR = 0.85 / 0.15 * len(_graph()) * 1e-15


@pytest.fixture(scope="module")
def reference():
    return nx.pagerank(_graph(), tol=1e-15, max_iter=10_000)  # oracle


def _ranks(path) -> dict[int, float]:
    return {int(a): float(b) for a, b in (line.split("\t") for line in path.read_text().splitlines())}


def _l1(got: dict[int, float], ref: dict[int, float]) -> float:
    return sum(abs(got[v] - x) for v, x in ref.items())


def _printed_bound(err: str) -> float:
    return float(re.search(r"error bound ([0-9.e+-]+)", err).group(1))


def test_error_bound_algebra():
    # hand-computed: alpha 0.5 -> factor 1; tol = 1e-6 * 0.5 / (0.5 * 10)
    assert contraction_bound(2e-7, 0.5) == pytest.approx(2e-7)
    assert residual_bound(2e-7, 0.5) == pytest.approx(4e-7)
    assert tol_for_max_error(1e-6, 0.5, 10) == pytest.approx(1e-7)
    assert contraction_bound(1.0, 1.0) == float("inf")
    with pytest.raises(ValueError, match="alpha"):
        tol_for_max_error(1e-6, 1.0, 10)


def _run_pagerank(path, tmp_path, capsys, *extra) -> tuple[dict[int, float], dict, float]:
    """Ranks, the --stats JSON and the bound printed on stderr of one ``gas pagerank`` run."""
    out, stats = tmp_path / "r.tsv", tmp_path / "s.json"
    assert main(["pagerank", str(path), "--top", "0", "-o", str(out), "--stats", str(stats), *extra]) == 0
    printed = _printed_bound(capsys.readouterr().err)
    doc = json.loads(stats.read_text())
    assert doc["error_bound"] == pytest.approx(printed, rel=0.06)  # printed with 2 digits
    return _ranks(out), doc, doc["error_bound"]


def test_pagerank_default_bounds_its_error(graph_file, reference, tmp_path, capsys):
    ranks, doc, bound = _run_pagerank(graph_file, tmp_path, capsys)
    true = _l1(ranks, reference)
    assert true <= bound + REF_ERR and bound <= 1e-6  # the bound holds and meets the default --max-error
    assert doc["converged"] is True and doc["iterations"] == len(doc["rows"]) > 1
    last = doc["rows"][-1]
    assert last["residual"] == last["change"]
    assert last["error_bound"] == pytest.approx(0.85 / 0.15 * last["change"])

    # tighter: --max-error 1e-10
    ranks, _, tight = _run_pagerank(graph_file, tmp_path, capsys, "--max-error", "1e-10")
    true_tight = _l1(ranks, reference)
    assert true_tight <= tight + REF_ERR and tight <= 1e-10 and true_tight < true

    # --tol keeps networkx's rule (L1 change below N * tol): stops earlier, bound reported anyway
    ranks, loose_doc, loose = _run_pagerank(graph_file, tmp_path, capsys, "--tol", "1e-6")
    assert _l1(ranks, reference) <= loose + REF_ERR and loose > 1e-6
    assert loose_doc["iterations"] < doc["iterations"]


def test_pagerank_async_meets_max_error(graph_file, reference, tmp_path, capsys):
    ranks, _, bound = _run_pagerank(graph_file, tmp_path, capsys, "--engine", "async")
    # the bound comes from one more power step: |G(x) - x| / (1 - alpha)
    assert _l1(ranks, reference) <= bound + REF_ERR and bound <= 1e-6


def test_pagerank_stopping_short_says_so_and_exits_3(graph_file, tmp_path, capsys):
    stats, out = tmp_path / "s.csv", tmp_path / "r.tsv"
    argv = ["pagerank", str(graph_file), "-q", "--max-iter", "3", "--stats", str(stats), "-o", str(out)]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "stopped after 3 supersteps" in err and "--max-error 1e-06" in err
    assert not out.exists()  # without --allow-unconverged
    rows = list(csv.DictReader(stats.open()))  # the statistics are written all the same
    assert [int(r["iteration"]) for r in rows] == [0, 1, 2]
    assert float(rows[-1]["error_bound"]) > 1e-6


def test_alpha_one_has_no_bound(graph_file, capsys):
    assert main(["pagerank", str(graph_file), "-q", "--alpha", "1"]) == 2
    assert "--tol" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command, extra, column",
    [
        ("cc", [], "active"),
        ("sssp", ["--source", "1"], "active"),
        ("katz", ["--alpha", "0.05"], "change"),
        ("eigenvector", [], "change"),
        ("hits", [], "change"),
        ("diameter", [], "active"),
        ("coloring", [], "scheduled"),
    ],
)
def test_graph_subcommands_write_stats(graph_file, tmp_path, capsys, command, extra, column):
    stats = tmp_path / "s.csv"
    assert main([command, str(graph_file), "--stats", str(stats), *extra]) == 0
    err = capsys.readouterr().err
    rows = list(csv.DictReader(stats.open()))
    assert rows and {"iteration", "seconds", "elapsed", column} <= set(rows[0])
    assert [int(r["iteration"]) for r in rows] == list(range(len(rows)))
    assert "residual" in err and "error bound" in err  # the end line


def test_als_sgd_lda_write_stats(tmp_path, capsys):
    ratings = tmp_path / "r.tsv"
    ratings.write_text(
        "".join(f"{u}\t{i}\t{1 + (u * i) % 5}\n" for u in range(8) for i in range(6) if (u + i) % 3)
    )
    for algo in ("als", "sgd"):
        stats = tmp_path / f"{algo}.json"
        assert main([algo, str(ratings), "--rank", "2", "--iters", "3", "-q", "--stats", str(stats)]) == 0
        doc = json.loads(stats.read_text())
        assert [r["iteration"] for r in doc["rows"]] == [1, 2, 3] or len(doc["rows"]) == 3
        assert all("train_rmse" in r for r in doc["rows"]) and "residual" in doc["rows"][-1]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("the cat sat on the mat with a dog")
    (docs / "b.txt").write_text("dog and cat and bird")
    stats = tmp_path / "lda.csv"
    argv = ["lda", str(docs), "--topics", "2", "--iters", "3", "--ll-every", "1", "-q", "--stats", str(stats)]
    assert main(argv) == 0
    rows = list(csv.DictReader(stats.open()))
    assert len(rows) == 3 and rows[-1]["loglik_per_token"] and rows[-1]["residual"]


def test_bad_stats_extension_is_refused_before_any_work(graph_file, capsys):
    with pytest.raises(SystemExit) as info:
        main(["cc", str(graph_file), "--stats", "run.txt"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert ".csv or .json" in err and "loaded" not in err


def test_stats_path_checked_before_any_work(graph_file, tmp_path, capsys):
    assert main(["cc", str(graph_file), "--stats", str(tmp_path / "missing" / "s.csv")]) == 2
    assert "loaded" not in capsys.readouterr().err


def test_plot_without_matplotlib_names_the_extra(graph_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    with pytest.raises(SystemExit) as info:
        main(["pagerank", str(graph_file), "--plot", str(tmp_path / "c.png")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "pip install 'gaslab[plot]'" in err and "loaded" not in err
    assert not (tmp_path / "c.png").exists()


def test_plot_draws_a_png(graph_file, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "c.png"
    assert main(["pagerank", str(graph_file), "-q", "--top", "0", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
