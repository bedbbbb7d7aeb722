"""What a benchmark may target, checked before fio ever starts.

A target is either a directory (fio writes one test file there, after the free
space is checked) or a raw block device. fio on a raw device destroys what is
on it, so a device is refused unless raidtop's lab created it
(:func:`raidtop.actions.lab_registry.is_lab_device`) or the user passed an
override naming that very device; and whatever the override says, a device is
refused while it or one of its partitions is mounted, is an md member (sysfs
``holders/`` or /proc/mdstat), is held by device-mapper, or is in use as swap.
The same rules apply to read-only presets: benchmarking a disk someone is
using measures them as much as it, and asking first costs one flag.

These checks read paths; the run itself opens the target and hands fio a
descriptor (:mod:`.opened`), so what fio writes is what was checked.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.opened import (
    FREE_SPACE_HEADROOM,
    PRIVATE_DIR_NAME,
    TEST_FILE_NAME,
    TargetRefused,
    inspect_directory,
    open_directory_fd,
    try_lock,
)
from raidtop.actions.fio.stack import (
    block_device_of_path,
    device_number,
    holders,
    is_partition,
    partitions,
    read_mounts,
)
from raidtop.actions.lab_registry import is_lab_device
from raidtop.collect.md.mdstat import parse_mdstat
from raidtop.collect.source import Root, as_root

MIN_SIZE = 1024 * 1024
"""The smallest test file: below 1 MiB a run measures the page cache and fio's set-up, not storage."""

_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$", re.IGNORECASE)


@frozen_dataclass
class BenchTarget:
    """A target that passed every check."""

    path: str
    """Absolute path as the user gave it (``/srv/test``, ``/dev/loop7``)."""
    kind: str
    """``directory`` or ``device``."""
    device: str | None = None
    """Kernel name: the raw device, or the device the directory's filesystem is on."""
    test_file: str | None = None
    """For a directory: the file fio uses (inside raidtop's private directory)."""
    lab: bool = False
    """True for a device raidtop's lab created."""
    override: bool = False
    """True when a raw device was allowed by an explicit override."""
    identity: tuple[int, int] | None = None
    """For a directory: ``(st_dev, st_ino)`` of the directory checked; a run refuses any other."""
    real_path: str | None = None
    """For a directory: the kernel's name for it, when that differs from ``path``."""

    @property
    def shown_filename(self) -> str:
        """fio's ``--filename`` as the user reads it; fio itself gets the descriptor raidtop opened."""
        return self.test_file or self.path


