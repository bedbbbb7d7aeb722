"""Read md arrays from /sys/block/md*/md under a root.

sysfs is md's machine interface and raidtop's primary source. Facts that
shape this reader (checked on a 6.1 kernel, see issue 3):

* ``sync_completed`` counts 512-byte sectors ("32768 / 129024"), mdstat counts
  1 KiB blocks; both use the per-device size as the denominator for raid4/5/6.
* ``raid_disks``, ``chunk_size`` and ``layout`` read "new (old)" during a
  reshape; the first number, the target geometry, is kept (mdstat's [n/m]
  shows the new count too).
* Write-only attributes (new_dev, bitmap_set_bits) are listed but unreadable,
  so only attributes raidtop uses are opened, and only when listed.
* ``rdN`` are symlinks to ``dev-*``: the slot of a member whose ``slot`` file
  is missing.
* ``bitmap/location`` is ``none`` without a bitmap, ``file`` for a bitmap file,
  and a sector offset such as ``+8`` for an internal one.

Each array costs one directory listing plus one small read per attribute used;
attributes that only matter during a sync are read only while one runs.
"""

from __future__ import annotations

import re

from raidtop.collect.md.level import container_of, judge_health, layout_name, natural_key, sort_roles, sync_percent
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.model.md import MdArray, MdMember, MdSync

_SYNC_ACTIONS = frozenset({"resync", "recover", "check", "repair", "reshape"})
_RD_LINK = re.compile(r"^rd(\d+)$")
_FIRST_INT = re.compile(r"^\s*(\d+)")


class _Attrs:
    """Reads the attributes of one ``md/`` directory, noting failures once each."""

    __slots__ = ("root", "base", "listed", "notes", "name")

    def __init__(self, root: Root, name: str, base: str, listed: set[str], notes: list[str]) -> None:
        self.root = root
        self.name = name
        self.base = base
        self.listed = listed
        self.notes = notes

    def text(self, attr: str) -> str | None:
        """The stripped value of a listed attribute, ``None`` if absent or unreadable."""
        top = attr.split("/", 1)[0]
        if top not in self.listed:
            return None
        try:
            return self.root.read_text(f"{self.base}/{attr}").strip()
        except SourceError as exc:
            self.notes.append(f"{self.name}: {exc}")
            return None

    def number(self, attr: str) -> int | None:
        """The first integer of an attribute ("1000 (system)", "11 (10)")."""
        return parse_int(self.text(attr), self.name, attr, self.notes)


def parse_int(value: str | None, array: str, attr: str, notes: list[str]) -> int | None:
    """Read a leading integer; "none" and "" mean unknown, anything else is noted."""
    if value is None or value in ("", "none"):
        return None
    match = _FIRST_INT.match(value)
    if match is None:
        notes.append(f"{array}: {attr} reads {value[:40]!r}, not a number")
        return None
    return int(match.group(1))


_MD_PREFIX = re.compile("md").match


def list_md_arrays(root: Root) -> list[str] | None:
    """Names under /sys/block that look like md arrays, or ``None`` without /sys/block."""
    try:
        names = root.listdir("/sys/block")
    except SourceError:
        return None
    return sorted(filter(_MD_PREFIX, names), key=natural_key)  # filter with a C predicate: thousands of names


def read_md_sysfs(root: Root | str = "/", names: list[str] | None = None) -> tuple[list[MdArray], list[str]]:
    """Read every md array under ``root``'s /sys/block; never raises on bad input.

    Returns the arrays (md2 before md10) and notes saying what could not be read.
    A root without /sys/block gives no arrays and no notes: the caller falls
    back to /proc/mdstat. ``names``: what :func:`list_md_arrays` returned for
    this root, when the caller knows the listing still holds (None: list it).
    """
    root = as_root(root)
    notes: list[str] = []
    if names is None:
        names = list_md_arrays(root)
    if names is None:
        return [], notes
    arrays = []
    for name in names:
        array = read_md_array(root, name, notes)
        if array is not None and not is_empty_shell(array):
            arrays.append(array)
    return arrays, notes


