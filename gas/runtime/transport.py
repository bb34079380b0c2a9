"""Transports: how ranks move messages, behind one interface, plus the in-process one.

A :class:`Transport` connects ``size`` ranks. ``send(dst, kind, tag, arrays, meta)`` queues one
message (see :mod:`gas.runtime.protocol`); ``recv(src, kind, tag, into)`` returns the next message
*from that rank*, keeping messages that other ranks sent early for later (per-sender order is
preserved, which is all the superstep logic needs). Every received message goes through the same
validating decoder; a malformed one, or one from a link that did not prove the job secret, is
counted in :attr:`Transport.rejected`, logged (at most :attr:`Transport.log_burst` warnings per
:attr:`Transport.log_window` seconds, then a count of those left out) and dropped: the job goes on.
A message of kind ``ERROR`` ends the wait with a :class:`RemoteError`; a peer that disappeared
ends it with a :class:`PeerFailure` naming its rank and host. :meth:`Transport.shutdown` is the
clean, collective end (every rank says goodbye through rank 0); :meth:`Transport.close` alone
leaves abruptly, and peers still waiting see a :class:`PeerFailure`.

:class:`InProcHub` gives ``size`` transports that talk through in-memory queues (one thread
per rank), encoding and decoding every message like the network does, so the contract tests
(tests/test_runtime_transport.py) and the exchange logic run without sockets.

Examples
--------
>>> import numpy as np
>>> hub = InProcHub(2)
>>> t0, t1 = hub.transport(0), hub.transport(1)
>>> t0.send(1, DATA, 5, [np.arange(4)])
32
>>> t1.recv(0, DATA, 5).arrays[0].tolist()
[0, 1, 2, 3]
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from gas.errors import GasError
from gas.runtime.protocol import BYE, DATA, ERROR, KINDS, Message, ProtocolError, decode, encode, peek

__all__ = ["Transport", "InProcHub", "InProcTransport", "PeerFailure", "RemoteError", "RecvTimeout", "DATA"]

log = logging.getLogger("gas.runtime")


class PeerFailure(GasError):
    """A rank stopped responding (killed, crashed, or its host became unreachable)."""

    def __init__(self, rank: int, host: str, reason: str) -> None:
        self.rank = rank
        self.host = host
        super().__init__(
            f"rank {rank} on host {host} failed: {reason}; the job stops (resume from a checkpoint)"
        )


class RemoteError(GasError):
    """Another rank raised an error and told the others before leaving."""

    def __init__(self, rank: int, host: str, text: str) -> None:
        self.rank = rank
        self.host = host
        super().__init__(f"rank {rank} on host {host}: {text}")


class RecvTimeout(GasError):
    """No message arrived within the given time."""


class Transport:
    """Shared logic of every transport; subclasses move frames (see the module docstring).

    Attributes
    ----------
    rank, size : int
    hosts : list of str
        Host name of every rank (used in error messages).
    bytes_sent, messages_sent, rejected : int
        Counters: payload bytes and messages sent, malformed messages dropped.
    """

    grace = 0.25  # seconds a dead peer's last messages may still be in flight
    log_burst = 10  # warnings about dropped messages logged per window ...
    log_window = 10.0  # ... of this many seconds; the rest are counted, then summarized

    def __init__(self, rank: int, size: int, hosts: Sequence[str] | None = None) -> None:
        self.rank = int(rank)
        self.size = int(size)
        self.hosts = list(hosts) if hosts is not None else ["localhost"] * self.size
        self.bytes_sent = 0
        self.messages_sent = 0
        self.rejected = 0
        self._stash: list[deque[Message]] = [deque() for _ in range(self.size)]
        self._closing = False
        self._warn_window = (0.0, 0, 0)  # (window start, warnings logged, warnings left out)

    # ------------------------------------------------------------------ subclass hooks
    def _send_frames(self, dst: int, frames: list[Any]) -> None:
        raise NotImplementedError

    def _recv_frames(self, timeout: float) -> tuple[int | None, list[Any]] | None:
        """One raw message: (rank the link is authenticated as, or None if unknown; frames)."""
        raise NotImplementedError

    def _dead(self) -> dict[int, float]:
        """Peers known to be gone, with the time they were seen gone."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _warn(self, fmt: str, *args: Any) -> None:
        """Log a dropped message or refused link, rate-limited (see the class attributes)."""
        now = time.monotonic()
        start, shown, hidden = self._warn_window
        if now - start >= self.log_window:
            if hidden:
                log.warning("rank %d: %d more dropped messages were not logged", self.rank, hidden)
            start, shown, hidden = now, 0, 0
        if shown < self.log_burst:
            log.warning(fmt, *args)
            shown += 1
        else:
            hidden += 1
        self._warn_window = (start, shown, hidden)

    # ------------------------------------------------------------------ public
    def send(
        self,
        dst: int,
        kind: int,
        tag: int = 0,
        arrays: Sequence[np.ndarray] = (),
        meta: dict[str, Any] | None = None,
    ) -> int:
        """Queue one message to ``dst``; returns the payload bytes (arrays only).

        The arrays must not be modified until the message is received (zero-copy send):
        callers pass freshly gathered buffers.
        """
        if not 0 <= dst < self.size or dst == self.rank:
            raise GasError(
                f"Expected a destination rank in 0..{self.size - 1} other than {self.rank} (got {dst})"
            )
        frames = encode(Message(kind, self.rank, dst, int(tag), list(arrays), meta))
        self._send_frames(dst, frames)
        nbytes = sum(int(np.asarray(a).nbytes) for a in arrays)
        self.bytes_sent += nbytes
        self.messages_sent += 1
        return nbytes

    def recv(
        self,
        src: int,
        kind: int = DATA,
        tag: int | None = None,
        into: Sequence[np.ndarray] | None = None,
        timeout: float | None = None,
    ) -> Message:
        """The next message from ``src``; it must have ``kind`` (and ``tag`` if given).

        Raises
        ------
        PeerFailure, RemoteError, RecvTimeout, ProtocolError (out-of-order message: a bug)
        """
        if not 0 <= src < self.size or src == self.rank:
            raise GasError(f"Expected a source rank in 0..{self.size - 1} other than {self.rank} (got {src})")
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stash[src]:
            self._pump(src, into, deadline)
        msg = self._stash[src].popleft()
        if msg.kind != kind or (tag is not None and msg.tag != tag):
            raise ProtocolError(
                f"rank {src} sent {KINDS.get(msg.kind)} #{msg.tag} while rank {self.rank} expected "
                f"{KINDS.get(kind)} #{tag}: the ranks are out of step"
            )
        if into is not None and msg.arrays and msg.arrays[0] is not into[0]:
            if len(into) != len(msg.arrays):
                raise ProtocolError(
                    f"{len(msg.arrays)} arrays arrived; {len(into)} receive buffers were given"
                )
            for a, b in zip(into, msg.arrays):
                np.copyto(a, b.reshape(a.shape), casting="no")
            msg.arrays = list(into)
        return msg

    def pending(self, src: int) -> bool:
        """Whether a message from ``src`` has arrived and waits for :meth:`recv` (never blocks).

        Examples
        --------
        >>> hub = InProcHub(2)
        >>> t0, t1 = hub.transport(0), hub.transport(1)
        >>> _ = t0.send(1, DATA, 7)
        >>> t1.pending(0), t1.poll(1.0), t1.pending(0), t1.recv(0, DATA, 7).tag, t1.pending(0)
        (False, True, True, 7, False)
        """
        return bool(self._stash[src])

    def poll(self, timeout: float = 0.0) -> bool:
        """Receive one incoming message from any rank, waiting up to ``timeout`` seconds.

        The message is kept for :meth:`recv` (see :meth:`pending`); malformed messages are
        dropped as in :meth:`recv`. Returns False when nothing arrived in time.

        Raises
        ------
        PeerFailure, RemoteError

        Examples
        --------
        >>> hub = InProcHub(2)
        >>> t0, t1 = hub.transport(0), hub.transport(1)
        >>> t1.poll(0.0)
        False
        >>> _ = t1.send(0, DATA, 3)
        >>> t0.poll(1.0), t0.pending(1)
        (True, True)
        """
        deadline = time.monotonic() + max(0.0, float(timeout))
        try:
            while not self._pump(-1, None, deadline):
                pass
        except RecvTimeout:
            return False
        return True

    def _pump(self, want: int, into: Sequence[np.ndarray] | None, deadline: float | None) -> bool:
        """Receive one raw message (or time out / detect a failure) and stash it; True if stashed."""
        wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
        got = self._recv_frames(wait)
        if got is None:
            if not self._closing:
                now = time.monotonic()
                for r, since in sorted(self._dead().items()):
                    if now - since >= self.grace:
                        why = "connection lost (process killed or host unreachable)"
                        raise PeerFailure(r, self.hosts[r], why)
            if deadline is not None and time.monotonic() >= deadline:
                source = f"rank {want}" if want >= 0 else "any rank"
                raise RecvTimeout(f"rank {self.rank}: no message from {source} in time")
            return False
        link, frames = got
        try:
            kind, src, dst = peek(frames[0])
            if link is not None and src != link:
                raise ProtocolError(f"a link authenticated as rank {link} claims to be rank {src}")
            trusted = link is not None and dst == self.rank  # only such a message may fill `into`
            use = into if (trusted and src == want and not self._stash[src] and kind == DATA) else None
            try:
                msg = decode(frames, self.size, use)
            except ProtocolError:
                if use is None:
                    raise
                msg = decode(frames, self.size)  # shapes differ from the buffers: let recv() report it
            if msg.dst != self.rank:
                raise ProtocolError(f"message for rank {msg.dst} arrived at rank {self.rank}")
        except ProtocolError as exc:
            self.rejected += 1
            self._warn("rank %d: dropped a malformed message (link %s): %s", self.rank, link, exc)
            return False
        if link is None:
            self.rejected += 1
            self._warn("rank %d: dropped an unauthenticated message claiming rank %d", self.rank, msg.src)
            return False
        if msg.kind == ERROR:
            text = (msg.meta or {}).get("error", "unknown error")
            raise RemoteError(msg.src, self.hosts[msg.src], str(text)[:2000])
        self._stash[msg.src].append(msg)
        return True

    def report_error(self, text: str) -> None:
        """Tell every other rank that this one failed (best effort), before leaving."""
        for r in range(self.size):
            if r != self.rank:
                try:
                    self.send(r, ERROR, 0, (), {"error": text[:2000]})
                except Exception:  # noqa: BLE001 - best effort while failing
                    pass

    def shutdown(self, timeout: float | None = None) -> None:
        """Clean collective end: everyone says goodbye through rank 0, then closes."""
        if self.size > 1:
            if self.rank == 0:
                for r in range(1, self.size):
                    self.recv(r, BYE, timeout=timeout)
                self._closing = True
                for r in range(1, self.size):
                    self.send(r, BYE)
            else:
                self.send(0, BYE)
                self.recv(0, BYE, timeout=timeout)
                self._closing = True
        self.close()


