"""Fixtures of the live tier: the fio tests' environment, run store and loop device."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fio_live_setup import require

from raidtop.actions.fio.store import RunStore


@pytest.fixture
def live_env(tmp_path: Path, monkeypatch) -> None:
    """Root, fio and losetup present (else skip, or fail under CI); XDG directories under tmp_path."""
    require(os.geteuid() == 0, "needs root to attach loop devices and write raw devices")
    require(shutil.which("fio") is not None, "fio is not installed (Debian package: fio)")
    require(shutil.which("losetup") is not None, "losetup (util-linux) is not installed")
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / "xdg" / kind.lower()))


@pytest.fixture
def history(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "bench.sqlite")


@pytest.fixture
def loop_device(tmp_path: Path):
    """A loop device over a sparse 64 MiB file, detached afterwards."""
    image = tmp_path / "disk.img"
    with open(image, "wb") as handle:
        handle.truncate(64 * 1024 * 1024)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
    ).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
