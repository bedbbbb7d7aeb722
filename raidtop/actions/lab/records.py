"""What the lab registry holds: image files, arrays, their timelines and rebuilds.

Frozen dataclasses, no I/O: :mod:`.document` turns them into the registry's
JSON and back (checking every field's type), :mod:`.registry` reads and
writes the file, and everything else in the lab reads them.
"""

from __future__ import annotations

import os
from dataclasses import field

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.md import MdArray

IMAGE_STATES = ("planned", "file", "attaching", "attached")
"""An image's progress; each is written before the step that follows it."""
ARRAY_STATES = ("creating", "active")


@frozen_dataclass
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


@frozen_dataclass
class TimelineEvent:
    """One moment in a lab array's life."""

    time: float
    kind: str
    """created, resync_start/done, failed, removed, added, re_added, spare_added,
    replace_start, recovery_start/done/stopped, check_start/done, repair_start/done,
    speed_limit, mkfs, mounted."""
    member: str | None = None
    detail: str | None = None


@frozen_dataclass
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


@frozen_dataclass
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


@frozen_dataclass
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


@frozen_dataclass
class LabState:
    """The whole registry as read, and the folder its images must be in."""

    images: tuple[ImageRecord, ...] = ()
    arrays: tuple[ArrayRecord, ...] = ()
    images_dir: str = field(default="", compare=False)
    """The lab's images folder (absolute). Not part of the document: it is where
    the registry was read from. Empty means no folder, so no path is the lab's."""

    def image_name(self, path: str) -> str | None:
        """The file name of ``path`` when it lies directly in the images folder, else ``None``.

        Only the text is checked here (no ``..``, no sub-folder); whoever acts
        on the file opens the folder without following links and the name in it.
        """
        if not self.images_dir:
            return None
        folder, name = os.path.split(path)
        if folder != self.images_dir or name in ("", ".", "..") or "\0" in name:
            return None
        return name

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


@frozen_dataclass
class LabArrayView:
    """A lab array as the registry remembers it and the kernel shows it now."""

    record: ArrayRecord
    running: bool
    images: tuple[ImageRecord, ...]
    md: MdArray | None = None
    """The sampler's view, when the caller had a snapshot."""
    gone_loops: tuple[str, ...] = ()
    """Images whose loop device no longer holds the lab's file (after a reboot, or detached by hand)."""
    removed_loops: tuple[str, ...] = ()
    """The lab's loop devices still attached but no longer in the running array (``mdadm --remove``d)."""

    @property
    def name(self) -> str:
        """``md100``."""
        return self.record.name
