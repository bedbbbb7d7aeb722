"""The storage stack's model: block devices, what holds them, what is mounted on them."""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


@frozen_dataclass(slots=False)
class FsUsage:
    """What a mounted filesystem holds, as ``df`` counts it."""

    size_bytes: int
    used_bytes: int
    """Size minus free blocks."""
    avail_bytes: int | None = None
    """Free to ordinary users (root's reserve excluded); ``None``: all free blocks are."""

    @property
    def used_pct(self) -> float:
        """df's Use%: used / (used + available), 0–100, so 100 means ordinary writers get ENOSPC."""
        avail = self.avail_bytes if self.avail_bytes is not None else self.size_bytes - self.used_bytes
        total = self.used_bytes + max(0, avail)
        return 100.0 * self.used_bytes / total if total > 0 else 0.0

    @property
    def df_pct(self) -> int:
        """Use% exactly as df prints it: rounded up, in integers (no float noise at the boundary)."""
        avail = self.avail_bytes if self.avail_bytes is not None else self.size_bytes - self.used_bytes
        total = self.used_bytes + max(0, avail)
        return -(-self.used_bytes * 100 // total) if total > 0 else 0


@frozen_dataclass(slots=False)
class StackNode:
    """One block device and its place in the stack."""

    name: str
    kind: str
    """disk, part, raid (md), lvm, crypt, mpath, dm, loop."""
    label: str
    """What an admin calls it: the dm name (``vg-lv``) or the kernel name."""
    size_bytes: int | None
    holders: tuple[str, ...]
    """Devices built on this one, partitions included."""
    under: tuple[str, ...]
    """Devices this one is built on: ``slaves/`` or a partition's disk."""
    start_sectors: int | None = None
    """A partition's first 512-byte sector."""
    fstype: str | None = None
    mountpoints: tuple[str, ...] = ()
    fs_options: str | None = None
    """The mounted filesystem's super options (``rw,stripe=256``), for the alignment check."""
    usage: FsUsage | None = None
    alignment_offset: int | None = None
    """A dm device's ``alignment_offset`` as the kernel stacked its queue limits, in bytes: from its
    data start to the next boundary of what it sits on (an md array's chunk); -1 when the kernel
    found the layers misaligned. ``None`` for other devices or when unreadable."""


@frozen_dataclass(slots=False)
class Stack:
    """Every block device's node, by kernel name."""

    nodes: dict[str, StackNode]
    notes: tuple[str, ...] = ()

    def roots(self) -> list[str]:
        """Devices nothing else is under: the whole disks and loop devices, sorted."""
        return sorted(n for n, node in self.nodes.items() if not node.under)