def is_empty_shell(array: MdArray) -> bool:
    """True for an md name that holds no array: stopped, or reopened after a stop.

    Opening /dev/mdN after ``mdadm --stop`` (udev, mdadm --monitor, any
    reader) brings the name back as array_state ``clear`` with no members
    and no level; /proc/mdstat and mdadm do not list it, so neither does raidtop.
    """
    return array.state == "clear" and not array.members and not array.raid_disks


def read_md_array(root: Root, name: str, notes: list[str] | None = None) -> MdArray | None:
    """Read one array's ``md/`` directory; ``None`` if it has none (not md, or gone)."""
    notes = [] if notes is None else notes
    base = f"/sys/block/{name}/md"
    try:
        listing = root.listdir(base)
    except SourceError:
        return None
    array_notes: list[str] = []
    attrs = _Attrs(root, name, base, set(listing), array_notes)

    level = attrs.text("level") or None
    state = attrs.text("array_state") or None
    raid_disks = attrs.number("raid_disks")
    degraded = attrs.number("degraded")
    chunk = attrs.number("chunk_size")
    layout_text = attrs.text("layout")
    # raid0 reads -1 when no multi-zone layout is set (the real raid0):
    # its normal value, not a reading to note.
    layout_number = None if layout_text == "-1" else parse_int(layout_text, name, "layout", array_notes)
    layout = layout_name(level, layout_number) if layout_number is not None else None
    metadata = attrs.text("metadata_version") or None
    container, container_member = container_of(metadata)

    members = _read_members(root, name, base, listing, array_notes)
    status = _status(level, raid_disks, members)
    sync = _read_sync(attrs, state)

    size_kib = None
    if state not in ("inactive", "clear", None):
        size_sectors = parse_int(root.read_optional(f"/sys/block/{name}/size"), name, "size", array_notes)
        size_kib = None if size_sectors is None else size_sectors // 2

    bitmap = None
    if "bitmap" in attrs.listed:
        location = attrs.text("bitmap/location")
        if location == "none":
            bitmap = "none"
        elif location == "file":
            bitmap = "file"  # sysfs does not give the path; mdstat does
        elif location:
            bitmap = "internal"

    health = judge_health(
        level=level,
        state=state,
        raid_disks=raid_disks,
        degraded=degraded,
        status=status,
        layout=layout,
        members=members,
    )
    array = MdArray(
        name=name,
        level=level,
        state=state,
        health=health,
        raid_disks=raid_disks,
        degraded=degraded,
        size_kib=size_kib,
        chunk_kib=chunk // 1024 if chunk else None,
        layout=layout,
        metadata=metadata,
        bitmap=bitmap,
        members=tuple(members),
        sync=sync,
        sysfs_sync_action=attrs.text("sync_action"),
        mismatch_cnt=attrs.number("mismatch_cnt"),
        sync_speed_min=attrs.number("sync_speed_min"),
        sync_speed_max=attrs.number("sync_speed_max"),
        stripe_cache_size=attrs.number("stripe_cache_size"),
        consistency_policy=attrs.text("consistency_policy") or None,
        component_size_kib=attrs.number("component_size"),
        reshape_position=attrs.number("reshape_position"),
        last_sync_action=_sync_action_word(attrs.text("last_sync_action")),
        uuid=attrs.text("uuid") or None,
        status=status,
        read_only=state == "readonly",
        auto_read_only=state == "read-auto",
        container=container,
        container_member=container_member,
        notes=tuple(array_notes),
        source="sysfs",
    )
    notes.extend(array_notes)
    return array


