"""``raidtop fleet`` in a real tmux pane: every byte it writes to the terminal recorded, its exit observed."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.exporter.procs import REPO


class FleetPane:
    """A detached tmux session running ``raidtop fleet ARGS``; ``raw`` is everything it wrote."""

    def __init__(self, tmp: Path, *args: str, width: int = 160, height: int = 30) -> None:
        self.session = f"raidtop-fleet-{uuid.uuid4().hex[:8]}"
        # A tmux server of its own: on the default socket, another test (or a person)
        # killing their last session stops the shared server under this one.
        self.tmux = ["tmux", "-L", self.session]
        self.log = tmp / f"{self.session}.raw"
        self.log.touch()
        self.status_file = tmp / f"{self.session}.status"
        pid_file = tmp / f"{self.session}.pid"
        command = [sys.executable, "-m", "raidtop", "fleet", *args]
        # tmux marks a pane dead before it has the exit status and, on a busy host,
        # sometimes never records it: a small parent waits for raidtop and writes it.
        # raidtop stays in the terminal's foreground group (keys reach it); the parent
        # ignores Ctrl-C, and raidtop gets the default SIGINT back before it starts.
        waiter = (
            "import signal, subprocess, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            f"p = subprocess.Popen({command!r}, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)); "
            f"open({str(pid_file)!r}, 'w').write(str(p.pid)); rc = p.wait(); "
            f"open({str(self.status_file)!r}, 'w').write(str(rc) if rc >= 0 else f'signal {{-rc}}')"
        )
        # The short sleep lets pipe-pane attach before raidtop writes its first byte.
        shell = (
            f"cd {shlex.quote(str(REPO))} && sleep 0.5 && PYTHONPATH={shlex.quote(str(REPO))} "
            f"exec {shlex.quote(sys.executable)} -c {shlex.quote(waiter)}"
        )
        subprocess.run(
            [
                *self.tmux,
                "new-session",
                "-d",
                "-s",
                self.session,
                "-x",
                str(width),
                "-y",
                str(height),
                shell,
                ";",
                "set-option",
                "-t",
                self.session,
                "remain-on-exit",
                "on",
                ";",
                "pipe-pane",
                "-o",
                "-t",
                self.session,
                f"cat >> {shlex.quote(str(self.log))}",
            ],
            check=True,
            env=dict(os.environ, TERM="xterm-256color"),
        )
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.pid = int(pid_file.read_text())
        """raidtop's own process id (signals go to it, not to the parent that waits for it)."""

    def show(self, fmt: str) -> str:
        """A tmux format of the pane (``#{pane_title}``, ``#{pane_dead}``...)."""
        return subprocess.run(
            [*self.tmux, "display-message", "-p", "-t", self.session, fmt], capture_output=True, text=True
        ).stdout.strip()

    def screen(self) -> str:
        """The pane's text as tmux shows it."""
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-J", "-S", "-100", "-t", self.session], capture_output=True, text=True
        ).stdout

    @property
    def raw(self) -> bytes:
        """Every byte raidtop wrote to the terminal so far."""
        return self.log.read_bytes()

    def wait_for(self, text: str, timeout_s: float = 60.0) -> str:
        """The screen once it shows ``text``."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never shown; screen:\n{self.screen()}")

    def dead(self) -> bool:
        """True once the raidtop process is gone (a pane whose terminal was let go is not enough)."""
        try:
            with open(f"/proc/{self.pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
        except (FileNotFoundError, ProcessLookupError):
            return True

    def exit_status(self, timeout_s: float = 10.0) -> str:
        """raidtop's exit status (``129``), or ``signal N`` when a signal killed it; ``""`` if unknown."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.status_file.exists() and self.status_file.read_text():
                return self.status_file.read_text()
            time.sleep(0.05)
        return ""

    def wait_exit(self, timeout_s: float) -> float | None:
        """Seconds until raidtop exited, or ``None`` if it had not after ``timeout_s``."""
        start = time.monotonic()
        while time.monotonic() - start < timeout_s:
            if self.dead():
                return time.monotonic() - start
            time.sleep(0.02)
        return None

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.session, *keys], check=True)

    def close(self) -> None:
        """Kill the session (and raidtop with it, if it is still there)."""
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)
