"""The replay time bar: position, speed, and markers where events happened."""

from __future__ import annotations

import time

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.model.md_events import event_kind


class TimeBar(Widget):
    """``▶ 5×  12:00:01 ━━━━━●──▼──── 13:00:00``, with ▼ at each event."""

    COMPONENT_CLASSES = {
        "time-bar--done",
        "time-bar--todo",
        "time-bar--head",
        "time-bar--bad",
        "time-bar--good",
        "time-bar--label",
    }
    DEFAULT_CSS = """
    TimeBar { height: 1; background: $panel; }
    TimeBar > .time-bar--done { color: $primary; }
    TimeBar > .time-bar--todo { color: $text-muted; }
    TimeBar > .time-bar--head { color: $text-accent; text-style: bold; }
    TimeBar > .time-bar--bad { color: $text-error; text-style: bold; }
    TimeBar > .time-bar--good { color: $text-success; }
    TimeBar > .time-bar--label { color: $foreground; }
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
        style = self.get_component_rich_style
        text = Text(no_wrap=True, overflow="crop")
        state = "▶" if self.playing else "⏸"
        text.append(f" {state} {self.speed:g}×  ", style("time-bar--label"))
        text.append(_clock(self.position) + " ", style("time-bar--head"))
        tail = "  " + _clock(self.end) + " "
        width = max(10, self.size.width - len(text.plain) - len(tail))
        span = max(1e-9, self.end - self.start)
        head = int((self.position - self.start) / span * (width - 1) + 0.5)
        cells = ["━" if i < head else "─" for i in range(width)]
        tones = ["time-bar--done" if i < head else "time-bar--todo" for i in range(width)]
        for when, name in self.markers:
            i = int((when - self.start) / span * (width - 1) + 0.5)
            if 0 <= i < width:
                cells[i] = "▼"
                tones[i] = "time-bar--bad" if event_kind(name).failure else "time-bar--good"
        cells[max(0, min(width - 1, head))] = "●"
        tones[max(0, min(width - 1, head))] = "time-bar--head"
        for cell, tone in zip(cells, tones):
            text.append(cell, style(tone))
        text.append(tail, style("time-bar--label"))
        return text


def _clock(when: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(when))
