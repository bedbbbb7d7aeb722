"""One array's mdstat lines become an MdArray: level, members, counts, layout, bitmap and progress.

The second half of the parser (see :mod:`raidtop.collect.md.mdstat`); the lines
arrive sorted by :mod:`raidtop.collect.md.mdstat_lines`.
"""

from __future__ import annotations

import re

from raidtop.collect.md.level import (
    NO_REDUNDANCY,
    container_of,
    judge_health,
    layout_name,
    raid10_layout,
    sort_roles,
    sync_percent,
)
from raidtop.collect.md.mdstat_lines import (
    ALGORITHM,
    ARRAY_WORDS,
    BITMAP,
    BLOCKS,
    CHUNK,
    COPIES,
    COUNTS,
    DONE_TOTAL,
    FINISH,
    LEVEL,
    MEMBER,
    PATTERN,
    PROGRESS,
    SPEED,
    SUPER,
    ArrayLines,
)
from raidtop.model.md import MdArray, MdMember, MdSync

AMBIGUOUS_ROLES = "their roles are left unknown"
"""Ends the note for members whose in_sync mdstat cannot settle; sysfs can."""

# mdstat prints "recovery" where sysfs says "recover", and a repair as "resync".
_ACTIONS = {"resync": "resync", "recovery": "recover", "reshape": "reshape", "check": "check", "repair": "repair"}


def _parse_header(block: ArrayLines) -> tuple[str | None, bool, bool, str | None, list[tuple[str, int, str]]]:
    """Read state word, read-only flags, level and members from the header."""
    tokens = block.header.split()
    state = None
    read_only = auto_read_only = False
    level = None
    members: list[tuple[str, int, str]] = []
    for token in tokens + block.extra_members:
        lowered = token.lower()
        if state is None and lowered in ARRAY_WORDS:
            state = lowered
        elif lowered == "(read-only)":
            read_only = True
        elif lowered == "(auto-read-only)":
            auto_read_only = True
        elif level is None and not members and LEVEL.match(lowered):
            level = lowered
        elif (member := MEMBER.match(token)) is not None:
            members.append((member.group("dev"), int(member.group("num")), member.group("flags").upper()))
        else:
            block.notes.append(f"{block.name}: word {token[:40]!r} in the first line not understood")
    return state, read_only, auto_read_only, level, members


def _first_int(pattern: re.Pattern[str], text: str, group: int = 1) -> int | None:
    match = pattern.search(text)
    return int(match.group(group)) if match else None


def build_array(block: ArrayLines) -> MdArray:
    state, read_only, auto_read_only, level, raw_members = _parse_header(block)
    status_text = " ".join(block.status_text)
    has_status = bool(BLOCKS.search(status_text))
    if not block.status_text:
        block.notes.append(f"{block.name}: only the first line of its entry is present")
    elif not has_status:
        block.notes.append(f"{block.name}: its status line has no block count")

    super_match = SUPER.search(status_text)
    if super_match:
        metadata = super_match.group(1).rstrip(",")
        if metadata == "non-persistent":
            metadata = "none"  # what sysfs metadata_version says for it
    elif has_status:
        metadata = "0.90"  # the kernel prints no "super" for 0.90 superblocks
    else:
        metadata = None
    container, container_member = container_of(metadata)
    if level is None and metadata and metadata.startswith("external:") and container is None:
        level = "container"  # what sysfs and mdadm call an IMSM/DDF container

    counts = COUNTS.search(status_text)
    raid_disks = degraded = None
    if counts:
        raid_disks, working = int(counts.group(1)), int(counts.group(2))
        if working <= raid_disks:
            degraded = raid_disks - working
        else:
            block.notes.append(f"{block.name}: [{raid_disks}/{working}] has more working devices than slots")
    pattern_match = PATTERN.search(status_text)
    status = pattern_match.group(1) if pattern_match else None
    active = state in ("active", "broken")

    chunk = _first_int(CHUNK, status_text)
    layout = None
    algorithm = _first_int(ALGORITHM, status_text)
    if algorithm is not None:
        layout = layout_name(level, algorithm)
    copies: dict[str, int] = {kind: int(n) for n, kind in COPIES.findall(status_text)}
    if copies:
        far = copies.get("far", copies.get("offset", 1))
        layout = raid10_layout(copies.get("near", 1), far, "offset" in copies)

    members = _members(block, raw_members, level, active, status)
    if raid_disks is None and level in NO_REDUNDANCY and active and has_status:
        # raid0 and linear print no [n/m]; every listed member holds a slot.
        raid_disks = sum(1 for m in members if not (m.is_faulty or m.is_spare))

    bitmap = None
    if block.bitmap_line is not None:
        bitmap_match = BITMAP.search(block.bitmap_line)
        if bitmap_match is None:
            block.notes.append(f"{block.name}: bitmap line not understood")
            bitmap = "internal" if "file:" not in block.bitmap_line else None
        else:
            bitmap = bitmap_match.group("file") or "internal"
    elif block.complete and has_status and active:
        bitmap = "none"

    sync = _sync(block)
    health = judge_health(
        level=level,
        state=state,
        raid_disks=raid_disks,
        degraded=degraded,
        status=status,
        layout=layout,
        members=members,
    )
    return MdArray(
        name=block.name,
        level=level,
        state=state,
        health=health,
        raid_disks=raid_disks,
        degraded=degraded,
        size_kib=_first_int(BLOCKS, status_text) if active else None,
        chunk_kib=chunk or None,
        layout=layout,
        metadata=metadata,
        bitmap=bitmap,
        members=tuple(members),
        sync=sync,
        status=status,
        read_only=read_only,
        auto_read_only=auto_read_only,
        container=container,
        container_member=container_member,
        notes=tuple(block.notes),
        source="mdstat",
    )


