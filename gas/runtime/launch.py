"""Launch: who am I (rank, world size), where is rank 0, and the rendezvous that connects ranks.

gaslab has no cluster manager: every rank is started by some launcher and reads its place from
the environment, first match wins:

==================================  ===========================================
``RANK`` / ``WORLD_SIZE``           torchrun-style, and gaslab's own ``--procs``
``OMPI_COMM_WORLD_RANK`` / ``_SIZE``  Open MPI ``mpiexec``
``PMI_RANK`` / ``PMI_SIZE``         MPICH (hydra) ``mpiexec``
``SLURM_PROCID`` / ``SLURM_STEP_NUM_TASKS`` (or ``SLURM_NTASKS``)  Slurm ``srun``
==================================  ===========================================

Rank 0 listens at ``MASTER_ADDR:MASTER_PORT`` (under Slurm the first host of
``SLURM_STEP_NODELIST``, expanded by ``scontrol show hostnames`` or :func:`expand_hostlist`; by
default 127.0.0.1 and port :data:`DEFAULT_PORT`; under torchrun ``MASTER_PORT + 1``, since
torchrun's own store holds ``MASTER_PORT``). Loopback is never a fallback for a job that spans
hosts (by the launcher's variables: Slurm's node count, Open MPI's and hydra's local rank
counts, torchrun's ``LOCAL_WORLD_SIZE``): without ``MASTER_ADDR`` such a job stops at once with
an error that says what to export.

Rendezvous handshake on rank 0's ROUTER (a DEALER per other rank), every message a validated
protocol message (no pickle): ``hello`` (rank, size, client nonce) → ``challenge`` (server nonce,
and the server's proof ``HMAC(secret, "srv|" + client nonce)``, so a rank never joins a job that
does not know the secret) → ``proof`` (``HMAC(secret, "cli|" + server nonce + "|" + rank)`` plus
the rank's data endpoint) → ``table`` (every rank's endpoint, host and link nonce) once all ranks
are in. A peer with a wrong proof is refused and logged; malformed messages are logged and
ignored; rank 0 keeps waiting for the real ranks.

The job secret comes from ``GAS_JOB_SECRET`` or the file named by ``GAS_JOB_SECRET_FILE``. A
job whose rank 0 is not on loopback needs one (the error says how to set it). A loopback job
without one derives its key from the user's private random key (:func:`user_secret`, a 0600 file
in a 0700 folder) and the launcher's job id and port (:func:`launcher_job_id`), so only the same
user's ranks of the same job can join; ``--procs N`` jobs pass a fresh random secret to the
workers they spawn. The data links then use ZeroMQ CURVE with keys derived from the secret (see
:mod:`gas.runtime.zmq_transport`).

Examples
--------
>>> detect_world({"PMI_RANK": "1", "PMI_SIZE": "4"})
(1, 4, 'PMI_RANK/PMI_SIZE')
>>> detect_world({})
(0, 1, 'default')
>>> master_address({"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": "localhost"})[0]
'localhost'
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import zmq

from gas.errors import GasError
from gas.runtime.hosts import expand_hostlist, hosts_spanned, slurm_hosts
from gas.runtime.protocol import AUTH, CONTROL, Message, ProtocolError, decode, encode
from gas.runtime.zmq_transport import ZmqTransport, tune

__all__ = [
    "detect_world",
    "master_address",
    "job_secret",
    "rendezvous_serve",
    "rendezvous_join",
    "connect_world",
    "AuthError",
    "DEFAULT_PORT",
    "expand_hostlist",
    "slurm_hosts",
    "hosts_spanned",
    "launcher_job_id",
    "user_secret",
]

log = logging.getLogger("gas.runtime")
DEFAULT_PORT = 29517

_WORLD_VARS = (
    ("RANK", ("WORLD_SIZE",)),
    ("OMPI_COMM_WORLD_RANK", ("OMPI_COMM_WORLD_SIZE",)),
    ("PMI_RANK", ("PMI_SIZE",)),
    ("SLURM_PROCID", ("SLURM_STEP_NUM_TASKS", "SLURM_NTASKS")),
)


class AuthError(GasError):
    """A peer could not prove the job secret (or the rendezvous server could not)."""


def _int_env(env: Mapping[str, str], name: str) -> int:
    text = env[name]
    try:
        return int(text)
    except ValueError:
        raise GasError(f"Expected the environment variable {name} to be an integer (got {text!r})") from None


def detect_world(env: Mapping[str, str] | None = None) -> tuple[int, int, str]:
    """``(rank, size, source)`` from the launcher's environment (see the module docstring)."""
    env = os.environ if env is None else env
    for rank_var, size_vars in _WORLD_VARS:
        if rank_var in env:
            size_var = next((v for v in size_vars if v in env), None)
            if size_var is None:
                raise GasError(f"{rank_var} is set but none of {', '.join(size_vars)} is")
            rank, size = _int_env(env, rank_var), _int_env(env, size_var)
            if size < 1 or not 0 <= rank < size:
                raise GasError(f"Expected 0 <= {rank_var} < {size_var} (got {rank} and {size})")
            return rank, size, f"{rank_var}/{size_var}"
    return 0, 1, "default"


