"""Frozen dataclasses for md software RAID: arrays, members, sync progress, events.

Sizes are KiB (mdstat's "blocks" are 1 KiB; sysfs sectors are halved once,
in the reader). A value the source does not show is ``None``, never a guess:
an mdstat-only reading has no ``mismatch_cnt``, and a member whose role
mdstat cannot tell has empty ``roles``.
"""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


SYNC_ACTIONS = ("resync", "recover", "check", "repair", "reshape", "delayed", "pending")
"""Every value :attr:`MdSync.action` takes."""

RUNNING_ACTIONS = frozenset(SYNC_ACTIONS[:5])
"""Actions that move data; ``delayed`` and ``pending`` wait for their turn."""

HEALTHS = ("ok", "degraded", "failed", "inactive")
"""Every value :attr:`MdArray.health` takes."""

ROLE_ORDER = (
    "faulty",
    "in_sync",
    "journal",
    "write_mostly",
    "blocked",
    "spare",
    "write_error",
    "want_replacement",
    "replacement",
)
"""Member roles in the order the kernel prints them in ``dev-*/state``."""


@frozen_dataclass
class MdMember:
    """One component device of an array."""

    name: str
    """Kernel device name (sdb1, nvme0n1p2), as in /proc/mdstat and ``dev-<name>``."""
    slot: int | None = None
    """Position in the array (mdadm's RaidDevice); ``None`` for spares, faulty or unknown."""
    roles: tuple[str, ...] = ()
    """Words from ``dev-*/state`` (in_sync, faulty, spare, ...); empty when unknown."""
    errors: int | None = None
    """Read errors corrected on this device (``dev-*/errors``)."""
    number: int | None = None
    """Descriptor number, the ``[N]`` in /proc/mdstat; not the slot."""

    @property
    def is_faulty(self) -> bool:
        """True when the kernel marked the device faulty."""
        return "faulty" in self.roles

    @property
    def is_in_sync(self) -> bool:
        """True for a working device holding current data."""
        return "in_sync" in self.roles and "faulty" not in self.roles

    @property
    def is_spare(self) -> bool:
        """True for a spare: idle, or being rebuilt onto when it has a slot."""
        return "spare" in self.roles and "faulty" not in self.roles

    @property
    def role_known(self) -> bool:
        """False when the source could not say what this member does."""
        return bool(self.roles)


@frozen_dataclass
class MdSync:
    """A resync, recovery, check, repair or reshape, running or waiting."""

    action: str
    """One of :data:`SYNC_ACTIONS`."""
    percent: float | None = None
    done_kib: int | None = None
    total_kib: int | None = None
    """The denominator the kernel uses: per-device size for raid4/5/6, not the array size."""
    speed_kib_s: int | None = None
    """The kernel's short-window rate; it can exceed speed_limit_max."""
    eta_s_kernel: float | None = None
    """The kernel's ``finish=``, in seconds."""
    eta_s: float | None = None
    """raidtop's estimate (:mod:`raidtop.collect.md.eta`), seconds."""
    eta_basis: str | None = None
    """``raidtop`` once its own readings span 10 s, ``md-window`` while seeded with sync_speed."""
    rate_kib_s: float | None = None
    """Progress made over md's whole speed window (Δdone/Δt over :data:`raidtop.collect.md.eta.SPEED_WINDOW_S`),
    KiB/s per device; md's own ``sync_speed`` until raidtop's readings span that window."""
    stalled: bool = False
    """True when the completed count has not moved for :data:`raidtop.collect.md.eta.STALL_AFTER_S`
    and no limit of 0, frozen sync or read-only array explains it."""
    stalled_s: float | None = None
    """Seconds since the completed count last moved, while :attr:`stalled`."""
    held_by: str | None = None
    """``sync_speed_max`` when md's window average is at the maximum, ``sync_speed_min`` when
    competing I/O holds it at the minimum; ``None`` when the disks set the pace."""
    held_limit_kib_s: float | None = None
    """The value of the limit named by :attr:`held_by`, KiB/s."""
    capacity_kib_s: float | None = None
    """The rate md reached when it did not throttle; ``None`` while it always did."""
    recent: tuple[tuple[float, int], ...] = ()
    """``(time, done_kib)`` over the last 40 s, for predictions (not in the JSON)."""

    @property
    def running(self) -> bool:
        """True while data moves (not ``delayed`` or ``pending``)."""
        return self.action in RUNNING_ACTIONS


