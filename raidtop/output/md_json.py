"""The md part of ``raidtop snapshot --json``, exactly as issue 3's schema says.

Only the schema's keys are written (plus, in the snapshot, the read-only
flags: :func:`snapshot_array_to_json`); richer fields (consistency policy, uuid,
notes...) stay in the dataclasses for the UI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from raidtop.model.md import MdArray, MdEvent, MdMember, MdSync, RaidSpeedLimit


def member_to_json(member: MdMember) -> dict[str, Any]:
    """One entry of an array's ``members``."""
    return {"name": member.name, "slot": member.slot, "roles": list(member.roles), "errors": member.errors}


def sync_to_json(sync: MdSync | None) -> dict[str, Any] | None:
    """An array's ``sync`` object, or ``None`` when nothing runs or waits."""
    if sync is None:
        return None
    return {
        "action": sync.action,
        "percent": sync.percent,
        "done_kib": sync.done_kib,
        "total_kib": sync.total_kib,
        "speed_kib_s": sync.speed_kib_s,
        "eta_s_kernel": sync.eta_s_kernel,
        "eta_s": sync.eta_s,
        "eta_basis": sync.eta_basis,
        "rate_kib_s": sync.rate_kib_s,
        "stalled": sync.stalled,
    }


def array_to_json(array: MdArray) -> dict[str, Any]:
    """One entry of ``arrays``."""
    return {
        "name": array.name,
        "level": array.level,
        "state": array.state,
        "health": array.health,
        "raid_disks": array.raid_disks,
        "degraded": array.degraded,
        "size_kib": array.size_kib,
        "chunk_kib": array.chunk_kib,
        "layout": array.layout,
        "metadata": array.metadata,
        "bitmap": array.bitmap,
        "members": [member_to_json(m) for m in array.members],
        "sync": sync_to_json(array.sync),
        "mismatch_cnt": array.mismatch_cnt,
        "sync_speed_min": array.sync_speed_min,
        "sync_speed_max": array.sync_speed_max,
        "stripe_cache_size": array.stripe_cache_size,
    }


def snapshot_array_to_json(array: MdArray) -> dict[str, Any]:
    """One entry of the snapshot's ``arrays``: issue 3's fields, then the read-only flags.

    The flags came later (additive, for ``raidtop fleet --ssh``), and so did the
    stall, the limit holding a sync and the degraded-since clock: mdstat alone
    says ``active (auto-read-only)``, so a reader of ``state`` would call such
    an array active. :func:`array_to_json` stays issue 3's schema, which the
    recorded VM traces are compared against.
    """
    entry = array_to_json(array) | {"read_only": array.read_only, "auto_read_only": array.auto_read_only}
    # Issue 23's additions: the stall, the limit holding a sync, slots empty by design, since when degraded.
    if array.sync is not None:
        entry["sync"] |= {
            "stalled_s": array.sync.stalled_s,
            "held_by": array.sync.held_by,
            "held_limit_kib_s": array.sync.held_limit_kib_s,
        }
    return entry | {
        "sparse_by_design": array.sparse_by_design,
        "degraded_since": array.degraded_since,
        "degraded_since_basis": array.degraded_since_basis,
    }


def speed_limit_to_json(limit: RaidSpeedLimit | None) -> dict[str, Any]:
    """``raid_speed_limit``; both values ``None`` when /proc/sys/dev/raid is absent."""
    if limit is None:
        return {"min": None, "max": None}
    return {"min": limit.min, "max": limit.max}


def event_to_json(event: MdEvent) -> dict[str, Any]:
    """One entry of ``events``."""
    return {
        "time": event.time,
        "array": event.array,
        "event": event.event,
        "member": event.member,
        "expected": event.expected,
    }


def md_to_json(
    arrays: Sequence[MdArray], speed_limit: RaidSpeedLimit | None, events: Sequence[MdEvent]
) -> dict[str, Any]:
    """The three top-level keys md adds to the snapshot."""
    return {
        "arrays": [snapshot_array_to_json(a) for a in arrays],
        "raid_speed_limit": speed_limit_to_json(speed_limit),
        "events": [event_to_json(e) for e in events],
    }
