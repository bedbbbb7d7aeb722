"""The ``raidtop`` command's own process, run in a real terminal (a private tmux server).

Issue 30, item 4: asyncio imports ``ssl`` for TLS transports the dashboard
never opens, and with it libssl and libcrypto (4.4 MB of the dashboard's
memory). The command keeps them out; what it maps is read from /proc.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.terminal_pane import REPO, terminal_pane

ROOT = REPO / "tests" / "data" / "ui" / "root1"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
def test_the_dashboard_maps_no_tls_library_and_still_draws_and_quits():
    with terminal_pane([sys.executable, "-m", "raidtop", "--root", str(ROOT)], "lean") as pane:
        deadline = time.monotonic() + 60  # a bound on a busy machine, not a timing assertion
        while "sdq" not in pane.screen() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "sdq" in pane.screen(), pane.screen()
        maps = Path(f"/proc/{pane.pid}/maps").read_text()
        assert "python" in maps  # it is the interpreter running the dashboard
        mapped = {line.split()[-1].rsplit("/", 1)[-1] for line in maps.splitlines() if "/" in line}
        tls = sorted(name for name in mapped if name.startswith(("libssl", "libcrypto", "_ssl")))
        assert not tls, tls
        pane.send("q")
        assert pane.wait_gone(), "q did not end the dashboard"


def test_tls_is_left_out_only_where_nothing_holds_it_yet():
    probe = "import sys; from raidtop.__main__ import leave_tls_out; leave_tls_out(); import asyncio; import ssl\n"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "ModuleNotFoundError: import of ssl halted" in result.stderr
    probe = "import ssl, sys; from raidtop.__main__ import leave_tls_out; leave_tls_out(); print(sys.modules['ssl'])"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "<module 'ssl'" in result.stdout
