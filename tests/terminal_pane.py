"""A command in a real terminal: a detached pane of a tmux server of its own, Textual's own driver."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class Pane:
    """The pane's tmux command line and the process it runs."""

    def __init__(self, tmux: list[str], pid: int) -> None:
        self.tmux = tmux
        self.pid = pid

    def screen(self) -> str:
        """What the pane shows now, as text."""
        return subprocess.run([*self.tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout

    def send(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", *keys], check=True)

    def wait_gone(self, seconds: float = 30) -> bool:
        """Whether the process ended within ``seconds`` (a bound on a busy machine, not a timing assertion)."""
        deadline = time.monotonic() + seconds
        while Path(f"/proc/{self.pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        return not Path(f"/proc/{self.pid}").exists()


@contextmanager
def terminal_pane(argv: list[str], name: str, width: int = 120, height: int = 40) -> Iterator[Pane]:
    """Run ``argv`` (exec'd, so the pane's process is it) in a ``width``×``height`` pane; the server ends after.

    A server of its own: on the default socket another test (or a person) killing their
    last session would stop the shared server under this one.
    """
    tmux = ["tmux", "-L", f"raidtop-{name}-{uuid.uuid4().hex[:8]}"]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO))
    env.pop("TEXTUAL_DRIVER", None)  # the real terminal's driver, not a headless one
    command = "exec " + shlex.join(argv)
    subprocess.run([*tmux, "new-session", "-d", "-x", str(width), "-y", str(height), command], check=True, env=env)
    try:
        shown = subprocess.run([*tmux, "display-message", "-p", "#{pane_pid}"], capture_output=True, text=True)
        yield Pane(tmux, int(shown.stdout))
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
