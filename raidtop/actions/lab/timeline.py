"""A lab array's timeline: what the lab did and what the kernel did after.

The lab writes its own actions (failed, removed, added…) at the moment it
runs them. Everything the kernel does on its own — a resync or a recovery
starting and finishing, a member going faulty — is found by comparing two
looks at the array (:func:`observe`), whether the look comes from the app's
sampler (an :class:`~raidtop.model.md.MdArray`) or from the lab's own tight
poll (:func:`read_status`) while ``raidtop lab`` or the study waits.
The time between the two looks bounds how late a finish was seen; it is
stored with each measured rebuild.
"""

from __future__ import annotations

import time
from dataclasses import replace

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.registry import ArrayRecord, RebuildRecord, TimelineEvent, Watch
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.model.md import MdArray
from raidtop.model.units import duration

SYNC_WORDS = {"resync": "resync", "recover": "recovery", "check": "check", "repair": "repair", "reshape": "reshape"}
"""sysfs ``sync_action`` values and the words the timeline uses for them."""
MEASURED = {"resync": "resync", "recover": "recovery"}
"""Syncs whose duration is stored as a rebuild record."""


@frozen_dataclass
class ArrayStatus:
    """Just what the timeline needs to know about an array at one moment."""

    present: bool
    sync: str | None = None
    """The running sync action (``recover``…) or ``None`` when idle or only pending."""
    degraded: int | None = None
    members: tuple[str, ...] = ()
    faulty: tuple[str, ...] = ()
    mismatch_cnt: int | None = None
    sync_pending: bool = False
    """A sync is needed but not started yet (sync_action still reads idle)."""

    @property
    def idle(self) -> bool:
        """No sync running or waiting."""
        return self.sync is None and not self.sync_pending


ABSENT = ArrayStatus(present=False)


def read_status(name: str, root: Root | str = "/") -> ArrayStatus:
    """A cheap look at one array: a handful of sysfs reads, fit for a tight poll."""
    root = as_root(root)
    base = f"/sys/block/{name}/md"
    if root.read_optional(f"{base}/array_state") is None:
        return ABSENT
    # Levels without redundancy (raid0) have no sync attributes at all.
    action = (root.read_optional(f"{base}/sync_action") or "idle").strip()
    completed = (root.read_optional(f"{base}/sync_completed") or "").strip()
    degraded = _int(root.read_optional(f"{base}/degraded"))
    mismatch = _int(root.read_optional(f"{base}/mismatch_cnt"))
    members, faulty = [], []
    try:
        entries = root.listdir(base)
    except SourceError:
        entries = []
    for entry in entries:
        if not entry.startswith("dev-"):
            continue
        member = entry[4:]
        members.append(member)
        state = root.read_optional(f"{base}/{entry}/state") or ""
        if "faulty" in state.replace(",", " ").split():
            faulty.append(member)
    # sync_action names a needed sync as soon as it is requested (before md
    # starts it), which is the moment the timeline wants; an "idle" action
    # with progress still shown is a sync that is about to run or wind down.
    running = action if action in SYNC_WORDS else None
    pending = action == "idle" and completed not in ("", "none")
    return ArrayStatus(True, running, degraded, tuple(members), tuple(faulty), mismatch, pending)


def status_from_md(array: MdArray | None) -> ArrayStatus:
    """The same look, taken from a sampler snapshot's array."""
    if array is None:
        return ABSENT
    sync = array.sync.action if array.sync is not None and array.sync.running else None
    if sync == "recovery":
        sync = "recover"
    pending = array.sync is not None and not array.sync.running
    return ArrayStatus(
        True,
        sync,
        array.degraded,
        tuple(m.name for m in array.members),
        tuple(m.name for m in array.members if m.is_faulty),
        array.mismatch_cnt,
        pending,
    )


