"""The safe-I/O layer's promises (raidtop.safeio), each pinned on real files.

Reads end: exact size limits (the limit itself and one byte more, explicit
and the default 16 MiB), FIFOs and devices refused without blocking.
Writes never go through a link: a symlinked parent directory or target is
refused or replaced with nothing written through it. A write is whole or
absent: a full filesystem (a real, small tmpfs) raises ENOSPC and leaves no
temporary file; the file and then its directory are fsynced; no descriptor
is left open on any path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import subprocess
from pathlib import Path

import pytest

from raidtop.safeio import DEFAULT_LIMIT, UnsafeFile, atomic_write, open_directory, read_bounded, read_bounded_text

SENTINEL = b"do not touch\n"


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@contextlib.contextmanager
def no_fd_leak():
    """Fails the test when the block leaves a descriptor open that was not open before."""
    before = open_fds()
    yield
    assert open_fds() - before == set()


@pytest.fixture
def umask_zero():
    old = os.umask(0)
    yield
    os.umask(old)


def sized(path: Path, size: int) -> Path:
    with open(path, "wb") as out:
        out.truncate(size)  # sparse: reading it is cheap, its length is exact
    return path


# --- reads -----------------------------------------------------------------


def test_the_default_limit_is_16_mib():
    assert DEFAULT_LIMIT == 16_777_216


@pytest.mark.parametrize("limit", [0, 1, 100, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_refused(tmp_path: Path, limit: int):
    data = bytes(range(256)) * (limit // 256 + 1)
    exact = tmp_path / "exact"
    exact.write_bytes(data[:limit])
    assert read_bounded(exact, limit) == data[:limit]
    over = tmp_path / "over"
    over.write_bytes(data[: limit + 1])
    with no_fd_leak(), pytest.raises(UnsafeFile) as refused:
        read_bounded(over, limit)
    assert str(refused.value) == f"{over}: is larger than {limit:,} bytes; not read"
    assert refused.value.errno == errno.EINVAL and refused.value.filename == str(over)


def test_the_default_limit_reads_16_mib_and_refuses_one_byte_more(tmp_path: Path):
    assert len(read_bounded(sized(tmp_path / "exact", 16 * 1024 * 1024))) == 16 * 1024 * 1024
    assert len(read_bounded_text(tmp_path / "exact")) == 16 * 1024 * 1024
    with pytest.raises(UnsafeFile, match="larger than 16,777,216 bytes"):
        read_bounded(sized(tmp_path / "over", 16 * 1024 * 1024 + 1))
    with pytest.raises(UnsafeFile, match="larger than 16,777,216 bytes"):
        read_bounded_text(tmp_path / "over")


def test_read_bounded_text_passes_its_limit_on_and_replaces_undecodable_bytes(tmp_path: Path):
    path = tmp_path / "f"
    path.write_bytes(b"ok \xff\n")
    assert read_bounded_text(path, 5) == "ok \ufffd\n"
    with pytest.raises(UnsafeFile):
        read_bounded_text(path, 4)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with no_fd_leak(), pytest.raises(UnsafeFile, match="is a FIFO, not a regular file; not read"):
        read_bounded(fifo)


@pytest.mark.parametrize("path, kind", [("/dev/zero", "a character device"), ("/", "a directory")])
def test_devices_and_directories_are_refused(path: str, kind: str):
    with no_fd_leak(), pytest.raises(UnsafeFile, match=f"is {kind}, not a regular file"):
        read_bounded(path)


def test_a_block_device_is_refused_without_reading_it(tmp_path: Path):
    node = tmp_path / "loop0"
    os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(7, 0))  # /dev/loop0's numbers; nothing is read from it
    try:
        with no_fd_leak(), pytest.raises(UnsafeFile, match="is a block device, not a regular file; not read"):
            read_bounded(node)
    except OSError as exc:
        if isinstance(exc, UnsafeFile):
            raise
        pytest.skip(f"no loop device 0 to open here: {exc}")


def test_a_socket_cannot_even_be_opened(tmp_path: Path):
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        with no_fd_leak(), pytest.raises(OSError) as refused:
            read_bounded(tmp_path / "sock")
    assert refused.value.errno == errno.ENXIO


def test_reads_start_at_16_kib_double_to_one_mib_and_ask_one_byte_past_the_limit(tmp_path: Path, monkeypatch):
    # The memory bound: never more than limit + 1 bytes asked for, a small file read with a small buffer.
    path = sized(tmp_path / "f", 3 << 20)
    real_read, asked = os.read, []

    def read(fd, n):
        asked.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", read)
    assert read_bounded(path, 3 << 20) == path.read_bytes()
    kib = 1024
    doubling = [16 * kib, 32 * kib, 64 * kib, 128 * kib, 256 * kib, 512 * kib]  # 1008 KiB
    assert asked == [*doubling, 1 << 20, 1 << 20, (3 << 20) - (1008 * kib) - (2 << 20) + 1, 1]
    asked.clear()
    with pytest.raises(UnsafeFile):
        read_bounded(path, (2 << 20) + 5)
    assert asked == [*doubling, 1 << 20, (2 << 20) + 6 - (1008 * kib) - (1 << 20)]
    asked.clear()
    small = sized(tmp_path / "small", 3000)
    assert read_bounded(small) == small.read_bytes()
    assert asked == [16 * kib, 32 * kib]  # the short read, then the read that finds the end


def counted_reads(monkeypatch) -> list[int]:
    """The sizes os.read is asked for from here on (the real read still runs)."""
    real_read, asked = os.read, []

    def read(fd, n):
        asked.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", read)
    return asked


def test_a_single_record_proc_file_is_read_whole_with_one_read(monkeypatch):
    # /proc/self/status is a procfs single-record file: its first read gives all of it.
    whole = read_bounded("/proc/self/status")
    asked = counted_reads(monkeypatch)
    one = read_bounded("/proc/self/status", single_record=True)
    assert asked == [4096]  # a record of a few hundred bytes: a small buffer
    assert one.splitlines()[0] == whole.splitlines()[0] and one.endswith(b"\n") and b"VmRSS:" in one
    asked.clear()
    read_bounded("/proc/self/status")
    assert len(asked) == 2  # without the hint: the read that returns nothing too


def test_a_single_record_read_that_fills_what_it_asked_for_goes_on_to_the_end(tmp_path: Path, monkeypatch):
    # A full first read says nothing about the end: the file is read whole, as without the hint.
    path = sized(tmp_path / "f", 64 * 1024 + 10)
    asked = counted_reads(monkeypatch)
    assert read_bounded(path, 64 * 1024 + 10, single_record=True) == path.read_bytes()
    assert asked == [4096, 8192, 16384, 32768, 4096 + 11]  # and its short last read ends it


def test_a_single_record_read_keeps_the_limit_and_the_refusals(tmp_path: Path):
    path = sized(tmp_path / "f", 100)
    with pytest.raises(UnsafeFile):
        read_bounded(path, 99, single_record=True)
    os.mkfifo(tmp_path / "fifo")
    with no_fd_leak(), pytest.raises(UnsafeFile):
        read_bounded(tmp_path / "fifo", single_record=True)


def test_a_symlink_is_followed_only_when_allowed(tmp_path: Path):
    (tmp_path / "real").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_bounded(tmp_path / "link") == b"x"
    assert read_bounded_text(tmp_path / "link") == "x"
    for read in (read_bounded, read_bounded_text):
        with no_fd_leak(), pytest.raises(UnsafeFile, match="is a symbolic link; raidtop does not follow it"):
            read(tmp_path / "link", follow_links=False)


def test_read_relative_to_a_directory_descriptor(tmp_path: Path):
    (tmp_path / "f").write_bytes(b"inside")
    fd = open_directory(tmp_path)
    try:
        assert read_bounded("f", dir_fd=fd) == b"inside"
    finally:
        os.close(fd)


def test_a_missing_file_raises_the_systems_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing", follow_links=False)


# --- directories -------------------------------------------------------------


def test_open_directory_refuses_a_symlink_unless_told(tmp_path: Path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with no_fd_leak(), pytest.raises(UnsafeFile, match="link: is a symbolic link; raidtop does not follow it"):
        open_directory(tmp_path / "link")
    fd = open_directory(tmp_path / "link", follow_links=True)
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(tmp_path / "real"))
    finally:
        os.close(fd)


def test_open_directory_gives_a_directory_descriptor_and_the_systems_errors(tmp_path: Path):
    fd = open_directory(tmp_path)
    try:
        assert stat.S_ISDIR(os.fstat(fd).st_mode)
        assert os.path.samestat(os.fstat(fd), os.stat(tmp_path))
    finally:
        os.close(fd)
    (tmp_path / "file").write_bytes(b"")
    with no_fd_leak(), pytest.raises(NotADirectoryError):
        open_directory(tmp_path / "file")
    with pytest.raises(FileNotFoundError):
        open_directory(tmp_path / "missing")


# --- atomic writes -----------------------------------------------------------


def test_atomic_write_writes_text_as_utf8_and_bytes_as_they_are(tmp_path: Path):
    with no_fd_leak():
        assert atomic_write(tmp_path / "t", "é\n") == tmp_path / "t"
        assert atomic_write(str(tmp_path / "b"), b"\xff\x00") == tmp_path / "b"
    assert (tmp_path / "t").read_bytes() == b"\xc3\xa9\n"
    assert (tmp_path / "b").read_bytes() == b"\xff\x00"
    assert sorted(os.listdir(tmp_path)) == ["b", "t"]  # no temporary file left


def test_atomic_write_replaces_old_content_whole(tmp_path: Path):
    target = tmp_path / "f"
    target.write_bytes(b"old content, longer than the new")
    payload = os.urandom(3 * 1024 * 1024 + 7)
    atomic_write(target, payload)
    assert target.read_bytes() == payload
    atomic_write(target, b"")
    assert target.read_bytes() == b""


def test_the_created_file_has_the_mode_asked_for(tmp_path: Path, umask_zero):
    atomic_write(tmp_path / "default", b"x")
    atomic_write(tmp_path / "private", b"x", mode=0o600)
    assert stat.S_IMODE(os.stat(tmp_path / "default").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "private").st_mode) == 0o600


def test_missing_parents_are_created_private(tmp_path: Path, umask_zero):
    target = tmp_path / "a" / "b" / "f"
    atomic_write(target, b"x")
    assert target.read_bytes() == b"x"
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "b").st_mode) == 0o700


def test_a_symlinked_parent_directory_is_refused_and_nothing_created(tmp_path: Path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with no_fd_leak(), pytest.raises(UnsafeFile, match="is a symbolic link"):
        atomic_write(tmp_path / "link" / "f", b"planted")
    assert os.listdir(real) == []


def test_a_symlinked_target_is_replaced_and_nothing_written_through_it(tmp_path: Path):
    victim = tmp_path / "victim"
    victim.write_bytes(SENTINEL)
    link = tmp_path / "out"
    link.symlink_to(victim)
    with no_fd_leak():
        atomic_write(link, b"new")
    assert victim.read_bytes() == SENTINEL
    assert not link.is_symlink() and link.read_bytes() == b"new"


def test_a_stale_temporary_file_is_replaced(tmp_path: Path):
    stale = tmp_path / f".f.{os.getpid()}.tmp"
    stale.write_bytes(b"left by a crash")
    atomic_write(tmp_path / "f", b"new")
    assert (tmp_path / "f").read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["f"]


def test_a_planted_link_as_the_temporary_file_is_not_written_through(tmp_path: Path):
    victim = tmp_path / "victim"
    victim.write_bytes(SENTINEL)
    (tmp_path / f".f.{os.getpid()}.tmp").symlink_to(victim)
    atomic_write(tmp_path / "f", b"new")
    assert victim.read_bytes() == SENTINEL and (tmp_path / "f").read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["f", "victim"]


@pytest.fixture
def small_tmpfs(tmp_path: Path):
    """A real 64 KiB tmpfs, so a write fails with the kernel's own ENOSPC."""
    mount = tmp_path / "full"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if made.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({made.stderr.decode().strip()}); "
            "test_a_failed_write_is_raised_without_tmpfs covers the path"
        )
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_enospc_on_a_full_filesystem_is_raised_and_leaves_no_temporary_file(small_tmpfs: Path):
    target = small_tmpfs / "f"
    target.write_bytes(SENTINEL)
    with no_fd_leak(), pytest.raises(OSError) as failed:
        atomic_write(target, b"x" * (1024 * 1024))
    assert failed.value.errno == errno.ENOSPC
    assert os.listdir(small_tmpfs) == ["f"] and target.read_bytes() == SENTINEL


