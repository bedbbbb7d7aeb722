"""Which arrays' data rests on a disk that is not healthy, and what a rebuild still reads from it.

Pure functions over the model (no I/O, no Textual). An array is at risk when
it has no redundancy left (raid1 with one in-sync member, raid4/5 degraded,
raid6 down by two, raid10 with some mirror down to one copy) or while it
rebuilds (recovery or resync): every sector it reads then must read back.
Each survivor whose disk's SMART verdict is ``watch`` or ``failing`` becomes a
:class:`~raidtop.model.smart.SurvivorRisk` with the bytes still to read and
the chance of an unrecoverable read error (URE) over them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from raidtop.collect.md.level import natural_key, raid10_copy_sets
from raidtop.model.md import MdArray, MdMember
from raidtop.model.smart import RebuildRisk, SmartHealth, SurvivorRisk

ASSUMED_ERROR_BITS = 1e14
"""Bits read per unrecoverable error when the drive's class is unknown (consumer SATA's rating)."""
REBUILD_ACTIONS = frozenset({"recover", "resync"})
"""Sync actions that rebuild redundancy (a check or repair only verifies it)."""
DEGRADED_WHY = "degraded, no redundancy left"
REBUILDING_WHY = "rebuilding"
ADVICE = (
    "Back up now. Replace the missing member; while a disk that is not ok still reads, prefer "
    "`mdadm --replace` (it copies from that disk and keeps the others as a fallback) to --fail + --add."
)
_PARITY = frozenset({"raid4", "raid5", "raid6"})


def ure_probability(bytes_to_read: int, error_bits: float) -> float:
    """Chance of at least one unrecoverable read error over ``bytes_to_read``: 1 − exp(−bits/rate).

    The bits read are taken as independent trials at the rated rate (a Poisson
    count of errors), so this is an estimate, not a measurement.
    """
    return -math.expm1(-(bytes_to_read * 8) / error_bits)


def error_rate_of(health: SmartHealth) -> tuple[float, bool]:
    """The drive's rated bits per unrecoverable error, and whether it is the assumed default."""
    rate = health.unrecoverable_error_bits
    if rate is None or rate <= 0:
        return ASSUMED_ERROR_BITS, True
    return rate, False


def last_copy_members(array: MdArray) -> tuple[MdMember, ...] | None:
    """The in-sync members holding the only copy of some data; ``None`` while redundancy remains.

    raid10 with a known layout names exactly the members whose mirror partners
    are all gone (the kernel's copy placement); with an unknown layout every
    survivor is named once a member is missing (an approximation).
    """
    if array.health not in ("degraded",):
        return None
    survivors = tuple(m for m in array.members if m.is_in_sync)
    level = array.level
    missing = array.degraded or 0
    if level == "raid1":
        return survivors if len(survivors) == 1 else None
    if level in ("raid4", "raid5"):
        return survivors if missing >= 1 else None
    if level == "raid6":
        return survivors if missing >= 2 else None
    if level == "raid10":
        return _raid10_last_copies(array, survivors)
    return None


def _raid10_last_copies(array: MdArray, survivors: tuple[MdMember, ...]) -> tuple[MdMember, ...] | None:
    by_slot = {m.slot: m for m in survivors if m.slot is not None}
    copy_sets = raid10_copy_sets(array.layout, array.raid_disks) if array.raid_disks else None
    if copy_sets is None:
        return survivors if array.degraded else None
    alone: dict[str, MdMember] = {}
    for devices in copy_sets:
        present = [by_slot[slot] for slot in devices if slot in by_slot]
        if len(present) == 1:
            alone[present[0].name] = present[0]
    return tuple(alone.values()) or None


def _rebuilding(array: MdArray) -> bool:
    sync = array.sync
    return sync is not None and sync.running and sync.action in REBUILD_ACTIONS


def bytes_left(array: MdArray) -> int | None:
    """What the rebuild still reads from each survivor that it reads, in bytes.

    Running: the remaining part of ``sync_completed``'s range (a per-device
    range on every level). Degraded and idle: the whole component size, what a
    rebuild would read. raid1 and raid10 read each remaining block from one
    copy, raid4/5/6 from every survivor; either way a survivor that is read is
    read over this range.
    """
    sync = array.sync
    if _rebuilding(array) and sync is not None and sync.total_kib is not None and sync.done_kib is not None:
        return max(0, sync.total_kib - sync.done_kib) * 1024
    if array.component_size_kib is not None:
        return array.component_size_kib * 1024
    return None


def _disks_of(member: str, smart: Mapping[str, SmartHealth], disk_of: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    disks = disk_of.get(member)
    if disks:
        return disks
    return (member,) if member in smart else ()


def rebuild_risks(
    arrays: Sequence[MdArray], smart: Mapping[str, SmartHealth], disk_of: Mapping[str, tuple[str, ...]]
) -> tuple[RebuildRisk, ...]:
    """One :class:`RebuildRisk` per array whose data depends on a disk that is not ok."""
    if not smart:
        return ()
    risks = []
    for array in sorted(arrays, key=lambda a: natural_key(a.name)):
        if array.is_container or array.health in ("failed", "inactive"):
            continue
        last = last_copy_members(array)
        if last is not None:
            why, readers = DEGRADED_WHY, last
        elif _rebuilding(array):
            why, readers = REBUILDING_WHY, tuple(m for m in array.members if m.is_in_sync)
        else:
            continue
        remaining = bytes_left(array)
        survivors = []
        for member in readers:
            for disk in _disks_of(member.name, smart, disk_of):
                health = smart.get(disk)
                if health is None or not health.worse_than_ok:
                    continue
                rate, assumed = error_rate_of(health)
                survivors.append(
                    SurvivorRisk(
                        member=member.name,
                        disk=disk,
                        verdict=health.verdict,
                        reasons=tuple(r.text for r in health.reasons),
                        bytes_to_read=remaining,
                        ure_probability=None if remaining is None else ure_probability(remaining, rate),
                        error_rate_bits=rate,
                        rate_assumed=assumed,
                    )
                )
        if survivors:
            risks.append(RebuildRisk(array.name, why, tuple(survivors), ADVICE))
    return tuple(risks)


def reads_every_survivor(level: str | None) -> bool:
    """True where a rebuild reads every survivor (parity levels), False where it reads one copy."""
    return level in _PARITY
