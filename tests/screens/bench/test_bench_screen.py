"""Pilot tests of the Benchmarks screen, and an SVG snapshot of a finished comparison.

fio is the fake in tests/fake_fio.py (fio 3 JSON, fake seconds, fast), so
these tests need neither root nor fio; tests/live/test_fio_live.py runs the
real thing. Every XDG directory points into a temporary directory.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.store import RunStore
from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.presentation.format import fmt_iops, fmt_mb
from raidtop.screens.dialogs import AskDialog, ConfirmDialog, FormDialog, SweepDialog
from raidtop.screens.bench.run_flow import BenchRun
from raidtop.screens.bench.screen import BenchScreen
from raidtop.widgets.text_table import TextTable

from tests.fake_fio import make_fake_fio
from tests.fio_samples import fio_json, md_tuning, ramp
from tests.conftest import DATA, two_root_snapshot


class Bench:
    """Paths of one test's temporary benchmark set-up."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.fio = make_fake_fio(tmp / "bin")
        self.target = tmp / "target"
        self.target.mkdir()
        self.history = RunStore(tmp / "data" / "raidtop" / "bench.sqlite")
        self.presets = tmp / "presets.toml"
        self.presets.write_text('size = "1M"\n')
        self.log = ActionLog(tmp / "state" / "actions.log")

    def screen(self, fio: str | None | bool = True) -> BenchScreen:
        return BenchScreen(
            history=self.history,
            presets_file=self.presets,
            log=self.log,
            fio_path=str(self.fio) if fio is True else fio,
        )

    def remember(self, target: str | Path, runtime_s: int = 3) -> None:
        save_prefs(BenchPrefs(str(target), runtime_s))


@pytest.fixture
def bench(tmp_path: Path, monkeypatch) -> Bench:
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    return Bench(tmp_path)


def make_app() -> RaidtopApp:
    return RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))


async def open_screen(app: RaidtopApp, pilot, screen: BenchScreen) -> BenchScreen:
    app.push_screen(screen)
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    return screen


