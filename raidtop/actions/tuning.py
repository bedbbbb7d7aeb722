"""Change block-queue and md tuning knobs safely: validate, write, read back, log, undo.

Every storage-tuning guide changes the same handful of sysfs files by hand.
This module knows those knobs (:data:`SPECS`), reads their current value and
what the kernel allows, checks a new value *before* writing it, writes it the
way ``echo VALUE > FILE`` does, reads it back, and says in words what
happened. Nothing here raises on a failed write: the kernel's error becomes a
sentence in a :class:`ChangeResult`.

All paths go through a :class:`~raidtop.collect.source.Root`, so a session can
point at a copy of /sys; the commands shown to the user always name the real
system paths (``/sys/block/sda/queue/scheduler``).

What the kernel accepts (checked against the 6.x sources and on a 6.18 host):

* ``scheduler``: one of the words ``queue/scheduler`` lists; switching it
  resets ``nr_requests`` to the new scheduler's default.
* ``nr_requests``: values below 4 (BLKDEV_MIN_RQ) are raised to 4; at most 2048
  (MAX_SCHED_RQ) with a scheduler, at most the driver's queue depth with
  ``none`` (EINVAL above it; sysfs does not show that depth).
* ``read_ahead_kb``: kept in pages, so non-multiples of the page size are
  rounded down; ``blockdev --setra`` sets the same value in 512-byte sectors.
* ``max_sectors_kb``: 4 KiB (or a page) up to ``max_hw_sectors_kb``; newer
  kernels silently cap larger values.
* ``rq_affinity`` and ``nomerges``: 0, 1 or 2.
* ``write_cache``: ``write back`` or ``write through``; it changes the kernel's
  view only (whether it sends cache flushes), not the drive.
* md ``sync_speed_min``/``_max``: a positive KiB/s value, or ``system`` to
  follow /proc/sys/dev/raid/speed_limit_*; they read ``N (local)`` or
  ``N (system)``.
* md ``stripe_cache_size`` (raid4/5/6): 17–32768; ``group_thread_cnt``: 0–8192.
* /proc/sys/dev/raid/speed_limit_min/max: ints (proc_dointvec).
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import time
from dataclasses import dataclass, field, replace
from typing import Iterable

from raidtop.actions.action_log import ActionLog, LoggedAction
from raidtop.actions.tuning_eta import ArrayLimits, EffectTracker, EtaPrediction, predictions_for_change
from raidtop.collect.mdlevel import natural_key
from raidtop.collect.queue_settings import read_queue_settings
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.model_md import MdArray
from raidtop.untrusted import plain

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


@dataclass(frozen=True, slots=True)
class KnobSpec:
    """What one knob is: where it lives and what it does, independent of any device."""

    attr: str
    scope: str
    """``queue`` (/sys/block/X/queue), ``md`` (/sys/block/mdN/md) or ``global`` (/proc/sys/dev/raid)."""
    summary: str
    """One sentence: what the knob changes."""
    unit: str = ""


SPECS: dict[str, KnobSpec] = {
    spec.attr: spec
    for spec in (
        KnobSpec("scheduler", "queue", "I/O scheduler: none passes requests straight on (fast devices); "
                 "mq-deadline bounds latency; bfq shares bandwidth fairly; kyber targets latency."),
        KnobSpec("read_ahead_kb", "queue", "How far the kernel reads ahead of sequential reads; "
                 "larger helps streaming from arrays, smaller helps random I/O.", "KiB"),
        KnobSpec("nr_requests", "queue", "How many requests the block layer queues per hardware queue "
                 "before callers wait."),
        KnobSpec("rq_affinity", "queue", "Where I/O completions run: 0 any CPU, 1 the submitting CPU's group, "
                 "2 exactly the submitting CPU."),
        KnobSpec("nomerges", "queue", "Request merging: 0 all merges, 1 only simple one-hit merges, 2 none."),
        KnobSpec("max_sectors_kb", "queue", "The largest request the block layer sends to the device.", "KiB"),
        KnobSpec("write_cache", "queue", "Whether the kernel treats the device's cache as volatile "
                 "(write back: it sends flushes) or not (write through: it does not)."),
        KnobSpec("sync_speed_min", "md", "The resync/rebuild speed md keeps even when the array is busy "
                 "with other I/O; 'system' follows dev.raid.speed_limit_min.", "KiB/s"),
        KnobSpec("sync_speed_max", "md", "The resync/rebuild speed md never exceeds; "
                 "'system' follows dev.raid.speed_limit_max.", "KiB/s"),
        KnobSpec("stripe_cache_size", "md", "Stripes raid4/5/6 caches for parity work; more speeds up "
                 "writes and rebuilds at the cost of RAM (pages × page size × disks).", "stripes"),
        KnobSpec("group_thread_cnt", "md", "Extra worker threads per CPU group for raid4/5/6 stripe "
                 "handling; 0 uses only the array's md thread."),
        KnobSpec("speed_limit_min", "global", "System-wide guaranteed resync/rebuild speed per device for "
                 "arrays without their own sync_speed_min.", "KiB/s"),
        KnobSpec("speed_limit_max", "global", "System-wide ceiling on resync/rebuild speed per device for "
                 "arrays without their own sync_speed_max.", "KiB/s"),
    )
}
"""Every knob raidtop can change, in display order within each scope."""


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Knob:
    """One knob of one target, as read now."""

    target: str
    attr: str
    path: str
    """The system path (/sys/..., /proc/...), not resolved under the root."""
    value: str | None
    """Canonical current value (``bfq``, ``128``, ``system``, ``write back``); ``None`` if unreadable."""
    shown: str
    """The current value as people read it (``128 KiB (setra 256)``, ``1000 K/s (system)``)."""
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


# ---------------------------------------------------------------- reading


def _is_writable(root: Root, path: str) -> bool:
    try:
        return bool(os.stat(root.resolve(path)).st_mode & 0o222)
    except OSError:
        return False


def _first_int(text: str | None) -> int | None:
    if text is None:
        return None
    match = re.match(r"\s*(-?[0-9]{1,30})(?![0-9])", text, re.ASCII)
    # A longer number is no kernel value (int() would also refuse past 4300 digits).
    return int(match.group(1)) if match else None


def _kind(root: Root, name: str) -> str:
    if root.exists(f"/sys/block/{sys_name(name)}/md"):
        return "md"
    for prefix, kind in (("loop", "loop"), ("nvme", "nvme"), ("dm-", "dm"), ("zram", "zram"), ("ram", "ram"), ("md", "md")):
        if name.startswith(prefix):
            return kind
    return "disk"


def list_targets(root: Root | str = "/") -> list[Target]:
    """Every tunable target under ``root``: block devices, md arrays, then the global md settings.

    Devices of size 0 (unattached loop devices, unconfigured zram) are left
    out except md arrays, whose md knobs exist even while inactive.
    """
    root = as_root(root)
    try:
        names = root.listdir("/sys/block")
    except SourceError:
        names = []
    targets = []
    for sname in sorted(names, key=natural_key):
        name = dev_name(sname)
        kind = _kind(root, name)
        if kind != "md" and _first_int(root.read_optional(f"/sys/block/{sname}/size")) == 0:
            continue
        level = None
        detail = kind
        if kind == "md":
            level = (root.read_optional(f"/sys/block/{sname}/md/level") or "").strip() or None
            disks = (root.read_optional(f"/sys/block/{sname}/md/raid_disks") or "").strip().split(" ")[0]
            detail = " ".join(part for part in (level or "md", f"{disks} disks" if disks else "") if part)
        targets.append(Target(name, kind, detail, level))
    if root.exists("/proc/sys/dev/raid/speed_limit_max"):
        targets.append(Target(GLOBAL_TARGET, "global", "md speed limits"))
    return targets


def read_target(root: Root | str, name: str) -> Target:
    """Describe one target; raise :class:`TuningError` if it is not tunable here."""
    root = as_root(root)
    name = dev_name(name)
    if name == GLOBAL_TARGET:
        if not root.exists("/proc/sys/dev/raid/speed_limit_max"):
            raise TuningError("/proc/sys/dev/raid is absent: the md driver is not loaded")
        return Target(GLOBAL_TARGET, "global", "md speed limits")
    sname = sys_name(name)
    if not root.exists(f"/sys/block/{sname}"):
        if root.exists(f"/sys/class/block/{sname}/partition"):
            parent = parent_disk(root, name) or "its disk"
            raise TuningError(f"{name} is a partition; its queue settings belong to {parent}")
        raise TuningError(f"{name}: no such block device (not in /sys/block)")
    for target in list_targets(root):
        if target.name == name:
            return target
    kind = _kind(root, name)
    return Target(name, kind, f"{kind}, size 0")


def parent_disk(root: Root | str, name: str) -> str | None:
    """The whole disk a partition belongs to (``sda1`` → ``sda``), or ``None`` for a non-partition."""
    root = as_root(root)
    sname = sys_name(name)
    if not root.exists(f"/sys/class/block/{sname}/partition"):
        return None
    link = root.readlink(f"/sys/class/block/{sname}") or ""
    return dev_name(link.rstrip("/").split("/")[-2]) if link.count("/") >= 1 else None


def _speed_value(text: str | None) -> tuple[str | None, int | None, str]:
    """``1000 (system)`` → (``system``, 1000, shown); ``5000 (local)`` → (``5000``, 5000, shown)."""
    number = _first_int(text)
    if number is None:
        # The kernel always prints a number; a copied tree may hold just the word written.
        return ("system", None, "system") if (text or "").strip() == "system" else (None, None, "unreadable")
    if "system" in (text or ""):
        return "system", number, f"{number} K/s (system)"
    return str(number), number, f"{number} K/s (local)"


def read_knobs(root: Root | str, name: str) -> list[Knob]:
    """Read every knob ``name`` has under ``root`` (start values not filled in).

    Raises :class:`TuningError` for an unknown target; knobs whose file is
    missing are left out (md has no scheduler choice, raid1 no stripe cache).
    """
    root = as_root(root)
    target = read_target(root, name)
    if target.kind == "global":
        return _global_knobs(root)
    knobs: list[Knob] = []
    if target.kind == "md":
        knobs.extend(_md_knobs(root, target))
    knobs.extend(_queue_knobs(root, target.name))
    return knobs


def _global_knobs(root: Root) -> list[Knob]:
    knobs = []
    for attr in GLOBAL_KNOBS:
        path = system_path(GLOBAL_TARGET, attr)
        if not root.exists(path):
            continue
        value = _first_int(root.read_optional(path))
        allowed = Allowed(low=0 if attr == "speed_limit_min" else 1, high=INT_MAX)
        knobs.append(Knob(GLOBAL_TARGET, attr, path, None if value is None else str(value),
                          "unreadable" if value is None else f"{value} K/s", allowed, _is_writable(root, path), value))
    return knobs


def _md_knobs(root: Root, target: Target) -> list[Knob]:
    knobs = []
    for attr in MD_KNOBS:
        path = system_path(target.name, attr)
        if not root.exists(path):
            continue
        text = root.read_optional(path)
        writable = _is_writable(root, path)
        if attr in ("sync_speed_min", "sync_speed_max"):
            value, number, shown = _speed_value(text)
            allowed = Allowed(low=1, high=INT_MAX, words=("system",))
            knobs.append(Knob(target.name, attr, path, value, shown, allowed, writable, number))
            continue
        number = _first_int(text)
        if attr == "stripe_cache_size":
            allowed = Allowed(low=17, high=32768)
            disks = _first_int(root.read_optional(f"/sys/block/{sys_name(target.name)}/md/raid_disks")) or 0
            memory = f" ({_mib(number * PAGE_KB * disks)} RAM)" if number is not None and disks else ""
            shown = "unreadable" if number is None else f"{number}{memory}"
        else:
            allowed = Allowed(low=0, high=8192)
            shown = "unreadable" if number is None else str(number)
        knobs.append(Knob(target.name, attr, path, None if number is None else str(number), shown, allowed, writable, number))
    return knobs


def _mib(kib: int) -> str:
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


_RQ_AFFINITY = {"0": "any CPU", "1": "submitter's group", "2": "submitting CPU"}
_NOMERGES = {"0": "all merges", "1": "simple merges", "2": "no merges"}

CHOICE_MEANINGS: dict[str, dict[str, str]] = {
    "scheduler": {"none": "no reordering: NVMe and fast SSDs", "mq-deadline": "bounded latency: SATA SSDs, disks",
                  "bfq": "fair shares: desktops, slow disks", "kyber": "latency targets: fast devices"},
    "rq_affinity": {"0": "complete on any CPU", "1": "complete in the submitting CPU's group",
                    "2": "complete on the submitting CPU itself"},
    "nomerges": {"0": "merge requests (default)", "1": "only simple one-hit merges", "2": "never merge"},
    "write_cache": {"write back": "the kernel sends cache flushes (safe)",
                    "write through": "no flushes: only for caches with power-loss protection"},
}
"""What each word of a choice knob means, for the value dialog."""


def _queue_knobs(root: Root, name: str) -> list[Knob]:
    settings = read_queue_settings(root, name)
    knobs = []
    for attr in QUEUE_KNOBS:
        path = system_path(name, attr)
        if not root.exists(path):
            continue
        writable = _is_writable(root, path)
        number = None
        if attr == "scheduler":
            value = settings.scheduler
            allowed = Allowed(choices=settings.schedulers or ((value,) if value else ()))
            shown = value or "unreadable"
        elif attr == "write_cache":
            value = settings.write_cache
            allowed = Allowed(choices=("write back", "write through"))
            shown = value or "unreadable"
        else:
            number = getattr(settings, attr)
            value = None if number is None else str(number)
            shown = "unreadable" if number is None else str(number)
            if attr == "read_ahead_kb":
                allowed = Allowed(low=0, high=READ_AHEAD_LIMIT_KB, multiple_of=PAGE_KB)
                if number is not None:
                    shown = f"{number} KiB (setra {number * 2})"
            elif attr == "nr_requests":
                note = "with scheduler none: at most the driver's queue depth" if settings.scheduler == "none" else ""
                allowed = Allowed(low=BLKDEV_MIN_RQ, high=MAX_SCHED_RQ, note=note)
            elif attr == "max_sectors_kb":
                high = settings.max_hw_sectors_kb or INT_MAX
                allowed = Allowed(low=max(4, PAGE_KB), high=high, note="at most max_hw_sectors_kb")
                if number is not None:
                    shown = f"{number} KiB"
            elif attr == "rq_affinity":
                allowed = Allowed(choices=("0", "1", "2"))
                shown = f"{number} ({_RQ_AFFINITY.get(str(number), '?')})" if number is not None else shown
            else:  # nomerges
                allowed = Allowed(choices=("0", "1", "2"))
                shown = f"{number} ({_NOMERGES.get(str(number), '?')})" if number is not None else shown
        knobs.append(Knob(name, attr, path, value, shown, allowed, writable, number))
    return knobs


# ---------------------------------------------------------------- validation


@dataclass(frozen=True, slots=True)
class Checked:
    """The outcome of :func:`check_value`: a canonical value, or why it is refused."""

    value: str | None
    error: str | None = None


_WRITE_CACHE_ALIASES = {"write back": "write back", "writeback": "write back", "write-back": "write back",
                        "write through": "write through", "writethrough": "write through",
                        "write-through": "write through"}


MAX_VALUE_DIGITS = 20
"""More digits than any kernel knob holds (u64 has 20); longer values are refused uncounted."""


def _shown(raw: str) -> str:
    """``raw`` quoted for a refusal: control characters replaced, at most 40 characters."""
    text = plain(raw)
    return repr(text if len(text) <= 40 else text[:40] + "…")


def check_value(knob: Knob, text: str) -> Checked:
    """Validate ``text`` for ``knob`` before anything is written.

    Refuses words the knob does not offer, numbers outside the range (negative,
    huge), non-numbers, and read-ahead values the kernel would round.
    """
    name = f"{knob.target} {knob.attr}"
    raw = " ".join(str(text).split())
    if not raw:
        return Checked(None, f"{name}: enter a value ({knob.allowed.describe()})")
    if not knob.writable:
        return Checked(None, f"{name} is read-only on this device: the kernel does not allow changing it")
    allowed = knob.allowed
    if allowed.choices:
        if knob.attr == "write_cache":
            raw = _WRITE_CACHE_ALIASES.get(raw.lower(), raw)
        if raw in allowed.choices:
            return Checked(raw)
        if knob.attr == "scheduler":
            return Checked(None, f"{name}: {_shown(raw)} is not offered by this device (it offers: {' '.join(allowed.choices)})")
        return Checked(None, f"{name}: {_shown(raw)} is not allowed (choose one of: {', '.join(allowed.choices)})")
    if raw.lower() in allowed.words:
        return Checked(raw.lower())
    words = f" or {'/'.join(allowed.words)}" if allowed.words else ""
    if re.fullmatch(r"-\s*[0-9]+", raw, re.ASCII):
        return Checked(None, f"{name}: negative numbers are not allowed ({allowed.describe()})")
    if not re.fullmatch(r"[0-9]+", raw, re.ASCII):
        return Checked(None, f"{name}: {_shown(raw)} is not a whole number{words} ({allowed.describe()})")
    digits = raw.lstrip("0") or "0"
    if len(digits) > MAX_VALUE_DIGITS:
        # Counted before int(): a 100,000-digit value is refused with a sentence, not a ValueError.
        return Checked(None, f"{name}: a {len(digits)}-digit number is above the maximum "
                             f"{allowed.high if allowed.high is not None else INT_MAX}")
    number = int(digits)
    if allowed.low is not None and number < allowed.low:
        hint = " (the kernel would silently raise it to 4)" if knob.attr == "nr_requests" else ""
        return Checked(None, f"{name}: {number} is below the minimum {allowed.low}{hint}")
    if allowed.high is not None and number > allowed.high:
        why = f" ({allowed.note})" if allowed.note and knob.attr == "max_sectors_kb" else ""
        return Checked(None, f"{name}: {number} is above the maximum {allowed.high}{why}")
    if allowed.multiple_of and number % allowed.multiple_of:
        rounded = number - number % allowed.multiple_of
        return Checked(None, f"{name}: the kernel keeps read-ahead in {allowed.multiple_of} KiB pages, so {number} "
                             f"would become {rounded}; use a multiple of {allowed.multiple_of}")
    return Checked(str(number))


# ---------------------------------------------------------------- plans and results


@dataclass(frozen=True, slots=True)
class Plan:
    """A validated change, ready to confirm: what will be written and the equivalent command."""

    target: str
    attr: str
    path: str
    old: str | None
    new: str
    command: str
    """The command as root runs it."""
    sudo_command: str
    """The same for a user who is not root."""
    warning: str = ""
    notes: tuple[str, ...] = ()
    undo_of: float | None = None
    """For an undo: the time of the change it reverts."""
    undo_all: bool = False
    """For "undo all": it reverts every change of this knob back to the start value."""

    @property
    def noop(self) -> bool:
        """True when the knob already holds the new value."""
        return self.old == self.new


@dataclass(frozen=True, slots=True)
class Refusal:
    """A change refused before writing, with the reason."""

    target: str
    attr: str
    message: str


@dataclass(frozen=True, slots=True)
class ChangeResult:
    """What happened when a plan was applied."""

    time: float
    target: str
    attr: str
    old: str | None
    new: str
    command: str
    status: str
    """``ok``; ``mismatch`` (accepted but reads back differently); ``unchanged`` (already
    the value, nothing written); ``failed`` (the kernel refused); ``needs-root``; ``refused``."""
    message: str
    """What happened, in words."""
    readback: str | None = None
    side_effects: tuple[tuple[str, str | None, str | None], ...] = ()
    """Other knobs of the target that changed with it: (attr, before, after)."""
    undo_of: float | None = None
    undo_all: bool = False
    log_error: str | None = None
    """Why the change could not be logged, if it could not."""

    @property
    def ok(self) -> bool:
        """True when the value now reads back as requested."""
        return self.status in ("ok", "unchanged")

    @property
    def changed_system(self) -> bool:
        """True when the write took effect (so it can be undone)."""
        return self.status in ("ok", "mismatch")

    @property
    def is_undo(self) -> bool:
        """True for a write that reverted earlier changes."""
        return self.undo_of is not None or self.undo_all


_ERRNO_WORDS = {
    errno.EINVAL: "the kernel rejected the value (EINVAL, invalid argument)",
    errno.EBUSY: "the device is busy (EBUSY); try again when it is idle",
    errno.EROFS: "sysfs is read-only here (EROFS; a container?)",
    errno.ENOENT: "the attribute is gone (ENOENT; device removed?)",
    errno.ENODEV: "the device is gone (ENODEV)",
    errno.ENXIO: "the device is gone (ENXIO)",
    errno.ENOMEM: "the kernel could not allocate memory for this value (ENOMEM)",
    errno.EIO: "I/O error (EIO)",
    errno.EAGAIN: "the kernel asked to try again (EAGAIN)",
}


def describe_write_error(exc: OSError, attr: str, *, privileged: bool) -> tuple[str, str]:
    """Turn a failed write into (status, words); never raises."""
    code = exc.errno or 0
    if code in (errno.EACCES, errno.EPERM):
        if privileged:
            return "failed", "permission denied even with root rights (a locked-down kernel or read-only sysfs?)"
        return "needs-root", "needs root: only root may change this (permission denied)"
    words = _ERRNO_WORDS.get(code) or f"{errno.errorcode.get(code, 'error')}: {exc.strerror or exc}"
    if code == errno.EINVAL and attr == "nr_requests":
        words += "; with scheduler none it cannot exceed the driver's queue depth"
    return "failed", words


def _write(real_path: str, value: str) -> None:
    # One write() of "VALUE\n", as `echo VALUE > FILE` does; sysfs stores take
    # a whole buffer per write. No O_CREAT: a missing attribute must fail.
    fd = os.open(real_path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, (value + "\n").encode())
    finally:
        os.close(fd)


# ---------------------------------------------------------------- session


@dataclass
class _Touched:
    """Knobs written in this session, in first-write order."""

    order: list[tuple[str, str]] = field(default_factory=list)

    def add(self, key: tuple[str, str]) -> None:
        if key not in self.order:
            self.order.append(key)


class TuningSession:
    """Changes knobs under one root, remembering start values, undo history and results.

    Start values are the values when the session first read a target (for the
    app: when the Tuning screen or :meth:`capture_start` first looked at it).
    Every write attempted, including undos and writes the kernel refused, is
    appended to the :class:`ActionLog` with ``kind="tune"``. Writes not
    attempted (refused by validation, not root, already set) are not logged,
    except an undo that finds the old value already in place: it is logged so
    the log's undo bookkeeping (:func:`changes_from_log`) closes that change.
    """

    def __init__(self, root: Root | str = "/", log: ActionLog | None = None, *,
                 privileged: bool | None = None, clock=time.time) -> None:
        self.root = as_root(root)
        self.log = log if log is not None else ActionLog()
        self.privileged = (os.geteuid() == 0) if privileged is None else privileged
        """True when writes to the live system can succeed (root)."""
        self.clock = clock
        self.results: list[ChangeResult] = []
        """Every write attempted or refused in this session, oldest first."""
        self.effects = EffectTracker()
        """Sync rates before and after speed-limit changes, fed by the screen's snapshots."""
        self._start: dict[tuple[str, str], str | None] = {}
        self._undo: list[ChangeResult] = []
        self._touched = _Touched()

    # -------------------------------------------------------------- reading

    @property
    def needs_sudo(self) -> bool:
        """True when changes to the live system need sudo (not root)."""
        return self.root.is_live and not self.privileged

    def targets(self) -> list[Target]:
        """Every tunable target under the root."""
        return list_targets(self.root)

    def capture_start(self) -> None:
        """Record the start value of every knob of every target (call once, early)."""
        for target in self.targets():
            try:
                self.knobs(target.name)
            except TuningError:
                continue

    def knobs(self, target: str) -> list[Knob]:
        """The target's knobs with their start values; raises :class:`TuningError` if unknown."""
        knobs = read_knobs(self.root, target)
        out = []
        for knob in knobs:
            key = (knob.target, knob.attr)
            if key not in self._start:
                self._start[key] = knob.value
            out.append(replace(knob, start=self._start[key]))
        return out

    def knob(self, target: str, attr: str) -> Knob | None:
        """One knob, or ``None`` when the target does not have it."""
        return next((k for k in self.knobs(target) if k.attr == attr), None)

    def start_value(self, target: str, attr: str) -> str | None:
        """The value at start, if the session has read it."""
        return self._start.get((dev_name(target), attr))

    def _values(self, target: str) -> dict[str, str | None]:
        try:
            return {k.attr: k.value for k in read_knobs(self.root, target)}
        except TuningError:
            return {}

    # -------------------------------------------------------------- planning

    def plan(self, target: str, attr: str, text: str, *, undo_of: float | None = None,
             undo_all: bool = False) -> Plan | Refusal:
        """Validate ``text`` for ``attr`` of ``target``; nothing is written."""
        target = dev_name(target)
        if attr not in SPECS:
            return Refusal(target, attr, f"{attr!r} is not a knob raidtop changes (known: {', '.join(SPECS)})")
        try:
            knob = self.knob(target, attr)
        except TuningError as exc:
            return Refusal(target, attr, str(exc))
        if knob is None:
            return Refusal(target, attr, _missing_reason(self.root, target, attr))
        checked = check_value(knob, text)
        if checked.error is not None or checked.value is None:
            return Refusal(target, attr, checked.error or "refused")
        new = checked.value
        warning, notes = self._warnings(knob, new)
        return Plan(target, attr, knob.path, knob.value, new,
                    shell_command(target, attr, new), shell_command(target, attr, new, sudo=True),
                    warning, notes, undo_of, undo_all)

    def _warnings(self, knob: Knob, new: str) -> tuple[str, tuple[str, ...]]:
        notes: list[str] = []
        warning = ""
        if knob.attr == "write_cache":
            if new == "write through":
                warning = WRITE_THROUGH_WARNING
            else:
                notes.append("write back makes the kernel send cache flushes again (the safe setting); "
                             "on a device without a volatile cache it reads back as write through.")
        elif knob.attr == "scheduler":
            notes.append("Switching the scheduler resets nr_requests to the new scheduler's default.")
        elif knob.attr == "nr_requests" and knob.allowed.note:
            notes.append(f"nr_requests {knob.allowed.note}; the kernel refuses more with EINVAL.")
        elif knob.attr == "stripe_cache_size":
            disks = _first_int(self.root.read_optional(f"/sys/block/{sys_name(knob.target)}/md/raid_disks")) or 0
            if disks:
                notes.append(f"Uses about {_mib(int(new) * PAGE_KB * disks)} of RAM "
                             f"({new} × {PAGE_KB} KiB × {disks} disks).")
        elif knob.attr == "read_ahead_kb":
            notes.append(f"raidtop writes {new} to {knob.path}; blockdev --setra counts 512-byte sectors.")
        if knob.attr in SPEED_KNOBS and new.isdigit():
            pair = {"sync_speed_min": "sync_speed_max", "sync_speed_max": "sync_speed_min",
                    "speed_limit_min": "speed_limit_max", "speed_limit_max": "speed_limit_min"}[knob.attr]
            other = self.knob(knob.target, pair)
            if other is not None and other.effective is not None:
                low, high = (int(new), other.effective) if knob.attr.endswith("min") else (other.effective, int(new))
                if low > high:
                    notes.append(f"The minimum ({low}) is above the maximum ({high}): md then syncs at the minimum.")
        return warning, tuple(notes)

    # -------------------------------------------------------------- applying

    def can_write(self, plan: Plan) -> bool:
        """True when the file is writable for this process (else: needs root)."""
        return os.access(self.root.resolve(plan.path), os.W_OK)

    def apply(self, plan: Plan | Refusal) -> ChangeResult:
        """Write the plan's value, read it back and log it; never raises."""
        now = self.clock()
        if isinstance(plan, Refusal):
            result = ChangeResult(now, plan.target, plan.attr, None, "", "", "refused", plan.message)
            self.results.append(result)
            return result
        real = self.root.resolve(plan.path)
        before = self._values(plan.target)
        current = before.get(plan.attr)
        if current == plan.new:
            result = ChangeResult(now, plan.target, plan.attr, current, plan.new, plan.command, "unchanged",
                                  f"{plan.target} {plan.attr} is already {plan.new}; nothing written",
                                  current, undo_of=plan.undo_of, undo_all=plan.undo_all)
            # An undo that finds the old value in place still closes the change in the log.
            return self._record(result, log=result.is_undo)
        if not os.path.exists(real):
            result = ChangeResult(now, plan.target, plan.attr, current, plan.new, plan.command, "failed",
                                  f"{plan.path} is gone (device removed?)", undo_of=plan.undo_of, undo_all=plan.undo_all)
            return self._record(result, log=False)
        if not os.access(real, os.W_OK) and not self.privileged:
            result = ChangeResult(now, plan.target, plan.attr, current, plan.new, plan.sudo_command, "needs-root",
                                  f"changing {plan.target} {plan.attr} needs root; run: {plan.sudo_command}",
                                  current, undo_of=plan.undo_of, undo_all=plan.undo_all)
            return self._record(result, log=False)
        try:
            _write(real, plan.new)
        except OSError as exc:
            status, words = describe_write_error(exc, plan.attr, privileged=self.privileged)
            command = plan.sudo_command if status == "needs-root" else plan.command
            if status == "needs-root":
                words += f"; run: {plan.sudo_command}"
            after = self._values(plan.target)
            result = ChangeResult(now, plan.target, plan.attr, current, plan.new, command, status,
                                  f"{plan.target} {plan.attr} = {plan.new}: {words}", after.get(plan.attr),
                                  undo_of=plan.undo_of, undo_all=plan.undo_all)
            return self._record(result, log=status != "needs-root")
        after = self._values(plan.target)
        readback = after.get(plan.attr)
        side = tuple((attr, before.get(attr), value) for attr, value in after.items()
                     if attr != plan.attr and before.get(attr) != value)
        if readback == plan.new:
            status, message = "ok", f"{plan.target} {plan.attr}: {current} → {plan.new}"
        else:
            status = "mismatch"
            message = f"{plan.target} {plan.attr}: the kernel accepted {plan.new} but it reads back as {readback}"
        if side:
            message += "; also changed " + ", ".join(f"{a} {b} → {c}" for a, b, c in side)
        result = ChangeResult(now, plan.target, plan.attr, current, plan.new, plan.command, status, message,
                              readback, side, plan.undo_of, plan.undo_all)
        return self._record(result, log=True)

    def _record(self, result: ChangeResult, *, log: bool) -> ChangeResult:
        if log:
            result = self._log(result)
        self.results.append(result)
        if result.changed_system:
            self._touched.add((result.target, result.attr))
            for attr, _before, _after in result.side_effects:
                self._touched.add((result.target, attr))
        if not result.is_undo:
            if result.changed_system:
                self._undo.append(result)
        elif result.ok:
            self._undo = _close(self._undo, result.target, result.attr, result.undo_of, result.undo_all)
        return result

    def _log(self, result: ChangeResult) -> ChangeResult:
        try:
            entry: LoggedAction = self.log.append(
                "tune", result.command, "ok" if result.status == "ok" else result.message,
                device=result.target, attribute=result.attr, old=result.old, new=result.new,
                readback=result.readback, status=result.status,
                side_effects=[list(s) for s in result.side_effects], undo_of=result.undo_of,
                undo_all=result.undo_all,
            )
        except OSError as exc:
            return replace(result, log_error=f"could not write the change log {self.log.path}: {exc.strerror or exc}")
        # The log's own timestamp identifies the change, so an undo can name it.
        return replace(result, time=entry.time)

    def set(self, target: str, attr: str, text: str) -> ChangeResult:
        """Plan and apply in one call (the CLI and the VM harness use this)."""
        return self.apply(self.plan(target, attr, text))

    # -------------------------------------------------------------- undo

    @property
    def undoable(self) -> list[ChangeResult]:
        """Changes of this session that can still be undone, oldest first."""
        return list(self._undo)

    def plan_undo(self, change: ChangeResult) -> list[Plan | Refusal]:
        """Plans that put ``change``'s knob (and what changed with it) back as it was."""
        if change.old is None:
            return [Refusal(change.target, change.attr, f"{change.target} {change.attr}: the old value was unreadable")]
        plans: list[Plan | Refusal] = [self.plan(change.target, change.attr, change.old, undo_of=change.time)]
        primary = plans[0]
        if isinstance(primary, Plan):
            now = self.knob(change.target, change.attr)
            expected = change.readback if change.readback is not None else change.new
            if now is not None and now.value != expected:
                plans[0] = replace(primary, warning=f"{change.target} {change.attr} was changed since "
                                   f"(now {now.value}, raidtop set {expected}); undo restores {change.old}.")
        for attr, before, _after in change.side_effects:
            if before is not None:
                # Writing a side effect back may be a no-op; apply() then writes nothing.
                plans.append(self.plan(change.target, attr, before, undo_of=change.time))
        return plans

    def plan_undo_last(self) -> list[Plan | Refusal]:
        """Plans that revert the most recent change of this session ([] when there is none)."""
        return self.plan_undo(self._undo[-1]) if self._undo else []

    def plan_undo_all(self) -> list[Plan | Refusal]:
        """Plans that put every knob touched in this session back to its start value.

        Schedulers go first, because switching one resets nr_requests; so
        nr_requests is planned even when it is at its start value now, if its
        device's scheduler is switched first (apply() re-reads it and writes
        only if the switch moved it).
        """
        keys = sorted(self._touched.order, key=lambda key: key[1] != "scheduler")
        plans: list[Plan | Refusal] = []
        switching: set[str] = set()
        for target, attr in keys:
            start = self._start.get((target, attr))
            if start is None:
                continue
            plan = self.plan(target, attr, start, undo_all=True)
            if isinstance(plan, Plan) and plan.noop and not (attr == "nr_requests" and target in switching):
                continue
            if isinstance(plan, Plan) and attr == "scheduler":
                switching.add(target)
            plans.append(plan)
        return plans

    def _safe_knob(self, target: str, attr: str) -> Knob | None:
        try:
            return self.knob(target, attr)
        except TuningError:
            return None

    def undo(self, change: ChangeResult) -> list[ChangeResult]:
        """Revert one change (and its side effects); results in write order."""
        return [self.apply(plan) for plan in self.plan_undo(change)]

    def undo_last(self) -> list[ChangeResult]:
        """Revert the most recent change of this session; [] when there is none."""
        return self.undo(self._undo[-1]) if self._undo else []

    def undo_all(self) -> list[ChangeResult]:
        """Put every touched knob back to its start value."""
        return [self.apply(plan) for plan in self.plan_undo_all()]

    # -------------------------------------------------------------- sync speed

    def array_limits(self, arrays: Iterable[str]) -> dict[str, ArrayLimits]:
        """Each array's own sync limits and the system's, as md applies them now.

        Without /proc/sys/dev/raid (a copied tree), the system value is taken from
        an array that follows it, else the kernel defaults (1000 and 200000).
        """
        per_array: dict[str, dict[str, Knob]] = {}
        for name in arrays:
            knobs = {k.attr: k for k in self._safe_knobs(name) if k.attr in ("sync_speed_min", "sync_speed_max")}
            if len(knobs) == 2:
                per_array[name] = knobs
        system = {k.attr: k.effective for k in self._safe_knobs(GLOBAL_TARGET)}
        for attr, default, local in (("speed_limit_min", 1000, "sync_speed_min"), ("speed_limit_max", 200000, "sync_speed_max")):
            if system.get(attr) is None:
                follower = next((k[local].effective for k in per_array.values() if k[local].value == "system"), None)
                system[attr] = follower if follower is not None else default
        limits = {}
        for name, knobs in per_array.items():
            low, high = knobs["sync_speed_min"], knobs["sync_speed_max"]
            limits[name] = ArrayLimits(
                None if low.value == "system" else low.effective,
                None if high.value == "system" else high.effective,
                int(system["speed_limit_min"] or 0), int(system["speed_limit_max"] or 0),
            )
        return limits

    def predict(self, arrays: Iterable[MdArray], target: str, attr: str, value: str) -> list[EtaPrediction]:
        """Predicted rate and ETA of every running sync that setting ``attr`` to ``value`` would move."""
        if attr not in SPEED_KNOBS:
            return []
        arrays = [a for a in arrays if a.sync is not None and a.sync.running]
        if not arrays:
            return []
        return predictions_for_change(arrays, self.array_limits(a.name for a in arrays), dev_name(target), attr, value)

    def _safe_knobs(self, target: str) -> list[Knob]:
        try:
            return self.knobs(target)
        except TuningError:
            return []

    # -------------------------------------------------------------- for rules

    def net_changes(self) -> list[Knob]:
        """Knobs the user set in this session that still differ from their start value.

        Only knobs changed directly count: nr_requests reset by a scheduler switch
        follows the scheduler and is not listed on its own.
        """
        direct: list[tuple[str, str]] = []
        for result in self.results:
            if result.changed_system and (result.target, result.attr) not in direct:
                direct.append((result.target, result.attr))
        knobs = []
        for target, attr in direct:
            knob = self._safe_knob(target, attr)
            if knob is not None and knob.value is not None and knob.changed:
                knobs.append(knob)
        return knobs

    def logged_changes(self) -> list[LoggedAction]:
        """Every tune entry of the action log, oldest first."""
        return self.log.read("tune")


