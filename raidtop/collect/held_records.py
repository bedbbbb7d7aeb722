"""Single-record procfs files read again every sample, kept open between samples: one system call a read.

The Processes panel reads /proc/PID/io of every process every sample. Opened,
checked, read and closed each time, that is four system calls and most of the
panel's cost (11 µs a process here, 2.9 µs for the read alone). procfs builds a
single-record file's text afresh for each read from its start, so a
descriptor kept open gives the current counters with one ``pread``.

A kept descriptor belongs to the process it was opened for, not to its PID:
once that process has ended, a read fails (``ESRCH``), the descriptor is
closed and the path opened again, which reaches whoever holds the PID now,
as a read by path always did. Descriptors of paths not asked for in a round
are closed at its end (:meth:`HeldRecords.end_round`), all of them by
:meth:`HeldRecords.close`. At most :attr:`HeldRecords.limit` are kept (a
quarter of the process's descriptor limit, at most 256); files past it are
read by path.
"""

from __future__ import annotations

import os
import resource

from raidtop.safeio import FIRST_RECORD_READ, open_regular, read_bounded

MOST_HELD = 256
"""Descriptors kept at most, whatever the process's limit.

Each open file holds its text's page of kernel memory (measured: 4.2 KB a
file, 2.1 MB for 512); 256 cost at most 1.1 MB and cover a server's usual
processes. Past them the saving is a smaller part of a larger cost.
"""


def default_limit() -> int:
    """A quarter of this process's soft limit on open files, at most :data:`MOST_HELD`."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_HELD
    return max(0, min(MOST_HELD, soft // 4))


class HeldRecords:
    """Open single-record files, each read again from its start; not for files that end past one read."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = default_limit() if limit is None else limit
        """How many descriptors are kept at most."""
        self._fds: dict[str, int] = {}
        self._asked: set[str] = set()

    def __len__(self) -> int:
        return len(self._fds)

    def __contains__(self, path: object) -> bool:
        """Whether ``path`` is kept open."""
        return path in self._fds

    def read(self, path: str) -> bytes:
        """The file's whole text now; raises ``OSError`` as :func:`~raidtop.safeio.read_bounded` does."""
        self._asked.add(path)
        fd = self._fds.get(path)
        if fd is not None:
            try:
                data = os.pread(fd, FIRST_RECORD_READ, 0)
            except OSError:
                data = b""  # its process ended: the PID may be another's by now, so open the path again
            if 0 < len(data) < FIRST_RECORD_READ:
                return data
            del self._fds[path]
            os.close(fd)
        fd = open_regular(path)
        try:
            data = os.pread(fd, FIRST_RECORD_READ, 0)
        except BaseException:
            os.close(fd)
            raise
        if 0 < len(data) < FIRST_RECORD_READ and len(self._fds) < self.limit:
            self._fds[path] = fd
            return data
        os.close(fd)
        if len(data) < FIRST_RECORD_READ:
            return data
        # Longer than one read: not a single-record file after all; read it whole, by path.
        return read_bounded(path, single_record=True)

    def end_round(self) -> None:
        """Close the descriptors of the paths not read since the last call (processes that ended)."""
        for path in self._fds.keys() - self._asked:
            os.close(self._fds.pop(path))
        self._asked = set()

    def close(self) -> None:
        """Close every descriptor kept."""
        fds, self._fds, self._asked = self._fds, {}, set()
        for fd in fds.values():
            os.close(fd)

    def __del__(self) -> None:
        # A sampler dropped without reset (a test, a replaced root) must not leak its descriptors.
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit os may be gone already
            pass
