"""Read md arrays from sysfs and /proc/mdstat and merge them into one view.

sysfs is primary. /proc/mdstat fills what sysfs lacks (``finish=``, a bitmap
file's path, descriptor numbers, everything when sysfs is absent, as in a
``--root`` tree holding only proc/mdstat). When both describe the same array
differently enough that they cannot be the same (another level, no member in
common), sysfs wins and a note says so.
"""

from __future__ import annotations

from dataclasses import fields, replace

from raidtop.collect.md.level import judge_health, natural_key
from raidtop.collect.md.sparse import mark_sparse
from raidtop.collect.md.mdstat import AMBIGUOUS_ROLES, FILE_NOTE, parse_mdstat
from raidtop.collect.md.sysfs import parse_int, read_md_sysfs
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.model.md import MdArray, MdMember, MdReading, RaidSpeedLimit

# Fields mdstat may fill when sysfs left them unknown.
_FILLABLE = (
    "level",
    "state",
    "raid_disks",
    "degraded",
    "size_kib",
    "chunk_kib",
    "layout",
    "metadata",
    "bitmap",
    "status",
    "container",
    "container_member",
)
_FIELDS = tuple(f.name for f in fields(MdArray))
assert set(_FILLABLE) <= set(_FIELDS)


def read_md(root: Root | str = "/", md_names: list[str] | None = None) -> MdReading:
    """Read every md array under ``root``; never raises on bad input.

    ``md_names``: the md-like names under /sys/block, when the caller knows
    them (:class:`~raidtop.collect.md.track.MdNames`); None lists the directory.

    ``md_driver_present`` is False only when neither /proc/mdstat nor any md
    array in sysfs nor /sys/module/md_mod exists, so the UI can tell "no md
    driver" from "md driver, no arrays".
    """
    root = as_root(root)
    notes: list[str] = []
    mdstat_text: str | None = None
    mdstat_absent = False
    try:
        mdstat_text = root.read_text("/proc/mdstat")
    except SourceError as exc:
        # Absent means no md driver; present but unreadable is worth a note.
        mdstat_absent = not root.exists("/proc/mdstat")
        if not mdstat_absent:
            notes.append(str(exc))

    # Per-array notes travel with their arrays (a merge may drop some);
    # only notes about /proc/mdstat as a whole are taken from the parser.
    sys_arrays, _sys_notes = read_md_sysfs(root, md_names)
    stat_arrays: list[MdArray] = []
    if mdstat_text is not None:
        stat_arrays, stat_notes = parse_mdstat(mdstat_text)
        notes.extend(n for n in stat_notes if n.startswith(FILE_NOTE))

    arrays = [mark_sparse(_without_phantom_recovery(a)) for a in merge_arrays(sys_arrays, stat_arrays)]
    notes.extend(note for array in arrays for note in array.notes)
    present = not mdstat_absent or bool(sys_arrays) or root.exists("/sys/module/md_mod")
    return MdReading(
        arrays=tuple(arrays),
        speed_limit=read_speed_limit(root, notes),
        md_driver_present=present,
        notes=tuple(notes),
    )


def read_speed_limit(root: Root, notes: list[str]) -> RaidSpeedLimit | None:
    """/proc/sys/dev/raid/speed_limit_min and _max, or ``None`` when neither exists."""
    low_text = root.read_optional("/proc/sys/dev/raid/speed_limit_min")
    high_text = root.read_optional("/proc/sys/dev/raid/speed_limit_max")
    if low_text is None and high_text is None:
        return None
    low = parse_int(None if low_text is None else low_text.strip(), "raid", "speed_limit_min", notes)
    high = parse_int(None if high_text is None else high_text.strip(), "raid", "speed_limit_max", notes)
    return RaidSpeedLimit(min=low, max=high)


def merge_arrays(sys_arrays: list[MdArray], stat_arrays: list[MdArray]) -> list[MdArray]:
    """Join the two sources by array name; sorted md2 before md10."""
    by_name: dict[str, MdArray] = {}
    for stat in stat_arrays:
        by_name.setdefault(stat.name, stat)
    merged = []
    for array in sys_arrays:
        twin = by_name.pop(array.name, None)
        merged.append(array if twin is None else merge_array(array, twin))
    merged.extend(by_name.values())
    merged.sort(key=lambda a: natural_key(a.name))
    return merged


