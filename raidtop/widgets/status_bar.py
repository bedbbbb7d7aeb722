"""The one-line header: host, source, interval, sample time, paused."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.untrusted import plain


class StatusBar(Widget):
    """What raidtop is looking at and how often, in one line."""

    COMPONENT_CLASSES = {"status-bar--title", "status-bar--alert", "status-bar--muted"}
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; }
    StatusBar > .status-bar--title { color: $text-primary; text-style: bold; }
    StatusBar > .status-bar--alert { color: $text-error; text-style: bold reverse; }
    StatusBar > .status-bar--muted { color: $text-muted; }
    """

    host: reactive[str] = reactive("")
    """The host name (or the --root directory)."""
    interval: reactive[float] = reactive(1.0)
    """Seconds between samples."""
    sample_time: reactive[str] = reactive("")
    """Clock time of the sample on screen."""
    paused: reactive[bool] = reactive(False)
    """True while sampling is paused."""
    load: reactive[str] = reactive("")
    """The 1, 5 and 15 minute load averages, formatted."""
    badge: reactive[str] = reactive("")
    """An extra label (e.g. DEMO, REPLAY) shown in alert colours."""

    def render(self) -> Text:
        title = self.get_component_rich_style("status-bar--title")
        muted = self.get_component_rich_style("status-bar--muted")
        alert = self.get_component_rich_style("status-bar--alert")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" raidtop ", title)
        if self.badge:
            text.append(f" {plain(self.badge)} ", alert)
            text.append(" ")
        # The host comes from a recording's header when replaying: anyone's text.
        text.append(plain(self.host) + " ")
        text.append(f"  every {self.interval:g}s", muted)
        if self.sample_time:
            text.append(f"  {self.sample_time}", muted)
        if self.load:
            text.append(f"  load {self.load}", muted)
        if self.paused:
            text.append("  ")
            text.append(" PAUSED ", alert)
        return text
