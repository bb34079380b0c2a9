"""Launch: rank/size from each launcher's environment, rendezvous with the job secret.

The rendezvous tests run ranks as threads in this process over loopback ZeroMQ; a rogue peer
with the wrong secret and a peer sending garbage are refused and logged while the real ranks
still meet.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest
import zmq

from gas.errors import GasError
from gas.runtime.launch import AuthError, connect_world, detect_world, job_secret, master_address
from gas.runtime.protocol import AUTH, CONTROL, DATA, Message, decode, encode


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"RANK": "2", "WORLD_SIZE": "4"}, (2, 4)),
        ({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "3"}, (1, 3)),
        ({"PMI_RANK": "0", "PMI_SIZE": "2"}, (0, 2)),
        ({"SLURM_PROCID": "5", "SLURM_STEP_NUM_TASKS": "8", "SLURM_NTASKS": "16"}, (5, 8)),
        ({"SLURM_PROCID": "5", "SLURM_NTASKS": "16"}, (5, 16)),
        ({"RANK": "1", "WORLD_SIZE": "2", "PMI_RANK": "0", "PMI_SIZE": "9"}, (1, 2)),  # first match wins
        ({}, (0, 1)),
    ],
)
def test_rank_and_size_from_each_launcher(env, expected):
    assert detect_world(env)[:2] == expected


@pytest.mark.parametrize(
    "env", [{"RANK": "4", "WORLD_SIZE": "4"}, {"PMI_RANK": "x", "PMI_SIZE": "2"}, {"SLURM_PROCID": "0"}]
)
def test_bad_launcher_environment_is_a_clear_error(env):
    with pytest.raises(GasError):
        detect_world(env)


def test_master_address_rules():
    assert master_address({}) == ("127.0.0.1", 29517)
    assert master_address({"MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "1234"}) == ("10.0.0.5", 1234)
    # torchrun's own store listens on MASTER_PORT: gaslab takes the next port
    assert master_address({"MASTER_PORT": "1234", "TORCHELASTIC_RUN_ID": "x"})[1] == 1235
    assert master_address({"SLURM_STEP_NODELIST": "localhost,node[2-3]"})[0] == "localhost"


def test_cluster_job_needs_a_secret(tmp_path):
    with pytest.raises(AuthError, match="GAS_JOB_SECRET"):
        job_secret({}, cluster=True)
    f = tmp_path / "s"
    f.write_text("abc\n")
    assert job_secret({"GAS_JOB_SECRET_FILE": str(f)}, cluster=True) == b"abc"
    assert job_secret({"GAS_JOB_SECRET": "xyz"}, cluster=True) == b"xyz"


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _start(rank, size, env, out, errors):
    def work():
        try:
            out[rank] = connect_world(rank, size, env=env, timeout=20)
        except BaseException as exc:  # noqa: BLE001 - checked by the test
            errors[rank] = exc

    th = threading.Thread(target=work)
    th.start()
    return th


def test_env_rendezvous_three_ranks_exchange_data():
    port = _free_port()
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "GAS_JOB_SECRET": "s3"}
    out, errors = [None] * 3, [None] * 3
    ths = [_start(r, 3, env, out, errors) for r in range(3)]
    for th in ths:
        th.join(30)
    assert errors == [None] * 3
    try:
        for r in range(3):
            for q in range(3):
                if q != r:
                    out[r].send(q, DATA, 0, [np.array([r, q])])
        for r in range(3):
            for q in range(3):
                if q != r:
                    assert out[r].recv(q, DATA, 0, timeout=10).arrays[0].tolist() == [q, r]
    finally:
        for t in out:
            if t is not None:
                t._closing = True
                t.close()


def test_wrong_secret_and_garbage_are_refused_and_logged(caplog):
    port = _free_port()
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "GAS_JOB_SECRET": "right"}
    out, errors = [None] * 2, [None] * 2
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        th0 = _start(0, 2, env, out, errors)
        # a rank that knows the wrong secret: refused, and told so
        bad_env = dict(env, GAS_JOB_SECRET="wrong")
        with pytest.raises(AuthError, match="does not know the job secret"):
            connect_world(1, 2, env=bad_env, timeout=10)
        # a rogue that answers the challenge with a wrong proof, and one that sends garbage
        ctx = zmq.Context.instance()
        rogue = ctx.socket(zmq.DEALER)
        rogue.setsockopt(zmq.LINGER, 0)
        rogue.connect(f"tcp://127.0.0.1:{port}")
        rogue.send_multipart([b"\x00garbage"])
        rogue.send_multipart([b"GASW", b"more garbage"])
        hello = {"op": "hello", "rank": 1, "size": 2, "nonce": "n"}
        rogue.send_multipart(encode(Message(CONTROL, 1, 0, 0, [], hello)))
        assert rogue.poll(10_000)
        sn = decode(rogue.recv_multipart(), 2).meta["nonce"]
        mac = hmac.new(b"guess", f"cli|{sn}|1".encode(), hashlib.sha256).hexdigest()
        rogue.send_multipart(encode(Message(AUTH, 1, 0, 0, [], {"op": "proof", "mac": mac, "info": {}})))
        assert rogue.poll(10_000)
        assert decode(rogue.recv_multipart(), 2).meta["op"] == "refused"
        rogue.close()
        # the real rank 1 still gets in
        th1 = _start(1, 2, env, out, errors)
        th0.join(30)
        th1.join(30)
    assert errors == [None, None]
    assert "wrong job secret" in caplog.text
    assert "ignored a message" in caplog.text
    try:
        out[1].send(0, DATA, 0, [np.arange(2)])
        assert out[0].recv(1, DATA, 0, timeout=10).arrays[0].tolist() == [0, 1]
    finally:
        for t in out:
            t._closing = True
            t.close()


def test_a_worker_that_dies_before_joining_ends_the_rendezvous_at_once(tmp_path):
    # an unguarded script: the spawned worker re-imports it and fails while bootstrapping. The
    # cluster must say so with the fix, not wait out its 120 s rendezvous timeout
    script = tmp_path / "unguarded.py"
    script.write_text("from gas.runtime.local import LocalCluster\nLocalCluster(2).close()\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=90)
    assert out.returncode != 0
    assert "rank 1 exited with code 1 before joining" in out.stderr
    assert "if __name__ == '__main__':" in out.stderr