def _resolves(host: str) -> bool:
    try:
        socket.getaddrinfo(host, None)
    except OSError:
        return False
    return True


def master_address(env: Mapping[str, str] | None = None) -> tuple[str, int]:
    """Host and port of rank 0's rendezvous (see the module docstring).

    Raises
    ------
    GasError
        Without ``MASTER_ADDR``, when the job spans several hosts and rank 0's host is unknown or
        does not resolve: loopback would leave the other hosts' ranks waiting for nobody.
    """
    env = os.environ if env is None else env
    addr = env.get("MASTER_ADDR")
    several = (hosts_spanned(env) or 1) > 1
    if not addr and env.get("SLURM_STEP_NODELIST"):
        nodelist = env["SLURM_STEP_NODELIST"]
        hosts = slurm_hosts(nodelist)
        if _resolves(hosts[0]):
            addr = hosts[0]
        elif len(hosts) > 1 or several:
            raise GasError(
                f"the Slurm step spans several hosts ({nodelist}) and its first host {hosts[0]!r} does "
                "not resolve; hint: export MASTER_ADDR=<address of rank 0's host> (the same on every "
                "rank) and GAS_JOB_SECRET"
            )
    elif not addr and several:
        raise GasError(
            "the ranks run on several hosts but MASTER_ADDR is not set, so they cannot find rank 0; "
            "hint: export MASTER_ADDR=<address of rank 0's host> and GAS_JOB_SECRET=<random value> "
            "to every rank (MPICH: mpiexec -genv MASTER_ADDR <host> ...; Open MPI: -x MASTER_ADDR)"
        )
    addr = addr or "127.0.0.1"
    port = _int_env(env, "MASTER_PORT") if "MASTER_PORT" in env else DEFAULT_PORT
    if "TORCHELASTIC_RUN_ID" in env and "MASTER_PORT" in env:
        port += 1
    if not 0 < port < 65536:
        raise GasError(f"Expected MASTER_PORT in 1..65535 (got {port})")
    return addr, port


def is_loopback(addr: str) -> bool:
    try:
        infos = socket.getaddrinfo(addr, None)
    except OSError:
        return False
    return all(i[4][0].startswith("127.") or i[4][0] == "::1" for i in infos)


def job_secret(env: Mapping[str, str] | None = None, *, cluster: bool) -> bytes:
    """The job secret (see the module docstring).

    Raises
    ------
    AuthError
        A job across machines without ``GAS_JOB_SECRET``/``GAS_JOB_SECRET_FILE``, or a loopback
        job whose user secret cannot be kept private (the hint says what to set).
    """
    env = os.environ if env is None else env
    if env.get("GAS_JOB_SECRET"):
        return env["GAS_JOB_SECRET"].encode()
    path = env.get("GAS_JOB_SECRET_FILE")
    if path:
        try:
            with open(path, "rb") as f:
                data = f.read().strip()
        except OSError as exc:
            raise GasError(f"{path}: cannot read the job secret ({exc.strerror})") from None
        if not data:
            raise GasError(f"{path}: the job secret file is empty")
        return data
    if cluster:
        raise AuthError(
            "a job across machines needs a shared secret; hint: set GAS_JOB_SECRET to the same "
            "random value on every rank (e.g. `export GAS_JOB_SECRET=$(openssl rand -hex 16)` "
            "before the launcher) or GAS_JOB_SECRET_FILE to a file readable by every rank"
        )
    job = launcher_job_id(env)
    return hmac.new(user_secret(env), f"gaslab-loopback-job|{job}".encode(), hashlib.sha256).digest()