@frozen_dataclass
class MdArray:
    """One md array, from sysfs, /proc/mdstat or both."""

    name: str
    level: str | None
    """raid0/1/4/5/6/10, linear, multipath, container; ``None`` when not shown."""
    state: str | None
    """sysfs ``array_state`` (clean, active, readonly, read-auto, inactive, broken, ...)
    or, from mdstat alone, its first word (active, inactive)."""
    health: str
    """One of :data:`HEALTHS`, judged by :func:`raidtop.collect.md.level.judge_health`."""
    raid_disks: int | None = None
    degraded: int | None = None
    size_kib: int | None = None
    """Usable array size; ``None`` for an inactive array."""
    chunk_kib: int | None = None
    layout: str | None = None
    """As mdadm names it: left-symmetric, near=2, ...; ``None`` where a level has none."""
    metadata: str | None = None
    """Superblock version: 0.90, 1.2, external:imsm, external:/md127/0, none."""
    bitmap: str | None = None
    """``internal``, ``none``, a bitmap file path, ``file`` (path unknown) or ``None``."""
    members: tuple[MdMember, ...] = ()
    sync: MdSync | None = None
    mismatch_cnt: int | None = None
    """Sectors found inconsistent by the last check/repair (sysfs only)."""
    sync_speed_min: int | None = None
    sync_speed_max: int | None = None
    stripe_cache_size: int | None = None
    consistency_policy: str | None = None
    component_size_kib: int | None = None
    reshape_position: int | None = None
    """Sector the reshape has reached; ``None`` when no reshape is under way."""
    last_sync_action: str | None = None
    uuid: str | None = None
    events: int | None = None
    """Superblock event count; sysfs does not show it (mdadm --detail does)."""
    status: str | None = None
    """Per-slot pattern without brackets: ``UU_``."""
    read_only: bool = False
    auto_read_only: bool = False
    container: str | None = None
    """For an array inside an IMSM/DDF container: the container's name (md127)."""
    container_member: str | None = None
    """Its index inside that container ("0")."""
    notes: tuple[str, ...] = ()
    source: str = "sysfs"
    """``sysfs``, ``mdstat`` or ``both``."""
    sysfs_sync_action: str | None = None
    """What sysfs ``sync_action`` read (``idle`` included); ``None`` without sysfs."""
    sparse_by_design: bool = False
    """True for a mirror with more slots than members by configuration (QNAP's ``[24/4]``),
    judged by :func:`raidtop.collect.md.sparse.judge_sparse`; its health is then ``ok``."""
    degraded_since: float | None = None
    """Unix time the array lost redundancy (health degraded or failed), ``None`` while whole."""
    degraded_since_basis: str | None = None
    """``observed`` (raidtop saw it happen) or ``raidtop-start`` (already so when raidtop started)."""

    @property
    def status_string(self) -> str | None:
        """mdstat's ``[UU_]``, or ``None`` for levels without one."""
        return None if self.status is None else f"[{self.status}]"

    @property
    def working_disks(self) -> int | None:
        """raid_disks minus degraded: mdstat's ``m`` in ``[n/m]``."""
        if self.raid_disks is None or self.degraded is None:
            return None
        return self.raid_disks - self.degraded

    @property
    def counts_string(self) -> str | None:
        """mdstat's ``[n/m]``: slots and working devices."""
        working = self.working_disks
        return None if working is None else f"[{self.raid_disks}/{working}]"

    @property
    def is_container(self) -> bool:
        """True for an IMSM/DDF container, which never runs and holds member arrays."""
        return self.level == "container"

    @property
    def spare_count(self) -> int:
        """Idle spares: spare, not faulty, no slot."""
        return sum(1 for m in self.members if m.is_spare and m.slot is None)

    @property
    def syncing(self) -> bool:
        """True while a sync moves data."""
        return self.sync is not None and self.sync.running


@frozen_dataclass
class RaidSpeedLimit:
    """/proc/sys/dev/raid/speed_limit_min and _max, KiB/s per device."""

    min: int | None
    max: int | None


NO_MD_DRIVER = "No md driver (no /proc/mdstat): sudo modprobe md_mod, or try raidtop --demo"
"""What :attr:`MdReading.absence` says when the kernel has no md driver (not merely no arrays):
the dashboard's line, with the next step, in one sentence short enough for an 80-column panel."""


@frozen_dataclass
class MdReading:
    """Everything :func:`raidtop.collect.md.read.read_md` found under one root."""

    arrays: tuple[MdArray, ...]
    speed_limit: RaidSpeedLimit | None
    md_driver_present: bool
    notes: tuple[str, ...] = ()

    @property
    def absence(self) -> str | None:
        """One line saying why there are no arrays, or ``None`` when there are some."""
        if self.arrays:
            return None
        if not self.md_driver_present:
            return NO_MD_DRIVER
        return "The md driver is loaded, but there are no md arrays."


@frozen_dataclass
class MdEvent:
    """One event as ``mdadm --monitor`` names them, derived from two readings."""

    time: float
    array: str
    event: str
    """NewArray, DeviceDisappeared, Fail, FailSpare, SpareActive, DegradedArray,
    ArrayFailed, SparesMissing, RebuildStarted, Rebuild20/40/60/80, RebuildFinished,
    CheckStarted, CheckFinished, SyncStalled."""
    member: str | None = None
    detail: str | None = None
    """Extra words, e.g. the mismatch count after a check; not in the JSON."""
    expected: bool = False
    """True when the event is the planned end of an action (the disk a
    ``mdadm --replace`` replaced turning faulty): shown, but no bell."""


@frozen_dataclass
class MdadmDevice:
    """One ``MD_DEVICE_*`` pair of ``mdadm --detail --export``."""

    name: str
    role: str | None
    """A slot number as text, ``spare``, ``faulty`` or ``journal``."""
    dev: str | None


@frozen_dataclass
class MdadmExport:
    """``mdadm --detail --export`` output, kept for cross-checks against sysfs."""

    level: str | None = None
    raid_devices: int | None = None
    metadata: str | None = None
    uuid: str | None = None
    name: str | None = None
    devname: str | None = None
    container: str | None = None
    member: str | None = None
    devices: tuple[MdadmDevice, ...] = ()
    other: tuple[tuple[str, str], ...] = ()
    """Keys raidtop does not interpret, in file order."""


@frozen_dataclass
class MismatchVerdict:
    """What a ``mismatch_cnt`` means for an array, in words."""

    severity: str
    """``ok``, ``info`` (expected, nothing to do) or ``warning``."""
    text: str
