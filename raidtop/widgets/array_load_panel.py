"""Who loads one array: each cgroup's share of its member I/O, and rebuild vs load (the array detail)."""

from __future__ import annotations

from textual.app import ComposeResult

from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray
from raidtop.presentation.processes import array_shares, attribution_label, rebuild_vs_load
from raidtop.widgets.panel import Panel
from raidtop.widgets.processes_panel import bytes_rate
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import Column, Row, TextTable

LOAD_COLUMNS = [
    Column("unit", "Unit", 30, "left", min_width=10),
    Column("read", "Read/s", 8),
    Column("write", "Write/s", 8),
    Column("wpct", "%writes", 8),
]


def share_rows(snap: Snapshot, array: MdArray) -> list[Row]:
    """One row per unit on the array's members, busiest first."""
    return [
        Row(
            s.unit,
            (
                s.label,
                bytes_rate(s.read_b_s),
                bytes_rate(s.write_b_s),
                "" if s.write_pct is None else f"{s.write_pct:.0f} %",
            ),
            ("accent" if s.unit == "/" else None, None, None, None),
        )
        for s in array_shares(snap, array)
    ]


class ArrayLoadPanel(Panel):
    """The member I/O of one array by cgroup, and how the sync competes with it."""

    DEFAULT_CSS = """
    ArrayLoadPanel { height: 9; }
    ArrayLoadPanel #load-versus { height: auto; color: $text-accent; padding: 0 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Who loads it"
        self._versus: str | None = None

    def compose(self) -> ComposeResult:
        yield PlainStatic("", id="load-versus")
        table = TextTable(LOAD_COLUMNS, id="load-table")
        table.placeholder = "waiting for two samples of cgroup I/O accounting…"
        yield table

    def show(self, snap: Snapshot, array: MdArray) -> None:
        """Render ``array``'s shares in ``snap``."""
        versus = rebuild_vs_load(snap, array)
        text = versus[0] if versus else ""
        if text != self._versus:
            self._versus = text  # an update relays out the screen: only on a change
            line = self.query_one("#load-versus", PlainStatic)
            line.display = bool(text)
            line.update(text)
        io = snap.io
        if io is None or io.by_device is None:
            why = io.source if io is not None else "waiting for cgroup I/O accounting…"
            self.query_one(TextTable).set_rows([], f"per device: not available ({why})")
        else:
            self.query_one(TextTable).set_rows(share_rows(snap, array), "no member I/O this interval")
        self.set_subtitle(attribution_label(snap))
