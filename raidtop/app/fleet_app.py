"""FleetApp: the fleet view's app, one refresh worker and raidtop's themes."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from textual import on, work
from textual.binding import Binding
from textual.message import Message

from raidtop.fleet.model import FleetReading
from raidtop.app.hangup import catch_exit_signals, leave_on_signal
from raidtop.app.terminal_app import TerminalApp
from raidtop.app.theme_choice import register_themes
from raidtop.screens.fleet import FleetScreen, HostScreen
from raidtop.threads import DaemonExecutor


class FleetUpdated(Message):
    """A new reading of the fleet; a newer one replaces a stale one still queued."""

    def __init__(self, reading: FleetReading) -> None:
        super().__init__()
        self.reading = reading

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FleetUpdated)


class FleetApp(TerminalApp):
    """Shows what ``source.read()`` returns, every ``interval_s`` seconds."""

    TITLE = "raidtop fleet"
    BINDINGS = [
        # In the terminal's raw mode Ctrl-C is a key, not SIGINT: it leaves as q does.
        Binding(
            "ctrl+c", "quit", "Quit", id="fleet-interrupt", show=False, priority=True, tooltip="Leave the fleet view"
        ),
    ]

    def __init__(self, source, source_label: str, interval_s: float = 5.0, autostart: bool = True) -> None:
        super().__init__()
        self.source = source
        self.source_label = source_label
        self.interval_s = interval_s
        self.autostart = autostart
        self.reading: FleetReading | None = None
        self.exit_signal: int | None = None
        """The signal that ended the view (SIGHUP, SIGTERM, SIGINT), or None."""
        self._wake = asyncio.Event()
        self._release_signals: Callable[[], None] | None = None
        register_themes(self, None)  # a theme that cannot be read leaves the default: the fleet view says nothing

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        # A read blocked on a host (a dribbling Prometheus, a stuck ssh) runs in a daemon
        # thread nobody joins, so leaving never waits for it.
        loop.set_default_executor(DaemonExecutor("raidtop-fleet"))
        self._release_signals = catch_exit_signals(loop, self.end_on_signal)
        try:
            loop.add_signal_handler(signal.SIGINT, self.end_on_signal, signal.SIGINT)
        except (ValueError, RuntimeError, NotImplementedError):
            pass  # not the main thread (embedded, tests): the default stays
        self.push_screen(FleetScreen(self.source_label))
        if self.autostart:
            self.refresher()

    def end_on_signal(self, signum: int) -> None:
        """Leave as ``q`` does; exit 128+signum. After SIGHUP nothing is written to the dead terminal."""
        if self.exit_signal is None:
            self.exit_signal = signum
            leave_on_signal(self, signum)

    def on_unmount(self) -> None:
        if self._release_signals is not None:
            self._release_signals()
            try:
                asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
            except (ValueError, RuntimeError):
                pass
        close = getattr(self.source, "close", None)
        if close is not None:
            close()  # ssh sessions still running are killed: nothing raidtop started outlives it

    @work(exclusive=True, group="fleet")
    async def refresher(self) -> None:
        """The one refresh loop: read in a thread, post, wait the interval (or an early wake-up)."""
        while True:
            reading = await asyncio.to_thread(self.source.read)
            self.post_message(FleetUpdated(reading))
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self.interval_s)
            except TimeoutError:
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
