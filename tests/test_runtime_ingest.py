"""Scaled-out loading (gas.io.ranges, gas.runtime.ingest) gives the single-process graph and answers.

Reference: ``gas.load`` (one process reads the whole file; itself checked in test_io.py) and
the single-process engine (checked against networkx in test_pagerank.py and
test_components_sssp.py). Ranks run as threads over the in-process transport (the exchange and
wire logic are the same as over ZeroMQ).
"""

from __future__ import annotations

import bz2
import gzip
import os
import threading

import numpy as np
import pytest

import gas
from gas.algorithms.components import ComponentsProgram
from gas.algorithms.pagerank import PageRankProgram
from gas.errors import InputError
from gas.io.ranges import byte_ranges, read_share
from gas.partition import available_methods, partition
from gas.runtime.bsp import run_partition
from gas.runtime.comm import Comm
from gas.runtime.ingest import load_part
from gas.runtime.transport import InProcHub


def _lines(seed: int = 5, m: int = 300, weighted: bool = True) -> list[str]:
    rng = np.random.default_rng(seed)
    ids = rng.choice(10**12, 60, replace=False)  # sparse original ids
    out = []
    for _ in range(m):
        u, v = ids[rng.integers(0, 60)], ids[rng.integers(0, 60)]
        out.append(f"{u} {v} {rng.integers(1, 9) / 4}" if weighted else f"{u}\t{v}")
    out += out[:20]  # duplicates (with other weights below)
    if weighted:
        out[-5:] = [" ".join(x.split()[:2] + ["7.5"]) for x in out[-5:]]
    out.insert(40, "# a comment")
    out.insert(90, "")
    return out


