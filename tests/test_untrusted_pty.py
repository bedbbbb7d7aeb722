"""The real ``raidtop`` under a pseudo-terminal: what reaches the terminal holds no payload.

run_test renders through a headless driver; this runs the console entry point
as a user would, reads every byte it writes to the terminal, and quits with q.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time
from pathlib import Path

from tests.hostile import build_recording, build_root, leaks

REPO = Path(__file__).resolve().parents[1]
WAIT_S = 60  # a guard against a hang, not a timing assertion


def run_in_pty(args: list[str], until: bytes, cols: int = 200, rows: int = 60) -> tuple[bytes, int]:
    """Run ``python -m raidtop ARGS`` on a pty, wait for ``until`` in its output, press q; (output, exit status)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become raidtop
        env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO), TZ="UTC")
        env.pop("NO_COLOR", None)
        os.execve(sys.executable, [sys.executable, "-m", "raidtop", *args], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    output = bytearray()
    deadline = time.monotonic() + WAIT_S
    quit_sent = False
    status = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                chunk = b""
            if not chunk:
                break
            output += chunk
        if not quit_sent and until in output:
            os.write(fd, b"q")
            quit_sent = True
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, 9)
    if status is None or not os.WIFEXITED(status):
        _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert quit_sent, f"raidtop never showed {until!r}; it wrote: {bytes(output[-2000:])!r}"
    # Textual prints a crash's traceback to the terminal on the way out.
    assert b"Traceback" not in output and b"Error" not in output, bytes(output[-3000:])
    return bytes(output), os.waitstatus_to_exitcode(status)


def test_raidtop_on_a_hostile_root_writes_no_payload_to_the_terminal(tmp_path: Path):
    root = build_root(tmp_path / "root")
    # The hostile hwmon chip's row: its name, with the ESC replaced, on screen.
    output, code = run_in_pty(["--root", str(root)], until="chip\ufffd".encode())
    assert leaks(output) == []
    assert code == 0


def test_replaying_a_hostile_recording_writes_no_payload_to_the_terminal(tmp_path: Path):
    root = build_root(tmp_path / "root")
    recording = build_recording(root, tmp_path / "hostile.xz")
    output, code = run_in_pty(["--replay", str(recording)], until="replay of host\ufffd".encode())
    assert leaks(output) == []
    assert code == 0


def test_a_theme_named_with_markup_is_a_notice_and_q_quits_with_0(tmp_path: Path):
    root = build_root(tmp_path / "root")
    output, code = run_in_pty(["--root", str(root), "--theme", "[/]"], until=b"not found")
    assert leaks(output) == []
    assert code == 0
