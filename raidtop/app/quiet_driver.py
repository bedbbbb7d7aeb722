"""A terminal driver whose input thread sleeps until a key arrives.

Textual's ``LinuxDriver`` waits for input with a 0.1 s timeout, so on an idle
dashboard its input thread wakes ten times a second: 0.13 % of a core on the
2-core test host, a quarter of what ``atop 1`` costs in all (perf/RESULTS.md,
issue 30). This driver waits without a timeout, except while the key parser
holds a lone Esc: only its timeout tells Esc from the start of an escape
sequence. Leaving (quit, suspend) sets the driver's exit event, which here
also writes a byte to a pipe the thread waits on, so leaving is as quick as
before.

The loop follows Textual 8.2's ``run_input_thread`` (pinned by
tests/constraints.txt) and uses its private parser; when a Textual lacks what
it uses, :func:`quiet_driver_class` gives Textual's own driver instead.
"""

from __future__ import annotations

import os
import selectors
import sys
import threading
from codecs import getincrementaldecoder

from textual.driver import Driver

try:
    from textual._time import get_time
    from textual._xterm_parser import XTermParser
    from textual.drivers.linux_driver import LinuxDriver
except ImportError:  # another platform, or a Textual shaped otherwise
    LinuxDriver = None  # type: ignore[assignment,misc]

POLL_S = 0.1
"""Textual's own wait: used while the parser's state is not known."""
_UNKNOWN = object()
"""What a parser without ``_timeout_time`` answers."""


class WakingEvent(threading.Event):
    """An event whose ``set`` also wakes a thread blocked in ``select`` (one byte to a pipe)."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        super().set()
        try:
            os.write(self._wake_fd, b"!")
        except OSError:
            pass  # full (already woken) or closed (the driver is gone): nothing left to wake


def parser_wait(parser: object, now: float) -> float | None:
    """How long the input thread may sleep: ``None`` (until input) unless the parser awaits a timeout."""
    deadline = getattr(parser, "_timeout_time", _UNKNOWN)
    if deadline is None:
        return None
    if not isinstance(deadline, float | int):
        return POLL_S  # a Textual without the attribute: poll as it does
    return max(0.0, deadline - now)


if LinuxDriver is not None:

    class QuietLinuxDriver(LinuxDriver):
        """``LinuxDriver`` whose input thread blocks until input, a parser timeout or leaving."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._wake_read, self._wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
            self.exit_event = WakingEvent(self._wake_write)

        def run_input_thread(self) -> None:
            """Wait for input and dispatch events (Textual's loop without its 0.1 s polling)."""
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            parser = XTermParser(self._debug)
            decode = getincrementaldecoder("utf-8")().decode
            try:
                while not self.exit_event.is_set():
                    for key, _mask in selector.select(parser_wait(parser, get_time())):
                        if key.fd == self._wake_read:
                            self._drain_wake()
                            continue
                        data = decode(os.read(self.fileno, 1024 * 4))
                        if not data:
                            # stdin ended (a hung-up terminal): nothing more will come. End the
                            # thread as a read error does; waiting on would keep this non-daemon
                            # thread, and the process, alive if leaving never set the exit event.
                            return
                        for event in parser.feed(data):
                            self.process_message(event)
                    for event in parser.tick():
                        self.process_message(event)
                self._drain_wake()
            finally:
                selector.close()

        def _drain_wake(self) -> None:
            try:
                while os.read(self._wake_read, 64):
                    pass
            except OSError:
                pass  # empty: the pipe is non-blocking

        def close(self) -> None:
            super().close()
            for fd in (self._wake_read, self._wake_write):
                try:
                    os.close(fd)
                except OSError:
                    pass


def quiet_driver_class() -> type[Driver] | None:
    """The driver for the dashboard: the quiet one where Textual would pick its Linux driver, else ``None``."""
    from textual import constants

    if LinuxDriver is None or sys.platform == "win32" or constants.DRIVER is not None:
        return None
    return QuietLinuxDriver
