"""The Lab screen's tables as rows (arrays, members, timeline, the command log) and its banner text.

Pure functions from the lab's views and command events to
:class:`~raidtop.widgets.text_table.Row`; no Textual, no I/O, so the screen
stays composition and message handling.
"""

from __future__ import annotations

import time
from collections import deque

from raidtop.actions.action_log import LoggedAction
from raidtop.actions.lab.commands import CommandEvent
from raidtop.actions.lab.core import LabArrayView
from raidtop.actions.lab.preflight import DEMO_HINT, LabEnvironment
from raidtop.actions.lab.spec import human_size
from raidtop.actions.lab.timeline import describe, format_rebuild
from raidtop.widgets.text_table import Column, Row

ARRAY_COLUMNS = [
    Column("name", "Array", 7, "left"),
    Column("level", "Level", 7, "left"),
    Column("disks", "Disks", 6),
    Column("size", "Disk", 8),
    Column("state", " State", 13, "left"),
    Column("pattern", "[UU]", 8, "left"),
    Column("sync", "Sync", 13, "left"),
    Column("rebuild", "Rebuild", 10),
    Column("created", "Created", 10),
]
MEMBER_COLUMNS = [
    Column("member", "Member", 8, "left"),
    Column("slot", "Slot", 5),
    Column("roles", " Roles", 28, "left"),
    Column("image", "Image", 40, "left"),
]
TIMELINE_COLUMNS = [
    Column("time", "Time", 9, "left"),
    Column("since", "+s", 8),
    Column("event", " Event", 100, "left"),
]
LOG_COLUMNS = [
    Column("time", "Time", 9, "left"),
    Column("result", "Result", 8, "left"),
    Column("command", "Command", 140, "left"),
]
LOG_ROWS = 200


def clock(when: float | None) -> str:
    return "" if when is None else time.strftime("%H:%M:%S", time.localtime(when))


def array_row(view: LabArrayView) -> Row:
    """One lab array: level, disks, state as the kernel shows it, sync, last rebuild."""
    record, md = view.record, view.md
    if record.state == "creating":
        state, tone = "creating", "warn"
    elif not view.running:
        state, tone = "not running", "crit"
    elif md is None:
        state, tone = "running", None
    else:
        state = md.health
        tone = {"ok": "good", "degraded": "warn", "failed": "crit"}.get(md.health)
    sync = ""
    if md is not None and md.sync is not None:
        pct = "" if md.sync.percent is None else f" {md.sync.percent:.0f}%"
        sync = f"{md.sync.action}{pct}"
    cells = (
        record.name,
        record.level,
        str(record.raid_disks),
        human_size(record.disk_size_bytes),
        " " + state,
        md.status_string or "" if md else "",
        sync,
        format_rebuild(record.last_rebuild),
        clock(record.created),
    )
    return Row(
        record.name,
        cells,
        (
            None,
            None,
            None,
            "dim",
            tone,
            "warn" if md and md.status and "_" in md.status else None,
            "accent",
            "good" if record.last_rebuild else "dim",
            "dim",
        ),
    )


def member_rows(view: LabArrayView) -> list[Row]:
    """Members of one lab array, then its lab disks that are no longer members (re-add candidates)."""
    images = {i.loop: i for i in view.images if i.loop}
    rows = []
    seen = set()
    members = view.md.members if view.md is not None else ()
    for member in sorted(members, key=lambda m: (m.slot is None, m.slot or 0, m.name)):
        seen.add(member.name)
        image = images.get(member.name)
        roles = ",".join(member.roles) or "(unknown)"
        tone = "crit" if member.is_faulty else "warn" if member.is_spare else "good"
        rows.append(
            Row(
                member.name,
                (
                    member.name,
                    "" if member.slot is None else str(member.slot),
                    " " + roles,
                    image.path.rsplit("/", 1)[-1] if image else "not a lab disk",
                ),
                (None, None, tone, "dim" if image else "crit"),
            )
        )
    for loop, image in images.items():
        if loop in seen or image.state != "attached":
            continue
        gone = loop in view.gone_loops
        rows.append(
            Row(
                loop,
                (loop, "", " (gone)" if gone else " (removed: re-add with E)", image.path.rsplit("/", 1)[-1]),
                ("dim", None, "dim", "dim"),
            )
        )
    return rows


def timeline_rows(view: LabArrayView) -> list[Row]:
    """The array's timeline, oldest first, with seconds since it was created."""
    record = view.record
    rows = []
    for index, event in enumerate(record.timeline):
        tone = {
            "failed": "crit",
            "removed": "warn",
            "recovery_done": "good",
            "resync_done": "good",
            "replace_done": "good",
            "recovery_start": "accent",
            "resync_start": "accent",
        }.get(event.kind)
        rows.append(
            Row(
                f"{index}",
                (clock(event.time), f"+{event.time - record.created:.1f}", " " + describe(event, record)),
                ("dim", "dim", tone),
            )
        )
    return rows


def log_row(index: int, event: CommandEvent) -> Row:
    """One command of the log pane."""
    if event.ok is None:
        result, tone = "running", "accent"
    elif event.ok:
        result, tone = "ok", "good"
    else:
        result, tone = "failed", "crit"
    text = event.command if event.ok is not False else f"{event.command}   ← {event.error}"
    return Row(str(index), (clock(event.started), result, text), ("dim", tone, None))


def logged_to_event(entry: LoggedAction) -> CommandEvent:
    """An action-log line as a finished command (the log pane starts with the lab's recent history)."""
    ok = entry.result == "ok"
    return CommandEvent(entry.command, entry.time, entry.time, ok, "", "" if ok else entry.result)


def log_command(log: deque[CommandEvent], event: CommandEvent) -> None:
    """Add ``event`` to the command log; the end of a command replaces its "running" line."""
    if event.ok is not None:
        for index in range(len(log) - 1, -1, -1):
            existing = log[index]
            if existing.ok is None and (existing.command, existing.started) == (event.command, event.started):
                log[index] = event
                return
    log.append(event)


def environment_banner(environment: LabEnvironment) -> str:
    """What this machine lacks for the lab, one bullet each, and the demo to try meanwhile."""
    lines = ["The lab cannot create or change arrays on this machine:"]
    lines += [f"• {p.text}" for p in environment.problems]
    if not any(DEMO_HINT in p.fix for p in environment.problems):
        lines.append(f"Meanwhile: {DEMO_HINT.removeprefix('meanwhile, ')}.")
    return "\n".join(lines)
