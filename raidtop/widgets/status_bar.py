"""The one-line header: host, source, interval, sample time, paused."""

from __future__ import annotations

import time
from os.path import commonprefix

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from raidtop.model.snapshot import Snapshot
from raidtop.untrusted import plain
from raidtop.widgets.part_styles import STATUS_BAR_PARTS


class StatusBar(Widget):
    """What raidtop is looking at and how often, in one line."""

    # Its parts' look is the app's (raidtop.widgets.part_styles).
    DEFAULT_CSS = f"""
    StatusBar {{ height: 1; background: {STATUS_BAR_PARTS.background}; color: $foreground; }}
    """

    host: reactive[str] = reactive("")
    """The host name (or the --root directory)."""
    interval: reactive[float] = reactive(1.0)
    """Seconds between samples."""
    sample_time: reactive[str] = reactive("", repaint=False)
    """Clock time of the sample on screen (:meth:`show` repaints the characters that changed)."""
    paused: reactive[bool] = reactive(False)
    """True while sampling is paused."""
    load: reactive[str] = reactive("", repaint=False)
    """The 1, 5 and 15 minute load averages, formatted (repainted by :meth:`show`)."""
    badge: reactive[str] = reactive("")
    """An extra label (e.g. DEMO, REPLAY) shown in alert colours."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._line: tuple[tuple, Strip] | None = None
        self._styles: tuple[Style, tuple[Style, Style, Style]] | None = None
        """(base, (title, muted, alert)) until the styles change: every ``refresh()`` empties
        Textual's own component-style cache, and the clock refreshes this line every sample."""
        self._shown: tuple[tuple, str] | None = None
        """(everything else the line depends on, the line's text) as :meth:`show` last left it."""

    def show(self, snap: Snapshot) -> None:
        """Take the sample's time and load averages from ``snap``; repaint only the characters that changed.

        The clock changes every sample: repainting the whole line sent all of it
        to the terminal each second, where a few digits are what moved.
        """
        # Last show's text is the line on screen unless something else it shows changed since
        # (those repaint the whole line): then it is laid out again.
        shown = self._shown
        before = shown[1] if shown is not None and shown[0] == self._layout_state() else self._line_text()
        self.sample_time = time.strftime("%H:%M:%S", time.localtime(snap.time))
        if snap.vm is not None and snap.vm.loadavg is not None:
            self.load = " ".join(f"{v:.2f}" for v in snap.vm.loadavg)
        after = self._line_text()
        self._shown = (self._layout_state(), after)
        if before == after:
            return
        if not (before + after).isascii():
            self.refresh()  # wide characters (a host's name): cells are not characters
            return
        start = len(commonprefix([before, after]))
        tail = len(commonprefix([before[start:][::-1], after[start:][::-1]]))
        self.refresh(Region(start, 0, max(1, max(len(before), len(after)) - tail - start), 1))

    def _layout_state(self) -> tuple:
        """Everything :meth:`_parts` lays the line out from."""
        return (self.host, self.badge, self.paused, self.interval, self.sample_time, self.load, self.size.width)

    def _line_text(self) -> str:
        """The line as plain text, as :meth:`render` lays it out."""
        return "".join(text for text, _style in self._parts(None, None, None))

    def render_line(self, y: int) -> Strip:
        """The line as segments (a Rich Text made a new Visual per repaint: most of the header's cost)."""
        width = self.size.width
        if self._styles is None:
            app = self.app
            components = (
                STATUS_BAR_PARTS.style(app, "title"),
                STATUS_BAR_PARTS.style(app, "muted"),
                STATUS_BAR_PARTS.style(app, "alert"),
            )
            self._styles = (self.rich_style, components)
        base, styles = self._styles
        if y:
            return Strip.blank(width, base)
        parts = self._parts(*styles)
        key = (tuple(parts), width, base)
        if self._line is not None and self._line[0] == key:
            return self._line[1]
        strip = Strip([Segment(text, base + style if style else base) for text, style in parts])
        if strip.cell_length > width:  # the parts that always stay (clock, badge, PAUSED) are wider still
            strip = Strip.join([strip.crop(0, max(0, width - 1)), Strip([Segment("…", base)])])
        strip = strip.extend_cell_length(width, base).simplify()
        self._line = (key, strip)
        return strip

    def notify_style_update(self) -> None:
        # A theme or CSS change: resolve the styles again on the next repaint.
        super().notify_style_update()
        self._styles = None

    def _parts(self, title: Style | None, muted: Style | None, alert: Style | None) -> list[tuple[str, Style | None]]:
        """The line's pieces and their styles, the lowest-ranked left out first when the line is too long."""
        # (text, style, rank): the highest rank goes first when the line is too long.
        # The clock, PAUSED/REC and DEMO (rank 0) stay at any width: they say
        # whether what is on screen is live, current and real.
        parts: list[tuple[str, Style | None, int]] = [(" raidtop ", title, 2)]
        if self.badge:
            parts += [(f" {plain(self.badge)} ", alert, 0), (" ", None, 0)]
        # The host comes from a recording's header when replaying: anyone's text.
        parts.append((plain(self.host) + " ", None, 5))
        parts.append((f"  every {self.interval:g}s", muted, 3))
        if self.sample_time:
            parts.append((f"  {self.sample_time}", muted, 0))
        if self.load:
            parts.append((f"  load {self.load}", muted, 4))
        if self.paused:
            parts += [("  ", None, 0), (" PAUSED ", alert, 0)]
        width = self.size.width
        for rank in (5, 4, 3, 2):
            if sum(len(t) for t, _s, _r in parts) <= width:
                break
            parts = [p for p in parts if p[2] != rank]
        return [(part, style) for part, style, _rank in parts]
