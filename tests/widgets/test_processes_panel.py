"""The Processes panel in the demo: hidden until ``6``, then who loads the array (issue 26)."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.widgets.processes_panel import ProcessesPanel
from raidtop.widgets.text_table import TextTable


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # bounded wait for the sampler worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


def _walked(app):
    """The processes of the last snapshot (none when /proc was not walked)."""
    io = app.live.latest.io
    return () if io is None else io.processes


def _rows(app):
    return app.screen.query_one("#process-table", TextTable).rows


async def test_hidden_panel_reads_no_processes_and_o_shows_who_loads_md9():
    app = RaidtopApp(Config(demo=True, interval=0.3))
    async with app.run_test(size=(140, 44)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        panel = app.dashboard.query_one(ProcessesPanel)
        assert not panel.display and _walked(app) == ()  # hidden: /proc not walked
        sim = app.demo.sim
        failed = sim.members[0].name
        sim.fail(failed)
        sim.remove(failed)
        sim.add()
        await pilot.press("6")
        assert panel.display
        await _wait(pilot, lambda: any(r.cells[0].strip() == "1412" and "M" in r.cells[3] for r in _rows(app)))
        rows = {r.cells[0].strip(): r.cells for r in _rows(app)}
        assert rows["1412"][6] == " postgresql.service" and rows["1412"][1] == " postgres"
        # md's threads pinned on top with their job, the resync first.
        first = [(r.cells[6].strip(), r.cells[7].strip()) for r in _rows(app)[:2]]
        assert first[0][0].startswith("md9 recovery ") and first[0][1] == "[md9_resync]", first
        assert first[1] == ("md9 I/O + parity", "[md9_raid5]"), first
        # The resync's bytes are its root-cgroup share of the members (/proc/PID/io counts none of md's bios).
        resync, raid = _rows(app)[0].cells, _rows(app)[1].cells
        assert resync[3].strip().endswith("MiB") and raid[2].strip() == raid[3].strip() == "—"
        await _wait(pilot, lambda: "md9:" in str(panel.query_one("#process-loading").content))
        line = str(panel.query_one("#process-loading").content)
        assert "% of writes from" in line and "md9_resync (root cgroup)" in line and "postgresql.service" in line
        assert panel.border_subtitle is not None and "per device · cgroup v2 io.stat" in str(panel.border_subtitle)
        await pilot.press("6")
        assert not panel.display
        await _wait(pilot, lambda: _walked(app) == ())
        assert _walked(app) == () and not app.live.show_processes


async def test_member_grid_detail_and_explain_say_who_loads_the_rebuilding_array():
    from raidtop.screens.array_detail import ArrayDetailScreen
    from raidtop.widgets.array_load_panel import ArrayLoadPanel
    from raidtop.widgets.arrays_panel import ArraysPanel

    app = RaidtopApp(Config(demo=True, interval=0.3))
    async with app.run_test(size=(140, 44)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        sim = app.demo.sim
        failed = sim.members[0].name
        sim.fail(failed)
        sim.remove(failed)
        sim.add()
        arrays = app.dashboard.query_one(ArraysPanel)
        await _wait(pilot, lambda: "md9" in arrays.expanded)
        # The open member grid: the cgroup tree is read (no /proc walk), and the subtitle names the load.
        # The sample after the add may predate md's resync thread: wait for the share that names it.
        await _wait(pilot, lambda: "md9_resync (root cgroup)" in str(arrays.border_subtitle))
        subtitle = str(arrays.border_subtitle)
        assert subtitle.startswith("ALERT: md9 degraded · md9: ") and "md9_resync (root cgroup)" in subtitle, subtitle
        assert app.live.latest.io.processes == ()  # the Processes panel is hidden
        await pilot.press("escape")
        app.dashboard.query_one("#array-table", TextTable).move_cursor_to_key("md9")
        await pilot.press("d")
        await _wait(pilot, lambda: isinstance(app.screen, ArrayDetailScreen))
        panel = app.screen.query_one(ArrayLoadPanel)
        await _wait(pilot, lambda: any(r.key == "/" for r in panel.query_one(TextTable).rows))
        labels = [r.cells[0].strip() for r in panel.query_one(TextTable).rows]
        assert "md9_resync (root cgroup)" in labels and "postgresql.service" in labels
        versus = str(panel.query_one("#load-versus").content)
        assert versus.startswith("recovery ") and "vs load" in versus and "postgresql.service" in versus
        await pilot.press("escape")
        await _wait(pilot, lambda: not isinstance(app.screen, ArrayDetailScreen))
        assert "detail" not in app.live.units_wanted_by

    from raidtop.presentation import explain

    snap = app.live.latest
    text = " ".join(explain.explain_array(snap, "md9").caveats)
    assert "sync_speed_min" in text and "lets the load go first" in text