def launcher_job_id(env: Mapping[str, str]) -> str:
    """What tells this job from the user's other jobs: the launcher's job id and the port.

    Examples
    --------
    >>> launcher_job_id({"SLURM_JOB_ID": "77", "SLURM_STEP_ID": "0", "MASTER_PORT": "5000"})
    'SLURM_JOB_ID=77|SLURM_STEP_ID=0|port=5000'
    """
    names = ("SLURM_JOB_ID", "SLURM_STEP_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid")
    names += ("TORCHELASTIC_RUN_ID",)
    parts = [f"{n}={env[n]}" for n in names if env.get(n)]
    return "|".join([*parts, f"port={env.get('MASTER_PORT', DEFAULT_PORT)}"])


def user_secret(env: Mapping[str, str]) -> bytes:
    """This user's private random key (32 bytes), made once in a 0600 file in a 0700 folder.

    The folder is ``GAS_SECRET_DIR``, else ``$XDG_CONFIG_HOME/gaslab`` or ``~/.config/gaslab``.
    Ranks that start together race to make it: each writes a whole temporary file and links it
    into place, so every rank reads the same complete key.
    """
    folder = env.get("GAS_SECRET_DIR") or os.path.join(
        env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config"), "gaslab"
    )
    path = os.path.join(folder, "user-secret")
    hint = "hint: set GAS_JOB_SECRET (the same random value on every rank) or GAS_SECRET_DIR"
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        for p in (folder, path):
            st = os.stat(p)
            if st.st_uid != os.geteuid() or st.st_mode & 0o077:
                raise AuthError(
                    f"{p}: other users could read the loopback job key (mode {st.st_mode & 0o777:o}, "
                    f"owner uid {st.st_uid}); hint: chmod 700 {folder}; chmod 600 {path}, or "
                    "set GAS_JOB_SECRET"
                )
        with open(path, "rb") as f:
            key = f.read().strip()
    except OSError as exc:
        raise AuthError(f"{path}: cannot keep the loopback job key ({exc.strerror}); {hint}") from None
    if len(key) < 32:
        raise AuthError(f"{path}: the loopback job key is truncated; hint: delete the file (it is remade)")
    return key


def local_address_towards(addr: str) -> str:
    """The address of this host's interface that routes to ``addr`` (no packet is sent)."""
    if is_loopback(addr):
        return "127.0.0.1"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((addr, 9))
        return s.getsockname()[0]
    except OSError:
        return "0.0.0.0"
    finally:
        s.close()


def _mac(secret: bytes, text: str) -> str:
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def _peer_addr(frame: Any) -> str:
    try:
        return str(frame.get("Peer-Address"))
    except Exception:  # noqa: BLE001 - metadata is best effort
        return "?"


