"""``gas warmup`` (issue 21): its targets, its refusals, and that a second run compiles nothing.

Only the ``info`` target runs for real (the loader's kernels, which nearly every test compiles
anyway); the bundled algorithms' own kernels are not compiled here.
"""

from __future__ import annotations

from gas.cli import main
from gas.cli.warmup import TARGETS, target_commands
from gas.datasets import bundled


def test_list_shows_every_target_on_the_bundled_graph_and_compiles_nothing(capsys):
    assert main(["warmup", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == list(TARGETS)
    # the Quickstart's command is the first target's first command
    assert lines[0].startswith(f"pagerank\tgas pagerank {bundled()} --undirected")


def test_only_keeps_the_order_given_and_drops_repeats(capsys):
    assert main(["warmup", "--list", "--only", "sssp", "cc", "sssp"]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()] == ["sssp", "cc"]


def test_unknown_target_is_refused_with_the_valid_names(capsys):
    assert main(["warmup", "--only", "pagerankk"]) == 2
    err = capsys.readouterr().err
    assert "Expected a warmup target (got 'pagerankk')" in err
    assert "--only takes some of: pagerank, cc, sssp" in err


def test_every_target_command_parses():
    from gas.cli import build_parser

    parser = build_parser()
    for name in TARGETS:
        for cmd in target_commands(name, "g.txt"):
            assert parser.parse_args(cmd).command == cmd[0]


def test_second_run_finds_everything_cached(capsys):
    # the first run may compile the loader (a fresh cache); the second must compile nothing
    assert main(["warmup", "--only", "info"]) == 0
    capsys.readouterr()
    assert main(["warmup", "--only", "info"]) == 0
    cap = capsys.readouterr()
    assert cap.err.splitlines()[-1].startswith("warmup [1/1] info: cached (")
    (out,) = cap.out.splitlines()
    assert out.startswith("warmup: 1 of 1 targets ready in ")
    assert "compiled 0 functions" in out and out.endswith("none: all were cached")
