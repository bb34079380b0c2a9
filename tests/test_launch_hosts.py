"""Where rank 0 is: Slurm host lists expanded, and never loopback for a job that spans hosts.

Expected host lists are written by hand from Slurm's documented hostlist syntax (sbatch(1),
"hostlist expressions": comma-separated names, ``[...]`` with numbers and ``lo-hi`` ranges,
zero padding kept, several bracket groups giving every combination).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gas.errors import GasError
from gas.runtime import hosts, launch
from gas.runtime.launch import expand_hostlist, hosts_spanned, master_address, slurm_hosts


@pytest.mark.parametrize(
    "hostlist, expected",
    [
        ("node1", ["node1"]),
        ("node[1-3]", ["node1", "node2", "node3"]),
        ("node[01-03]", ["node01", "node02", "node03"]),
        ("node[8-11]", ["node8", "node9", "node10", "node11"]),
        ("node[08-11]", ["node08", "node09", "node10", "node11"]),
        ("node[1,3,5-6]", ["node1", "node3", "node5", "node6"]),
        ("node[7]", ["node7"]),
        (
            "rack[1-2]-node[01-02]",
            ["rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"],
        ),
        ("a[1-2],b,c[10-11]", ["a1", "a2", "b", "c10", "c11"]),
        ("gpu-[001-002]-ib", ["gpu-001-ib", "gpu-002-ib"]),
        ("n[9-10]x[0-1]", ["n9x0", "n9x1", "n10x0", "n10x1"]),
        ("login.cluster.org", ["login.cluster.org"]),
    ],
)
def test_slurm_hostlists_expand_as_slurm_does(hostlist, expected):
    assert expand_hostlist(hostlist) == expected


@pytest.mark.parametrize("bad", ["node[1-", "node]1", "node[3-1]", "node[a-b]", "a,,b", "node[[1]]", ""])
def test_a_malformed_hostlist_is_a_clear_error(bad):
    with pytest.raises(GasError, match="Slurm host list"):
        expand_hostlist(bad)


def test_scontrol_is_used_when_on_path(tmp_path, monkeypatch):
    fake = tmp_path / "scontrol"
    fake.write_text("#!/bin/sh\n[ \"$1 $2\" = 'show hostnames' ] && printf 'x7\\ny8\\n'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert slurm_hosts("whatever[1-2]") == ["x7", "y8"]


@pytest.fixture
def offline(monkeypatch):
    """No scontrol, and only the names in ``known`` resolve (no DNS in the test)."""
    known: set[str] = set()
    monkeypatch.setattr(hosts.shutil, "which", lambda name: None)
    monkeypatch.setattr(launch, "_resolves", lambda host: host in known)
    return known


def test_slurm_master_is_the_first_expanded_host(offline):
    # before the fix, rack[1-2]-node[01-02] became "rack1", which did not resolve: 127.0.0.1
    offline.add("rack1-node01")
    env = {"SLURM_PROCID": "1", "SLURM_NTASKS": "4", "SLURM_STEP_NODELIST": "rack[1-2]-node[01-02]"}
    assert master_address(env)[0] == "rack1-node01"


def test_a_slurm_step_across_hosts_never_falls_back_to_loopback(offline):
    env = {
        "SLURM_PROCID": "0",
        "SLURM_NTASKS": "4",
        "SLURM_STEP_NUM_NODES": "4",
        "SLURM_STEP_NODELIST": "rack[1-2]-node[01-02]",
    }
    with pytest.raises(GasError, match=r"rack1-node01.*does not resolve.*MASTER_ADDR"):
        master_address(env)
    assert master_address(dict(env, MASTER_ADDR="10.1.2.3"))[0] == "10.1.2.3"


def test_a_one_node_slurm_step_may_use_loopback(offline):
    env = {"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_STEP_NUM_NODES": "1", "SLURM_STEP_NODELIST": "n5"}
    assert master_address(env)[0] == "127.0.0.1"


@pytest.mark.parametrize(
    "env",
    [
        {"PMI_RANK": "0", "PMI_SIZE": "4", "MPI_LOCALNRANKS": "2"},  # MPICH hydra on 2 hosts
        {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "1"},
        {"RANK": "0", "WORLD_SIZE": "8", "LOCAL_WORLD_SIZE": "4"},  # torchrun, 2 nodes
    ],
    ids=["mpich", "openmpi", "torchrun"],
)
def test_mpiexec_across_hosts_without_master_addr_says_what_to_export(env, offline):
    assert hosts_spanned(env) == 2
    with pytest.raises(GasError, match="several hosts.*export MASTER_ADDR"):
        master_address(env)
    assert master_address(dict(env, MASTER_ADDR="10.0.0.9"))[0] == "10.0.0.9"


@pytest.mark.parametrize(
    "env",
    [
        {"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"},
        {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"},
        {"RANK": "0", "WORLD_SIZE": "2"},
    ],
)
def test_one_host_jobs_still_meet_on_loopback(env):
    assert master_address(env)[0] == "127.0.0.1"


def test_the_gas_command_reports_it_without_a_traceback(tmp_path):
    f = tmp_path / "g.tsv"
    f.write_text("0\t1\n1\t2\n")
    env = dict(os.environ, PMI_RANK="1", PMI_SIZE="2", MPI_LOCALNRANKS="1")
    env.pop("MASTER_ADDR", None)
    r = subprocess.run(
        [sys.executable, "-m", "gas.cli", "pagerank", str(f), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 2, r.stderr
    assert "MASTER_ADDR" in r.stderr and "Traceback" not in r.stderr