def _bind_router(addr: str, port: int) -> tuple[Any, Any]:
    """Rank 0's rendezvous socket (a ROUTER bound to ``addr:port``) and its context."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    tune(sock)
    try:
        sock.bind(f"tcp://{addr}:{port}")
    except zmq.ZMQError as exc:
        ctx.destroy(linger=0)
        raise GasError(
            f"rank 0 cannot listen on {addr}:{port} for the rendezvous ({exc}); "
            "hint: set MASTER_PORT to a free port (the same on every rank)"
        ) from None
    return ctx, sock


def _await_knock(
    sock: Any,
    deadline: float,
    alive: Callable[[], str | None] | None,
    where: str,
    missing: list[int],
    timeout: float,
) -> None:
    """Return once a message waits on ``sock``; raise when ``deadline`` passes or ``alive``
    gives a reason the ranks cannot join (asked every 0.25 s while no rank is knocking)."""
    while True:
        left = deadline - time.monotonic()
        wait = min(left, 0.25) if alive is not None else left
        if left > 0 and sock.poll(int(wait * 1000)):
            return
        if left > 0 and alive is not None:
            why = alive()
            if why is not None:
                raise GasError(f"rendezvous at {where}: {why}")
            continue
        raise GasError(
            f"rendezvous at {where}: ranks {missing} did not join within {timeout:.0f} s "
            "(hint: are they started with the same MASTER_ADDR/MASTER_PORT and world size?)"
        )


class _Admission:
    """Rank 0's side of the handshake: a hello gets a challenge, a proof of the secret a seat."""

    def __init__(self, size: int, secret: bytes, table: list[dict[str, Any] | None]) -> None:
        self.size, self.secret, self.table = size, secret, table
        self.pending: dict[bytes, tuple[int, str]] = {}
        self.joined: dict[int, bytes] = {}

    def missing(self) -> list[int]:
        return [r for r in range(1, self.size) if r not in self.joined]

    def receive(self, sock: Any, rid: bytes, body: list[Any], peer: str) -> None:
        """Handle one message from peer ``rid``; a :class:`ProtocolError` for a bad one."""
        size, secret = self.size, self.secret
        msg = decode(body, size)
        meta = msg.meta or {}
        op = meta.get("op")
        if msg.kind == CONTROL and op == "hello":
            r, n, cn = meta.get("rank"), meta.get("size"), meta.get("nonce")
            if n != size or not isinstance(r, int) or not 1 <= r < size or not isinstance(cn, str):
                raise ProtocolError(f"hello for rank {r} of a world of {n} (this job: {size})")
            if r in self.joined:
                raise ProtocolError(f"rank {r} joined already")
            sn = secrets.token_hex(16)
            self.pending[rid] = (r, sn)
            reply = {"op": "challenge", "nonce": sn, "proof": _mac(secret, "srv|" + cn)}
            sock.send_multipart([rid, *encode(Message(CONTROL, 0, r, 0, [], reply))])
        elif msg.kind == AUTH and op == "proof" and rid in self.pending:
            r, sn = self.pending.pop(rid)
            mac = meta.get("mac")
            info = meta.get("info")
            if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(secret, f"cli|{sn}|{r}")):
                log.warning("rendezvous: refused a peer at %s claiming rank %d: wrong job secret", peer, r)
                refuse = {"op": "refused", "why": "wrong job secret"}
                sock.send_multipart([rid, *encode(Message(CONTROL, 0, r, 0, [], refuse))])
                return
            if not isinstance(info, dict) or info.get("rank") != r or r in self.joined:
                raise ProtocolError(f"bad endpoint record for rank {r}")
            self.table[r] = {k: info.get(k) for k in ("rank", "host", "endpoint")}
            self.joined[r] = rid
        else:
            raise ProtocolError(f"unexpected {op!r} message at this point of the handshake")


def rendezvous_serve(
    size: int,
    addr: str,
    port: int,
    secret: bytes,
    me: dict[str, Any],
    timeout: float = 120.0,
    alive: Callable[[], str | None] | None = None,
) -> list[dict[str, Any]]:
    """Rank 0: admit ranks ``1..size-1`` that prove the secret, then send everyone the table.

    ``alive`` (optional), called while waiting, returns why the ranks cannot join any more (e.g.
    a spawned worker exited) or None; a reason ends the wait at once with that error.
    """
    table: list[dict[str, Any] | None] = [None] * size
    table[0] = me
    if size == 1:
        return [me]
    ctx, sock = _bind_router(addr, port)
    adm = _Admission(size, secret, table)
    deadline = time.monotonic() + timeout
    try:
        while len(adm.joined) < size - 1:
            _await_knock(sock, deadline, alive, f"{addr}:{port}", adm.missing(), timeout)
            frames = sock.recv_multipart(copy=False)
            rid, body = frames[0].bytes, frames[1:]
            peer = _peer_addr(body[0]) if body else "?"
            try:
                adm.receive(sock, rid, body, peer)
            except ProtocolError as exc:
                log.warning("rendezvous: ignored a message from %s: %s", peer, exc)
        full = [t for t in table if t is not None]
        for r, rid in adm.joined.items():
            sock.send_multipart([rid, *encode(Message(CONTROL, 0, r, 0, [], {"op": "table", "table": full}))])
        return full
    finally:
        sock.close(linger=2000)
        ctx.term()


