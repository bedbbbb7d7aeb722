"""Attacks on fio's target (issue 11): links, colons and raw devices cannot aim real fio at a device it was not given.

A victim loop device with sentinels shows that nothing else was written.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
from fio_live_setup import PRESETS, preset

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.guards import TargetRefused
from raidtop.actions.fio.session import Batch, execute, plan_run
from raidtop.actions.fio.store import RunStore

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("live_env")]


SENTINEL = b"raidtop live sentinel\n" * 256  # 5.5 KiB at the start of each victim


@pytest.fixture
def victim_device(tmp_path: Path):
    """A second loop device fio must never touch, with a sentinel at its start and end."""
    image = tmp_path / "victim.img"
    with open(image, "wb") as handle:
        handle.truncate(64 * 1024 * 1024)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
    ).stdout.strip()
    try:
        with open(device, "r+b") as handle:
            handle.write(SENTINEL)
            handle.seek(-len(SENTINEL), os.SEEK_END)
            handle.write(SENTINEL)
            os.fsync(handle.fileno())
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


def sentinel_intact(device: str) -> bool:
    fd = os.open(device, os.O_RDONLY)
    try:
        head = os.pread(fd, len(SENTINEL), 0)
        size = os.lseek(fd, 0, os.SEEK_END)
        tail = os.pread(fd, len(SENTINEL), size - len(SENTINEL))
    finally:
        os.close(fd)
    return head == SENTINEL and tail == SENTINEL


def test_a_link_in_a_directory_target_cannot_aim_fio_at_a_device(victim_device: str, history: RunStore, tmp_path: Path):
    target = tmp_path / "owned-by-someone"
    target.mkdir()
    os.symlink(victim_device, target / "raidtop-bench.dat")
    record = execute(
        plan_run(preset("rand-write"), str(target), presets=PRESETS), history, log=ActionLog(tmp_path / "a.log")
    )
    assert record.outcome.ok, record.message
    assert record.stored.result.write.total_ios > 0
    assert sentinel_intact(victim_device)
    assert os.readlink(target / "raidtop-bench.dat") == victim_device, "raidtop deletes only what it created"
    # The name raidtop does use, planted: refused, left alone, device untouched.
    os.symlink(victim_device, target / "raidtop-bench.d")
    with pytest.raises(TargetRefused, match="already exists"):
        plan_run(preset("rand-write"), str(target), presets=PRESETS)
    assert sentinel_intact(victim_device) and os.readlink(target / "raidtop-bench.d") == victim_device


def test_a_colon_in_a_device_path_cannot_reach_another_device(
    loop_device: str, victim_device: str, history: RunStore, tmp_path: Path
):
    # 'c2/e:/dev/loopV' is a link to the allowed device; fio used to split it and write /dev/loopV too.
    allowed = os.path.basename(loop_device)
    odd = tmp_path / "c2" / ("e:" + os.path.dirname(victim_device))
    odd.mkdir(parents=True)
    os.symlink(loop_device, odd / os.path.basename(victim_device))
    target = str(tmp_path / "c2" / ("e:" + victim_device))
    plan = plan_run(preset("rand-write"), target, presets=PRESETS, allow_raw_device=allowed)
    record = execute(plan, history, log=ActionLog(tmp_path / "a.log"))
    assert record.outcome.ok, record.message
    assert record.stored.result.write.total_ios > 0
    assert sentinel_intact(victim_device)


def test_a_colon_in_a_directory_name_writes_only_under_it(history: RunStore, tmp_path: Path):
    target = tmp_path / "colon" / "x:"
    target.mkdir(parents=True)
    existed = os.path.lexists("/raidtop-bench.dat")
    record = execute(
        plan_run(preset("rand-write"), str(target), presets=PRESETS), history, log=ActionLog(tmp_path / "a.log")
    )
    assert record.outcome.ok, record.message
    assert record.stored.result.write.total_ios > 0
    assert os.path.lexists("/raidtop-bench.dat") == existed
    assert not (tmp_path / "colon" / "x").exists() and os.listdir(target) == []


def test_a_raw_device_is_held_exclusively_and_must_be_the_one_approved(
    loop_device: str, history: RunStore, tmp_path: Path
):
    name = os.path.basename(loop_device)
    plan = plan_run(preset("rand-read"), loop_device, presets=PRESETS, runtime_s=30, allow_raw_device=name)
    batch = Batch()
    running = threading.Event()
    records = []
    worker = threading.Thread(
        target=lambda: records.append(
            execute(plan, history, batch=batch, log=ActionLog(tmp_path / "a.log"), on_point=lambda _p: running.set())
        )
    )
    worker.start()
    try:
        assert running.wait(60), "fio never reported progress"
        # A second benchmark (or a mount, or mdadm) cannot open it exclusively while fio runs.
        second = execute(plan, history, log=ActionLog(tmp_path / "a.log"))
        assert second.stored is None and "is busy" in second.message
    finally:
        batch.cancel()
        worker.join(60)
    assert records[0].stored.partial
