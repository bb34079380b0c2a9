"""Slurm host lists: expansion of the bracket syntax and how many hosts a job spans.

:func:`gas.runtime.launch.master_address` takes rank 0's host from the first host of
``SLURM_STEP_NODELIST`` (:func:`slurm_hosts`) and refuses loopback for a job that spans several
hosts (:func:`hosts_spanned`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping

from gas.errors import GasError

__all__ = ["MAX_HOSTS", "expand_hostlist", "hosts_spanned", "slurm_hosts"]

MAX_HOSTS = 1 << 20


def expand_hostlist(hostlist: str) -> list[str]:
    """Every host of a Slurm host list, in Slurm's order, by the bracket syntax.

    Comma-separated items; in an item each ``[...]`` group holds comma-separated numbers and
    ``lo-hi`` ranges, zero-padded to the width of ``lo``; several groups give every combination,
    the leftmost group varying slowest (as ``scontrol show hostnames`` prints them).

    Examples
    --------
    >>> expand_hostlist("rack[1-2]-node[01-02],gpu9")
    ['rack1-node01', 'rack1-node02', 'rack2-node01', 'rack2-node02', 'gpu9']
    """
    hosts: list[str] = []
    for item in _split_top(hostlist):
        parts = re.split(r"(\[[^\[\]]*\])", item)
        if any(c in p for p in parts[::2] for c in "[]"):
            raise GasError(f"Slurm host list {hostlist!r}: unbalanced brackets in {item!r}")
        combos = [""]
        for k, part in enumerate(parts):
            choices = _bracket_values(part[1:-1], hostlist) if k % 2 else [part]
            if len(combos) * len(choices) > MAX_HOSTS:
                raise GasError(f"Slurm host list {hostlist!r}: more than {MAX_HOSTS} hosts")
            combos = [c + x for c in combos for x in choices]
        hosts.extend(combos)
    return hosts


def _split_top(hostlist: str) -> list[str]:
    """Split a host list at the commas outside brackets."""
    text = hostlist.strip()
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "[") - (ch == "]")
        if depth not in (0, 1):
            raise GasError(f"Slurm host list {hostlist!r}: unbalanced brackets")
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    if depth or any(not it for it in items):
        raise GasError(f"Slurm host list {hostlist!r}: unbalanced brackets or an empty host name")
    return items


def _bracket_values(body: str, hostlist: str) -> list[str]:
    """``01-03,7`` -> ``['01', '02', '03', '7']``."""
    out: list[str] = []
    for piece in body.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", piece)
        if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise GasError(
                f"Slurm host list {hostlist!r}: bad range {piece!r} "
                "(expected numbers or lo-hi ranges with lo <= hi inside the brackets)"
            )
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) - int(lo) >= MAX_HOSTS:
            raise GasError(f"Slurm host list {hostlist!r}: range {piece!r} has more than {MAX_HOSTS} hosts")
        out.extend(str(v).zfill(len(lo)) for v in range(int(lo), int(hi) + 1))
    return out


def slurm_hosts(nodelist: str) -> list[str]:
    """The hosts of a Slurm node list: ``scontrol show hostnames`` when on PATH, else the parser."""
    scontrol = shutil.which("scontrol")
    if scontrol:
        try:
            out = subprocess.run(
                [scontrol, "show", "hostnames", nodelist], capture_output=True, text=True, timeout=20
            )
            if out.returncode == 0 and out.stdout.split():
                return out.stdout.split()
        except (OSError, subprocess.SubprocessError):
            pass
    return expand_hostlist(nodelist)


def hosts_spanned(env: Mapping[str, str]) -> int | None:
    """How many hosts the job spans by the launcher's variables (2 means "several"; None: unknown).

    Examples
    --------
    >>> hosts_spanned({"PMI_RANK": "0", "PMI_SIZE": "4", "MPI_LOCALNRANKS": "2"})
    2
    """
    for nodes in ("SLURM_STEP_NUM_NODES", "SLURM_JOB_NUM_NODES", "SLURM_NNODES"):
        if "SLURM_PROCID" in env and env.get(nodes, "").isdigit():
            return int(env[nodes])
    pairs = (
        ("OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE"),  # Open MPI
        ("MPI_LOCALNRANKS", "PMI_SIZE"),  # MPICH hydra
        ("LOCAL_WORLD_SIZE", "WORLD_SIZE"),  # torchrun
    )
    for local, world in pairs:
        if env.get(local, "").isdigit() and env.get(world, "").isdigit():
            return 1 if int(env[local]) >= int(env[world]) else 2
    return None
