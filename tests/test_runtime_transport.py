"""Contract tests of the runtime transports, written once and run against every transport.

The same behaviour is required of the in-process transport (queues, one thread per rank) and
the ZeroMQ one (loopback sockets): arrays arrive bit-for-bit with dtype and shape, large arrays
cross in ~1 MB frames into reused buffers, per-sender order holds, malformed messages are
dropped and counted without breaking the link, an abrupt exit is reported as a PeerFailure
naming the rank and host, an error report ends the peers' waits, :meth:`poll` keeps messages
from any rank for :meth:`recv`, and the all-to-all collective delivers what each rank sent.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
import pytest
import zmq

from gas.runtime import protocol as pr
from gas.runtime.comm import Comm
from gas.runtime.protocol import DATA, ERROR, Message, ProtocolError, decode, encode
from gas.runtime.transport import InProcHub, PeerFailure, RecvTimeout, RemoteError
from gas.runtime.zmq_transport import ZmqTransport, curve_client

KINDS = ["inproc", "zmq"]


class World:
    """``size`` connected transports of one kind, plus a way to inject raw frames."""

    def __init__(self, kind: str, size: int) -> None:
        self.kind = kind
        self.secret = b"contract-test-secret"
        if kind == "inproc":
            self.hub = InProcHub(size)
            self.t = [self.hub.transport(r) for r in range(size)]
        else:
            self.t = [ZmqTransport(r, size, secret=self.secret) for r in range(size)]
            table = [t.info() for t in self.t]
            for t in self.t:
                t.connect(table)
        self._raw: list[zmq.Socket] = []

    def inject(self, dst: int, frames: list, claim: int = 1) -> None:
        """Raw frames to ``dst`` over a link authenticated as rank ``claim``."""
        if self.kind == "inproc":
            self.hub.inject(dst, frames)
            return
        s = curve_client(zmq.Context.instance(), self.secret, claim, dst)
        s.setsockopt(zmq.LINGER, 1000)
        s.connect(self.t[dst].endpoint)
        s.send_multipart([bytes(f) for f in frames])
        self._raw.append(s)

    def close(self) -> None:
        for s in self._raw:
            s.close(linger=0)
        for t in self.t:
            t._closing = True
            t.close()


@pytest.fixture(params=KINDS)
def world(request):
    made: list[World] = []

    def make(size: int = 2) -> World:
        w = World(request.param, size)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
DTYPES += [np.float32, np.float64]


def test_arrays_of_every_dtype_and_shape_arrive_exactly(world):
    w = world(2)
    rng = np.random.default_rng(0)
    arrays = [(rng.random(7) * 100).astype(dt) for dt in DTYPES]
    arrays += [np.arange(12.0).reshape(3, 4), np.zeros(0, np.int64), np.zeros((0, 5), np.float32)]
    w.t[0].send(1, DATA, 3, arrays, {"phase": "sync", "n": [1, 2]})
    m = w.t[1].recv(0, DATA, 3, timeout=10)
    assert m.meta == {"phase": "sync", "n": [1, 2]}
    assert len(m.arrays) == len(arrays)
    for a, b in zip(arrays, m.arrays):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b)


def test_large_array_in_frames_into_reused_buffer(world):
    w = world(2)
    a = np.random.default_rng(1).random(450_000)  # 3.6 MB: four frames
    assert len(encode(Message(DATA, 0, 1, 0, [a]))) == 1 + 4
    buf = np.empty_like(a)
    for step in range(2):
        w.t[0].send(1, DATA, step, [a + step])
        m = w.t[1].recv(0, DATA, step, into=[buf], timeout=10)
        assert m.arrays[0] is buf
        assert np.array_equal(buf, a + step)


def test_per_sender_order_and_early_messages_are_kept(world):
    w = world(3)
    for k in range(5):
        w.t[2].send(0, DATA, k, [np.array([k, 2])])
    for k in range(5):
        w.t[1].send(0, DATA, k, [np.array([k, 1])])
    # receive all of rank 1 first although rank 2's messages are queued ahead
    got1 = [w.t[0].recv(1, DATA, k, timeout=10).arrays[0].tolist() for k in range(5)]
    got2 = [w.t[0].recv(2, DATA, k, timeout=10).arrays[0].tolist() for k in range(5)]
    assert got1 == [[k, 1] for k in range(5)]
    assert got2 == [[k, 2] for k in range(5)]


def test_out_of_step_message_is_an_error(world):
    w = world(2)
    w.t[0].send(1, DATA, 4)
    with pytest.raises(ProtocolError, match="out of step"):
        w.t[1].recv(0, DATA, 5, timeout=10)


def _malformed(world_size: int) -> list[list[bytes]]:
    good = encode(Message(DATA, 1, 0, 0, [np.arange(4.0)]))
    head = bytes(good[0])
    bad = []
    bad.append([b"garbage"])  # too short
    bad.append([b"XXXX" + head[4:], bytes(good[1])])  # bad magic
    bad.append([head[:4] + bytes([9]) + head[5:], bytes(good[1])])  # unknown version
    bad.append([head[:5] + bytes([77]) + head[6:], bytes(good[1])])  # unknown kind
    i = pr._FIXED.size
    bad.append([head[:i] + bytes([99]) + head[i + 1 :], bytes(good[1])])  # unknown dtype code
    bad.append([head, bytes(good[1])[:-8]])  # short frame
    bad.append([head])  # missing frame
    bad.append([head, bytes(good[1]), b"extra"])  # extra frame
    big = encode(Message(DATA, 1, 0, 0, [np.arange(4.0)]))[0]
    bad.append([big[:i] + bytes([11, 1]) + (2**60).to_bytes(8, "little") + big[i + 10 :]])  # huge
    bad.append([bytes(f) for f in encode(Message(DATA, 1, 0, 0, [], None))][:1] + [b""])
    dst_wrong = encode(Message(DATA, 1, 1, 0, [np.arange(4.0)]))
    bad.append([bytes(f) for f in dst_wrong])  # well formed, but addressed to another rank
    return bad


def test_malformed_messages_are_dropped_and_the_link_keeps_working(world, caplog):
    w = world(2)
    bad = _malformed(2)
    with caplog.at_level(logging.WARNING, logger="gas.runtime"):
        for frames in bad:
            w.inject(0, frames)
        time.sleep(0.2)
        w.t[1].send(0, DATA, 0, [np.arange(3)])
        m = w.t[0].recv(1, DATA, 0, timeout=10)
        end = time.monotonic() + 5  # raw links may be read after the good one: keep reading
        while w.t[0].rejected < len(bad) and time.monotonic() < end:
            with pytest.raises(RecvTimeout):
                w.t[0].recv(1, DATA, 1, timeout=0.1)
    assert m.arrays[0].tolist() == [0, 1, 2]
    assert w.t[0].rejected == len(bad)
    assert "malformed" in caplog.text


def test_decoder_rejects_each_bad_field():
    for frames in _malformed(2)[:-1]:  # all but the misaddressed one (the transport checks dst)
        with pytest.raises(ProtocolError):
            decode(frames, world=2)
    good = encode(Message(DATA, 1, 0, 0, [np.arange(4.0)]))
    with pytest.raises(ProtocolError, match="outside"):
        decode(good, world=1)  # rank 1 does not exist in a world of one
    with pytest.raises(ProtocolError, match="receive buffer"):
        decode(good, world=2, into=[np.empty(4, np.int64)])


def test_encoder_refuses_what_it_cannot_describe():
    with pytest.raises(ProtocolError):
        encode(Message(DATA, 0, 1, 0, [np.array(["a"], dtype=object)]))
    with pytest.raises(ProtocolError):
        encode(Message(DATA, 0, 1, 0, [np.zeros(2, dtype=[("a", "f8")])]))
    with pytest.raises(ProtocolError):
        encode(Message(99, 0, 1, 0))


def test_abrupt_exit_is_a_peer_failure_naming_rank_and_host(world):
    w = world(3)
    w.t[1].send(0, DATA, 0)
    w.t[0].recv(1, DATA, 0, timeout=10)  # the link is up
    t0 = time.monotonic()
    w.t[2].close()
    with pytest.raises(PeerFailure) as err:
        w.t[0].recv(1, DATA, 1, timeout=10)
    assert time.monotonic() - t0 < 1.5
    assert err.value.rank == 2
    assert f"rank 2 on host {w.t[0].hosts[2]}" in str(err.value)


def test_error_report_ends_the_peers_wait(world):
    w = world(3)
    w.t[2].report_error("InputError: bad line 7")
    for r in (0, 1):
        with pytest.raises(RemoteError, match="rank 2 .*bad line 7"):
            w.t[r].recv(2, DATA, 0, timeout=10)


def test_recv_timeout(world):
    w = world(2)
    with pytest.raises(RecvTimeout):
        w.t[0].recv(1, DATA, 0, timeout=0.2)


def test_poll_keeps_messages_from_any_rank_for_recv(world):
    w = world(3)
    t0 = w.t[0]
    assert not t0.poll(0.0)  # nothing sent yet
    assert not t0.pending(1) and not t0.pending(2)
    w.t[2].send(0, DATA, 9, [np.array([2, 9])])
    w.t[1].send(0, DATA, 4, [np.array([1, 4])])
    kept = 0
    while not (t0.pending(1) and t0.pending(2)):
        assert t0.poll(10)  # each successful poll keeps exactly one message
        kept += 1
    assert kept == 2
    assert not t0.poll(0.1)  # nothing else is on its way
    assert t0.recv(1, DATA, 4, timeout=0).arrays[0].tolist() == [1, 4]
    assert not t0.pending(1) and t0.pending(2)
    assert t0.recv(2, DATA, 9, timeout=0).arrays[0].tolist() == [2, 9]
    assert not t0.pending(2)


def test_poll_reports_a_peer_that_left(world):
    w = world(3)
    w.t[1].send(0, DATA, 0)
    w.t[0].recv(1, DATA, 0, timeout=10)  # the link is up
    w.t[2].close()
    with pytest.raises(PeerFailure) as err:
        w.t[0].poll(10)
    assert err.value.rank == 2


def test_alltoall_over_three_ranks(world):
    w = world(3)
    out: list = [None] * 3
    seqs: list = [None] * 3

    def run(r: int) -> None:
        comm = Comm(w.t[r])
        # rank r sends rank q: [10 r + q] and r + q copies of r
        out[r] = comm.alltoall([[np.array([10 * r + q]), np.full(r + q, r)] for q in range(3)])
        seqs[r] = (comm.seq, comm.next_tag())

    threads = [threading.Thread(target=run, args=(r,)) for r in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    # written out by hand: at rank q, entry r is [10 r + q] and r + q copies of r
    expected = {
        0: [([0], []), ([10], [1]), ([20], [2, 2])],
        1: [([1], [0]), ([11], [1, 1]), ([21], [2, 2, 2])],
        2: [([2], [0, 0]), ([12], [1, 1, 1]), ([22], [2, 2, 2, 2])],
    }
    for q in range(3):
        got = [(a.tolist(), b.tolist()) for a, b in out[q]]
        assert got == expected[q]
    assert seqs == [(1, 2)] * 3  # one collective tag used, the next one reserved


def test_clean_shutdown_of_every_rank(world):
    w = world(3)
    errors: list[BaseException] = []

    def run(t):
        try:
            t.shutdown(timeout=10)
        except BaseException as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in w.t]
    for th in threads:
        th.start()
    for th in threads:
        th.join(20)
    assert not errors


def test_zmq_link_with_wrong_secret_is_refused_and_logged(caplog):
    a = ZmqTransport(0, 2, secret=b"right")
    try:
        s = curve_client(zmq.Context.instance(), b"wrong", 1, 0)  # keys of another secret
        plain = zmq.Context.instance().socket(zmq.DEALER)  # no CURVE at all
        for sock in (s, plain):
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(a.endpoint)
            sock.send_multipart(encode(Message(DATA, 1, 0, 0, [np.arange(3)])))
        with caplog.at_level(logging.WARNING, logger="gas.runtime"):
            with pytest.raises(RecvTimeout):
                a.recv(1, DATA, 0, timeout=0.5)
        # both handshakes refused (again at each of their reconnects): their data never arrived
        assert a.rejected >= 2
        assert "wrong job secret" in caplog.text
        s.close()
        plain.close()
    finally:
        a.close()


def test_error_kind_carries_text_only():
    m = decode(encode(Message(ERROR, 1, 0, 0, [], {"error": "x"})), world=2)
    assert m.kind == ERROR and m.meta == {"error": "x"} and m.arrays == []
