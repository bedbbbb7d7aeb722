"""A minimal writer for the "newc" cpio format the kernel unpacks as initramfs.

Written here because the host has no cpio tool, and because writing entries
directly lets us add /dev/console without root and keep timestamps at zero,
so the same inputs always give the same bytes.
"""

from __future__ import annotations

import stat
from typing import BinaryIO


class CpioWriter:
    """Appends entries to a newc archive; call :meth:`close` to write the trailer."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._inode = 1
        self._written_dirs: set[str] = set()

    def _entry(self, name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0)) -> None:
        encoded = name.encode() + b"\0"
        fields = [
            self._inode,
            mode,
            0,
            0,  # ino, mode, uid, gid
            2 if stat.S_ISDIR(mode) else 1,  # nlink
            0,
            len(data),  # mtime, filesize
            0,
            0,
            rdev[0],
            rdev[1],  # dev major/minor, rdev major/minor
            len(encoded),
            0,  # namesize, check
        ]
        self._inode += 1
        header = b"070701" + b"".join(b"%08X" % value for value in fields)
        self._out.write(header + encoded)
        self._out.write(b"\0" * (-(len(header) + len(encoded)) % 4))
        self._out.write(data)
        self._out.write(b"\0" * (-len(data) % 4))

    def directory(self, path: str, mode: int = 0o755) -> None:
        """Add a directory and any missing parents."""
        path = path.strip("/")
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            parent = "/".join(parts[:depth])
            if parent and parent not in self._written_dirs:
                self._written_dirs.add(parent)
                self._entry(parent, stat.S_IFDIR | mode)

    def file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        """Add a regular file (its parent directories are added first)."""
        path = path.strip("/")
        if "/" in path:
            self.directory(path.rsplit("/", 1)[0])
        self._entry(path, stat.S_IFREG | mode, data)

    def symlink(self, path: str, target: str) -> None:
        """Add a symbolic link ``path -> target``."""
        path = path.strip("/")
        if "/" in path:
            self.directory(path.rsplit("/", 1)[0])
        self._entry(path, stat.S_IFLNK | 0o777, target.encode())

    def char_device(self, path: str, major: int, minor: int, mode: int = 0o600) -> None:
        """Add a character device node."""
        path = path.strip("/")
        if "/" in path:
            self.directory(path.rsplit("/", 1)[0])
        self._entry(path, stat.S_IFCHR | mode, rdev=(major, minor))

    def close(self) -> None:
        """Write the trailer entry that ends the archive."""
        self._entry("TRAILER!!!", 0)
