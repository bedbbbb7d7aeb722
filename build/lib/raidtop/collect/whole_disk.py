"""Which physical disks sit under a block device: the ones smartctl can ask.

SMART lives on the whole disk, never on a partition, a dm or md device, a
loop or zram device. An md member may be ``sdb1`` (a partition), ``dm-3``
(LUKS or LVM over ``sdc2``) or a whole disk; this walks sysfs down to the
disks: a partition's parent, a dm/md device's ``slaves/`` recursively. A
loop, zram or ram device has no physical disk under it (a loop device's
backing file lives on some filesystem, but that disk is not the loop's).

Reads go through a :class:`Root`, so fixtures and ``--root`` trees resolve
the same way as the live host.
"""

from __future__ import annotations

import re

from raidtop.collect.source import Root, SourceError

NO_SMART_PREFIXES = ("loop", "zram", "ram", "md", "dm-", "nbd", "sr", "fd")
"""Kernel names of devices that are never a physical disk smartctl could read."""
_NOTHING_UNDER = ("loop", "zram", "ram", "nbd", "sr", "fd")
# Devices with no disk under them at all: answered from the name, no sysfs walk
# (a test machine has hundreds of loop devices; the first sample must stay fast).

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:!+-]{0,63}$")
_MAX_DEPTH = 8


def valid_name(name: str) -> bool:
    """True for something shaped like a kernel block device name (no ``/``, no ``..``)."""
    return bool(_NAME.match(name)) and ".." not in name


def whole_disks(root: Root, name: str) -> tuple[str, ...]:
    """The whole disks under ``name``, sorted; ``()`` for loop/zram and unknown devices."""
    if name.startswith(_NOTHING_UNDER):
        return ()
    found: set[str] = set()
    _walk(root, name.replace("/", "!"), found, 0)
    return tuple(sorted(found))


def is_physical_disk(root: Root, name: str) -> bool:
    """True when ``name`` is a whole disk that is not loop, zram, ram, md or dm."""
    sys_name = name.replace("/", "!")
    if not valid_name(sys_name) or sys_name.startswith(NO_SMART_PREFIXES):
        return False
    if root.exists(f"/sys/class/block/{sys_name}/partition"):
        return False
    return root.exists(f"/sys/block/{sys_name}")


def _walk(root: Root, sys_name: str, found: set[str], depth: int) -> None:
    # A slaves/ cycle cannot happen in a sane kernel, but sysfs in a --root tree is any tree.
    if depth > _MAX_DEPTH or not valid_name(sys_name):
        return
    if root.exists(f"/sys/class/block/{sys_name}/partition"):
        link = root.readlink(f"/sys/class/block/{sys_name}")
        parent = link.rstrip("/").split("/")[-2] if link else None
        if parent and parent != sys_name:
            _walk(root, parent, found, depth + 1)
        return
    slaves = _slaves(root, sys_name)
    if slaves:
        for slave in slaves:
            _walk(root, slave, found, depth + 1)
        return
    if is_physical_disk(root, sys_name):
        found.add(sys_name.replace("!", "/"))


def _slaves(root: Root, sys_name: str) -> list[str]:
    for base in (f"/sys/block/{sys_name}/slaves", f"/sys/class/block/{sys_name}/slaves"):
        if root.exists(base):
            try:
                return sorted(root.listdir(base))
            except SourceError:  # a vanished device has no slaves any more
                return []
    return []
