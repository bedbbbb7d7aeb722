"""Fixtures shared across folders: deterministic snapshots from recorded roots for the UI tests, and a real loop
device (with the check that a process is gone) for the latency tests that trace one."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.config import Config
from raidtop.model.snapshot import Snapshot

DATA = Path(__file__).resolve().parent / "data" / "ui"


def two_root_snapshot() -> Snapshot:
    """Rates between sysstat's recorded root1 and root2 (31.17 s apart)."""
    sampler = Sampler(DATA / "root1", clock=lambda: 1_600_000_000.0)
    sampler.sample()
    sampler.root = Root(DATA / "root2")
    return sampler.sample()


@pytest.fixture
def sample_snapshot() -> Snapshot:
    return two_root_snapshot()


@pytest.fixture
def static_config() -> Config:
    """An app that samples nothing by itself: tests hand it snapshots."""
    return Config(root=DATA / "root1", autostart_sampler=False)


@pytest.fixture
def loop_device(tmp_path):
    """A loop device over a sparse 32 MiB file, detached afterwards; skips where none can be attached.

    tests/live has its own, which fails instead: that tier must run where it is asked to.
    """
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


def ended_within(attempt: Callable[[], object], fifo: Path | None = None, seconds: float = 20.0) -> object:
    """What ``attempt()`` returned or raised; the test fails if it did not end within ``seconds``.

    A FIFO must not block it: if it is still running, ``fifo``'s other end is opened so the
    blocked open or read returns and no thread outlives the test.
    """
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(attempt())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))  # the other end: the blocked call returns
            thread.join(seconds)
        pytest.fail(f"blocked on the FIFO {fifo}" if fifo is not None else "the attempt did not end")
    return outcome[0]


def gone(pid: int) -> bool:
    """True when no process ``pid`` exists any more (the tracer's bpftrace ended for sure)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(autouse=True)
def utc_clock(monkeypatch):
    """Clock strings on screen must not depend on the machine's time zone."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _built(name: str):
    """``native.<name>``, the project's install builds it: a run without it fails here, not skips."""
    from raidtop.collect import native

    module = getattr(native, name)
    if module is None:
        pytest.fail(f"the disk code's C module (native.{name}) is not built: reinstall (make) with a C compiler")
    return module


@pytest.fixture(scope="module")
def compiled_parse():
    """The compiled /proc/diskstats parse."""
    return _built("diskstats_parse")


@pytest.fixture(scope="module")
def compiled_rates():
    """The compiled iostat rates."""
    return _built("disk_rates")


@pytest.fixture(params=["compiled", "python"])
def disk_code(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test once with the compiled disk parse and rates, once with their Python twin alone."""
    from raidtop.collect import native

    if request.param == "python":
        monkeypatch.setattr(native, "diskstats_parse", None)
        monkeypatch.setattr(native, "disk_rates", None)
    else:
        _built("diskstats_parse")
        _built("disk_rates")
    return str(request.param)
