"""The synthetic machine's state: its shape, its disks' diskstats counters and its md arrays.

Plain mutable records that :class:`synthetic.SyntheticSystem` advances each tick and
that :mod:`synthetic_texts` renders as the kernel would print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Shape:
    """How big the synthetic machine is."""

    disks: int
    cpus: int
    md_arrays: int = 0
    md_members: int = 0
    partitioned_disks: int = 4
    loop_devices: int = 8
    processes: int = 250

    @property
    def label(self) -> str:
        """A short name for tables: ``4096d/2c`` or ``64x16md/…``."""
        base = f"{self.disks}d/{self.cpus}c"
        return f"{self.md_arrays}x{self.md_members}md {base}" if self.md_arrays else base


@dataclass
class Disk:
    """One /proc/diskstats line's identity and its 17 counters."""

    major: int
    minor: int
    name: str
    counters: list[int] = field(default_factory=lambda: [0] * 17)

    def line(self) -> str:
        """The line as diskstats_show prints it (kernel ≥ 5.5, 20 fields)."""
        return f"{self.major:4d} {self.minor:7d} {self.name} " + " ".join(map(str, self.counters))


@dataclass
class MdMemberState:
    """One member of a synthetic array."""

    disk: str
    slot: int | None
    state: str


@dataclass
class MdArrayState:
    """One synthetic md array and the sync it may be running."""

    index: int
    level: str
    members: list[MdMemberState]
    component_kib: int
    sync_action: str = "idle"
    sync_done_sectors: int = 0
    sync_speed_kib: int = 0

    @property
    def name(self) -> str:
        """``md0``, ``md1``…"""
        return f"md{self.index}"

    @property
    def raid_disks(self) -> int:
        """Slots in the array's geometry."""
        return sum(1 for m in self.members if m.slot is not None or m.state == "faulty")

    @property
    def degraded(self) -> int:
        """Slots without an in-sync member."""
        return self.raid_disks - sum(1 for m in self.members if m.state == "in_sync")

    @property
    def array_kib(self) -> int:
        """Usable size, as mdstat's ``blocks``."""
        data = {"raid6": self.raid_disks - 2, "raid5": self.raid_disks - 1, "raid10": self.raid_disks // 2}[self.level]
        return self.component_kib * data

    @property
    def syncing(self) -> bool:
        """True while a resync, recovery or check runs."""
        return self.sync_action != "idle"


def disk_names(count: int) -> list[str]:
    """A few NVMe namespaces, then sda, sdb … sdz, sdaa … as the kernel names them."""
    nvme = min(4, count // 4)
    names = [f"nvme{i}n1" for i in range(nvme)]
    index = 0
    while len(names) < count:
        names.append("sd" + _letters(index))
        index += 1
    return names


def _letters(index: int) -> str:
    # sd_format_disk_name: a..z, aa..zz, aaa..
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(ord("a") + rem) + out
    return out
