"""Atomic calls in vertex programs (``X.fetch_add``, ``X.compare_swap`` in ``scatter``) and the
asynchronous engine's several-thread cascading pass they make possible (k-core peeling).

Expected values are hand-computed (the functions' definitions), counted with numpy (in-degrees)
or networkx's ``core_number``."""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np
import pytest

import gas
from gas._atomics import compare_swap, fetch_add
from gas.program import NONE, OUT, VertexProgram
from gas.threads import num_threads


def test_fetch_add_and_compare_swap_return_what_they_found():
    # hand-computed: 5 - 1 = 4; 7 == 7 so 6 is stored; 6 != 7 so nothing is
    a = np.array([5, 7], dtype=np.int32)
    assert (fetch_add(a, 0, -1), compare_swap(a, 1, 7, 6), compare_swap(a, 1, 7, 0)) == (5, 7, 6)
    assert a.tolist() == [4, 6]
    f = np.array([1.5])
    assert fetch_add(f, 0, 2.25) == 1.5 and f[0] == 3.75


@numba.njit(parallel=True, cache=True)
def _hammer(counts, sums, m):
    # every iteration adds to one of four cells, from all threads at once
    for i in numba.prange(m):
        fetch_add(counts, i % 4, 1)
        j = i % 4
        while True:  # the compare-and-swap loop any atomic update is built from
            old = sums[j]
            if compare_swap(sums, j, old, old + i) == old:
                break


def test_concurrent_updates_are_all_kept():
    m = 400_000
    counts, sums = np.zeros(4, np.int64), np.zeros(4, np.int64)
    with num_threads(2):
        _hammer(counts, sums, m)
    # hand-computed: m / 4 iterations per cell, and cell j sums the i with i % 4 == j
    i = np.arange(m)
    assert counts.tolist() == [m // 4] * 4
    assert sums.tolist() == [int(i[i % 4 == j].sum()) for j in range(4)]


class CountInEdges(VertexProgram):
    """Each vertex adds 1 (and 0.5) to every out-neighbour: a neighbour's totals are its
    in-degree (and half of it), whichever thread does each add."""

    vertex_data = {"hits": np.int64, "half": np.float64}
    gather_edges = NONE
    scatter_edges = OUT

    def apply(self, v, total, ctx):
        pass

    def scatter(self, v, e, nbr):
        nbr.fetch_add("hits", 1)
        nbr.fetch_add("half", 0.5)
        return False


@pytest.mark.parametrize("debug", [False, True])
def test_a_scatter_adds_into_its_neighbours_without_losing_any(debug):
    # many edges into four hubs, two threads: reference numpy's in-degree of the same graph
    rng = np.random.default_rng(1)
    g = gas.Graph.from_edges(rng.integers(0, 5000, 60_000), rng.integers(0, 4, 60_000), num_vertices=5000)
    eng = gas.SyncEngine(g, CountInEdges(), threads=2, debug=debug)
    eng.run(max_iter=1)
    assert eng.columns["hits"].tolist() == g.in_degree.tolist()
    assert eng.columns["half"].tolist() == (g.in_degree / 2).tolist()
    # an atomic write into a neighbour is safe under every model: the weakest one is enough
    assert eng.spec.consistency_needed == "vertex"
    gas.AsyncEngine(g, CountInEdges(), consistency="vertex", threads=2)


def _program(body: str, fields: str = '{"x": np.int64, "f": np.float32}', method: str = "scatter"):
    ns: dict = {}
    src = (
        "import numpy as np\n"
        "from gas.program import NONE, OUT, VertexProgram\n"
        "class P(VertexProgram):\n"
        f"    vertex_data = {fields}\n"
        "    gather_edges = NONE\n"
        "    scatter_edges = OUT\n"
        "    def apply(self, v, total, ctx):\n"
        f"        {body if method == 'apply' else 'pass'}\n"
        "    def scatter(self, v, e, nbr):\n"
        f"        {body if method == 'scatter' else 'return False'}\n"
    )
    return src, ns


@pytest.mark.parametrize(
    "body, method, words",
    [
        ('v.fetch_add("x", 1)', "apply", "outside scatter"),
        ('nbr.fetch_add("y", 1)', "scatter", "not a declared vertex field"),
        ('nbr.fetch_add("f", 1.0)', "scatter", "float32"),
        ('nbr.compare_swap("x", 1)', "scatter", "wrongly"),
        ("nbr.fetch_add(x, 1)", "scatter", "wrongly"),
        ("a = nbr.fetch_add", "scatter", "without calling it"),
    ],
)
def test_misused_atomic_calls_are_named_with_a_fix(tmp_path, body, method, words):
    src, _ = _program(body, method=method)
    path = tmp_path / "prog_atomic.py"
    path.write_text(src)
    import importlib.util

    spec = importlib.util.spec_from_file_location("prog_atomic", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    g = gas.Graph.from_edges([0, 1], [1, 0])
    with pytest.raises(gas.ProgramError, match=words) as err:
        gas.SyncEngine(g, mod.P())
    assert f"P.{method}" in str(err.value) and "prog_atomic.py" in str(err.value)


def test_a_field_cannot_take_an_atomic_call_name():
    class Bad(VertexProgram):
        vertex_data = {"fetch_add": np.int64}
        gather_edges = NONE

        def apply(self, v, total, ctx):
            pass

    with pytest.raises(gas.ProgramError, match="built in"):
        gas.SyncEngine(gas.Graph.from_edges([0], [1]), Bad())


def test_atomic_calls_run_on_one_process_only():
    g = gas.Graph.from_edges([0, 1, 2], [1, 2, 0])
    with pytest.raises(gas.ProgramError, match="one process only"):
        gas.run(g, CountInEdges(), max_iter=1, procs=2)


def _nx_cores(S: gas.Graph) -> list[int]:
    G = nx.Graph()  # independent reference: networkx on the same simple undirected graph
    G.add_nodes_from(range(S.num_vertices))
    G.add_edges_from(zip(S.src.tolist(), S.dst.tolist()))
    want = nx.core_number(G)
    return [want[v] for v in range(S.num_vertices)]


@pytest.mark.parametrize("threads", [2, 3])
def test_several_threads_peel_each_level_in_one_pass(threads):
    # the cascading pass on several threads (k_async_pass_par): every vertex is removed once
    # (updates == vertices: the atomic states let no vertex run twice at once, and the peel
    # signals no removed vertex) and the passes are at most the largest core number plus one
    from gas.algorithms.kcore import PeelCoreProgram

    rng = np.random.default_rng(5)
    for n, m in ((300, 2500), (2000, 30_000)):
        S = gas.Graph.from_edges(
            rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n
        ).simple_undirected()
        eng = gas.AsyncEngine(
            S, PeelCoreProgram(), scheduler="priority", priority_ratio=1.0, threads=threads, cascade=True
        )
        assert eng.consistency == "vertex"
        for _ in range(3):
            res = eng.run(max_iter=10_000, priority=1.0 / (1.0 + S.out_degree))
            want = _nx_cores(S)
            assert res.converged and res.output.tolist() == want
            assert sum(s["active"] for s in res.stats) == n
            assert res.iterations <= max(want) + 1