def _read_members(root: Root, name: str, base: str, listing: list[str], notes: list[str]) -> list[MdMember]:
    """Read ``dev-*/{state,errors}``, and the slot from the ``rdN`` links.

    md links ``rdN`` to every member holding slot N except replacements and
    journals, so one readlink per slot replaces reading a ``slot`` file per
    member; only members without a link have their ``slot`` file read.
    """
    rd_slots = _rd_links(root, base, listing)
    members = []
    for entry in listing:
        if not entry.startswith("dev-"):
            continue
        member_base = f"{base}/{entry}"
        state = root.read_optional(f"{member_base}/state")
        if state is None:
            notes.append(f"{name}: {entry}/state unreadable (member removed while reading?)")
            state = ""
        roles = _ROLES_CACHE.get(state)
        if roles is None:
            roles = _ROLES_CACHE[state] = sort_roles(w for w in state.strip().split(",") if w)
        slot = rd_slots.get(entry)
        if slot is None:
            slot = parse_int(_strip(root.read_optional(f"{member_base}/slot")), name, f"{entry}/slot", notes)
        errors = parse_int(_strip(root.read_optional(f"{member_base}/errors")), name, f"{entry}/errors", notes)
        members.append(MdMember(entry[4:], slot, roles, errors))
    # mdadm --detail order: by slot, then spares and faulty devices by name.
    members.sort(key=_member_order)
    return members


# dev-*/state holds a handful of distinct strings; parse each once per process.
_ROLES_CACHE: dict[str, tuple[str, ...]] = {}


def _member_order(member: MdMember) -> tuple:
    if member.slot is not None:
        return (0, member.slot)
    return (1, natural_key(member.name))


def _strip(value: str | None) -> str | None:
    return None if value is None else value.strip()


def _rd_links(root: Root, base: str, listing: list[str]) -> dict[str, int]:
    slots = {}
    for entry in listing:
        if not entry.startswith("rd"):
            continue
        match = _RD_LINK.match(entry)
        if match is None:
            continue
        target = root.readlink(f"{base}/{entry}")
        if target:
            slots[target.rstrip("/").rsplit("/", 1)[-1]] = int(match.group(1))
    return slots


def _status(level: str | None, raid_disks: int | None, members: list[MdMember]) -> str | None:
    """Build mdstat's ``UU_`` from member slots, as md's status functions do."""
    if level in (None, "raid0", "linear", "container", "faulty") or not raid_disks:
        return None
    by_slot = {m.slot: m for m in members if m.slot is not None and m.is_in_sync}
    if not any(m.slot is not None for m in members):
        return None  # no slot information at all: a pattern would be made up
    return "".join("U" if slot in by_slot else "_" for slot in range(raid_disks))


def _sync_action_word(value: str | None) -> str | None:
    """``last_sync_action`` reads ``none`` before any sync has run: that is no action."""
    return None if value in (None, "", "none") else value


def _read_sync(attrs: _Attrs, state: str | None) -> MdSync | None:
    action = attrs.text("sync_action")
    if action in _SYNC_ACTIONS:
        completed = attrs.text("sync_completed")
        if completed == "delayed":
            return MdSync(action="delayed")
        done = total = None
        if completed and "/" in completed:
            left, _, right = completed.partition("/")
            done = parse_int(left.strip(), attrs.name, "sync_completed", attrs.notes)
            total = parse_int(right.strip(), attrs.name, "sync_completed", attrs.notes)
        speed = attrs.number("sync_speed")
        percent = sync_percent(done, total)
        if done is not None and total and done > total:
            attrs.notes.append(f"{attrs.name}: sync_completed {completed!r} is past its end")
        done_kib = None if done is None else done // 2
        total_kib = None if total is None else total // 2
        eta = None
        if speed and done_kib is not None and total_kib is not None:
            # The kernel's own finish= formula: remaining over the recent rate.
            eta = round((total_kib - done_kib) / speed, 1)
        return MdSync(
            action=action,
            percent=percent,
            done_kib=done_kib,
            total_kib=total_kib,
            speed_kib_s=speed,
            eta_s_kernel=eta,
        )
    if state in ("read-auto", "readonly") and action in ("idle", "frozen"):
        # mdstat's resync=PENDING: a resync is owed but waits for the first
        # write (read-auto) or for the array to be made writable (readonly).
        resync_start = attrs.text("resync_start")
        if resync_start not in (None, "none"):
            return MdSync(action="pending")
    return None