def _missing_reason(root: Root, target: str, attr: str) -> str:
    spec = SPECS[attr]
    if spec.scope == "md":
        if not root.exists(f"/sys/block/{sys_name(target)}/md"):
            return f"{target} is not an md array: {attr} belongs to md arrays"
        if attr in ("stripe_cache_size", "group_thread_cnt"):
            return f"{target}: {attr} exists only for raid4/5/6 arrays"
    if spec.scope == "global" and target != GLOBAL_TARGET:
        return f"{attr} is system-wide: use target {GLOBAL_TARGET!r} (raidtop tune {GLOBAL_TARGET} {attr} VALUE)"
    if spec.scope == "queue" and target == GLOBAL_TARGET:
        return f"{attr} belongs to block devices, not to {GLOBAL_TARGET!r}"
    return f"{target} has no {attr} (the kernel does not expose it for this device)"


def _close(stack: list[ChangeResult], target: str, attr: str, undo_of: float | None,
           undo_all: bool) -> list[ChangeResult]:
    """The undo stack after an undo: one change closed, or every change of the knob for undo-all."""
    if undo_all:
        return [c for c in stack if (c.target, c.attr) != (target, attr)]
    return [c for c in stack if c.time != undo_of]


def changes_from_log(entries: Iterable[LoggedAction]) -> list[ChangeResult]:
    """Logged changes that took effect and were not undone since, oldest first.

    This lets ``raidtop tune --undo`` revert a change made by another raidtop process.
    """
    stack: list[ChangeResult] = []
    for entry in entries:
        d = entry.details
        status = str(d.get("status"))
        target, attr = str(d.get("device")), str(d.get("attribute"))
        if d.get("undo_of") is not None or d.get("undo_all"):
            if status in ("ok", "unchanged"):
                stack = _close(stack, target, attr, d.get("undo_of"), bool(d.get("undo_all")))
            continue
        if status not in ("ok", "mismatch"):
            continue
        side = tuple(tuple(s) for s in d.get("side_effects") or () if isinstance(s, list) and len(s) == 3)
        stack.append(ChangeResult(entry.time, target, attr, d.get("old"), str(d.get("new")), entry.command,
                                  status, entry.result, d.get("readback"), side))  # type: ignore[arg-type]
    return stack


_SESSIONS: dict[str, TuningSession] = {}


def session_for(root: Root | str = "/") -> TuningSession:
    """The process-wide session for ``root``, so start values and undo survive closing the screen."""
    key = os.fspath(as_root(root).path)
    session = _SESSIONS.get(key)
    if session is None:
        session = _SESSIONS[key] = TuningSession(root)
    return session
