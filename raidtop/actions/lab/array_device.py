"""Opening a lab array's device node for the experiments' own writes and reads: only the node the kernel lists.

The experiments write fresh data to a lab array and read it back with O_DIRECT in
raidtop itself (shown and logged as the ``dd`` they stand for). ``/dev/mdN`` is a
name, and what is there may be a FIFO (opening one blocks until a peer opens the
other end: for ever), a link, a file or another device. The node is opened without
following a link and without blocking, used only when it is the block device whose
number the kernel lists for the array in sysfs, and set blocking again for the I/O.
"""

from __future__ import annotations

import errno
import os
import stat

from raidtop.actions.lab.core import Lab
from raidtop.safeio import UnsafeFile


def open_array_device(lab: Lab, name: str, flags: int, doing: str) -> int:
    """A descriptor of lab array ``name``'s device node, opened with ``flags``; the caller closes it.

    ``doing`` (``written``, ``read``) ends the refusal's sentence. Raises :class:`UnsafeFile`, an
    ``OSError``, so the lab's runner shows and logs it as the command's failure.
    """
    shown = f"/dev/{name}"
    path = lab.root.resolve(shown)
    expected = (lab.root.read_optional(f"/sys/block/{name}/dev") or "").strip()
    refused = f"not the block device the kernel lists for {name}; nothing {doing}"
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        # A FIFO without a peer (ENXIO for a writer), a link (ELOOP): say what is there, not errno's words.
        kind = _kind_at(path) if exc.errno in (errno.ENXIO, errno.ELOOP, errno.EINVAL) else None
        if kind is None:
            raise
        raise UnsafeFile(shown, f"{shown} is {kind}, {refused}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISBLK(info.st_mode) or f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}" != expected:
            kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "another file" if stat.S_ISREG(info.st_mode) else None
            raise UnsafeFile(shown, f"{shown} is {kind or 'another device'}, {refused}")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _kind_at(path: str) -> str | None:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a FIFO" if stat.S_ISFIFO(mode) else None
