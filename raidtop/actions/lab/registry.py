"""The lab registry: every image file, loop device and md array the lab created.

One JSON file, ``registry.json`` in the lab directory, is the lab's memory.
It is rewritten atomically (:func:`raidtop.safeio.atomic_write`) *before*
each resource is created, so a crash at any point leaves a record of what
may exist:

1. an image is recorded as ``planned`` before the file is made, then ``file``
   with its inode;
2. it becomes ``attaching`` before ``losetup --find --show`` runs, and
   ``attached`` with the loop name once losetup has printed it (a crash in
   between is why teardown also searches every loop device for the image's
   path and inode);
3. an array is recorded as ``creating``, under the md name the lab chose,
   before ``mdadm --create`` runs, and ``active`` afterwards.

The file is also what the fio guards trust (:mod:`raidtop.actions.lab_registry`),
so it is read as untrusted input: never through a link, never more than
:data:`REGISTRY_LIMIT` bytes, never from a FIFO or device, and every field
type-checked (:mod:`.document`). Edits go through :meth:`LabRegistry.edit`,
which holds an ``flock`` on ``registry.lock`` so the screen, a second
raidtop and ``raidtop lab`` never interleave their writes.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import threading
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from collections.abc import Iterator

from raidtop.actions.lab.document import REGISTRY_VERSION, DocumentError, state_from_json, state_to_json
from raidtop.actions.lab.records import (
    ARRAY_STATES,
    IMAGE_STATES,
    ArrayRecord,
    ImageRecord,
    LabState,
    RebuildRecord,
    TimelineEvent,
    Watch,
)
from raidtop.config import xdg_dir
from raidtop.safeio import UnsafeFile, atomic_write, read_bounded
from raidtop.untrusted import plain

LAB_DIR_ENV = "RAIDTOP_LAB_DIR"
"""Environment variable that moves the lab directory (tests, a second lab)."""
REGISTRY_NAME = "registry.json"
REGISTRY_LIMIT = 4 * 1024 * 1024
"""Bytes read at most: the registry holds only the arrays not yet torn down, with
their timelines, a few hundred KB after days of failing and rebuilding, so 4 MiB
is far beyond a real one and a bigger file is not the lab's."""


class RegistryDamaged(Exception):
    """The registry cannot be read, parsed or locked; ``str()`` is one sentence saying where and why."""


def default_lab_dir() -> Path:
    """The lab directory: ``$RAIDTOP_LAB_DIR``, else ``$XDG_DATA_HOME/raidtop/lab``."""
    override = os.environ.get(LAB_DIR_ENV)
    return Path(override) if override else xdg_dir("data") / "lab"


def lab_registry_path(lab_dir: Path | None = None) -> Path:
    """The lab's registry file, ``registry.json`` in the lab directory."""
    return (lab_dir or default_lab_dir()) / REGISTRY_NAME


class Draft:
    """A registry being edited inside :meth:`LabRegistry.edit`."""

    def __init__(self, state: LabState) -> None:
        self.images = list(state.images)
        self.arrays = list(state.arrays)
        self._images_dir = state.images_dir

    @property
    def state(self) -> LabState:
        """The edited state."""
        return LabState(tuple(self.images), tuple(self.arrays), self._images_dir)

    def put_image(self, record: ImageRecord) -> ImageRecord:
        """Add or replace the image with ``record.path``."""
        if self._has_image(record.path) is None:
            self.images.append(record)
        else:
            self.images = [record if i.path == record.path else i for i in self.images]
        return record

    def update_image(self, path: str, **changes: Any) -> ImageRecord:
        """Change fields of the image at ``path``."""
        current = self._has_image(path)
        if current is None:
            raise KeyError(path)
        return self.put_image(replace(current, **changes))

    def drop_image(self, path: str) -> None:
        """Forget the image at ``path``."""
        self.images = [i for i in self.images if i.path != path]

    def put_array(self, record: ArrayRecord) -> ArrayRecord:
        """Add or replace the array called ``record.name``."""
        if any(a.name == record.name for a in self.arrays):
            self.arrays = [record if a.name == record.name else a for a in self.arrays]
        else:
            self.arrays.append(record)
        return record

    def update_array(self, name: str, **changes: Any) -> ArrayRecord:
        """Change fields of the array ``name``."""
        current = next((a for a in self.arrays if a.name == name), None)
        if current is None:
            raise KeyError(name)
        return self.put_array(replace(current, **changes))

    def add_event(self, name: str, event: TimelineEvent) -> ArrayRecord | None:
        """Append ``event`` to the array's timeline (no-op when the array is gone)."""
        current = next((a for a in self.arrays if a.name == name), None)
        if current is None:
            return None
        return self.put_array(replace(current, timeline=current.timeline + (event,)))

    def drop_array(self, name: str) -> None:
        """Forget the array ``name`` (not its images)."""
        self.arrays = [a for a in self.arrays if a.name != name]

    def _has_image(self, path: str) -> ImageRecord | None:
        return next((i for i in self.images if i.path == path), None)