def parse_size(text: str) -> int:
    """fio's size syntax in bytes (``64M``, ``1G``, ``512k``; powers of 1024)."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def test_file_bytes(size: str | int) -> int:
    """The test-file size in bytes, or :class:`TargetRefused` when it is not a sensible one."""
    try:
        wanted = size if isinstance(size, int) else parse_size(size)
    except ValueError:
        raise TargetRefused(f"the test-file size must look like 512M or 2G, not {size!r}") from None
    if wanted < MIN_SIZE:
        raise TargetRefused(
            f"the test-file size must be at least 1M (a smaller file measures the page cache), not {size!r}"
        )
    return wanted


def same_device(root: Root, named: str, device: str) -> bool:
    """True when ``named`` (``loop7``, ``/dev/loop7``, a /dev/disk/by-id link) is ``device``."""
    if os.path.sep in named:
        try:
            st = os.stat(named)
        except OSError:
            return os.path.basename(named) == device
        if stat.S_ISBLK(st.st_mode):
            number = device_number(root, device)
            return number == (os.major(st.st_rdev), os.minor(st.st_rdev))
        return False
    return named == device


def device_in_use(root: Root | str, name: str) -> str | None:
    """Why ``name`` must not be written raw (mounted, md member, held, swap), or ``None``.

    A whole disk is in use when any of its partitions is.
    """
    root = as_root(root)
    names = [name] + ([] if is_partition(root, name) else partitions(root, name))
    numbers = {n: device_number(root, n) for n in names}
    for entry in read_mounts(root):
        for n in names:
            source = entry.source
            by_source = source.startswith("/dev/") and os.path.basename(source) == os.path.basename(n)
            if numbers[n] == (entry.major, entry.minor) or by_source:
                what = name if n == name else f"{name} (partition {n})"
                return f"{what} is mounted on {entry.mount_point}"
    mdstat_text = root.read_optional("/proc/mdstat")
    md_members: dict[str, str] = {}
    if mdstat_text:
        arrays, _ = parse_mdstat(mdstat_text)
        md_members = {m.name: a.name for a in arrays for m in a.members}
    for n in names:
        what = name if n == name else f"{name} (partition {n})"
        held = holders(root, n)
        md = [h for h in held if h.startswith("md")]
        if md:
            return f"{what} is a member of md array {md[0]}"
        if n in md_members:
            return f"{what} is a member of md array {md_members[n]} (/proc/mdstat)"
        if held:
            return f"{what} is in use by {held[0]}"
    swaps = root.read_optional("/proc/swaps") or ""
    for line in swaps.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 2 or parts[1] != "partition":
            continue
        swap_dev = os.path.basename(os.path.realpath(parts[0]) if root.is_live else parts[0])
        for n in names:
            if swap_dev == os.path.basename(n):
                what = name if n == name else f"{name} (partition {n})"
                return f"{what} is in use as swap"
    return None


def check_target(
    path: str | os.PathLike[str],
    *,
    size: str | int = MIN_SIZE,
    allow_raw_device: str | None = None,
    root: Root | str = "/",
    registry: Path | None = None,
) -> BenchTarget:
    """Accept ``path`` as a benchmark target or raise :class:`TargetRefused`.

    ``size`` (bytes or fio syntax) is the test file a directory target needs;
    ``allow_raw_device`` must name the device itself for a raw device that
    raidtop's lab did not create. A directory given through a symlink is
    refused (the link's owner could repoint it); a device may be (``/dev/disk/by-id``).
    """
    root = as_root(root)
    text = os.fspath(path)
    if not text:
        raise TargetRefused("no target: choose a directory (a test file is written there) or a lab block device")
    absolute = os.path.abspath(os.path.expanduser(text))
    try:
        st = os.stat(absolute)
    except FileNotFoundError:
        raise TargetRefused(f"{absolute} does not exist") from None
    except OSError as exc:
        raise TargetRefused(f"{absolute}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        return _check_directory(absolute, size, root)
    if stat.S_ISBLK(st.st_mode):
        return _check_device(absolute, allow_raw_device, root, registry)
    raise TargetRefused(f"{absolute} is neither a directory nor a block device")


def _check_directory(directory: str, size: str | int, root: Root) -> BenchTarget:
    wanted = test_file_bytes(size)
    fd = open_directory_fd(directory)
    try:
        # A probe only (the run itself takes the lock and holds it), first: a running
        # benchmark's own directory must not read as a leftover.
        try_lock(fd, directory)
        facts = inspect_directory(fd, directory, wanted)
    finally:
        os.close(fd)
    test_file = os.path.join(directory, PRIVATE_DIR_NAME, TEST_FILE_NAME)
    real = facts.real_path if facts.real_path != directory else None
    return BenchTarget(
        directory,
        "directory",
        block_device_of_path(directory, root),
        test_file,
        identity=facts.identity,
        real_path=real,
    )


def _check_device(path: str, allow: str | None, root: Root, registry: Path | None) -> BenchTarget:
    name = block_device_of_path(path, root)
    if name is None:
        raise TargetRefused(f"{path}: the kernel does not list this block device in /sys/dev/block")
    return check_device(path, name, allow_raw_device=allow, root=root, registry=registry)


def check_device(
    path: str, name: str, *, allow_raw_device: str | None = None, root: Root | str = "/", registry: Path | None = None
) -> BenchTarget:
    """Accept the raw device ``name`` (opened as ``path``) or raise :class:`TargetRefused`."""
    root = as_root(root)
    allow = allow_raw_device
    busy = device_in_use(root, name)
    if busy:
        raise TargetRefused(f"refused: {busy}; fio would destroy what is on it")
    if is_lab_device(name, path=registry, root=root):
        return BenchTarget(path, "device", name, lab=True)
    if allow is None:
        raise TargetRefused(
            f"refused: {path} ({name}) is a raw device raidtop's lab did not create; "
            f"fio would destroy its data. To benchmark it anyway, pass an override naming it ({name})"
        )
    if not same_device(root, allow, name):
        raise TargetRefused(f"refused: the override names {allow}, but the target is {path} ({name})")
    return BenchTarget(path, "device", name, override=True)


__all__ = [
    "FREE_SPACE_HEADROOM",
    "MIN_SIZE",
    "BenchTarget",
    "TargetRefused",
    "check_device",
    "check_target",
    "device_in_use",
    "parse_size",
    "same_device",
    "test_file_bytes",
]
