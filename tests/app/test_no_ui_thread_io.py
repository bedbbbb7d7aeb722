"""No file, directory, process or SQLite access on the UI thread (issue 12, item 3).

Each test drives the keys that used to read or write from the event loop —
opening a screen, moving the cursor, typing in the change dialog, making
changes permanent, the change log, the lab's create form — while
:mod:`tests.app.ui_thread_io` records every such access the main thread makes
under the test's fixture root and XDG dirs. Workers (other threads) may read
freely; the recorded list must stay empty.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import TuningSession
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.tuning.screen import TuningScreen
from raidtop.screens.tuning.dialogs import ChangeDialog, ChangeLogScreen, PersistDialog
from raidtop.widgets.text_table import TextTable
from tests.conftest import DATA
from tests.screens.bench.bench_pilot import Bench, open_screen, store_comparison, wait_for_screen
from tests.screens.lab.test_lab_screen import READY, SNAPSHOT_LAB, app_on, open_lab
from tests.screens.lab.test_lab_screen import degraded_lab  # noqa: F401  (a fixture)
from tests.screens.lab.test_lab_screen import settle as settle_lab
from tests.screens.tuning.test_tuning_screen import highlight, make_app, settle, tuning_root
from tests.app.ui_thread_io import watching


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


async def test_the_tuning_screen_reads_and_writes_only_in_workers(tmp_path: Path):
    root = tuning_root(tmp_path)
    session = TuningSession(root, ActionLog(tmp_path / "state" / "actions.log"), privileged=True)
    session.set("raid", "speed_limit_min", "30000")
    app = make_app(root)
    snapshot = Sampler(root, clock=lambda: 1_600_000_000.0).sample()  # the test's own read, before watching
    with watching(tmp_path) as seen:
        async with app.run_test(size=(120, 40)) as pilot:
            app.apply_snapshot(snapshot)
            screen = TuningScreen(session=session, device="sda")
            app.push_screen(screen)
            await settle(pilot)
            targets = screen.query_one("#tuning-targets", TextTable)
            targets.focus()
            await pilot.press("down", "down")
            await settle(pilot)
            targets.move_cursor_to_key("sda")
            await settle(pilot)
            await highlight(pilot, screen, "read_ahead_kb")
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ChangeDialog)
            await pilot.press("backspace", *"512")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            await settle(pilot)
            await pilot.press("L")
            await settle(pilot)
            assert isinstance(app.screen, ChangeLogScreen)
            await pilot.press("escape")
            await pilot.press("g")
            await settle(pilot)
            assert isinstance(app.screen, PersistDialog)
            await pilot.press("escape")
            await pilot.press("u")
            await settle(pilot)
            await pilot.press("n")
            await settle(pilot)
    callers = sorted({caller for _event, _path, caller in seen})
    assert callers == [], "\n".join(callers)
    # The change went through (and the declined undo did not): the flow really ran.
    assert (root / "sys/block/sda/queue/read_ahead_kb").read_text().strip() == "512"


async def test_the_lab_screen_reads_only_in_workers(degraded_lab, tmp_path: Path):  # noqa: F811
    app = app_on(degraded_lab.root.path)
    with watching(tmp_path, SNAPSHOT_LAB) as seen:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
            screen.query_one("#lab-level").value = "raid1"
            screen.query_one("#lab-disks").value = "2"
            screen.query_one("#lab-size").value = "32M"
            await pilot.press("n")
            await settle_lab(pilot)
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("n")
            await settle_lab(pilot)
    callers = sorted({caller for _event, _path, caller in seen})
    assert callers == [], "\n".join(callers)


async def test_the_dashboard_and_the_screens_it_opens_read_only_in_workers(tmp_path: Path):
    root = tmp_path / "root"
    shutil.copytree(DATA / "root1", root, symlinks=True)
    snapshot = Sampler(root, clock=lambda: 1_600_000_000.0).sample()
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    with watching(tmp_path) as seen:
        async with app.run_test(size=(120, 40)) as pilot:
            app.apply_snapshot(snapshot)
            await settle(pilot)
            for keys in (
                ("tab", "s", "a"),
                ("e", "escape"),
                ("d", "escape"),
                ("x", "escape"),
                ("n", "escape"),
                ("t",),
                ("escape",),
                ("b",),
                ("escape",),
                ("R",),
                ("R",),
            ):
                await pilot.press(*keys)
                await settle(pilot)
    callers = sorted({caller for _event, _path, caller in seen})
    assert callers == [], "\n".join(callers)


async def test_the_benchmarks_screen_reads_and_stores_only_in_workers(tmp_path: Path):
    bench = Bench(tmp_path)
    bench.remember(bench.target)
    store_comparison(bench.history)
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    with watching(tmp_path) as seen:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_screen(app, pilot, bench.screen())
            await pilot.press("3")
            await wait_for_screen(pilot, ConfirmDialog)
            await pilot.press("n")
            await settle(pilot)
            table = screen.query_one("#bench-table", TextTable)
            table.focus()
            table.move_cursor_to_key(table.rows[0].key)
            await pilot.press("m", "down", "h")
            await settle(pilot)
    callers = sorted({caller for _event, _path, caller in seen})
    assert callers == [], "\n".join(callers)
