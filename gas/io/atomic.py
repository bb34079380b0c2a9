"""Output files: atomic replacement of regular files, straight writes to FIFOs and devices.

:func:`atomic_open` writes a regular file (new or existing) through a temporary file beside it,
fsyncs it, renames it over the target and fsyncs the folder, so a reader sees the old file or the
complete new one, and a failure at any point (an exception, Ctrl-C; ``kill -9`` aside) leaves the
old file and no temporary file. Other targets are written the way ``open(path, "w")`` would:

- a symlink is followed: its final target is replaced atomically and the link is kept;
- a FIFO, a character or block device (``/dev/null``, a terminal) is written straight into,
  not atomically (it cannot be renamed over, and replacing it would destroy it);
- ``-`` is standard output.

Permissions are those ``open()`` gives: a new file gets ``0o666`` less the umask (``0o644``
under umask 022) and a replaced file keeps its mode (and, when the process may set them, its
owner and group). One difference from ``open()`` remains: a file with several hard links is
replaced, so its other names keep the old content. :func:`atomic_folder` does the same for a
folder of files (a new folder gets ``0o777`` less the umask). :func:`check_output_path` checks a
path before any work is done.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from gas.errors import GasError

__all__ = ["atomic_open", "atomic_folder", "check_output_path", "fsync_folder"]


def fsync_folder(folder: str | os.PathLike) -> None:
    """Flush a folder's entries (a rename in it) to disk; a no-op where folders cannot be fsynced."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems (and platforms) refuse fsync on a folder
        pass
    finally:
        os.close(fd)


def _temp_path(folder: str, base: str, suffix: str) -> str:
    return os.path.join(folder, f".{base[:200]}.{secrets.token_hex(6)}{suffix}")  # within NAME_MAX


def _create_temp_file(folder: str, base: str) -> tuple[int, str]:
    """A new empty file beside the target, created with mode 0o666 so the umask applies."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = _temp_path(folder, base, ".tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise GasError(f"{folder}: could not create a temporary file (100 names taken)")


def _create_temp_folder(parent: str, base: str) -> str:
    """A new empty folder beside the target, created with mode 0o777 so the umask applies."""
    for _ in range(100):
        tmp = _temp_path(parent, base, ".tmp")
        try:
            os.mkdir(tmp, 0o777)
            return tmp
        except FileExistsError:
            continue
    raise GasError(f"{parent}: could not create a temporary folder (100 names taken)")


def _keep_owner_and_mode(fd_or_path: int | str, old: os.stat_result) -> None:
    """Give a replacement the mode (and, where allowed, the owner) of the file it replaces."""
    os.chmod(fd_or_path, stat.S_IMODE(old.st_mode))
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):  # only root (or a group member) may; open() keeps both
            os.chown(fd_or_path, old.st_uid, old.st_gid)


def _stat(path: str) -> os.stat_result | None:
    """``os.stat`` (following links); None when nothing is there."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # a symlink loop, a folder we may not search
        raise _cannot_write(path, exc) from None


def _cannot_write(path: str | os.PathLike, exc: OSError) -> GasError:
    why = exc.strerror or str(exc)
    return GasError(f"{os.fspath(path)}: cannot write the output here ({why}); choose another path")


@contextlib.contextmanager
def _stdout(mode: str, **kwargs) -> Iterator[IO]:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if "b" in mode:
        yield buffer if buffer is not None else sys.stdout
        (buffer or sys.stdout).flush()
    elif buffer is None or not kwargs:
        yield sys.stdout
        sys.stdout.flush()
    else:
        wrapper = io.TextIOWrapper(buffer, **kwargs)
        try:
            yield wrapper
        finally:
            wrapper.flush()
            wrapper.detach()  # leave sys.stdout's buffer open


