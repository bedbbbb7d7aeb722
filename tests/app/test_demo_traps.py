"""The demo's traps, each reproduced as a teacher met it, then shown gone.

B used to spoil the README's own flow (B then f failed the bad disk itself,
so no banner); a member SMART calls failing left its array's row looking
whole; z left no mark in the timeline; Esc out of md9's grid put the cursor
on md6; the "1TB" disks read 1.0G. The demo clock is the test's (no sleeping).
"""

from __future__ import annotations

import pytest

from raidtop.screens.events import EventsScreen
from raidtop.widgets.text_table import TextTable
from tests.app.test_demo_stage import DemoClock, demo_app, grid_focused, md9, run_for


def array_rows(app) -> dict[str, tuple[str, ...]]:
    return {row.key: row.cells for row in app.screen.query_one("#array-table", TextTable).rows}


async def test_b_then_f_as_the_readme_says_raises_the_rebuild_risk_banner():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_for(app, pilot, clock, 2)
        grid = await grid_focused(app, pilot)
        assert app.focused is grid  # the demo starts in md9's grid, on its first member
        highlighted = grid.cursor_key.split("/")[1]
        await pilot.press("B")
        await run_for(app, pilot, clock, 1)
        bad = {name for name, health in app.live.latest.smart.items() if health.verdict == "failing"}
        assert len(bad) == 1 and highlighted not in bad  # never the disk the next key fails
        await pilot.press("f")
        await run_for(app, pilot, clock, 2)
        assert md9(app).health == "degraded"
        risks = [r for r in app.live.latest.rebuild_risks if r.array == "md9"]
        assert risks and {s.disk for s in risks[0].survivors} & bad
        banner = app.screen.query_one("#risk-banner")
        assert banner.display and bad.pop() in " ".join(banner.lines)


async def test_b_with_no_member_highlighted_still_spares_the_story_and_says_what_next():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_for(app, pilot, clock, 2)
        await grid_focused(app, pilot)
        await pilot.press("escape")  # out of the grid: no member under the cursor
        await pilot.press("B")
        await run_for(app, pilot, clock, 1)
        said = [n.message for n in app._notifications]
        assert any("pending sectors" in m and "Now fail another member of md9" in m for m in said), said


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
async def test_a_member_smart_calls_failing_marks_its_array_row_though_md_says_clean(size):
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=size) as pilot:
        await run_for(app, pilot, clock, 2)
        await grid_focused(app, pilot)
        await pilot.press("B")
        await run_for(app, pilot, clock, 1)
        cells = array_rows(app)["md9"]
        # md's truth stays as md says it ...
        assert "clean" in cells and "[UUU]" in cells
        # ... and the row carries raidtop's judgement: the alert mark and, in its Notes, the failing member,
        # named whole where the column is narrow (not "loop21 S…"), the whole note on the row's Explain.
        assert cells[0] == "! md9"
        assert cells[-1] in (" loop21 SMART FAIL", " loop21 …"), cells
        await pilot.press("escape", "x")
        assert "Notes: loop21 SMART FAIL." in app.screen.explanation.caveats


async def test_z_leaves_a_reset_mark_above_the_run_before_it_in_the_timeline():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_for(app, pilot, clock, 2)
        await grid_focused(app, pilot)
        await pilot.press("f")
        await run_for(app, pilot, clock, 2)
        await pilot.press("z")
        await run_for(app, pilot, clock, 2)
        events = [(e.array, e.event) for e in app.live.history.events_of()]
        # The run before stays (a class may look back at it), then the mark, then nothing of the old run.
        assert ("md9", "Fail") in events and ("md9", "DemoReset") in events
        assert events.index(("md9", "Fail")) < events.index(("md9", "DemoReset"))
        assert md9(app).health == "ok"
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EventsScreen)
        top = app.screen.query_one("#events-table", TextTable).rows[0]  # newest first
        assert top.cells[2] == "DemoReset" and top.cells[4] == "the events before it are the run before"


async def test_esc_out_of_md9s_grid_puts_the_cursor_on_md9_so_x_explains_md9():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_for(app, pilot, clock, 2)
        assert list(array_rows(app))[0] == "md6"  # md6 above md9: the cursor used to land there
        assert app.focused is await grid_focused(app, pilot)
        await pilot.press("escape")
        table = app.screen.query_one("#array-table", TextTable)
        assert app.focused is table and table.cursor_key == "md9"
        assert app.screen.highlight().array == "md9"


def test_the_demo_disks_are_as_large_as_their_model_name_and_the_array_say():
    from raidtop.demo.simulator import SimulatedArray
    from raidtop.demo.smart import DemoSmart

    sim = SimulatedArray()
    sim.settle()
    readings, _ = DemoSmart(sim).reading()
    for health in readings.values():
        assert health.capacity_bytes == sim.component_kib * 1024 == 1024**3
        assert "1GiB" in health.model and "TB" not in health.model