def rendezvous_join(
    rank: int,
    size: int,
    addr: str,
    port: int,
    secret: bytes,
    me: dict[str, Any],
    timeout: float = 120.0,
) -> list[dict[str, Any]]:
    """Rank ``rank`` > 0: prove the secret to rank 0 (and check its proof), get the table."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    tune(sock)
    sock.connect(f"tcp://{addr}:{port}")
    deadline = time.monotonic() + timeout

    def next_msg() -> Message:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sock.poll(int(left * 1000)):
                raise GasError(
                    f"rank {rank}: no answer from the rendezvous at {addr}:{port} within {timeout:.0f} s "
                    "(hint: is rank 0 running with the same MASTER_ADDR/MASTER_PORT?)"
                )
            try:
                return decode(sock.recv_multipart(), size)
            except ProtocolError as exc:
                log.warning("rank %d: ignored a malformed rendezvous message: %s", rank, exc)

    try:
        cn = secrets.token_hex(16)
        sock.send_multipart(
            encode(Message(CONTROL, rank, 0, 0, [], {"op": "hello", "rank": rank, "size": size, "nonce": cn}))
        )
        msg = next_msg()
        meta = msg.meta or {}
        proof = meta.get("proof")
        sn = meta.get("nonce")
        if meta.get("op") != "challenge" or not isinstance(proof, str) or not isinstance(sn, str):
            raise AuthError(f"rank {rank}: the rendezvous at {addr}:{port} did not send a challenge")
        if not hmac.compare_digest(proof, _mac(secret, "srv|" + cn)):
            raise AuthError(
                f"rank {rank}: the rendezvous at {addr}:{port} does not know the job secret; "
                "hint: set the same GAS_JOB_SECRET on every rank"
            )
        reply = {"op": "proof", "mac": _mac(secret, f"cli|{sn}|{rank}"), "info": me}
        sock.send_multipart(encode(Message(AUTH, rank, 0, 0, [], reply)))
        msg = next_msg()
        meta = msg.meta or {}
        if meta.get("op") == "refused":
            raise AuthError(
                f"rank {rank}: the rendezvous at {addr}:{port} refused this rank ({meta.get('why')}); "
                "hint: set the same GAS_JOB_SECRET on every rank"
            )
        table = meta.get("table")
        if meta.get("op") != "table" or not isinstance(table, list) or len(table) != size:
            raise AuthError(f"rank {rank}: bad table from the rendezvous at {addr}:{port}")
        return table
    finally:
        sock.close(linger=0)
        ctx.term()


@contextmanager
def reporting_errors(t: ZmqTransport | None, *, shutdown_timeout: float = 60.0) -> Iterator[None]:
    """Run one rank's job on ``t``: an error is reported to every peer (so they stop with its
    message, not a timeout) and the link closed before the error goes on; a job that ends normally
    shuts the link down cleanly. ``t`` None (a one-rank world): nothing to do.

    Examples
    --------
    >>> with reporting_errors(None):
    ...     pass
    """
    try:
        yield
    except BaseException as exc:
        if t is not None:
            t.report_error(f"{type(exc).__name__}: {exc}")
            t.close()
        raise
    if t is not None:
        t.shutdown(timeout=shutdown_timeout)


def connect_world(
    rank: int | None = None,
    size: int | None = None,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
    alive: Callable[[], str | None] | None = None,
) -> ZmqTransport | None:
    """Meet the other ranks and return this rank's connected transport (None for one rank).

    ``rank``/``size`` default to :func:`detect_world`; the address to :func:`master_address`.
    ``alive``: see :func:`rendezvous_serve` (rank 0 only).
    """
    env = os.environ if env is None else env
    if rank is None or size is None:
        rank, size, _ = detect_world(env)
    if size == 1:
        return None
    addr, port = master_address(env)
    try:
        addr = socket.gethostbyname(addr)
    except OSError:
        raise GasError(f"cannot resolve the rendezvous host {addr!r} (MASTER_ADDR)") from None
    cluster = not is_loopback(addr)
    secret = job_secret(env, cluster=cluster)
    bind = env.get("GAS_BIND_ADDR") or (addr if rank == 0 else local_address_towards(addr))
    t = ZmqTransport(rank, size, bind_host=bind, secret=secret)
    try:
        if rank == 0:
            table = rendezvous_serve(size, addr, port, secret, t.info(), timeout, alive)
        else:
            table = rendezvous_join(rank, size, addr, port, secret, t.info(), timeout)
        t.connect(table)
        # everyone proves its links before the first data message: a ready round with every peer
        for r in range(size):
            if r != rank:
                t.send(r, CONTROL, 0, (), {"op": "ready"})
        for r in range(size):
            if r != rank:
                t.recv(r, CONTROL, 0, timeout=timeout)
    except BaseException:
        t.close()
        raise
    return t
