"""Start ``raidtop --web`` as a real process and learn the address it printed."""

from __future__ import annotations

import os
import re
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[3]
URL = re.compile(r"http://localhost:(\d+)/([A-Za-z0-9_-]+)/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebServer:
    """``raidtop --web`` on a free port; ``url`` is the printed address with its token.

    Its stdout and stderr are read as one stream, as a terminal shows them.
    """

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        env = {**os.environ, "PYTHONPATH": str(PROJECT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "raidtop", "--web", "--port", str(self.port), "--root", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=PROJECT,
            env=env,
        )
        self.rest = ""
        self.output = self._read_until(URL)
        self.url = URL.search(self.output).group(0)
        self.token = URL.search(self.output).group(2)
        self._wait_for_port()

    def _read_until(self, pattern: re.Pattern[str], timeout: float = 60.0) -> str:
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        text, end = b"", time.monotonic() + timeout
        while not pattern.search(text.decode("utf-8", "replace")):
            if time.monotonic() > end or self.process.poll() is not None:
                raise AssertionError(f"raidtop --web printed no address: {text!r}")
            if selector.select(0.2):
                text += os.read(self.process.stdout.fileno(), 65536)
        selector.close()
        return text.decode("utf-8", "replace")

    def _wait_for_port(self) -> None:
        for _ in range(300):  # bounded: the server needs a Python start (slow on a loaded machine)
            if self.process.poll() is not None:
                raise AssertionError("raidtop --web exited")
            try:
                socket.create_connection(("localhost", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("raidtop --web never listened")

    def sessions(self) -> list[int]:
        """Process ids of the raidtop sessions the server started (its children)."""
        children: list[int] = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            children += [int(pid) for pid in (task / "children").read_text().split()]
        return children

    def stop_and_read(self) -> None:
        """Stop this server and keep what it wrote after the address in ``rest``."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            tail, _ = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            tail, _ = self.process.communicate()
        self.rest = tail.decode("utf-8", "replace")

    def stop(self) -> None:
        """Stop this server (its own id only) and wait for it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
