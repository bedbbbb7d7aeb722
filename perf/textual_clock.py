"""The floor of a Textual dashboard: one Static that shows the time, rewritten once a second.

Run beside atop by ``perf/versus_atop.py --tools ...,textual-clock``: what any
Textual app that changes one line a second costs on this machine, with no
reading, no tables and no styling of its own. ``ssl`` is kept out as raidtop
keeps it out (raidtop/__main__.py), so the two load the same libraries.
"""

from __future__ import annotations

import sys
import time

sys.modules["ssl"] = None  # type: ignore[assignment]

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402


class TextualClock(App[None]):
    """One line: the clock, each second."""

    def compose(self) -> ComposeResult:
        yield Static(self._now(), id="clock")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        self.query_one("#clock", Static).update(self._now())

    @staticmethod
    def _now() -> str:
        return time.strftime("clock %H:%M:%S")


if __name__ == "__main__":
    TextualClock().run()
