"""The Disks panel: iostat -x per device, sortable, filterable, with sparklines."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from textual.app import ComposeResult

from raidtop.format import DASH, num, sparkline
from raidtop.ring_buffers import History
from raidtop.model import DiskIO, Snapshot
from raidtop.model_smart import SmartHealth
from raidtop.smartview import HEALTH_WIDTH, health_cell, health_of
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable

SPARK_WIDTH = 12
# Ordered by how much they tell a storage admin, so a narrow terminal keeps the
# important ones on screen; the labels are iostat's own.
DISK_COLUMNS = [
    Column("name", "Device", 12, "left"),
    Column("spark", "r+w kB/s", SPARK_WIDTH + 1, "left"),
    Column("health", "Health", HEALTH_WIDTH, "left"),
    Column("r_s", "r/s", 9),
    Column("w_s", "w/s", 9),
    Column("rkb_s", "rkB/s", 10),
    Column("wkb_s", "wkB/s", 10),
    Column("r_await_ms", "r_await", 8),
    Column("w_await_ms", "w_await", 8),
    Column("aqu_sz", "aqu-sz", 7),
    Column("util_pct", "%util", 7),
    Column("rrqm_s", "rrqm/s", 8),
    Column("wrqm_s", "wrqm/s", 8),
    Column("rrqm_pct", "%rrqm", 7),
    Column("wrqm_pct", "%wrqm", 7),
    Column("rareq_sz_kb", "rareq-sz", 9),
    Column("wareq_sz_kb", "wareq-sz", 9),
    Column("d_s", "d/s", 8),
    Column("f_s", "f/s", 8),
]
SORTABLE = tuple(c.key for c in DISK_COLUMNS if c.key not in ("spark", "health"))
# Devices that exist on every machine but mean nothing until used.
_QUIET_KINDS = {"loop", "ram", "zram"}


@dataclass(frozen=True, slots=True)
class DiskView:
    """How the Disks panel is sorted and filtered."""

    sort_key: str = "name"
    reverse: bool = False
    filter: str = ""
    show_all: bool = False


def visible_disks(disks: tuple[DiskIO, ...], view: DiskView) -> tuple[list[DiskIO], int]:
    """The rows to show under ``view``, sorted, and how many were hidden."""
    shown: list[DiskIO] = []
    needle = view.filter.lower()
    hidden = 0
    for disk in disks:
        if not view.show_all and (disk.is_partition or (disk.kind in _QUIET_KINDS and not disk.ever_used)):
            hidden += 1
            continue
        if needle and not any(needle in (v or "").lower() for v in (disk.name, disk.model, disk.serial, disk.by_id)):
            hidden += 1
            continue
        shown.append(disk)
    key = view.sort_key
    if key == "name":
        shown.sort(key=lambda d: _natural(d.name), reverse=view.reverse)
    else:
        # Unknown values sort last whatever the direction.
        known = [d for d in shown if getattr(d, key) is not None]
        unknown = [d for d in shown if getattr(d, key) is None]
        known.sort(key=lambda d: getattr(d, key), reverse=not view.reverse)
        shown = known + sorted(unknown, key=lambda d: _natural(d.name))
    return shown, hidden


def disk_row(disk: DiskIO, history: list[float], health: SmartHealth | None = None) -> Row:
    """One device as table cells and tones; ``health`` is the SMART reading that speaks for it."""
    verdict, verdict_tone = health_cell(health)
    cells = [disk.name, sparkline(history, SPARK_WIDTH), verdict]
    tones: list[str | None] = [None, "spark", verdict_tone]
    for column in DISK_COLUMNS[3:]:
        value = getattr(disk, column.key)
        cells.append(num(value))
        tones.append(_tone(column.key, value))
    if disk.kind == "partition":
        cells[0] = " " + disk.name
    return Row(disk.name, tuple(cells), tuple(tones))


def _tone(key: str, value: float | None) -> str | None:
    if value is None or value == 0:
        return "dim"
    if key == "util_pct":
        return "crit" if value >= 90 else "warn" if value >= 60 else None
    if key in ("r_await_ms", "w_await_ms"):
        return "crit" if value >= 500 else "warn" if value >= 50 else None
    return None


def _natural(name: str) -> tuple:


    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


class DisksPanel(Panel):
    """``iostat -x`` for every device, one row each."""

    sort_columns = SORTABLE

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Disks"
        self.view = DiskView()
        self._snapshot: Snapshot | None = None
        self._history: History | None = None

    def compose(self) -> ComposeResult:
        table = TextTable(DISK_COLUMNS, id="disk-table")
        table.placeholder = "waiting for the first sample…"
        yield table

    def show(self, snap: Snapshot, history: History) -> None:
        """Render ``snap``; called by the screen inside a batch update."""
        self._snapshot, self._history = snap, history
        self._refresh_rows()

    def set_view(self, view: DiskView) -> None:
        """Change sorting, filter or the show-all toggle and repaint."""
        self.view = view
        self._refresh_rows()

    def sort_by(self, key: str | None = None, reverse: bool | None = None) -> None:
        if key is None:
            index = SORTABLE.index(self.view.sort_key) if self.view.sort_key in SORTABLE else -1
            key = SORTABLE[(index + 1) % len(SORTABLE)]
        if key not in SORTABLE:
            return
        self.set_view(replace(self.view, sort_key=key, reverse=self.view.reverse if reverse is None else reverse))

    def _refresh_rows(self) -> None:
        table = self.query_one(TextTable)
        table.set_sort_marker(self.view.sort_key, self.view.reverse)
        snap, history = self._snapshot, self._history
        if snap is None or history is None:
            return
        disks, hidden = visible_disks(snap.disks, self.view)
        smart, disk_of = snap.smart, snap.smart_disk_of
        rows = [disk_row(d, history.throughput(d.name), health_of(d.name, smart, disk_of) if smart else None) for d in disks]
        if not snap.disks:
            placeholder = "no block devices could be read (see notes)"
        elif not rows:
            placeholder = f"no device matches filter {self.view.filter!r}" if self.view.filter else "all devices hidden (a: show all)"
        else:
            placeholder = ""
        table.set_rows(rows, placeholder)
        parts = [f"{len(rows)} shown"]
        if hidden:
            parts.append(f"{hidden} hidden (a: all)" if not self.view.show_all or self.view.filter else f"{hidden} hidden")
        if self.view.filter:
            parts.append(f"filter {self.view.filter!r}")
        if snap.since_boot:
            parts.append("since boot")
        self.set_subtitle(" · ".join(parts))


__all__ = ["DisksPanel", "DiskView", "disk_row", "visible_disks", "DASH"]
