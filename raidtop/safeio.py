"""Reading and writing files that raidtop does not control, safely.

Every file raidtop reads may be something other than it looks: a FIFO that
never answers (a read blocks forever), a character device such as /dev/zero
(a read never ends), or a file far larger than any real one. And every file
raidtop writes may sit behind a symlink planted by someone else. This module
is the one place those cases are handled:

* :func:`read_bounded` opens without blocking, refuses anything that is not a
  regular file (sysfs and procfs attributes are regular files), and stops at a
  size cap, so a read always ends and ends soon.
* :func:`atomic_write` writes a whole file or nothing: a fresh temporary file
  created with ``O_EXCL|O_NOFOLLOW`` inside a directory opened with
  ``O_NOFOLLOW``, fsynced, renamed over the target, and the directory fsynced,
  so a crash leaves the old content or the new one and a link is never
  followed.

No Textual, no Rich: collect/ and actions/ use it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

DEFAULT_LIMIT = 16 * 1024 * 1024
"""Bytes read at most from a file by default: /proc/diskstats with 10,000
devices is about 1.5 MB, so 16 MiB is far beyond any real input."""

FIRST_READ = 16 * 1024
"""Bytes asked for by a file's first read; each further read asks twice as many, up to :data:`LARGEST_READ`.

A read is a buffer of the size asked for, cut to what came: most files read
here are a few KB (/proc/stat, meminfo, vmstat, sysfs attributes), and 1 MiB
asked each time had malloc lay a megabyte a read across its heap, whose pages
a long run left resident one by one. /proc/diskstats at 500 devices (55 KB)
takes three reads and the one that finds its end.
"""
LARGEST_READ = 1024 * 1024
"""Bytes asked for by one read at most."""
FIRST_RECORD_READ = 4 * 1024
"""The first read of a single-record file: procfs' per-process files are a few hundred bytes to 2 KB."""


class UnsafeFile(OSError):
    """A file raidtop refuses to read or write; ``str()`` is one sentence."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(errno.EINVAL, reason, os.fspath(path))
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.filename}: {self.reason}"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a directory"
    # Nothing else can be open here: open(2) fails on a socket (ENXIO) and,
    # with O_NOFOLLOW, on a link (ELOOP); it follows a link otherwise.
    return "not a regular file"


def open_store(path: str | os.PathLike[str], own_table: str) -> sqlite3.Connection:
    """Connect to raidtop's SQLite store at ``path``, refusing what is not its own.

    SQLite follows links when it opens: a planted link at a store's path
    would have raidtop write its tables into another program's database. A
    symbolic link or anything but a regular file is refused before opening,
    and a database that has tables but not ``own_table`` is another
    program's: refused too. Raises :class:`UnsafeFile`.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISLNK(mode):
        raise UnsafeFile(path, "is a symbolic link; raidtop does not follow it")
    if mode is not None and not stat.S_ISREG(mode):
        raise UnsafeFile(path, f"is {_kind(mode)}, not a database file")
    import sqlite3  # here, not at the top: the dashboard reads files through this module and never a store

    connection = sqlite3.connect(path, timeout=10)
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and own_table not in tables:
        connection.close()
        raise UnsafeFile(path, f"is another program's database (it has no {own_table} table); raidtop leaves it alone")
    return connection


def read_bounded(
    path: str | os.PathLike[str],
    limit: int = DEFAULT_LIMIT,
    *,
    follow_links: bool = True,
    dir_fd: int | None = None,
    single_record: bool = False,
) -> bytes:
    """Read a whole regular file of at most ``limit`` bytes.

    Raises :class:`UnsafeFile` (an ``OSError``) for a FIFO, device or
    directory, or a file longer than ``limit``; any other ``OSError`` as the
    system raised it. ``follow_links=False`` refuses a symlink as the last
    component (``O_NOFOLLOW``).

    ``single_record=True`` says the file is one the kernel writes as a single
    record (procfs' per-process files: /proc/PID/io, stat, status, cgroup), so
    its first read hands over all of it and a read shorter than asked is its
    end: the read that would return nothing is not made. That read is about
    a sixth of a process's cost in the Processes panel. Not for
    multi-record files (/proc/mounts, /proc/diskstats): there the kernel
    stops a read at a page and the next read goes on.
    """
    fd = open_regular(path, follow_links=follow_links, dir_fd=dir_fd)
    try:
        chunks: list[bytes] = []
        total, want = 0, FIRST_RECORD_READ if single_record else FIRST_READ
        while True:
            asked = min(want, limit + 1 - total)
            chunk = os.read(fd, asked)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            want = min(2 * want, LARGEST_READ)
            if total > limit:
                raise UnsafeFile(path, f"is larger than {limit:,} bytes; not read")
            if single_record and len(chunk) < asked:
                break
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_regular(path: str | os.PathLike[str], *, follow_links: bool = True, dir_fd: int | None = None) -> int:
    """Open a regular file to read without blocking; the descriptor (the caller closes it).

    Raises :class:`UnsafeFile` for a FIFO, device or directory (closed again)
    and, with ``follow_links=False``, for a symbolic link; any other
    ``OSError`` as the system raised it.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    if not follow_links:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise UnsafeFile(path, "is a symbolic link; raidtop does not follow it") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafeFile(path, f"is {_kind(mode)}, not a regular file; not read")
    return fd


def read_bounded_text(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT, *, follow_links: bool = True) -> str:
    """:func:`read_bounded` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_bounded(path, limit, follow_links=follow_links).decode("utf-8", "replace")


def open_directory(path: str | os.PathLike[str], *, follow_links: bool = False) -> int:
    """Open a directory to create files in with ``dir_fd``; refuse a symlink unless told.

    The caller closes the descriptor.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    if not follow_links:
        flags |= os.O_NOFOLLOW
    try:
        return os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and not follow_links and os.path.islink(path):
            raise UnsafeFile(path, "is a symbolic link; raidtop does not follow it") from None
        raise


def atomic_write(path: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> Path:
    """Replace ``path`` with ``data`` atomically and durably; return the path.

    The parent directory is created if missing (mode 0700) and opened without
    following a link in its last component; the temporary file is created
    with ``O_EXCL|O_NOFOLLOW`` so nothing already there is opened; the file
    and then the directory are fsynced, so after a crash the target holds the
    old content or the new, never a mix. A symlink at ``path`` itself is
    replaced by the file, never followed.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    dir_fd = open_directory(target.parent)
    try:
        tmp_name = f".{target.name}.{os.getpid()}.tmp"
        try:
            os.unlink(tmp_name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
        try:
            view = memoryview(payload)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(tmp_name, dir_fd=dir_fd)
            raise
        os.close(fd)
        try:
            os.rename(tmp_name, target.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.unlink(tmp_name, dir_fd=dir_fd)  # a failed rename must not leave the temporary file behind
            raise
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return target
