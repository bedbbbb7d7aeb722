"""How md arrays are described on screen: badges, progress bars, slow members.

Pure functions over the model (no Textual, no I/O), shared by the Arrays
panel, the detail screen and tests.
"""

from __future__ import annotations

from statistics import median

from raidtop.format import DASH
from raidtop.model import DiskIO, Sensor
from raidtop.model_md import MdArray, MdMember, MdSync

_SYNC_BADGE = {
    "resync": "resyncing",
    "recover": "recovering",
    "reshape": "reshaping",
    "check": "checking",
    "repair": "repairing",
}
_STATE_BADGE = {
    "readonly": "read-only",
    "read-auto": "auto-read-only",
    "active-idle": "active",
    "write-pending": "active",
    "clear": "inactive",
}
_PARTIALS = " ▏▎▍▌▋▊▉"
SLOW_FACTOR = 3.0
"""A member whose await is this many times its siblings' median is marked slow."""
SLOW_FLOOR_MS = 10.0
"""…and at least this many milliseconds, so idle-disk noise never triggers it."""


def state_badge(array: MdArray) -> tuple[str, str | None]:
    """The one-word state shown in the Arrays panel and the detail screen, and its tone.

    A state that needs attention starts with an ASCII marker, ``!`` (degraded,
    failed) or ``~`` (a sync running): on the Linux console and over 8-colour
    terminals the tone's colour may be lost, and these two characters are in
    every console font (``↻`` and ``⚠`` are not).
    """
    if array.health == "failed":
        return "! " + ("broken" if array.state == "broken" else "FAILED"), "crit"
    if array.health == "inactive":
        return "inactive", "dim"
    if array.sync is not None and array.sync.running:
        word = _SYNC_BADGE.get(array.sync.action, array.sync.action)
        return f"~ {word}", "warn" if array.health == "degraded" else "accent"
    if array.health == "degraded":
        return "! degraded", "warn"
    if array.auto_read_only:
        return "auto-read-only", "accent"
    if array.read_only:
        return "read-only", "accent"
    state = array.state or "active"
    return _STATE_BADGE.get(state, state), "good"


def progress_bar(percent: float | None, width: int) -> str:
    """A bar of ``width`` cells filled to ``percent``, with eighth-cell precision."""
    if percent is None:
        return "·" * width
    eighths = int(max(0.0, min(100.0, percent)) / 100.0 * width * 8 + 0.5)
    full, part = divmod(eighths, 8)
    bar = "█" * full + (_PARTIALS[part] if part and full < width else "")
    return bar + "·" * (width - len(bar))


def duration(seconds: float | None) -> str:
    """An ETA as people read it: 45s, 12m30s, 2h07m, 3d04h."""
    if seconds is None:
        return DASH
    s = int(seconds + 0.5)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def speed(kib_s: float | None) -> str:
    """A sync speed: K/s under 10 MiB/s, else M/s."""
    if kib_s is None:
        return DASH
    return f"{kib_s:.0f}K/s" if kib_s < 10240 else f"{kib_s / 1024:.1f}M/s"


STALL_WORDS = "throttled: waiting for the speed window"
"""Said when md sleeps until fast progress has left its ~30 s speed window."""
_AGREE = 0.15


def _agree(a: float, b: float) -> bool:
    return abs(a - b) <= _AGREE * max(a, b)


def sync_speed_cell(sync: MdSync) -> str:
    """The Speed column: progress actually made, ``throttled`` while md waits on its window."""
    if sync.stalled:
        return "throttled"
    return speed(sync.rate_kib_s if sync.rate_kib_s is not None else sync.speed_kib_s)


def sync_speed_text(sync: MdSync) -> str:
    """The detail screen's speed: progress made, md's sync_speed beside it only where they agree.

    md's ``sync_speed`` is its average over a ~30 s window: right after a
    limit change it can read 1000 K/s while nothing moves.
    """
    kernel, rate = sync.speed_kib_s, sync.rate_kib_s
    if sync.stalled:
        return f"0K/s, {STALL_WORDS}"
    if rate is None:
        return f"{speed(kernel)} (md's window average)" if kernel is not None else DASH
    if kernel is not None and _agree(rate, kernel):
        return f"{speed(rate)} (md: {speed(kernel)})"
    return speed(rate)


