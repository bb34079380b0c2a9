"""The ZeroMQ transport: one ROUTER per rank receives, one DEALER per peer sends, over CURVE.

Sockets and their roles:

* **router** (bound, one per rank): receives every message addressed to this rank. It is a
  ZeroMQ CURVE server: a connection must complete the CurveZMQ handshake (Curve25519 key
  exchange with fresh per-connection keys) with this rank's server key, and then present the
  client key of some rank ``r``, which a ZAP handler (a thread of this rank's context) maps to
  ``r``. Every key is derived from the job secret (:func:`curve_keys`), so a peer that does not
  know the secret cannot finish the handshake: not one of its bytes reaches gaslab's decoder.
  The link is then bound to rank ``r`` (ZeroMQ's ``User-Id`` of every message), and each message
  is encrypted and authenticated with a per-connection key and a strictly increasing nonce: an
  altered, forged, replayed or reordered message fails its check and the connection is dropped
  by ZeroMQ; a handshake recorded earlier cannot be replayed on a new connection (the server's
  ephemeral key is new each time). Refused handshakes are counted in
  :attr:`~gas.runtime.transport.Transport.rejected` and logged (rate-limited).
* **dealers** (connected, one per peer): carry this rank's messages to that peer's router,
  header frame + raw array frames sent with ``copy=False``; CURVE clients with this rank's key.
* **monitors**: one per dealer reports its connection going down (with ZeroMQ heartbeats
  every 200 ms, 1 s timeout, a killed process is seen within ~0.1 s and an unreachable host
  within ~1 s; a peer whose link is down for :attr:`Transport.grace` is reported as a
  :class:`~gas.runtime.transport.PeerFailure`); one on the router reports refused handshakes.

No incoming frame may exceed :data:`~gas.runtime.protocol.MAX_FRAME_BYTES` (ZeroMQ's
``MAXMSGSIZE``; a longer one ends the connection). Binds to loopback unless given another
address (see :mod:`gas.runtime.launch`).

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
import socket
import time
from typing import Any

import zmq
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85
from zmq.utils.monitor import recv_monitor_message

from gas.errors import GasError
from gas.runtime.protocol import DATA, MAX_FRAME_BYTES
from gas.runtime.transport import Transport

__all__ = ["ZmqTransport", "curve_keys", "curve_client", "DATA"]

log = logging.getLogger("gas.runtime")

HEARTBEAT_IVL_MS = 200
HEARTBEAT_TIMEOUT_MS = 1000
CONNECT_TIMEOUT_S = 20.0
ZAP_DOMAIN = "gaslab"
_REFUSED = {
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL: "handshake failed",
    zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL: "protocol error",
    zmq.EVENT_HANDSHAKE_FAILED_AUTH: "unknown client key",
}


_PROTOCOL_ERRORS = {getattr(zmq, n): n[15:] for n in dir(zmq) if n.startswith("PROTOCOL_ERROR_")}


def _why(event: int, value: int) -> str:
    """Words for a refused-handshake monitor event (with ZeroMQ's protocol error, if any)."""
    text = _REFUSED[event]
    if event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL and value in _PROTOCOL_ERRORS:
        text += ": " + _PROTOCOL_ERRORS[value].replace("_", " ").lower()
    return text


def curve_keys(secret: bytes, role: str, rank: int) -> tuple[bytes, bytes]:
    """``(public, secret)`` Z85 CURVE keys of ``rank`` as a ``"server"`` or ``"client"``.

    Derived from the job secret with HMAC-SHA256, so every rank computes every other rank's keys
    and nothing but the secret has to be shared.

    Examples
    --------
    >>> curve_keys(b"s", "server", 0) == curve_keys(b"s", "server", 0) != curve_keys(b"t", "server", 0)
    True
    """
    if not zmq.has("curve"):
        raise GasError("this libzmq has no CURVE support; hint: install pyzmq's wheel (it bundles libzmq)")
    seed = hmac.new(secret, f"gaslab-curve|{role}|{rank}".encode(), hashlib.sha256).digest()
    sk = z85.encode(seed)
    return zmq.curve_public(sk), sk


def tune(sock: zmq.Socket) -> None:
    """Options every runtime socket gets: heartbeats, bounded linger and frame size, no queue cap."""
    sock.setsockopt(zmq.LINGER, 2000)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TTL, 2 * HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RCVHWM, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_BYTES)


def curve_client(ctx: zmq.Context, secret: bytes, src: int, dst: int) -> zmq.Socket:
    """A DEALER that will prove it is rank ``src`` to rank ``dst``'s router (not yet connected)."""
    d = ctx.socket(zmq.DEALER)
    tune(d)
    pub, sk = curve_keys(secret, "client", src)
    d.curve_publickey, d.curve_secretkey = pub, sk
    d.curve_serverkey = curve_keys(secret, "server", dst)[0]
    return d


