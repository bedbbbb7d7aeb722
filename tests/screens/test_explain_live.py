"""Explain follows the live samples and says which sample its figures are from (issue 23)."""

from __future__ import annotations

from dataclasses import replace

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray, MdSync
from raidtop.screens.explain import ExplainScreen
from raidtop.widgets.text_table import TextTable


def rebuild(time: float, percent: float) -> Snapshot:
    sync = MdSync("recover", percent, int(percent * 100), 10_000, 1000, 60.0, 58.0, "raidtop", 1000.0)
    array = MdArray("md0", "raid1", "active", "degraded", 2, 1, sync=sync, degraded_since=1_700_000_000.0)
    return Snapshot(time=time, interval_s=1.0, arrays=(array,))


async def test_explain_updates_live_and_names_its_sample(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(rebuild(1_700_000_000.0, 9.6))
        await pilot.pause()
        app.screen.query_one("#array-table", TextTable).focus()
        await pilot.press("x")
        assert isinstance(app.screen, ExplainScreen)
        rows = lambda: {r.key: r.cells for r in app.screen.query_one("#explain-table", TextTable).rows}  # noqa: E731
        assert rows()["progress"][-1] == "9.6%"
        assert "figures of 22:13:20, live" in app.screen._title()
        assert any(str(c.render()).startswith("Notes: degraded 0s") for c in app.screen.query(".explain-caveat"))
        app.apply_snapshot(rebuild(1_700_000_005.0, 12.5))
        await pilot.pause()
        assert rows()["progress"][-1] == "12.5%"
        assert "figures of 22:13:25, live" in app.screen._title()
        # The caveats are the shown figures' too: the array's notes age with them.
        caveats = [str(c.render()) for c in app.screen.query(".explain-caveat")]
        assert any(c.startswith("Notes: degraded 5s") for c in caveats), caveats
        # The array goes away: the last figures stay, and the title says so.
        app.apply_snapshot(replace(rebuild(1_700_000_006.0, 12.5), arrays=()))
        await pilot.pause()
        assert rows()["progress"][-1] == "12.5%"
        assert app.screen._title().endswith("figures of 22:13:25; the row is gone")


async def test_at_80x24_the_title_naming_the_sample_stays_in_view():
    # A disk's 28 lines are taller than the dialog at 80x24: focusing the table scrolled the dialog
    # to it, one line down, and the title (whose figures, from which sample) went out of view.
    from raidtop.config import Config

    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(400):  # bounded wait for the sampler worker and the grid, not a timing assertion
            if app.focused is not None and app.focused.id == "member-table" and app.live.latest is not None:
                break
            await pilot.pause(0.05)
        assert app.focused is not None and app.focused.id == "member-table"
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExplainScreen)
        title = app.screen.query_one("#explain-title")
        frame = title.parent
        assert frame.max_scroll_y > 0  # the dialog does scroll at this size
        assert frame.scroll_y == 0, frame.scroll_y
        assert app.screen.focused is app.screen.query_one("#explain-table", TextTable)
