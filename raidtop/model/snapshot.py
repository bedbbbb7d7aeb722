"""Frozen dataclasses that carry data between raidtop's layers.

Two kinds live here: *counters* (cumulative values as the kernel prints them,
straight from a parser) and *rates* (what a user sees, computed from two
counter samples in exactly one place, :mod:`raidtop.collect.rates`, one module per source).
A value that cannot be computed is ``None``, never a made-up number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field, fields

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.md import MdArray, MdEvent, MdReading, RaidSpeedLimit
from raidtop.model.processes import CgroupReading, IoAttribution, ProcCounters
from raidtop.model.smart import RebuildRisk, SmartHealth
from raidtop.model.stack import Stack

# ---------------------------------------------------------------- counters


@frozen_dataclass
class DiskCounters:
    """One line of /proc/diskstats: counters since the device appeared.

    Sectors are 512 bytes whatever the device's block size; ticks are
    milliseconds. Discard fields exist from kernel 4.18, flush from 5.5.
    """

    major: int
    minor: int
    name: str
    rd_ios: int
    rd_merges: int
    rd_sectors: int
    rd_ticks: int
    wr_ios: int
    wr_merges: int
    wr_sectors: int
    wr_ticks: int
    ios_pgr: int
    tot_ticks: int
    rq_ticks: int
    dc_ios: int | None = None
    dc_merges: int | None = None
    dc_sectors: int | None = None
    dc_ticks: int | None = None
    fl_ios: int | None = None
    fl_ticks: int | None = None

    @property
    def ever_used(self) -> bool:
        """True once the device has completed any I/O since it appeared."""
        return bool(self.rd_ios or self.wr_ios or self.dc_ios or self.fl_ios)


@frozen_dataclass
class DiskIdentity:
    """What a block device is, from sysfs and the udev database."""

    name: str
    kind: str
    """One of disk, partition, loop, ram, zram, md, dm, other."""
    parent: str | None = None
    """The whole disk a partition belongs to."""
    model: str | None = None
    serial: str | None = None
    by_id: str | None = None
    """The shortest /dev/disk/by-id name, without the directory."""
    by_id_links: tuple[str, ...] = ()
    """Every /dev/disk/by-id name of the device (ata-…, wwn-…, nvme-eui.…), without the directory."""

    @property
    def is_partition(self) -> bool:
        """True for partitions (sda1, nvme0n1p2), which iostat hides without -p."""
        return self.kind == "partition"


@frozen_dataclass
class CpuCounters:
    """One ``cpu`` line of /proc/stat, in USER_HZ ticks.

    ``guest`` and ``guest_nice`` are already included in ``user`` and
    ``nice`` by the kernel; rates subtract them as mpstat does.
    """

    cpu: str | int
    """``"all"`` for the summary line, else the CPU number."""
    user: int
    nice: int
    system: int
    idle: int
    iowait: int = 0
    irq: int = 0
    softirq: int = 0
    steal: int = 0
    guest: int = 0
    guest_nice: int = 0


@frozen_dataclass
class StatCounters:
    """The parts of /proc/stat raidtop uses."""

    cpus: tuple[CpuCounters, ...]
    """The summary line first (cpu ``"all"``), then one per online CPU."""
    intr: int | None = None
    ctxt: int | None = None
    procs_running: int | None = None
    procs_blocked: int | None = None


@frozen_dataclass
class MemInfo:
    """The /proc/meminfo fields vmstat prints, in KiB."""

    mem_free: int | None = None
    buffers: int | None = None
    cached: int | None = None
    s_reclaimable: int | None = None
    swap_total: int | None = None
    swap_free: int | None = None
    mem_total: int | None = None
    mem_available: int | None = None


@frozen_dataclass
class VmCounters:
    """The /proc/vmstat counters behind vmstat's si, so, bi and bo."""

    pgpgin: int | None = None
    pgpgout: int | None = None
    pswpin: int | None = None
    pswpout: int | None = None


@frozen_dataclass
class Pressure:
    """One /proc/pressure/<resource> file (PSI)."""

    resource: str
    some_avg10: float | None = None
    some_avg60: float | None = None
    some_avg300: float | None = None
    full_avg10: float | None = None
    full_avg60: float | None = None
    full_avg300: float | None = None


