"""What each tuning knob is: its file, its scope, what it does, and how to name it.

The registry (:data:`SPECS`) and the value types every other tuning module
shares: :class:`Allowed` (what a knob accepts), :class:`Target` (something with
knobs), :class:`Knob` (one knob as read now). Paths and commands shown to
users always name the real system files (``/sys/block/sda/queue/scheduler``).
"""

from __future__ import annotations

import os
import shlex
from raidtop.model.frozen import frozen_dataclass

GLOBAL_TARGET = "raid"
"""The target name for the system-wide md settings in /proc/sys/dev/raid."""

INT_MAX = 2**31 - 1
BLKDEV_MIN_RQ = 4
MAX_SCHED_RQ = 2048
READ_AHEAD_LIMIT_KB = 1 << 20
"""raidtop's own ceiling for read-ahead (1 GiB); the kernel has none, but more is a typo."""
PAGE_KB = max(1, os.sysconf("SC_PAGE_SIZE") // 1024) if hasattr(os, "sysconf") else 4

QUEUE_KNOBS = ("scheduler", "read_ahead_kb", "nr_requests", "rq_affinity", "nomerges", "max_sectors_kb", "write_cache")
MD_KNOBS = ("sync_speed_min", "sync_speed_max", "stripe_cache_size", "group_thread_cnt")
MD_REQUESTS = ("sync_action",)
"""md attributes raidtop writes only on request (the lab's check and repair)."""
SYNC_REQUESTS = ("idle", "check", "repair")
"""What raidtop writes to sync_action: start a check or repair, or stop it."""
GLOBAL_KNOBS = ("speed_limit_min", "speed_limit_max")
SPEED_KNOBS = frozenset({"sync_speed_min", "sync_speed_max", "speed_limit_min", "speed_limit_max"})
"""Knobs whose change moves a running resync or rebuild (and so its ETA)."""

RAID456 = frozenset({"raid4", "raid5", "raid6"})

WRITE_THROUGH_WARNING = (
    "Setting write through tells the kernel this device has no volatile write cache, so it stops "
    "sending cache flushes. If the drive does cache writes, data it has acknowledged can be lost on "
    "a power failure unless it has power-loss protection (capacitors, a controller battery). "
    "This does not switch the drive's own cache (hdparm -W / sdparm do that)."
)


# ---------------------------------------------------------------- registry


@frozen_dataclass
class KnobSpec:
    """What one knob is: where it lives and what it does, independent of any device."""

    attr: str
    scope: str
    """``queue`` (/sys/block/X/queue), ``md`` (/sys/block/mdN/md) or ``global`` (/proc/sys/dev/raid)."""
    summary: str
    """One sentence: what the knob changes."""
    unit: str = ""
    request: bool = False
    """True for an attribute written to ask md to do something (``sync_action``),
    not a setting: it is not listed, kept, undone or made permanent."""


SPECS: dict[str, KnobSpec] = {
    spec.attr: spec
    for spec in (
        KnobSpec(
            "scheduler",
            "queue",
            "I/O scheduler: none passes requests straight on (fast devices); "
            "mq-deadline bounds latency; bfq shares bandwidth fairly; kyber targets latency.",
        ),
        KnobSpec(
            "read_ahead_kb",
            "queue",
            "How far the kernel reads ahead of sequential reads; "
            "larger helps streaming from arrays, smaller helps random I/O.",
            "KiB",
        ),
        KnobSpec(
            "nr_requests", "queue", "How many requests the block layer queues per hardware queue before callers wait."
        ),
        KnobSpec(
            "rq_affinity",
            "queue",
            "Where I/O completions run: 0 any CPU, 1 the submitting CPU's group, 2 exactly the submitting CPU.",
        ),
        KnobSpec("nomerges", "queue", "Request merging: 0 all merges, 1 only simple one-hit merges, 2 none."),
        KnobSpec("max_sectors_kb", "queue", "The largest request the block layer sends to the device.", "KiB"),
        KnobSpec(
            "write_cache",
            "queue",
            "Whether the kernel treats the device's cache as volatile "
            "(write back: it sends flushes) or not (write through: it does not).",
        ),
        KnobSpec(
            "sync_speed_min",
            "md",
            "The resync/rebuild speed md keeps even when the array is busy "
            "with other I/O; 'system' follows dev.raid.speed_limit_min.",
            "KiB/s",
        ),
        KnobSpec(
            "sync_speed_max",
            "md",
            "The resync/rebuild speed md never exceeds; 'system' follows dev.raid.speed_limit_max.",
            "KiB/s",
        ),
        KnobSpec(
            "stripe_cache_size",
            "md",
            "Stripes raid4/5/6 caches for parity work; more speeds up "
            "writes and rebuilds at the cost of RAM (pages × page size × disks).",
            "stripes",
        ),
        KnobSpec(
            "group_thread_cnt",
            "md",
            "Extra worker threads per CPU group for raid4/5/6 stripe handling; 0 uses only the array's md thread.",
        ),
        KnobSpec(
            "sync_action",
            "md",
            "Asks md to start a check or repair of the array, or to stop the running one (idle).",
            request=True,
        ),
        KnobSpec(
            "speed_limit_min",
            "global",
            "System-wide guaranteed resync/rebuild speed per device for arrays without their own sync_speed_min.",
            "KiB/s",
        ),
        KnobSpec(
            "speed_limit_max",
            "global",
            "System-wide ceiling on resync/rebuild speed per device for arrays without their own sync_speed_max.",
            "KiB/s",
        ),
    )
}
"""Every knob raidtop can change, in display order within each scope."""


@frozen_dataclass
class Allowed:
    """What a knob accepts: a list of words, or a whole-number range (plus words)."""

    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    multiple_of: int | None = None
    words: tuple[str, ...] = ()
    """Words accepted besides numbers (``system``)."""
    note: str = ""

    @property
    def numeric(self) -> bool:
        """True for a number range, False for a list of choices."""
        return not self.choices

    def describe(self) -> str:
        """Short text for the "Allowed" column."""
        if self.choices:
            return " ".join(self.choices)
        text = f"{self.low}–{self.high}"
        if self.multiple_of and self.multiple_of > 1:
            text += f", ×{self.multiple_of}"
        if self.words:
            text += " or " + "/".join(self.words)
        return text


@frozen_dataclass
class Target:
    """Something with knobs: a block device, an md array, or the global md settings."""

    name: str
    """Kernel name (``sda``, ``md0``, ``cciss/c0d0``), or :data:`GLOBAL_TARGET`."""
    kind: str
    """disk, loop, nvme, dm, md, zram, ram or global."""
    detail: str = ""
    level: str | None = None
    """The md level for arrays."""

    @property
    def is_array(self) -> bool:
        """True for md arrays."""
        return self.kind == "md"


@frozen_dataclass
class Knob:
    """One knob of one target, as read now."""

    target: str
    attr: str
    path: str
    """The system path (/sys/..., /proc/...), not resolved under the root."""
    value: str | None
    """Canonical current value (``bfq``, ``128``, ``system``, ``write back``); ``None`` if unreadable."""
    shown: str
    """The current value as people read it (``128 KiB (setra 256)``, ``1000 KiB/s (system)``)."""
    allowed: Allowed
    writable: bool
    """False when the kernel exposes the file read-only."""
    effective: int | None = None
    """The number in force for numeric knobs (sync_speed ``system`` → the global value)."""
    start: str | None = None
    """The value when raidtop first read it in this session."""

    @property
    def spec(self) -> KnobSpec:
        """The registry entry."""
        return SPECS[self.attr]

    @property
    def changed(self) -> bool:
        """True when the value differs from the one at start."""
        return self.start is not None and self.value != self.start


class TuningError(Exception):
    """A target or knob that does not exist; ``str()`` says which and why."""


# ---------------------------------------------------------------- paths and commands


def sys_name(device: str) -> str:
    """``/dev/cciss/c0d0`` or ``cciss/c0d0`` → ``cciss!c0d0``, the name under /sys/block."""
    name = device.removeprefix("/dev/")
    return name.replace("/", "!")


def dev_name(device: str) -> str:
    """The kernel name with slashes (``cciss/c0d0``), as /proc and users write it."""
    return device.removeprefix("/dev/").replace("!", "/")


def system_path(target: str, attr: str) -> str:
    """The absolute system file behind ``attr`` of ``target``."""
    scope = SPECS[attr].scope
    if scope == "global":
        return f"/proc/sys/dev/raid/{attr}"
    return f"/sys/block/{sys_name(target)}/{'md' if scope == 'md' else 'queue'}/{attr}"


def shell_command(target: str, attr: str, value: str, *, sudo: bool = False) -> str:
    """The shell command equivalent to the change.

    ``read_ahead_kb`` is shown as ``blockdev --setra`` (sectors: KiB × 2) and the
    global limits as ``sysctl -w``, the forms guides use. With ``sudo`` a sysfs
    write becomes ``echo V | sudo tee FILE``: ``sudo echo V > FILE`` would run the
    redirection without privileges.
    """
    prefix = "sudo " if sudo else ""
    if attr == "read_ahead_kb" and value.isdigit():
        return f"{prefix}blockdev --setra {int(value) * 2} /dev/{dev_name(target)}"
    if SPECS[attr].scope == "global":
        return f"{prefix}sysctl -w dev.raid.{attr}={value}"
    path = system_path(target, attr)
    if sudo:
        return f"echo {shlex.quote(value)} | sudo tee {path}"
    return f"echo {shlex.quote(value)} > {path}"


CHOICE_MEANINGS: dict[str, dict[str, str]] = {
    "scheduler": {
        "none": "no reordering: NVMe and fast SSDs",
        "mq-deadline": "bounded latency: SATA SSDs, disks",
        "bfq": "fair shares: desktops, slow disks",
        "kyber": "latency targets: fast devices",
    },
    "rq_affinity": {
        "0": "complete on any CPU",
        "1": "complete in the submitting CPU's group",
        "2": "complete on the submitting CPU itself",
    },
    "nomerges": {"0": "merge requests (default)", "1": "only simple one-hit merges", "2": "never merge"},
    "write_cache": {
        "write back": "the kernel sends cache flushes (safe)",
        "write through": "no flushes: only for caches with power-loss protection",
    },
}
"""What each word of a choice knob means, for the value dialog."""
