"""The 16-colour theme in a real terminal with TERM=linux (tmux capture-pane)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "data" / "ui" / "root1"
pytestmark = pytest.mark.live


def test_16color_theme_draws_the_dashboard_under_term_linux():
    if shutil.which("tmux") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run this test: tmux is missing")
        pytest.skip("tmux is not installed")
    session = f"raidtop-{uuid.uuid4().hex[:8]}"
    command = f"TERM=linux {sys.executable} -m raidtop --theme raidtop-16color --root {ROOT}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command],
        check=True,
        env={**os.environ, "TERM": "linux"},
    )
    try:
        screen = ""
        for _ in range(300):  # bounded wait for the first frame (Python start-up on a loaded machine)
            time.sleep(0.1)
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-e", "-t", session], capture_output=True, text=True
            ).stdout
            if "sdq" in screen:
                break
        for text in ("raidtop", "Disks", "CPU", "Memory / VM", "Sensors", "sdq"):
            assert text in screen, f"{text!r} missing from:\n{screen}"
        # Only the 16 ANSI colours: no 24-bit colour escape sequences (ESC[38;2;… / ESC[48;2;…).
        assert "38;2;" not in screen and "48;2;" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
