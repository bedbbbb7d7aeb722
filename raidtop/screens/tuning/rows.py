"""The Tuning screen's tables as rows: knobs, targets, this session's changes, the change log."""

from __future__ import annotations

import time

from raidtop.actions.action_log import LoggedAction
from raidtop.actions.tuning import ChangeResult, Knob, shell_command
from raidtop.actions.tuning.eta import EtaPrediction
from raidtop.presentation.format import DASH
from raidtop.presentation.md import duration, speed
from raidtop.widgets.text_table import Column, Row

KNOB_COLUMNS = [
    Column("attr", "Setting", 18, "left"),
    Column("current", "Current", 22, "left", min_width=14),
    Column("allowed", "Allowed", 27, "left", min_width=14),
    Column("start", "At start", 11, "left", min_width=9),
    # The whole command is in the detail pane below the table.
    Column("command", "Command", 60, "left", min_width=16),
]
TARGET_COLUMNS = [Column("name", "Device", 8, "left"), Column("detail", "What", 15, "left")]
CHANGE_COLUMNS = [
    Column("time", "Time", 9, "left"),
    Column("device", "Device", 9, "left"),
    Column("attr", "Setting", 17, "left"),
    Column("old", "Old", 13, "left"),
    Column("new", "New", 13, "left"),
    Column("result", "Result", 70, "left"),
]


def describe_prediction(p: EtaPrediction) -> str:
    """One line: the predicted rate and ETA against the current ones."""
    caveat = " (best case)" if p.optimistic else ""
    spread = f" ({p.uncertainty})" if p.uncertainty else ""
    return (
        f"{p.array} {p.action}: {speed(p.observed_kib_s)} now, ETA {duration(p.current_eta_s)} → "
        f"{speed(p.predicted_kib_s)}, ETA {duration(p.eta_s)}{spread}{caveat}; {p.basis}"
    )


def knob_row(knob: Knob, sudo: bool) -> Row:
    """A knob as a table row; a changed value stands out, read-only knobs are dim."""
    command = (
        shell_command(knob.target, knob.attr, knob.value, sudo=sudo) if knob.writable and knob.value else "read-only"
    )
    start = DASH if knob.start is None else knob.start
    tones: tuple[str | None, ...]
    if not knob.writable:
        tones = ("dim",) * 5
    else:
        tones = (None, "accent" if knob.changed else None, "dim", "dim", "dim")
    return Row(knob.attr, (knob.attr, knob.shown, knob.allowed.describe(), start, command), tones)


def change_row(index: int, result: ChangeResult) -> Row:
    """One attempted change for the session's change table."""
    tone = {"ok": "good", "unchanged": "dim", "mismatch": "warn"}.get(result.status, "crit")
    label = result.attr + (" (undo)" if result.is_undo else "")
    words = "ok" if result.status == "ok" else result.message
    return Row(
        str(index),
        (
            time.strftime("%H:%M:%S", time.localtime(result.time)),
            result.target,
            label,
            result.old or DASH,
            result.new or DASH,
            words,
        ),
        ("dim", None, None, "dim", None, tone),
    )


LOG_COLUMNS = [
    Column("time", "Time", 20, "left"),
    Column("device", "Device", 9, "left"),
    Column("attr", "Setting", 17, "left"),
    Column("old", "Old", 13, "left"),
    Column("new", "New", 13, "left"),
    Column("result", "Result", 60, "left"),
]


def log_rows(entries: list[LoggedAction]) -> list[Row]:
    """The tuning change log, newest first."""
    rows = []
    for i, entry in enumerate(reversed(entries)):
        d = entry.details
        undo = " (undo)" if d.get("undo_of") is not None or d.get("undo_all") else ""
        tone = "good" if entry.result == "ok" else ("dim" if d.get("status") == "unchanged" else "warn")
        rows.append(
            Row(
                str(i),
                (
                    time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.time)),
                    str(d.get("device")),
                    f"{d.get('attribute')}{undo}",
                    str(d.get("old")),
                    str(d.get("new")),
                    entry.result,
                ),
                ("dim", None, None, "dim", None, tone),
            )
        )
    return rows
