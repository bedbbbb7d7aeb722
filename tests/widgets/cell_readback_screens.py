"""The screens the cell read-back test opens, each with long names and large values.

One entry of SCREENS per screen: how to make its app, then how to open the screen.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import fields, is_dataclass, replace
from pathlib import Path

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.model.smart import SmartAttribute, SmartHealth
from raidtop.presentation.explain import Explanation, Line
from raidtop.screens.explain import ExplainScreen
from raidtop.screens.smart import SmartScreen
from raidtop.screens.tuning.dialogs import ChangeLogScreen
from raidtop.widgets.text_table import Row
from tests.conftest import DATA

LONG_NAMES = {
    "loop20": "nvme10n1p1234",
    "loop21": "dm-raid-component-long-2",
    "loop23": "sdaa1",
    "loop24": "nvme0n1",
    "md0": "md_data_archive_0",
}
"""The demo's names swapped for long ones, everywhere in the snapshot (keys, members, disks, events)."""


def _renamed(value, names: dict[str, str]):
    """``value`` (a snapshot, or anything in it) with every whole-word name in ``names`` swapped."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")\b")

    def walk(v):
        if isinstance(v, str):
            return pattern.sub(lambda m: names[m.group(1)], v)
        if is_dataclass(v) and not isinstance(v, type):
            return replace(v, **{f.name: walk(getattr(v, f.name)) for f in fields(v) if f.init})
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, frozenset):
            return frozenset(walk(x) for x in v)
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        return v

    return walk(value)


def big_rebuild(bad_survivor: bool = True) -> list:
    """The screenshots' rebuilding raid5 with long member and array names.

    Its 60000.00 kB/s need shortening in the member grid.
    """
    from screenshots.make_screenshots import rebuilding_snapshots

    return [_renamed(s, LONG_NAMES) for s in rebuilding_snapshots(bad_survivor=bad_survivor)]


def dashboard_app(_tmp: Path) -> RaidtopApp:
    return RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))


async def feed_rebuild(pilot) -> None:
    for snap in big_rebuild():
        pilot.app.apply_snapshot(snap)
    await pilot.pause()


def keys(*pressed: str) -> Callable:
    async def prepare(pilot) -> None:
        await feed_rebuild(pilot)
        await pilot.press(*pressed)
        await pilot.pause()

    return prepare


SMART_READING = SmartHealth(
    "nvme10n1p1234",
    1_700_000_000.0,
    "read",
    "failing",
    (),
    model="WDC WD40EFRX-68N32N0 with a very long model name",
    attributes=(
        SmartAttribute(5, "Reallocated_Sector_Ct", 100, 100, 10, 0, "0"),
        SmartAttribute(9, "Power_On_Hours", 71, 71, 0, 21304, "21304"),
        SmartAttribute(197, "Current_Pending_Sector", 100, 200, 0, 8, "8"),
        SmartAttribute(198, "Offline_Uncorrectable_Sectors_With_A_Long_Name", 100, 100, 0, 4294967295, "4294967295"),
        SmartAttribute(
            194, "Temperature_Celsius", 253, 253, 0, 12345678901234, "34 (Min/Max 20/45 and a long tail of words)"
        ),
    ),
)


async def smart_screen(pilot) -> None:
    await feed_rebuild(pilot)
    snap = pilot.app.live.latest
    pilot.app.live.latest = replace(snap, smart={**snap.smart, "nvme10n1p1234": SMART_READING})
    await pilot.app.push_screen(SmartScreen("nvme10n1p1234"))
    await pilot.pause()


async def tuning_log(pilot) -> None:
    rows = [
        Row(
            str(i),
            (
                "2026-11-26 18:04:30",
                "nvme10n1p1234",
                "queue/scheduler",
                "[mq-deadline] kyber bfq none",
                "mq-deadline",
                "echo mq-deadline > /sys/block/nvme10n1p1234/queue/scheduler: refused",
            ),
            ("dim", None, None, "dim", None, None),
        )
        for i in range(3)
    ]
    await pilot.app.push_screen(ChangeLogScreen(rows, "/var/log/raidtop/actions.log"))
    await pilot.pause()


async def explain_long(pilot) -> None:
    await feed_rebuild(pilot)
    lines = (
        Line(
            "loop20 length",
            "component_size × 1024 (a rebuild reads it all from every survivor)",
            "4294967296 × 1024",
            "4398046511104",
        ),
        Line("Speed", "Δcompleted / Δt over the last 30 s", "(123456789 − 23456789) × 512 / 30.0", "1706666666.67"),
    )
    await pilot.app.push_screen(ExplainScreen(Explanation("md_data_archive_0: rebuild risk", lines)))
    await pilot.pause()


async def tuning_screen(pilot) -> None:
    from tests.screens.tuning.test_tuning_screen import open_tuning

    await open_tuning(pilot, pilot.app._readback_root, pilot.app._readback_session, array="md6")


def tuning_app(tmp: Path) -> RaidtopApp:
    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.tuning import TuningSession
    from tests.screens.tuning.test_tuning_screen import tuning_root

    root = tuning_root(tmp)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    app._readback_root = root
    app._readback_session = TuningSession(root, ActionLog(tmp / "log"), privileged=True)
    return app


async def bench_comparison(pilot) -> None:
    from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
    from raidtop.actions.fio.store import RunStore
    from raidtop.screens.bench.screen import BenchScreen
    from tests.screens.bench.bench_pilot import store_comparison

    tmp = pilot.app._readback_tmp
    history = RunStore(tmp / "data" / "raidtop" / "bench.sqlite")
    base, _faster, _similar = store_comparison(history)
    history.set_baseline(base.id)
    save_prefs(BenchPrefs("/srv/a/very/long/benchmark/target/directory/on/nvme10n1p1234", 15))
    presets = tmp / "presets.toml"
    presets.write_text("")
    await feed_rebuild(pilot)
    await pilot.app.push_screen(BenchScreen(history=history, presets_file=presets, fio_path="/usr/bin/fio"))
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.press("c", "down")
    await pilot.pause()


def app_with_tmp(tmp: Path) -> RaidtopApp:
    app = dashboard_app(tmp)
    app._readback_tmp = tmp
    return app


def lab_app(tmp: Path) -> RaidtopApp:
    import shutil

    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.lab.core import Lab
    from tests.screens.lab.test_lab_screen import CAPTURED_AT, FIXTURE, RecordingRunner

    root = tmp / "root"
    shutil.copytree(FIXTURE / "root", root, symlinks=True)
    shutil.copytree(FIXTURE / "lab", tmp / "labdir" / "lab")
    shutil.copy(FIXTURE / "actions.log", tmp / "actions.log")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    app._readback_lab = Lab(
        tmp / "labdir" / "lab",
        root=root,
        runner=RecordingRunner(ActionLog(tmp / "actions.log")),
        euid=0,
        which=lambda name: f"/usr/sbin/{name}",
        clock=lambda: CAPTURED_AT,
    )
    return app


async def lab_screen(pilot) -> None:
    from raidtop.screens.lab.screen import LabScreen
    from tests.screens.lab.test_lab_screen import READY

    await pilot.app.push_screen(LabScreen(pilot.app._readback_lab, environment=READY, read_only=False))
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def fleet_app(_tmp: Path):
    from raidtop.app.fleet_app import FleetApp
    from tests.fleet.fleet_data import StaticSource, sample_fleet

    return FleetApp(StaticSource(sample_fleet()), "http://prometheus:9090", interval_s=3600)


async def fleet_screen(pilot) -> None:
    await pilot.pause(0.5)


ScreenCase = tuple[Callable[[Path], object], Callable[[object], Awaitable[None]]]


SCREENS: dict[str, ScreenCase] = {
    "dashboard, member grid open": (dashboard_app, keys("enter")),
    "dashboard, every device": (dashboard_app, keys("a")),
    "dashboard, disks and CPU tabs": (dashboard_app, keys("tab", "tab")),
    "array detail": (dashboard_app, keys("d")),
    "event timeline": (dashboard_app, keys("e")),
    "explain an array": (dashboard_app, keys("x")),
    "explain long lines": (dashboard_app, explain_long),
    "SMART attributes": (dashboard_app, smart_screen),
    "tuning": (tuning_app, tuning_screen),
    "tuning change log": (dashboard_app, tuning_log),
    "benchmarks": (app_with_tmp, bench_comparison),
    "lab": (lab_app, lab_screen),
    "fleet": (fleet_app, fleet_screen),
}
"""One entry per screen: how to make its app, then how to open the screen."""
