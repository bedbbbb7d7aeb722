"""Presenter mode (`raidtop --demo --present`, `P`): only the simulated array, what md did, one key per step.

Checked at projector sizes (100×30, 80×24): everything a class must read is
inside the screen, whole; nothing moves until the teacher presses a key.
"""

from __future__ import annotations

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.demo.controller import DemoController
from raidtop.widgets.text_table import TextTable
from tests.app.test_demo_stage import DemoClock, grid_focused, run_for, stage_bar_text


def presenter_app(clock: DemoClock, present: bool = True) -> RaidtopApp:
    demo = DemoController(clock=clock)
    return RaidtopApp(Config(demo=True, present=present, autostart_sampler=False), demo=demo)


def inside(app, selector: str) -> bool:
    widget = app.screen.query_one(selector)
    return widget.display and widget.region.height > 0 and widget.region.bottom <= app.size.height


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_present_shows_only_the_simulated_array_its_narration_and_its_steps(size):
    clock = DemoClock()
    app = presenter_app(clock)
    async with app.run_test(size=size) as pilot:
        await run_for(app, pilot, clock, 2)
        await pilot.pause()
        arrays = [row.key for row in app.screen.query_one("#array-table", TextTable).rows]
        assert arrays == ["md9"]  # the recorded md6 is not on stage
        for hidden in ("#disks", "#bottom", "KeyFooter", "#notes-bar"):
            assert app.screen.query_one(hidden).region.height == 0, hidden
        assert inside(app, "#arrays") and inside(app, "#stage-bar")
        members = await grid_focused(app, pilot)
        assert app.focused is members and len(members.rows) == 3 and inside(app, "#member-table")
        shown = stage_bar_text(app)
        assert "md9 is a whole raid5 of 3 disks" in shown and "parity" in shown
        # One key per step, as the footer would show it (no footer in this mode).
        for step in ("f Fail", "r Remove", "a Add", "B Make a disk go bad", "z Reset demo", "P Presenter", "? Help"):
            assert step in shown, (step, shown)
        assert "recorded" not in shown  # where md6 comes from is not part of this lesson


async def test_each_step_is_narrated_in_plain_words():
    clock = DemoClock()
    app = presenter_app(clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_for(app, pilot, clock, 2)
        await grid_focused(app, pilot)
        await pilot.press("f")
        await run_for(app, pilot, clock, 1)
        said = stage_bar_text(app)
        assert "faulty" in said and "degraded but still serves every read and write" in said
        assert "from parity" in said
        # The line says it: no md event pop-up covers it (the timeline keeps the events).
        assert not [n for n in app._notifications if n.title.startswith("md9:")]
        assert [e.event for e in app.live.history.events_of("md9")] == ["Fail", "DegradedArray"]
        grid = app.screen.query_one("#member-table", TextTable)
        grid.move_cursor_to_key(next(r.key for r in grid.rows if "faulty" in r.cells[3]))
        await pilot.press("r")
        await run_for(app, pilot, clock, 1)
        assert "removed" in stage_bar_text(app)
        await pilot.press("a")
        await run_for(app, pilot, clock, 1)
        assert "md is rebuilding" in stage_bar_text(app) and "parity" in stage_bar_text(app)
        await run_for(app, pilot, clock, 60)  # 1 GiB at 20 MB/s
        assert "the rebuild finished" in stage_bar_text(app)
        await pilot.press("z")
        await run_for(app, pilot, clock, 1)
        assert "the demo started over" in stage_bar_text(app)


async def test_nothing_happens_by_itself_on_stage():
    clock = DemoClock()
    app = presenter_app(clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_for(app, pilot, clock, 2)
        await grid_focused(app, pilot)  # the steps follow the focus: the grid's keys once it has it
        before = stage_bar_text(app)
        snaps = await run_for(app, pilot, clock, 90)
        assert [e for s in snaps for e in s.events] == []
        assert stage_bar_text(app) == before


async def test_p_toggles_presenter_mode_in_the_demo():
    clock = DemoClock()
    app = presenter_app(clock, present=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_for(app, pilot, clock, 2)
        table = app.screen.query_one("#array-table", TextTable)
        assert [row.key for row in table.rows] == ["md6", "md9"]
        assert "recorded on a real kernel" in stage_bar_text(app)  # where md6 comes from, at 100 columns
        await pilot.press("P")
        await pilot.pause()
        assert [row.key for row in table.rows] == ["md9"] and app.screen.has_class("-present")
        await pilot.press("P")
        await pilot.pause()
        assert [row.key for row in table.rows] == ["md6", "md9"] and not app.screen.has_class("-present")
        assert app.screen.query_one("#disks").region.height > 0


async def test_the_hidden_panels_keys_cannot_take_the_focus_off_the_stage():
    # Tab, 3 and s used to focus the hidden Disks table: the next f did nothing, unseen.
    clock = DemoClock()
    app = presenter_app(clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_for(app, pilot, clock, 2)
        grid = await grid_focused(app, pilot)
        for key in ("tab", "3", "s", "6", "shift+tab"):
            await pilot.press(key)
            await pilot.pause()
            assert app.focused in (grid, app.screen.query_one("#array-table")), key
        shown = {binding.id for _node, binding, _enabled, _tip in app.screen.active_bindings.values()}
        assert not shown & {"next-panel", "sort", "filter", "processes", "panel-disks"}
        grid.focus()
        await pilot.pause()
        await pilot.press("f")
        await run_for(app, pilot, clock, 1)
        assert next(a for a in app.live.latest.arrays if a.name == "md9").health == "degraded"


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
def test_presenter_mode_snapshot_after_b_then_f(snap_compare, size):
    # Fixed clocks (the demo's and the sampler's): the same image on any machine.
    from raidtop.presentation.judgement import judged_sampler

    clock = DemoClock()
    app = presenter_app(clock)
    app.sampling.sampler = judged_sampler(app.demo.root, clock=clock)

    async def b_then_f(pilot) -> None:
        await run_for(app, pilot, clock, 2)
        await grid_focused(app, pilot)
        for key in ("B", "f"):
            await pilot.press(key)
            await run_for(app, pilot, clock, 2)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=b_then_f)
