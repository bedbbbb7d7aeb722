"""Read what the audit needs beyond the snapshot: per-member sysfs files, uptime, scrub schedules.

Every path goes through a :class:`~raidtop.collect.source.Root` (fixtures,
recordings and the demo are roots too); a file that is absent is ``None``,
never a guess. Names come from md's own ``dev-*`` entries and are checked
before they are put into a path.
"""

from __future__ import annotations

from collections.abc import Iterable

from raidtop.audit.model import AuditFacts, MemberFacts
from raidtop.collect.source import Root
from raidtop.collect.whole_disk import valid_name
from raidtop.model.md import MdArray
from raidtop.untrusted import finite

MAX_LINES = 512
"""md prints at most a page of bad-block entries; more than this is not a sysfs file."""

SCRUB_SCHEDULES = (
    "/etc/cron.d/mdadm",
    "/etc/cron.d/raid-check",
    "/etc/systemd/system/timers.target.wants/mdcheck_start.timer",
    "/etc/systemd/system/mdadm.service.wants/mdcheck_start.timer",
    "/etc/systemd/system/multi-user.target.wants/mdcheck_start.timer",
)
"""Where the distributions schedule md's periodic check (the README's Audit section names them)."""


def read_facts(root: Root, arrays: Iterable[MdArray]) -> AuditFacts:
    """Read each array's members' facts, the uptime and which scrub schedules exist."""
    members: dict[str, MemberFacts] = {}
    notes: list[str] = []
    for array in arrays:
        if not valid_name(array.name):
            continue
        for member in array.members:
            if valid_name(member.name):
                members[f"{array.name}/{member.name}"] = read_member(root, array.name, member.name)
    uptime = None
    text = root.read_optional("/proc/uptime")
    if text and text.split():
        uptime = finite(text.split()[0], 0.0, 1e10)
    if uptime is None:
        notes.append("/proc/uptime unreadable: the scrub age cannot be judged")
    schedules = tuple(p for p in SCRUB_SCHEDULES if root.exists(p))
    return AuditFacts(members=members, uptime_s=uptime, scrub_schedules=schedules, notes=tuple(notes))


def read_member(root: Root, array: str, member: str) -> MemberFacts:
    """One member's bad-block logs, data offset, partition start and its disk's queue settings."""
    base = f"/sys/block/{array}/md/dev-{member}"
    node = f"/sys/class/block/{member}"
    start = _int(root.read_optional(f"{node}/start"))
    disk = _parent_disk(root, member) if root.exists(f"{node}/partition") else member
    disk_base = f"/sys/block/{disk}" if disk else None
    cache = root.read_optional(f"{disk_base}/queue/write_cache") if disk_base else None
    rotational = _int(root.read_optional(f"{disk_base}/queue/rotational")) if disk_base else None
    return MemberFacts(
        name=member,
        disk=disk,
        bad_blocks=_lines(root.read_optional(f"{base}/bad_blocks")),
        unacknowledged_bad_blocks=_lines(root.read_optional(f"{base}/unacknowledged_bad_blocks")),
        offset_sectors=_int(root.read_optional(f"{base}/offset")),
        partition_start=start if root.exists(f"{node}/partition") else None,
        physical_block=_int(root.read_optional(f"{disk_base}/queue/physical_block_size")) if disk_base else None,
        command_timeout_s=_int(root.read_optional(f"{disk_base}/device/timeout")) if disk_base else None,
        write_cache=cache.strip()[:32] if cache else None,
        rotational=None if rotational is None else rotational == 1,
    )


def _parent_disk(root: Root, partition: str) -> str | None:
    """``sdb`` for ``sdb1``: the directory above the partition in its sysfs path."""
    target = root.readlink(f"/sys/class/block/{partition}")
    if not target:
        return None
    parts = target.rstrip("/").split("/")
    parent = parts[-2] if len(parts) >= 2 else ""
    return parent if valid_name(parent) else None


def _lines(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    lines = [" ".join(line.split()[:2]) for line in text.splitlines() if line.strip()]
    return tuple(line for line in lines[:MAX_LINES] if all(p.isdigit() for p in line.split()))


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.isdigit() and len(text) < 19 else None
