"""The ZeroMQ transport: one ROUTER per rank receives, one DEALER per peer sends.

Sockets and their roles:

* **router** (bound, one per rank): receives every message addressed to this rank. A new
  connection must first send an ``AUTH`` message carrying ``HMAC-SHA256(secret, "gas-data|src|dst|"
  + nonce)``, where ``nonce`` is this rank's random value published at rendezvous; until then
  nothing else from it is accepted (it is dropped and logged). ZeroMQ assigns the connection's
  routing id, so a link authenticated as rank ``r`` cannot be taken over by another connection.
* **dealers** (connected, one per peer): carry this rank's messages to that peer's router,
  header frame + raw array frames sent with ``copy=False``.
* **monitors** (one per dealer): report a dealer's connection going down; with ZeroMQ
  heartbeats (every 200 ms, 1 s timeout) a killed process is seen within ~0.1 s and an
  unreachable host within ~1 s. A peer whose link is down for :attr:`Transport.grace` is
  reported as a :class:`~gas.runtime.transport.PeerFailure`.

Binds to loopback unless given another address (see :mod:`gas.runtime.launch`).

Examples
--------
>>> import numpy as np
>>> a = ZmqTransport(0, 2, secret=b"s")
>>> b = ZmqTransport(1, 2, secret=b"s")
>>> table = [a.info(), b.info()]
>>> a.connect(table); b.connect(table)
>>> _ = a.send(1, DATA, 0, [np.ones(3)])
>>> b.recv(0).arrays[0].tolist()
[1.0, 1.0, 1.0]
>>> a.close(); b.close()
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import socket
import time
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from gas.errors import GasError
from gas.runtime.protocol import AUTH, DATA, Message, ProtocolError, decode, encode, peek
from gas.runtime.transport import Transport

__all__ = ["ZmqTransport", "data_mac", "DATA"]

log = logging.getLogger("gas.runtime")

HEARTBEAT_IVL_MS = 200
HEARTBEAT_TIMEOUT_MS = 1000
CONNECT_TIMEOUT_S = 20.0


def data_mac(secret: bytes, src: int, dst: int, nonce: str) -> str:
    """The proof a sender gives a receiver's router for a new link (hex HMAC-SHA256)."""
    msg = f"gas-data|{src}|{dst}|{nonce}".encode()
    return hmac.new(secret, msg, hashlib.sha256).hexdigest()


def tune(sock: zmq.Socket) -> None:
    """Options every runtime socket gets: heartbeats, bounded linger, no message cap."""
    sock.setsockopt(zmq.LINGER, 2000)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TTL, 2 * HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RCVHWM, 0)


