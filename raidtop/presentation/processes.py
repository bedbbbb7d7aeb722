"""How "who is loading the array" is described: shares per array, md threads' jobs, rebuild vs load.

Pure functions over the model (no Textual, no I/O), shared by the Processes
panel, the member grid, the array detail, Explain, the exporter and tests.
"""

from __future__ import annotations

import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.disk_columns import disk_named
from raidtop.collect.rates.processes import unit_name
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import RUNNING_ACTIONS, MdArray
from raidtop.model.processes import UnitIO
from raidtop.model.units import rate

_MD_THREAD = re.compile(r"^(md[\w.]*?)_(raid\d+|resync|reshape|recover|multipath|linear)$")
_SYNC_WORDS = {"resync": "resync", "recover": "recovery", "check": "check", "repair": "repair", "reshape": "reshape"}
ROOT_UNIT = "/"


@frozen_dataclass
class UnitShare:
    """One unit's part of an array's (or a device's) member I/O over the interval."""

    label: str
    """What the user reads: "postgresql.service", "md0_resync (root cgroup)"."""
    unit: str
    """The cgroup path ("/" for the root)."""
    read_b_s: float
    write_b_s: float
    read_pct: float | None
    write_pct: float | None


def md_thread_role(comm: str, arrays: tuple[MdArray, ...]) -> str | None:
    """What an md kernel thread is doing, short ("md0 recovery 35.7 %"); ``None`` for any other process."""
    match = _MD_THREAD.match(comm)
    if match is None:
        return None
    name, kind = match.groups()
    array = next((a for a in arrays if a.name == name), None)
    if kind in ("resync", "reshape", "recover"):
        sync = array.sync if array is not None else None
        if sync is None or sync.action not in RUNNING_ACTIONS:
            return f"{name} sync thread, idle"
        done = f" {sync.percent:.1f} %" if sync.percent is not None else ""
        return f"{name} {_SYNC_WORDS.get(sync.action, sync.action)}{done}"
    return f"{name} I/O" + (" + parity" if kind in ("raid4", "raid5", "raid6") else "")


def device_units(snap: Snapshot, device: str) -> tuple[str, tuple[UnitIO, ...]]:
    """(the device whose accounting holds ``device``'s I/O, its units); cgroups count per whole disk."""
    by_device = snap.io.by_device if snap.io is not None else None
    if not by_device:
        return device, ()
    if device in by_device:
        return device, by_device[device]
    disk = disk_named(snap.disks, device)
    parent = disk.parent if disk is not None else None
    if parent is not None and parent in by_device:
        return parent, by_device[parent]
    return device, ()


def array_shares(snap: Snapshot, array: MdArray) -> list[UnitShare]:
    """Each unit's share of the writes and reads on the array's members, busiest first."""
    totals: dict[str, list[float]] = {}
    seen: set[str] = set()
    for member in array.members:
        holder, units = device_units(snap, member.name)
        if holder in seen:
            continue  # two members on one disk: its accounting counted once
        seen.add(holder)
        for u in units:
            pair = totals.setdefault(u.unit, [0.0, 0.0])
            pair[0] += u.read_b_s
            pair[1] += u.write_b_s
    return _shares(totals, array)


def _shares(totals: dict[str, list[float]], array: MdArray | None) -> list[UnitShare]:
    all_r = sum(v[0] for v in totals.values())
    all_w = sum(v[1] for v in totals.values())
    shares = [
        UnitShare(
            unit_label(unit, array),
            unit,
            r,
            w,
            r / all_r * 100.0 if all_r else None,
            w / all_w * 100.0 if all_w else None,
        )
        for unit, (r, w) in totals.items()
    ]
    shares.sort(key=lambda s: (-(s.read_b_s + s.write_b_s), s.unit))
    return shares


def unit_label(unit: str, array: MdArray | None = None) -> str:
    """A unit as the user knows it; the root cgroup of a syncing array is where md's sync I/O lands."""
    if unit == ROOT_UNIT:
        if array is not None and array.sync is not None and array.sync.action in RUNNING_ACTIONS:
            return f"{array.name}_resync (root cgroup)"
        return "root cgroup (kernel threads)"
    return unit_name(unit)


