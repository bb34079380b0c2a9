"""One rank's SSP clock and message state for bounded-staleness runs (:mod:`gas.runtime.ssp`).

SSP messages (*partial*, *values*, *done*) travel tagged with their kind and superstep, in a tag
range that never collides with collective sequence numbers. :class:`_SSPState` keeps one rank's
view of the others: the pending messages, each peer's clock (last superstep of values and of
partials consumed), the latest partials and aggregate shares, and the stopping rule evaluated on
complete supersteps in order; it pumps, consumes, waits (optionally running local sweeps) and
drains. The driver, :func:`gas.runtime.ssp.run_partition_ssp`, re-exports these names.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

import numpy as np

from gas.errors import GasError
from gas.runtime.comm import Comm, reduce_ranks
from gas.runtime.dist_engine import DistEngine
from gas.runtime.network_exchange import NetworkExchange
from gas.runtime.protocol import DATA, Message

PARTIAL, VALUES, DONE = 0, 1, 2
_TAG_BASE = 1 << 40  # SSP tags never collide with collective sequence numbers


def _tag(kind: int, clock: int) -> int:
    return _TAG_BASE + 4 * (clock + 1) + kind


def _untag(tag: int) -> tuple[int, int]:
    t = int(tag) - _TAG_BASE
    return t % 4, t // 4 - 1


class _SSPState:
    """One rank's view of the others: pending messages, clocks, latest partials and shares."""

    def __init__(
        self,
        comm: Comm,
        eng: DistEngine,
        first_shares: list[np.ndarray],
        staleness: int,
        delta: tuple[str, ...] = (),
        fresh: bool = False,
    ) -> None:
        self.comm = comm
        self.t = comm.t
        self.eng = eng
        self.ex: NetworkExchange = eng.exchange  # type: ignore[assignment]
        self.peers = comm.peers()
        self.pending: dict[int, deque[Message]] = {q: deque() for q in self.peers}
        self.vclock = {q: -1 for q in self.peers}  # last superstep whose values were consumed
        self.pclock = {q: -1 for q in self.peers}  # last superstep whose partials were consumed
        self.done: set[int] = set()
        self.closed: set[int] = set()
        self.partials: dict[int, np.ndarray] = {}
        spec = eng.spec
        self.ops = tuple(spec.agg_ops)
        self.shares: list[np.ndarray] = [np.asarray(a, np.float64) for a in first_shares]
        self.by_clock: dict[int, list[np.ndarray | None]] = {}
        self.next_check = 0
        self.stop_at: int | None = None
        self.passed = 0
        safe = bool(getattr(eng.program, "stale_safe_stop", False))
        self.window = 1 if staleness == 0 or safe else staleness + 2
        self.conv = getattr(eng.program, "converged", None)
        self.cols = [eng.columns[k] for k in self.ex.sync_names]
        # delta mode: received values of delta fields add to the mirror rows (cleared once
        # gathered) and received partials add up until the master folds them in: exactly once
        self.delta = bool(delta)
        self.adds = [k in delta for k in self.ex.sync_names]
        self.fresh = fresh  # consume every delivered message, future supersteps' too
        self.bytes_sent = 0

    # ------------------------------------------------------------------ messages
    def send(self, q: int, kind: int, clock: int, arrays: list[np.ndarray]) -> None:
        assert self.t is not None
        self.bytes_sent += self.t.send(q, DATA, _tag(kind, clock), arrays)

    def pump(self, wait: float) -> None:
        """Move every message that has arrived into the pending queues (waiting up to ``wait``)."""
        t = self.t
        assert t is not None
        deadline = time.monotonic() + wait
        for _ in range(10_000):
            if any(t.pending(q) for q in self.peers) and deadline > time.monotonic():
                deadline = time.monotonic()  # something arrived: take the rest without waiting
            if not t.poll(deadline - time.monotonic()):
                break
        for q in self.peers:
            # nothing after a peer's done is ours: the collectives that follow stay in the transport
            while t.pending(q) and q not in self.closed:
                msg = t.recv(q, DATA, None)
                self.pending[q].append(msg)
                if _untag(msg.tag)[0] == DONE:
                    self.closed.add(q)

    def consume(self, clock: int) -> None:
        """Apply every pending message not from the future of superstep ``clock``."""
        for q in self.peers:
            pend = self.pending[q]
            while pend:
                kind, k = _untag(pend[0].tag)
                if kind == PARTIAL and (k <= clock or self.fresh):
                    got = pend.popleft().arrays[0]
                    if self.delta and q in self.partials:
                        got = self.partials[q] + got
                    self.partials[q] = got
                    self.pclock[q] = k
                elif kind == VALUES and (k <= clock - 1 or self.fresh):
                    arrays = pend.popleft().arrays
                    rows = self.ex.mirror_lists[q]
                    if rows.size:
                        for c, vals, add in zip(self.cols, arrays[1:], self.adds):
                            if add:
                                c[rows] += vals
                            else:
                                c[rows] = vals
                    self.vclock[q] = k
                    self.record_share(q, k, arrays[0])
                elif kind == DONE:
                    pend.popleft()
                    self.done.add(q)
                elif kind in (PARTIAL, VALUES):
                    break
                else:
                    raise GasError(f"rank {q} sent an unknown SSP message (tag {pend[0].tag})")

    def record_share(self, r: int, k: int, vals: np.ndarray) -> None:
        self.shares[r] = np.asarray(vals, np.float64)
        row = self.by_clock.setdefault(k, [None] * self.comm.size)
        row[r] = self.shares[r]
        self.check_stop()

    def check_stop(self) -> None:
        """Evaluate ``converged`` on complete supersteps, in order (the same answer on every rank)."""
        while self.stop_at is None:
            row = self.by_clock.get(self.next_check)
            if row is None or any(x is None for x in row):
                return
            del self.by_clock[self.next_check]
            if self.conv is not None:
                vals = reduce_ranks(row, self.ops)  # type: ignore[arg-type]
                ctx = self.eng.ctx.copy()
                ctx["iteration"] = self.next_check
                for j, name in enumerate(self.eng.spec.agg_names):
                    ctx[name] = vals[j]
                self.passed = self.passed + 1 if bool(self.conv(ctx.view(np.recarray)[0])) else 0
                if self.passed >= self.window:
                    self.stop_at = self.next_check
                    self.final = {n: float(vals[j]) for j, n in enumerate(self.eng.spec.agg_names)}
            self.next_check += 1

    def wait(
        self, ready: Callable[[], bool], clock: int, work: Callable[[], None] | None = None, budget: int = 0
    ) -> float:
        """Block until ``ready()`` or the stop superstep is known; returns the seconds waited.

        Whatever has arrived is taken first, without waiting: a rank that need not wait (a
        straggler, whose peers are ahead) still reads the freshest data it may. While it must
        wait, ``work()`` runs up to ``budget`` times (local sweeps), then it blocks."""
        self.pump(0.0)
        self.consume(clock)
        if ready() or self.stop_at is not None:
            return 0.0
        t0 = time.perf_counter()
        while not ready() and self.stop_at is None:
            if work is not None and budget > 0:
                work()
                budget -= 1
                self.pump(0.0)
            else:
                self.pump(0.05)
            self.consume(clock)
        return time.perf_counter() - t0

    def drain(self) -> None:
        """Say done, then discard the others' messages up to their done (no SSP message left)."""
        for q in self.peers:
            self.send(q, DONE, 0, [])
        for q in self.peers:
            while q not in self.done:
                pend = self.pending[q]
                while pend and q not in self.done:
                    kind, _ = _untag(pend.popleft().tag)
                    if kind == DONE:
                        self.done.add(q)
                if q not in self.done:
                    self.pump(0.05)