class ZmqTransport(Transport):
    """One rank's sockets (see the module docstring).

    Parameters
    ----------
    rank, size : int
    bind_host : str, default "127.0.0.1"
        Address the router binds to (loopback unless a cluster address is given).
    port : int, default 0
        0 picks a free port.
    secret : bytes
        The job secret every peer must prove.
    host : str, optional
        Name shown in error messages (default: this machine's host name).
    """

    def __init__(
        self,
        rank: int,
        size: int,
        *,
        bind_host: str = "127.0.0.1",
        port: int = 0,
        secret: bytes,
        host: str | None = None,
    ) -> None:
        super().__init__(rank, size)
        self.secret = secret
        self.ctx = zmq.Context()
        self.router = self.ctx.socket(zmq.ROUTER)
        tune(self.router)
        try:
            if port:
                self.router.bind(f"tcp://{bind_host}:{port}")
            else:
                port = self.router.bind_to_random_port(f"tcp://{bind_host}")
        except zmq.ZMQError as exc:
            self.ctx.destroy(linger=0)
            raise GasError(f"rank {rank}: cannot listen on {bind_host}:{port} ({exc})") from None
        self.endpoint = f"tcp://{bind_host}:{port}"
        self.nonce = secrets.token_hex(16)
        self.host = host or socket.gethostname()
        self.hosts[rank] = self.host
        self._links: dict[bytes, int] = {}
        self._dealers: dict[int, zmq.Socket] = {}
        self._monitors: dict[zmq.Socket, int] = {}
        self._down: dict[int, float] = {}
        self._up: set[int] = set()
        self._started = time.monotonic()
        self._poller = zmq.Poller()
        self._poller.register(self.router, zmq.POLLIN)
        self._open = True

    def info(self) -> dict[str, Any]:
        """What peers need to reach this rank (published at rendezvous)."""
        return {"rank": self.rank, "host": self.host, "endpoint": self.endpoint, "nonce": self.nonce}

    def connect(self, table: list[dict[str, Any]]) -> None:
        """Open a dealer to every other rank in ``table`` and prove the job secret on it."""
        if len(table) != self.size:
            raise GasError(f"Expected a rendezvous table of {self.size} ranks (got {len(table)})")
        self._started = time.monotonic()
        for entry in table:
            r = int(entry["rank"])
            self.hosts[r] = str(entry["host"])
            if r == self.rank:
                continue
            d = self.ctx.socket(zmq.DEALER)
            tune(d)
            mon = d.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
            self._monitors[mon] = r
            self._poller.register(mon, zmq.POLLIN)
            d.connect(str(entry["endpoint"]))
            self._dealers[r] = d
            mac = data_mac(self.secret, self.rank, r, str(entry["nonce"]))
            d.send_multipart(encode(Message(AUTH, self.rank, r, 0, [], {"mac": mac})))

    # ------------------------------------------------------------------ hooks
    def _send_frames(self, dst: int, frames: list[Any]) -> None:
        self._dealers[dst].send_multipart(frames, copy=False)

    def _monitor_event(self, mon: zmq.Socket) -> None:
        r = self._monitors[mon]
        while True:
            try:
                ev = recv_monitor_message(mon, zmq.NOBLOCK)
            except zmq.Again:
                return
            if ev["event"] == zmq.EVENT_CONNECTED:
                self._up.add(r)
                self._down.pop(r, None)
            elif ev["event"] == zmq.EVENT_DISCONNECTED:
                self._down.setdefault(r, time.monotonic())

    def _recv_frames(self, timeout: float) -> tuple[int | None, list[Any]] | None:
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.0, deadline - time.monotonic())
            events = dict(self._poller.poll(int(left * 1000)))
            for sock in events:
                if sock is not self.router:
                    self._monitor_event(sock)
            if self.router in events:
                frames = self.router.recv_multipart(copy=False)
                rid = frames[0].bytes
                rank = self._links.get(rid)
                if rank is not None:
                    return rank, frames[1:]
                self._authenticate(rid, frames[1:])
            if time.monotonic() >= deadline:
                return None

    def _authenticate(self, rid: bytes, frames: list[Any]) -> None:
        """First message of a new link: accept it if it proves the secret, else log and drop."""
        try:
            addr = frames[0].get("Peer-Address") if frames else "?"
        except Exception:  # noqa: BLE001 - metadata is best effort
            addr = "?"
        try:
            kind, src, _ = peek(frames[0])
            if kind != AUTH:
                raise ProtocolError("the first message of a link must prove the job secret")
            msg = decode(frames, self.size)
            mac = (msg.meta or {}).get("mac")
            want = data_mac(self.secret, msg.src, self.rank, self.nonce)
            if msg.dst != self.rank or not isinstance(mac, str) or not hmac.compare_digest(mac, want):
                raise ProtocolError(f"wrong job secret (link claims rank {src})")
        except (ProtocolError, IndexError) as exc:
            self.rejected += 1
            log.warning("rank %d: refused a link from %s: %s", self.rank, addr, exc)
            return
        self._links[rid] = msg.src

    def _dead(self) -> dict[int, float]:
        dead = dict(self._down)
        if time.monotonic() - self._started > CONNECT_TIMEOUT_S:
            for r in self._dealers:
                if r not in self._up:
                    dead.setdefault(r, self._started)
        return dead

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        for d in self._dealers.values():
            try:
                d.disable_monitor()
            except zmq.ZMQError:
                pass
        for mon in self._monitors:
            mon.close(linger=0)
        for d in self._dealers.values():
            d.close()
        self.router.close()
        self.ctx.term()
