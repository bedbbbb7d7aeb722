"""The demo's stage bar: what md just did and why, where the numbers come from, and the steps' keys."""

from __future__ import annotations

from rich.padding import Padding
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.untrusted import plain
from raidtop.widgets.part_styles import STAGE_BAR_PARTS

GUTTER = 1
"""Cells left blank on each side of the bar's lines."""


class StageBar(Widget):
    """Lines under the demo's arrays, wrapped to any width so nothing is cut at projector sizes.

    The narration says in words what md just did; the source line where the
    other numbers come from (left out in presenter mode, which shows only the
    simulated array); the steps are the keys a teacher presses, one per step,
    each as it reads in the footer.
    """

    # Its parts' look is the app's (raidtop.widgets.part_styles); it paints on the screen's background.
    DEFAULT_CSS = """
    StageBar { height: auto; max-height: 8; display: none; }
    StageBar.-on { display: block; }
    """

    narration: reactive[str] = reactive("", layout=True)
    """What md just did and why (from the md event table's narrations)."""
    source: reactive[str] = reactive("", layout=True)
    """Where the numbers come from (empty: not shown)."""
    steps: reactive[tuple[tuple[str, str], ...]] = reactive((), layout=True)
    """(key as shown, what it does) per step the teacher may take now; empty: not shown."""

    def render(self) -> Padding:
        lines: list[Text] = []
        if self.narration:
            lines.append(Text(plain(self.narration), STAGE_BAR_PARTS.style(self.app, "narration")))
        if self.source:
            lines.append(Text(plain(self.source), STAGE_BAR_PARTS.style(self.app, "source")))
        if self.steps:
            lines.extend(self._step_lines(max(20, self.content_size.width - 2 * GUTTER)))
        # The gutter is Rich's, inside the text's width: CSS padding or margin here cut the last
        # character of a wrapped line (padding) or narrowed the panels above (margin).
        return Padding(Text("\n").join(lines), (0, GUTTER))

    def _step_lines(self, width: int) -> list[Text]:
        """The steps packed into lines of ``width``: a key and its words never split across lines."""
        key_style = STAGE_BAR_PARTS.style(self.app, "key")
        lines = [Text()]
        for key, what in self.steps:
            step = Text.assemble((key, key_style), f" {what}")
            if lines[-1].cell_len and lines[-1].cell_len + 3 + step.cell_len > width:
                lines.append(Text())
            if lines[-1].cell_len:
                lines[-1].append("   ")
            lines[-1].append_text(step)
        return lines
