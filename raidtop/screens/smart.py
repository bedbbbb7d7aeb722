"""The SMART screen: one disk's verdict, reasons, health logs and every attribute with its raw value."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from raidtop.model.disk_columns import disk_named
from raidtop.model.snapshot import Snapshot
from raidtop.model.smart import SmartHealth
from raidtop.presentation.smart import attribute_cells, health_cell, summary_rows
from raidtop.screens.copying import copy_binding, copy_shown
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import content
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.screens.host import screen_host

ATTRIBUTE_COLUMNS = [
    Column("id", "ID", 5, "left"),
    Column("name", "Attribute", 26, "left"),
    Column("value", "Value", 6),
    Column("worst", "Worst", 6),
    Column("thresh", "Thresh", 7),
    Column("raw", " Raw", 22, "left"),
    Column("failed", "Failed", 7, "left"),
]


def disk_of_row(table: str | None, key: str | None, snap: Snapshot) -> str | None:
    """The whole disk behind a highlighted row of the Disks panel or the member grid, else ``None``."""
    if not key or table not in ("disk-table", "member-table"):
        return None
    return disk_for(key.partition("/")[2] if table == "member-table" else key, snap)  # a member row's key: "md0/sdb1"


def disk_for(device: str, snap: Snapshot) -> str | None:
    """The whole disk whose SMART reading speaks for ``device`` (a disk, partition or md member)."""
    if device in snap.smart:
        return device
    under = snap.smart_disk_of.get(device, ())
    known = [d for d in under if d in snap.smart]
    if known:
        return known[0]
    if under:
        return under[0]
    return device if disk_named(snap.disks, device) is not None else None


class SmartScreen(Screen[None]):
    """Everything smartctl said about one disk; it follows live snapshots while open."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="smart-back", tooltip="Return to the dashboard"),
        copy_binding("smart-copy-serial", "the disk's serial number"),
    ]
    DEFAULT_CSS = """
    SmartScreen #smart-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    SmartScreen #smart-summary-panel { height: auto; max-height: 60%; }
    SmartScreen #smart-summary { height: auto; }
    SmartScreen #smart-attributes-panel { height: 1fr; min-height: 6; }
    """

    def __init__(self, disk: str) -> None:
        super().__init__()
        self.disk = disk

    def compose(self) -> ComposeResult:
        yield Static(content(f" SMART {self.disk}"), id="smart-title")
        with Vertical():
            summary = Panel(id="smart-summary-panel")
            summary.border_title = "Health"
            with summary:
                yield TextTable(
                    [Column("k", "", 22, "left"), Column("v", "", 90, "left")], id="smart-summary", show_header=False
                )
            attributes = Panel(id="smart-attributes-panel")
            attributes.border_title = "Attributes (smartctl -A; NVMe and SCSI log fields)"
            with attributes:
                yield TextTable(ATTRIBUTE_COLUMNS, id="smart-attributes")
        yield Footer()

    def on_mount(self) -> None:
        snap = screen_host(self).live.latest
        if snap is not None:
            self.apply_snapshot(snap)
        self.query_one("#smart-summary", TextTable).focus()

    def action_copy_shown(self) -> None:
        """Copy the disk's serial number (smartctl's, else udev's), e.g. for the replacement ticket."""
        snap = screen_host(self).live.latest
        health = snap.smart.get(self.disk) if snap is not None else None
        disk = next((d for d in snap.disks if d.name == self.disk), None) if snap is not None else None
        serial = (health.serial if health is not None else None) or (disk.serial if disk is not None else None)
        if not serial:
            self.app.notify(f"no serial number known for {self.disk}: nothing copied", severity="warning", timeout=4)
            return
        copy_shown(self.app, f"{self.disk}'s serial", serial)

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Show the latest reading of this disk."""
        health: SmartHealth | None = snap.smart.get(self.disk)
        title = self.query_one("#smart-title", Static)
        summary = self.query_one("#smart-summary", TextTable)
        attributes = self.query_one("#smart-attributes", TextTable)
        if health is None:
            title.update(content(f" SMART {self.disk}: no reading"))
            summary.set_rows(
                [], "raidtop has no SMART reading for this disk (not read yet, not root, or no smartctl: see notes)"
            )
            attributes.set_rows([], "no attributes")
            return
        verdict, _tone = health_cell(health)
        model = f"  {health.model}" if health.model else ""
        state = "" if health.state == "read" else f"  {health.state.replace('_', ' ')}"
        title.update(content(f" SMART {self.disk}  {verdict}{state}{model}"))
        rows = [
            Row(f"{i}", (label, value), ("dim", tone)) for i, (label, value, tone) in enumerate(summary_rows(health))
        ]
        summary.set_rows(rows)
        cells = attribute_cells(health)
        failed = {"now": "crit", "past": "warn"}
        attributes.set_rows(
            [
                Row(f"{i}", c, ("dim", None, None, "dim", "dim", "accent", failed.get(c[6])))
                for i, c in enumerate(cells)
            ],
            "no ATA attributes (NVMe and SCSI drives report the health log fields above)"
            if health.state == "read"
            else "none: smartctl read nothing from this disk (see Why above)",
        )
