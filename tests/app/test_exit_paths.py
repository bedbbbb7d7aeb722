"""``q``, SIGHUP and SIGTERM end raidtop, even with a read stuck, and stop what it started.

Each test runs the real app as its own process on a pty (tests/app/pty_app.py)
and asserts only that it exits, with a generous timeout, never how fast.
"""

from __future__ import annotations

import signal
import textwrap
from pathlib import Path

import pytest

from tests.app.pty_app import PtyApp
from tests.screens.bench.bench_pilot import bench, make_app, open_screen, wait_for_screen, wait_until  # noqa: F401 (bench is a fixture)

DATA = Path(__file__).resolve().parent.parent / "data" / "ui" / "root1"

# A read that never returns, as a hung NFS mount or a stuck sysfs attribute
# does. Nothing on this machine produces one on demand (FIFOs and devices are
# refused by safeio), so this is the one fake: a Root whose read waits forever.
STUCK_APP = textwrap.dedent("""
    import sys, threading
    from pathlib import Path
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.collect.source import Root
    from raidtop.config import Config

    class StuckRoot(Root):
        def read_text(self, abs_path):
            if abs_path == "/proc/diskstats":
                Path(sys.argv[2]).write_text("stuck")
                threading.Event().wait()
            return super().read_text(abs_path)

    app = RaidtopApp(Config(root=Path(sys.argv[1])))
    app.sampler.root = StuckRoot(sys.argv[1])
    app.run()
    sys.exit(app.return_code or 0)
""")


@pytest.fixture
def stuck_app(tmp_path):
    script = tmp_path / "stuck_app.py"
    script.write_text(STUCK_APP)
    marker = tmp_path / "stuck"
    app = PtyApp([str(script), str(DATA), str(marker)])
    app.marker = marker
    yield app
    app.kill()


def wait_until_stuck(app: PtyApp) -> None:
    app.wait_for(b"palette")
    for _ in range(600):
        if app.marker.exists():
            return
        app.pump(0.1)
    raise AssertionError("the sampler never reached the stuck read")


def test_q_quits_while_a_read_is_stuck(stuck_app):
    wait_until_stuck(stuck_app)
    stuck_app.send(b"q")
    # Before: the app joined the blocked sampler thread at exit and never ended.
    assert stuck_app.wait_exit() == 0


@pytest.fixture
def dashboard():
    app = PtyApp(["-m", "raidtop", "--root", str(DATA)])
    yield app
    app.kill()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGHUP, 129), (signal.SIGTERM, 143)], ids=["SIGHUP", "SIGTERM"])
def test_a_signal_ends_the_app_through_its_own_exit(dashboard, signum, code):
    dashboard.wait_for(b"palette")
    dashboard.output = b""
    import os

    os.kill(dashboard.pid, signum)
    # Before: the default action killed the process (status -signum) without
    # running any screen's exit, or it stayed stuck closing the terminal.
    assert dashboard.wait_exit() == code
    if signum == signal.SIGTERM:  # the terminal is still there: it was given back
        assert b"\x1b[?1049l" in dashboard.output and b"\x1b[?25h" in dashboard.output


def test_closing_the_terminal_ends_the_app(dashboard):
    dashboard.wait_for(b"palette")
    dashboard.hang_up()  # what a dropped SSH session does: SIGHUP, then EIO on the tty
    status = dashboard.wait_exit()
    assert status is not None, "raidtop kept running without a terminal"
    assert status >= 0, f"killed by signal {-status} instead of exiting"


async def test_sigterm_stops_a_running_benchmark(bench, monkeypatch):  # noqa: F811 (bench: the fixture imported above)
    """The exit path runs the Benchmarks screen's cancel: fio gets SIGINT, the partial run is kept."""
    import asyncio
    import os

    from raidtop.screens.dialogs import ConfirmDialog

    monkeypatch.setenv("FAKE_FIO_TICK", "0.1")
    bench.remember(bench.target, runtime_s=600)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("5")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: len(screen.live_points) >= 2)
        # Guard: without raidtop's handler this signal would end pytest itself.
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
        os.kill(os.getpid(), signal.SIGTERM)
        await wait_until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 143 and app.exit_signal == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # handed back at unmount
    for _ in range(300):  # fio answers SIGINT with its final document; the run is then stored
        if bench.history.runs():
            break
        await asyncio.sleep(0.1)
    (run,) = bench.history.runs()
    assert run.partial and "cancelled" in run.message
    assert 0 < run.result.read.runtime_ms < 600_000  # stopped early, not run out