def shares_sentence(name: str, shares: list[UnitShare], limit: int = 2) -> str:
    """ "md0: 92 % of writes from postgresql.service, 6 % md0_resync (root cgroup)" — or reads when none."""
    writes = [s for s in shares if s.write_pct]
    key = "write_pct" if writes else "read_pct"
    ranked = sorted((s for s in shares if getattr(s, key)), key=lambda s: -getattr(s, key))
    if not ranked:
        return f"{name}: no member I/O this interval"
    parts = [
        _pct(getattr(s, key)) + (f" of {key[:-4]}s from " if i == 0 else " ") + s.label
        for i, s in enumerate(ranked[:limit])
    ]
    return f"{name}: " + ", ".join(parts)


def _pct(value: float) -> str:
    # A share that rounds to 0 is still there: "<1 %", not "0 %".
    return "<1 %" if value < 0.5 else f"{value:.0f} %"


def competing_load(snap: Snapshot, array: MdArray) -> tuple[float, float] | None:
    """(bytes/s of member I/O that is not md's own sync, bytes/s that is) on a syncing array."""
    if array.sync is None or array.sync.action not in RUNNING_ACTIONS:
        return None
    shares = array_shares(snap, array)
    if not shares:
        return None
    sync = sum(s.read_b_s + s.write_b_s for s in shares if s.unit == ROOT_UNIT)
    other = sum(s.read_b_s + s.write_b_s for s in shares if s.unit != ROOT_UNIT)
    return other, sync


def attribution_label(snap: Snapshot) -> str:
    """Which level of attribution is shown: "per device · cgroup v2 io.stat" or "totals · why"."""
    io = snap.io
    if io is None:
        return ""
    if io.level == "per device":
        return f"per device · {io.source}"
    return f"totals · {io.source}" if io.source else "totals"


def _spoken(bytes_s: float) -> str:
    return rate(bytes_s / 1024, spoken=True)


def rebuild_vs_load(snap: Snapshot, array: MdArray) -> tuple[str, list[str]] | None:
    """(one line for the screen, sentences for Explain) on a syncing array with per-device accounting."""
    load = competing_load(snap, array)
    sync = array.sync
    if load is None or sync is None:
        return None
    other, own = load
    shares = [s for s in array_shares(snap, array) if s.unit != ROOT_UNIT]
    who = ", ".join(f"{s.label} {_spoken(s.read_b_s + s.write_b_s)}" for s in shares[:2]) or "nothing else"
    limit_min = (
        array.sync_speed_min
        if array.sync_speed_min is not None
        else (snap.raid_speed_limit.min if snap.raid_speed_limit else None)
    )
    limit_max = (
        array.sync_speed_max
        if array.sync_speed_max is not None
        else (snap.raid_speed_limit.max if snap.raid_speed_limit else None)
    )
    speed = f"{rate(sync.speed_kib_s, spoken=True)} per device" if sync.speed_kib_s is not None else "unknown speed"
    line = (
        f"{_SYNC_WORDS.get(sync.action, sync.action)} {_spoken(own)} on the members ({speed}) "
        f"vs load {_spoken(other)}: {who}"
    )
    floor = f"{limit_min} KiB/s" if limit_min is not None else "sync_speed_min"
    explain = [
        f"While other I/O reaches the members, md slows its {sync.action} toward sync_speed_min ({floor} per device) "
        f"and lets the load go first; it never goes below that floor, and never above sync_speed_max "
        f"({limit_max if limit_max is not None else '?'} KiB/s) even on idle disks.",
        f"Now: the {sync.action} moves {_spoken(own)} on the members "
        f"and the load {_spoken(other)} ({who}). "
        "Raising sync_speed_min above the current speed makes md keep that speed under this load: the rebuild ends "
        "sooner (the Tuning screen predicts when), and the load gets what the disks have left, so its latency rises "
        "as the members' %util nears 100.",
        "Member I/O is attributed from cgroup accounting: I/O in the root cgroup is md's own sync plus any kernel "
        "thread or task left in the root.",
    ]
    return line, explain
