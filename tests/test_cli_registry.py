"""The name -> program registry (gas.algorithms.registry) and the CLI package's own rules."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import gas
from gas.algorithms.pagerank import DeltaPageRankProgram, PageRankProgram
from gas.algorithms.registry import PROGRAM_FOR_JOB, parse_id, program_for, program_for_job
from gas.algorithms.sssp import HopsProgram, SSSPProgram

ROOT = Path(__file__).resolve().parents[1]


def _weighted():
    # a small weighted digraph with original ids far from 0..n-1
    src = [10, 10, 20, 30, 40]
    dst = [20, 30, 30, 40, 10]
    w = [4.0, 1.0, 2.0, 5.0, 1.0]
    return gas.Graph.from_edges(src, dst, weights=w), list(zip(src, dst, w))


def test_pagerank_program_carries_the_values_and_the_engine_picks_the_form():
    g, _ = _weighted()
    prog, max_iter, active = program_for("pagerank", g, alpha=0.5, tol=1e-9, max_iter=7)
    assert type(prog) is PageRankProgram and (prog.alpha, prog.tol, max_iter, active) == (0.5, 1e-9, 7, None)
    prog, _, _ = program_for("pagerank", g, alpha=0.5, tol=1e-9, engine="async")
    assert type(prog) is DeltaPageRankProgram and prog.alpha == 0.5


def test_sssp_program_from_the_registry_gives_networkx_distances():
    g, edges = _weighted()
    prog, max_iter, active = program_for("sssp", g, source=30)
    assert type(prog) is SSSPProgram and max_iter == g.num_vertices + 1
    assert g.ids[active].tolist() == [30]
    dist = gas.SyncEngine(g, prog).run(max_iter, active=active).output
    G = nx.DiGraph()
    G.add_weighted_edges_from(edges)
    ref = nx.single_source_dijkstra_path_length(G, 30)  # oracle
    got = {int(i): float(d) for i, d in zip(g.ids.tolist(), dist.tolist())}
    assert got == {v: ref.get(v, np.inf) for v in got}


def test_hops_when_asked_or_unweighted():
    g, _ = _weighted()
    assert type(program_for("sssp", g, source=10, hops=True)[0]) is HopsProgram
    plain = gas.Graph.from_edges([1, 2], [2, 3])
    assert type(program_for("sssp", plain, source=1)[0]) is HopsProgram


def test_components_limit_is_one_more_than_the_vertices():
    g, _ = _weighted()
    prog, max_iter, active = program_for("cc", g)
    assert type(prog).__name__ == "ComponentsProgram" and max_iter == 5 and active is None


def test_job_arguments_give_the_same_program_as_plain_values():
    g, _ = _weighted()
    job = {"alpha": 0.7, "tol": 1e-8, "max_iter": 9, "source": "40", "hops": False, "quiet": True}
    p1, m1, a1 = program_for_job("pagerank", job, g)
    p2, m2, a2 = program_for("pagerank", g, alpha=0.7, tol=1e-8, max_iter=9)
    assert (type(p1), p1.alpha, p1.tol, m1, a1) == (type(p2), p2.alpha, p2.tol, m2, a2)
    p1, m1, a1 = program_for_job("sssp", job, g)  # the source arrives as typed text
    p2, m2, a2 = program_for("sssp", g, source=40)
    assert (type(p1), p1.source, m1, a1.tolist()) == (type(p2), p2.source, m2, a2.tolist())


def test_string_labels_keep_the_source_text():
    from gas.runtime.file_job import IdView  # what a scaled-out load of a labelled file gives

    g = IdView(np.array(["a", "b", "c"], dtype=object), False, 0.0)
    assert parse_id("b", g) == "b"
    assert g.ids[program_for_job("sssp", {"source": "b"}, g)[2]].tolist() == ["b"]


def test_refusals_name_the_problem():
    g, _ = _weighted()
    with pytest.raises(gas.GasError, match="integer vertex id"):
        parse_id("x1", g)
    with pytest.raises(gas.GasError, match="lda has no distributed runner"):
        program_for("lda", g)
    neg = gas.Graph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0])
    with pytest.raises(gas.GasError, match="negative or NaN"):
        program_for("sssp", neg, source=0)


def test_the_runtime_resolves_the_builder_the_cli_names():
    from gas.runtime.file_job import resolve_builder

    assert resolve_builder(PROGRAM_FOR_JOB) is program_for_job


def test_no_cli_module_imports_an_underscore_name():
    bad = []
    for path in sorted((ROOT / "gas" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gas"):
                parts = node.module.split(".") + [a.name for a in node.names]
                bad += [f"{path.name}:{node.lineno} {p}" for p in parts if p.startswith("_")]
    assert bad == []


def test_the_runtime_and_the_algorithms_import_nothing_from_the_cli():
    users = []
    for folder in ("gas/runtime", "algorithms", "partition"):
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                users += [f"{path}:{node.lineno}" for n in names if n.split(".")[:2] == ["gas", "cli"]]
    assert users == []
