"""Text from the system, a file or a recording reaches the screen as text.

A hostile --root tree (tests/hostile.py) puts escape sequences, C1
controls, bidi overrides and markup into hwmon names, a disk name, the udev
database, /proc/mdstat and a recording's host field. Each test drives the real
app to one display path and checks the bytes Textual would write to the
terminal for that screen: none of the payloads may be there, and the markup
must show literally (or crash nothing) instead of styling anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.dialogs import AskDialog
from raidtop.untrusted import REPLACEMENT, plain
from raidtop.widgets.text_table import TextTable

from tests.hostile import (
    ARRAY,
    CLEAR,
    DISK,
    HOST,
    LISTED_DISK,
    MARKUP,
    OSC_TITLE,
    build_recording,
    build_root,
    leaks,
    terminal_bytes,
    write_mdstat,
)

SIZE = (200, 60)


@pytest.fixture
def hostile_root(tmp_path: Path) -> Path:
    return build_root(tmp_path / "root")


def hostile_snapshot(root: Path):
    """Two samples of the hostile tree, so rates and md events exist."""
    times = iter([1_600_000_000.0, 1_600_000_001.0])
    sampler = Sampler(root, clock=lambda: next(times))
    sampler.sample()
    write_mdstat(root, degraded=True)
    return sampler.sample()


def screen_text(app) -> str:
    """The terminal bytes for the current screen with styling removed: what a reader sees."""
    import re

    return re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", terminal_bytes(app).decode())


def assert_clean(app, where: str) -> None:
    data = terminal_bytes(app)
    assert leaks(data) == [], f"{where}: payload bytes reached the terminal"


async def open_dashboard(app, pilot, root: Path):
    await pilot.pause()
    app.apply_snapshot(hostile_snapshot(root))
    await pilot.pause()


async def test_dashboard_panels_notes_and_toasts_show_text(hostile_root: Path):
    app = RaidtopApp(Config(root=hostile_root, autostart_sampler=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_dashboard(app, pilot, hostile_root)
        await pilot.press("a")  # every device, so the hostile disk has a row
        await pilot.pause()
        assert any(LISTED_DISK in row.key for row in app.dashboard.query_one("#disk-table", TextTable).rows)
        assert any(n.title.startswith("md_ev") for n in app.notices.offered), "the md event toast was raised"
        assert_clean(app, "dashboard")
        text = screen_text(app)
        assert REPLACEMENT in text  # something was there, and the reader can see it
        # The hostile sensor is the last line of a Sensors panel now only as tall as its
        # readings, where the toasts sit: read it once they are gone.
        app.clear_notifications()
        await pilot.pause()
        assert "[bold red]" in screen_text(app)  # the sensor label's markup shows literally
        # The members of the hostile array (Enter on the Arrays row).
        app.dashboard.query_one("#arrays").focus_table()
        await pilot.press("enter")
        await pilot.pause()
        assert_clean(app, "array members")
        await pilot.press("n")
        await pilot.pause()
        assert type(app.screen).__name__ == "NotesScreen"
        assert_clean(app, "notes screen")
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code == 0


async def test_markup_and_escapes_in_a_notification_are_shown_literally(hostile_root: Path):
    app = RaidtopApp(Config(root=hostile_root, autostart_sampler=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        shown = ""
        for payload in (*MARKUP, OSC_TITLE, CLEAR):
            # Two toasts at most are on screen: look at each pair as it comes.
            app.dashboard.notify(f"from a screen {payload}", title=payload)
            app.notify(f"cannot read {payload}", title=f"title {payload}")
            await pilot.pause()
            assert_clean(app, "toasts")
            shown += screen_text(app)
        assert "cannot read [/]" in shown and "cannot read [link=http://x]" in shown
        await pilot.press("q")
    assert app.return_code == 0


async def test_dialogs_show_hostile_text(hostile_root: Path):
    app = RaidtopApp(Config(root=hostile_root, autostart_sampler=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        app.push_screen(
            ConfirmDialog(
                f"Fail {DISK} [/]", f"mdadm --fail /dev/{ARRAY} {DISK}", "details [/]" + CLEAR, "warn " + OSC_TITLE
            )
        )
        await pilot.pause()
        assert_clean(app, "confirm dialog")
        assert "mdadm --fail" in screen_text(app)
        await pilot.press("n")
        app.push_screen(AskDialog(f"Jump {OSC_TITLE} [/]"))
        await pilot.pause()
        assert_clean(app, "ask dialog")
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code == 0


async def test_array_detail_events_and_explain_show_hostile_names(hostile_root: Path):
    app = RaidtopApp(Config(root=hostile_root, autostart_sampler=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_dashboard(app, pilot, hostile_root)
        app.dashboard.query_one("#arrays").focus_table()
        await pilot.press("d")
        await pilot.pause()
        assert type(app.screen).__name__ == "ArrayDetailScreen"
        assert_clean(app, "array detail")
        assert "md_ev" + REPLACEMENT in screen_text(app)
        await pilot.press("escape")
        await pilot.press("e")
        await pilot.pause()
        assert type(app.screen).__name__ == "EventsScreen"
        assert_clean(app, "events")
        await pilot.press("escape")
        await pilot.press("x")
        await pilot.pause()
        assert_clean(app, "explain")
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code == 0


async def test_tuning_screen_shows_a_hostile_block_device_name(hostile_root: Path):
    from raidtop.screens.tuning.screen import TuningScreen

    queue = hostile_root / "sys" / "block" / DISK / "queue"
    before = {f.name: f.read_bytes() for f in queue.iterdir()}
    app = RaidtopApp(Config(root=hostile_root, autostart_sampler=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_dashboard(app, pilot, hostile_root)
        app.push_screen(TuningScreen(device=DISK))
        await pilot.pause()
        await pilot.pause()
        assert type(app.screen).__name__ == "TuningScreen"
        assert_clean(app, "tuning")
        assert "evil" + REPLACEMENT in screen_text(app)
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code == 0
    # Showing a device changes nothing about it.
    assert {f.name: f.read_bytes() for f in queue.iterdir()} == before


async def test_replay_header_and_time_bar_show_a_hostile_host(hostile_root: Path, tmp_path: Path):
    recording = build_recording(hostile_root, tmp_path / "hostile.xz")
    app = RaidtopApp(Config(root=Path("/"), autostart_sampler=True, replay=recording))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for _ in range(20):
            await pilot.pause(0.05)
            if app.live.latest is not None:
                break
        # The recording reader already made the host plain; the status bar would too.
        assert app.dashboard.query_one("#status").host == f"replay of {plain(HOST)}"
        assert_clean(app, "replay")
        assert "[/][bold red]X" in screen_text(app)
        await pilot.press("q")
    assert app.return_code == 0


async def test_a_recording_under_a_folder_named_with_markup_opens(hostile_root: Path, tmp_path: Path):
    folder = tmp_path / "["
    folder.mkdir()
    recording = build_recording(hostile_root, folder / "r.xz")
    app = RaidtopApp(Config(root=folder, autostart_sampler=True, replay=recording))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause(0.3)
        app.notify(f"recorded 3 samples to {recording}")
        await pilot.pause()
        assert str(folder) in screen_text(app) or app.screen is app.dashboard
        await pilot.press("q")
    assert app.return_code == 0
