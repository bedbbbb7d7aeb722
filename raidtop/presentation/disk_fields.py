"""A disk's ``iostat -x`` fields, declared once: header, width, unit and when a value is alarming.

Every view of a disk's rates reads this table: the Disks panel, the member
grid of the Arrays panel, the fio screen's device rows; the JSON keys are
the model's own field names (:data:`raidtop.model.snapshot.DISK_RATE_FIELDS`).
A Disks column for a field already here is one key in the panel's list.
"""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


@frozen_dataclass
class DiskField:
    """One rate of :class:`raidtop.model.snapshot.DiskIO` as a column shows it."""

    key: str
    """The DiskIO attribute (and the JSON key)."""
    label: str
    """iostat's own header, its unit in IEC symbols (iostat's ``rkB/s`` counts KiB: ``rKiB/s``)."""
    width: int
    """Columns the Disks panel gives it (a view may give fewer)."""
    unit: str
    """What the number counts: ``/s``, ``KiB/s``, ``ms``, ``%``, ``KiB`` or ``requests`` (IEC, as everywhere)."""
    warn: float | None = None
    """From this value on the cell is a warning."""
    crit: float | None = None
    """From this value on the cell is critical."""

    def level(self, value: float | None) -> str | None:
        """``crit``, ``warn`` or ``None`` (nothing to say) for ``value``."""
        if value is None:
            return None
        if self.crit is not None and value >= self.crit:
            return "crit"
        if self.warn is not None and value >= self.warn:
            return "warn"
        return None

    def tone(self, value: float | None) -> str | None:
        """A cell's tone: dim when nothing happened (unknown or zero), else its :meth:`level`."""
        if value is None or value == 0:
            return "dim"
        return self.level(value)


# A device busy most of the interval is saturated (iostat's %util); an average
# wait of 50 ms is slow for any disk, 500 ms is a disk in trouble.
_UTIL = {"warn": 60.0, "crit": 90.0}
_AWAIT = {"warn": 50.0, "crit": 500.0}

DISK_FIELDS: dict[str, DiskField] = {
    f.key: f
    for f in (
        DiskField("r_s", "r/s", 9, "/s"),
        DiskField("w_s", "w/s", 9, "/s"),
        DiskField("rkib_s", "rKiB/s", 10, "KiB/s"),
        DiskField("wkib_s", "wKiB/s", 10, "KiB/s"),
        DiskField("rrqm_s", "rrqm/s", 8, "/s"),
        DiskField("wrqm_s", "wrqm/s", 8, "/s"),
        DiskField("rrqm_pct", "%rrqm", 7, "%"),
        DiskField("wrqm_pct", "%wrqm", 7, "%"),
        DiskField("r_await_ms", "r_await", 8, "ms", **_AWAIT),
        DiskField("w_await_ms", "w_await", 8, "ms", **_AWAIT),
        DiskField("aqu_sz", "aqu-sz", 7, "requests"),
        DiskField("rareq_sz_kib", "rareq-sz", 9, "KiB"),
        DiskField("wareq_sz_kib", "wareq-sz", 9, "KiB"),
        DiskField("util_pct", "%util", 7, "%", **_UTIL),
        DiskField("d_s", "d/s", 8, "/s"),
        DiskField("dkib_s", "dKiB/s", 10, "KiB/s"),
        DiskField("drqm_s", "drqm/s", 8, "/s"),
        DiskField("drqm_pct", "%drqm", 7, "%"),
        DiskField("d_await_ms", "d_await", 8, "ms"),
        DiskField("dareq_sz_kib", "dareq-sz", 9, "KiB"),
        DiskField("f_s", "f/s", 8, "/s"),
        DiskField("f_await_ms", "f_await", 8, "ms"),
    )
}
"""Every rate field of a disk, in the model's (and iostat's) order; a test keeps it equal to DiskIO's."""