async def wait_until(pilot, condition, timeout: float = 15.0) -> None:
    """Pause until ``condition()`` holds (fio is a real subprocess, even when fake)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not reached"
        await pilot.pause(0.05)


async def wait_for_screen(pilot, kind: type) -> None:
    """Wait until a screen of ``kind`` is on top and composed (pushing returns before compose)."""
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, kind) and pilot.app.screen.is_mounted and bool(pilot.app.screen.children),
    )
    await pilot.pause()


def table_rows(screen: BenchScreen, table_id: str) -> dict[str, tuple[str, ...]]:
    return {r.key: r.cells for r in screen.query_one(f"#{table_id}", TextTable).rows}


async def test_a_preset_key_shows_the_exact_command_then_runs_and_stores(bench: Bench):
    bench.remember(bench.target)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        assert list(table_rows(screen, "bench-presets"))[:3] == ["seq-read", "seq-write", "rand-read"]
        await pilot.press("3")
        await wait_for_screen(pilot, ConfirmDialog)
        shown = str(app.screen.query_one("#confirm-command").render())
        assert shown.startswith(
            f"{bench.fio} --name=rand-read --filename={bench.target}/raidtop-bench.d/raidtop-bench.dat --rw=randread"
        )
        assert "--runtime=3 --size=1M --group_reporting --output-format=json --status-interval=1" in shown
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.job is None and len(screen.runs) == 1)
        run = screen.runs[0]
        assert (run.preset, run.partial, run.result.read.iops) == ("rand-read", False, 2000.0)
        assert table_rows(screen, "bench-table")[str(run.id)][3:6] == ("rand-read", "", "2,000")
        logged = bench.log.read("fio")
        assert [e.command for e in logged] == [shown] and logged[0].result == "ok"


async def test_declining_the_confirmation_runs_nothing(bench: Bench):
    bench.remember(bench.target)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("enter")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.job is None
        await app.workers.wait_for_complete()
        assert bench.history.runs() == [] and bench.log.read() == []


async def test_the_live_panel_follows_fio_and_the_targets_disks(bench: Bench, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_TICK", "0.2")
    bench.remember(bench.target, runtime_s=8)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("1")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: len(screen.live_points) >= 3)
        assert screen.job is not None
        assert [round(p.read_iops) for p in screen.live_points][:3] == [1000, 2000, 3000]
        latest = screen.live_points[-1]
        k = round(latest.t_s)  # fake second k does 1000·k reads of 4 KiB at 500 µs
        assert (
            str(screen.query_one("#bench-now").render())
            == f"{k:4d} s  read {fmt_iops(1000 * k)} IOPS {fmt_mb(4.096 * k)} MB/s 500µs"
        )
        assert screen.query_one("#bench-plot-panel").border_title == "Live: seq-read"
        plot = str(screen.query_one("#bench-plot").render())
        assert "IOPS" in plot and "latency ms" in plot
        # Samples keep arriving while fio runs: the target's devices show their iostat rows.
        screen.stack_names = ["sdb"]
        app.apply_snapshot(two_root_snapshot())
        await pilot.pause()
        assert list(table_rows(screen, "bench-disks")) == ["sdb"]
        # The store is read again after the batch ends: wait for that, not only for the end.
        await wait_until(pilot, lambda: screen.job is None and len(screen.runs) == 1)
        assert not screen.runs[0].partial


async def test_cancel_stops_fio_and_keeps_a_partial_result(bench: Bench, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_TICK", "0.1")
    bench.remember(bench.target, runtime_s=120)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        assert screen.check_action("cancel_run", ()) is False
        await pilot.press("5")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: len(screen.live_points) >= 2)
        assert screen.check_action("cancel_run", ()) is True
        assert screen.check_action("run_preset", (0,)) is False
        await pilot.press("escape")  # asks while fio runs; n stays
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.job is not None
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.job is None and screen.runs)
        run = screen.runs[-1]
        assert run.partial and "cancelled" in run.message
        assert 0 < run.result.read.runtime_ms < 120_000
        assert table_rows(screen, "bench-table")[str(run.id)][0] == "~"
        assert screen.check_action("cancel_run", ()) is False


def store_comparison(history: RunStore) -> list:
    """Three rand-rw runs on a lab raid5: a baseline and two scheduler changes."""
    runs = [
        history.add(
            preset="rand-rw",
            target="/dev/md127",
            target_kind="device",
            started=1700000000,
            runtime_s=15,
            fio_json=fio_json(10000, 10000, read_p99_us=1000, write_p99_us=2000),
            tuning=md_tuning("none"),
            fio_version="fio-3.33",
            kernel="6.1.0",
            engine="libaio",
            label="scheduler=none",
            points=ramp(20000),
        ),
        history.add(
            preset="rand-rw",
            target="/dev/md127",
            target_kind="device",
            started=1700000600,
            runtime_s=15,
            fio_json=fio_json(12000, 9000, read_p99_us=900, write_p99_us=2600),
            tuning=md_tuning("mq-deadline"),
            fio_version="fio-3.33",
            kernel="6.1.0",
            engine="libaio",
            label="scheduler=mq-deadline",
            points=ramp(21000),
        ),
        history.add(
            preset="rand-rw",
            target="/dev/md127",
            target_kind="device",
            started=1700001200,
            runtime_s=15,
            fio_json=fio_json(10050, 10020, read_p99_us=1005, write_p99_us=1990),
            tuning=md_tuning("none", 4096),
            fio_version="fio-3.33",
            kernel="6.1.0",
            engine="libaio",
            label="read_ahead 4M",
            points=ramp(20070),
        ),
    ]
    history.add(
        preset="seq-read",
        target="/srv/bench",
        started=1700001800,
        runtime_s=15,
        fio_json=fio_json(900, bs=1 << 20),
        tuning=md_tuning(),
        fio_version="fio-3.33",
        kernel="6.1.0",
        engine="libaio",
        points=ramp(900),
    )
    return runs


async def test_marking_a_baseline_shows_the_comparison(bench: Bench):
    base, faster, similar = store_comparison(bench.history)
    bench.remember("/srv/bench")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        table = screen.query_one("#bench-table", TextTable)
        table.focus()
        table.move_cursor_to_key(str(base.id))
        await pilot.press("m")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.view == "compare" and bench.history.baseline("rand-rw").id == base.id
        rows = table_rows(screen, "bench-table")
        assert list(rows) == [str(base.id), str(faster.id), str(similar.id)]  # the seq-read run is another preset
        assert rows[str(base.id)][:4] == ("★", str(base.id), "scheduler=none", "10.0k")
        assert rows[str(faster.id)][3:] == (
            "12.0k +20.0%",
            "9,000 -10.0%",
            "49.2 +20.0%",
            "36.9 -10.0%",
            "900µs -10.0%",
            "2.60ms +30.0%",
        )
        tones = {r.key: r.styles for r in table.rows}
        assert tones[str(faster.id)][3:] == ("good", "crit", "good", "crit", "good", "crit")
        assert tones[str(similar.id)][3] == "dim"  # +0.5%: noise
        await pilot.press("down")
        detail = str(screen.query_one("#bench-detail").render())
        assert "loop3.scheduler: none → mq-deadline" in detail
        await pilot.press("h")
        assert screen.view == "results" and len(table.rows) == 4


async def test_repeat_asks_for_passes_and_shows_each_pass_with_mean_and_stddev(bench: Bench):
    bench.remember(bench.target, runtime_s=2)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("r")
        await wait_for_screen(pilot, AskDialog)
        app.screen.query_one("#bench-count-input").value = "3"
        await pilot.press("enter")
        await wait_for_screen(pilot, ConfirmDialog)
        assert "Repeat: 3 passes" in str(app.screen.query_one("#confirm-details").render())
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.job is None and len(screen.runs) == 3 and screen.view == "group")
        await pilot.pause()
        rows = table_rows(screen, "bench-table")
        assert [cells[2] for cells in rows.values()] == ["pass 1/3", "pass 2/3", "pass 3/3", "mean ± sd (n=3)"]
        assert rows["mean"][3] == "1,500±0"


async def test_without_fio_the_screen_names_the_package(bench: Bench):
    bench.remember(bench.target)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen(fio=None))
        assert "install the 'fio' package (apt install fio)" in str(screen.query_one("#bench-title").render())
        await pilot.press("1")
        await pilot.pause()
        assert app.screen is screen and screen.job is None


async def test_a_refused_target_is_explained_and_nothing_runs(bench: Bench):
    bench.remember(bench.tmp / "missing")
    messages: list = []
    app = make_app()
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("1")
        await app.workers.wait_for_complete()
        await pilot.pause()
        refusals = [m.text for m in messages if isinstance(m, BenchRun.Refused)]
        assert refusals == [f"{bench.tmp / 'missing'} does not exist"]
        assert app.screen is screen and not screen.runs


async def test_the_target_dialog_remembers_the_choice(bench: Bench):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        assert "target none (press t)" in str(screen.query_one("#bench-title").render())
        await pilot.press("t")
        await wait_for_screen(pilot, FormDialog)
        app.screen.query_one("#bench-target-input").value = str(bench.target)
        app.screen.query_one("#bench-target-input").focus()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.prefs.target == str(bench.target)
        assert f"target {bench.target} (t)" in str(screen.query_one("#bench-title").render())
    from raidtop.actions.fio.prefs import load_prefs

    assert load_prefs().target == str(bench.target)


async def test_the_sweep_dialog_offers_what_the_device_has():
    chosen: list = []
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        defaults = {
            "scheduler": (["loop3", "loop4"], ["none", "mq-deadline", "bfq"]),
            "read_ahead_kb": (["md127"], ["128", "512"]),
        }
        app.push_screen(SweepDialog("rand-read", defaults), chosen.append)
        await pilot.pause()
        values = app.screen.query_one("#bench-sweep-values")
        assert values.value == "none mq-deadline bfq"
        values.value = "none bfq"
        values.focus()
        await pilot.press("enter")
        await pilot.pause()
    assert chosen == [("scheduler", ["none", "bfq"])]


def test_a_finished_comparison_snapshot(snap_compare, tmp_path: Path, monkeypatch):
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    history = RunStore(tmp_path / "data" / "raidtop" / "bench.sqlite")
    base, _faster, _similar = store_comparison(history)
    history.set_baseline(base.id)
    save_prefs(BenchPrefs("/srv/bench", 15))
    presets = tmp_path / "presets.toml"
    presets.write_text("")

    async def open_comparison(pilot) -> None:
        # A fixed fio path: the screen never runs it here, and the title must not depend on the host.
        pilot.app.push_screen(BenchScreen(history=history, presets_file=presets, fio_path="/usr/bin/fio"))
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        table = pilot.app.screen.query_one("#bench-table", TextTable)
        table.focus()
        await pilot.press("c")
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=open_comparison)


@pytest.mark.parametrize("how", ["quit", "hang-up"])
async def test_leaving_raidtop_stops_a_running_fio_and_keeps_the_partial_result(bench: Bench, monkeypatch, how: str):
    import os
    import signal

    started = bench.tmp / "fio-started"
    monkeypatch.setenv("FAKE_FIO_TICK", "0.1")
    monkeypatch.setenv("FAKE_FIO_STARTED", str(started))
    bench.remember(bench.target, runtime_s=120)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("5")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: len(screen.live_points) >= 2)
        assert os.listdir(bench.target) == ["raidtop-bench.d"]
        if how == "quit":
            app.exit()
        else:
            os.kill(os.getpid(), signal.SIGHUP)
        await pilot.pause(0.5)
    runs = bench.history.runs()
    assert len(runs) == 1 and runs[0].partial and "cancelled" in runs[0].message
    assert os.listdir(bench.target) == []
    assert bench.log.read("fio")[0].details["partial"]
