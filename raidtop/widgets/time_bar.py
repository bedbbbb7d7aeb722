"""The replay time bar: position, speed, and markers where events happened."""

from __future__ import annotations

import time

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.model.md_events import event_kind
from raidtop.widgets.part_styles import TIME_BAR_PARTS


class TimeBar(Widget):
    """``▶ 5×  12:00:01 ━━━━━●──▼──── 13:00:00``, with ▼ at each event."""

    # Its parts' look is the app's (raidtop.widgets.part_styles).
    DEFAULT_CSS = f"""
    TimeBar {{ height: 1; background: {TIME_BAR_PARTS.background}; }}
    """

    start: reactive[float] = reactive(0.0)
    """Time of the first frame."""
    end: reactive[float] = reactive(0.0)
    """Time of the last frame."""
    position: reactive[float] = reactive(0.0)
    """Time of the frame on screen."""
    playing: reactive[bool] = reactive(False)
    """True while the replay advances by itself."""
    speed: reactive[float] = reactive(1.0)
    """Replay speed (1× = real time)."""
    markers: reactive[tuple[tuple[float, str], ...]] = reactive(())
    """(time, event or action name) to mark on the bar."""

    def render(self) -> Text:
        app = self.app

        def style(part: str) -> Style:
            return TIME_BAR_PARTS.style(app, part)

        text = Text(no_wrap=True, overflow="crop")
        state = "▶" if self.playing else "⏸"
        text.append(f" {state} {self.speed:g}×  ", style("label"))
        text.append(_clock(self.position) + " ", style("head"))
        tail = "  " + _clock(self.end) + " "
        width = max(10, self.size.width - len(text.plain) - len(tail))
        span = max(1e-9, self.end - self.start)
        head = int((self.position - self.start) / span * (width - 1) + 0.5)
        cells = ["━" if i < head else "─" for i in range(width)]
        parts = ["done" if i < head else "todo" for i in range(width)]
        for when, name in self.markers:
            i = int((when - self.start) / span * (width - 1) + 0.5)
            if 0 <= i < width:
                cells[i] = "▼"
                parts[i] = "bad" if event_kind(name).failure else "good"
        cells[max(0, min(width - 1, head))] = "●"
        parts[max(0, min(width - 1, head))] = "head"
        for cell, part in zip(cells, parts):
            text.append(cell, style(part))
        text.append(tail, style("label"))
        return text


def _clock(when: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(when))
