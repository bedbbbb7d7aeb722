"""Regenerate the README's screenshots headlessly (never edit them by hand).

Each screen is rendered by the real app inside Textual's test harness from
recorded or simulated data with fixed clocks, so the images are the same on
any machine: ``make screenshots`` (or ``.venv/bin/python screenshots/make_screenshots.py``).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from raidtop.app.raidtop_app import RaidtopApp  # noqa: E402
from raidtop.presentation.judgement import judged_sampler  # noqa: E402
from raidtop.collect.source import Root  # noqa: E402
from raidtop.config import Config  # noqa: E402
from raidtop.demo.root import DemoRoot  # noqa: E402
from raidtop.demo.simulator import SimulatedArray  # noqa: E402
from raidtop.demo.smart import DemoSmart  # noqa: E402

UI_DATA = REPO / "tests" / "data" / "ui"
EPOCH = 1_600_000_000.0


LEFT_OUT = ("dm-2", "sds")
"""Devices of the recorded trees the README's images leave out: dm-2 is in the first tree only
(a "dm-2: disappeared" note) and sds's lines have 17 fields, which no kernel prints (a parse note)."""


@functools.cache
def recorded_trees() -> tuple[Path, Path]:
    """Copies of sysstat's two recorded trees without :data:`LEFT_OUT`, removed when the script ends."""
    scratch = Path(tempfile.mkdtemp(prefix="raidtop-shots-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    copies = []
    for name in ("root1", "root2"):
        tree = scratch / name
        shutil.copytree(UI_DATA / name, tree, symlinks=True)
        for device in LEFT_OUT:
            shutil.rmtree(tree / "sys" / "block" / device, ignore_errors=True)
        diskstats = tree / "proc" / "diskstats"
        lines = diskstats.read_text().splitlines(keepends=True)
        diskstats.write_text("".join(line for line in lines if line.split()[2:3] not in ([d] for d in LEFT_OUT)))
        copies.append(tree)
    return copies[0], copies[1]


def recorded_snapshot():
    """Rates between two trees recorded by sysstat's maintainers (31 s apart), with the demo's raid5 on them.

    The host's disks, CPU and memory are the recording's; md0 is the demo's simulated
    clean raid5, so the first images show an array.
    """
    first, second = recorded_trees()
    clock = _Clock()
    sim = SimulatedArray(name="md0", level="raid5", disks=4, component_kib=4 * 1024 * 1024, speed_limit_kib_s=60_000)
    sim.advance(10 * sim.component_kib)  # the initial build is long done
    root = DemoRoot(Root(first), sim, clock=lambda: clock.now - EPOCH)
    sampler = judged_sampler(root, clock=clock)
    sampler.sample()
    root.base = Root(second)
    clock.now += 31
    sim.advance(31.0)
    root.refresh()
    return sampler.sample()


class _Clock:
    def __init__(self) -> None:
        self.now = EPOCH

    def __call__(self) -> float:
        return self.now


def rebuilding_snapshots(bad_survivor: bool = False):
    """A raid5 that lost a disk and is 40 % into its recovery (the demo's simulator).

    Returns several snapshots a second apart so sparklines, the sync plot and
    raidtop's own ETA have history. ``bad_survivor``: the demo's SMART
    readings, one survivor with 8 pending sectors (the rebuild-risk banner).
    """
    clock = _Clock()
    sim = SimulatedArray(name="md0", level="raid5", disks=4, component_kib=4 * 1024 * 1024, speed_limit_kib_s=60_000)
    sim.advance(10 * sim.component_kib)  # the initial build is long done
    smart = None
    if bad_survivor:
        smart = DemoSmart(sim)
        smart.go_bad()
    root = DemoRoot(Root(recorded_trees()[0]), sim, clock=lambda: clock.now - EPOCH, smart=smart)
    sampler = judged_sampler(root, clock=clock)
    snapshots = [sampler.sample()]
    failed = sim.members[2].name
    for step in (lambda: sim.fail(failed), lambda: sim.remove(failed), sim.add):
        step()
        root.refresh()
        clock.now += 1
        snapshots.append(sampler.sample())
    sim.advance(0.4 * sim.component_kib / sim.speed_limit_kib_s - 20)
    for _ in range(20):
        sim.advance(1.0)
        root.refresh()
        clock.now += 1
        snapshots.append(sampler.sample())
    return snapshots


def loaded_rebuild_snapshots():
    """The demo's raid5 recovering while a database and a backup load it (the Processes panel's story)."""
    from raidtop.demo.processes import DemoLoad

    clock = _Clock()
    sim = SimulatedArray(name="md0", level="raid5", disks=4, component_kib=4 * 1024 * 1024, speed_limit_kib_s=20_000)
    sim.advance(10 * sim.component_kib)
    load = DemoLoad(sim)
    root = DemoRoot(Root(recorded_trees()[0]), sim, clock=lambda: clock.now - EPOCH, load=load)
    sampler = judged_sampler(root, clock=clock)
    sampler.processes.want_processes = True
    failed = sim.members[2].name
    sim.fail(failed)
    sim.remove(failed)
    sim.add()
    sim.advance(0.3 * sim.component_kib / sim.speed_limit_kib_s)
    snapshots = []
    for _ in range(12):
        load.advance(1.0)
        sim.advance(1.0)
        root.refresh()
        clock.now += 1
        snapshots.append(sampler.sample())
    return snapshots


async def shoot(
    name: str, size: tuple[int, int], snapshots, keys: tuple[str, ...] = (), root: Path | None = None, prepare=None
) -> Path:
    """Render the dashboard at ``size`` after ``snapshots``, press ``keys``, save ``name``.svg."""
    app = RaidtopApp(Config(root=root or UI_DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=size) as pilot:
        for snap in snapshots:
            app.apply_snapshot(snap)
        await pilot.pause()
        app.clear_notifications()
        if prepare is not None:
            await prepare(pilot)
        if keys:
            await pilot.press(*keys)
            await pilot.pause()
        app.clear_notifications()
        await pilot.pause()
        path = Path(app.save_screenshot(f"{name}.svg", str(HERE)))
    return path


async def tuning_screenshot() -> Path:
    """The Tuning screen on md6 of the stored tuning tree (as its snapshot test renders it)."""
    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.tuning import TuningSession
    from raidtop.screens.tuning.screen import TuningScreen
    from raidtop.widgets.text_table import TextTable
    from tests.screens.tuning.test_tuning_screen import tuning_root

    with tempfile.TemporaryDirectory() as tmp:
        root = tuning_root(Path(tmp))
        session = TuningSession(root, ActionLog(Path(tmp) / "log"), privileged=True)

        async def open_md6(pilot) -> None:
            screen = TuningScreen(session=session, array="md6")
            pilot.app.push_screen(screen)
            await pilot.pause()
            table = screen.query_one("#tuning-knobs", TextTable)
            table.focus()
            table.move_cursor_to_key("sync_speed_max")

        snap = judged_sampler(root, clock=lambda: EPOCH).sample()
        return await shoot("tuning", (120, 40), [snap], root=root, prepare=open_md6)


async def bench_screenshot() -> Path:
    """The Benchmarks screen comparing stored runs against a baseline (the snapshot test's data)."""
    from raidtop.actions.fio.store import RunStore
    from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
    from raidtop.screens.bench.screen import BenchScreen
    from raidtop.widgets.text_table import TextTable
    from tests.screens.bench.bench_pilot import store_comparison

    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("DATA", "CONFIG", "STATE"):
            os.environ[f"XDG_{kind}_HOME"] = str(Path(tmp) / kind.lower())
        history = RunStore(Path(tmp) / "data" / "raidtop" / "bench.sqlite")
        base, _faster, _similar = store_comparison(history)
        history.set_baseline(base.id)
        save_prefs(BenchPrefs("/srv/bench", 15))
        presets = Path(tmp) / "presets.toml"
        presets.write_text("")

        async def open_comparison(pilot) -> None:
            pilot.app.push_screen(BenchScreen(history=history, presets_file=presets, fio_path="/usr/bin/fio"))
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            table = pilot.app.screen.query_one("#bench-table", TextTable)
            table.focus()
            await pilot.press("c", "down")
            await pilot.pause()

        return await shoot("benchmarks", (120, 40), [recorded_snapshot()], prepare=open_comparison)


async def lab_screenshot() -> Path:
    """The Lab screen on a degraded raid5 captured from a real VM run (the snapshot test's data)."""
    import shutil

    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.lab.core import Lab
    from raidtop.screens.lab.screen import LabScreen
    from raidtop.widgets.text_table import TextTable
    from tests.screens.lab.test_lab_screen import CAPTURED_AT, FIXTURE, READY, SNAPSHOT_LAB, RecordingRunner

    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("DATA", "STATE"):
            os.environ[f"XDG_{kind}_HOME"] = str(Path(tmp) / kind.lower())
        root = Path(tmp) / "root"
        shutil.copytree(FIXTURE / "root", root, symlinks=True)
        shutil.rmtree(SNAPSHOT_LAB, ignore_errors=True)
        shutil.copytree(FIXTURE / "lab", SNAPSHOT_LAB / "lab")
        shutil.copy(FIXTURE / "actions.log", Path(tmp) / "actions.log")
        log = ActionLog(Path(tmp) / "actions.log")
        lab = Lab(
            SNAPSHOT_LAB / "lab",
            root=root,
            runner=RecordingRunner(log),
            euid=0,
            which=lambda name: f"/usr/sbin/{name}",
            clock=lambda: CAPTURED_AT,
        )

        async def open_it(pilot) -> None:
            screen = LabScreen(lab, environment=READY, read_only=False)
            await pilot.app.push_screen(screen)
            for _ in range(3):
                await pilot.app.workers.wait_for_complete()
                await pilot.pause()
            screen.query_one("#lab-arrays", TextTable).move_cursor_to_key("md101")
            await pilot.pause()

        try:
            return await shoot("lab", (120, 40), [], root=root, prepare=open_it)
        finally:
            shutil.rmtree(SNAPSHOT_LAB, ignore_errors=True)


async def fleet_screenshot() -> Path:
    """``raidtop fleet``: three hosts, worst first (a real recorded rebuild, procfs's fixture arrays, one down)."""
    from raidtop.app.fleet_app import FleetApp
    from tests.fleet.fleet_data import StaticSource, sample_fleet

    app = FleetApp(StaticSource(sample_fleet()), "http://prometheus:9090", interval_s=3600)
    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.pause(0.5)
        return Path(app.save_screenshot("fleet.svg", str(HERE)))


async def stack_screenshot() -> Path:
    """The Stack screen over the md-lvm fixture tree, md0 degraded, with usage figures given by hand
    (a fixture root has no filesystem to statvfs)."""
    import shutil
    import tempfile

    from raidtop.collect.stack.poller import StackPoller

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(HERE.parent / "tests/data/stack/md-lvm", root, symlinks=True)
        (root / "proc/mdstat").write_text(
            "Personalities : [raid1] [raid5]\nmd1 : active raid5 sde[3] sdd[1] sdc[0]\n"
            "      1953382400 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/3] [UUU]\n\n"
            "md0 : active raid1 sdb1[1]\n      234159104 blocks super 1.2 [2/1] [_U]\n\nunused devices: <none>\n"
        )
        app = RaidtopApp(Config(root=root, autostart_sampler=False))
        usage = {
            "/": (53687091200, 51539607552),
            "/boot/efi": (209715200, 31457280),
            "/data": (1073741824, 402653184),
            "/var/www": (1073741824, 402653184),
        }
        app.sampler.stack = StackPoller(usage=usage.get)
        async with app.run_test(size=(170, 30)) as pilot:
            await pilot.press("u")
            app.apply_snapshot(app.sampler.sample())
            await pilot.pause()
            return Path(app.save_screenshot("stack.svg", str(HERE)))


async def presenter_screenshot() -> Path:
    """``raidtop --demo --present`` at a projector's 100×30: B then f, the banner and the narration line."""
    from raidtop.demo.controller import DemoController

    clock = [EPOCH]
    demo = DemoController(clock=lambda: clock[0])
    app = RaidtopApp(Config(demo=True, present=True, autostart_sampler=False), demo=demo)
    app.sampling.sampler = judged_sampler(demo.root, clock=lambda: clock[0])

    async def step(pilot, *keys: str) -> None:
        await pilot.press(*keys)
        for _ in range(2):  # the samples the sampler worker would take, one demo second apart
            clock[0] += 1.0
            app.apply_snapshot(app.sampling.sample_once())
        await pilot.pause()

    async with app.run_test(size=(100, 30)) as pilot:
        await step(pilot)
        await step(pilot, "B")
        await step(pilot, "f")
        app.clear_notifications()
        await pilot.pause()
        return Path(app.save_screenshot("presenter-100x30.svg", str(HERE)))


async def main() -> None:
    os.environ["TZ"] = "UTC"
    time.tzset()
    recorded = [recorded_snapshot()]
    rebuild = rebuilding_snapshots()
    shots = [
        ("dashboard-120x40", (120, 40), recorded, ()),
        ("dashboard-80x24", (80, 24), recorded, ()),
        ("dashboard-200x60-all-devices", (200, 60), recorded, ("a",)),
        ("help", (120, 40), recorded, ("question_mark",)),
        ("rebuild-raid5-120x40", (120, 40), rebuild, ("enter",)),
        ("array-detail", (120, 40), rebuild, ("d",)),
        ("explain-disk", (120, 40), recorded, ("tab", "down", "down", "down", "down", "down", "x")),
        ("rebuild-risk-120x40", (120, 40), rebuilding_snapshots(bad_survivor=True), ("enter",)),
        ("processes-rebuild-140x44", (140, 44), loaded_rebuild_snapshots(), ("enter", "6")),
    ]
    for name, size, snapshots, keys in shots:
        print(await shoot(name, size, snapshots, keys))
    print(await tuning_screenshot())
    print(await bench_screenshot())
    print(await lab_screenshot())
    print(await fleet_screenshot())
    print(await stack_screenshot())
    print(await presenter_screenshot())


if __name__ == "__main__":
    asyncio.run(main())
