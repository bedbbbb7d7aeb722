"""Pilot tests of the Arrays panel, member grid, detail screen and md alerts."""

from __future__ import annotations

import shutil
from pathlib import Path

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.text_table import TextTable

MDSTAT = Path(__file__).resolve().parent.parent / "data" / "md" / "mdstat"


def mdstat_root(tmp_path: Path, corpus_name: str) -> Path:
    """A root holding only proc/mdstat: raidtop must still show the arrays."""
    root = tmp_path / corpus_name
    (root / "proc").mkdir(parents=True)
    shutil.copy(MDSTAT / corpus_name, root / "proc" / "mdstat")
    return root


def rows(app: RaidtopApp, table_id: str) -> dict[str, tuple[str, ...]]:
    return {r.key: r.cells for r in app.screen.query_one(f"#{table_id}", TextTable).rows}


async def test_degraded_raid5_badge_and_member_grid(tmp_path):
    # pymdstat's mdstat.03: md0 raid5 [4/3] [UUU_], sdd missing.
    root = mdstat_root(tmp_path, "nicolargo-pymdstat__mdstat.03")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await pilot.pause()
        arrays = rows(app, "array-table")
        (name, level, badge, counts, status, *_rest) = arrays["md0"]
        assert name == "! md0"  # the degraded alert stands
        assert (level, badge, counts, status) == ("raid5", "! degraded", "[4/3]", "[UUU_]")
        panel = app.screen.query_one(ArraysPanel)
        assert panel.has_class("-alert")
        assert not panel.has_class("-expanded")
        await pilot.press("enter")
        assert panel.has_class("-expanded")
        members = rows(app, "member-table")
        assert {key.split("/")[1] for key in members} == {"sda1", "sdb1", "sdd1"}
        await pilot.press("enter")
        assert not panel.has_class("-expanded")


async def test_recovering_array_shows_progress_speed_and_eta(tmp_path):
    # pymdstat's mdstat.05: recovery = 12.6% finish=127.5min speed=33440K/sec.
    root = mdstat_root(tmp_path, "nicolargo-pymdstat__mdstat.05")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await pilot.pause()
        table = app.screen.query_one("#array-table", TextTable)
        cell = dict(zip((c.key for c in table.columns), rows(app, "array-table")["md127"]))
        assert cell["state"] == "~ recovering"
        assert (cell["counts"], cell["status"]) == ("[6/5]", "[UUUUU_]")
        assert cell["progress"].endswith("12.7%") and cell["progress"].lstrip().startswith(
            "█"
        )  # 12.65 % from the counts
        assert cell["speed"] == "32.7MiB/s"  # 33440 KiB/s: md's window figure until raidtop has watched 33 s
        # From one reading raidtop's ETA leans on md's window average (no limits in a bare mdstat);
        # the kernel's finish= (127.5 min) is the detail screen's, not the row's.
        assert cell["eta"].startswith("2h0") and "finish=" not in " ".join(c.label for c in table.columns)
        assert cell["finish_at"].lstrip().startswith("≈ ")
        assert cell["marks"].strip().startswith("degraded ")  # since when it lost redundancy, on its row


async def test_detail_screen_lists_attributes(tmp_path):
    root = mdstat_root(tmp_path, "nicolargo-pymdstat__mdstat.05")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ArrayDetailScreen)
        attrs = {r.cells[0]: r.cells[1] for r in app.screen.query_one("#detail-attrs", TextTable).rows}
        assert attrs["Level"] == "raid5"
        assert attrs["Chunk"] == "64K"
        assert attrs["Layout"] == "left-symmetric"
        assert attrs["Sync"] == "recover 12.7%"  # 12.65 % from the counts; mdstat prints 12.6
        assert attrs["Kernel, instant"] == "sync_speed 32.7MiB/s · finish= 2h07m (the kernel's own)"
        assert attrs["Degraded"].endswith("counted from raidtop's start: it was already so")
        events = rows(app, "detail-events")
        assert [cells[1] for cells in events.values()] == ["DegradedArray"]
        await pilot.press("escape")
        assert not isinstance(app.screen, ArrayDetailScreen)


async def test_detail_key_does_nothing_without_arrays(tmp_path):
    root = tmp_path / "empty"
    (root / "proc").mkdir(parents=True)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await pilot.press("d")
        assert not isinstance(app.screen, ArrayDetailScreen)
        table = app.screen.query_one("#array-table", TextTable)
        assert "No md driver" in table.placeholder


async def test_event_sequence_notifies_once_each_and_clears_the_alert(tmp_path):
    from tests.collect.md.test_md_events import MDSTAT_SEQUENCE, write_root

    roots = [write_root(tmp_path / str(i), {"proc/mdstat": text}) for i, text in enumerate(MDSTAT_SEQUENCE)]
    app = RaidtopApp(Config(root=roots[0], autostart_sampler=False, bell=True))
    rings = []
    app.bell = lambda: rings.append(True)
    async with app.run_test(size=(120, 40)) as pilot:
        sampler = Sampler(roots[0], clock=iter(range(1000, 2000, 10)).__next__)
        panel = app.screen.query_one(ArraysPanel)
        alert_seen = []
        for root in roots:
            sampler.root = type(sampler.root)(root)
            app.apply_snapshot(sampler.sample())
            await pilot.pause()
            alert_seen.append(panel.has_class("-alert"))
        # Every notice raidtop raised, one per event (the toasts group them and show two at most).
        titles = [n.title.split(": ", 1)[1] for n in app.notices.offered if ": " in n.title]
        for event in ("Fail", "DegradedArray", "RebuildStarted", "RebuildFinished"):
            assert titles.count(event) == 1, titles
        assert alert_seen == [False, True, True, True, False]
        assert any("whole again" in n.message for n in app.notices.offered)
        assert len(app._notifications) <= 2
        assert rings  # Fail and DegradedArray are among the events that ring the bell
        assert [e.event for e in app.live.history.events_of("md0")].count("Fail") == 1
