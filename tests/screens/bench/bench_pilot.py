"""Driving the Benchmarks screen in a pilot: a temporary set-up with the fake fio, and waits.

fio is the fake in tests/fake_fio.py (fio 3 JSON, fake seconds, fast), so the
screen's tests need neither root nor fio; tests/live/test_fio_live.py runs the real thing.
Also the `bench` fixture and a stored comparison, used by other folders' tests too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
from raidtop.actions.fio.store import RunStore
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.bench.screen import BenchScreen
from raidtop.widgets.text_table import TextTable
from tests.conftest import DATA
from tests.fake_fio import make_fake_fio
from tests.fio_samples import fio_json, md_tuning, ramp


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


@pytest.fixture
def bench(tmp_path: Path, monkeypatch) -> Bench:
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    return Bench(tmp_path)
