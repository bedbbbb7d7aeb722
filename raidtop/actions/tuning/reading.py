"""Read tuning knobs: which targets exist, and each knob's value and what it accepts.

Everything goes through a :class:`~raidtop.collect.source.Root`, so a session
can point at a copy of /sys. Reading never writes and never raises for a
missing or unreadable file: the knob is left out or shown as unreadable.
"""

from __future__ import annotations

import os
import re

from raidtop.actions.tuning.knobs import (
    BLKDEV_MIN_RQ,
    GLOBAL_KNOBS,
    GLOBAL_TARGET,
    INT_MAX,
    MAX_SCHED_RQ,
    MD_KNOBS,
    MD_REQUESTS,
    PAGE_KB,
    QUEUE_KNOBS,
    READ_AHEAD_LIMIT_KB,
    SPECS,
    SYNC_REQUESTS,
    Allowed,
    Knob,
    Target,
    TuningError,
    dev_name,
    sys_name,
    system_path,
)
from raidtop.collect.md.level import natural_key
from raidtop.collect.queue_settings import read_queue_settings
from raidtop.model.units import counted
from raidtop.collect.source import Root, SourceError, as_root


def _is_writable(root: Root, path: str) -> bool:
    try:
        return bool(os.stat(root.resolve(path)).st_mode & 0o222)
    except OSError:
        return False


def first_int(text: str | None) -> int | None:
    if text is None:
        return None
    match = re.match(r"\s*(-?[0-9]{1,30})(?![0-9])", text, re.ASCII)
    # A longer number is no kernel value (int() would also refuse past 4300 digits).
    return int(match.group(1)) if match else None


def _kind(root: Root, name: str) -> str:
    if root.exists(f"/sys/block/{sys_name(name)}/md"):
        return "md"
    for prefix, kind in (
        ("loop", "loop"),
        ("nvme", "nvme"),
        ("dm-", "dm"),
        ("zram", "zram"),
        ("ram", "ram"),
        ("md", "md"),
    ):
        if name.startswith(prefix):
            return kind
    return "disk"


def list_targets(root: Root | str = "/") -> list[Target]:
    """Every tunable target under ``root``: block devices, md arrays, then the global md settings.

    Devices of size 0 (unattached loop devices, unconfigured zram) are left
    out except md arrays, whose md knobs exist even while inactive.
    """
    root = as_root(root)
    try:
        names = root.listdir("/sys/block")
    except SourceError:
        names = []
    targets = []
    for sname in sorted(names, key=natural_key):
        target = _describe(root, dev_name(sname))
        if target is not None:
            targets.append(target)
    if root.exists("/proc/sys/dev/raid/speed_limit_max"):
        targets.append(Target(GLOBAL_TARGET, "global", "md speed limits"))
    return targets


def _describe(root: Root, name: str) -> Target | None:
    """One block device as a target; ``None`` for a device of size 0 that is no md array."""
    sname = sys_name(name)
    kind = _kind(root, name)
    if kind != "md" and first_int(root.read_optional(f"/sys/block/{sname}/size")) == 0:
        return None
    level = None
    detail = kind
    if kind == "md":
        level = (root.read_optional(f"/sys/block/{sname}/md/level") or "").strip() or None
        disks = first_int(root.read_optional(f"/sys/block/{sname}/md/raid_disks"))
        detail = " ".join(part for part in (level or "md", counted(disks, "disk") if disks else "") if part)
    return Target(name, kind, detail, level)