def test_a_failed_write_is_raised_without_tmpfs(tmp_path: Path, monkeypatch):
    # The same path as the tmpfs test for machines that cannot mount one:
    # the kernel's ENOSPC injected on the second write.
    real_write, calls = os.write, []

    def write(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data[:1000])

    target = tmp_path / "f"
    target.write_bytes(SENTINEL)
    monkeypatch.setattr(os, "write", write)
    with no_fd_leak(), pytest.raises(OSError) as failed:
        atomic_write(target, b"x" * 5000)
    assert failed.value.errno == errno.ENOSPC and calls == [5000, 4000]
    assert os.listdir(tmp_path) == ["f"] and target.read_bytes() == SENTINEL


def test_a_failed_rename_leaves_no_temporary_file(tmp_path: Path):
    target = tmp_path / "f"
    target.mkdir()
    (target / "keep").write_bytes(SENTINEL)  # a non-empty directory cannot be renamed over
    with no_fd_leak(), pytest.raises(OSError):
        atomic_write(target, b"new")
    assert os.listdir(tmp_path) == ["f"] and (target / "keep").read_bytes() == SENTINEL


def test_the_file_is_fsynced_before_the_rename_and_the_directory_after(tmp_path: Path, monkeypatch):
    # A spy over the real fsync: what was synced, and what the target held then.
    target = tmp_path / "f"
    target.write_bytes(b"old")
    real_fsync, synced = os.fsync, []

    def fsync(fd):
        kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        synced.append((kind, os.path.samestat(os.fstat(fd), os.stat(tmp_path)), target.read_bytes()))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    atomic_write(target, b"new")
    assert synced == [("file", False, b"old"), ("dir", True, b"new")]