def merge_array(sys: MdArray, stat: MdArray) -> MdArray:
    """Fill ``sys``'s gaps from ``stat``, the same array as /proc/mdstat shows it."""
    sys_names = {m.name for m in sys.members}
    stat_names = {m.name for m in stat.members}
    level_clash = sys.level and stat.level and sys.level != stat.level
    if level_clash or (sys_names and stat_names and not sys_names & stat_names):
        note = f"{sys.name}: sysfs and /proc/mdstat describe different arrays; using sysfs"
        return replace(sys, notes=sys.notes + (note,))

    changes = {name: getattr(stat, name) for name in _FILLABLE if getattr(sys, name) is None}
    if sys.bitmap == "file" and stat.bitmap not in (None, "internal", "none"):
        changes["bitmap"] = stat.bitmap
    if sys.state is None:
        changes["read_only"] = stat.read_only
        changes["auto_read_only"] = stat.auto_read_only

    numbers = {m.name: m.number for m in stat.members}
    stat_notes = stat.notes
    if sys.members:
        changes["members"] = tuple(
            MdMember(m.name, m.slot, m.roles, m.errors, numbers.get(m.name)) for m in sys.members
        )
        # sysfs knows every member's role, so mdstat's doubt about them is moot.
        stat_notes = tuple(n for n in stat.notes if not n.endswith(AMBIGUOUS_ROLES))
    else:
        changes["members"] = stat.members

    changes["sync"] = _merge_sync(sys, stat)
    changes["notes"] = sys.notes + stat_notes
    changes["source"] = "both"
    # One construction instead of two dataclasses.replace calls: this runs per
    # array per sample, and replace() on a 30-field class is not cheap.
    values = {name: changes[name] if name in changes else getattr(sys, name) for name in _FIELDS}
    values["health"] = judge_health(
        level=values["level"],
        state=values["state"],
        raid_disks=values["raid_disks"],
        degraded=values["degraded"],
        status=values["status"],
        layout=values["layout"],
        members=values["members"],
    )
    return MdArray(**values)


def _merge_sync(sys: MdArray, stat: MdArray):
    if sys.sync is None:
        # raidtop reads mdstat before sysfs: when sysfs already says idle, a
        # sync that ended in between is over, whatever mdstat still printed
        # (seen in the VM at the end of most recoveries).
        # A waiting resync (PENDING, DELAYED) is not one that ended.
        if sys.sysfs_sync_action == "idle" and (stat.sync is None or stat.sync.running):
            return None
        return stat.sync
    if stat.sync is None or not stat.sync.running or not sys.sync.running:
        return sys.sync
    # Progress comes from mdstat when it has it: sysfs sync_completed is
    # md's curr_resync_completed, which advances only every 1/16 of the device
    # (seen on 6.1 in the VM harness: a 96 MiB resync moved in 6 MiB steps),
    # while mdstat prints curr_resync itself. finish= is mdstat's alone; the
    # speed stays sysfs's sync_speed, md's own throttling measure.
    fine = stat.sync.done_kib is not None and stat.sync.total_kib
    return replace(
        sys.sync,
        eta_s_kernel=stat.sync.eta_s_kernel if stat.sync.eta_s_kernel is not None else sys.sync.eta_s_kernel,
        speed_kib_s=sys.sync.speed_kib_s if sys.sync.speed_kib_s is not None else stat.sync.speed_kib_s,
        percent=stat.sync.percent if fine or sys.sync.percent is None else sys.sync.percent,
        done_kib=stat.sync.done_kib if fine or sys.sync.done_kib is None else sys.sync.done_kib,
        total_kib=stat.sync.total_kib if fine or sys.sync.total_kib is None else sys.sync.total_kib,
    )


def _without_phantom_recovery(array: MdArray) -> MdArray:
    """Drop a ``recover`` that is not rebuilding anything yet.

    Right after a member fails with no spare, a 6.1 kernel briefly shows
    sync_action ``recover``, sync_completed ``0 / N`` and no speed (seen in
    the VM after raid10 and raid6 failures): no disk is being rebuilt onto,
    so it is not a rebuild and must not raise RebuildStarted.
    """
    sync = array.sync
    if sync is None or sync.action != "recover" or array.source == "mdstat" or not array.members:
        return array
    rebuilding_onto = any(m.is_spare and m.slot is not None for m in array.members)
    if rebuilding_onto or sync.speed_kib_s or (sync.done_kib or 0) > 0:
        return array
    return replace(array, sync=None)