def eta_text(sync: MdSync) -> str:
    """raidtop's ETA, saying when it still leans on md's window average."""
    if sync.eta_s is None:
        return DASH
    return duration(sync.eta_s) + (" (from md's window)" if sync.eta_basis == "md-window" else "")


NO_SYNC_YET = "no sync has run since the array was assembled"


def sync_action_text(array: MdArray) -> str:
    """The last sync action in words: the one running now, the kernel's last one, or none yet.

    md's ``last_sync_action`` reads ``none`` until a sync has finished, also
    while the first one runs; printing it said "none" during a recovery.
    """
    sync = array.sync
    if sync is not None and sync.running:
        return f"{sync.action} (running now)"
    if array.last_sync_action in (None, "", "none", "idle"):
        return NO_SYNC_YET
    return array.last_sync_action


def counting_action(array: MdArray) -> str | None:
    """The sync during which ``mismatch_cnt`` was counted: the running one, else the last one."""
    sync = array.sync
    if sync is not None and sync.running:
        return sync.action
    return None if array.last_sync_action in (None, "", "none", "idle") else array.last_sync_action


def member_await(io: DiskIO | None) -> float | None:
    """The member's worst average wait this interval (reads or writes)."""
    if io is None:
        return None
    waits = [w for w in (io.r_await_ms, io.w_await_ms) if w is not None]
    return max(waits) if waits else None


def slow_members(array: MdArray, disks: dict[str, DiskIO]) -> set[str]:
    """Members whose await is far above their siblings' (a slow disk drags the array)."""
    waits = {m.name: member_await(disks.get(m.name)) for m in array.members if not m.is_faulty}
    known = {name: w for name, w in waits.items() if w is not None}
    slow = set()
    for name, wait in known.items():
        siblings = [w for other, w in known.items() if other != name]
        if not siblings:
            continue
        typical = median(siblings)
        if wait >= SLOW_FLOOR_MS and wait > SLOW_FACTOR * max(typical, 1.0):
            slow.add(name)
    return slow


def member_temperature(member: str, disks: dict[str, DiskIO], sensors: tuple[Sensor, ...]) -> float | None:
    """The temperature of the disk a member lives on, when a sensor names it."""
    io = disks.get(member)
    candidates = {member}
    if io is not None and io.parent:
        candidates.add(io.parent)
    for sensor in sensors:
        if sensor.kind == "temp" and sensor.device in candidates and sensor.value is not None:
            return sensor.value
    return None


def member_role_text(member: MdMember, array: MdArray) -> str:
    """A member's roles in words; the disk being recovered onto reads ``rebuilding 34 %``.

    md calls that disk a ``spare`` (with a slot) until the recovery ends, which
    told a watcher the opposite of what was happening to it.
    """
    sync = array.sync
    if member.is_spare and member.slot is not None and sync is not None and sync.action == "recover":
        if sync.running and sync.percent is not None:
            return f"rebuilding {sync.percent:.0f} %"
        return "rebuilding (waiting)"
    return ",".join(member.roles) if member.roles else "(unknown)"


EMPTY_SLOT_PREFIX = "#"
"""Starts the member name in an empty slot's row key (``md0/#2``); no kernel device name does."""


def slots_and_members(array: MdArray) -> list[tuple[int | None, MdMember | None]]:
    """Members in slot order, with ``(slot, None)`` for each slot no member holds.

    A failed-and-removed disk leaves its slot empty; listing the gap keeps the
    grid's shape ([UU_] has three rows) instead of a row silently vanishing.
    """
    members = sorted(array.members, key=lambda m: (m.slot is None, m.slot if m.slot is not None else 0, m.name))
    held = {m.slot for m in members if m.slot is not None}
    # Without any slot (mdstat alone says none) a gap cannot be placed: list members only.
    empty = [(slot, None) for slot in range(array.raid_disks or 0) if held and slot not in held]
    placed = [(m.slot, m) for m in members if m.slot is not None] + empty
    placed.sort(key=lambda pair: pair[0])
    return placed + [(None, m) for m in members if m.slot is None]
