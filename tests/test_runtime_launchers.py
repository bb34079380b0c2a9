"""`gas pagerank FILE` started as several ranks by a launcher: plain env, mpiexec, two hosts.

Every rank runs the unchanged command; rank 0 writes the output, which must equal the
single-process output (PageRank L1 <= 1e-9). The reference is a single-process `gas` run.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _read(path: Path) -> dict[int, float]:
    return {int(a): float(b) for a, b in (ln.split("\t") for ln in path.read_text().splitlines())}


@pytest.fixture(scope="module")
def edge_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("launch")
    rng = np.random.default_rng(2)
    src = rng.integers(0, 200, 1200)
    dst = rng.integers(0, 200, 1200)
    f = d / "g.tsv"
    np.savetxt(f, np.stack([src, dst], 1), fmt="%d", delimiter="\t")
    ref = d / "ref.tsv"
    r = subprocess.run(
        [sys.executable, "-m", "gas.cli", "pagerank", str(f), "-q", "--tol", "1e-12", "-o", str(ref)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return f, ref


def _cmd(f: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "gas.cli", "pagerank", str(f), "-q", "--tol", "1e-12", "-o", str(out)]


# the asynchronous engine (chromatic steps) stops per vertex at tol: its answer is within
# N * tol / (1 - alpha) = 1.3e-9 of the exact one, the sync reference's within 1e-9
@pytest.mark.parametrize(
    "extra, bound",
    [((), 1e-9), (("--engine", "async", "--scheduler", "fifo", "--consistency", "edge"), 5e-9)],
    ids=["sync", "async"],
)
def test_plain_env_rendezvous(edge_file, tmp_path, extra, bound):
    f, ref = edge_file
    out = tmp_path / "out.tsv"
    port = _free_port()
    procs = []
    for r in range(2):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        cmd = _cmd(f, out) + list(extra)
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    a, b = _read(ref), _read(out)
    assert sum(abs(a[k] - b[k]) for k in a) <= bound


def test_mpiexec(edge_file, tmp_path):
    mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    if mpiexec is None:
        pytest.skip("no mpiexec (pip install mpich provides one)")
    f, ref = edge_file
    out = tmp_path / "out.tsv"
    env = dict(os.environ, MASTER_PORT=str(_free_port()))
    r = subprocess.run(
        [mpiexec, "-n", "2", *_cmd(f, out)], capture_output=True, text=True, timeout=180, env=env
    )
    assert r.returncode == 0, r.stderr
    a, b = _read(ref), _read(out)
    assert sum(abs(a[k] - b[k]) for k in a) <= 1e-9


NS = ("gaslab_h1", "gaslab_h2")


def _ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True)


@pytest.fixture
def two_hosts():
    if shutil.which("ip") is None:
        pytest.skip("the ip command is not installed")
    r = _ip("netns", "add", NS[0])
    if r.returncode != 0:
        pytest.skip(f"cannot create network namespaces here (`ip netns add` needs root): {r.stderr.strip()}")
    try:
        _ip("netns", "add", NS[1])
        steps = [
            ("link", "add", "gaslab_v1", "type", "veth", "peer", "name", "gaslab_v2"),
            ("link", "set", "gaslab_v1", "netns", NS[0]),
            ("link", "set", "gaslab_v2", "netns", NS[1]),
            ("-n", NS[0], "addr", "add", "10.251.7.1/24", "dev", "gaslab_v1"),
            ("-n", NS[1], "addr", "add", "10.251.7.2/24", "dev", "gaslab_v2"),
            ("-n", NS[0], "link", "set", "gaslab_v1", "up"),
            ("-n", NS[1], "link", "set", "gaslab_v2", "up"),
            ("-n", NS[0], "link", "set", "lo", "up"),
            ("-n", NS[1], "link", "set", "lo", "up"),
        ]
        for s in steps:
            r = _ip(*s)
            if r.returncode != 0:
                pytest.skip(f"cannot build the veth pair: ip {' '.join(s)}: {r.stderr.strip()}")
        yield ("10.251.7.1", "10.251.7.2")
    finally:
        for ns in NS:
            _ip("netns", "del", ns)


def test_two_network_namespaces(edge_file, tmp_path, two_hosts):
    f, ref = edge_file
    out = tmp_path / "out.tsv"
    master, _ = two_hosts
    procs = []
    for r in range(2):
        env = dict(
            os.environ,
            RANK=str(r),
            WORLD_SIZE="2",
            MASTER_ADDR=master,
            MASTER_PORT="29611",
            GAS_JOB_SECRET="ns-test",
        )
        cmd = ["ip", "netns", "exec", NS[r], *_cmd(f, out)]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    a, b = _read(ref), _read(out)
    assert sum(abs(a[k] - b[k]) for k in a) <= 1e-9
