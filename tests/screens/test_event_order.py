"""Issue 23: the event timeline (e) and the array detail's events open on the newest event, at the top."""

from __future__ import annotations

from dataclasses import replace

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.model.md import MdEvent
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.screens.events import EventsScreen
from raidtop.widgets.text_table import TextTable

from tests.conftest import DATA


def rebuild():
    """The screenshots' raid5: a member fails, is removed, a new one rebuilds (Fail … Rebuild20)."""
    from screenshots.make_screenshots import rebuilding_snapshots

    return rebuilding_snapshots()


def shown_events(table: TextTable) -> list[str]:
    """The Event column top to bottom, as painted (the first rows on screen)."""
    at = [c.key for c in table.columns].index("event")
    return [row.cells[at] for row in table.rows]


def with_event(snap, event: MdEvent):
    """The next sample: ``snap`` again, one second on, with ``event`` its only new event."""
    return replace(snap, time=event.time, events=(event,))


async def test_the_timeline_opens_on_the_newest_event_and_follows_new_ones():
    snaps = rebuild()
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps:
            app.apply_snapshot(snap)
        await pilot.pause()
        history = app.live.history.events_of()
        assert len(history) >= 3, "the rebuild raises several events"
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EventsScreen)
        table = app.screen.query_one("#events-table", TextTable)
        assert shown_events(table) == [e.event for e in reversed(history)]
        assert table.cursor_row == 0 and table.scroll_offset.y == 0
        # What is on screen: the header, then the newest event on the first painted line.
        first = "".join(segment.text for segment in table.render_line(1))
        assert history[-1].event in first
        # A new event while the timeline is open arrives at the top, highlighted.
        last = snaps[-1]
        new = MdEvent(last.time + 1, "md0", "SpareActive", member="loop24")
        app.apply_snapshot(with_event(last, new))
        await pilot.pause()
        assert shown_events(table)[0] == "SpareActive" and table.cursor_row == 0
        # A reader who moved down to an older event stays on it when another arrives.
        await pilot.press("down", "down")
        watched = table.cursor_key
        app.apply_snapshot(with_event(last, MdEvent(last.time + 2, "md0", "RebuildFinished")))
        await pilot.pause()
        assert shown_events(table)[0] == "RebuildFinished"
        assert table.cursor_key == watched and table.cursor_row == 3


async def test_the_array_detail_lists_its_events_newest_first():
    snaps = rebuild()
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps:
            app.apply_snapshot(snap)
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ArrayDetailScreen)
        table = app.screen.query_one("#detail-events", TextTable)
        history = app.live.history.events_of("md0")
        assert shown_events(table) == [e.event for e in reversed(history)]
        assert table.scroll_offset.y == 0
        times = [row.cells[0] for row in table.rows]
        assert times == sorted(times, reverse=True)
