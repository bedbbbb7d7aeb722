"""The one state of an array and the one role of a member, as the exporter and the fleet view name them.

Plain functions over the model, without prometheus-client, so the fleet view
can judge a ``raidtop snapshot --json`` document the same way.
"""

from __future__ import annotations

from raidtop.model.md import MdArray, MdMember

MD_STATES = (
    "clean",
    "active",
    "degraded",
    "resyncing",
    "recovering",
    "checking",
    "repairing",
    "reshaping",
    "delayed",
    "pending",
    "inactive",
    "read-only",
    "broken",
)
"""Every value of the ``state`` label of ``raidtop_md_state``; exactly one is 1."""

MEMBER_ROLES = ("in_sync", "rebuilding", "spare", "faulty", "journal", "unknown")
"""Every value of the ``role`` label of ``raidtop_md_member_role``; exactly one is 1."""

_ACTION_STATE = {
    "resync": "resyncing",
    "recover": "recovering",
    "check": "checking",
    "repair": "repairing",
    "reshape": "reshaping",
    "delayed": "delayed",
    "pending": "pending",
}


def array_state(array: MdArray) -> str:
    """The one state of :data:`MD_STATES` that describes ``array`` best, worst first.

    A degraded array that recovers is ``recovering`` (its degraded count stays
    in ``raidtop_md_degraded_disks``): the state says what md is doing now.
    """
    if array.state == "broken" or array.health == "failed":
        return "broken"
    if array.health == "inactive" or array.state in ("inactive", "clear"):
        return "inactive"
    if array.sync is not None:
        return _ACTION_STATE.get(array.sync.action, "active")
    if array.health == "degraded":
        return "degraded"
    if array.read_only or array.auto_read_only or array.state in ("readonly", "read-auto"):
        return "read-only"
    return "clean" if array.state == "clean" else "active"


def member_role(member: MdMember) -> str:
    """The one role of :data:`MEMBER_ROLES` a member plays; a spare with a slot is being rebuilt onto."""
    if member.is_faulty:
        return "faulty"
    if "journal" in member.roles:
        return "journal"
    if member.is_in_sync:
        return "in_sync"
    if member.is_spare:
        return "rebuilding" if member.slot is not None else "spare"
    return "unknown"
