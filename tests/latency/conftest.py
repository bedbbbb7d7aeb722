"""A loop device of this host for the tests that run real bpftrace (skipped where none can be made)."""

from __future__ import annotations

import os
import subprocess

import pytest


@pytest.fixture
def loop_device(tmp_path):
    image = tmp_path / "member.img"
    image.write_bytes(b"")
    os.truncate(image, 32 << 20)
    try:
        path = subprocess.run(
            ["losetup", "--find", "--show", str(image)], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no loop device: {exc}")
    yield path
    subprocess.run(["losetup", "-d", path], check=False)
