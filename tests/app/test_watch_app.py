"""Issue 29: ``raidtop watch`` shows each array's state and rebuild progress as the Arrays panel does, live."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from raidtop.app.messages import SnapshotReady
from raidtop.app.watch_app import NO_MD, WatchApp
from raidtop.config import Config
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import TextTable

MDSTAT = Path(__file__).resolve().parents[1] / "data" / "md" / "mdstat"
REBUILDING = "nicolargo-pymdstat__mdstat.05"
"""md127 raid5 recovering onto its sixth disk: 12.6 %, speed=33440K/sec, finish=127.5min."""
RECORDING = Path(__file__).resolve().parents[2] / "raidtop" / "demo" / "data" / "rebuild.xz"


def rebuilding_root(tmp_path: Path) -> Path:
    (tmp_path / "proc").mkdir(parents=True)
    shutil.copy(MDSTAT / REBUILDING, tmp_path / "proc" / "mdstat")
    return tmp_path


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # a bounded wait for the sampler worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


def cells(app: WatchApp) -> dict[str, dict[str, str]]:
    table = app.query_one("#watch-arrays", TextTable)
    return {row.key: {c.key: text for c, text in zip(table.columns, row.cells)} for row in table.rows}


async def test_watch_shows_the_rebuild_as_the_arrays_panel_does(tmp_path):
    app = WatchApp(Config(root=rebuilding_root(tmp_path), interval=0.2, smart_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: bool(app.query_one("#watch-arrays", TextTable).rows))
        row = cells(app)["md127"]
        assert row["name"] == "! md127"  # the standing degraded alert
        assert row["state"] == "~ recovering"
        assert row["status"] == "[UUUUU_]"
        assert re.fullmatch(r" █[▏▎▍▌▋▊▉]?·+ +12\.\d%", row["progress"]), row["progress"]  # mdstat: 12.6%
        assert row["speed"] == "32.7MiB/s"  # md's own figure on the first sample: 33440K/sec
        assert row["eta"] == "2h07m"  # finish=127.5min
        assert "marks" not in row  # the notes have lines of their own, never cut
        notes = str(app.query_one("#watch-notes", PlainStatic).content)
        assert notes.startswith("md127: degraded")
        title = str(app.query_one("#watch-title", PlainStatic).content)
        assert title.startswith("raidtop watch · root ") and "q quits" in title
        # Every column fits 80 cells: nothing of the rebuild is pushed off the line.
        assert sum(c.width for c in app.query_one("#watch-arrays", TextTable).columns) <= 80
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_watch_follows_each_sample(tmp_path):
    root = rebuilding_root(tmp_path)
    app = WatchApp(Config(root=root, interval=0.1, smart_interval=0))
    async with app.run_test(size=(100, 10)) as pilot:
        await _wait(pilot, lambda: "md127" in cells(app))
        mdstat = (root / "proc" / "mdstat").read_text()
        half = mdstat.replace("12.6% (37043392/", "50.0% (146472576/")
        assert half != mdstat
        (root / "proc" / "mdstat").write_text(half)
        await _wait(pilot, lambda: "50.0%" in cells(app)["md127"]["progress"])
        assert "50.0%" in cells(app)["md127"]["progress"]


async def test_without_md_it_says_so_and_ends_cleanly(tmp_path, capsys):
    (tmp_path / "proc").mkdir()
    app = WatchApp(Config(root=tmp_path, interval=0.1, smart_interval=0), md_loaded=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: not app.is_running)
    assert app.return_code == 0
    said = " ".join(capsys.readouterr().err.split())
    assert f"raidtop watch: {NO_MD}" in said


async def test_md_loaded_without_arrays_keeps_watching(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "mdstat").write_text("Personalities : [raid1]\nunused devices: <none>\n")
    app = WatchApp(Config(root=tmp_path, interval=0.1, smart_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        await pilot.pause(0.3)
        assert app.is_running
        assert "watching for one to appear" in app.query_one("#watch-arrays", TextTable).placeholder


async def test_watch_plays_a_recording(tmp_path):
    app = WatchApp(Config(replay=RECORDING))
    async with app.run_test(size=(100, 24)) as pilot:
        await _wait(pilot, lambda: bool(cells(app)))
        assert cells(app)["md6"]["status"] == "[UUU]"  # the recording starts before the failure
        assert "replay of" in str(app.query_one("#watch-title", PlainStatic).content)
        assert app._player is not None
        app._player.position.speed = 60.0  # the recorded minute in a second
        await _wait(pilot, lambda: cells(app)["md6"]["state"] == "~ recovering")
        row = cells(app)["md6"]
        assert row["state"] == "~ recovering" and row["status"] == "[U_U]" and "%" in row["progress"]


async def test_a_snapshot_that_lands_after_the_rows_are_gone_is_dropped(tmp_path):
    # At shutdown Textual removes the widgets while a replay at speed may still have a snapshot queued:
    # handling it raised NoMatches and ended the run with a traceback (seen on a fresh clone's CI run).
    app = WatchApp(Config(replay=RECORDING))
    async with app.run_test(size=(100, 24)) as pilot:
        await _wait(pilot, lambda: bool(cells(app)))
        snapshot = app.live.latest
        await app.query_one("#watch-arrays", TextTable).remove()
        app.post_message(SnapshotReady(snapshot))
        await pilot.pause(0.2)
        assert app.is_running and app.return_code is None


async def test_degraded_arrays_come_first_and_the_title_counts_them(tmp_path):
    # node_exporter's fixture: 18 arrays, md6 and md7 degraded among healthy ones before and after them.
    (tmp_path / "proc").mkdir(parents=True)
    shutil.copy(MDSTAT / "prometheus-node_exporter__proc_mdstat", tmp_path / "proc" / "mdstat")
    app = WatchApp(Config(root=tmp_path, interval=0.2, smart_interval=0))
    async with app.run_test(size=(100, 12)) as pilot:
        await _wait(pilot, lambda: bool(app.query_one("#watch-arrays", TextTable).rows))
        keys = [row.key for row in app.query_one("#watch-arrays", TextTable).rows]
        degraded = {k for k in keys if cells(app)[k]["name"].startswith("!")}
        assert {"md6", "md7"} <= degraded
        assert set(keys[: len(degraded)]) == degraded  # a short terminal cuts healthy arrays, never these
        title = str(app.query_one("#watch-title", PlainStatic).content)
        assert f"{len(keys)} arrays, {len(degraded)} degraded" in title
        await pilot.press("q")
