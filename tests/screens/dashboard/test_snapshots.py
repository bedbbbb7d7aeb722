"""SVG snapshot tests of key screens on fixed data (pytest-textual-snapshot)."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config

from tests.conftest import DATA, two_root_snapshot


def _dashboard_app() -> RaidtopApp:
    return RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))


async def _feed(pilot) -> None:
    pilot.app.apply_snapshot(two_root_snapshot())
    await pilot.pause()


def test_dashboard_120x40(snap_compare):
    assert snap_compare(_dashboard_app(), terminal_size=(120, 40), run_before=_feed)


def test_dashboard_80x24_folds_into_tabs(snap_compare):
    assert snap_compare(_dashboard_app(), terminal_size=(80, 24), run_before=_feed)


def test_help_screen(snap_compare):
    async def open_help(pilot) -> None:
        await _feed(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(_dashboard_app(), terminal_size=(120, 40), run_before=open_help)