def read_target(root: Root | str, name: str) -> Target:
    """Describe one target; raise :class:`TuningError` if it is not tunable here."""
    root = as_root(root)
    name = dev_name(name)
    if name == GLOBAL_TARGET:
        if not root.exists("/proc/sys/dev/raid/speed_limit_max"):
            raise TuningError("/proc/sys/dev/raid is absent: the md driver is not loaded")
        return Target(GLOBAL_TARGET, "global", "md speed limits")
    sname = sys_name(name)
    if not root.exists(f"/sys/block/{sname}"):
        if root.exists(f"/sys/class/block/{sname}/partition"):
            parent = parent_disk(root, name) or "its disk"
            raise TuningError(f"{name} is a partition; its queue settings belong to {parent}")
        raise TuningError(f"{name}: no such block device (not in /sys/block)")
    # Describe this one device: listing every target here made a start-up capture
    # of N devices walk /sys/block N times (7 CPU s at 500 loop devices).
    target = _describe(root, name)
    if target is not None:
        return target
    kind = _kind(root, name)
    return Target(name, kind, f"{kind}, size 0")


def parent_disk(root: Root | str, name: str) -> str | None:
    """The whole disk a partition belongs to (``sda1`` → ``sda``), or ``None`` for a non-partition."""
    root = as_root(root)
    sname = sys_name(name)
    if not root.exists(f"/sys/class/block/{sname}/partition"):
        return None
    link = root.readlink(f"/sys/class/block/{sname}") or ""
    return dev_name(link.rstrip("/").split("/")[-2]) if link.count("/") >= 1 else None


def _speed_value(text: str | None) -> tuple[str | None, int | None, str]:
    """``1000 (system)`` → (``system``, 1000, shown); ``5000 (local)`` → (``5000``, 5000, shown)."""
    number = first_int(text)
    if number is None:
        # The kernel always prints a number; a copied tree may hold just the word written.
        return ("system", None, "system") if (text or "").strip() == "system" else (None, None, "unreadable")
    if "system" in (text or ""):
        return "system", number, f"{number} KiB/s (system)"
    return str(number), number, f"{number} KiB/s (local)"


def read_knobs(root: Root | str, name: str, *, requests: bool = False) -> list[Knob]:
    """Read every knob ``name`` has under ``root`` (start values not filled in).

    Raises :class:`TuningError` for an unknown target; knobs whose file is
    missing are left out (md has no scheduler choice, raid1 no stripe cache).
    ``requests`` adds md's ``sync_action``, which only the writer needs.
    """
    root = as_root(root)
    target = read_target(root, name)
    if target.kind == "global":
        return _global_knobs(root)
    knobs: list[Knob] = []
    if target.kind == "md":
        knobs.extend(_md_knobs(root, target))
        if requests:
            knobs.extend(_md_requests(root, target))
    knobs.extend(_queue_knobs(root, target.name))
    return knobs


def _md_requests(root: Root, target: Target) -> list[Knob]:
    knobs = []
    for attr in MD_REQUESTS:
        path = system_path(target.name, attr)
        if root.exists(path):
            value = (root.read_optional(path) or "").strip() or None
            knobs.append(
                Knob(
                    target.name,
                    attr,
                    path,
                    value,
                    value or "unreadable",
                    Allowed(choices=SYNC_REQUESTS),
                    _is_writable(root, path),
                )
            )
    return knobs


def _global_knobs(root: Root) -> list[Knob]:
    knobs = []
    for attr in GLOBAL_KNOBS:
        path = system_path(GLOBAL_TARGET, attr)
        if not root.exists(path):
            continue
        value = first_int(root.read_optional(path))
        allowed = Allowed(low=0 if attr == "speed_limit_min" else 1, high=INT_MAX)
        knobs.append(
            Knob(
                GLOBAL_TARGET,
                attr,
                path,
                None if value is None else str(value),
                "unreadable" if value is None else f"{value} KiB/s",
                allowed,
                _is_writable(root, path),
                value,
            )
        )
    return knobs


