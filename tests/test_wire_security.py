"""The wire under attack (issue 17 section 6): oversized claims, forged, altered and replayed traffic.

A rogue on loopback either speaks gaslab's protocol without the job secret, or sits between two
ranks as a TCP relay that records, alters or repeats the bytes one rank sends another. In every
case the message is dropped and logged, nothing is allocated for a size the frames do not hold,
and the job goes on. Expected answers: networkx PageRank, and the arrays the test itself sent.
"""

from __future__ import annotations

import logging
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

import gas
import gas.runtime.local
import gas.runtime.transport
from gas.algorithms.pagerank import PageRankProgram
from gas.runtime import protocol as pr
from gas.runtime.launch import job_secret, launcher_job_id, user_secret
from gas.runtime.protocol import DATA, Message, ProtocolError, decode, encode
from gas.runtime.transport import RecvTimeout
from gas.runtime.zmq_transport import ZmqTransport, curve_client

TIB = 1 << 40


def _huge_claim(n_frames: int = 1 << 20, nbytes: int = TIB, src: int = 1) -> list[bytes]:
    """The reported attack: a header claiming a float64 array of ``nbytes``, then empty frames."""
    head = pr._FIXED.pack(pr.MAGIC, pr.VERSION, DATA, 1, src, 0, 0, 0, n_frames)
    head += pr._ARR.pack(11, 1) + struct.pack("<Q", nbytes // 8)  # code 11: float64
    empty = b""
    return [head] + [empty] * n_frames


# ---------------------------------------------------------------------- sizes before allocation
def test_a_one_tib_claim_with_empty_frames_is_refused_before_allocating():
    # before the fix: MemoryError ("Unable to allocate 1.00 TiB"), which ended the whole job
    frames = _huge_claim()
    with pytest.raises(ProtocolError, match="1099511627776 bytes"):
        decode(frames, world=2)
    # under a cap large enough to let the claim through, each frame's length is what stops it
    with pytest.raises(ProtocolError, match="frame 1 has 0 bytes"):
        decode(frames, world=2, max_bytes=2 * TIB)


def test_sizes_are_checked_against_the_frames_before_the_buffer_is_touched():
    good = encode(Message(DATA, 1, 0, 0, [np.arange(4.0)]))
    buf = np.full(4, -1.0)
    with pytest.raises(ProtocolError, match="frame 1 has 24 bytes"):
        decode([good[0], bytes(good[1])[:24]], world=2, into=[buf])
    assert (buf == -1.0).all()  # nothing was written


def test_the_message_cap_is_documented_and_overridable(monkeypatch):
    a = np.zeros(1000)  # 8,000 bytes
    frames = encode(Message(DATA, 1, 0, 0, [a]))
    monkeypatch.setenv("GAS_MAX_MESSAGE_BYTES", "4096")
    assert pr.max_message_bytes() == 4096
    with pytest.raises(ProtocolError, match="at most 4096"):
        decode(frames, world=2)
    with pytest.raises(ProtocolError, match="GAS_MAX_MESSAGE_BYTES"):
        encode(Message(DATA, 0, 1, 0, [a]))  # the sender hears of the cap, not a silent drop
    monkeypatch.setenv("GAS_MAX_MESSAGE_BYTES", "lots")
    with pytest.raises(gas.GasError, match="GAS_MAX_MESSAGE_BYTES"):
        pr.max_message_bytes()
    monkeypatch.delenv("GAS_MAX_MESSAGE_BYTES")
    assert pr.max_message_bytes() == 16 << 30
    assert decode(frames, world=2).arrays[0].nbytes == 8000


def test_dropped_messages_are_logged_at_a_bounded_rate(caplog):
    hub = gas.runtime.transport.InProcHub(2)
    t0 = hub.transport(0)
    bad = _huge_claim(n_frames=3)
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        for _ in range(50):
            hub.inject(0, bad)
        with pytest.raises(RecvTimeout):
            t0.recv(1, DATA, 0, timeout=0.5)
    assert t0.rejected == 50
    drops = [r for r in caplog.records if "dropped a malformed message" in r.getMessage()]
    assert len(drops) == t0.log_burst  # the other 40 are counted, not each logged


def test_a_wellformed_message_from_an_unauthenticated_link_is_dropped(caplog):
    hub = gas.runtime.transport.InProcHub(2)
    t0, t1 = hub.transport(0), hub.transport(1)
    buf = np.zeros(3)
    hub.inject(0, encode(Message(DATA, 1, 0, 0, [np.array([6.0, 6.0, 6.0])])))  # no link: forged
    t1.send(0, DATA, 0, [np.array([1.0, 2.0, 3.0])])
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        m = t0.recv(1, DATA, 0, into=[buf], timeout=5)
    assert m.arrays[0].tolist() == [1.0, 2.0, 3.0]
    assert t0.rejected == 1 and "unauthenticated" in caplog.text


# ---------------------------------------------------------------------- a relay between two ranks
class Relay:
    """A TCP relay from a local port to ``target``, recording what the client sends.

    ``mode``: "pass"; "alter" flips one byte in the middle of the next client chunk longer than
    ``big`` bytes; "repeat" sends the next such chunk twice. ``recorded`` holds every client chunk.
    """

    def __init__(self, target: str, big: int = 2000) -> None:
        host, port = target.rsplit("//", 1)[1].rsplit(":", 1)
        self.target = (host, int(port))
        self.big = big
        self.mode = "pass"
        self.hits = 0
        self.recorded: list[bytes] = []
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(8)
        self.endpoint = f"tcp://127.0.0.1:{self.lsock.getsockname()[1]}"
        self.stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.lsock.settimeout(0.2)
        while not self.stop:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                continue
            s = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(c, s, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(s, c, False), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket, upstream: bool) -> None:
        try:
            while True:
                chunk = a.recv(1 << 16)
                if not chunk:
                    break
                if upstream:
                    self.recorded.append(chunk)
                    if self.mode != "pass" and len(chunk) > self.big:
                        self.hits += 1
                        if self.mode == "alter":
                            k = len(chunk) // 2
                            chunk = chunk[:k] + bytes([chunk[k] ^ 0x40]) + chunk[k + 1 :]
                        else:
                            b.sendall(chunk)
                        self.mode = "pass"
                b.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def close(self) -> None:
        self.stop = True
        self.lsock.close()


@pytest.fixture
def relayed():
    """Rank 0's transport, and rank 1's CURVE dealer reaching it through a :class:`Relay`."""
    secret = b"wire-test-secret"
    t0 = ZmqTransport(0, 2, secret=secret)
    relay = Relay(t0.endpoint)
    ctx = zmq.Context()
    d = curve_client(ctx, secret, 1, 0)
    d.setsockopt(zmq.LINGER, 0)
    d.connect(relay.endpoint)
    d.send_multipart(encode(Message(DATA, 1, 0, 0, [np.arange(3)])))
    assert t0.recv(1, DATA, 0, timeout=10).arrays[0].tolist() == [0, 1, 2]  # the link is up
    yield t0, relay, d
    d.close()
    ctx.term()
    relay.close()
    t0._closing = True
    t0.close()


def _payload(tag: int) -> Message:
    return Message(DATA, 1, 0, tag, [np.full(1000, float(tag))])  # 8 kB: one big chunk


def _wait_rejected(t: ZmqTransport, n: int, seconds: float = 5.0) -> None:
    end = time.monotonic() + seconds
    while t.rejected < n and time.monotonic() < end:
        try:
            t.recv(1, DATA, None, timeout=0.1)
            raise AssertionError("a message was delivered that should have been dropped")
        except RecvTimeout:
            pass


def _wait_handshake(mon: zmq.Socket, seconds: float = 10.0) -> None:
    """Until the monitored socket completes a new handshake."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if mon.poll(100) and recv_monitor_message(mon)["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            return
    raise AssertionError("the dealer did not reconnect")


def test_an_altered_data_message_is_dropped_and_the_link_recovers(relayed, caplog):
    t0, relay, d = relayed
    mon = d.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        relay.mode = "alter"
        d.send_multipart(encode(_payload(1)))
        _wait_rejected(t0, 1)
        assert relay.hits == 1 and t0.rejected >= 1
        # before the fix the altered bytes were delivered (no MAC on data messages). ZeroMQ
        # closed the connection: the dealer reconnects through the relay, then sends again
        _wait_handshake(mon)
        d.disable_monitor()
        mon.close(linger=0)
        d.send_multipart(encode(_payload(2)))
        m = t0.recv(1, DATA, 2, timeout=10)
    assert m.arrays[0].tolist() == [2.0] * 1000
    assert "refused a connection" in caplog.text and "cryptographic" in caplog.text


def test_a_replayed_data_message_is_dropped(relayed, caplog):
    t0, relay, d = relayed
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        relay.mode = "repeat"
        d.send_multipart(encode(_payload(1)))
        assert t0.recv(1, DATA, 1, timeout=10).arrays[0][0] == 1.0  # the original, once
        _wait_rejected(t0, 1)  # the copy: refused, never delivered a second time
        assert relay.hits == 1 and t0.rejected >= 1
    assert "invalid sequence" in caplog.text


def test_a_recorded_connection_replayed_on_a_new_one_is_refused(relayed, caplog):
    # the old AUTH frame was a fixed HMAC, so re-sending a captured one made a new link rank 0's
    # (or 1's); now the handshake answers a fresh server cookie, and a recording cannot
    t0, relay, d = relayed
    d.send_multipart(encode(_payload(1)))
    t0.recv(1, DATA, 1, timeout=10)
    recording = b"".join(relay.recorded)  # handshake, the proof of rank 1, two data messages
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        host, port = t0.endpoint.rsplit("//", 1)[1].rsplit(":", 1)
        with socket.create_connection((host, int(port))) as raw:
            raw.sendall(recording)
            _wait_rejected(t0, 1)
    assert t0.rejected >= 1
    assert "refused a connection" in caplog.text


def test_a_peer_without_the_secret_cannot_inject_anything():
    t0 = ZmqTransport(0, 2, secret=b"right")
    t1 = ZmqTransport(1, 2, secret=b"right")
    table = [t0.info(), t1.info()]
    t0.connect(table)
    t1.connect(table)
    ctx = zmq.Context()
    socks = [ctx.socket(zmq.DEALER), curve_client(ctx, b"wrong", 1, 0)]
    try:
        for s in socks:
            s.setsockopt(zmq.LINGER, 0)
            s.connect(t0.endpoint)
            s.send_multipart(encode(Message(DATA, 1, 0, 0, [np.array([66.0])])))  # forged rank 1
        _wait_rejected(t0, 2)
        t1.send(0, DATA, 0, [np.array([1.0])])
        assert t0.recv(1, DATA, 0, timeout=10).arrays[0].tolist() == [1.0]  # the real one only
        assert t0.rejected >= 2
    finally:
        for s in socks:
            s.close()
        ctx.term()
        for t in (t0, t1):
            t._closing = True
            t.close()


# ---------------------------------------------------------------------- a running 2-rank job
def _nx_pagerank(g: gas.Graph) -> np.ndarray:
    import networkx as nx

    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_vertices))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))
    pr_ = nx.pagerank(G, alpha=0.85, tol=1e-13, max_iter=2000)
    return np.array([pr_[v] for v in range(g.num_vertices)])


def _send_nowait(sock: zmq.Socket, frames: list) -> None:
    try:
        sock.send_multipart(frames, flags=zmq.NOBLOCK)
    except zmq.Again:
        pass


def test_a_running_two_rank_job_survives_rogue_traffic(caplog):
    rng = np.random.default_rng(5)
    n = 150
    g = gas.Graph.from_edges(rng.integers(0, n, 600), rng.integers(0, n, 600), num_vertices=n)
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        with gas.runtime.local.LocalCluster(2) as cluster:
            t0 = cluster.comm.t
            ctx = zmq.Context()
            rogue = ctx.socket(zmq.DEALER)  # no secret: the reported attack, verbatim
            rogue.setsockopt(zmq.LINGER, 0)
            rogue.connect(t0.endpoint)
            # once its handshake is refused a DEALER has no peer and a blocking send waits
            # forever: send without blocking (what is not queued was refused anyway)
            _send_nowait(rogue, _huge_claim(n_frames=1 << 16))
            _send_nowait(rogue, encode(Message(DATA, 1, 0, 1, [np.ones(n)])))
            # a peer that has the keys (a buggy rank) sending a claim its frames do not hold
            insider = curve_client(ctx, t0.secret, 1, 0)
            insider.setsockopt(zmq.LINGER, 0)
            insider.connect(t0.endpoint)
            insider.setsockopt(zmq.SNDTIMEO, 10_000)
            insider.send_multipart(_huge_claim(n_frames=3))
            time.sleep(0.5)
            got = cluster.run(g, PageRankProgram(tol=1e-13), max_iter=500)
            rogue.close()
            insider.close()
            ctx.term()
            assert t0.rejected >= 2
    # networkx stops at an L1 change below N * tol: within about 1e-10 of the fixed point
    assert np.abs(got.output - _nx_pagerank(g)).sum() < 1e-9
    assert "refused a connection" in caplog.text
    assert "dropped a malformed message" in caplog.text


# ---------------------------------------------------------------------- the loopback job key
def test_a_loopback_launcher_job_has_a_private_per_job_key(tmp_path):
    # before the fix every such job used the public key b"gaslab-loopback-job"
    env = {"GAS_SECRET_DIR": str(tmp_path / "keys"), "MASTER_PORT": "4000", "SLURM_JOB_ID": "12"}
    k1 = job_secret(env, cluster=False)
    assert k1 == job_secret(dict(env), cluster=False)  # every rank of the job derives the same
    assert k1 != b"gaslab-loopback-job"
    assert k1 != job_secret(dict(env, SLURM_JOB_ID="13"), cluster=False)  # another job
    assert k1 != job_secret(dict(env, MASTER_PORT="4001"), cluster=False)
    assert k1 != job_secret(dict(env, GAS_SECRET_DIR=str(tmp_path / "other")), cluster=False)  # user
    assert launcher_job_id(env) == "SLURM_JOB_ID=12|port=4000"
    assert os.stat(tmp_path / "keys").st_mode & 0o777 == 0o700
    assert os.stat(tmp_path / "keys" / "user-secret").st_mode & 0o777 == 0o600


def test_a_user_key_others_could_read_is_refused(tmp_path):
    d = tmp_path / "keys"
    env = {"GAS_SECRET_DIR": str(d)}
    user_secret(env)
    os.chmod(d / "user-secret", 0o644)
    with pytest.raises(gas.GasError, match="other users could read.*GAS_JOB_SECRET"):
        job_secret(env, cluster=False)


def test_ranks_racing_to_make_the_user_key_agree(tmp_path):
    env = {"GAS_SECRET_DIR": str(tmp_path / "keys")}
    code = (
        "import sys; from gas.runtime.launch import user_secret; "
        "print(user_secret({'GAS_SECRET_DIR': sys.argv[1]}))"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, env["GAS_SECRET_DIR"]], stdout=subprocess.PIPE)
        for _ in range(4)
    ]
    keys = {p.communicate(timeout=60)[0] for p in procs}
    assert len(keys) == 1 and len(keys.pop()) > 60
    assert os.listdir(tmp_path / "keys") == ["user-secret"]  # no temporary file left


def test_procs_workers_get_a_fresh_random_secret_not_visible_to_other_users():
    with gas.runtime.local.LocalCluster(2) as cluster:
        secret = cluster.comm.t.secret
        assert len(secret) >= 32 and secret != b"gaslab-loopback-job"
        pid = cluster.workers[0].pid
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            assert secret not in f.read()  # spawn passes it through a pipe, not argv
        with open(f"/proc/{pid}/environ", "rb") as f:
            assert secret not in f.read()
