"""The md event timeline of this session."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen

from raidtop.model.md import MdEvent
from raidtop.model.md_events import event_kind
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.screens.host import screen_host


class EventsScreen(ModalScreen[None]):
    """Every md event raidtop derived since it started, newest at the top (:func:`show_newest_first`)."""

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
                [
                    Column("time", "Time", 10, "left"),
                    Column("array", "Array", 9, "left"),
                    Column("event", "Event", 18, "left"),
                    Column("member", "Member", 12, "left"),
                    Column("detail", "Detail", 38, "left"),
                ],
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
        events = screen_host(self).live.history.events_of()
        rows = [
            Row(
                key,
                (time.strftime("%H:%M:%S", time.localtime(e.time)), e.array, e.event, e.member or "", e.detail or ""),
                ("dim", None, event_kind(e.event).tone, None, "dim"),
            )
            for key, e in zip(event_keys(events), events)
        ]
        show_newest_first(self.query_one(TextTable), rows, "no md events yet")

    async def action_dismiss(self, result: object = None) -> None:
        """Close (this screen returns nothing, whatever a binding passes)."""
        self.dismiss(None)


def event_keys(events: list[MdEvent]) -> list[str]:
    """Row keys that stay with their events while newer ones arrive above them (a repeat gets a count)."""
    seen: dict[str, int] = {}
    keys = []
    for event in events:
        key = f"{event.time!r}/{event.array}/{event.event}/{event.member or ''}"
        seen[key] = seen.get(key, 0) + 1
        keys.append(f"{key}#{seen[key]}")
    return keys


def show_newest_first(table: TextTable, rows: list[Row], placeholder: str) -> None:
    """Show event ``rows`` (given oldest first) with the newest at the top.

    An incident's last event is seen first.

    A cursor on the top row stays there, so a new event arrives highlighted; a
    cursor moved down to an older event stays on that event as new ones push it down.
    """
    key = table.cursor_key
    following = table.cursor_row == 0
    table.set_rows(rows[::-1], placeholder)
    if following or key is None:
        table.cursor_row = 0
        table.scroll_to(y=0, animate=False)
    else:
        table.move_cursor_to_key(key)
