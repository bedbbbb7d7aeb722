"""The one place raidtop opens a /sys or /proc attribute for writing.

Every change to a kernel attribute, from the Tuning screen, ``raidtop tune``,
the fio sweep or the lab, ends in :func:`write_attribute`, called only by
:meth:`TuningSession.apply <raidtop.actions.tuning.session.TuningSession.apply>`,
which validates before it, reads back, logs and keeps the undo history after it.
"""

from __future__ import annotations

import errno
import os
import stat

from raidtop.safeio import UnsafeFile

_ERRNO_WORDS = {
    errno.EINVAL: "the kernel rejected the value (EINVAL, invalid argument)",
    errno.EBUSY: "the device is busy (EBUSY); try again when it is idle",
    errno.EROFS: "sysfs is read-only here (EROFS; a container?)",
    errno.ENOENT: "the attribute is gone (ENOENT; device removed?)",
    errno.ENODEV: "the device is gone (ENODEV)",
    errno.ENXIO: "the device is gone (ENXIO)",
    errno.ENOMEM: "the kernel could not allocate memory for this value (ENOMEM)",
    errno.EIO: "I/O error (EIO)",
    errno.EAGAIN: "the kernel asked to try again (EAGAIN)",
}


def describe_write_error(exc: OSError, attr: str, *, privileged: bool) -> tuple[str, str]:
    """Turn a failed write into (status, words); never raises."""
    if isinstance(exc, UnsafeFile):
        return "failed", exc.reason
    code = exc.errno or 0
    if code in (errno.EACCES, errno.EPERM):
        if privileged:
            return "failed", "permission denied even with root rights (a locked-down kernel or read-only sysfs?)"
        return "needs-root", "needs root: only root may change this (permission denied)"
    words = _ERRNO_WORDS.get(code) or f"{errno.errorcode.get(code, 'error')}: {exc.strerror or exc}"
    if code == errno.EINVAL and attr == "nr_requests":
        words += "; with scheduler none it cannot exceed the driver's queue depth"
    return "failed", words


def write_attribute(real_path: str, value: str) -> None:
    """Write ``value`` + newline to an existing attribute file in one ``write()``.

    As ``echo VALUE > FILE`` does: sysfs stores take a whole buffer per write.
    Never creates (no ``O_CREAT``: a missing attribute means the device is
    gone, and a file must not appear where one was meant to be opened) and
    never follows a link in the last component (``O_NOFOLLOW``); a FIFO or a
    device there is refused (``O_NONBLOCK`` keeps a FIFO from blocking the
    open). Raises ``OSError`` as the kernel answered, :class:`UnsafeFile` for
    what is no attribute file.
    """
    flags = os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        fd = os.open(real_path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(real_path, "is a symbolic link; raidtop does not write through it") from None
        if exc.errno == errno.ENXIO and _is_fifo(real_path):
            raise UnsafeFile(real_path, "is a FIFO, not an attribute file; not written") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFile(real_path, "is not a regular attribute file; not written")
        os.write(fd, (value + "\n").encode())
    finally:
        os.close(fd)


def _is_fifo(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.lstat(path).st_mode)
    except OSError:
        return False
