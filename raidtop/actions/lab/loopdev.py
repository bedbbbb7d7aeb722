"""Which file a loop device is attached to, and which inode that file is.

A loop number is reused as soon as a device is detached, and a path can be
recreated with new content, so the lab names its loop devices by three
things: the kernel name, the backing file's path and the backing file's
inode. sysfs gives the path (``loop/backing_file``, with `` (deleted)``
appended once the file is unlinked); the inode comes from the
``LOOP_GET_STATUS64`` ioctl, which reports the inode the kernel actually
holds open. Under a fixture root (tests) there is no device to ask, so the
inode is that of the file at the backing path inside the root.
"""

from __future__ import annotations

import fcntl
import os
import re
import struct

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.source import Root, SourceError, as_root

LOOP_GET_STATUS64 = 0x4C05
"""``linux/loop.h``: read ``struct loop_info64`` of a bound loop device."""

# struct loop_info64: lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit
# (u64 each), lo_number, lo_encrypt_type, lo_encrypt_key_size, lo_flags (u32
# each), lo_file_name[64], lo_crypt_name[64], lo_encrypt_key[32], lo_init[2] (u64).
_LOOP_INFO64 = struct.Struct("=5Q4I64s64s32s2Q")
_DELETED = " (deleted)"
_LOOP_NAME = re.compile(r"^loop\d+$")


@frozen_dataclass
class LoopBacking:
    """One attached loop device as the kernel shows it now."""

    name: str
    """``loop7``."""
    path: str
    """The backing file's path, without the kernel's `` (deleted)`` suffix."""
    deleted: bool = False
    """True when the backing file has been unlinked since it was attached."""
    inode: int | None = None
    """The backing file's inode; ``None`` when it cannot be learnt."""


def is_loop_name(name: str) -> bool:
    """True for ``loop7`` (not ``loop-control``, not ``sda``)."""
    return bool(_LOOP_NAME.match(name))


def loop_backing(name: str, root: Root | str = "/") -> LoopBacking | None:
    """What ``name`` is attached to, or ``None`` when it is not an attached loop device."""
    root = as_root(root)
    name = os.path.basename(name)
    if not is_loop_name(name):
        return None
    text = root.read_optional(f"/sys/block/{name}/loop/backing_file")
    if text is None or not text.strip():
        return None
    path = text.rstrip("\n")
    deleted = path.endswith(_DELETED)
    path = path.removesuffix(_DELETED)
    inode = _inode_live(name) if root.is_live else _inode_under(root, path)
    return LoopBacking(name, path, deleted, inode)


def attached_loops(root: Root | str = "/") -> list[LoopBacking]:
    """Every attached loop device, in name order."""
    root = as_root(root)
    try:
        names = root.listdir("/sys/block")
    except SourceError:
        return []
    found = []
    for name in names:
        backing = loop_backing(name, root) if is_loop_name(name) else None
        if backing is not None:
            found.append(backing)
    return found


def _inode_live(name: str) -> int | None:
    # The ioctl answers for the file the kernel holds, even after an unlink.
    try:
        fd = os.open(f"/dev/{name}", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        buffer = bytearray(_LOOP_INFO64.size)
        fcntl.ioctl(fd, LOOP_GET_STATUS64, buffer, True)
    except OSError:
        return None
    finally:
        os.close(fd)
    return _LOOP_INFO64.unpack(bytes(buffer))[1]


def _inode_under(root: Root, path: str) -> int | None:
    try:
        return os.stat(root.resolve(path)).st_ino
    except OSError:
        return None
