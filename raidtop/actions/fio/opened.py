"""The benchmark target as raidtop opens it: fio gets a descriptor, never a path to misread.

A path string is checked once and opened later by someone else: a symlink
planted in between (``DIR/raidtop-bench.dat -> /dev/sda``) or a ``:`` that fio
reads as a list separator (``/dev/disk/by-path/pci-0000:00:1f.2-ata-1``) sends
fio somewhere the guards never looked. So raidtop opens the target itself and
hands fio ``/proc/self/fd/N``, which names exactly the inode raidtop checked:

* a directory is opened with ``O_DIRECTORY|O_NOFOLLOW``, checked (filesystem
  type, read-only flag, free space with ``fstatvfs``), locked with ``flock``,
  and raidtop makes a private directory in it (``mkdir`` fails on anything
  already there, mode 0700 so nobody else can plant a link inside). fio gets
  ``/proc/self/fd/N/raidtop-bench.dat`` in that private directory and lays
  the file out itself, as it always does.
* a raw device is opened ``O_EXCL`` (the kernel refuses while it is mounted,
  an md member or held by device-mapper, and refuses a mount or an array
  assembly while raidtop holds it) and its ``st_rdev`` must be the device the
  guards approved.

Cleanup removes the test file inside the private directory and the private
directory itself only while its inode is the one raidtop created.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from dataclasses import dataclass, field

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.stack import parse_mountinfo
from raidtop.model.units import size as _size
from raidtop.safeio import read_bounded_text

PRIVATE_DIR_NAME = "raidtop-bench.d"
"""The directory raidtop creates inside a directory target (mode 0700)."""
TEST_FILE_NAME = "raidtop-bench.dat"
"""The file fio writes inside :data:`PRIVATE_DIR_NAME`."""
FREE_SPACE_HEADROOM = 64 * 1024 * 1024
"""Bytes left free beyond the test file, so a benchmark never fills a filesystem
(a tenth of the filesystem when that is less)."""
PSEUDO_FILESYSTEMS = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "bpf",
        "configfs",
        "efivarfs",
        "mqueue",
        "hugetlbfs",
        "fusectl",
        "binfmt_misc",
        "autofs",
        "rpc_pipefs",
        "nfsd",
        "selinuxfs",
        "smackfs",
        "nsfs",
        "ramfs",
    }
)
"""Filesystem types that hold kernel objects, not files: never a place for a test file."""
SYSTEM_TREES = ("/dev", "/proc", "/sys")
"""Directories refused whatever their filesystem (a container's /dev is a plain tmpfs)."""


class TargetRefused(Exception):
    """The benchmark may not run (its target or its job); ``str()`` says why in one sentence."""


@frozen_dataclass
class DirectoryFacts:
    """What raidtop found when it opened a directory target."""

    identity: tuple[int, int]
    """``(st_dev, st_ino)`` of the directory opened."""
    real_path: str
    """The kernel's name for the directory opened (``/proc/self/fd/N``)."""
    fstype: str | None
    free: int
    spare: int


def open_directory_fd(path: str) -> int:
    """``path`` opened ``O_DIRECTORY|O_NOFOLLOW``; a link as its last component is refused."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(path):
            raise TargetRefused(
                f"{path} is a symbolic link: give the directory itself, raidtop does not follow links"
            ) from None
        raise TargetRefused(f"{path}: {exc.strerror}") from None


def _fstype(fd: int, real_path: str, st_dev: int) -> str | None:
    try:
        mounts = parse_mountinfo(read_bounded_text("/proc/self/mountinfo"))
    except OSError as exc:
        raise TargetRefused(
            f"cannot read /proc/self/mountinfo ({exc.strerror or exc}): raidtop needs /proc to hand fio the target"
        ) from None
    number = (os.major(st_dev), os.minor(st_dev))
    by_dev = [m for m in mounts if (m.major, m.minor) == number]
    if by_dev:
        return by_dev[-1].fstype
    # btrfs subvolumes have device numbers mountinfo does not list: take the covering mount.
    best = None
    for entry in mounts:
        point = entry.mount_point
        under = point == "/" or real_path == point or real_path.startswith(point.rstrip("/") + "/")
        if under and (best is None or len(point) >= len(best.mount_point)):
            best = entry
    return best.fstype if best else None


def inspect_directory(fd: int, path: str, size: int) -> DirectoryFacts:
    """Check an open directory for a ``size``-byte test file; raise :class:`TargetRefused`."""
    st = os.fstat(fd)
    try:
        real_path = os.readlink(f"/proc/self/fd/{fd}")
    except OSError as exc:
        raise TargetRefused(
            f"cannot read /proc/self/fd ({exc.strerror}): raidtop needs /proc to hand fio the target"
        ) from None
    for tree in SYSTEM_TREES:
        if real_path == tree or real_path.startswith(tree + "/"):
            raise TargetRefused(
                f"{path} is in {tree}, which holds the system's devices and kernel state: no place for a test file"
            )
    fstype = _fstype(fd, real_path, st.st_dev)
    if fstype in PSEUDO_FILESYSTEMS:
        raise TargetRefused(f"{path} is on a {fstype} filesystem, which holds kernel objects: no place for a test file")
    vfs = os.fstatvfs(fd)
    if vfs.f_flag & os.ST_RDONLY:
        raise TargetRefused(f"{path} is on a read-only filesystem")
    if not os.access(f"/proc/self/fd/{fd}", os.W_OK | os.X_OK):
        raise TargetRefused(f"{path} is not writable")
    free = vfs.f_bavail * vfs.f_frsize
    spare = min(FREE_SPACE_HEADROOM, vfs.f_blocks * vfs.f_frsize // 10)
    if free < size + spare:
        raise TargetRefused(
            f"{path}: not enough free space for a {_size(size, spoken=True)} test file "
            f"({_size(free, spoken=True)} free, {_size(size + spare, spoken=True)} needed "
            f"with {_size(spare, spoken=True)} to spare)"
        )
    try:
        os.stat(PRIVATE_DIR_NAME, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise TargetRefused(f"{path}/{PRIVATE_DIR_NAME}: {exc.strerror}") from None
    else:
        # A fixed name, refused when present: a leftover from a killed run stays visible
        # instead of piling up under fresh names, and raidtop never reuses what it did not make.
        raise TargetRefused(
            f"{os.path.join(path, PRIVATE_DIR_NAME)} already exists "
            "(left by a benchmark that was killed, or not raidtop's): "
            "check it and remove it; raidtop neither writes into nor deletes what it did not create"
        )
    return DirectoryFacts((st.st_dev, st.st_ino), real_path, fstype, free, spare)


def try_lock(fd: int, what: str) -> None:
    """Take an exclusive ``flock`` on ``fd`` or raise :class:`TargetRefused` naming ``what``."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise TargetRefused(f"another raidtop benchmark is running on {what}; wait for it to finish") from None


@dataclass
class OpenTarget:
    """A target held open (and locked) for one or more fio runs; :meth:`close` cleans up.

    ``fio_filename`` is what fio's ``--filename`` gets and ``pass_fds`` the
    descriptors fio must inherit for it to mean anything.
    """

    kind: str
    path: str
    fio_filename: str
    pass_fds: tuple[int, ...]
    shown_filename: str
    _fds: list[int] = field(default_factory=list)
    _private: tuple[int, int] | None = None
    """``(st_dev, st_ino)`` of the private directory raidtop made."""

    def __enter__(self) -> OpenTarget:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove what raidtop created (directories), release the lock, close the descriptors."""
        if self.kind == "directory" and self._private is not None and len(self._fds) == 2:
            parent, private = self._fds
            _remove_private(parent, private, self._private)
            self._private = None
        for fd in self._fds:
            try:
                os.close(fd)  # closing the last descriptor releases the flock
            except OSError:
                pass
        self._fds = []


def _remove_private(parent: int, private: int, identity: tuple[int, int]) -> None:
    # Only fio writes in the private directory (mode 0700, raidtop's own): what is there is the test file.
    try:
        names = os.listdir(private)
    except OSError:
        names = []
    for name in names:
        try:
            if not stat.S_ISDIR(os.stat(name, dir_fd=private, follow_symlinks=False).st_mode):
                os.unlink(name, dir_fd=private)
        except OSError:
            pass
    try:
        st = os.stat(PRIVATE_DIR_NAME, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return  # renamed or removed by someone else: not ours to chase
    if (st.st_dev, st.st_ino) == identity:
        try:
            os.rmdir(PRIVATE_DIR_NAME, dir_fd=parent)
        except OSError:
            pass


def open_directory_target(path: str, size: int, identity: tuple[int, int] | None = None) -> OpenTarget:
    """Open, check, lock a directory target and make the private directory fio writes in.

    ``identity`` is the ``(st_dev, st_ino)`` the plan checked: a directory
    swapped in since is refused.
    """
    fd = open_directory_fd(path)
    try:
        st = os.fstat(fd)
        if identity is not None and (st.st_dev, st.st_ino) != identity:
            raise TargetRefused(f"{path} is no longer the directory that was checked; plan the run again")
        try_lock(fd, path)
        inspect_directory(fd, path, size)
        try:
            os.mkdir(PRIVATE_DIR_NAME, 0o700, dir_fd=fd)
        except OSError as exc:
            raise TargetRefused(f"{os.path.join(path, PRIVATE_DIR_NAME)}: cannot be created ({exc.strerror})") from None
        private = os.open(PRIVATE_DIR_NAME, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except BaseException:
        os.close(fd)
        raise
    made = os.fstat(private)
    opened = OpenTarget(
        "directory",
        path,
        f"/proc/self/fd/{private}/{TEST_FILE_NAME}",
        (private,),
        os.path.join(path, PRIVATE_DIR_NAME, TEST_FILE_NAME),
        [fd, private],
        (made.st_dev, made.st_ino),
    )
    return opened


def open_device_target(path: str, number: tuple[int, int] | None) -> OpenTarget:
    """Open the raw device ``path`` exclusively; it must be device ``number`` (major, minor)."""
    try:
        # Non-blocking: a FIFO swapped in since the check would otherwise wait for a writer forever.
        fd = os.open(path, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            raise TargetRefused(
                f"{path} is busy: it is mounted, in an array, held by device-mapper or benchmarked by another raidtop"
            ) from None
        raise TargetRefused(f"{path}: {exc.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISBLK(st.st_mode) or number is None or (os.major(st.st_rdev), os.minor(st.st_rdev)) != number:
        os.close(fd)
        raise TargetRefused(f"{path} is no longer the block device that was checked; plan the run again")
    return OpenTarget("device", path, f"/proc/self/fd/{fd}", (fd,), path, [fd])


__all__ = [
    "FREE_SPACE_HEADROOM",
    "OpenTarget",
    "PRIVATE_DIR_NAME",
    "PSEUDO_FILESYSTEMS",
    "TEST_FILE_NAME",
    "TargetRefused",
    "inspect_directory",
    "open_device_target",
    "open_directory_fd",
    "open_directory_target",
    "try_lock",
]
