"""The array detail's latency heat map: one member's log2 latency buckets over time, or why there is none."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.model.frozen import frozen_dataclass
from raidtop.latency.summary import Interval
from raidtop.model.units import duration
from raidtop.presentation.latency_heat import LEGEND, SHADES, heat_map
from raidtop.widgets.part_styles import LATENCY_HEAT_MAP_PARTS

LABEL = 7
"""Characters of a row's label (``131ms``, ``<512µs``) and the space after it."""


@frozen_dataclass(slots=False)
class HeatView:
    """What the map shows: a member's intervals, or a sentence saying why there are none.

    Attributes:
        heading: the line above the map (which member, its siblings' p99, the key that moves on).
        series: the member's kept intervals, oldest first.
        now: when the newest column ends (the app's clock).
        interval_s: seconds per column.
        why_none: shown instead of a map (no BPF, a replay...); ``None`` when a map is wanted.
    """

    heading: str = ""
    series: Sequence[Interval] = ()
    now: float = 0.0
    interval_s: float = 1.0
    why_none: str | None = None


class LatencyHeatMap(Widget):
    """Rows of latency buckets (slowest on top) by columns of intervals (newest right); no I/O."""

    # Its parts' look is the app's (raidtop.widgets.part_styles).
    DEFAULT_CSS = f"""
    LatencyHeatMap {{ height: auto; background: {LATENCY_HEAT_MAP_PARTS.background}; }}
    """
    ROWS = 10
    """Bucket rows at most: 1 µs to 1 s is 20 buckets; the fastest fold into the bottom row."""

    view: reactive[HeatView] = reactive(HeatView(), layout=True)
    """What is shown; an equal view repaints nothing."""

    def render(self) -> Text:
        view = self.view
        label_style = LATENCY_HEAT_MAP_PARTS.style(self.app, "label")
        text = Text(no_wrap=True, overflow="crop")
        if view.heading:
            text.append(view.heading + "\n")
        if view.why_none is not None:
            text.append(view.why_none, label_style)
            return text
        columns = max(1, self.size.width - LABEL)
        found = heat_map(view.series, view.now, view.interval_s, columns, self.ROWS)
        if found is None:
            text.append("no request completed on this member while traced", label_style)
            return text
        styles = [None, *(LATENCY_HEAT_MAP_PARTS.style(self.app, f"l{n}") for n in range(1, 5))]
        for label, levels in zip(found.labels, found.levels):
            text.append(f"{label:>{LABEL - 1}} ", label_style)
            for n in levels:
                text.append(SHADES[n], styles[n])
            text.append("\n")
        span = duration(found.columns * view.interval_s)
        axis = f"{'← ' + span + ' ago':<{max(0, columns - 3)}}now"
        text.append(" " * LABEL + axis + "\n", label_style)
        text.append(" " * LABEL + LEGEND, label_style)
        return text

    def get_content_height(self, container, viewport, width: int) -> int:
        view = self.view
        heading = 1 if view.heading else 0
        if view.why_none is not None:
            return heading + 1
        found = heat_map(view.series, view.now, view.interval_s, max(1, width - LABEL), self.ROWS)
        return heading + (1 if found is None else len(found.labels) + 2)
