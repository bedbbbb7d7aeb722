"""The ``raidtop`` command's own process, run in a real terminal (a private tmux server).

Issue 30, item 4: asyncio imports ``ssl`` for TLS transports the dashboard
never opens, and with it libssl and libcrypto (4.4 MB of the dashboard's
memory). The command keeps them out; what it maps is read from /proc.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "tests" / "data" / "ui" / "root1"


def _screen(tmux: list[str]) -> str:
    return subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
def test_the_dashboard_maps_no_tls_library_and_still_draws_and_quits():
    tmux = ["tmux", "-L", f"raidtop-lean-{uuid.uuid4().hex[:8]}"]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO))
    env.pop("TEXTUAL_DRIVER", None)
    command = f"exec {shlex.quote(sys.executable)} -m raidtop --root {shlex.quote(str(ROOT))}"
    subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "40", command], check=True, env=env)
    try:
        pane = subprocess.run([*tmux, "display-message", "-p", "#{pane_pid}"], capture_output=True, text=True)
        pid = int(pane.stdout)
        deadline = time.monotonic() + 60  # a bound on a busy machine, not a timing assertion
        while "sdq" not in _screen(tmux) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "sdq" in _screen(tmux), _screen(tmux)
        maps = Path(f"/proc/{pid}/maps").read_text()
        assert "python" in maps  # it is the interpreter running the dashboard
        mapped = {line.split()[-1].rsplit("/", 1)[-1] for line in maps.splitlines() if "/" in line}
        tls = sorted(name for name in mapped if name.startswith(("libssl", "libcrypto", "_ssl")))
        assert not tls, tls
        subprocess.run([*tmux, "send-keys", "q"], check=True)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not Path(f"/proc/{pid}").exists(), "q did not end the dashboard"
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def test_tls_is_left_out_only_where_nothing_holds_it_yet():
    probe = "import sys; from raidtop.__main__ import leave_tls_out; leave_tls_out(); import asyncio; import ssl\n"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "ModuleNotFoundError: import of ssl halted" in result.stderr
    probe = "import ssl, sys; from raidtop.__main__ import leave_tls_out; leave_tls_out(); print(sys.modules['ssl'])"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "<module 'ssl'" in result.stdout
