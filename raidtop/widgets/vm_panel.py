"""The Memory / VM panel: the vmstat line, load averages and PSI."""

from __future__ import annotations

from textual.app import ComposeResult

from raidtop.presentation.format import DASH, kib, num
from raidtop.model.snapshot import Snapshot, VmStat
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable

# vmstat's fields three to a row, in vmstat's own order.
_LAYOUT = (
    (("r", "r", "int"), ("b", "b", "int"), ("swpd", "swpd_kib", "kib")),
    (("free", "free_kib", "kib"), ("buff", "buff_kib", "kib"), ("cache", "cache_kib", "kib")),
    (("si", "si_kib_s", "rate"), ("so", "so_kib_s", "rate"), ("bi", "bi_kib_s", "rate")),
    (("bo", "bo_kib_s", "rate"), ("in", "in_s", "rate"), ("cs", "cs_s", "rate")),
    (("us", "us", "pct"), ("sy", "sy", "pct"), ("id", "id", "pct")),
    (("wa", "wa", "pct"), ("st", "st", "pct"), ("ld1", "loadavg", "load")),
)
VM_TABLE_ROWS = len(_LAYOUT)
"""Lines of the vmstat table (its CSS height)."""
VM_COLUMNS = [
    Column("k1", "", 5, "left"),
    Column("v1", "", 8),
    Column("k2", "", 6, "left"),
    Column("v2", "", 8),
    Column("k3", "", 6, "left"),
    Column("v3", "", 9),
]
PSI_COLUMNS = [
    Column("resource", "PSI", 8, "left"),
    Column("some10", "some10", 8),
    Column("some60", "some60", 8),
    Column("full10", "full10", 8),
    Column("full60", "full60", 8),
]


def vm_rows(vm: VmStat | None) -> list[Row]:
    """vmstat's fields as label/value pairs, three per row."""
    if vm is None:
        return []
    rows = []
    for index, triple in enumerate(_LAYOUT):
        cells: list[str] = []
        tones: list[str | None] = []
        for label, attr, kind in triple:
            value = getattr(vm, attr)
            cells += [f" {label}", _format(value, kind)]
            tones += ["dim", _tone(attr, value)]
        rows.append(Row(f"vm{index}", tuple(cells), tuple(tones)))
    return rows


def psi_rows(vm: VmStat | None) -> list[Row]:
    """One row per /proc/pressure resource."""
    if vm is None:
        return []
    rows = []
    for p in vm.pressure:
        values = (p.some_avg10, p.some_avg60, p.full_avg10, p.full_avg60)
        tones = tuple("dim" if not v else "warn" if v >= 10 else None for v in values)
        rows.append(Row(p.resource, (p.resource, *(num(v) for v in values)), (None, *tones)))
    return rows


def _format(value, kind: str) -> str:
    if value is None:
        return DASH
    if kind == "int":
        return str(value)
    if kind == "kib":
        return kib(value)
    if kind == "load":
        return f"{value[0]:.2f}"  # all three are in the status bar
    return num(value, 1 if kind == "pct" else 0)


def _tone(attr: str, value) -> str | None:
    if value is None or value == 0:
        return "dim"
    if attr in ("si_kib_s", "so_kib_s"):
        return "warn"
    if attr == "wa" and value >= 20:
        return "warn"
    if attr == "b" and value > 0:
        return "warn"
    return None


class VmPanel(Panel):
    """What ``vmstat 1`` prints, plus load and pressure stall information."""

    DEFAULT_CSS = """
    VmPanel { height: auto; }
    VmPanel #vm-table { height: 6; }
    VmPanel #psi-table { height: auto; max-height: 5; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Memory / VM"

    def compose(self) -> ComposeResult:
        yield TextTable(VM_COLUMNS, id="vm-table", show_header=False, show_cursor=False)
        psi = TextTable(PSI_COLUMNS, id="psi-table", show_cursor=False)
        psi.placeholder = "no /proc/pressure on this kernel"
        yield psi

    def show(self, snap: Snapshot) -> None:
        """Render the snapshot's vmstat line and PSI."""
        self.query_one("#vm-table", TextTable).set_rows(vm_rows(snap.vm), "vmstat fields unreadable (see notes)")
        psi = psi_rows(snap.vm)
        table = self.query_one("#psi-table", TextTable)
        table.set_rows(psi, "no /proc/pressure on this kernel")
        table.styles.height = max(1, len(psi)) + 1
