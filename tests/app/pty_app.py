"""Run raidtop as a real process on a pseudo-terminal, as a user's shell would.

The child gets the pty as its controlling terminal (``pty.fork`` makes it a
session leader), so closing the master is a real hang-up: the kernel sends
SIGHUP and reads return EIO, as when an SSH session drops.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
_SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""Colour and style codes: a word split between two styled segments is still drawn."""
EXIT_TIMEOUT = 30.0
"""Generous: only "did it exit at all" is asserted, never how fast."""


class PtyApp:
    """One raidtop process on a pty; ``output`` is everything it drew so far."""

    def __init__(self, argv: list[str], columns: int = 120, rows: int = 40) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(PROJECT),
            "TERM": "xterm-256color",
            "COLUMNS": str(columns),
            "LINES": str(rows),
        }
        pid, fd = pty.fork()
        if pid == 0:  # the child: become raidtop, never return into pytest
            try:
                os.chdir(PROJECT)
                os.execve(sys.executable, [sys.executable, *argv], env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = b""
        self.status: int | None = None

    def pump(self, seconds: float) -> None:
        """Read what the app draws for up to ``seconds`` (keeps its writes from blocking)."""
        end = time.monotonic() + seconds
        while self.fd is not None and time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # EIO: the child closed its side
                    return
                if not chunk:
                    return
                self.output += chunk
            if self.poll() is not None:
                return

    def drew(self, text: bytes) -> bool:
        """True once ``text`` was drawn, whatever colour codes sit between its letters."""
        return text in self.output or text in _SGR.sub(b"", self.output)

    def wait_for(self, text: bytes, timeout: float = 60.0) -> None:
        """Pump until ``text`` was drawn; fail with the tail of the output if not."""
        end = time.monotonic() + timeout
        while not self.drew(text) and time.monotonic() < end:
            if self.poll() is not None:
                raise AssertionError(f"raidtop exited early ({self.status}): {self.output[-2000:]!r}")
            self.pump(0.2)
        if not self.drew(text):
            raise AssertionError(f"{text!r} never drawn: {self.output[-2000:]!r}")

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def hang_up(self) -> None:
        """Close the master side: the terminal is gone, as when SSH drops."""
        os.close(self.fd)
        self.fd = None

    def poll(self) -> int | None:
        """The exit code (negative for a signal) once the process ended, else None."""
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def wait_exit(self, timeout: float = EXIT_TIMEOUT) -> int | None:
        """Pump until the process exits; its exit code, or None if it is still running."""
        end = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < end:
            if self.fd is not None:
                self.pump(0.1)
            else:
                time.sleep(0.05)
        return self.status

    def kill(self) -> None:
        """Clean up after a failed test: this process only, by its id."""
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
