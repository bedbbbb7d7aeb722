"""FleetApp: the fleet view's app, one refresh worker and raidtop's themes."""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import App
from textual.message import Message

from raidtop.fleet.model import FleetReading
from raidtop.screens.fleet import FleetScreen, HostScreen
from raidtop.themes import DEFAULT_THEME, load_themes


class FleetUpdated(Message):
    """A new reading of the fleet; a newer one replaces a stale one still queued."""

    def __init__(self, reading: FleetReading) -> None:
        super().__init__()
        self.reading = reading

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FleetUpdated)


class FleetApp(App):
    """Shows what ``source.read()`` returns, every ``interval_s`` seconds."""

    TITLE = "raidtop fleet"

    def __init__(self, source, source_label: str, interval_s: float = 5.0, autostart: bool = True) -> None:
        super().__init__()
        self.source = source
        self.source_label = source_label
        self.interval_s = interval_s
        self.autostart = autostart
        self.reading: FleetReading | None = None
        self._wake = asyncio.Event()
        loaded = load_themes()
        for theme in loaded.themes:
            self.register_theme(theme)
        if DEFAULT_THEME in self.available_themes:
            self.theme = DEFAULT_THEME

    def on_mount(self) -> None:
        self.push_screen(FleetScreen(self.source_label))
        if self.autostart:
            self.refresher()

    @work(exclusive=True, group="fleet")
    async def refresher(self) -> None:
        """The one refresh loop: read in a thread, post, wait the interval (or an early wake-up)."""
        while True:
            reading = await asyncio.to_thread(self.source.read)
            self.post_message(FleetUpdated(reading))
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self.interval_s)
            except asyncio.TimeoutError:
                pass

    def refresh_now(self) -> None:
        """Wake the refresh loop."""
        self._wake.set()

    @on(FleetUpdated)
    def _apply(self, message: FleetUpdated) -> None:
        self.show(message.reading)

    def show(self, reading: FleetReading) -> None:
        """Give ``reading`` to every fleet screen on the stack."""
        self.reading = reading
        for screen in self.screen_stack:
            if isinstance(screen, (FleetScreen, HostScreen)):
                screen.show(reading)
