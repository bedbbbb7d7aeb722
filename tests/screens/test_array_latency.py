"""The array detail's latency heat map: fed histograms drawn per member over time, one shared tracer, or why none."""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.latency.histogram import from_values
from raidtop.latency.tracer import why_unavailable
from raidtop.latency import tracer as latency_tracer
from raidtop.live.latency_feed import LatencyFeed
from raidtop.model.md import MdArray, MdMember
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.widgets.latency_heat_map import LatencyHeatMap

from tests.conftest import DATA, two_root_snapshot

MEMBERS = ["loop0", "loop1", "loop2"]
FAST = from_values([300 + i % 200 for i in range(200)])  # 256-511 µs
SLOW = from_values([300] * 150 + [40_000 + i for i in range(50)])  # a quarter at 33-65 ms


class StandIn:
    """The tracer's place: these tests are about who starts it and what is drawn."""

    made: list[StandIn] = []

    def __init__(self, names, interval_s, on_sample, on_end) -> None:
        self.names, self.started, self.stopped = names, False, False
        StandIn.made.append(self)

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True


def snapshot_with_array():
    array = MdArray(
        "md0",
        "raid1",
        "clean",
        "ok",
        3,
        0,
        members=tuple(MdMember(name, slot=n, roles=("in_sync",)) for n, name in enumerate(MEMBERS)),
    )
    return replace(two_root_snapshot(), arrays=(array,))


def live_app(monkeypatch) -> RaidtopApp:
    """An app fed by hand whose latency feed believes it runs on this machine, with a stand-in tracer."""
    monkeypatch.setattr(latency_tracer, "why_unavailable", lambda: None)
    StandIn.made = []
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    app.latency = LatencyFeed(None, 1.0, lambda h: None, lambda t, w: None, StandIn)
    return app


def feed(app: RaidtopApp, intervals: int = 40) -> None:
    for t in range(intervals):
        app.live.latency.add({"loop0": FAST, "loop1": SLOW if t >= 10 else FAST, "loop2": FAST}, 1000.0 + t)


def drawn(app: RaidtopApp) -> str:
    return app.screen.query_one(LatencyHeatMap).render().plain


async def test_fed_histograms_draw_the_slowest_member_first_and_m_walks_to_its_siblings(monkeypatch):
    app = live_app(monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(snapshot_with_array())
        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        # The detail registers its members with the app's one tracer...
        assert app.latency.devices == set(MEMBERS) and StandIn.made[-1].started
        assert StandIn.made[-1].names == MEMBERS
        feed(app)
        app.apply_snapshot(snapshot_with_array())
        await pilot.pause()
        text = drawn(app)
        lines = text.splitlines()
        assert lines[0].startswith("loop1 ▸  p99 now: loop0 ")  # the slow leg comes up first
        rows = {line[:6].strip(): line[7:] for line in lines[1:-2]}
        assert list(rows)[0] == "33ms" and list(rows)[-1] == "256µs"  # slowest bucket on top, down to the fastest
        # The slow bucket holds a quarter of each interval's requests since the 11th interval: ▒, not before.
        assert rows["33ms"].rstrip().endswith("▒" * 30) and rows["33ms"].count("▒") == 30
        assert rows["256µs"].strip() == "█" * 40  # three quarters or all: ≥60 %, every interval
        assert rows["1.0ms"].strip() == ""  # no request between 1 and 2 ms
        assert lines[-1].strip().startswith("░ <10%")  # the legend: shades are characters, not only colour
        await pilot.press("m")
        assert drawn(app).startswith("loop2 ▸")
        await pilot.press("m")
        assert drawn(app).startswith("loop0 ▸")
        assert "33ms" not in drawn(app)  # loop0 was never slow
        # ...and drops them when it closes: no view, no tracer.
        await pilot.press("escape")
        await pilot.pause()
        assert app.latency.devices == frozenset() and StandIn.made[-1].stopped


async def test_covered_by_help_the_detail_lets_the_tracer_go_and_takes_it_back(monkeypatch):
    app = live_app(monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(snapshot_with_array())
        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        first = StandIn.made[-1]
        await pilot.press("question_mark")
        await pilot.pause()
        assert first.stopped and app.latency.tracer is None
        await pilot.press("escape")
        await pilot.pause()
        assert app.latency.tracer is not None and app.latency.devices == set(MEMBERS)


async def test_on_another_root_the_map_says_why_and_nothing_starts(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(snapshot_with_array())
        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        assert drawn(app) == (
            "No latency heat map: the numbers come from another root (--root), not this machine's kernel: "
            "nothing to trace."
        )
        assert app.latency.tracer is None


async def test_without_bpftrace_the_map_says_so(monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("needs root: as another user the reason given is root, not bpftrace")
    monkeypatch.setenv("PATH", "/nonexistent")
    app = RaidtopApp(Config(root=Path("/"), autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(snapshot_with_array())
        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        assert drawn(app) == "No latency heat map: bpftrace is not installed."
        assert app.latency.tracer is None


def test_the_heat_map_snapshot(snap_compare, monkeypatch):
    app = live_app(monkeypatch)

    async def open_detail(pilot) -> None:
        app.apply_snapshot(snapshot_with_array())
        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        feed(app)
        app.apply_snapshot(snapshot_with_array())
        await pilot.pause()

    assert snap_compare(app, terminal_size=(140, 50), run_before=open_detail)


@pytest.mark.live
async def test_the_real_tracer_fills_the_heat_map_and_ends_with_the_detail(loop_device):
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    name = os.path.basename(loop_device)
    snap = replace(
        two_root_snapshot(),
        arrays=(MdArray("md0", "raid1", "clean", "ok", 1, 0, members=(MdMember(name, slot=0, roles=("in_sync",)),)),),
    )
    app = RaidtopApp(Config(root=Path("/"), autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(snap)
        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        tracer = app.latency.tracer
        assert tracer is not None
        assert await asyncio.to_thread(tracer.wait_attached, 90), "bpftrace never attached"
        await asyncio.to_thread(
            subprocess.run,
            ["dd", "if=/dev/zero", f"of={loop_device}", "bs=4k", "count=300", "oflag=direct"],
            capture_output=True,
            check=True,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while sum(i.hist.total for i in app.live.latency.series(name)) < 300:
            assert loop.time() < deadline, "the writes never reached the history"
            await pilot.pause(0.2)
        app.apply_snapshot(snap)  # the detail redraws with each snapshot
        await pilot.pause()
        assert drawn(app).startswith(f"{name} ▸") and "█" in drawn(app)
        pid = tracer.pid
        await pilot.press("escape")
        await pilot.pause()
        assert app.latency.tracer is None
        assert await asyncio.to_thread(tracer.join, 30) and pid is not None
