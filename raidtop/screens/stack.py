"""The Stack screen: every block device as lsblk draws it, with state and usage on each node."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from raidtop.model.snapshot import Snapshot
from raidtop.presentation.stack import StackRow, tree_rows
from raidtop.widgets.key_footer import KeyFooter
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import content
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.screens.host import screen_host

WAITING = "reading the storage stack (it arrives with the next sample)"
COLUMNS = [
    Column("name", "Name", 32, "left"),
    Column("type", "Type", 7, "left"),
    Column("size", "Size ", 9),
    Column("state", "State", 21, "left"),
    Column("fs", "FS", 7, "left"),
    Column("used", "Used ", 15),
    Column("mount", "Mountpoint", 24, "left"),
    Column("note", "Notes", 60, "left"),
]


def stack_table_rows(rows: list[StackRow]) -> list[Row]:
    """The tree's rows as table rows, tones beside the cells they colour.

    A right-aligned cell ends in a space so it never touches the left-aligned cell after it.
    """
    return [
        Row(
            r.key,
            (r.name, r.kind, r.size + " ", r.state, r.fs, r.used + " " if r.used else "", r.mount, r.note),
            (None, "dim", None, r.state_tone, None, r.used_tone, None, "warn"),
        )
        for r in rows
    ]


class StackScreen(Screen[None]):
    """What sits on each disk up to its mountpoints; follows live snapshots while open."""

    BINDINGS = [Binding("escape,q,u", "app.pop_screen", "Back", id="stack-back", tooltip="Return to the dashboard")]
    DEFAULT_CSS = """
    StackScreen #stack-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    StackScreen #stack-panel { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static(
            content(" Storage stack: disks up to mountpoints (lsblk, with md state and usage)"), id="stack-title"
        )
        panel = Panel(id="stack-panel")
        panel.border_title = "Stack"
        with panel:
            table = TextTable(COLUMNS, id="stack-table")
            table.placeholder = WAITING
            yield table
        yield KeyFooter()

    def on_mount(self) -> None:
        screen_host(self).sampler.stack.view_opened()
        snap = screen_host(self).live.latest
        if snap is not None:
            self.apply_snapshot(snap)
        self.query_one(TextTable).focus()

    def on_unmount(self) -> None:
        screen_host(self).sampler.stack.view_closed()

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Show the snapshot's stack (none yet: say it is coming)."""
        table = self.query_one(TextTable)
        if snap.stack is None:
            # A recording holds what the dashboard read, and the stack is not part of it.
            replaying = screen_host(self).player is not None
            table.set_rows([], "a recording holds no storage stack" if replaying else WAITING)
            return
        rows = tree_rows(snap.stack, {a.name: a for a in snap.arrays})
        table.set_rows(stack_table_rows(rows), "no block devices under this root")
