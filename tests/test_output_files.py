"""Output files (issue 17 §3): symlinks, FIFOs, devices and ``-``; modes under the umask; output
paths checked before any work; no temporary file left behind; the folder fsynced after the rename.

The reference for every expectation is what ``open(path, "w")`` does with the same path (it
follows links, writes into FIFOs and devices, keeps an existing file's mode, creates new files
with 0o666 less the umask) and, for folders, ``os.mkdir`` (0o777 less the umask).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

import gas
from gas.algorithms.lda import LDAModel
from gas.algorithms.mf_model import MFModel
from gas.cli import main, write_values
from gas.io.atomic import atomic_open, check_output_path


def _graph_file(tmp_path: Path) -> Path:
    f = tmp_path / "g.tsv"
    f.write_text("".join(f"{i}\t{(i * 7 + 1) % 30}\n" for i in range(30)))
    return f


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask():
    """Set the process umask for one test (restored after)."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


# ---------------------------------------------------------------- symlinks, FIFOs, devices, "-"


def test_symlink_is_kept_and_its_target_replaced(tmp_path):
    real = tmp_path / "real.tsv"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.tsv"
    link.symlink_to("real.tsv")
    with atomic_open(link) as f:
        f.write("new\n")
    assert link.is_symlink() and os.readlink(link) == "real.tsv"  # the link is still a link
    assert real.read_text() == "new\n"  # open(link, "w") writes the target
    assert _mode(real) == 0o640  # and keeps its mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.tsv", "real.tsv"]


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.tsv"
    link.symlink_to("sub/made.tsv")
    (tmp_path / "sub").mkdir()
    write_values(str(link), np.array([5, 6]), np.array([0.5, 0.25]), "%.2f")
    assert link.is_symlink()
    assert (tmp_path / "sub" / "made.tsv").read_text() == "5\t0.50\n6\t0.25\n"


def test_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so the writer's open returns
    try:
        write_values(str(fifo), np.array([1, 2]), np.array([3, 4]), "%d")
        got = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file
    assert got == b"1\t3\n2\t4\n"


def _char_device(tmp_path: Path) -> str:
    """A null character device under tmp_path (root may mknod one); else the system's own."""
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        with open(dev, "w"):
            return str(dev)
    except OSError:
        return os.devnull


