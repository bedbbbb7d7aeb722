"""The array detail screen's side panels: SMART of the members' disks and the storage stack on the array.

Each is a panel factory and the rows it shows, built from the snapshot (no I/O).
"""

from __future__ import annotations

from raidtop.model.md import MdArray
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.smart import member_health_rows
from raidtop.presentation.stack import below_text, tree_rows
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable


def smart_panel() -> Panel:
    """The SMART panel, its table empty until the first snapshot."""
    table = TextTable(
        [
            Column("member", "Member", 10, "left"),
            Column("disk", "Disk", 9, "left"),
            Column("health", "Health", 9, "left"),
            Column("why", "Why · key numbers", 60, "left"),
        ],
        id="detail-smart",
    )
    panel = Panel(table, id="detail-smart-panel")
    panel.border_title = "SMART of the members' disks"
    return panel


def stack_panel() -> Panel:
    """The Stack panel, its table empty until the first snapshot."""
    table = TextTable(
        [
            Column("name", "On it", 22, "left"),
            Column("fs", "FS", 6, "left"),
            Column("used", "Used ", 15),
            Column("mount", "Mountpoint", 18, "left"),
        ],
        id="detail-stack",
    )
    panel = Panel(table, id="detail-stack-panel")
    panel.border_title = "Stack"
    return panel


def stack_rows(array: MdArray, snap: Snapshot) -> list[Row]:
    """What sits on the array up to mountpoints, then one line of what it sits on."""
    if snap.stack is None:
        return []
    # "Used" is right-aligned: its trailing space keeps it off the mountpoint.
    rows = [
        Row(r.key, (r.name, r.fs, r.used + " " if r.used else "", r.mount), (r.state_tone, None, r.used_tone, None))
        for r in tree_rows(snap.stack, {array.name: array}, roots=[array.name])[1:]
    ]
    if not rows:
        rows.append(Row("nothing", ("nothing on it", "", "", ""), ("dim", None, None, None)))
    rows.append(Row("under", ("on " + below_text(snap.stack, array.name), "", "", ""), ("dim", None, None, None)))
    return rows


def smart_rows(array: MdArray, snap: Snapshot) -> list[Row]:
    """Each member's disk: verdict, reasons and the key numbers."""
    members = [(m.name, snap.smart_disk_of.get(m.name, ())) for m in array.members]
    return [
        Row(
            f"{member}/{disk}",
            (member, disk, verdict, why),
            (None, "dim", tone, tone if tone in ("warn", "crit") else None),
        )
        for member, disk, verdict, why, tone in member_health_rows(members, snap.smart)
    ]
