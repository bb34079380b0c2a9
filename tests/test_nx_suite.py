"""networkx's own tests through the gaslab backend (issue 20): 0 failures, known differences xfailed.

networkx's conftest, given ``NETWORKX_TEST_BACKEND=gaslab``, converts every graph argument of a
dispatched call to gaslab's graph and runs gaslab's function (``NETWORKX_FALLBACK_TO_NX``: a call
gaslab declines in ``can_run`` runs in networkx). It patches networkx's dispatcher for the whole
process, so the suite runs in a child process: the rest of gaslab's tests keep plain networkx.
The modules are those of the dispatched functions; the counts are networkx 3.6.1's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from gas.nx_backend import KNOWN_DIFFERENCES

MODULES = [
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.components",
    "networkx.algorithms.link_analysis",
    "networkx.algorithms.shortest_paths",
    "networkx.algorithms.coloring",
    "networkx.algorithms.community.tests.test_label_propagation",
    "networkx.algorithms.centrality.tests.test_katz_centrality",
    "networkx.algorithms.centrality.tests.test_eigenvector_centrality",
]
MIN_PASSED = 400  # networkx 3.6.1: 407 passed, 1 xfailed (a silently shrunk run fails here)


@pytest.mark.slow
def test_networkx_suite_through_gaslab(tmp_path):
    env = dict(os.environ, NETWORKX_TEST_BACKEND="gaslab", NETWORKX_FALLBACK_TO_NX="True")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        *MODULES,
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
    ]
    # cwd outside the repository: networkx's conftest and no pytest settings of ours
    out = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-2000:]
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|xfailed|xpassed|error)", summary)}
    assert out.returncode == 0 and counts.get("failed", 0) == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert counts.get("passed", 0) >= MIN_PASSED, summary
    assert counts.get("xfailed", 0) <= len(KNOWN_DIFFERENCES), summary
