"""Issue 23: space follows content — panels with little to show shrink, Arrays, the member grid and Disks get the rows.

Heights are read from the laid-out screen (each panel's region, and the
painted text), never from timing.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.dashboard.rows import BottomWants, bottom_rows_wanted, share_rows
from raidtop.widgets.text_table import TextTable

from tests.conftest import DATA
from tests.hostile import terminal_bytes


def rebuild(cpus: int | None = None, sensors: bool = True):
    """The screenshots' rebuilding raid5 (4 members), optionally on a machine with ``cpus`` CPUs and no sensors."""
    from screenshots.make_screenshots import rebuilding_snapshots

    snaps = rebuilding_snapshots()
    if cpus is not None:
        snaps = [replace(s, cpus=s.cpus[: cpus + 1]) for s in snaps]  # "all" plus the first ``cpus``
    if not sensors:
        snaps = [replace(s, sensors=()) for s in snaps]
    return snaps


def painted(app) -> list[str]:
    import re

    return re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", terminal_bytes(app).decode()).splitlines()


async def open_grid(app, pilot, snaps) -> None:
    for snap in snaps:
        app.apply_snapshot(snap)
    await pilot.pause()
    await pilot.press("enter")  # the member grid of md0
    await pilot.pause()
    await pilot.pause()


def height(app, selector: str) -> int:
    return app.screen.query_one(selector).region.height


@pytest.mark.parametrize("size", [(100, 30), (120, 40), (200, 60)], ids=["100x30", "120x40", "200x60"])
async def test_the_member_grid_shows_every_member_and_idle_panels_shrink(size):
    """A 2-CPU machine with no sensors: the bottom row holds only what it shows."""
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=size) as pilot:
        await open_grid(app, pilot, rebuild(cpus=2, sensors=False))
        grid = app.screen.query_one("#member-table", TextTable)
        assert grid.row_count == 4
        # Every member row on screen, with the header: no scrolling inside the grid.
        assert grid.region.height >= grid.row_count + 1
        text = "\n".join(painted(app))
        for member in ("loop20", "loop21", "loop23", "loop24"):
            assert member in text
        # The bottom row: Memory/VM is the tallest content (12 rows with its border); CPU needs 5.
        bottom = height(app, "#bottom")
        assert bottom <= 12 + (4 if size[0] < 180 else 0), bottom  # stacked: + a readable Sensors panel
        assert height(app, "#cpu") == bottom
        # Disks takes every row the others leave, and shows at least three devices.
        room = sum(height(app, s) for s in ("#arrays", "#disks", "#bottom"))
        assert height(app, "#disks") == room - height(app, "#arrays") - bottom >= 6


async def test_at_120x40_the_member_grid_shows_all_its_columns():
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_grid(app, pilot, rebuild())
        grid = app.screen.query_one("#member-table", TextTable)
        assert sum(grid.column_widths) <= grid.scrollable_content_region.width
        assert grid.max_scroll_x == 0
        header = next(line for line in painted(app) if "Member" in line and "Slot" in line)
        for label in ("Roles", "Health", "r/s", "w/s", "rKiB/s", "wKiB/s", "r_await", "w_await", "%util", "Temp"):
            assert label in header, label
        rebuilding = next(line for line in painted(app) if "rebuilding 40 %" in line)
        assert "90.00" in rebuilding  # its %util, the column that used to be off screen


async def test_at_200x60_arrays_are_not_squeezed_by_empty_panels():
    """The issue's case: 2 CPUs, no sensors; the bottom row used to take ~37 rows, Arrays plus grid 8."""
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(200, 60)) as pilot:
        await open_grid(app, pilot, rebuild(cpus=2, sensors=False))
        lines = painted(app)
        cpu_top = next(i for i, line in enumerate(lines) if "─ CPU " in line)
        cpu_bottom = next(i for i, line in enumerate(lines) if i > cpu_top and line.startswith("╰"))
        assert cpu_bottom - cpu_top + 1 <= 12
        sensors_rows = [line for line in lines[cpu_top:cpu_bottom] if "no sensors exposed" in line]
        assert len(sensors_rows) == 1
        arrays = height(app, "#arrays")
        assert arrays >= 2 + 2 + 5  # border, header + md0, header + 4 members
        assert height(app, "#disks") > height(app, "#bottom")


async def test_many_cpus_fold_into_the_heat_grid_instead_of_taking_the_screen():
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_grid(app, pilot, rebuild())  # 9 CPUs and 16 sensors
        room = sum(height(app, s) for s in ("#arrays", "#disks", "#bottom"))
        assert height(app, "#bottom") <= max(17, int(room * 0.4))
        grid = app.screen.query_one("#member-table", TextTable)
        assert grid.region.height >= grid.row_count + 1


def test_the_bottom_row_gets_its_content_up_to_two_fifths():
    assert share_rows(57, BottomWants(13, 13)) == share_rows(57, BottomWants(13, 13))
    small = share_rows(57, BottomWants(13, 13))
    assert small.bottom == 13 and small.arrays == 57 - 13 - 6
    big = share_rows(57, BottomWants(70, 13))
    assert big.bottom == int(57 * 0.4)
    # Stacked Memory and Sensors: the floor is taken only if Arrays and Disks keep theirs.
    assert share_rows(37, BottomWants(32, 17)).bottom == 17
    assert share_rows(27, BottomWants(32, 17)).bottom == 10


def test_what_the_bottom_row_wants_comes_from_the_snapshot():
    snap = rebuild(cpus=2, sensors=False)[-1]
    side_by_side = bottom_rows_wanted(snap, side_by_side=True)
    stacked = bottom_rows_wanted(snap, side_by_side=False)
    assert side_by_side.rows == 12  # Memory/VM: border 2 + vmstat 6 + PSI header and its 3 lines
    assert stacked.rows == 12 + 2 + 1 + 1  # plus Sensors' border, header and its one "no sensors" line
