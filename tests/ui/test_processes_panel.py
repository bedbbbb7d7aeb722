"""The Processes panel in the demo: hidden until ``o``, then who loads the array (issue 26)."""

from __future__ import annotations

from raidtop.app import RaidtopApp
from raidtop.config import Config
from raidtop.widgets.processes_panel import ProcessesPanel
from raidtop.widgets.text_table import TextTable


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # bounded wait for the sampler worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


def _rows(app):
    return app.screen.query_one("#process-table", TextTable).rows


async def test_hidden_panel_reads_no_processes_and_o_shows_who_loads_md9():
    app = RaidtopApp(Config(demo=True, interval=0.3))
    async with app.run_test(size=(140, 44)) as pilot:
        await _wait(pilot, lambda: app.dashboard.last_snapshot is not None)
        panel = app.dashboard.query_one(ProcessesPanel)
        assert not panel.display and app.dashboard.last_snapshot.io is None  # hidden: /proc not walked
        sim = app.demo.sim
        failed = sim.members[0].name
        sim.fail(failed)
        sim.remove(failed)
        sim.add()
        await pilot.press("o")
        assert panel.display
        await _wait(pilot, lambda: any(r.cells[0].strip() == "1412" and "M" in r.cells[3] for r in _rows(app)))
        rows = {r.cells[0].strip(): r.cells for r in _rows(app)}
        assert rows["1412"][6].strip() == "postgresql.service" and rows["1412"][1].strip() == "postgres"
        # md's threads pinned on top with their job.
        first = [r.cells[7].strip() for r in _rows(app)[:2]]
        assert any(c.startswith("md9_resync · rebuild (recovery) of md9") for c in first), first
        await _wait(pilot, lambda: "md9:" in str(panel.query_one("#process-loading").content))
        line = str(panel.query_one("#process-loading").content)
        assert "% of writes from" in line and "md9_resync (root cgroup)" in line and "postgresql.service" in line
        assert panel.border_subtitle is not None and "per device · cgroup v2 io.stat" in str(panel.border_subtitle)
        await pilot.press("o")
        assert not panel.display
        await _wait(pilot, lambda: app.dashboard.last_snapshot.io is None)
        assert app.dashboard.last_snapshot.io is None
