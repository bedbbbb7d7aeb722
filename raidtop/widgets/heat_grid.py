"""A compact heat row per CPU, for machines with more CPUs than lines."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.presentation.format import level_bar
from raidtop.model.snapshot import CpuUsage
from raidtop.widgets.part_styles import HEAT_GRID_PARTS

CELL = 6  # "123▆ " plus a space: CPU number, busy bar


class HeatGrid(Widget):
    """One cell per CPU: its number and a bar whose height and tone show %busy."""

    # Its parts' look is the app's (raidtop.widgets.part_styles).
    DEFAULT_CSS = f"""
    HeatGrid {{ height: auto; background: {HEAT_GRID_PARTS.background}; }}
    """

    cells: reactive[tuple[tuple[str, str, str], ...]] = reactive((), layout=True)
    """(label, bar, tone) per CPU: equal cells from one tick to the next repaint nothing."""

    def show_cpus(self, cpus: tuple[CpuUsage, ...]) -> None:
        """Draw the per-CPU rows (the summary row excluded)."""
        self.cells = tuple(_cell(cpu) for cpu in cpus)

    def render(self) -> Text:
        per_line = max(1, self.size.width // CELL)
        label = HEAT_GRID_PARTS.style(self.app, "label")
        tones = {tone: HEAT_GRID_PARTS.style(self.app, tone) for tone in ("low", "mid", "high")}
        text = Text(no_wrap=True, overflow="crop")
        for i, (name, bar, tone) in enumerate(self.cells):
            if i and i % per_line == 0:
                text.append("\n")
            text.append(name, label)
            text.append(bar, tones[tone])
            text.append(" ")
        return text

    def get_content_height(self, container, viewport, width: int) -> int:
        per_line = max(1, width // CELL)
        return max(1, -(-len(self.cells) // per_line))


def _cell(cpu: CpuUsage) -> tuple[str, str, str]:
    busy = cpu.busy
    tone = "low" if busy is None or busy < 50 else "mid" if busy < 85 else "high"
    return f"{cpu.cpu:>3}", level_bar(busy) * 2, tone