class InProcHub:
    """In-memory links between ``size`` ranks living in one process (threads).

    Every message is encoded to frames and the frames copied, as on a wire, then decoded by the
    receiver with the validating decoder.
    """

    def __init__(self, size: int) -> None:
        self.size = int(size)
        self.queues: list[queue.Queue[tuple[int | None, list[Any]]]] = [queue.Queue() for _ in range(size)]
        self.gone: dict[int, float] = {}
        self.lock = threading.Lock()

    def transport(self, rank: int) -> InProcTransport:
        return InProcTransport(self, rank)

    def inject(self, dst: int, frames: list[Any]) -> None:
        """Deliver raw frames to ``dst`` from an unauthenticated link (tests of bad input)."""
        self.queues[dst].put((None, [bytes(f) for f in frames]))


class InProcTransport(Transport):
    """One rank's end of an :class:`InProcHub`."""

    def __init__(self, hub: InProcHub, rank: int) -> None:
        super().__init__(rank, hub.size, [f"inproc-{r}" for r in range(hub.size)])
        self.hub = hub
        self._open = True

    def _send_frames(self, dst: int, frames: list[Any]) -> None:
        self.hub.queues[dst].put((self.rank, [bytes(f) for f in frames]))

    def _recv_frames(self, timeout: float) -> tuple[int | None, list[Any]] | None:
        try:
            return self.hub.queues[self.rank].get(timeout=timeout)
        except queue.Empty:
            return None

    def _dead(self) -> dict[int, float]:
        with self.hub.lock:
            return {r: t for r, t in self.hub.gone.items() if r != self.rank}

    def close(self) -> None:
        if self._open:
            self._open = False
            if not self._closing:
                with self.hub.lock:
                    self.hub.gone[self.rank] = time.monotonic()