@frozen_dataclass
class Sensor:
    """One hwmon reading, converted to °C or RPM."""

    chip: str
    label: str
    kind: str
    """``temp`` or ``fan``."""
    value: float | None
    high: float | None = None
    crit: float | None = None
    device: str | None = None
    """The block device this sensor belongs to (nvme0n1, sda), when known."""

    @property
    def level(self) -> str:
        """``crit``, ``high`` or ``ok``: how the value compares with its limits."""
        if self.value is None:
            return "ok"
        if self.crit is not None and self.value >= self.crit:
            return "crit"
        if self.high is not None and self.value >= self.high:
            return "high"
        return "ok"


@frozen_dataclass
class RawSample:
    """Everything read from the system at one moment, before any rate."""

    time: float
    """Wall-clock time of the sample (Unix seconds)."""
    uptime_s: float | None
    """/proc/uptime, the clock sysstat takes intervals from."""
    disks: Sequence[DiskCounters] = ()
    """Every /proc/diskstats line; the sampler's are columns (``disk_columns.DiskCounterColumns``)."""
    identities: dict[str, DiskIdentity] = field(default_factory=dict, compare=False)
    stat: StatCounters | None = None
    meminfo: MemInfo | None = None
    vm: VmCounters | None = None
    loadavg: tuple[float, float, float] | None = None
    pressure: tuple[Pressure, ...] = ()
    sensors: tuple[Sensor, ...] = ()
    md: MdReading | None = None
    md_thread_names: dict[int, tuple[str, str]] = field(default_factory=dict, compare=False)
    """PID -> (array, thread name) of md's kernel threads."""
    md_thread_ticks: dict[int, int] = field(default_factory=dict, compare=False)
    """PID -> utime + stime in clock ticks."""
    processes: tuple[ProcCounters, ...] | None = field(default=None, compare=False)
    """Every readable process's I/O counters; ``None`` when not read (the Processes panel hidden)."""
    cgroups: CgroupReading | None = field(default=None, compare=False)
    """Per-cgroup per-device counters; ``None`` when not read or not available."""
    cgroups_absent: str = field(default="", compare=False)
    """Why there is no per-device accounting on this host ("" when there is)."""
    notes: tuple[str, ...] = ()


# ---------------------------------------------------------------- rates


@frozen_dataclass
class MdThreadCpu:
    """CPU used by one md kernel thread over the interval."""

    array: str
    thread: str
    pid: int
    cpu_pct: float | None
    """Percent of one CPU; ``None`` for a thread first seen in this sample."""


@frozen_dataclass
class DiskIO:
    """One device's ``iostat -x`` row over an interval."""

    name: str
    kind: str
    r_s: float | None
    w_s: float | None
    rkib_s: float | None
    wkib_s: float | None
    rrqm_s: float | None
    wrqm_s: float | None
    rrqm_pct: float | None
    wrqm_pct: float | None
    r_await_ms: float | None
    w_await_ms: float | None
    aqu_sz: float | None
    rareq_sz_kib: float | None
    wareq_sz_kib: float | None
    util_pct: float | None
    d_s: float | None = None
    dkib_s: float | None = None
    drqm_s: float | None = None
    drqm_pct: float | None = None
    d_await_ms: float | None = None
    dareq_sz_kib: float | None = None
    f_s: float | None = None
    f_await_ms: float | None = None
    ever_used: bool = True
    parent: str | None = None
    model: str | None = None
    serial: str | None = None
    by_id: str | None = None
    by_id_links: tuple[str, ...] = ()
    """Every /dev/disk/by-id name (the palette finds a disk by any of them)."""

    @property
    def is_partition(self) -> bool:
        """True for partitions, hidden by default like ``iostat`` without ``-p``."""
        return self.kind == "partition"

    @property
    def throughput_kib_s(self) -> float | None:
        """Read plus write KiB/s, what the per-device sparkline plots."""
        if self.rkib_s is None or self.wkib_s is None:
            return None
        return self.rkib_s + self.wkib_s


DISK_RATE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(DiskIO) if f.type == "float | None")
"""Every DiskIO field that is a rate over the interval, in iostat's order (the rest is identity)."""


