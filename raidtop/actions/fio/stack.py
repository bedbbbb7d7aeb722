"""The device stack under a benchmark target and the tuning in force on it.

A file sits on a filesystem whose device may be an md array built from
partitions of disks; a loop device sits on a backing file on another device.
A benchmark result only means something next to the settings of every layer,
so this module walks the stack (``/proc/self/mountinfo``, then sysfs
``slaves/`` links, then loop ``backing_file``) and records each device's queue
settings and, for md arrays, level, chunk, members, state, sync and limits.

Everything reads through a :class:`~raidtop.collect.source.Root`; only turning
a path the user typed into a device number stats the live filesystem.
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, field
from typing import Any

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.md.read import read_md
from raidtop.collect.queue_settings import read_queue_settings
from raidtop.collect.source import Root, SourceError, as_root

TUNING_FIELDS = ("scheduler", "read_ahead_kb", "nr_requests", "rq_affinity", "write_cache")
"""The queue settings recorded with every result."""


# ---------------------------------------------------------------- mountinfo


@frozen_dataclass
class MountEntry:
    """One line of /proc/self/mountinfo."""

    major: int
    minor: int
    root: str
    mount_point: str
    fstype: str
    source: str


def _unescape(text: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \040 \011 \012 \134.
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        text = text.replace(code, char)
    return text


def parse_mountinfo(text: str) -> list[MountEntry]:
    """Every well-formed line; others are skipped."""
    entries = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields_left = left.split()
        fields_right = right.split()
        if not sep or len(fields_left) < 5 or len(fields_right) < 2:
            continue
        try:
            major, minor = (int(x) for x in fields_left[2].split(":"))
        except ValueError:
            continue
        entries.append(
            MountEntry(
                major,
                minor,
                _unescape(fields_left[3]),
                _unescape(fields_left[4]),
                fields_right[0],
                _unescape(fields_right[1]),
            )
        )
    return entries


def read_mounts(root: Root | str) -> list[MountEntry]:
    """/proc/self/mountinfo under ``root`` (empty when unreadable)."""
    root = as_root(root)
    return parse_mountinfo(root.read_optional("/proc/self/mountinfo") or "")


# ---------------------------------------------------------------- devices


def sys_name(name: str) -> str:
    """The sysfs spelling of a kernel device name (cciss/c0d0 -> cciss!c0d0)."""
    return name.replace("/", "!")


def devnum_name(root: Root, major: int, minor: int) -> str | None:
    """Kernel name of block device ``major:minor`` via /sys/dev/block."""
    link = root.readlink(f"/sys/dev/block/{major}:{minor}")
    return os.path.basename(link).replace("!", "/") if link else None


def device_number(root: Root, name: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a kernel device name from sysfs ``dev``."""
    text = root.read_optional(f"/sys/class/block/{sys_name(name)}/dev")
    if text is None:
        return None
    try:
        major, minor = (int(x) for x in text.strip().split(":"))
    except ValueError:
        return None
    return major, minor


def is_partition(root: Root, name: str) -> bool:
    """True when sysfs marks ``name`` as a partition."""
    return root.exists(f"/sys/class/block/{sys_name(name)}/partition")


def whole_disk(root: Root, name: str) -> str:
    """The disk a partition belongs to (the device itself otherwise)."""
    if not is_partition(root, name):
        return name
    link = root.readlink(f"/sys/class/block/{sys_name(name)}")
    if link:
        return link.rstrip("/").split("/")[-2].replace("!", "/")
    return name


def partitions(root: Root, disk: str) -> list[str]:
    """Partitions of a whole disk (``sda1``…), from its sysfs directory."""
    base = f"/sys/block/{sys_name(disk)}"
    try:
        listing = root.listdir(base)
    except SourceError:
        return []
    return [entry.replace("!", "/") for entry in listing if root.exists(f"{base}/{entry}/partition")]


def slaves(root: Root, name: str) -> list[str]:
    """Devices directly under ``name`` (md members, dm targets)."""
    try:
        return [s.replace("!", "/") for s in root.listdir(f"/sys/class/block/{sys_name(name)}/slaves")]
    except SourceError:
        return []


def holders(root: Root, name: str) -> list[str]:
    """Devices built on ``name`` (an md array, a dm table)."""
    try:
        return [h.replace("!", "/") for h in root.listdir(f"/sys/class/block/{sys_name(name)}/holders")]
    except SourceError:
        return []


