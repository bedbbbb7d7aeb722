"""How md arrays are described on screen: badges, progress bars, slow members.

Pure functions over the model (no Textual, no I/O), shared by the Arrays
panel, the detail screen and tests.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Protocol

from raidtop.collect.md.eta import SPEED_WINDOW_S
from raidtop.model.units import duration, rate
from raidtop.presentation.format import DASH
from raidtop.model.snapshot import DiskIO, Sensor
from raidtop.model.md import MdArray, MdMember, MdSync

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


def speed(kib_s: float | None) -> str:
    """A sync speed as a cell shows it (:func:`raidtop.model.units.rate`): ``980KiB/s``, ``12.3MiB/s``."""
    return rate(kib_s)


_LIMIT_NAMES = {"sync_speed_max": "max", "sync_speed_min": "min"}


def sync_speed_cell(sync: MdSync) -> str:
    """The Speed column: progress over md's whole speed window, or ``STALLED 4m``."""
    if sync.stalled:
        return f"STALLED {duration(sync.stalled_s, coarse=True)}"
    if sync.rate_kib_s is None and not sync.speed_kib_s:
        return DASH  # a sync's first reading: md has no figure yet, and raidtop no window
    return speed(sync.rate_kib_s if sync.rate_kib_s is not None else sync.speed_kib_s)


def held_text(sync: MdSync) -> str | None:
    """``held by sync_speed_max = 1000KiB/s``, or ``None`` while the disks set the pace."""
    if sync.held_by is None:
        return None
    why = " (competing I/O)" if sync.held_by == "sync_speed_min" else ""
    return f"held by {sync.held_by} = {speed(sync.held_limit_kib_s)}{why}"


def sync_speed_text(sync: MdSync) -> str:
    """The detail screen's speed: raidtop's window figure, the stall or the limit that holds it."""
    if sync.stalled:
        return f"0KiB/s: STALLED for {duration(sync.stalled_s)} (no progress)"
    text = speed(sync.rate_kib_s if sync.rate_kib_s is not None else sync.speed_kib_s)
    held = held_text(sync)
    return f"{text} over {SPEED_WINDOW_S:.0f} s" + (f", {held}" if held else ", the disks set the pace")


def kernel_figures_text(sync: MdSync) -> str:
    """md's own instant figures, labelled as the kernel's: sync_speed and mdstat's finish=."""
    parts = []
    if sync.speed_kib_s is not None:
        parts.append(f"sync_speed {speed(sync.speed_kib_s)}")
    if sync.eta_s_kernel is not None:
        parts.append(f"finish= {duration(sync.eta_s_kernel)}")
    return " · ".join(parts) + " (the kernel's own)" if parts else DASH


def finish_clock(eta_s: float | None, now: float, short: bool = False) -> str:
    """When a sync ends by the wall clock: ``≈ 14:32``, with the date when it is not today.

    ``short`` (the array row): ``≈ Fri 14:32`` within the week, ``≈ 27 Nov`` beyond it,
    where the hour no longer matters.
    """
    if eta_s is None:
        return ""
    end = time.localtime(now + eta_s)
    if end[:3] == time.localtime(now)[:3]:
        return f"≈ {time.strftime('%H:%M', end)}"
    if not short:
        return f"≈ {time.strftime('%a %d %b %H:%M', end)}"
    return f"≈ {time.strftime('%a %H:%M' if eta_s < 6 * 86400 else '%d %b', end)}"


def eta_text(sync: MdSync, now: float | None = None) -> str:
    """raidtop's ETA with its clock, saying when it still leans on md's window average."""
    if sync.eta_s is None:
        return "none while STALLED" if sync.stalled else DASH
    clock = f" {finish_clock(sync.eta_s, now)}" if now is not None else ""
    return duration(sync.eta_s) + clock + (" (from md's window)" if sync.eta_basis == "md-window" else "")


def degraded_since_text(array: MdArray, now: float) -> str | None:
    """``since 14:02 (2h05m)``; from raidtop's start when md keeps no date, and it says so."""
    if array.degraded_since is None:
        return None
    at = time.localtime(array.degraded_since)
    clock = time.strftime("%H:%M" if at[:3] == time.localtime(now)[:3] else "%d %b %H:%M", at)
    text = f"since {clock} ({duration(max(0.0, now - array.degraded_since))})"
    if array.degraded_since_basis == "raidtop-start":
        text += ", counted from raidtop's start: it was already so"
    return text


