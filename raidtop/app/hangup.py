"""SIGHUP and SIGTERM end raidtop the way ``q`` does, and a hung-up terminal is let go.

Left at their default action these signals killed the process outright: no
screen's ``on_unmount`` ran, so fio (started in its own session, out of reach
of the terminal's SIGHUP) and lab jobs carried on after a dropped SSH
session. :func:`catch_exit_signals` routes them to the app's own exit instead.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from typing import Any

from textual.app import App

EXIT_SIGNALS = (signal.SIGHUP, signal.SIGTERM)

_TERMINAL_FDS: tuple[int, ...] = ()
"""Standard descriptors that were a terminal when :func:`catch_exit_signals` ran."""


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def catch_exit_signals(loop: asyncio.AbstractEventLoop, on_signal: Callable[[int], None]) -> Callable[[], None]:
    """Call ``on_signal(signum)`` on the loop for SIGHUP and SIGTERM; returns the undo.

    Outside the main thread (raidtop embedded elsewhere) signals cannot be
    caught and the default actions stay.
    """
    caught: list[int] = []
    # Which of 0/1/2 are the terminal is decided now: once it has hung up, isatty()
    # fails on it (the kernel answers EIO), so it could no longer be told apart.
    global _TERMINAL_FDS
    _TERMINAL_FDS = tuple(fd for fd in (0, 1, 2) if _is_terminal(fd))
    for signum in EXIT_SIGNALS:
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (ValueError, RuntimeError, NotImplementedError):
            break
        caught.append(signum)

    def release() -> None:
        for signum in caught:
            try:
                loop.remove_signal_handler(signum)
            except (ValueError, RuntimeError):
                pass  # the loop is already closed: nothing is delivered to it any more

    return release


def detach_from_terminal() -> None:
    """Point stdin, stdout and stderr at /dev/null once the terminal has hung up.

    A hung-up terminal answers every read and write with EIO: Textual's input
    thread would panic and its writer thread die, leaving later writes to
    block. /dev/null lets the exit path "restore the terminal" and finish.
    Only descriptors that were the terminal when the handlers were installed
    are replaced (never a test's capture).
    """
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    try:
        for fd in _TERMINAL_FDS:
            try:
                os.dup2(null, fd)
            except OSError:
                pass  # a descriptor that is already gone stays gone
    finally:
        os.close(null)


def leave_on_signal(app: App[Any], signum: int) -> None:
    """End ``app`` as ``q`` does (screens unmount, so fio and lab jobs are cancelled), exiting 128+signum.

    After SIGHUP nobody is left to read the screen: Textual's shutdown writes
    "restore the terminal" sequences through a bounded queue whose writer
    thread may have died on EIO, and a put() on it blocked the exit forever
    (seen in tests). So nothing more is written.
    """
    if signum == signal.SIGHUP:
        detach_from_terminal()
        driver = app._driver
        if driver is not None:
            driver.write = lambda data: None  # type: ignore[method-assign]
    app.exit(return_code=128 + signum)