def _write(path, lines, eol="\n", comp=None) -> str:
    data = (eol.join(lines) + eol).encode()
    if comp == "gz":
        data = gzip.compress(data)
    elif comp == "bz2":
        data = bz2.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def _threads(P, fn):
    hub = InProcHub(P)
    out: list = [None] * P
    errors: list = []

    def work(r):
        try:
            out[r] = fn(Comm(hub.transport(r) if P > 1 else None))
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    ts = [threading.Thread(target=work, args=(r,)) for r in range(P)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    if errors:
        raise errors[0]
    return out


def _check_same_graph(loaded, g):
    """Every rank has the same id table; the parts together are g's edges, each once, with g's ids."""
    for lp in loaded:
        np.testing.assert_array_equal(lp.ids, g.ids)
        assert lp.part.num_vertices == g.num_vertices and lp.part.num_edges == g.num_edges
        np.testing.assert_array_equal(lp.part.master, loaded[0].part.master)
    eid = np.concatenate([lp.part.eid for lp in loaded])
    assert np.array_equal(np.sort(eid), np.arange(g.num_edges))  # each edge exactly once
    src = np.concatenate([lp.part.src for lp in loaded])
    dst = np.concatenate([lp.part.dst for lp in loaded])
    np.testing.assert_array_equal(src, g.src[eid])
    np.testing.assert_array_equal(dst, g.dst[eid])
    if g.weights is not None:
        w = np.concatenate([lp.part.edata["weight"] for lp in loaded])
        np.testing.assert_array_equal(w, g.weights[eid])
    for lp in loaded:  # a master is a replica, or (edge-cut) the owner
        assert lp.part.master.min() >= 0 and lp.part.master.max() < len(loaded)


@pytest.mark.parametrize("P", [1, 2, 3, 5])
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_byte_ranges_cover_every_line_once(tmp_path, P, eol):
    lines = _lines(m=40, weighted=False)
    p = _write(tmp_path / "g.txt", lines, eol)
    shares = [read_share(p, r, P) for r in range(P)]
    src, dst, _ = gas.io.edgelist.read_edgelist(p)
    np.testing.assert_array_equal(np.concatenate([s.src for s in shares]), src)
    np.testing.assert_array_equal(np.concatenate([s.dst for s in shares]), dst)
    seq = np.concatenate([s.seq for s in shares])
    assert np.all(np.diff(seq) > 0)  # input order
    r = byte_ranges(p, P)
    assert r[0][0] == 0 and r[-1][1] == os.path.getsize(p)
    assert all(a[1] == b[0] for a, b in zip(r, r[1:]))


def test_more_shares_than_lines_and_header(tmp_path):
    p = _write(tmp_path / "g.csv", ["\ufeffsrc,dst", "5,6", "6,7"])
    shares = [read_share(p, r, 7, skip_rows=1) for r in range(7)]
    assert sum(s.src.size for s in shares) == 2
    assert sorted(np.concatenate([s.src for s in shares]).tolist()) == [5, 6]


def test_error_names_the_files_line_from_a_later_share(tmp_path):
    lines = _lines(m=200, weighted=False)
    lines[150] = "12 x9"
    p = _write(tmp_path / "g.txt", lines)
    with pytest.raises(InputError) as ref:
        gas.load(p)
    msgs = []
    for r in range(3):
        try:
            read_share(p, r, 3)
        except InputError as exc:
            msgs.append(exc)
    assert len(msgs) == 1 and msgs[0].line == ref.value.line == 151
    bad = _lines(m=30)
    bad[25] = bad[25].split()[0] + " 3 abc"  # weight left to float(), then rejected
    p2 = _write(tmp_path / "w.txt", bad)
    with pytest.raises(InputError) as ref2:
        gas.load(p2)
    lines2 = [e.line for r in range(2) for e in _raises(lambda r=r: read_share(p2, r, 2))]
    assert lines2 == [ref2.value.line]


def _raises(fn):
    try:
        fn()
    except InputError as exc:
        return [exc]
    return []


@pytest.mark.parametrize("comp", ["gz", "bz2"])
def test_compressed_shares(tmp_path, comp, monkeypatch):
    import gas.io.ranges as ranges

    monkeypatch.setattr(ranges, "BLOCK", 256)  # many blocks
    lines = _lines()
    p = _write(tmp_path / f"g.txt.{comp}", lines, comp=comp)
    g = gas.load(p)
    loaded = _threads(3, lambda c: load_part(p, c, method="random"))
    _check_same_graph(loaded, g)


@pytest.mark.parametrize("method", list(available_methods()))
def test_file_load_equals_single_process_load(tmp_path, method):
    p = _write(tmp_path / "g.txt", _lines())
    g = gas.load(p)
    loaded = _threads(3, lambda c: load_part(p, c, method=method, seed=2))
    _check_same_graph(loaded, g)
    if method == "random":  # hash placement: exactly the single-process assignment
        a = partition(g, "random", num_parts=3, seed=2)
        np.testing.assert_array_equal(loaded[0].part.master, a.master)
        for lp in loaded:
            assert np.all(a.edge_part[lp.part.eid] == lp.part.rank)


@pytest.mark.parametrize("opts", [{"keep": True, "und": False}, {"keep": False, "und": True}])
def test_duplicates_and_undirected(tmp_path, opts):
    p = _write(tmp_path / "g.txt", _lines(seed=9))
    g = gas.load(p, dedupe=not opts["keep"])
    if opts["und"]:
        g = g.symmetrized()
    loaded = _threads(
        2, lambda c: load_part(p, c, method="hdrf", dedupe=not opts["keep"], undirected=opts["und"])
    )
    _check_same_graph(loaded, g)


def test_folder_of_parts(tmp_path):
    lines = _lines(seed=4)
    d = tmp_path / "parts"
    d.mkdir()
    _write(d / "part-00000", ["u v w", *lines[:100]])
    _write(d / "part-00001.gz", ["u v w", *lines[100:250]], comp="gz")
    _write(d / "part-00002", ["u v w", *lines[250:]])
    (d / "_SUCCESS").write_text("")
    whole = _write(tmp_path / "all.txt", lines)
    g = gas.load(whole)
    loaded = _threads(2, lambda c: load_part(d, c, method="grid", skip_rows=1))
    _check_same_graph(loaded, g)


def _run(loaded_parts, make_program, comm_of):
    return run_partition(loaded_parts, make_program(), comm_of, max_iter=300, threads=1)


@pytest.mark.parametrize("P", [2, 3])
@pytest.mark.parametrize("method", ["random", "grid", "hdrf", "hash"])
def test_pagerank_and_cc_from_a_scaled_out_load(tmp_path, P, method):
    extra = ["7 8", "8 9", "20 21", "22 22"]  # small components beside the big one
    p = _write(tmp_path / "g.txt", [*_lines(seed=P, weighted=False), *extra])
    g = gas.load(p)

    def job(c):
        lp = load_part(p, c, method=method)
        pr = run_partition(lp.part, PageRankProgram(tol=1e-12), c, max_iter=300, threads=1)
        cc = run_partition(lp.part, ComponentsProgram(), c, max_iter=300, threads=1)
        return lp, pr, cc

    out = _threads(P, job)
    ref = gas.algorithms.pagerank(g, tol=1e-12, max_iter=300)
    assert np.abs(out[0][1].output - ref).sum() <= 1e-9
    # both label each vertex by the internal id of its component's smallest vertex
    np.testing.assert_array_equal(out[0][2].output, gas.algorithms.connected_components(g))
    # written with original ids: the id table is the single-process one
    np.testing.assert_array_equal(out[0][0].ids, g.ids)


def test_empty_input_is_an_input_error(tmp_path):
    p = _write(tmp_path / "g.txt", ["# nothing"])
    with pytest.raises(InputError, match="no edges"):
        _threads(2, lambda c: load_part(p, c, method="random"))


def _cli(args, env=None, timeout=180):
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "gas.cli", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_cli_scaled_out_cc_with_procs_and_sssp_under_env_launcher(tmp_path):
    import socket

    lines = [*_lines(seed=11, weighted=True), "900 901 1", "902 902 2"]
    p = _write(tmp_path / "g.txt", lines)
    src = lines[0].split()[0]
    ref_cc, ref_sp = tmp_path / "cc1.tsv", tmp_path / "sp1.tsv"
    sp_args = ["sssp", p, "--source", src, "--weighted", "-q", "-o", str(ref_sp)]  # weights only when asked
    for args in (["cc", p, "-q", "-o", str(ref_cc)], sp_args):
        r = _cli(args)
        assert r.wait(180) == 0, r.stderr.read()
    out_cc = tmp_path / "cc2.tsv"
    r = _cli(["cc", p, "--procs", "2", "--partition", "random", "-q", "-o", str(out_cc)])
    assert r.wait(180) == 0, r.stderr.read()
    assert out_cc.read_text() == ref_cc.read_text()  # same ids, same labels, same order
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    out_sp = tmp_path / "sp2.tsv"
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(_cli(["sssp", p, "--source", src, "--weighted", "-q", "-o", str(out_sp)], env=env))
    for pr in procs:
        _, err = pr.communicate(timeout=180)
        assert pr.returncode == 0, err
    assert out_sp.read_text() == ref_sp.read_text()  # distances are exact (min of sums)


def test_file_job_builder_is_resolved_by_name_inside_gas_only(tmp_path):
    import argparse

    from gas.algorithms.registry import program_for_job
    from gas.errors import GasError
    from gas.runtime.file_job import file_job, resolve_builder, run_file_job

    args = argparse.Namespace(file=str(tmp_path / "g.txt"), partition="random", seed=0, quiet=True)
    job = file_job(args, "cc", None)
    assert job["builder"] == "gas.algorithms.registry:program_for_job"
    assert resolve_builder(job["builder"]) is program_for_job
    for bad in ("os:system", "gas.runtime.file_job", "gasx.m:f", "gas.no_such:f", "gas.runtime.comm:nope"):
        with pytest.raises(GasError):
            resolve_builder(bad)
    job["builder"] = "subprocess:run"  # refused before the (missing) file is read
    with pytest.raises(GasError, match="gas.<module>:<function>"):
        run_file_job(Comm(None), job)