def _md_knobs(root: Root, target: Target) -> list[Knob]:
    knobs = []
    for attr in MD_KNOBS:
        path = system_path(target.name, attr)
        if not root.exists(path):
            continue
        text = root.read_optional(path)
        writable = _is_writable(root, path)
        if attr in ("sync_speed_min", "sync_speed_max"):
            value, number, shown = _speed_value(text)
            allowed = Allowed(low=1, high=INT_MAX, words=("system",))
            knobs.append(Knob(target.name, attr, path, value, shown, allowed, writable, number))
            continue
        number = first_int(text)
        if attr == "stripe_cache_size":
            allowed = Allowed(low=17, high=32768)
            disks = first_int(root.read_optional(f"/sys/block/{sys_name(target.name)}/md/raid_disks")) or 0
            memory = f" ({_mib(number * PAGE_KB * disks)} RAM)" if number is not None and disks else ""
            shown = "unreadable" if number is None else f"{number}{memory}"
        else:
            allowed = Allowed(low=0, high=8192)
            shown = "unreadable" if number is None else str(number)
        knobs.append(
            Knob(target.name, attr, path, None if number is None else str(number), shown, allowed, writable, number)
        )
    return knobs


def _mib(kib: int) -> str:
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


_RQ_AFFINITY = {"0": "any CPU", "1": "submitter's group", "2": "submitting CPU"}
_NOMERGES = {"0": "all merges", "1": "simple merges", "2": "no merges"}


def _queue_knobs(root: Root, name: str) -> list[Knob]:
    settings = read_queue_settings(root, name)
    knobs = []
    for attr in QUEUE_KNOBS:
        path = system_path(name, attr)
        if not root.exists(path):
            continue
        writable = _is_writable(root, path)
        number = None
        if attr == "scheduler":
            value = settings.scheduler
            allowed = Allowed(choices=settings.schedulers or ((value,) if value else ()))
            shown = value or "unreadable"
        elif attr == "write_cache":
            value = settings.write_cache
            allowed = Allowed(choices=("write back", "write through"))
            shown = value or "unreadable"
        else:
            number = getattr(settings, attr)
            value = None if number is None else str(number)
            shown = "unreadable" if number is None else str(number)
            if attr == "read_ahead_kb":
                allowed = Allowed(low=0, high=READ_AHEAD_LIMIT_KB, multiple_of=PAGE_KB)
                if number is not None:
                    shown = f"{number} KiB (setra {number * 2})"
            elif attr == "nr_requests":
                note = "with scheduler none: at most the driver's queue depth" if settings.scheduler == "none" else ""
                allowed = Allowed(low=BLKDEV_MIN_RQ, high=MAX_SCHED_RQ, note=note)
            elif attr == "max_sectors_kb":
                high = settings.max_hw_sectors_kb or INT_MAX
                allowed = Allowed(low=max(4, PAGE_KB), high=high, note="at most max_hw_sectors_kb")
                if number is not None:
                    shown = f"{number} KiB"
            elif attr == "rq_affinity":
                allowed = Allowed(choices=("0", "1", "2"))
                shown = f"{number} ({_RQ_AFFINITY.get(str(number), '?')})" if number is not None else shown
            else:  # nomerges
                allowed = Allowed(choices=("0", "1", "2"))
                shown = f"{number} ({_NOMERGES.get(str(number), '?')})" if number is not None else shown
        knobs.append(Knob(name, attr, path, value, shown, allowed, writable, number))
    return knobs


def missing_reason(root: Root, target: str, attr: str) -> str:
    """Why ``target`` has no ``attr``, in words."""
    spec = SPECS[attr]
    if spec.scope == "md":
        if not root.exists(f"/sys/block/{sys_name(target)}/md"):
            return f"{target} is not an md array: {attr} belongs to md arrays"
        if attr in ("stripe_cache_size", "group_thread_cnt"):
            return f"{target}: {attr} exists only for raid4/5/6 arrays"
    if spec.scope == "global" and target != GLOBAL_TARGET:
        return f"{attr} is system-wide: use target {GLOBAL_TARGET!r} (raidtop tune {GLOBAL_TARGET} {attr} VALUE)"
    if spec.scope == "queue" and target == GLOBAL_TARGET:
        return f"{attr} belongs to block devices, not to {GLOBAL_TARGET!r}"
    return f"{target} has no {attr} (the kernel does not expose it for this device)"
