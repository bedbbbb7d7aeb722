"""What a lab array should be: level, disks, size, chunk, bitmap, filesystem, mount point.

:func:`validate` says in words what mdadm or mkfs would refuse before
anything is created; :func:`mdadm_create_argv` and :func:`mkfs_argv` build
the exact commands (mkfs aligned to the stripe with
:func:`raidtop.actions.alignment.alignment_for`).
"""

from __future__ import annotations

import os
import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.alignment import alignment_for
from raidtop.model.units import size

LEVELS = {0: "raid0", 1: "raid1", 4: "raid4", 5: "raid5", 6: "raid6", 10: "raid10"}
"""The levels the lab builds, by the number users type."""
MIN_DISKS = {"raid0": 2, "raid1": 2, "raid4": 3, "raid5": 3, "raid6": 4, "raid10": 4}
"""The fewest disks that show what each level does (mdadm allows fewer with --force)."""
MAX_DISKS = 16
MIN_DISK_BYTES = 16 << 20
"""md's 1.2 superblock, a bitmap and a resync need a few MiB; 16 MiB leaves room to see them."""
MAX_DISK_BYTES = 64 << 30
CHUNK_CHOICES_KIB = (4, 8, 16, 32, 64, 128, 256, 512, 1024)
DEFAULT_CHUNK_KIB = 64
"""Smaller than mdadm's 512 KiB so that tiny lab disks still hold many stripes."""
FILESYSTEMS = ("ext4", "xfs")
XFS_MIN_BYTES = 300 << 20
"""mkfs.xfs refuses filesystems smaller than 300 MiB (xfsprogs 5.19 and later)."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class SpecError(ValueError):
    """A lab array that cannot be built as asked; ``str()`` says why."""


def parse_size(text: str) -> int:
    """``64M`` → 67108864 (binary units; a bare number is MiB, as users type disk sizes)."""
    match = _SIZE.match(str(text))
    if not match:
        raise SpecError(f"cannot read {text!r} as a size: try 64M or 1G")
    number, unit = match.groups()
    factor = _UNITS[unit.lower()] if unit else 1 << 20
    return int(float(number) * factor)


def human_size(n_bytes: int | None) -> str:
    """``64 MiB``, ``1.5 GiB``; ``?`` when unknown."""
    return size(n_bytes, spoken=True)


def level_name(level: int | str) -> str:
    """``5``, ``"5"``, ``"raid5"`` → ``raid5``; raises SpecError for anything else."""
    text = str(level).lower().removeprefix("raid")
    # Two ASCII digits at most: int() of a 5,000-digit argument raises, not refuses.
    if re.fullmatch(r"[0-9]{1,2}", text) and int(text) in LEVELS:
        return LEVELS[int(text)]
    raise SpecError(f"the lab builds raid levels {', '.join(str(n) for n in LEVELS)}; not {level}")


@frozen_dataclass
class LabSpec:
    """One array to create."""

    level: str
    """``raid5`` (see :func:`level_name`)."""
    disks: int
    disk_size_bytes: int
    chunk_kib: int | None = DEFAULT_CHUNK_KIB
    """Ignored for raid1, which has no chunk."""
    bitmap: bool = False
    """An internal write-intent bitmap (re-add then resyncs only what changed)."""
    fs: str | None = None
    """``ext4``, ``xfs`` or ``None``."""
    mount_point: str | None = None
    bitmap_chunk_kib: int | None = None
    """KiB of array per bitmap bit; ``None``: mdadm's default (64 MiB, which makes a small lab disk one bit)."""

    @property
    def uses_chunk(self) -> bool:
        """raid1 has no chunk size."""
        return self.level != "raid1"

    @property
    def uses_bitmap(self) -> bool:
        """raid0 has no redundancy, so no bitmap."""
        return self.bitmap and self.level != "raid0"