def block_device_of_path(path: str, root: Root | str) -> str | None:
    """The kernel name of the block device ``path`` is (for /dev nodes) or lives on.

    Filesystems with anonymous device numbers (btrfs, overlay) are matched
    through mountinfo's source field.
    """
    root = as_root(root)
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISBLK(st.st_mode):
        return devnum_name(root, os.major(st.st_rdev), os.minor(st.st_rdev))
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    name = devnum_name(root, major, minor) if major else None
    if name:
        return name
    for entry in read_mounts(root):
        if (entry.major, entry.minor) == (major, minor) and entry.source.startswith("/dev/"):
            try:
                source = os.stat(entry.source)
            except OSError:
                continue
            if stat.S_ISBLK(source.st_mode):
                return devnum_name(root, os.major(source.st_rdev), os.minor(source.st_rdev))
    return None


def mount_of_path(path: str, root: Root | str) -> MountEntry | None:
    """The mount a file or directory lives on (longest mount point that contains it)."""
    root = as_root(root)
    real = os.path.realpath(path)
    best: MountEntry | None = None
    for entry in read_mounts(root):
        point = entry.mount_point
        # ">=": a later mount on the same point shadows the earlier one.
        under = point == "/" or real == point or real.startswith(point.rstrip("/") + "/")
        if under and (best is None or len(point) >= len(best.mount_point)):
            best = entry
    return best


# ---------------------------------------------------------------- tuning state


@frozen_dataclass
class DeviceTuning:
    """The queue settings of one device in the stack."""

    name: str
    role: str
    """``target`` (the device benchmarked or holding the filesystem), ``member``
    (an md member), ``slave`` (under dm) or ``backing`` (under a loop device)."""
    depth: int = 0
    scheduler: str | None = None
    schedulers: tuple[str, ...] = ()
    read_ahead_kb: int | None = None
    nr_requests: int | None = None
    rq_affinity: int | None = None
    write_cache: str | None = None
    rotational: bool | None = None


@frozen_dataclass
class MdTuning:
    """An md array in the stack."""

    name: str
    level: str | None = None
    chunk_kib: int | None = None
    members: tuple[str, ...] = ()
    state: str | None = None
    health: str | None = None
    sync_action: str | None = None
    sync_running: bool = False
    sync_speed_min: int | None = None
    sync_speed_max: int | None = None


def _known(cls: Any, doc: dict[str, Any], tupled: str) -> dict[str, Any]:
    """``doc``'s fields that ``cls`` declares (JSON lists back to tuples for ``tupled``)."""
    return {k: (tuple(v) if k == tupled else v) for k, v in doc.items() if k in cls.__dataclass_fields__}


@frozen_dataclass
class TuningState:
    """Everything about a target's device stack that affects a benchmark."""

    target: str
    target_kind: str
    """``directory``, ``file`` or ``device``."""
    device: str | None = None
    """The block device benchmarked, or the filesystem's device."""
    fstype: str | None = None
    mount_point: str | None = None
    devices: tuple[DeviceTuning, ...] = ()
    arrays: tuple[MdTuning, ...] = ()
    speed_limit_min: int | None = None
    speed_limit_max: int | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def raid_level(self) -> str | None:
        """The level of the top-most md array in the stack (``raid5``), if any."""
        return self.arrays[0].level if self.arrays else None

    def settings(self) -> dict[str, str]:
        """Flat ``device.setting -> value`` for comparing two runs."""
        flat: dict[str, str] = {}
        for dev in self.devices:
            for attr in TUNING_FIELDS:
                value = getattr(dev, attr)
                if value is not None:
                    flat[f"{dev.name}.{attr}"] = str(value)
        for array in self.arrays:
            for attr in ("level", "chunk_kib", "state", "sync_action"):
                value = getattr(array, attr)
                if value is not None:
                    flat[f"{array.name}.{'chunk' if attr == 'chunk_kib' else attr}"] = (
                        f"{value}K" if attr == "chunk_kib" else str(value)
                    )
            flat[f"{array.name}.members"] = ",".join(array.members)
            flat[f"{array.name}.sync_running"] = "yes" if array.sync_running else "no"
            for attr in ("sync_speed_min", "sync_speed_max"):
                value = getattr(array, attr)
                if value is not None:
                    flat[f"{array.name}.{attr}"] = str(value)
        if self.arrays:
            if self.speed_limit_min is not None:
                flat["speed_limit_min"] = str(self.speed_limit_min)
            if self.speed_limit_max is not None:
                flat["speed_limit_max"] = str(self.speed_limit_max)
        return flat

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (stored in the history)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> TuningState:
        """Rebuild from :meth:`to_dict` output; unknown keys are ignored."""
        devices = tuple(DeviceTuning(**_known(DeviceTuning, d, "schedulers")) for d in doc.get("devices", ()))
        arrays = tuple(MdTuning(**_known(MdTuning, a, "members")) for a in doc.get("arrays", ()))
        simple = {
            k: v for k, v in doc.items() if k in cls.__dataclass_fields__ and k not in ("devices", "arrays", "notes")
        }
        return cls(devices=devices, arrays=arrays, notes=tuple(doc.get("notes", ())), **simple)


