"""What the dashboard sends to the terminal follows change: nothing for unchanged data, only changed cells otherwise.

Counted, not timed: every ``Widget.refresh`` call while snapshots with
identical data arrive (each one new objects, as the sampler makes them), and
the regions a table marks dirty when one number changes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from textual.geometry import Region
from textual.widget import Widget

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.widgets.disks_panel import SPARK_WIDTH
from raidtop.widgets.text_table import TextTable

from tests.conftest import DATA, two_root_snapshot

TICKS = 6


@pytest.fixture
def refreshes(monkeypatch) -> Counter:
    """Widget id (or class) -> refresh calls, and the regions each asked for."""
    counts: Counter = Counter()
    original = Widget.refresh

    def counting(self, *regions, **kwargs):
        counts[self.id or type(self).__name__] += 1
        counts.setdefault("regions", []).append((self.id, regions))  # type: ignore[arg-type]
        return original(self, *regions, **kwargs)

    monkeypatch.setattr(Widget, "refresh", counting)
    return counts


async def test_identical_data_repaints_nothing(refreshes: Counter) -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        # Long enough for every sparkline to fill its width: from then on its column does not move.
        for _ in range(SPARK_WIDTH + 2):
            app.apply_snapshot(two_root_snapshot())
            await pilot.pause()
        await pilot.pause()
        refreshes.clear()
        for _ in range(TICKS):
            app.apply_snapshot(two_root_snapshot())  # new objects, the same numbers and time
            await pilot.pause()
        assert not refreshes, dict(refreshes)


async def test_one_changed_number_marks_only_its_cell(refreshes: Counter) -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        snap = two_root_snapshot()
        for _ in range(SPARK_WIDTH + 2):
            app.apply_snapshot(snap)
            await pilot.pause()
        refreshes.clear()
        cpus = list(snap.cpus)
        cpus[1] = replace(cpus[1], idle=(cpus[1].idle or 0.0) + 1.0)
        app.apply_snapshot(replace(snap, cpus=tuple(cpus)))
        await pilot.pause()
        table = app.screen.query_one("#cpu-table", TextTable)
        marked = [regions for widget, regions in refreshes["regions"] if widget == "cpu-table"]
        assert marked == [(Region(sum(table.column_widths[:-1]), 2, table.column_widths[-1], 1),)]
        assert {w for w, _ in refreshes["regions"]} == {"cpu-table"}  # the rest of the screen stays


async def test_the_next_second_repaints_only_the_clock_digits_that_moved(refreshes: Counter) -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        snap = two_root_snapshot()
        for _ in range(SPARK_WIDTH + 2):
            app.apply_snapshot(snap)
            await pilot.pause()
        line = app.screen.query_one("#status").render_line(0).text
        refreshes.clear()
        app.apply_snapshot(replace(snap, time=snap.time + 1))  # 12:26:40 -> 12:26:41 (UTC in tests)
        await pilot.pause()
        marked = [regions for widget, regions in refreshes["regions"] if widget == "status"]
        assert len(marked) == 1 and len(marked[0]) == 1
        region = marked[0][0]
        assert region.width == 1 and region.height == 1
        after = app.screen.query_one("#status").render_line(0).text
        assert line[region.x] != after[region.x] and line[: region.x] == after[: region.x]
        assert {w for w, _ in refreshes["regions"]} == {"status"}