class _RankAuthenticator(ThreadAuthenticator):
    """ZAP handler: admits the client keys of the job's ranks and names the link by its rank."""

    def __init__(self, ctx: zmq.Context, ranks: dict[bytes, int]) -> None:
        super().__init__(ctx, log=logging.getLogger("gas.runtime.zap"))
        self.ranks = ranks
        self.configure_curve_callback(ZAP_DOMAIN, self)

    def callback(self, domain: str, key: bytes) -> bool:
        return key in self.ranks

    def curve_user_id(self, client_public_key: bytes) -> str:
        return str(self.ranks[z85.encode(client_public_key)])


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
        The job secret: every CURVE key of the job is derived from it.
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
        clients = {curve_keys(secret, "client", r)[0]: r for r in range(size) if r != rank}
        self._auth = _RankAuthenticator(self.ctx, clients)
        self._auth.start()
        self.router = self.ctx.socket(zmq.ROUTER)
        tune(self.router)
        self.router.curve_server = True
        self.router.curve_secretkey = curve_keys(secret, "server", rank)[1]
        self.router.zap_domain = ZAP_DOMAIN.encode()
        self._router_mon = self.router.get_monitor_socket(sum(_REFUSED))
        try:
            if port:
                self.router.bind(f"tcp://{bind_host}:{port}")
            else:
                port = self.router.bind_to_random_port(f"tcp://{bind_host}")
        except zmq.ZMQError as exc:
            self._open = False
            self._close_router()
            self.ctx.term()
            raise GasError(f"rank {rank}: cannot listen on {bind_host}:{port} ({exc})") from None
        self.endpoint = f"tcp://{bind_host}:{port}"
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
        self._poller.register(self._router_mon, zmq.POLLIN)
        self._open = True

    def info(self) -> dict[str, Any]:
        """What peers need to reach this rank (published at rendezvous)."""
        return {"rank": self.rank, "host": self.host, "endpoint": self.endpoint}

    def connect(self, table: list[dict[str, Any]]) -> None:
        """Open a CURVE dealer to every other rank in ``table``."""
        if len(table) != self.size:
            raise GasError(f"Expected a rendezvous table of {self.size} ranks (got {len(table)})")
        self._started = time.monotonic()
        for entry in table:
            r = int(entry["rank"])
            self.hosts[r] = str(entry["host"])
            if r == self.rank:
                continue
            d = curve_client(self.ctx, self.secret, self.rank, r)
            mon = d.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
            self._monitors[mon] = r
            self._poller.register(mon, zmq.POLLIN)
            d.connect(str(entry["endpoint"]))
            self._dealers[r] = d

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

    def _router_event(self) -> None:
        """Refused handshakes on the router: count and log them (a peer without the secret)."""
        while True:
            try:
                ev = recv_monitor_message(self._router_mon, zmq.NOBLOCK)
            except zmq.Again:
                return
            if ev["event"] in _REFUSED:
                self.rejected += 1
                self._warn(
                    "rank %d: refused a connection to %s (%s): wrong job secret, not a gaslab peer, "
                    "or altered or replayed traffic",
                    self.rank,
                    self.endpoint,
                    _why(ev["event"], ev["value"]),
                )

    def _recv_frames(self, timeout: float) -> tuple[int | None, list[Any]] | None:
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.0, deadline - time.monotonic())
            events = dict(self._poller.poll(int(left * 1000)))
            for sock in events:
                if sock is self._router_mon:
                    self._router_event()
                elif sock is not self.router:
                    self._monitor_event(sock)
            if self.router in events:
                frames = self.router.recv_multipart(copy=False)
                rank = self._link_rank(frames)
                if rank is not None:
                    return rank, frames[1:]
            if time.monotonic() >= deadline:
                return None

    def _link_rank(self, frames: list[Any]) -> int | None:
        """The rank a connection proved at its CURVE handshake (ZAP's User-Id), cached."""
        rid = frames[0].bytes
        rank = self._links.get(rid)
        if rank is None and len(frames) > 1:
            try:
                rank = int(frames[1].get("User-Id"))
            except (zmq.ZMQError, ValueError, TypeError):
                self.rejected += 1
                self._warn("rank %d: dropped a message from a link with no rank", self.rank)
                return None
            self._links[rid] = rank
        return rank

    def _dead(self) -> dict[int, float]:
        dead = dict(self._down)
        if time.monotonic() - self._started > CONNECT_TIMEOUT_S:
            for r in self._dealers:
                if r not in self._up:
                    dead.setdefault(r, self._started)
        return dead

    def _close_router(self) -> None:
        try:
            self.router.disable_monitor()
        except zmq.ZMQError:
            pass
        self._router_mon.close(linger=0)
        self.router.close()
        self._auth.stop()

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
        self._close_router()
        self.ctx.term()
