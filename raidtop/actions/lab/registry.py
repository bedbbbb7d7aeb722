"""The lab registry: every image file, loop device and md array the lab created.

One JSON file, ``registry.json`` in the lab directory, is the lab's memory.
It is rewritten atomically (temp file, fsync, rename) *before* each resource
is created, so a crash at any point leaves a record of what may exist:

1. an image is recorded as ``planned`` before the file is made, then ``file``
   with its inode;
2. it becomes ``attaching`` before ``losetup --find --show`` runs, and
   ``attached`` with the loop name once losetup has printed it (a crash in
   between is why teardown also searches every loop device for the image's
   path and inode);
3. an array is recorded as ``creating``, under the md name the lab chose,
   before ``mdadm --create`` runs, and ``active`` afterwards.

The document also carries ``devices``, regenerated on every write in the
format :mod:`raidtop.actions.lab_registry` reads, so the fio guards know
which raw devices the lab made. Edits go through :meth:`LabRegistry.edit`,
which holds an ``flock`` on ``registry.lock`` so the screen, a second
raidtop and ``raidtop lab`` never interleave their writes.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterator

from raidtop.actions.lab_registry import REGISTRY_VERSION, default_lab_dir, lab_registry_path

IMAGE_STATES = ("planned", "file", "attaching", "attached")
"""An image's progress; each is written before the step that follows it."""
ARRAY_STATES = ("creating", "active")


class RegistryDamaged(Exception):
    """The registry file exists but cannot be read; ``str()`` says where and why."""


@dataclass(frozen=True, slots=True)
class ImageRecord:
    """One sparse image file and the loop device it is attached to."""

    path: str
    size_bytes: int
    created: float
    array: str | None = None
    """The array it was made for (``md100``); ``None`` for a loose disk."""
    state: str = "planned"
    """One of :data:`IMAGE_STATES`."""
    inode: int | None = None
    """The file's inode, recorded once the file exists."""
    loop: str | None = None
    """``loop7`` once attached."""


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """One moment in a lab array's life."""

    time: float
    kind: str
    """created, resync_start/done, failed, removed, added, re_added, spare_added,
    replace_start, recovery_start/done/stopped, check_start/done, repair_start/done,
    speed_limit, mkfs, mounted."""
    member: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class RebuildRecord:
    """One measured resync or rebuild."""

    kind: str
    """``resync``, ``recovery`` or ``replace``."""
    started: float
    finished: float
    member: str | None = None
    resolution_s: float = 0.0
    """How late the finish may have been seen (the gap between two looks)."""

    @property
    def seconds(self) -> float:
        """Measured duration."""
        return max(0.0, self.finished - self.started)


@dataclass(frozen=True, slots=True)
class Watch:
    """What the lab last saw of an array, to tell what changed since."""

    time: float
    sync: str | None = None
    """The running sync action (resync, recover, check, repair, reshape) or ``None``."""
    sync_started: float | None = None
    degraded: int | None = None
    members: tuple[str, ...] = ()
    faulty: tuple[str, ...] = ()
    rebuild_kind: str | None = None
    """What the next (or running) sync is: ``initial`` after create, ``replace`` after --replace."""
    pending_since: float | None = None
    """When the lab ran the command that starts that sync: the measured rebuild starts here."""
    rebuild_member: str | None = None
    """The disk being rebuilt onto (or replaced), when the lab knows it."""


@dataclass(frozen=True, slots=True)
class ArrayRecord:
    """One md array the lab created, with its timeline."""

    name: str
    level: str
    """``raid5``."""
    raid_disks: int
    disk_size_bytes: int
    created: float
    state: str = "creating"
    chunk_kib: int | None = None
    bitmap: bool = False
    fs: str | None = None
    mount_point: str | None = None
    mounted: bool = False
    """True while a mount the lab made is in place."""
    timeline: tuple[TimelineEvent, ...] = ()
    rebuilds: tuple[RebuildRecord, ...] = ()
    watch: Watch | None = None

    @property
    def last_rebuild(self) -> RebuildRecord | None:
        """The latest measured recovery or replace (resyncs after create excluded)."""
        found = [r for r in self.rebuilds if r.kind != "resync"]
        return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class LabState:
    """The whole registry as read."""

    images: tuple[ImageRecord, ...] = ()
    arrays: tuple[ArrayRecord, ...] = ()

    def array(self, name: str) -> ArrayRecord | None:
        """The record of ``name``, if the lab created it."""
        return next((a for a in self.arrays if a.name == name), None)

    def image(self, path: str) -> ImageRecord | None:
        """The record of the image at ``path``."""
        return next((i for i in self.images if i.path == path), None)

    def images_of(self, array: str) -> tuple[ImageRecord, ...]:
        """Images made for ``array``, oldest first."""
        return tuple(i for i in self.images if i.array == array)

    def image_on_loop(self, loop: str) -> ImageRecord | None:
        """The attached image the registry says ``loop`` holds."""
        return next((i for i in self.images if i.loop == loop and i.state == "attached"), None)

    @property
    def empty(self) -> bool:
        """True when the lab has nothing on record."""
        return not self.images and not self.arrays


