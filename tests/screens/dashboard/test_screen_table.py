"""The dashboard's screen table: each key opens its screen on what is highlighted, and the palette runs the same."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.screens.dashboard.screen_table import SCREENS

OPENS = {
    "notes": "NotesScreen",
    "array-detail": "DashboardScreen",  # greyed out: the fixture has no md array (test_focus opens one)
    "events": "EventsScreen",
    "stack": "StackScreen",
    "audit": "AuditScreen",
}
"""Screens that open on the fixture's snapshot without touching the machine (tuning, fio and the lab would)."""


async def test_each_key_of_the_table_opens_its_screen(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.pause()
        for entry in SCREENS:
            if entry.name not in OPENS:
                continue
            await pilot.press(entry.key)
            await pilot.pause()
            assert type(app.screen).__name__ == OPENS[entry.name], entry.name
            if app.screen is not app.dashboard:
                app.pop_screen()
                await pilot.pause()
            assert app.screen is app.dashboard


async def test_explain_opens_on_a_row_and_says_when_there_is_none(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.pause()
        await pilot.press("x")  # the arrays table has focus, and the fixture has no array
        await pilot.pause()
        assert app.screen is app.dashboard
        assert any("nothing to explain here" in n.message for n in app.notices.offered)
        await pilot.press("3", "x")
        await pilot.pause()
        assert type(app.screen).__name__ == "ExplainScreen"


async def test_health_opens_on_the_highlighted_disk_and_says_what_to_highlight_otherwise(
    static_config, sample_snapshot
):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.pause()
        await pilot.press("h")  # the arrays table has focus: no disk there
        await pilot.pause()
        assert app.screen is app.dashboard
        assert any("highlight a disk" in n.message for n in app.notices.offered)
        await pilot.press("3", "h")
        await pilot.pause()
        assert type(app.screen).__name__ == "SmartScreen"


async def test_the_palette_opens_a_screen_of_the_table(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.pause()
        events = next(c for c in app.get_system_commands(app.dashboard) if c.title == "Events")
        events.callback()
        await pilot.pause()
        assert type(app.screen).__name__ == "EventsScreen"
