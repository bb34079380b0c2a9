"""The ``gas`` command's consistency (issue 21 item 6): weights only with ``--weighted``, hints that
name CLI flags, each default printed once, progress columns that add up.

Mostly parser, help and message checks (no compiled code); two tiny real runs.
"""

from __future__ import annotations

import argparse
import re

import pytest

from gas.cli import build_parser, main
from gas.cli.common import HelpFormatter, load_graph
from gas.cli.hints import cli_message, convergence_hint, subcommand_options

#: the graph subcommands whose computation can use edge weights
WEIGHTED = ("pagerank", "sssp", "hits", "katz", "eigenvector")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _flat(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- each default printed once


def test_every_option_shows_its_default_at_most_once_and_never_a_meaningless_one():
    subs = _subparsers()
    assert len(subs) >= 20  # every subcommand is walked
    for name, sp in subs.items():
        fmt = HelpFormatter(prog=f"gas {name}")
        for action in sp._actions:
            if not action.option_strings or action.help in (None, argparse.SUPPRESS):
                continue
            text = _flat(fmt._expand_help(action))
            where = f"gas {name} {action.option_strings[0]}: {text!r}"
            assert text.count("(default:") <= 1, where
            assert "(default: None)" not in text and "(default: False)" not in text, where
        whole = _flat(sp.format_help())  # the printed help too, line breaks undone
        assert "(default: None)" not in whole and "(default: False)" not in whole, name
        assert "(default: all cores) (default:" not in whole, name


def test_defaults_that_mean_something_are_shown():
    subs = _subparsers()
    pagerank = _flat(subs["pagerank"].format_help())
    assert "(default: 0.85)" in pagerank and "(default: 100)" in pagerank
    assert pagerank.count("(default: all cores)") == 1
    als = _flat(subs["als"].format_help())
    assert "(default: --weighted-lambda)" in als and "(default: --biases)" in als  # both on


# ---------------------------------------------------------------- weights only with --weighted


def test_weights_are_an_option_of_every_subcommand_that_can_use_them():
    subs, parser = _subparsers(), build_parser()
    for name in WEIGHTED:
        action = subcommand_options(parser, name).get("weighted")
        assert action is not None and action.option_strings == ["--weighted"], name
        assert action.default is False, name
    # no other graph subcommand reads weights: none offers the flag
    for name in (
        "cc",
        "triangles",
        "clustering",
        "scc",
        "kcore",
        "label-propagation",
        "diameter",
        "coloring",
    ):
        assert "weighted" not in subcommand_options(parser, name), name
    assert "--weighted " not in _flat(subs["als"].format_help())  # als's own option was renamed


def test_load_graph_reads_the_third_column_only_when_asked(tmp_path):
    p = tmp_path / "w.txt"
    p.write_text("1 2 0.5\n2 3 abc\n")  # a third column that is not even a number
    ns = argparse.Namespace(file=str(p), keep_duplicates=False, skip_rows=0, undirected=False, quiet=True)
    assert load_graph(ns).weights is None  # ignored, not parsed
    q = tmp_path / "u.txt"
    q.write_text("1 2\n2 3\n")
    ns.file = str(q)
    with pytest.raises(Exception, match="third column"):
        load_graph(ns, weights=True)


def test_deprecated_spellings_still_parse_with_a_note(capsys):
    parser = build_parser()
    a = parser.parse_args(["sssp", "g.txt", "--source", "1", "--hops"])
    assert a.hops is True and a.weighted is False
    assert "--hops is deprecated" in capsys.readouterr().err
    a = parser.parse_args(["sssp", "g.txt", "--source", "1"])
    assert a.hops is False and a.weighted is False  # hop counts by default
    assert parser.parse_args(["als", "r.txt"]).weighted_lambda is True
    assert parser.parse_args(["als", "r.txt", "--no-weighted-lambda"]).weighted_lambda is False
    a = parser.parse_args(["als", "r.txt", "--no-weighted"])
    assert a.weighted_lambda is False
    assert "--no-weighted is deprecated: use --no-weighted-lambda" in capsys.readouterr().err
    assert parser.parse_args(["als", "r.txt", "--weighted"]).weighted_lambda is True
    subs = _subparsers()
    assert "--hops" not in subs["sssp"].format_help()  # hidden
    assert "--weighted-lambda" in subs["als"].format_help()


def test_sssp_hops_by_default_weights_with_the_flag(tmp_path, capsys):
    p = tmp_path / "w.txt"
    # hand-computed from 1: hops 1->3 is 1; weighted 1->2->3 = 1.5 + 2 = 3.5 beats 1->3 = 7
    p.write_text("1 2 1.5\n2 3 2\n1 3 7\n")
    assert main(["sssp", str(p), "--source", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert "mode\thops" in out and "max_distance\t1\n" in out
    assert main(["sssp", str(p), "--source", "1", "-q", "--weighted"]) == 0
    out = capsys.readouterr().out
    assert "mode\tweighted" in out and "max_distance\t3.5\n" in out


# ---------------------------------------------------------------- hints name the CLI's flags


@pytest.mark.parametrize(
    "command, library, cli",
    [
        # algorithms/sssp.py
        ("sssp", "use hop counts (weight=None) or fix the input", "use hop counts (drop --weighted) or fix"),
        # algorithms/registry.py
        ("sssp", "count hops instead (hops=True) or fix the input", "count hops instead (drop --weighted)"),
        # gas/io/edgelist.py's bad weight, missing weight and header hints
        ("pagerank", "or ignore the weights (weights=False)", "or ignore the weights (drop --weighted)"),
        ("katz", "pass weights=False to read an unweighted graph", "drop --weighted to read an unweighted"),
        (
            "cc",
            "if this is a header line, skip it with skip_rows=1 (CLI: --skip-rows 1) or start it with '#'",
            "if this is a header line, skip it with --skip-rows 1 or start it with '#'",
        ),
        # algorithms/centrality.py's shortfall
        (
            "katz",
            "stopped after 9 iterations (max_iter=9) with L1 change 1e-3; hint: raise max_iter or tol",
            "stopped after 9 iterations (--max-iter 9) with L1 change 1e-3; hint: raise --max-iter or --tol",
        ),
        # algorithms/pagerank_personal.py, algorithms/pagerank.py
        ("pagerank", "hint: use engine='sync' for another", "hint: use --engine sync for another"),
        ("pagerank", "consistency='full' runs on one process only (procs=1)", "--consistency full runs on"),
        # algorithms/label_propagation_variants.py
        ("label-propagation", "or use consistency='edge')", "or use --consistency edge)"),
        # ALS's library keyword is its renamed flag
        ("als", "without weighted=False", "without --no-weighted-lambda"),
        ("als", "raise iters", "raise --iters"),
    ],
)
def test_library_hints_are_said_with_the_subcommands_flags(command, library, cli):
    got = cli_message(library, subcommand_options(build_parser(), command))
    assert cli in got, got
    assert not re.search(r"\b(weight|weights|hops|max_iter|tol|skip_rows|engine|consistency|procs)=", got)


def test_names_without_a_flag_stay_as_the_library_says_them():
    # label-propagation has no --max-iter: the text is left alone rather than naming a missing flag
    opts = subcommand_options(build_parser(), "label-propagation")
    assert cli_message("stopped (raise max_iter)", opts) == "stopped (raise max_iter)"
    # a file's own text is not rewritten
    opts = subcommand_options(build_parser(), "sssp")
    text = "g.csv:1: expected a non-negative integer vertex id, found 'source' (got 'source,target')"
    assert cli_message(text, opts) == text


def test_convergence_hint_names_only_the_subcommands_flags():
    parser = build_parser()
    assert "--max-iter" in convergence_hint(subcommand_options(parser, "katz"))
    hint = convergence_hint(subcommand_options(parser, "cc"))
    assert "--max-iter" not in hint and "--tol" not in hint and "--allow-unconverged" in hint
    assert "--iters" in convergence_hint(subcommand_options(parser, "als"))


def test_cli_errors_name_flags_end_to_end(tmp_path, capsys):
    neg = tmp_path / "neg.txt"
    neg.write_text("1 2 1.5\n2 3 -1\n")
    assert main(["sssp", str(neg), "--source", "1", "--weighted"]) == 2
    err = capsys.readouterr().err
    assert "neg.txt:2:" in err and "drop --weighted" in err and "weights=False" not in err
    plain = tmp_path / "plain.txt"
    plain.write_text("1 2\n2 3\n")
    assert main(["pagerank", str(plain), "--weighted"]) == 2
    err = capsys.readouterr().err
    assert "drop --weighted" in err and "weights=" not in err
    head = tmp_path / "head.csv"
    head.write_text("source,target\n1,2\n")
    assert main(["cc", str(head)]) == 2
    err = capsys.readouterr().err
    assert "--skip-rows 1" in err and "skip_rows" not in err


# ---------------------------------------------------------------- progress columns add up

_LINE = re.compile(r"^iter\s+\d+ .* (\d+\.\d{3}) s  \(total (\d+\.\d{2}) s\)$")
_SUMMARY = re.compile(
    r"^(\d+) iterations in (\d+\.\d{2}) s \(sum of the per-step times; (\d+\.\d{2}) s outside"
)


def test_progress_total_is_the_sum_of_its_column_and_the_summarys_time(tmp_path, capsys):
    p = tmp_path / "g.txt"
    p.write_text("1 2\n2 3\n3 1\n3 4\n")
    assert main(["pagerank", str(p), "--top", "0", "--tol", "1e-10"]) == 0
    err = capsys.readouterr().err.splitlines()
    rows = [m.groups() for m in map(_LINE.match, err) if m]
    summary = [m.groups() for m in map(_SUMMARY.match, err) if m]
    assert rows and len(summary) == 1, err
    steps, secs, outside = summary[0]
    assert int(steps) == len(rows)  # one line per iteration
    total = 0.0
    for step, running in rows:  # the printed columns, rounded to 1 ms, add up to each total
        total += float(step)
        assert abs(total - float(running)) <= 0.0005 * len(rows) + 0.005, (total, running)
    assert rows[-1][1] == secs  # the last line's total is the summary's time, the same clock
    assert float(outside) >= 0.0