@contextlib.contextmanager
def _straight(target: str, mode: str, **kwargs) -> Iterator[IO]:
    try:
        f = open(target, mode, **kwargs)  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    with f:
        yield f


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[IO]:
    """Open ``path`` for writing so that readers see the old file or the complete new one.

    A regular file (or a new one) is written to a temporary file beside it, which on success is
    flushed, fsynced and renamed over ``path`` (then the folder is fsynced); on an exception
    (KeyboardInterrupt included) the temporary file is removed and ``path`` is untouched. A
    symlink is followed (its target is replaced, the link kept); a FIFO or a device is written
    straight into, and ``-`` is standard output (not closed). A new file gets ``0o666`` less the
    umask, a replaced one keeps its mode, as with ``open()``.

    Raises
    ------
    GasError
        When ``path`` is a folder or a read-only file, or its folder is missing or not writable.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.tsv")
    >>> with atomic_open(p) as f:
    ...     _ = f.write("1\\t0.5\\n")
    >>> open(p).read()
    '1\\t0.5\\n'
    """
    if os.fspath(path) == "-":
        with _stdout(mode, **kwargs) as f:
            yield f
        return
    target = os.path.realpath(path)
    old = _stat(target)
    if old is not None and stat.S_ISDIR(old.st_mode):
        raise GasError(f"{os.fspath(path)}: is a folder, not a file; name a file (e.g. inside it)")
    if old is not None and not os.access(target, os.W_OK):  # as open(path, "w") would refuse
        raise GasError(f"{os.fspath(path)}: not writable; choose another path or fix its permissions")
    if old is not None and not stat.S_ISREG(old.st_mode):
        with _straight(target, mode, **kwargs) as f:
            yield f
        return
    folder, base = os.path.split(target)
    try:
        fd, tmp = _create_temp_file(folder, base)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        if old is not None:
            _keep_owner_and_mode(fd, old)
        with os.fdopen(fd, mode, **kwargs) as f:
            fd = -1  # owned by f now
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_folder(folder)


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike) -> Iterator[Path]:
    """Build a folder of files in a temporary folder beside ``path``, then swap it into place.

    Yields the temporary folder; on success its files' entries are fsynced and it replaces
    ``path`` (an existing folder there is moved aside, then removed; a symlink is followed), then
    the parent folder is fsynced. On an exception the temporary folder is removed and ``path`` is
    untouched. A new folder gets ``0o777`` less the umask, a replaced one keeps its mode. Missing
    parent folders are created. The caller fsyncs the files it writes.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "model")
    >>> with atomic_folder(p) as d:
    ...     _ = (d / "a.txt").write_text("x")
    >>> os.listdir(p)
    ['a.txt']
    """
    target = os.path.realpath(path)
    parent, base = os.path.split(target)
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = _create_temp_folder(parent, base)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    old_dir = None
    try:
        old = _stat(target)
        if old is not None and not stat.S_ISDIR(old.st_mode):
            raise GasError(f"{os.fspath(path)}: exists and is not a folder; name a folder (or a new path)")
        if old is not None:
            _keep_owner_and_mode(tmp, old)
        yield Path(tmp)
        fsync_folder(tmp)
        if old is not None:
            old_dir = _create_temp_folder(parent, base)
            os.replace(target, os.path.join(old_dir, "old"))
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old_dir is not None and not os.path.lexists(target):  # put the old folder back
            try:
                os.replace(os.path.join(old_dir, "old"), target)
            except OSError:
                old_dir = None  # could not: leave it where it is rather than delete it
        raise
    finally:
        if old_dir is not None:
            shutil.rmtree(old_dir, ignore_errors=True)
    fsync_folder(parent)


def _nearest_existing(path: str) -> str:
    p = path
    while not os.path.lexists(p):
        up = os.path.dirname(p)
        if up == p:
            break
        p = up
    return p


def _check_folder(shown: str, target: str) -> None:
    st = _stat(target)
    if st is not None:
        if not stat.S_ISDIR(st.st_mode):
            raise GasError(f"{shown}: exists and is not a folder; name a folder (or a new path)")
        if not os.access(target, os.W_OK | os.X_OK):
            raise GasError(
                f"{shown}: the folder is not writable; choose another folder or fix its permissions"
            )
        return
    anc = _nearest_existing(os.path.dirname(target))
    if not os.path.isdir(anc):
        raise GasError(f"{shown}: {anc} is not a folder, so the folder cannot be created there")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise GasError(f"{shown}: cannot create the folder ({anc} is not writable); choose another path")


def _check_file(shown: str, target: str) -> None:
    st = _stat(target)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise GasError(
            f"{shown}: is a folder, not a file; name a file (e.g. {os.path.join(shown, 'out.tsv')})"
        )
    if st is not None and not os.access(target, os.W_OK):  # open(path, "w") would refuse it too
        raise GasError(f"{shown}: not writable; choose another path or fix its permissions")
    if st is not None and not stat.S_ISREG(st.st_mode):  # FIFO, device: written straight into
        return
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise GasError(f"{shown}: the folder {folder} does not exist; create it first (mkdir -p)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise GasError(
            f"{shown}: the folder {folder} is not writable (the file is replaced by a rename); "
            "choose another path or fix its permissions"
        )


def check_output_path(path: str | os.PathLike, folder: bool = False) -> None:
    """Check, before any work, that an output can be written at ``path``.

    A file output (``folder=False``) may be ``-`` (standard output), a FIFO or device that is
    writable, or a regular or new file in an existing writable folder (symlinks are followed). A
    folder output (``folder=True``) may be an existing writable folder or a new path whose
    nearest existing ancestor is a writable folder (missing parents are created).

    Raises
    ------
    GasError
        A one-line message naming the path and the fix: a file path that is a folder, a missing
        or unwritable folder, a folder path that names a file.

    Examples
    --------
    >>> import tempfile
    >>> check_output_path(tempfile.gettempdir() + "/new.tsv")
    >>> check_output_path(tempfile.gettempdir())
    Traceback (most recent call last):
    ...
    gas.errors.GasError: ...: is a folder, not a file; name a file (e.g. .../out.tsv)
    """
    shown = os.fspath(path)
    if shown == "" or (shown == "-" and folder):
        raise GasError(f"Expected an output {'folder' if folder else 'path'} (got {shown!r})")
    if shown == "-":
        return
    target = os.path.realpath(shown)
    if folder:
        _check_folder(shown, target)
    else:
        _check_file(shown, target)
