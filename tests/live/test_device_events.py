"""A device appearing wakes the sampler at once (real loop device, real uevents)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config

pytestmark = pytest.mark.live


def _require(condition: bool, reason: str) -> None:
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)


async def test_attaching_a_loop_device_triggers_a_sample(tmp_path: Path):
    _require(os.geteuid() == 0, "needs root to attach loop devices")
    _require(shutil.which("losetup") is not None, "losetup (util-linux) is not installed")
    image = tmp_path / "disk.img"
    with open(image, "wb") as handle:
        handle.truncate(8 * 1024 * 1024)
    # A 30 s interval: any sample after the first must have been woken by the event.
    app = RaidtopApp(Config(interval=30.0))
    device = None
    async with app.run_test(size=(120, 40)) as pilot:
        # The watcher starts in a thread after the first frame, beside the first
        # sample: wait for both (either may come first).
        for _ in range(200):
            await pilot.pause(0.05)
            if app.live.latest is not None and app.sampling.device_events_note.startswith("watching"):
                break
        assert app.sampling.device_events_note.startswith("watching"), app.sampling.device_events_note
        first = app.live.latest
        device = subprocess.run(
            ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
        ).stdout.strip()
        try:
            for _ in range(200):
                await pilot.pause(0.05)
                if app.live.latest is not first:
                    break
            assert app.sampling.device_events_seen >= 1
            assert app.live.latest is not first
            names = {d.name for d in app.live.latest.disks}
            assert os.path.basename(device) in names
        finally:
            subprocess.run(["losetup", "-d", device], check=False)