class Draft:
    """A registry being edited inside :meth:`LabRegistry.edit`."""

    def __init__(self, state: LabState) -> None:
        self.images = list(state.images)
        self.arrays = list(state.arrays)

    @property
    def state(self) -> LabState:
        """The edited state."""
        return LabState(tuple(self.images), tuple(self.arrays))

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
        self.lab_dir = Path(lab_dir) if lab_dir is not None else default_lab_dir()
        self.path = lab_registry_path(self.lab_dir)
        self.images_dir = self.lab_dir / "images"
        self.lock_path = self.lab_dir / "registry.lock"
        with self._locks_guard:
            self._lock = self._thread_locks.setdefault(str(self.path), threading.RLock())

    def read(self) -> LabState:
        """The registry as it is on disk; a missing file is an empty lab.

        Raises:
            RegistryDamaged: the file exists but is not a lab registry.
        """
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return LabState()
        except OSError as exc:
            raise RegistryDamaged(f"{self.path}: {exc.strerror}") from None
        try:
            return state_from_json(json.loads(text))
        except (ValueError, TypeError, KeyError) as exc:
            raise RegistryDamaged(f"{self.path} is damaged ({exc}); nothing was changed") from None

    @contextmanager
    def edit(self) -> Iterator[Draft]:
        """Lock, read, let the caller change a :class:`Draft`, write atomically."""
        with self._lock:
            self.lab_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
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

    def _write(self, state: LabState) -> None:
        data = json.dumps(state_to_json(state), indent=1)
        fd, tmp = tempfile.mkstemp(dir=self.lab_dir, prefix=".registry.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                # Readable by all (mkstemp makes 0600): the fio guards of other users read it too.
                os.fchmod(handle.fileno(), 0o644)
                handle.write(data)
                handle.flush()
                # Durable before the rename: a power cut must not leave an empty registry.
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        dir_fd = os.open(self.lab_dir, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


# ---------------------------------------------------------------- JSON


def state_to_json(state: LabState) -> dict[str, Any]:
    """The registry document, ``devices`` included for the fio guards."""
    devices: list[dict[str, Any]] = []
    for image in state.images:
        if image.state == "attached" and image.loop:
            entry: dict[str, Any] = {"name": image.loop, "kind": "loop", "backing_file": image.path, "created": image.created}
            if image.inode is not None:
                entry["inode"] = image.inode
            devices.append(entry)
    for array in state.arrays:
        loops = [i.loop for i in state.images if i.array == array.name and i.loop and i.state == "attached"]
        devices.append({"name": array.name, "kind": "md", "members": loops, "created": array.created})
    return {
        "version": REGISTRY_VERSION,
        "devices": devices,
        "images": [_drop_none(asdict(i)) for i in state.images],
        "arrays": [_array_json(a) for a in state.arrays],
    }


def state_from_json(doc: Any) -> LabState:
    """Parse a registry document; raises ValueError/TypeError/KeyError when it is not one."""
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    images = tuple(_record(ImageRecord, raw) for raw in doc.get("images", []))
    for image in images:
        if image.state not in IMAGE_STATES:
            raise ValueError(f"image {image.path}: unknown state {image.state!r}")
    arrays = tuple(_array_from(raw) for raw in doc.get("arrays", []))
    return LabState(images, arrays)


def _array_json(array: ArrayRecord) -> dict[str, Any]:
    out = _drop_none({f.name: getattr(array, f.name) for f in fields(array) if f.name not in ("timeline", "rebuilds", "watch")})
    out["timeline"] = [_drop_none(asdict(e)) for e in array.timeline]
    out["rebuilds"] = [_drop_none(asdict(r)) for r in array.rebuilds]
    if array.watch is not None:
        out["watch"] = _drop_none(asdict(array.watch))
    return out


def _array_from(raw: dict[str, Any]) -> ArrayRecord:
    record = _record(ArrayRecord, {k: v for k, v in raw.items() if k not in ("timeline", "rebuilds", "watch")})
    timeline = tuple(_record(TimelineEvent, e) for e in raw.get("timeline", []))
    rebuilds = tuple(_record(RebuildRecord, r) for r in raw.get("rebuilds", []))
    watch = raw.get("watch")
    return replace(
        record,
        timeline=timeline,
        rebuilds=rebuilds,
        watch=None if watch is None else _record(Watch, watch),
    )


def _record(kind: type, raw: Any):
    if not isinstance(raw, dict):
        raise TypeError(f"{kind.__name__}: not an object")
    known = {f.name for f in fields(kind)}
    values = {}
    for key, value in raw.items():
        if key in known:
            # JSON has no tuples; the dataclasses hold tuples so they compare and hash.
            values[key] = tuple(value) if isinstance(value, list) else value
    return kind(**values)


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items() if v is not None}


__all__ = [
    "ArrayRecord",
    "Draft",
    "ImageRecord",
    "LabRegistry",
    "LabState",
    "RebuildRecord",
    "RegistryDamaged",
    "TimelineEvent",
    "Watch",
    "state_from_json",
    "state_to_json",
]
