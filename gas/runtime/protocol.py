"""The wire format: one header frame, then each array's raw bytes cut into ~1 MB frames.

A message is a *kind* (data, control, auth, error, bye), the sender and receiver ranks, an
integer *tag* (the superstep, or a sequence number), up to :data:`MAX_ARRAYS` numpy arrays and
an optional small JSON object (*meta*). Nothing is pickled: the header is a fixed binary
struct that :func:`decode` validates field by field (magic, version, kind, ranks, dtype codes,
shapes, sizes, frame count and every frame's length) before any byte of an array is used, so a
malformed or hostile message costs a :class:`ProtocolError`, never a crash or code execution.

Header layout (little-endian)::

    magic "GASW" | version u8 | kind u8 | n_arrays u16 | src i32 | dst i32 | tag i64 |
    meta_len u32 | n_frames u32 | per array: dtype u8, ndim u8, shape ndim x u64 | meta

Array ``i`` occupies ``ceil(nbytes_i / FRAME_BYTES)`` frames (none when empty) after the header.

Sizes are checked before anything is allocated: every array's byte count against the frames that
actually arrived (their number and each one's length), and the message's total against a cap,
:func:`max_message_bytes` (16 GiB unless the environment variable ``GAS_MAX_MESSAGE_BYTES`` says
otherwise, read at each call; :func:`encode` refuses to build a larger message, so a legitimate
sender hears about the cap instead of its peer dropping the message). A header therefore cannot
make a receiver allocate more than the bytes it was actually sent. No frame is longer than
:data:`MAX_FRAME_BYTES` (the ZeroMQ sockets refuse longer ones).

Examples
--------
>>> import numpy as np
>>> frames = encode(Message(DATA, 0, 1, 7, [np.arange(3.0)], {"phase": "gather"}))
>>> m = decode(frames, world=2)
>>> m.kind == DATA, m.src, m.tag, m.arrays[0].tolist(), m.meta
(True, 0, 7, [0.0, 1.0, 2.0], {'phase': 'gather'})
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gas.errors import GasError

__all__ = [
    "Message",
    "ProtocolError",
    "encode",
    "decode",
    "peek",
    "DATA",
    "CONTROL",
    "AUTH",
    "ERROR",
    "BYE",
    "KINDS",
    "FRAME_BYTES",
    "MAX_ARRAYS",
    "MAX_FRAME_BYTES",
    "max_message_bytes",
]

MAGIC = b"GASW"
VERSION = 1
DATA, CONTROL, AUTH, ERROR, BYE = 1, 2, 3, 4, 5
KINDS = {DATA: "data", CONTROL: "control", AUTH: "auth", ERROR: "error", BYE: "bye"}
FRAME_BYTES = 1 << 20
MAX_ARRAYS = 64
MAX_NDIM = 4
MAX_META = 1 << 20
DEFAULT_MAX_MESSAGE_BYTES = 16 << 30
_FIXED = struct.Struct("<4sBBHiiqII")
_ARR = struct.Struct("<BB")
MAX_HEADER_BYTES = _FIXED.size + MAX_ARRAYS * (_ARR.size + 8 * MAX_NDIM) + MAX_META
MAX_FRAME_BYTES = max(FRAME_BYTES, MAX_HEADER_BYTES)

# dtype codes on the wire: plain little-endian numeric types only (no objects, no structs)
_DTYPES = [
    np.dtype(np.bool_),
    np.dtype("<i1"),
    np.dtype("<i2"),
    np.dtype("<i4"),
    np.dtype("<i8"),
    np.dtype("<u1"),
    np.dtype("<u2"),
    np.dtype("<u4"),
    np.dtype("<u8"),
    np.dtype("<f4"),
    np.dtype("<f8"),
]
_CODE = {dt: i + 1 for i, dt in enumerate(_DTYPES)}


class ProtocolError(GasError):
    """A message that does not follow the wire format (the reason says which field)."""


@dataclass
class Message:
    """One message: ``kind`` (e.g. :data:`DATA`), ``src``/``dst`` ranks, ``tag``, arrays, meta."""

    kind: int
    src: int
    dst: int
    tag: int
    arrays: list[np.ndarray] = field(default_factory=list)
    meta: dict[str, Any] | None = None


def _frames_for(nbytes: int) -> int:
    return -(-nbytes // FRAME_BYTES)


def max_message_bytes(env: Mapping[str, str] | None = None) -> int:
    """The largest array payload one message may carry, in bytes (see the module docstring).

    ``env`` defaults to ``os.environ``; a bad ``GAS_MAX_MESSAGE_BYTES`` is a :class:`GasError`.

    Examples
    --------
    >>> max_message_bytes({"GAS_MAX_MESSAGE_BYTES": "1000"}), max_message_bytes({}) == 16 << 30
    (1000, True)
    """
    env = os.environ if env is None else env
    text = env.get("GAS_MAX_MESSAGE_BYTES", "").strip()
    if not text:
        return DEFAULT_MAX_MESSAGE_BYTES
    try:
        cap = int(text)
    except ValueError:
        cap = -1
    if cap < 1:
        raise GasError(
            f"Expected GAS_MAX_MESSAGE_BYTES to be a positive integer (got {text!r}); "
            f"hint: unset it for the default of {DEFAULT_MAX_MESSAGE_BYTES} bytes"
        )
    return cap


def encode(msg: Message) -> list[Any]:
    """Header bytes followed by zero-copy memoryviews of each array's bytes (~1 MB each)."""
    if msg.kind not in KINDS:
        raise ProtocolError(f"Expected a message kind in {sorted(KINDS)} (got {msg.kind})")
    if len(msg.arrays) > MAX_ARRAYS:
        raise ProtocolError(f"Expected at most {MAX_ARRAYS} arrays per message (got {len(msg.arrays)})")
    meta = b"" if msg.meta is None else json.dumps(msg.meta, separators=(",", ":")).encode()
    if len(meta) > MAX_META:
        raise ProtocolError(f"Expected meta of at most {MAX_META} bytes (got {len(meta)})")
    total = sum(int(np.asarray(a).nbytes) for a in msg.arrays)
    cap = max_message_bytes()
    if total > cap:
        raise ProtocolError(
            f"Expected at most {cap} bytes of arrays per message (got {total}); hint: raise "
            "GAS_MAX_MESSAGE_BYTES on every rank, or send the arrays in several messages"
        )
    parts: list[bytes] = []
    bufs: list[Any] = []
    n_frames = 0
    for a in msg.arrays:
        a = np.asarray(a)
        dt = a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype
        code = _CODE.get(np.dtype(dt))
        if code is None or a.ndim > MAX_NDIM:
            raise ProtocolError(
                f"Expected a plain numeric array of at most {MAX_NDIM} dimensions "
                f"(got {a.dtype}, ndim {a.ndim})"
            )
        a = np.ascontiguousarray(a, dtype=dt)
        parts.append(_ARR.pack(code, a.ndim) + struct.pack(f"<{a.ndim}Q", *a.shape))
        mv = memoryview(a.reshape(-1).view(np.uint8)) if a.size else memoryview(b"")
        for off in range(0, a.nbytes, FRAME_BYTES):
            bufs.append(mv[off : off + FRAME_BYTES])
            n_frames += 1
    head = _FIXED.pack(
        MAGIC, VERSION, msg.kind, len(msg.arrays), msg.src, msg.dst, msg.tag, len(meta), n_frames
    )
    return [head + b"".join(parts) + meta, *bufs]


