"""The md event timeline of this session."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen

from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable

_TONES = {"Fail": "crit", "FailSpare": "crit", "DegradedArray": "crit", "DeviceDisappeared": "crit",
          "SmartWarning": "warn", "RebuildFinished": "good", "SpareActive": "good", "CheckFinished": "good"}


class EventsScreen(ModalScreen[None]):
    """Every md event raidtop derived since it started, oldest first."""

    BINDINGS = [Binding("escape,e,q", "dismiss", "Close events", id="events-close")]
    DEFAULT_CSS = """
    EventsScreen { align: center middle; }
    EventsScreen > Panel { width: 90; max-width: 100%; height: 80%; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        panel = Panel()
        panel.border_title = "md events"
        with panel:
            table = TextTable(
                [Column("time", "Time", 10, "left"), Column("array", "Array", 9, "left"),
                 Column("event", "Event", 18, "left"), Column("member", "Member", 12, "left"),
                 Column("detail", "Detail", 38, "left")],
                id="events-table",
            )
            table.placeholder = "no md events yet"
            yield table

    def on_mount(self) -> None:
        self.refresh_events()
        self.query_one(TextTable).focus()

    def apply_snapshot(self, snap) -> None:
        """New events arrive while the screen is open."""
        self.refresh_events()

    def refresh_events(self) -> None:
        """Show the session's events."""
        events = self.app.dashboard.history.events_of()
        rows = [
            Row(str(i), (time.strftime("%H:%M:%S", time.localtime(e.time)), e.array, e.event, e.member or "", e.detail or ""),
                ("dim", None, _TONES.get(e.event), None, "dim"))
            for i, e in enumerate(events)
        ]
        self.query_one(TextTable).set_rows(rows, "no md events yet")

    def action_dismiss(self) -> None:
        self.dismiss(None)