def test_character_device_stays_a_device(tmp_path, capsys):
    dev = _char_device(tmp_path)
    with atomic_open(dev) as f:
        f.write("discarded\n")
    assert stat.S_ISCHR(os.stat(dev).st_mode)
    f = _graph_file(tmp_path)
    assert main(["cc", str(f), "-q", "-o", dev]) == 0
    assert stat.S_ISCHR(os.stat(dev).st_mode)  # `gas ... -o /dev/null` as root replaced it before
    assert os.path.samefile(os.devnull, os.devnull) and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_dash_is_standard_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    f = _graph_file(tmp_path)
    assert main(["sssp", str(f), "--source", "0", "-q", "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert "0\t0\n" in out and "1\t1\n" in out  # hand-computed: edge 0 -> 1, so dist(1) = 1
    assert not (tmp_path / "-").exists()


# ---------------------------------------------------------------- modes under the umask


@pytest.mark.parametrize("mask,file_mode,folder_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_new_files_and_folders_follow_the_umask(tmp_path, umask, mask, file_mode, folder_mode):
    umask(mask)
    p = tmp_path / "out.tsv"
    write_values(str(p), np.array([1]), np.array([2.0]), "%g")
    with open(tmp_path / "ref.tsv", "w"):  # the reference: what open() gives
        pass
    assert _mode(p) == _mode(tmp_path / "ref.tsv") == file_mode
    m = MFModel(
        user_factors=np.ones((2, 1)),
        item_factors=np.ones((1, 1)),
        user_bias=np.zeros(2),
        item_bias=np.zeros(1),
        global_mean=3.0,
        user_ids=np.array([10, 20]),
        item_ids=np.array([7]),
    )
    m.save(tmp_path / "mf")
    os.mkdir(tmp_path / "ref-folder")
    assert _mode(tmp_path / "mf") == _mode(tmp_path / "ref-folder") == folder_mode
    assert {_mode(q) for q in (tmp_path / "mf").iterdir()} == {file_mode}
    lda = LDAModel(
        doc_topic=np.full((1, 2), 0.5),
        topic_word=np.full((2, 1), 1.0),
        loglik=np.zeros(1),
        loglik_iters=np.zeros(1, np.int64),
        vocab=["w"],
        alpha=0.1,
        beta=0.01,
        num_tokens=1,
        assignments=np.zeros(1, np.int32),
    )
    lda.save(tmp_path / "lda")
    assert _mode(tmp_path / "lda") == folder_mode
    assert {_mode(q) for q in (tmp_path / "lda").iterdir()} == {file_mode}


def test_replaced_file_and_model_folder_keep_their_modes(tmp_path, umask):
    umask(0o077)
    p = tmp_path / "out.tsv"
    p.write_text("old\n")
    p.chmod(0o664)
    write_values(str(p), np.array([1]), np.array([2.0]), "%g")
    assert _mode(p) == 0o664 and p.read_text() == "1\t2\n"  # as open(p, "w") would keep it
    m = MFModel(
        user_factors=np.ones((1, 1)),
        item_factors=np.ones((1, 1)),
        user_bias=np.zeros(1),
        item_bias=np.zeros(1),
        global_mean=1.0,
        user_ids=np.array([1]),
        item_ids=np.array([2]),
    )
    m.save(tmp_path / "mf")
    (tmp_path / "mf").chmod(0o750)
    m.save(tmp_path / "mf")
    assert _mode(tmp_path / "mf") == 0o750
    assert MFModel.load(tmp_path / "mf").global_mean == 1.0
    assert sorted(q.name for q in tmp_path.iterdir()) == ["mf", "out.tsv"]


# ---------------------------------------------------------------- checked before any work


def _bad_output_cases(tmp_path: Path) -> list[tuple[list[str], str]]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    afile = tmp_path / "a-file"
    afile.write_text("x\n")
    missing = tmp_path / "no-such-folder" / "out.tsv"
    # every input is absent: refused for its output path, a command has not opened its input
    # (reading it first would end on "not found" instead)
    f = absent = str(tmp_path / "absent-input")
    d, a, m = str(folder), str(afile), str(missing)
    return [
        (["pagerank", f, "-o", d], "is a folder"),
        (["cc", f, "-o", d], "is a folder"),
        (["sssp", f, "--source", "0", "-o", m], "does not exist"),
        (["coloring", f, "-o", d], "is a folder"),
        (["partition", f, "--parts", "2", "-o", d], "is a folder"),
        (["pagerank", f, "--checkpoint-dir", a], "not a folder"),
        (["resume", a], "not a folder"),
        (["resume", a, "-o", d], "is a folder"),
        (["als", absent, "--save-model", a], "not a folder"),
        (["sgd", absent, "--predict", absent, "-o", d], "is a folder"),
        (["lda", absent, "--output-topics", d], "is a folder"),
        (["lda", absent, "--save-model", a], "not a folder"),
    ]


def test_bad_output_paths_are_refused_before_any_work(tmp_path, capsys):
    for argv, why in _bad_output_cases(tmp_path):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1, (argv, err)  # one line, naming the path
        assert "loaded" not in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "a-folder"]
    assert list((tmp_path / "a-folder").iterdir()) == []


def test_unwritable_folder_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    kept = tmp_path / "read-only.tsv"
    kept.write_text("keep\n")
    if os.geteuid() == 0:  # root may write anywhere: make the check see read-only paths
        real = os.access
        no = (str(ro), str(kept))
        monkeypatch.setattr(os, "access", lambda p, m, **kw: os.fspath(p) not in no and real(p, m))
    ro.chmod(0o555)
    kept.chmod(0o444)
    try:
        f = str(_graph_file(tmp_path))
        assert main(["cc", f, "-q", "-o", str(ro / "out.tsv")]) == 2
        assert "not writable" in capsys.readouterr().err
        assert main(["cc", f, "-q", "-o", str(kept)]) == 2  # open(kept, "w") fails too
        assert "not writable" in capsys.readouterr().err and kept.read_text() == "keep\n"
        assert main(["cc", f, "-q", "--checkpoint-dir", str(ro / "ck")]) == 2
        assert "not writable" in capsys.readouterr().err
        with pytest.raises(gas.GasError, match="not writable"):
            check_output_path(ro, folder=True)
    finally:
        ro.chmod(0o755)
    assert list(ro.iterdir()) == []


def test_check_output_path_accepts_what_open_accepts(tmp_path):
    check_output_path("-")
    check_output_path(tmp_path / "new.tsv")
    check_output_path(tmp_path / "new" / "deeper", folder=True)  # parents are created
    (tmp_path / "old.tsv").write_text("x")
    check_output_path(tmp_path / "old.tsv")
    with pytest.raises(gas.GasError, match="is a folder"):
        check_output_path(tmp_path)


# ---------------------------------------------------------------- failures and durability


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, exc):
    p = tmp_path / "out.tsv"
    p.write_text("old\n")
    with pytest.raises(exc):
        with atomic_open(p) as f:
            f.write("partial" * 1000)
            raise exc()
    assert p.read_text() == "old\n"
    assert [q.name for q in tmp_path.iterdir()] == ["out.tsv"]


def test_failed_model_save_leaves_the_old_model_and_no_temporary(tmp_path, monkeypatch):
    m = MFModel(
        user_factors=np.ones((1, 1)),
        item_factors=np.ones((1, 1)),
        user_bias=np.zeros(1),
        item_bias=np.zeros(1),
        global_mean=1.0,
        user_ids=np.array([1]),
        item_ids=np.array([2]),
    )
    m.save(tmp_path / "mf")
    m.global_mean = 2.0

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        m.save(tmp_path / "mf")
    monkeypatch.undo()
    assert MFModel.load(tmp_path / "mf").global_mean == 1.0
    assert [q.name for q in tmp_path.iterdir()] == ["mf"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to name fsynced descriptors")
def test_file_then_folder_are_fsynced(tmp_path, monkeypatch):
    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    p = tmp_path / "out.tsv"
    with atomic_open(p) as f:
        f.write("x\n")
    assert len(synced) == 2
    assert os.path.basename(synced[0]).startswith(".out.tsv.")  # the data, before the rename
    assert synced[1] == str(tmp_path)  # the folder, after it


def test_launcher_ranks_other_than_0_check_only_the_snapshot_folder(tmp_path, capsys, monkeypatch):
    # under a launcher only rank 0 writes -o (its folder may exist on rank 0's host only), while
    # every rank writes snapshots
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    afile = tmp_path / "a-file"
    afile.write_text("x\n")
    missing = tmp_path / "only-on-rank-0s-host" / "out.tsv"
    argv = ["cc", str(_graph_file(tmp_path)), "-q", "-o", str(missing), "--checkpoint-dir", str(afile)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "a-file: exists and is not a folder" in err and "only-on-rank-0s-host" not in err
    monkeypatch.setenv("RANK", "0")
    assert main(argv) == 2
    assert "only-on-rank-0s-host" in capsys.readouterr().err
