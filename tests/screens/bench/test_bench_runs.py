"""A benchmark run on the Benchmarks screen, from its key to its stored result.

The confirmation with the exact command, the live panel, cancelling, and leaving
raidtop while fio runs; fio is the fake (bench_pilot.py).
"""

from __future__ import annotations

import pytest

from raidtop.presentation.format import fmt_iops, fmt_mib
from raidtop.screens.dialogs import ConfirmDialog
from tests.conftest import two_root_snapshot
from tests.screens.bench.bench_pilot import Bench, make_app, open_screen, table_rows, wait_for_screen, wait_until


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
            == f"{k:4d} s  read {fmt_iops(1000 * k)} IOPS {fmt_mib(4096 * 1000 * k / 2**20)}MiB/s 500µs"
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
