"""What ``mdadm --detail`` knows and sysfs does not, for one array."""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


NEEDS_MDADM = (
    "uuid (as mdadm prints it)",
    "array name",
    "creation time",
    "update time",
    "event count",
    "per-member superblock roles and event counts",
)
"""The fields raidtop shows only where mdadm is installed."""


@frozen_dataclass
class MdadmMemberDetail:
    """One member's superblock, from ``mdadm --examine --export``."""

    name: str
    role: str | None
    """From ``--detail --export``: a slot number as text, ``spare``, ``faulty`` or ``journal``."""
    events: int | None = None
    update_time: int | None = None
    """Unix time of the superblock's last update."""
    dev_uuid: str | None = None


@frozen_dataclass
class MdadmDetail:
    """mdadm's view of one array; ``unavailable`` says why there is none."""

    array: str
    uuid: str | None = None
    name: str | None = None
    creation_time: int | None = None
    update_time: int | None = None
    events: int | None = None
    """The highest member event count: the array's (a stale member has fewer)."""
    members: tuple[MdadmMemberDetail, ...] = ()
    unavailable: str | None = None
    notes: tuple[str, ...] = ()
    read_at: float | None = None