def sparse_text(array: MdArray) -> str:
    """``4/24 slots, by design``: a mirror whose empty slots are configuration."""
    return f"{array.working_disks}/{array.raid_disks} slots, by design"


def row_marks(
    array: MdArray, now: float | None, slow: set[str], member_verdicts: dict[str, str]
) -> list[tuple[str, str]]:
    """What the array's own row must say beyond its state: (text, tone), most urgent first.

    A stalled sync, a member whose disk SMART calls failing or watch, a slow
    member, a limit holding the sync, since when redundancy is lost, and slots
    empty by design: each leaves a mark, so the row tells the whole story.
    Without ``now`` (no snapshot time) the degraded age is left out.
    """
    marks: list[tuple[str, str]] = []
    sync = array.sync
    if sync is not None and sync.stalled:
        marks.append((f"STALLED {duration(sync.stalled_s, coarse=True)}", "warn"))
    for member, verdict in sorted(member_verdicts.items()):
        if verdict == "failing":
            marks.append((f"{member} SMART FAIL", "crit"))
        elif verdict == "watch":
            marks.append((f"{member} SMART watch", "warn"))
    marks.extend((f"{member} slow", "warn") for member in sorted(slow))
    if array.degraded_since is not None and now is not None and array.health in ("degraded", "failed"):
        age = duration(max(0.0, now - array.degraded_since), coarse=True)
        # From raidtop's start the true age is unknown: at least this long.
        at_least = "≥" if array.degraded_since_basis == "raidtop-start" else ""
        marks.append((f"{array.health} {at_least}{age}", "warn"))
    if sync is not None and sync.running and not sync.stalled and sync.held_by is not None:
        marks.append((f"held: {_LIMIT_NAMES[sync.held_by]} {speed(sync.held_limit_kib_s)}", "dim"))
    if array.sparse_by_design:
        marks.append((sparse_text(array), "dim"))
    if array.source == "dm-raid":
        marks.append(("LVM RAID (dm-raid)", "dim"))  # not in /proc/mdstat: mdadm knows nothing of it
    return marks


NOTES_JOIN = " · "


def fit_notes(notes: list[str], room: int) -> str:
    """``notes`` joined in at most ``room`` columns: whole notes while they fit, then whole words, then ``…``.

    Never a note cut inside a word ("loop21 S…" read as nothing): the words that fit, and ``…`` saying
    there is more. The whole text stays where the row's Explain shows it.
    """
    whole = NOTES_JOIN.join(notes)
    if len(whole) <= room:
        return whole
    if room <= 0:
        return ""
    # The last space that leaves a column for the ellipsis; a separator left dangling goes too.
    kept = whole[: max(0, whole.rfind(" ", 0, room))].rstrip()
    kept = kept.removesuffix(NOTES_JOIN.rstrip()).rstrip()
    return f"{kept} …" if kept and len(kept) + 2 <= room else f"{kept}…"


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


class MemberWaits(Protocol):
    """What :func:`slow_members` reads of a member's I/O: a :class:`DiskIO`, or the awaits a fleet host sent."""

    @property
    def r_await_ms(self) -> float | None: ...

    @property
    def w_await_ms(self) -> float | None: ...


def member_await(io: MemberWaits | None) -> float | None:
    """The member's worst average wait this interval (reads or writes)."""
    if io is None:
        return None
    waits = [w for w in (io.r_await_ms, io.w_await_ms) if w is not None]
    return max(waits) if waits else None


def median(values: Iterable[float]) -> float:
    """The middle value (the mean of the two middle ones for an even count); ``values`` must not be empty.

    Written out rather than taken from :mod:`statistics`, whose import holds
    0.4 MB for this one function (issue 30: the dashboard's memory).
    """
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def slow_members(array: MdArray, disks: Mapping[str, MemberWaits]) -> set[str]:
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


def member_temperature(member: str, disks: Mapping[str, DiskIO], sensors: tuple[Sensor, ...]) -> float | None:
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