def validate(spec: LabSpec) -> LabSpec:
    """Return ``spec`` (normalised) or raise SpecError naming what is wrong."""
    level = level_name(spec.level)
    smallest = MIN_DISKS[level]
    if not smallest <= spec.disks <= MAX_DISKS:
        raise SpecError(f"{level} in the lab takes {smallest} to {MAX_DISKS} disks, not {spec.disks}")
    if not MIN_DISK_BYTES <= spec.disk_size_bytes <= MAX_DISK_BYTES:
        raise SpecError(
            f"each disk must be between {human_size(MIN_DISK_BYTES)} and {human_size(MAX_DISK_BYTES)}, "
            f"not {human_size(spec.disk_size_bytes)}"
        )
    chunk = spec.chunk_kib if level != "raid1" else None
    if chunk is not None and chunk not in CHUNK_CHOICES_KIB:
        raise SpecError(f"chunk must be one of {', '.join(str(c) for c in CHUNK_CHOICES_KIB)} KiB, not {chunk}")
    if spec.fs is not None and spec.fs not in FILESYSTEMS:
        raise SpecError(f"filesystem must be ext4 or xfs, not {spec.fs}")
    usable = usable_bytes(level, spec.disks, spec.disk_size_bytes)
    if spec.fs == "xfs" and usable < XFS_MIN_BYTES:
        raise SpecError(
            f"xfs needs at least {human_size(XFS_MIN_BYTES)}; this {level} holds about {human_size(usable)}: "
            "use bigger disks or ext4"
        )
    if spec.mount_point is not None:
        if spec.fs is None:
            raise SpecError("a mount point needs a filesystem (ext4 or xfs)")
        if not os.path.isabs(spec.mount_point):
            raise SpecError(f"the mount point must be an absolute path, not {spec.mount_point}")
    if spec.bitmap_chunk_kib is not None and not 4 <= spec.bitmap_chunk_kib <= 1 << 20:
        raise SpecError(f"the bitmap chunk must be 4 KiB to 1 GiB, not {spec.bitmap_chunk_kib} KiB")
    return LabSpec(
        level,
        spec.disks,
        spec.disk_size_bytes,
        chunk,
        spec.bitmap and level != "raid0",
        spec.fs,
        spec.mount_point or None,
        spec.bitmap_chunk_kib,
    )


def usable_bytes(level: str, disks: int, disk_size_bytes: int) -> int:
    """Roughly what the array will hold (before md's superblock and bitmap)."""
    data = {
        "raid0": disks,
        "raid1": 1,
        "raid4": disks - 1,
        "raid5": disks - 1,
        "raid6": disks - 2,
        "raid10": disks / 2,
    }[level]
    return int(data * disk_size_bytes)


def mdadm_create_argv(spec: LabSpec, array: str, loops: list[str]) -> list[str]:
    """``mdadm --create /dev/md100 --run --level=5 ... /dev/loop3 ...``."""
    argv = [
        "mdadm",
        "--create",
        f"/dev/{array}",
        "--run",
        "--metadata=1.2",
        f"--level={spec.level.removeprefix('raid')}",
        f"--raid-devices={len(loops)}",
    ]
    if spec.uses_chunk and spec.chunk_kib:
        argv.append(f"--chunk={spec.chunk_kib}")
    if spec.level != "raid0":
        argv.append("--bitmap=internal" if spec.uses_bitmap else "--bitmap=none")
        if spec.uses_bitmap and spec.bitmap_chunk_kib:
            argv.append(f"--bitmap-chunk={spec.bitmap_chunk_kib}")
    return argv + [f"/dev/{loop}" for loop in loops]


def mkfs_argv(spec: LabSpec, array: str) -> list[str]:
    """mkfs for ``spec.fs``, told the stripe geometry so full-stripe writes stay aligned."""
    hint = alignment_for(array, spec.level, spec.chunk_kib if spec.uses_chunk else None, spec.disks)
    if spec.fs == "ext4":
        argv = ["mkfs.ext4", "-q", "-F"]
        if hint.ext4_stride and hint.ext4_stripe_width:
            argv += ["-b", "4096", "-E", f"stride={hint.ext4_stride},stripe_width={hint.ext4_stripe_width}"]
        return argv + [f"/dev/{array}"]
    if spec.fs == "xfs":
        argv = ["mkfs.xfs", "-q", "-f"]
        if hint.xfs_su_kib and hint.xfs_sw:
            argv += ["-d", f"su={hint.xfs_su_kib}k,sw={hint.xfs_sw}"]
        return argv + [f"/dev/{array}"]
    raise SpecError(f"no filesystem to make for {spec.fs!r}")
