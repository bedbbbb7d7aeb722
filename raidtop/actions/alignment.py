"""Filesystem alignment hints for md arrays: mkfs.ext4 stride/stripe_width, mkfs.xfs su/sw.

A filesystem that knows the array's geometry puts its allocation units on
stripe boundaries, so a full-stripe write does not become a read-modify-write
of parity. The geometry is the chunk (md's ``chunk_size``) and the number of
chunks of *data* per stripe:

* raid0: every disk holds data (n);
* raid4/5: one chunk per stripe is parity (n − 1); raid6: two (n − 2);
* raid10: n / near copies, as the kernel computes ``optimal_io_size``
  (raid10_nr_stripes): near copies sit side by side in a stripe, while far and
  offset copies live elsewhere on each disk, so the data stripe still spans
  all n disks; when n is not a multiple of the near copies the kernel uses n;
* raid1 and linear do not stripe: there is nothing to align (width 1).

ext4 counts in filesystem blocks (4 KiB here): ``stride`` = chunk / 4 KiB and
``stripe_width`` = stride × data disks. XFS takes the chunk itself as ``su``
and the data disks as ``sw``. mkfs.xfs and mkfs.ext4 read the same numbers
from ``queue/minimum_io_size`` and ``queue/optimal_io_size`` when the array is
formatted directly; these hints matter when LVM, a partition table or an
image file hides them.
"""

from __future__ import annotations

import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.md import MdArray
from raidtop.model.units import counted

EXT4_BLOCK_KIB = 4

_NEAR = re.compile(r"near=(\d+)")


@frozen_dataclass
class AlignmentHint:
    """The mkfs options that match one array's stripe geometry."""

    array: str
    level: str | None
    chunk_kib: int | None
    raid_disks: int | None
    data_disks: int | None
    """Chunks of data per stripe; ``None`` when it cannot be known."""
    ext4_stride: int | None = None
    ext4_stripe_width: int | None = None
    xfs_su_kib: int | None = None
    xfs_sw: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def optimal_io_kib(self) -> int | None:
        """Full-stripe size, what the kernel shows as queue/optimal_io_size (in KiB)."""
        if self.chunk_kib is None or self.data_disks is None:
            return None
        return self.chunk_kib * self.data_disks

    @property
    def ext4_command(self) -> str | None:
        """``mkfs.ext4 -b 4096 -E stride=…,stripe_width=… /dev/mdN``, or ``None``."""
        if self.ext4_stride is None or self.ext4_stripe_width is None:
            return None
        return (
            f"mkfs.ext4 -b {EXT4_BLOCK_KIB * 1024} -E stride={self.ext4_stride},"
            f"stripe_width={self.ext4_stripe_width} /dev/{self.array}"
        )

    @property
    def xfs_command(self) -> str | None:
        """``mkfs.xfs -d su=…k,sw=… /dev/mdN``, or ``None``."""
        if self.xfs_su_kib is None or self.xfs_sw is None:
            return None
        return f"mkfs.xfs -d su={self.xfs_su_kib}k,sw={self.xfs_sw} /dev/{self.array}"


def near_copies(layout: str | None) -> int | None:
    """The near copies of a raid10 layout as mdadm names it (``near=2`` → 2, ``far=2`` → 1)."""
    if not layout:
        return None
    match = _NEAR.search(layout)
    if match:
        return int(match.group(1))
    return 1 if re.search(r"(far|offset)=\d+", layout) else None


def data_disks(level: str | None, raid_disks: int | None, layout: str | None = None) -> tuple[int | None, str]:
    """How many chunks of data one stripe holds, and how that was worked out."""
    if level in ("raid1", "linear", "multipath"):
        return 1, f"{level} does not stripe"
    if raid_disks is None or raid_disks <= 0:
        return None, "the number of disks is unknown"
    if level == "raid0":
        return raid_disks, f"raid0: all {counted(raid_disks, 'disk')} hold data"
    if level in ("raid4", "raid5"):
        return max(1, raid_disks - 1), f"{level}: {counted(raid_disks, 'disk')} − 1 parity"
    if level == "raid6":
        return max(1, raid_disks - 2), f"raid6: {counted(raid_disks, 'disk')} − 2 parity"
    if level == "raid10":
        near = near_copies(layout)
        if near is None:
            near = 2
            how = "layout unknown, assuming mdadm's default near=2"
        else:
            how = f"layout {layout}"
        if raid_disks % near:
            return (
                raid_disks,
                f"raid10 ({how}): {counted(raid_disks, 'disk')} not a multiple of {near} near copies, "
                f"so the kernel uses {raid_disks}",
            )
        return raid_disks // near, f"raid10 ({how}): {counted(raid_disks, 'disk')} / {near} near copies"
    return None, f"no striping rule for level {level or 'unknown'}"


def alignment_hint(array: MdArray) -> AlignmentHint:
    """Alignment hints for ``array`` from its chunk size, level, disk count and layout."""
    return alignment_for(array.name, array.level, array.chunk_kib, array.raid_disks, array.layout)


def alignment_for(
    name: str, level: str | None, chunk_kib: int | None, raid_disks: int | None, layout: str | None = None
) -> AlignmentHint:
    """Alignment hints from the raw geometry (the VM harness calls this with what it created)."""
    count, how = data_disks(level, raid_disks, layout)
    notes = [how]
    if level in ("raid1", "linear", "multipath") or not chunk_kib:
        if level not in ("raid1", "linear", "multipath"):
            notes.append("no chunk size: nothing to align to")
        else:
            notes.append("mkfs defaults are right; no stride or stripe options needed")
        return AlignmentHint(name, level, chunk_kib or None, raid_disks, count, notes=tuple(notes))
    if count is None:
        return AlignmentHint(name, level, chunk_kib, raid_disks, None, notes=tuple(notes))
    stride = chunk_kib // EXT4_BLOCK_KIB if chunk_kib >= EXT4_BLOCK_KIB else None
    if stride is None:
        notes.append(f"the chunk ({chunk_kib} KiB) is smaller than an ext4 block; no ext4 stride")
    return AlignmentHint(
        name,
        level,
        chunk_kib,
        raid_disks,
        count,
        ext4_stride=stride,
        ext4_stripe_width=None if stride is None else stride * count,
        xfs_su_kib=chunk_kib,
        xfs_sw=count,
        notes=tuple(notes),
    )