_FLAG_ROLES = {"(W)": "write_mostly", "(J)": "journal", "(F)": "faulty", "(S)": "spare", "(R)": "replacement"}


def _members(
    block: ArrayLines,
    raw: list[tuple[str, int, str]],
    level: str | None,
    active: bool,
    status: str | None,
) -> list[MdMember]:
    """Turn ``name[N](flags)`` into members, deciding in_sync only when certain."""
    flagged_roles: list[list[str]] = []
    for _name, _number, flags in raw:
        roles = [role for flag, role in _FLAG_ROLES.items() if flag in flags]
        flagged_roles.append(roles)

    # Members without F, S, J or R hold a slot; mdstat's [UU_] says how many
    # of those slots are in sync but not which member is which.
    slotted = [
        i for i, roles in enumerate(flagged_roles) if not set(roles) & {"faulty", "spare", "journal", "replacement"}
    ]
    in_sync_known = False
    if active and level in NO_REDUNDANCY:
        in_sync_known = True
    elif active and status is not None:
        if status.count("U") == len(slotted):
            in_sync_known = True
        elif slotted:
            names = ", ".join(raw[i][0] for i in slotted)
            block.notes.append(
                f"{block.name}: mdstat does not say which of {names} are in sync "
                f"({status.count('U')} of {len(slotted)}); {AMBIGUOUS_ROLES}"
            )
    if in_sync_known:
        for i in slotted:
            flagged_roles[i].append("in_sync")
    return [
        MdMember(name, None, _sorted_roles(roles), None, number)
        for (name, number, _flags), roles in zip(raw, flagged_roles)
    ]


_ROLES_CACHE: dict[tuple[str, ...], tuple[str, ...]] = {}


def _sorted_roles(roles: list[str]) -> tuple[str, ...]:
    """sort_roles, remembered: mdstat members share a few role combinations."""
    key = tuple(roles)
    cached = _ROLES_CACHE.get(key)
    if cached is None:
        cached = _ROLES_CACHE[key] = sort_roles(roles)
    return cached


def _sync(block: ArrayLines) -> MdSync | None:
    if block.progress_text:
        text = " ".join(block.progress_text)
        match = PROGRESS.search(text)
        if match is None:
            block.notes.append(f"{block.name}: progress line not understood")
            return None
        done_total = DONE_TOTAL.search(text)
        finish = FINISH.search(text)
        speed = SPEED.search(text)
        if done_total is None or finish is None or speed is None:
            block.notes.append(f"{block.name}: progress line incomplete")
        percent: float | None = float(match.group(2))
        done = int(done_total.group(1)) if done_total else None
        total = int(done_total.group(2)) if done_total else None
        if done is not None and total:
            # The printed per-mille is truncated twice by the kernel; the counts are exact.
            percent = sync_percent(done, total)
        if percent is None or percent > 100:
            block.notes.append(f"{block.name}: progress {match.group(2)}% is over 100 %")
            percent = None
        return MdSync(
            action=_ACTIONS[match.group(1)],
            percent=percent,
            done_kib=done,
            total_kib=total,
            speed_kib_s=int(speed.group(1)) if speed else None,
            eta_s_kernel=round(float(finish.group(1)) * 60, 1) if finish else None,
        )
    if block.waiting in ("DELAYED", "PENDING"):
        return MdSync(action=block.waiting.lower())
    if block.waiting == "REMOTE":
        block.notes.append(f"{block.name}: resync=REMOTE (another cluster node is syncing) is shown as no sync")
    return None