class LabRegistry:
    """The registry file of one lab directory."""

    # One lock per process and path: flock is per open file, so threads of one
    # process sharing a path must also take a thread lock.
    _thread_locks: dict[str, threading.RLock] = {}
    _locks_guard = threading.Lock()

    def __init__(self, lab_dir: Path | None = None) -> None:
        # Resolved once, as the user named it: the kernel shows a loop device's
        # backing file by its real path, and every image path must match that.
        self.lab_dir = Path(os.path.realpath(lab_dir if lab_dir is not None else default_lab_dir()))
        self.path = lab_registry_path(self.lab_dir)
        self.images_dir = self.lab_dir / "images"
        self.lock_path = self.lab_dir / "registry.lock"
        with self._locks_guard:
            self._lock = self._thread_locks.setdefault(str(self.path), threading.RLock())

    def read(self) -> LabState:
        """The registry as it is on disk; a missing file is an empty lab.

        Raises:
            RegistryDamaged: the file exists but is not a lab registry (or is
                a link, a FIFO, a device, or too large to be one).
        """
        where = plain(self.path)
        try:
            data = read_bounded(self.path, REGISTRY_LIMIT, follow_links=False)
        except FileNotFoundError:
            return LabState(images_dir=str(self.images_dir))
        except UnsafeFile as exc:
            raise RegistryDamaged(f"the lab registry {where} {exc.reason}; nothing was changed") from None
        except OSError as exc:
            raise RegistryDamaged(
                f"the lab registry {where} cannot be read ({exc.strerror}); nothing was changed"
            ) from None
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RegistryDamaged(
                f"the lab registry {where} is damaged (it is not JSON); nothing was changed"
            ) from None
        try:
            return state_from_json(doc, str(self.images_dir))
        except DocumentError as exc:
            raise RegistryDamaged(f"the lab registry {where} is damaged ({exc}); nothing was changed") from None
        except RecursionError:  # JSON nested thousands deep
            raise RegistryDamaged(
                f"the lab registry {where} is damaged (nested too deep); nothing was changed"
            ) from None

    @contextmanager
    def edit(self) -> Iterator[Draft]:
        """Lock, read, let the caller change a :class:`Draft`, write atomically."""
        with self._lock:
            self.lab_dir.mkdir(parents=True, exist_ok=True)
            fd = self._open_lock()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                before = self.read()
                draft = Draft(before)
                yield draft
                after = draft.state
                if after != before:
                    self._write(after)
            finally:
                os.close(fd)  # closing drops the flock

    def _open_lock(self) -> int:
        # O_NOFOLLOW: a link planted as registry.lock must not make the lab create or open its target.
        try:
            return os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            reason = (
                "is a symbolic link; raidtop does not follow it"
                if exc.errno == errno.ELOOP
                else f"cannot be opened ({exc.strerror})"
            )
            raise RegistryDamaged(
                f"the lab's lock file {plain(self.lock_path)} {reason}; nothing was changed"
            ) from None

    def _write(self, state: LabState) -> None:
        # Readable by all: the fio guards of other users read it too.
        atomic_write(self.path, json.dumps(state_to_json(state), indent=1), 0o644)


__all__ = [
    "ARRAY_STATES",
    "IMAGE_STATES",
    "REGISTRY_VERSION",
    "ArrayRecord",
    "Draft",
    "ImageRecord",
    "LabRegistry",
    "LabState",
    "RebuildRecord",
    "RegistryDamaged",
    "TimelineEvent",
    "Watch",
    "default_lab_dir",
    "lab_registry_path",
    "state_from_json",
    "state_to_json",
]
