"""The Disks panel: iostat -x per device, sortable, filterable, with sparklines."""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Sequence

from textual.app import ComposeResult

from raidtop.model.frozen import frozen_dataclass
from raidtop.presentation.disk_fields import DISK_FIELDS
from raidtop.presentation.format import DASH, num, sparkline
from raidtop.live.history import DISK_TREND_SAMPLES, History
from raidtop.model.disk_columns import DiskRows, disk_names, rate_column
from raidtop.model.snapshot import DiskIdentity, DiskIO, Snapshot
from raidtop.model.smart import SmartHealth
from raidtop.presentation.smart import HEALTH_WIDTH, health_cell, health_of
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable

SPARK_WIDTH = DISK_TREND_SAMPLES
DISK_PANEL_FIELDS = (
    "r_s",
    "w_s",
    "rkib_s",
    "wkib_s",
    "r_await_ms",
    "w_await_ms",
    "aqu_sz",
    "util_pct",
    "rrqm_s",
    "wrqm_s",
    "rrqm_pct",
    "wrqm_pct",
    "rareq_sz_kib",
    "wareq_sz_kib",
    "d_s",
    "f_s",
)
"""The rate columns, ordered by how much they tell a storage admin, so a narrow
terminal keeps the important ones on screen (any key of DISK_FIELDS may be added)."""


def disk_column(key: str, width: int | None = None, min_width: int | None = None) -> Column:
    """The column of a rate field: iostat's label, and the table's width unless ``width`` is given."""
    field = DISK_FIELDS[key]
    return Column(key, field.label, field.width if width is None else width, min_width=min_width)


DISK_COLUMNS = [
    Column("name", "Device", 12, "left"),
    Column("spark", "r+w KiB/s", SPARK_WIDTH + 1, "left"),
    Column("health", "Health", HEALTH_WIDTH, "left"),
    *(disk_column(key) for key in DISK_PANEL_FIELDS),
]
_PANEL_FIELDS = tuple(DISK_FIELDS[key] for key in DISK_PANEL_FIELDS)
SORTABLE = tuple(c.key for c in DISK_COLUMNS if c.key not in ("spark", "health"))
# Devices that exist on every machine but mean nothing until used.
_QUIET_KINDS = {"loop", "ram", "zram"}


@frozen_dataclass
class DiskView:
    """How the Disks panel is sorted and filtered."""

    sort_key: str = "name"
    reverse: bool = False
    filter: str = ""
    show_all: bool = False


def visible_disks(disks: Sequence[DiskIO], view: DiskView) -> tuple[list[DiskIO], int]:
    """The rows to show under ``view``, sorted, and how many were hidden."""
    return DiskOrder()(disks, view)


class DiskOrder:
    """:func:`visible_disks` that remembers: filters and sorts by name only when that can change.

    The set of shown devices depends on names, kinds, use and identity, which
    stay put while devices neither come nor go: the filtered positions are
    kept until one of those (or the view) changes. A sort by a rate column
    must run every tick, so it sorts by the numbers alone; devices without a
    value follow in name order, by their rank in the kept name order (no
    name key is kept: at 500 devices a cache of them held 100 KB).
    """

    def __init__(self) -> None:
        self._basis: tuple | None = None
        self._kept: list[int] = []  # positions of the shown devices, in diskstats order
        self._by_name: tuple[list[int], list[int]] = ([], [])  # ... by name, then by name reversed
        self._name_rank: list[int] = []  # a shown device's place in name order, by its position
        self._hidden = 0

    def __call__(self, disks: Sequence[DiskIO], view: DiskView) -> tuple[list[DiskIO], int]:
        """The shown devices, in order, and how many were hidden."""
        positions, hidden = self.positions(disks, view)
        return [disks[i] for i in positions], hidden

    def positions(self, disks: Sequence[DiskIO], view: DiskView) -> tuple[list[int], int]:
        """Where the shown devices are in ``disks``, in display order, and how many were hidden.

        Works from the columns when ``disks`` has them, so no row object is
        made for a device that is not on screen.
        """
        names = disk_names(disks)
        shown_by: list[tuple[DiskIdentity | None, bool]] | None = None
        if isinstance(disks, DiskRows):
            # Steady devices keep their names tuple and identities mapping, so
            # this compares two objects and a byte a device, not a tuple a device.
            basis: tuple = (view.filter, view.show_all, names, disks.identities, disks.used_mask())
        else:
            shown_by = [
                (DiskIdentity(d.name, d.kind, d.parent, d.model, d.serial, d.by_id), d.ever_used) for d in disks
            ]
            basis = (view.filter, view.show_all, names, shown_by)
        if basis != self._basis:
            if shown_by is None:
                assert isinstance(disks, DiskRows)
                shown_by = list(zip(map(disks.identities.get, names), disks.ever_used()))
            kept = [
                i for i, (identity, ever_used) in enumerate(shown_by) if _shows(names[i], identity, ever_used, view)
            ]
            natural = {i: _natural(names[i]) for i in kept}
            self._by_name = (
                sorted(kept, key=natural.__getitem__),
                sorted(kept, key=natural.__getitem__, reverse=True),
            )
            self._name_rank = [0] * len(disks)
            for rank, i in enumerate(self._by_name[0]):
                self._name_rank[i] = rank
            self._basis, self._kept, self._hidden = basis, kept, len(disks) - len(kept)
        key = view.sort_key
        if key == "name":
            return self._by_name[view.reverse], self._hidden
        values = rate_column(disks, key)
        # Unknown values sort last whatever the direction; a stable sort keeps
        # the kernel's order among equal values, as it always did.
        known = [i for i in self._kept if values[i] is not None]
        unknown = [i for i in self._kept if values[i] is None]
        known.sort(key=values.__getitem__, reverse=not view.reverse)
        unknown.sort(key=self._name_rank.__getitem__)
        return known + unknown, self._hidden


