"""The Disks panel on a machine with 500 devices: only the rows on screen are made (issue 14).

The devices come from a fixture root tree sampled by the real Sampler; the
count of ``disk_row`` calls is what shows the panel's work follows the
screen, not the machine.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.config import Config
from raidtop.model.disk_columns import DiskRows
from raidtop.model.snapshot import Snapshot
from raidtop.widgets import disks_panel
from raidtop.widgets.disks_panel import SORTABLE, DiskOrder, DiskView
from raidtop.widgets.text_table import TextTable

from tests.conftest import DATA, two_root_snapshot

DEVICES = 500


def write_root(root: Path, tick: int, uptime: float) -> Path:
    """/proc/uptime and /proc/diskstats of ``DEVICES`` NVMe namespaces, advanced to ``tick``.

    Reads grow with the device number modulo 7 (so many devices tie and the
    stable order among equal rates matters), and the busiest device changes
    with the tick: nvme(3·tick) does 5000 extra reads in that tick, so a sort
    by r/s reorders.
    """
    (root / "proc").mkdir(parents=True, exist_ok=True)
    (root / "proc" / "uptime").write_text(f"{uptime:.2f} 0.00\n")
    lines = []
    for n in range(DEVICES):
        reads = 1000 + tick * (n % 7) * 10 + (5000 if n % 3 == 0 and 0 < n // 3 <= tick else 0)
        sectors = reads * 8
        lines.append(
            f"259 {n} nvme{n}n1 {reads} 0 {sectors} {reads} 500 0 4000 500 0 {reads + 500} {reads + 500} 0 0 0 0 0 0"
        )
    (root / "proc" / "diskstats").write_text("\n".join(lines) + "\n")
    return root


def snapshots(tmp_path: Path, ticks: int) -> list[Snapshot]:
    """One since-boot snapshot, then one per tick, 1 s apart."""
    sampler = Sampler(write_root(tmp_path / "t0", 0, 100.0), clock=lambda: 1_600_000_000.0)
    result = [sampler.sample()]
    for tick in range(1, ticks + 1):
        sampler.root = Root(write_root(tmp_path / f"t{tick}", tick, 100.0 + tick))
        result.append(sampler.sample())
    return result


@pytest.fixture
def made(monkeypatch) -> list[str]:
    """The names of the devices ``disk_row`` was called for."""
    calls: list[str] = []
    original = disks_panel.disk_row

    def counting(disk, history, health=None):
        calls.append(disk.name)
        return original(disk, history, health)

    monkeypatch.setattr(disks_panel, "disk_row", counting)
    return calls


def shown_names(table: TextTable) -> list[str]:
    """The device names on the table's screen lines, top to bottom (what the user sees)."""
    names = []
    for y in range(1, table.size.height):
        text = table.render_line(y).text.strip()
        if text:
            names.append(text.split()[0])
    return names


def config() -> Config:
    return Config(root=DATA / "root1", autostart_sampler=False)


async def test_only_the_rows_on_screen_are_made(tmp_path, made):
    snaps = snapshots(tmp_path, 3)
    app = RaidtopApp(config())
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps:
            app.apply_snapshot(snap)
            await pilot.pause()
        table = app.screen.query_one("#disk-table", TextTable)
        lines = table.size.height
        assert table.row_count == DEVICES
        # Four snapshots of 500 devices: at most the lines on screen, each time.
        assert 0 < len(made) <= 4 * lines
        assert set(made) <= {f"nvme{n}n1" for n in range(lines)}
        assert shown_names(table)[:3] == ["nvme0n1", "nvme1n1", "nvme2n1"]

        made.clear()
        table.focus()
        await pilot.press("end")
        await pilot.pause()
        assert shown_names(table)[-1] == "nvme499n1"
        assert table.cursor_key == "nvme499n1"
        assert len(made) <= lines
        assert {"nvme499n1", "nvme498n1"} <= set(made)
        assert "nvme250n1" not in made


