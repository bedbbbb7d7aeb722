"""Real fio, 1–2 s at a time, against a temporary directory and a loop device made here.

The loop devices are backed by sparse 64 MiB files in the test's temporary
directory and detached afterwards whatever happens; nothing else on the host
is written. They are not lab devices, so runs on them use the explicit
override, as a user would. Attacks on the target are in test_fio_live_target_attacks.py,
signals and hang-ups in test_fio_live_signals.py; the fixtures in conftest.py.

Needs root (losetup, mount) and fio. Without them the tests skip, except
under CI (``CI=true``), where a missing tool is a broken set-up and fails.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import threading
from pathlib import Path

import pytest
from fio_live_setup import PRESETS, preset, require

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.compare import metric_values, run_sweep, summarise_passes
from raidtop.actions.fio.guards import TargetRefused, check_target
from raidtop.actions.fio.results import parse_fio_json
from raidtop.actions.fio.session import Batch, execute, plan_run, run_repeat
from raidtop.actions.fio.stack import block_device_of_path
from raidtop.actions.fio.store import RunStore
from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.loopdev import loop_backing
from raidtop.actions.lab.registry import ImageRecord
from raidtop.collect.queue_settings import read_queue_settings

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("live_env")]


def test_a_file_run_is_parsed_stored_with_its_tuning_and_shown(tmp_path: Path, history: RunStore):
    target = tmp_path / "target"
    target.mkdir()
    plan = plan_run(preset("rand-read"), str(target), presets=PRESETS)
    assert plan.command.size == "16M" and plan.target.kind == "directory"
    record = execute(plan, history, log=ActionLog(tmp_path / "actions.log"))
    assert record.outcome.ok, record.message
    stored = history.get(record.stored.id)
    read = stored.result.read
    assert read.iops > 0 and read.total_ios > 0 and read.lat_mean_us > 0 and read.lat_p99_us > 0
    assert not stored.result.write.active
    assert stored.fio_version.startswith("fio-3") and stored.kernel == os.uname().release
    device = block_device_of_path(str(target), "/")
    assert stored.tuning.device == device
    if device is not None:
        top = stored.tuning.devices[0]
        assert top.scheduler == read_queue_settings("/", top.name).scheduler
    assert stored.points, "fio printed status reports each second"
    assert not (target / "raidtop-bench.dat").exists()
    assert ActionLog(tmp_path / "actions.log").read("fio")[0].command == plan.command.display

    # Shown: the Benchmarks screen lists it with the same figure.
    import asyncio

    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config
    from raidtop.presentation.format import fmt_iops
    from raidtop.screens.bench.screen import BenchScreen

    async def show() -> tuple[str, ...]:
        app = RaidtopApp(Config(autostart_sampler=False))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = BenchScreen(history=history, fio_path=shutil.which("fio"))
            app.push_screen(screen)
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            return next(r.cells for r in screen.query_one("#bench-table").rows if r.key == str(stored.id))

    cells = asyncio.run(show())
    assert cells[3] == "rand-read" and cells[5] == fmt_iops(read.iops)


def test_a_loop_device_run_with_the_override_records_the_stack(loop_device: str, history: RunStore, tmp_path: Path):
    name = os.path.basename(loop_device)
    plan = plan_run(preset("rand-write"), loop_device, presets=PRESETS, allow_raw_device=name)
    assert plan.target.override and plan.warning.startswith(f"fio writes straight to {loop_device}")
    record = execute(plan, history, log=ActionLog(tmp_path / "a.log"))
    assert record.outcome.ok, record.message
    stored = history.get(record.stored.id)
    assert stored.result.write.iops > 0 and not stored.result.read.active
    top = stored.tuning.devices[0]
    assert (top.name, top.role) == (name, "target")
    assert top.scheduler == read_queue_settings("/", name).scheduler
    assert any(d.role == "backing" for d in stored.tuning.devices), "the loop device's backing disk is recorded"


def test_cancel_mid_run_keeps_a_partial_result(loop_device: str, history: RunStore, tmp_path: Path):
    name = os.path.basename(loop_device)
    plan = plan_run(preset("rand-read"), loop_device, presets=PRESETS, runtime_s=30, allow_raw_device=name)
    batch = Batch()
    stop = threading.Event()

    def on_point(_point) -> None:
        stop.set()
        batch.cancel()

    record = execute(plan, history, batch=batch, on_point=on_point, log=ActionLog(tmp_path / "a.log"))
    assert stop.is_set()
    assert record.outcome.cancelled
    stored = history.get(record.stored.id)
    assert stored.partial and "cancelled" in stored.message
    assert stored.result.read.total_ios > 0
    assert stored.result.read.runtime_ms < 30_000


def test_repeat_three_gives_the_mean_and_stddev_of_the_stored_runs(loop_device: str, history: RunStore, tmp_path: Path):
    name = os.path.basename(loop_device)
    plan = plan_run(preset("rand-read"), loop_device, presets=PRESETS, allow_raw_device=name)
    records = run_repeat(plan, history, 3, log=ActionLog(tmp_path / "a.log"))
    assert [r.outcome.ok for r in records] == [True, True, True]
    group = history.group(records[0].stored.group_id)
    assert [r.pass_no for r in group] == [1, 2, 3]
    # Recompute from the stored fio JSON, independently of the parsed rows.
    iops = [parse_fio_json(r.fio_json).result.read.iops for r in group]
    lat = [metric_values(parse_fio_json(r.fio_json).result)["read_lat_mean_us"] for r in group]
    summary = summarise_passes(group)
    assert summary.stat("read_iops").values == tuple(iops)
    assert summary.stat("read_iops").mean == pytest.approx(statistics.fmean(iops))
    assert summary.stat("read_iops").stddev == pytest.approx(statistics.stdev(iops))
    assert summary.stat("read_lat_mean_us").mean == pytest.approx(statistics.fmean(lat))


def test_a_sweep_over_two_schedulers_restores_the_original(loop_device: str, history: RunStore, tmp_path: Path):
    name = os.path.basename(loop_device)
    before = read_queue_settings("/", name)
    others = [s for s in before.schedulers if s != before.scheduler][:2]
    require(len(others) == 2, f"{name} offers fewer than three schedulers: {before.schedulers}")
    plan = plan_run(preset("rand-read"), loop_device, presets=PRESETS, allow_raw_device=name)
    log = ActionLog(tmp_path / "a.log")
    outcome = run_sweep(plan, history, "scheduler", others, log=log)
    assert read_queue_settings("/", name).scheduler == before.scheduler
    assert outcome.restore_errors == ()
    runs = outcome.runs
    assert [r.label for r in runs] == [f"scheduler={s}" for s in others]
    # Each run recorded the scheduler in force while it ran.
    assert [r.tuning.devices[0].scheduler for r in runs] == others
    assert all(r.result.read.iops > 0 for r in runs)
    assert log.read("tune")[-1].command == f"echo {before.scheduler} > /sys/block/{name}/queue/scheduler"


def test_a_raw_device_raidtop_did_not_create_is_refused(loop_device: str, tmp_path: Path):
    name = os.path.basename(loop_device)
    with pytest.raises(TargetRefused, match="raidtop's lab did not create"):
        check_target(loop_device)
    with pytest.raises(TargetRefused, match="the override names"):
        check_target(loop_device, allow_raw_device="loop999")
    assert check_target(loop_device, allow_raw_device=loop_device).override
    # Naming it in the lab's registry does not make it the lab's: its file is not in the lab's images folder.
    lab = Lab(log=ActionLog(tmp_path / "lab-actions.log"))
    with lab.registry.edit() as draft:
        image = tmp_path / "disk.img"
        draft.put_image(
            ImageRecord(str(image), image.stat().st_size, 1.0, "md100", "attached", image.stat().st_ino, name)
        )
    with pytest.raises(TargetRefused, match="raidtop's lab did not create"):
        check_target(loop_device)
    # A disk the lab made itself needs no override.
    disk = lab.new_disk("md100", 16 << 20)
    try:
        assert check_target(f"/dev/{disk.loop}").lab
    finally:
        report = lab.teardown()
    assert f"detached {disk.loop}" in report.done and loop_backing(disk.loop) is None
    assert loop_backing(name).path == str(tmp_path / "disk.img")  # theirs is still attached


def test_a_mounted_device_is_refused_even_with_the_override(loop_device: str, tmp_path: Path):
    require(shutil.which("mkfs.ext4") is not None, "mkfs.ext4 (e2fsprogs) is not installed")
    name = os.path.basename(loop_device)
    subprocess.run(["mkfs.ext4", "-q", "-F", loop_device], check=True, capture_output=True)
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    subprocess.run(["mount", loop_device, str(mount_point)], check=True, capture_output=True)
    try:
        with pytest.raises(TargetRefused, match=f"{name} is mounted on {mount_point}"):
            check_target(loop_device, allow_raw_device=name)
        # The mounted filesystem itself is a fine directory target.
        assert check_target(mount_point, size="1M").device == name
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)


def test_a_sweep_from_the_screen_runs_each_value_and_restores(loop_device: str, history: RunStore, tmp_path: Path):
    import asyncio

    from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config
    from raidtop.screens.bench.screen import BenchScreen
    from raidtop.screens.dialogs import ConfirmDialog, SweepDialog

    name = os.path.basename(loop_device)
    before = read_queue_settings("/", name)
    others = [s for s in before.schedulers if s != before.scheduler][:2]
    require(len(others) == 2, f"{name} offers fewer than three schedulers: {before.schedulers}")
    save_prefs(BenchPrefs(loop_device, 1))

    async def until(pilot, condition) -> None:
        for _ in range(600):
            if condition():
                await pilot.pause()  # a pushed screen composes after the push returns
                return
            await pilot.pause(0.05)
        raise AssertionError("condition not reached")

    async def sweep() -> tuple[list[str], str]:
        app = RaidtopApp(Config(autostart_sampler=False))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = BenchScreen(history=history, fio_path=shutil.which("fio"), log=ActionLog(tmp_path / "a.log"))
            app.push_screen(screen)
            await pilot.pause()
            await app.workers.wait_for_complete()
            screen.override = name  # what the target dialog's override field sets
            screen.query_one("#bench-presets").cursor_row = 2  # rand-read
            await pilot.press("w")
            await until(pilot, lambda: isinstance(app.screen, SweepDialog))
            values = app.screen.query_one("#bench-sweep-values")
            assert values.value.split() == list(before.schedulers)
            values.value = " ".join(others)
            values.focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            details = str(app.screen.query_one("#confirm-details").render())
            assert f"/sys/block/{name}/queue/scheduler" in details
            await pilot.press("y")
            await until(pilot, lambda: screen.job is None and screen.view == "group")
            await pilot.pause()
            labels = [r.cells[2] for r in screen.query_one("#bench-table").rows]
            return labels, read_queue_settings("/", name).scheduler

    labels, after = asyncio.run(sweep())
    assert labels == [f"scheduler={s}" for s in others]
    assert after == before.scheduler
