"""The CPU panel: mpstat -P ALL, folding into a heat grid when CPUs don't fit."""

from __future__ import annotations

from textual.app import ComposeResult

from raidtop.presentation.format import num
from raidtop.model.snapshot import CpuUsage, Snapshot
from raidtop.widgets.heat_grid import HeatGrid
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable

CPU_FIELDS = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")
CPU_COLUMNS = [Column("cpu", "CPU", 3, "left")] + [Column(f, f"%{f}", 8 if f == "iowait" else 7) for f in CPU_FIELDS]


def cpu_row(cpu: CpuUsage) -> Row:
    """One mpstat row as cells and tones."""
    cells = [str(cpu.cpu)]
    tones: list[str | None] = ["accent" if cpu.cpu == "all" else None]
    for field in CPU_FIELDS:
        value = getattr(cpu, field)
        cells.append(num(value))
        if value is None or value == 0:
            tones.append("dim")
        elif field == "iowait" and value >= 20:
            tones.append("warn")
        elif field == "idle" and value < 10:
            tones.append("crit")
        else:
            tones.append(None)
    return Row(str(cpu.cpu), tuple(cells), tuple(tones))


class CpuPanel(Panel):
    """Per-CPU utilisation; a heat grid replaces the rows when they don't fit."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "CPU"
        self._cpus: tuple[CpuUsage, ...] = ()

    def compose(self) -> ComposeResult:
        table = TextTable(CPU_COLUMNS, id="cpu-table")
        table.placeholder = "waiting for the first sample…"
        yield table
        yield HeatGrid(id="cpu-heat")

    def show(self, snap: Snapshot) -> None:
        """Render the snapshot's CPU rows."""
        self._cpus = snap.cpus
        self._refresh_rows()

    def on_resize(self) -> None:
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        table = self.query_one(TextTable)
        grid = self.query_one(HeatGrid)
        cpus = self._cpus
        per_cpu = tuple(c for c in cpus if c.cpu != "all")
        # Rows needed: header + summary + one per CPU; the panel's border takes 2.
        fits = len(cpus) + 1 <= max(0, self.size.height - 2)
        compact = bool(per_cpu) and not fits and self.size.height > 0
        shown = [c for c in cpus if c.cpu == "all"] if compact else list(cpus)
        table.set_rows([cpu_row(c) for c in shown], "" if cpus else "no CPU lines in /proc/stat (see notes)")
        table.styles.height = len(shown) + 1 if compact else "1fr"
        grid.display = compact
        if compact:
            grid.show_cpus(per_cpu)
        online = len(per_cpu)
        self.set_subtitle(f"{online} CPUs" + (" · heat: %busy" if compact else ""))