def decode(
    frames: Sequence[Any],
    world: int,
    into: Sequence[np.ndarray] | None = None,
    max_bytes: int | None = None,
) -> Message:
    """Validate and decode one message's frames (see the module docstring).

    Parameters
    ----------
    frames : sequence of bytes-like
        The header frame, then the array frames.
    world : int
        Number of ranks: ``src`` and ``dst`` must lie in ``0..world-1``.
    into : sequence of ndarray, optional
        Arrays to receive into (reused buffers); each must have the incoming dtype and as many
        elements. Otherwise new arrays are allocated.
    max_bytes : int, optional
        Cap on the arrays' total bytes (default :func:`max_message_bytes`).

    Raises
    ------
    ProtocolError
        Whatever does not match the format; nothing is read past the first bad field, and
        nothing is allocated before every size has been checked against the frames received.
    """
    if not frames:
        raise ProtocolError("empty message")
    head = memoryview(frames[0]).cast("B")
    kind, src, dst, tag, specs, meta = _parse_header(head, world)
    cap = max_message_bytes() if max_bytes is None else max_bytes
    total = sum(nbytes for _, _, nbytes in specs)
    if total > cap:
        raise ProtocolError(
            f"arrays of {total} bytes in one message (at most {cap}; GAS_MAX_MESSAGE_BYTES sets the cap)"
        )
    _check_frames(frames, specs)
    if into is not None and len(into) != len(specs):
        raise ProtocolError(f"{len(specs)} arrays arrived; {len(into)} receive buffers were given")
    arrays: list[np.ndarray] = []
    fi = 1
    for i, (dt, shape, nbytes) in enumerate(specs):
        if into is not None:
            out = into[i]
            if out.dtype != dt or out.nbytes != nbytes or not out.flags.c_contiguous:
                raise ProtocolError(
                    f"array {i}: {dt} x {shape} does not fit the receive buffer ({out.dtype} x {out.shape})"
                )
        else:
            out = np.empty(shape, dt)
        flat = out.reshape(-1).view(np.uint8)
        for off in range(0, nbytes, FRAME_BYTES):
            size = min(FRAME_BYTES, nbytes - off)
            flat[off : off + size] = np.frombuffer(memoryview(frames[fi]).cast("B"), np.uint8)
            fi += 1
        arrays.append(out)
    return Message(kind, src, dst, tag, arrays, meta)