async def test_the_dashboard_makes_row_objects_only_for_the_lines_on_screen(tmp_path):
    """The sampler hands over columns; history, order and the arrays panel read them without making rows."""
    snaps = snapshots(tmp_path, 3)
    app = RaidtopApp(config())
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps:
            assert isinstance(snap.disks, DiskRows) and snap.disks.made_count == 0
            app.apply_snapshot(snap)
            await pilot.pause()
            lines = app.screen.query_one("#disk-table", TextTable).size.height
            assert 0 < snap.disks.made_count <= lines
        panel = app.screen.query_one(disks_panel.DisksPanel)
        panel.sort_by("r_s")
        await pilot.pause()
        assert snaps[-1].disks.made_count <= 2 * lines


async def test_sorting_and_filtering_show_the_right_rows(tmp_path, made):
    snaps = snapshots(tmp_path, 2)
    app = RaidtopApp(config())
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps:
            app.apply_snapshot(snap)
        await pilot.pause()
        panel = app.screen.query_one(disks_panel.DisksPanel)
        table = app.screen.query_one("#disk-table", TextTable)
        made.clear()
        panel.sort_by("r_s")
        await pilot.pause()
        expected, _ = legacy_visible_disks(snaps[-1].disks, panel.view)
        assert shown_names(table) == [d.name for d in expected][: len(shown_names(table))]
        assert shown_names(table)[0] == "nvme6n1"  # the extra reads of tick 2
        assert len(made) <= table.size.height

        panel.set_view(DiskView(filter="nvme49"))
        await pilot.pause()
        assert shown_names(table) == ["nvme49n1", *(f"nvme{n}n1" for n in range(490, 500))]
        assert table.row_count == 11


async def test_the_cursor_stays_on_its_device_when_the_order_changes(tmp_path):
    snaps = snapshots(tmp_path, 3)
    app = RaidtopApp(config())
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps[:3]:
            app.apply_snapshot(snap)
        panel = app.screen.query_one(disks_panel.DisksPanel)
        table = app.screen.query_one("#disk-table", TextTable)
        panel.sort_by("r_s")
        await pilot.pause()
        table.move_cursor_to_key("nvme13n1")
        before = table.cursor_row
        app.apply_snapshot(snaps[3])  # nvme9n1 becomes the busiest: nvme13n1 moves down one
        await pilot.pause()
        assert table.cursor_key == "nvme13n1"
        assert table.cursor_row == before + 1
        assert shown_names(table)[0] == "nvme9n1"


# ------------------------------------------------------- the order is the order it always was


def legacy_natural(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def legacy_visible_disks(disks, view: DiskView):
    """visible_disks as it was before issue 14 (commit b491ea2), kept as the reference."""
    shown = []
    needle = view.filter.lower()
    hidden = 0
    for disk in disks:
        if not view.show_all and (disk.is_partition or (disk.kind in {"loop", "ram", "zram"} and not disk.ever_used)):
            hidden += 1
            continue
        if needle and not any(needle in (v or "").lower() for v in (disk.name, disk.model, disk.serial, disk.by_id)):
            hidden += 1
            continue
        shown.append(disk)
    key = view.sort_key
    if key == "name":
        shown.sort(key=lambda d: legacy_natural(d.name), reverse=view.reverse)
    else:
        known = [d for d in shown if getattr(d, key) is not None]
        unknown = [d for d in shown if getattr(d, key) is None]
        known.sort(key=lambda d: getattr(d, key), reverse=not view.reverse)
        shown = known + sorted(unknown, key=lambda d: legacy_natural(d.name))
    return shown, hidden


def test_every_sort_gives_the_order_it_gave_before(tmp_path):
    cases = [*snapshots(tmp_path, 2), two_root_snapshot()]
    order = DiskOrder()  # one instance across views and snapshots: its memory must not leak between them
    for snap in cases:
        for key in SORTABLE:
            for reverse in (False, True):
                for show_all, needle in ((False, ""), (True, ""), (False, "sd"), (True, "1")):
                    view = DiskView(sort_key=key, reverse=reverse, filter=needle, show_all=show_all)
                    got, hidden = order(snap.disks, view)
                    want, want_hidden = legacy_visible_disks(snap.disks, view)
                    assert [d.name for d in got] == [d.name for d in want], view
                    assert hidden == want_hidden
