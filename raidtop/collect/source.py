"""Root-relative file access that turns every failure into a sentence.

Readers never let an ``OSError`` escape: a missing file, a permission error or
a device that vanished mid-read becomes a :class:`SourceError` whose message
says which file and why, so the sampler can show it as a note and carry on.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

from raidtop.safeio import UnsafeFile, read_bounded

if TYPE_CHECKING:
    from raidtop.collect.held_records import HeldRecords

_REASONS = {
    errno.ENOENT: "not present",
    errno.ENOTDIR: "not present",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENODEV: "device gone",
    errno.ENXIO: "device gone",
    errno.EIO: "I/O error",
    errno.EINVAL: "not readable (write-only attribute?)",
}


class SourceError(Exception):
    """A system file could not be read; ``str()`` is a user-facing sentence."""


def describe_oserror(path: str, exc: OSError) -> str:
    """Say in words why ``path`` could not be read."""
    reason = _REASONS.get(exc.errno or 0, exc.strerror or type(exc).__name__)
    return f"{path}: {reason}"


class Root:
    """A filesystem root that readers resolve their absolute paths under.

    ``Root("/")`` reads the live host; ``Root("tests/data/x")`` reads
    ``tests/data/x/proc/...`` instead of ``/proc/...``.
    """

    __slots__ = ("path", "_prefix")

    def __init__(self, path: str | os.PathLike[str] = "/") -> None:
        self.path = Path(path)
        prefix = os.fspath(self.path).rstrip("/")
        self._prefix = prefix  # "" for the live root, so joins stay cheap

    def __repr__(self) -> str:
        return f"Root({os.fspath(self.path)!r})"

    @property
    def is_live(self) -> bool:
        """True when this root is the running system's own ``/``."""
        return self._prefix == ""

    def resolve(self, abs_path: str) -> str:
        """Map an absolute system path (``/proc/stat``) under this root."""
        return self._prefix + abs_path

    def read_text(self, abs_path: str) -> str:
        """Read a whole file; raise :class:`SourceError` with a reason on failure.

        A FIFO, device or socket in place of the file, or a file over
        :data:`~raidtop.safeio.DEFAULT_LIMIT`, is refused (a read must end).
        """
        try:
            data = read_bounded(self._prefix + abs_path)
        except UnsafeFile as exc:
            raise SourceError(f"{abs_path}: {exc.reason}") from None
        except OSError as exc:
            raise SourceError(describe_oserror(abs_path, exc)) from None
        # sysfs and procfs are ASCII, but a damaged fixture must not raise.
        return data.decode("utf-8", "replace")

    def read_optional(
        self, abs_path: str, *, single_record: bool = False, held: HeldRecords | None = None
    ) -> str | None:
        """Read a file that may legitimately be absent; ``None`` on any failure.

        ``single_record``: the file is a kernel single-record file, read in one
        read (:func:`~raidtop.safeio.read_bounded`). ``held``: it is also read
        again every sample, and on the live system may stay open in ``held``
        between samples (:mod:`raidtop.collect.held_records`). Roots that
        answer from a recording or a simulation, or record every answer,
        ignore both; a root other than the live ``/`` ignores ``held``.
        """
        try:
            if held is not None and not self._prefix:
                data = held.read(abs_path)
            else:
                data = read_bounded(self._prefix + abs_path, single_record=single_record)
        except OSError:
            return None
        return data.decode("utf-8", "replace")

    def listdir(self, abs_path: str) -> list[str]:
        """List a directory, sorted; raise :class:`SourceError` on failure."""
        try:
            return sorted(os.listdir(self._prefix + abs_path))
        except OSError as exc:
            raise SourceError(describe_oserror(abs_path, exc)) from None

    def exists(self, abs_path: str) -> bool:
        """True if the path exists under this root (following symlinks)."""
        return os.path.exists(self._prefix + abs_path)

    def readlink(self, abs_path: str) -> str | None:
        """The target of a symlink, or ``None`` when it is not one."""
        try:
            return os.readlink(self._prefix + abs_path)
        except OSError:
            return None

    def shown(self, name: str, wanted: bool) -> bool:
        """Whether to read an optional source (``name``) this sample: what the screen wants.

        A recording remembers the answer and a replay gives it back, so a
        replay reads a source exactly when the live run did.
        """
        return wanted

    def smart_answers(self, results: dict) -> dict:
        """The SMART results this sample shows: the poller's.

        The one place SMART readings come from: a recording root answers with
        what was recorded, the demo's root with its simulated disks.
        """
        return results

    def smart_disk_of(self) -> dict[str, tuple[str, ...]] | None:
        """Each device's whole disks when this root knows them itself; ``None``: walk sysfs."""
        return None


def as_root(root: Root | str | os.PathLike[str]) -> Root:
    """Accept a :class:`Root` or a path."""
    return root if isinstance(root, Root) else Root(root)