def _shows(name: str, identity: DiskIdentity | None, ever_used: bool, view: DiskView) -> bool:
    kind = identity.kind if identity is not None else "disk"
    if not view.show_all and (kind == "partition" or (kind in _QUIET_KINDS and not ever_used)):
        return False
    needle = view.filter.lower()
    if not needle:
        return True
    texts = (name,) if identity is None else (name, identity.model, identity.serial, identity.by_id)
    return any(needle in (v or "").lower() for v in texts)


def disk_row(disk: DiskIO, history: Sequence[float], health: SmartHealth | None = None) -> Row:
    """One device as table cells and tones (the one place a disk row is made).

    ``health`` is the SMART reading that speaks for it (its whole disk's).
    """
    verdict, verdict_tone = health_cell(health)
    cells = [disk.name, sparkline(history, SPARK_WIDTH), verdict]
    tones: list[str | None] = [None, "spark", verdict_tone]
    for field in _PANEL_FIELDS:
        value = getattr(disk, field.key)
        cells.append(num(value))
        tones.append(field.tone(value))
    if disk.kind == "partition":
        cells[0] = " " + disk.name
    return Row(disk.name, tuple(cells), tuple(tones))


def _natural(name: str) -> tuple:
    """sda2 before sda10: digits compare as numbers."""
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
        self._order = DiskOrder()
        self._shown: list[int] = []  # positions in the snapshot's disks, in display order
        # name -> (the DiskIO and sparkline values a row was made from, the row):
        # the sampler hands back the same DiskIO while a device is idle.
        self._made: dict[str, tuple[DiskIO, tuple[float, ...], SmartHealth | None, Row]] = {}

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
        resorted = (view.sort_key, view.reverse) != (self.view.sort_key, self.view.reverse)
        self.view = view
        # A new sort shows its top rows; otherwise the cursor keeps its device.
        self._refresh_rows(follow_cursor=not resorted)
        if resorted:
            self.query_one(TextTable).action_cursor_to(0)

    def sort_by(self, key: str | None = None, reverse: bool | None = None) -> None:
        if key is None:
            index = SORTABLE.index(self.view.sort_key) if self.view.sort_key in SORTABLE else -1
            key = SORTABLE[(index + 1) % len(SORTABLE)]
        if key not in SORTABLE:
            return
        self.set_view(replace(self.view, sort_key=key, reverse=self.view.reverse if reverse is None else reverse))

    def _refresh_rows(self, follow_cursor: bool = True) -> None:
        table = self.query_one(TextTable)
        table.set_sort_marker(self.view.sort_key, self.view.reverse)
        snap, history = self._snapshot, self._history
        if snap is None or history is None:
            return
        positions, hidden = self._order.positions(snap.disks, self.view)
        self._shown = positions
        if len(self._made) > 2 * len(snap.disks) + 64:
            self._made.clear()  # devices came and went: forget their rows
        names = disk_names(snap.disks)
        keys = [names[i] for i in positions]
        if not snap.disks:
            placeholder = "no block devices could be read (see notes)"
        elif not keys:
            placeholder = (
                f"no device matches filter {self.view.filter!r}"
                if self.view.filter
                else "all devices hidden (a: show all)"
            )
        else:
            placeholder = ""
        # Rows are made by _row_at, and only for the lines on screen.
        table.set_row_source(keys, self._row_at, placeholder, follow_cursor=follow_cursor)
        parts = [f"{len(keys)} shown"]
        if hidden:
            parts.append(
                f"{hidden} hidden (a: all)" if not self.view.show_all or self.view.filter else f"{hidden} hidden"
            )
        if self.view.filter:
            parts.append(f"filter {self.view.filter!r}")
        if snap.since_boot:
            parts.append("since boot")
        self.set_subtitle(" · ".join(parts))

    def _row_at(self, index: int) -> Row:
        """The table's row ``index``, made again only when its device or sparkline changed."""
        snap = self._snapshot
        assert snap is not None  # rows are asked for only after show()
        disk = snap.disks[self._shown[index]]  # made here: only rows on screen become objects
        recent = self._history.recent(disk.name, SPARK_WIDTH) if self._history else ()
        health = health_of(disk.name, snap.smart, snap.smart_disk_of) if snap.smart else None
        made = self._made.get(disk.name)
        # Equal, not identical: each snapshot makes its own objects for the rows it shows.
        if made is not None and made[0] == disk and made[1] == recent and made[2] is health:
            return made[3]
        row = disk_row(disk, recent, health)
        self._made[disk.name] = (disk, recent, health, row)
        return row


__all__ = ["DiskOrder", "DisksPanel", "DiskView", "disk_row", "visible_disks", "DASH"]