def _parse_header(head: memoryview, world: int) -> tuple[int, int, int, int, list[Any], dict | None]:
    """Check the header frame field by field: ``(kind, src, dst, tag, array specs, meta)``."""
    if len(head) < _FIXED.size:
        raise ProtocolError(f"header of {len(head)} bytes is shorter than the fixed {_FIXED.size}")
    if len(head) > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {len(head)} bytes (at most {MAX_HEADER_BYTES})")
    magic, version, kind, n_arrays, src, dst, tag, meta_len, n_frames = _FIXED.unpack_from(head, 0)
    if magic != MAGIC:
        raise ProtocolError(f"bad magic {bytes(magic)!r} (expected {MAGIC!r})")
    if version != VERSION:
        raise ProtocolError(f"protocol version {version} (this build speaks {VERSION})")
    if kind not in KINDS:
        raise ProtocolError(f"unknown message kind {kind}")
    if not (0 <= src < world and 0 <= dst < world):
        raise ProtocolError(f"ranks src={src} dst={dst} outside 0..{world - 1}")
    if n_arrays > MAX_ARRAYS:
        raise ProtocolError(f"{n_arrays} arrays (at most {MAX_ARRAYS})")
    if meta_len > MAX_META:
        raise ProtocolError(f"meta of {meta_len} bytes (at most {MAX_META})")
    pos = _FIXED.size
    specs: list[tuple[np.dtype, tuple[int, ...], int]] = []
    for i in range(n_arrays):
        spec, pos = _parse_array(head, pos, i)
        specs.append(spec)
    if pos + meta_len != len(head):
        raise ProtocolError(f"header is {len(head)} bytes; its fields describe {pos + meta_len}")
    want_frames = sum(_frames_for(nbytes) for _, _, nbytes in specs)
    if n_frames != want_frames:
        raise ProtocolError(f"frame count: header says {n_frames}, shapes need {want_frames}")
    meta = None
    if meta_len:
        try:
            meta = json.loads(bytes(head[pos : pos + meta_len]).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ProtocolError(f"meta is not UTF-8 JSON ({type(exc).__name__})") from None
        if not isinstance(meta, dict):
            raise ProtocolError(f"meta must be a JSON object (got {type(meta).__name__})")
    return kind, src, dst, tag, specs, meta


def _parse_array(head: memoryview, pos: int, i: int) -> tuple[tuple[np.dtype, tuple[int, ...], int], int]:
    """Array ``i``'s description at ``pos``: ``((dtype, shape, nbytes), next position)``."""
    if pos + _ARR.size > len(head):
        raise ProtocolError(f"header ends inside array {i}'s description")
    code, ndim = _ARR.unpack_from(head, pos)
    pos += _ARR.size
    if not 1 <= code <= len(_DTYPES):
        raise ProtocolError(f"array {i}: unknown dtype code {code}")
    if ndim > MAX_NDIM:
        raise ProtocolError(f"array {i}: {ndim} dimensions (at most {MAX_NDIM})")
    if pos + 8 * ndim > len(head):
        raise ProtocolError(f"header ends inside array {i}'s shape")
    shape = tuple(int(s) for s in struct.unpack_from(f"<{ndim}Q", head, pos))
    dt = _DTYPES[code - 1]
    nbytes = dt.itemsize
    for s in shape:
        nbytes *= s  # Python ints: no overflow, however large the claim
    return (dt, shape, nbytes), pos + 8 * ndim


def _check_frames(frames: Sequence[Any], specs: list[Any]) -> None:
    """Every array frame present with exactly the length its array needs (nothing allocated)."""
    want = sum(_frames_for(nbytes) for _, _, nbytes in specs)
    if len(frames) - 1 != want:
        raise ProtocolError(f"frame count: the shapes need {want} array frames, got {len(frames) - 1}")
    fi = 1
    for i, (_, _, nbytes) in enumerate(specs):
        for off in range(0, nbytes, FRAME_BYTES):
            size = min(FRAME_BYTES, nbytes - off)
            got = memoryview(frames[fi]).nbytes
            if got != size:
                raise ProtocolError(f"array {i}: frame {fi} has {got} bytes (expected {size})")
            fi += 1


def peek(header: Any) -> tuple[int, int, int]:
    """``(kind, src, dst)`` from a header frame, after checking its magic and version only.

    Examples
    --------
    >>> peek(encode(Message(BYE, 3, 0, 0))[0])
    (5, 3, 0)
    """
    head = memoryview(header).cast("B")
    if len(head) < _FIXED.size:
        raise ProtocolError(f"header of {len(head)} bytes is shorter than the fixed {_FIXED.size}")
    magic, version, kind, _, src, dst, *_ = _FIXED.unpack_from(head, 0)
    if magic != MAGIC or version != VERSION:
        raise ProtocolError(f"bad magic/version {bytes(magic)!r}/{version}")
    return kind, src, dst
