"""What the fleet view shows: hosts, their arrays and members, worst first."""

from __future__ import annotations

from dataclasses import replace
from raidtop.model.frozen import frozen_dataclass

STATE_RANK = {
    "broken": 0,
    "inactive": 1,
    "degraded": 2,
    "recovering": 3,
    "resyncing": 4,
    "reshaping": 4,
    "repairing": 5,
    "checking": 5,
    "delayed": 6,
    "pending": 6,
    "read-only": 7,
    "active": 8,
    "clean": 8,
}
"""Worst first: the order arrays and hosts are listed in."""


NAME_LIMIT = 256
"""Characters kept of a name from a host: longer is no device or array name."""


class UnusableValue(ValueError):
    """A number from a host that is not finite or out of range; ``str()`` names it."""


@frozen_dataclass
class FleetMember:
    """One member as the fleet view shows it."""

    name: str
    role: str
    """in_sync, rebuilding, spare, faulty, journal or unknown (the exporter's roles)."""
    slow: bool = False
    errors: int | None = None


@frozen_dataclass
class FleetArray:
    """One array of one host."""

    name: str
    state: str
    """One of the exporter's states (clean, degraded, recovering, ...)."""
    level: str | None = None
    raid_disks: int | None = None
    degraded: int | None = None
    action: str | None = None
    done_bytes: float | None = None
    total_bytes: float | None = None
    speed_bytes_s: float | None = None
    eta_s: float | None = None
    mismatch_sectors: int | None = None
    members: tuple[FleetMember, ...] = ()

    @property
    def percent(self) -> float | None:
        """Progress of the running sync, from the exact byte counts."""
        if self.done_bytes is None or not self.total_bytes:
            return None
        return 100.0 * self.done_bytes / self.total_bytes

    @property
    def rank(self) -> tuple[int, int]:
        """Sort key, worst first: the state, then a faulty member before none."""
        faulty = any(m.role == "faulty" for m in self.members)
        if self.level == "container":
            return 8, 1  # an IMSM/DDF container is always "inactive": that is no problem
        return STATE_RANK.get(self.state, 8), 0 if faulty else 1


@frozen_dataclass
class FleetHost:
    """One host: its arrays, or why they cannot be shown."""

    name: str
    arrays: tuple[FleetArray, ...] = ()
    problem: str | None = None
    """A sentence when the host could not be read (exporter down, ssh failed...)."""
    shown: str | None = None
    """What to call it on screen (its node name), when it differs from ``name`` (the instance)."""
    alerts: tuple[str, ...] = ()
    """Names of its alerts firing in Prometheus now."""

    @property
    def label(self) -> str:
        """The name shown: the node name when known, else ``name``."""
        return self.shown or self.name

    @property
    def rank(self) -> tuple[int, int]:
        """Worst first: an unreadable host before any array, then its worst array."""
        if self.problem is not None:
            return (-1, 0)
        return min((a.rank for a in self.arrays), default=(9, 1))


@frozen_dataclass
class FleetReading:
    """One refresh of the whole fleet."""

    hosts: tuple[FleetHost, ...] = ()
    problem: str | None = None
    """A sentence when nothing could be read at all (Prometheus unreachable, no raidtop metrics)."""
    time: float = 0.0


def worst_first(hosts: list[FleetHost]) -> tuple[FleetHost, ...]:
    """Hosts sorted worst first, each host's arrays worst first, names breaking ties."""
    ordered = [replace(h, arrays=tuple(sorted(h.arrays, key=lambda a: (a.rank, a.name)))) for h in hosts]
    return tuple(sorted(ordered, key=lambda h: (h.rank, h.label, h.name)))