def observe(record: ArrayRecord, status: ArrayStatus, now: float | None = None) -> ArrayRecord:
    """``record`` with the events since its last look, and ``status`` as the new last look."""
    now = time.time() if now is None else now
    watch = record.watch
    events: list[TimelineEvent] = []
    rebuilds: list[RebuildRecord] = []
    if not status.present:
        if watch is not None and watch.members:
            events.append(TimelineEvent(now, "stopped", detail="the array is no longer running"))
        return replace(
            record,
            timeline=record.timeline + tuple(events),
            watch=Watch(now) if watch is None or watch.members else watch,
        )
    previous_sync = watch.sync if watch is not None else None
    sync_started = watch.sync_started if watch is not None else None
    rebuild_kind = watch.rebuild_kind if watch is not None else None
    pending_since = watch.pending_since if watch is not None else None
    rebuild_member = watch.rebuild_member if watch is not None else None
    if watch is not None:
        # The lab writes its own fail/remove when it runs them; only the kernel's own are new here.
        written = {(e.kind, e.member) for e in record.timeline if e.time >= watch.time}
        for member in status.faulty:
            if member not in watch.faulty and ("failed", member) not in written:
                events.append(TimelineEvent(now, "failed", member, "marked faulty by the kernel"))
        for member in watch.members:
            if member not in status.members and ("removed", member) not in written:
                events.append(TimelineEvent(now, "removed", member, "no longer a member"))
    if previous_sync != status.sync:
        if previous_sync is not None:
            word = _event_word(previous_sync, rebuild_kind)
            resolution = now - watch.time if watch is not None else 0.0
            if previous_sync == "recover" and status.degraded:
                events.append(TimelineEvent(now, f"{word}_stopped", detail=f"{status.degraded} still missing"))
            else:
                detail = None
                if previous_sync in ("check", "repair") and status.mismatch_cnt is not None:
                    detail = f"mismatch_cnt {status.mismatch_cnt}"
                events.append(TimelineEvent(now, f"{word}_done", detail=detail))
                if previous_sync in MEASURED and sync_started is not None:
                    kind = {"initial": "resync", "replace": "replace"}.get(rebuild_kind or "", MEASURED[previous_sync])
                    rebuilds.append(RebuildRecord(kind, sync_started, now, rebuild_member, round(resolution, 3)))
            if previous_sync in MEASURED:
                rebuild_kind, rebuild_member = None, None
        if status.sync is not None:
            detail = None
            if rebuild_kind == "initial" and status.sync == "recover":
                detail = "md builds a new parity array by recovering onto its last disk"
            # The lab's own command started it: the rebuild is timed from that command.
            started = pending_since if pending_since is not None and status.sync in MEASURED else now
            events.append(TimelineEvent(started, f"{_event_word(status.sync, rebuild_kind)}_start", detail=detail))
            sync_started = started
            pending_since = None
        else:
            sync_started = None
    elif status.idle and previous_sync is None and pending_since is not None:
        # The whole sync ran between two looks: its length is known only as a bound.
        if rebuild_kind is not None:
            kind = {"initial": "resync", "replace": "replace"}.get(rebuild_kind, "recovery")
            events.append(TimelineEvent(pending_since, f"{kind}_start"))
            events.append(TimelineEvent(now, f"{kind}_done", detail="finished between two looks"))
            rebuilds.append(RebuildRecord(kind, pending_since, now, rebuild_member, round(now - pending_since, 3)))
        rebuild_kind, pending_since, rebuild_member = None, None, None
    new_watch = Watch(
        time=now,
        sync=status.sync,
        sync_started=sync_started,
        degraded=status.degraded,
        members=status.members,
        faulty=status.faulty,
        rebuild_kind=rebuild_kind,
        pending_since=pending_since,
        rebuild_member=rebuild_member,
    )
    return replace(
        record, timeline=record.timeline + tuple(events), rebuilds=record.rebuilds + tuple(rebuilds), watch=new_watch
    )


def _event_word(sync: str, rebuild_kind: str | None) -> str:
    # The first sync after create is the initial build, whatever md calls it;
    # a recovery the lab started with --replace is the replace.
    if sync in MEASURED and rebuild_kind == "initial":
        return "resync"
    if sync == "recover" and rebuild_kind == "replace":
        return "replace"
    return SYNC_WORDS[sync]


def describe(event: TimelineEvent, record: ArrayRecord | None = None) -> str:
    """One line for the timeline pane."""
    member = event.member or ""
    words = {
        "created": "created",
        "resync_start": "initial resync started",
        "resync_done": "resync done",
        "failed": f"{member} failed",
        "removed": f"{member} removed",
        "added": f"{member} added",
        "re_added": f"{member} re-added",
        "spare_added": f"{member} added as a spare",
        "replace": f"{member} to be replaced",
        "replace_start": "replace started",
        "replace_done": "replace done",
        "replace_stopped": "replace stopped",
        "recovery_start": "recovery started",
        "recovery_done": "recovery done",
        "recovery_stopped": "recovery stopped",
        "check_start": "check started",
        "check_done": "check done",
        "repair_start": "repair started",
        "repair_done": "repair done",
        "reshape_start": "reshape started",
        "reshape_done": "reshape done",
        "speed_limit": "rebuild speed limit",
        "mkfs": "filesystem made",
        "mounted": "mounted",
        "stopped": "stopped",
    }
    text = words.get(event.kind, event.kind.replace("_", " "))
    if event.kind == "resync_done" and record is not None:
        text += _duration_suffix(record, "resync", event.time)
    if event.kind in ("recovery_done", "replace_done") and record is not None:
        text += _duration_suffix(record, None, event.time)
    return text + (f" — {event.detail}" if event.detail else "")


def format_seconds(seconds: float | None, resolution_s: float = 0.0) -> str:
    """``3.2 s``, ``1 min 04 s``; ``≤ 12 s`` when nobody watched closely enough to say more."""
    return duration(seconds, spoken=True, resolution_s=resolution_s)


def format_rebuild(rebuild: RebuildRecord | None) -> str:
    """The rebuild column: duration with its precision."""
    if rebuild is None:
        return "—"
    return format_seconds(rebuild.seconds, rebuild.resolution_s)


def _duration_suffix(record: ArrayRecord, kind: str | None, finished: float) -> str:
    for rebuild in record.rebuilds:
        if abs(rebuild.finished - finished) < 1e-6 and (kind is None or rebuild.kind == kind):
            return f" in {format_rebuild(rebuild)}"
    return ""


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.lstrip("-").isdigit() else None
