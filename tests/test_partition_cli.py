"""``gas partition``: output files, report, --compare, and errors raised before any work."""

from __future__ import annotations

import argparse
import json

import pytest

from gas.cli.partition import register, run
from gas.errors import InputError
from gas.io import load
from gas.partition import available_methods, partition

EDGES = [(100, 200), (200, 300), (300, 100), (300, 400), (400, 500), (500, 300), (700, 100), (100, 700)]


@pytest.fixture
def graph_file(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("# test graph\n" + "".join(f"{s}\t{d}\n" for s, d in EDGES))
    return p


def parse(argv):
    parser = argparse.ArgumentParser(prog="gas")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["partition", *argv])


def test_vertex_cut_output_has_original_ids_and_matches_the_library(graph_file, tmp_path, capsys):
    out = tmp_path / "a.tsv"
    assert (
        run(parse([str(graph_file), "--method", "hdrf", "--parts", "3", "--seed", "5", "-o", str(out)])) == 0
    )
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert len(rows) == len(EDGES)
    assert sorted((int(s), int(d)) for s, d, _ in rows) == sorted(EDGES)
    g = load(graph_file)
    a = partition(g, "hdrf", 3, seed=5)
    want = [(int(g.ids[s]), int(g.ids[d]), int(p)) for s, d, p in zip(g.src, g.dst, a.edge_part, strict=True)]
    assert [(int(s), int(d), int(p)) for s, d, p in rows] == want
    printed = capsys.readouterr().out
    assert "replication factor" in printed and "bytes / superstep" in printed


def test_edge_cut_output_is_one_line_per_vertex(graph_file, tmp_path):
    out = tmp_path / "v.tsv"
    run(parse([str(graph_file), "--method", "ldg", "--parts", "2", "-o", str(out), "-q"]))
    rows = [tuple(map(int, line.split("\t"))) for line in out.read_text().splitlines()]
    assert [v for v, _ in rows] == [100, 200, 300, 400, 500, 700]
    assert {p for _, p in rows} <= {0, 1}


def test_compare_prints_one_row_per_method(graph_file, capsys):
    run(parse([str(graph_file), "--parts", "2", "--compare", "-q"]))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == list(available_methods())


def test_json_report(graph_file, capsys):
    run(parse([str(graph_file), "--method", "grid", "--parts", "4", "--json", "-q", "--gather-bytes", "16"]))
    r = json.loads(capsys.readouterr().out)
    assert r["method"] == "grid" and r["num_parts"] == 4
    assert r["bytes_per_superstep"] == 16 * r["mirrors"]
    assert r["replication_factor"] >= 1.0


def test_options_that_do_not_apply_are_announced(graph_file, capsys):
    run(parse([str(graph_file), "--method", "dbh", "--parts", "2", "--lambda", "3"]))
    assert "--lambda does not apply to method 'dbh'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--parts", "0"], "at least 1 part"),
        (["--method", "metis"], "known methods: random, grid"),
        (["--method", "grid", "--parts", "8", "--grid-shape", "2x3"], "fewer than the 8 parts"),
        (["--method", "grid", "--grid-shape", "five"], "ROWSxCOLS"),
        (["--method", "hdrf", "--lambda", "-1"], "lam"),
        (["--compare", "-o", "x.tsv"], "cannot be combined"),
    ],
)
def test_bad_arguments_fail_before_reading_the_file(tmp_path, argv, message):
    missing = tmp_path / "does-not-exist.txt"  # reading it would fail with another error
    with pytest.raises(InputError, match=message):
        run(parse([str(missing), *argv]))


def test_more_parts_than_edges_writes_nothing(graph_file, tmp_path):
    out = tmp_path / "a.tsv"
    with pytest.raises(InputError, match="Cannot split 8 edges into 9 parts"):
        run(parse([str(graph_file), "--parts", "9", "-o", str(out), "-q"]))
    assert not out.exists()


def test_simple_flag_partitions_each_undirected_pair_once(graph_file, tmp_path):
    out = tmp_path / "a.tsv"
    run(parse([str(graph_file), "--method", "ne", "--parts", "2", "--simple", "-o", str(out), "-q"]))
    pairs = [tuple(map(int, line.split("\t")[:2])) for line in out.read_text().splitlines()]
    assert len(pairs) == 7 and all(s < d for s, d in pairs)  # (100,700) and (700,100) merged


def test_main_entry_point(graph_file, capsys):
    from gas.cli import main

    assert main(["partition", str(graph_file), "--parts", "2", "-q", "--method", "random"]) == 0
    assert "replication factor" in capsys.readouterr().out
    assert main(["partition", str(graph_file), "--parts", "0"]) == 2
    err = capsys.readouterr().err
    assert "at least 1 part" in err


def test_write_with_non_integer_ids(tmp_path):
    """String vertex labels (e.g. from networkx) go through the generic writer."""
    import networkx as nx

    from gas.graph import Graph

    g = Graph.from_networkx(nx.Graph([("a", "b"), ("b", "c")]))
    out = tmp_path / "s.tsv"
    partition(g, "hash", 2, seed=0).write(out, ids=g.ids)
    assert [line.split("\t")[0] for line in out.read_text().splitlines()] == ["a", "b", "c"]
    out2 = tmp_path / "e.tsv"
    a = partition(g, "random", 2, seed=0)
    a.write(out2, ids=g.ids)
    rows = [line.split("\t") for line in out2.read_text().splitlines()]
    want = [[str(g.ids[s]), str(g.ids[d]), str(p)] for s, d, p in zip(g.src, g.dst, a.edge_part, strict=True)]
    assert rows == want