def disk_row(name: str, ident: DiskIdentity, rates: Mapping[str, float | None], ever_used: bool) -> DiskIO:
    """A device's row from what it is and its rates (a rate not given is unknown).

    The one place a row copies the identity's fields, so a new one (``by_id_links``)
    reaches every way a row is made.
    """
    return DiskIO(
        name,
        ident.kind,
        **{f: rates.get(f) for f in DISK_RATE_FIELDS},
        ever_used=ever_used,
        parent=ident.parent,
        model=ident.model,
        serial=ident.serial,
        by_id=ident.by_id,
        by_id_links=ident.by_id_links,
    )


@frozen_dataclass
class CpuUsage:
    """One ``mpstat -P ALL`` row: percentages of the interval."""

    cpu: str | int
    usr: float | None
    nice: float | None
    sys: float | None
    iowait: float | None
    irq: float | None
    soft: float | None
    steal: float | None
    guest: float | None
    gnice: float | None
    idle: float | None

    @property
    def busy(self) -> float | None:
        """100 − %idle: what the compact heat row colours."""
        return None if self.idle is None else max(0.0, 100.0 - self.idle)


@frozen_dataclass
class VmStat:
    """One ``vmstat`` line plus load and PSI."""

    r: int | None
    b: int | None
    swpd_kib: int | None
    free_kib: int | None
    buff_kib: int | None
    cache_kib: int | None
    si_kib_s: float | None
    so_kib_s: float | None
    bi_kib_s: float | None
    bo_kib_s: float | None
    in_s: float | None
    cs_s: float | None
    us: float | None
    sy: float | None
    id: float | None
    wa: float | None
    st: float | None
    loadavg: tuple[float, float, float] | None = None
    pressure: tuple[Pressure, ...] = ()


@frozen_dataclass
class Snapshot:
    """What the UI shows and ``raidtop snapshot --json`` prints for one interval."""

    time: float
    interval_s: float | None
    """Seconds the rates average over (since boot for the first sample)."""
    since_boot: bool = False
    """True for the first sample, whose rates average over the whole uptime."""
    disks: Sequence[DiskIO] = ()
    """One row per device; the sampler's are columns (:class:`raidtop.model.disk_columns.DiskRows`),
    each :class:`DiskIO` made when first asked for."""
    cpus: tuple[CpuUsage, ...] = ()
    vm: VmStat | None = None
    sensors: tuple[Sensor, ...] = ()
    arrays: tuple[MdArray, ...] = ()
    raid_speed_limit: RaidSpeedLimit | None = None
    md_absence: str | None = None
    """Why there are no arrays ("no md driver", "no arrays"), else ``None``."""
    events: tuple[MdEvent, ...] = ()
    """Events derived from this sample against the previous one."""
    degraded_alerts: frozenset[str] = frozenset()
    """Arrays whose degraded alert stands (cleared when whole again)."""
    md_threads: tuple[MdThreadCpu, ...] = ()
    smart: dict[str, SmartHealth] = field(default_factory=dict, compare=False)
    """Whole-disk name -> its latest SMART reading (empty until the poller answers)."""
    smart_disk_of: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    """Any block device (partition, dm, md member) -> the whole disks under it."""
    rebuild_risks: tuple[RebuildRisk, ...] = ()
    """Arrays without redundancy (or rebuilding) whose survivors are not healthy."""
    io: IoAttribution | None = None
    """Which processes and cgroups did I/O on which devices (``None``: not read this sample)."""
    stack: Stack | None = field(default=None, compare=False, repr=False)
    """The storage stack, when something on screen needs it or an array is degraded."""
    full_filesystems: tuple[str, ...] = ()
    """Sentences: a full filesystem on a degraded or failed array."""
    notes: tuple[str, ...] = ()
    version: int = 2
    """The snapshot JSON's schema: 2 names each size and rate by its IEC unit (``_kib``, ``_kib_s``; 1 said ``_kb``)."""
    raw: RawSample | None = field(default=None, compare=False, repr=False)
    """The counters this snapshot was computed from (for Explain)."""
    raw_previous: RawSample | None = field(default=None, compare=False, repr=False)
    """The counters of the sample before (``None`` since boot)."""