def stack_of(root: Root | str, top: str) -> list[tuple[str, str, int]]:
    """``(device, role, depth)`` from ``top`` down: md members, dm slaves, loop backing devices.

    Partitions are replaced by their disks, which hold the queue settings.
    """
    root = as_root(root)
    out: list[tuple[str, str, int]] = []
    seen: set[str] = set()

    def walk(name: str, role: str, depth: int) -> None:
        disk = whole_disk(root, name)
        if disk in seen or depth > 8:
            return
        seen.add(disk)
        out.append((disk, role, depth))
        below = slaves(root, disk)
        child_role = "member" if disk.startswith("md") else "slave"
        for child in below:
            walk(child, child_role, depth + 1)
        backing = root.read_optional(f"/sys/block/{sys_name(disk)}/loop/backing_file")
        if backing and root.is_live:
            backing_dev = block_device_of_path(backing.strip().removesuffix(" (deleted)"), root)
            if backing_dev:
                walk(backing_dev, "backing", depth + 1)

    walk(top, "target", 0)
    return out


def capture_tuning(target: str, root: Root | str = "/") -> TuningState:
    """The tuning in force for ``target`` (a directory, file or block device) right now."""
    root = as_root(root)
    notes: list[str] = []
    kind = "device"
    fstype = mount_point = None
    try:
        st = os.stat(target)
        if stat.S_ISDIR(st.st_mode):
            kind = "directory"
        elif not stat.S_ISBLK(st.st_mode):
            kind = "file"
    except OSError as exc:
        notes.append(f"{target}: {exc.strerror}")
    if kind != "device":
        mount = mount_of_path(target, root)
        if mount is not None:
            fstype, mount_point = mount.fstype, mount.mount_point
    device = block_device_of_path(target, root)
    if device is None:
        notes.append(f"{target}: no block device under it ({fstype or 'unknown filesystem'})")
        return TuningState(target, kind, None, fstype, mount_point, notes=tuple(notes))
    devices = []
    md_names = []
    for name, role, depth in stack_of(root, device):
        q = read_queue_settings(root, name)
        devices.append(
            DeviceTuning(
                name,
                role,
                depth,
                q.scheduler,
                q.schedulers,
                q.read_ahead_kb,
                q.nr_requests,
                q.rq_affinity,
                q.write_cache,
                q.rotational,
            )
        )
        if name.startswith("md"):
            md_names.append(name)
    arrays: list[MdTuning] = []
    limit_min = limit_max = None
    if md_names:
        reading = read_md(root)
        by_name = {a.name: a for a in reading.arrays}
        for name in md_names:
            array = by_name.get(name)
            if array is None:
                notes.append(f"{name}: not found in /proc/mdstat or sysfs md")
                continue
            arrays.append(
                MdTuning(
                    name=name,
                    level=array.level,
                    chunk_kib=array.chunk_kib,
                    members=tuple(m.name for m in array.members),
                    state=array.state,
                    health=array.health,
                    sync_action=array.sync.action if array.sync else None,
                    sync_running=array.syncing,
                    sync_speed_min=array.sync_speed_min,
                    sync_speed_max=array.sync_speed_max,
                )
            )
        if reading.speed_limit is not None:
            limit_min, limit_max = reading.speed_limit.min, reading.speed_limit.max
    return TuningState(
        target, kind, device, fstype, mount_point, tuple(devices), tuple(arrays), limit_min, limit_max, tuple(notes)
    )
