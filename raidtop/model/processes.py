"""Frozen dataclasses for "who is doing I/O": processes, cgroups, and their share of each device.

Two levels of attribution exist and the model says which one a snapshot
holds (:attr:`IoAttribution.level`): the kernel keeps per-process I/O only as
totals (/proc/PID/io), while cgroup I/O accounting (v2 ``io.stat``, v1
``blkio.throttle.io_service_bytes``) counts bytes per cgroup *per device*.
"""

from __future__ import annotations

from dataclasses import field
from raidtop.model.frozen import frozen_dataclass

ATTRIBUTION_LEVELS = ("per device", "totals", "off")
"""Every value :attr:`IoAttribution.level` takes."""


@frozen_dataclass
class ProcCounters:
    """One process's I/O counters as /proc/PID/io has them, with who it is."""

    pid: int
    start: int
    """Start time in clock ticks since boot (/proc/PID/stat field 22): a reused PID has another."""
    comm: str
    kernel: bool
    """A kernel thread (PF_KTHREAD): no user, no command line, no cgroup of its own."""
    user: str
    """The user's name from the root's /etc/passwd, else the UID; "?" when unreadable."""
    cgroup: str
    """The process's cgroup path ("/system.slice/postgresql.service"); "/" for the root."""
    rchar: int
    wchar: int
    syscr: int
    syscw: int
    read_bytes: int
    write_bytes: int
    ppid: int = field(default=0, kw_only=True)
    """The parent's PID: when it reaps this process the kernel adds these counters to the parent's."""


@frozen_dataclass
class CgroupDeviceCounters:
    """One cgroup's I/O on one device (MAJ:MIN), since the counters began."""

    cgroup: str
    major: int
    minor: int
    rbytes: int
    wbytes: int
    rios: int
    wios: int


@frozen_dataclass
class CgroupReading:
    """Every cgroup's per-device counters, and where they came from."""

    source: str
    """"cgroup v2 io.stat" or "cgroup v1 blkio.throttle"."""
    counters: tuple[CgroupDeviceCounters, ...]
    children: dict[str, tuple[str, ...]]
    """cgroup -> its child cgroups (v2 counters are recursive: a parent includes them)."""
    recursive: bool


@frozen_dataclass
class ProcessIO:
    """One process's I/O over the interval (bytes and calls per second)."""

    pid: int
    comm: str
    user: str
    unit: str
    """Its systemd unit or cgroup ("postgresql.service"), "kernel" for kernel threads."""
    kernel: bool
    read_b_s: float | None
    write_b_s: float | None
    syscr_s: float | None
    syscw_s: float | None

    @property
    def total_b_s(self) -> float:
        """Read plus write bytes per second (0 when unknown), the panel's sort key."""
        return (self.read_b_s or 0.0) + (self.write_b_s or 0.0)


@frozen_dataclass
class UnitIO:
    """One unit's (cgroup's own, children excluded) I/O on one device over the interval."""

    unit: str
    """The cgroup path; "/" is the root cgroup: kernel threads (md's resync) and unsorted tasks."""
    read_b_s: float
    write_b_s: float
    reads_s: float
    writes_s: float


@frozen_dataclass
class IoAttribution:
    """Which processes and units did I/O in one interval, and at which level."""

    level: str
    """One of :data:`ATTRIBUTION_LEVELS`: "per device" (cgroup accounting), "totals" (per process only), "off"."""
    source: str
    """What the per-device numbers come from, or why there are none (said once, as a sentence)."""
    processes: tuple[ProcessIO, ...] = ()
    """Busiest first; ``()`` when the Processes panel is not shown."""
    by_device: dict[str, tuple[UnitIO, ...]] | None = None
    """Device name -> units, busiest first (``None`` without cgroup accounting)."""
    process_count: int = 0
    """Processes read this interval (those whose /proc/PID/io was readable)."""
