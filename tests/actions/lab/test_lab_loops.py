"""The lab's loop-device half on this host's real loop devices (root; no md needed).

What only the real kernel can show: losetup attaches the image, the
LOOP_GET_STATUS64 ioctl reports the inode the lab recorded, and after a
crash between losetup and the registry write, teardown finds that device by
path and inode and detaches it. Every test detaches what it attached and
deletes what it made, whatever happens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.loopdev import attached_loops, loop_backing
from raidtop.actions.lab_registry import is_lab_device

pytestmark = pytest.mark.live


@pytest.fixture
def lab(tmp_path: Path):
    if os.geteuid() != 0 or shutil.which("losetup") is None or not os.path.exists("/dev/loop-control"):
        pytest.skip("needs root, losetup and the loop driver")
    lab = Lab(tmp_path / "lab", log=ActionLog(tmp_path / "actions.log"))
    try:
        yield lab
    finally:
        # Only devices holding files under this test's lab directory: never anyone else's.
        for loop in attached_loops():
            if loop.path.startswith(str(tmp_path)):
                subprocess.run(["losetup", "-d", f"/dev/{loop.name}"], check=False)


def ours(tmp_path: Path) -> list[str]:
    return [loop.name for loop in attached_loops() if loop.path.startswith(str(tmp_path))]


def test_a_real_loop_device_is_recorded_by_path_and_inode(lab: Lab, tmp_path: Path):
    image = lab.new_disk("md100", 16 << 20)
    backing = loop_backing(image.loop)
    assert backing.path == image.path and backing.inode == os.stat(image.path).st_ino == image.inode
    assert is_lab_device(image.loop, path=lab.registry.path)
    report = lab.teardown()
    assert report.clean and ours(tmp_path) == [] and not Path(image.path).exists()


def test_teardown_after_a_crash_between_losetup_and_the_registry_write(lab: Lab, tmp_path: Path):
    class Crash(BaseException):
        pass

    def crash(step: str) -> None:
        if step == "loop-attached":
            raise Crash

    with pytest.raises(Crash):
        lab.new_disk("md100", 16 << 20, on_step=crash)
    (image,) = lab.state().images
    assert image.loop is None and len(ours(tmp_path)) == 1
    report = lab.teardown()
    assert report.clean
    assert ours(tmp_path) == [] and not Path(image.path).exists() and lab.state().empty
