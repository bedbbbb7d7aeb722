"""Latency distributions in the member grid: columns from fed histograms, and the app's bpftrace only while a grid
is open and seen."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path

import pytest

from raidtop.app.messages import LatencySampled
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.latency.histogram import delta, from_values, parse_hist_message
from raidtop.latency.summary import summarize
from raidtop.latency.tracer import why_unavailable
from raidtop.model.md import MdArray, MdMember
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.text_table import TextTable

from tests.conftest import gone

RECORDED = Path(__file__).resolve().parents[2] / "data" / "bpftrace" / "raidtop-loop-members.jsonl"
KEYS = {str(7 << 20 | n): f"loop{n}" for n in range(3)}


def with_array(snap, members: list[str]):
    array = MdArray(
        "md0",
        "raid5",
        "clean",
        "ok",
        len(members),
        0,
        members=tuple(MdMember(name, slot=n, roles=("in_sync",)) for n, name in enumerate(members)),
    )
    return replace(snap, arrays=(array,))


async def until(pilot, condition, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not reached"
        await pilot.pause(0.05)


def grid(app) -> TextTable:
    return app.dashboard.query_one("#member-table", TextTable)


def cells(app, member: str) -> dict[str, str]:
    table = grid(app)
    row = next(r for r in table.rows if r.key == f"md0/{member}")
    return {c.key: text for c, text in zip(table.columns, row.cells)}


async def test_fed_histograms_fill_the_grids_latency_columns_and_the_slow_mark_follows_p99(
    static_config, sample_snapshot
):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(with_array(sample_snapshot, ["loop0", "loop1", "loop2"]))
        await pilot.pause()
        assert [c.key for c in grid(app).columns if c.key.endswith("_ms") and c.key[0] in "pm"] == []
        app.dashboard.query_one(ArraysPanel).toggle("md0")
        await pilot.pause()
        # A fixture root is not this machine: nothing is loaded, nothing is said.
        assert app.latency.devices == {"loop0", "loop1", "loop2"} and app.latency.tracer is None
        assert not any("latency" in n.message or "bpftrace" in n.message for n in app._notifications)
        first, second = [h for h in map(parse_hist_message, RECORDED.read_text().splitlines()) if h][:2]
        hists = {KEYS[k]: delta(second[k], first[k]) for k in KEYS}
        hists["loop1"] = from_values([40_000 + i % 500 for i in range(1000)])  # a slow leg
        latencies = {name: summarize(h) for name, h in hists.items()}
        app.post_message(LatencySampled(hists))
        await until(pilot, lambda: "p99_ms" in [c.key for c in grid(app).columns])
        assert [c.label for c in grid(app).columns if c.key in ("p50_ms", "p99_ms", "max_ms")] == ["p50", "p99", "max"]
        keys = [c.key for c in grid(app).columns]
        assert "rkib_s" not in keys and keys[-1] == "flag"  # throughput gives way, the mark stays
        # ...on screen: the whole grid fits a 120-column terminal, no scrolling to find the mark.
        assert sum(grid(app).column_widths) <= grid(app).scrollable_content_region.width
        loop0, loop1 = cells(app, "loop0"), cells(app, "loop1")
        assert loop0["p99_ms"] == f"{latencies['loop0'].p99_ms:.2f}" and loop0["flag"] == ""
        assert (
            loop1["p50_ms"] == f"{latencies['loop1'].p50_ms:.2f}" and loop1["max_ms"] == "65.53"
        )  # the bucket [32768, 65535] µs
        assert loop1["flag"] == "⚠ p99"
        # No distribution any more: the columns go and the mark is the average await's again.
        app.post_message(LatencySampled(None))
        await until(pilot, lambda: "p99_ms" not in [c.key for c in grid(app).columns])


async def test_without_bpftrace_the_grid_says_once_that_the_mark_is_the_average_awaits(sample_snapshot, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("needs root: as another user the reason given is root, not bpftrace")
    monkeypatch.setenv("PATH", "/nonexistent")  # this machine, live, but no bpftrace to be found
    app = RaidtopApp(Config(root=Path("/"), autostart_sampler=False))
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(with_array(sample_snapshot, ["loop0", "loop1"]))
        panel = app.dashboard.query_one(ArraysPanel)
        for _ in range(2):  # open, close, open again
            panel.toggle("md0")
            await pilot.pause()
            panel.toggle("md0")
            await pilot.pause()
        said = [n.message for n in app._notifications if "latency" in n.message]
        assert said == [
            "No latency distributions: bpftrace is not installed; "
            "slow = average await > 3× the siblings' median (no latency distribution)."
        ]
        assert app.latency.tracer is None
        assert "p99_ms" not in [c.key for c in grid(app).columns]


@pytest.mark.live
@pytest.mark.parametrize("leave", ["close-grid", "cover", "quit"])
async def test_bpftrace_runs_only_while_the_grid_is_open(sample_snapshot, loop_device, leave):
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    name = os.path.basename(loop_device)
    app = RaidtopApp(Config(root=Path("/"), autostart_sampler=False))
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(with_array(sample_snapshot, [name]))
        await pilot.pause()
        watch = app.latency  # the app's one tracer
        assert watch.tracer is None  # no grid open: no process, no thread
        app.dashboard.query_one(ArraysPanel).toggle("md0")
        await pilot.pause()
        tracer = watch.tracer
        assert tracer is not None
        # Said before it runs: what goes into the kernel, on which devices, and why.
        assert any("loads a bpftrace program" in n.message and name in n.message for n in app._notifications)
        await until(pilot, lambda: "p99_ms" in [c.key for c in grid(app).columns], 90)
        pid = tracer.pid
        assert pid is not None and not gone(pid)
        if leave == "cover":
            # Another screen over the dashboard hides the grid: bpftrace stops, and comes back with it.
            await pilot.press("question_mark")
            await until(pilot, lambda: watch.tracer is None and not tracer.alive)
            assert gone(pid)
            await pilot.press("escape")
            await until(pilot, lambda: watch.tracer is not None and watch.tracer.pid is not None)
            second = watch.tracer
            assert second.pid is not None and not gone(second.pid)
        if leave == "close-grid":
            app.dashboard.query_one(ArraysPanel).toggle("md0")
            await pilot.pause()
            assert watch.tracer is None
            await until(pilot, lambda: not tracer.alive)
            assert gone(pid)
            await until(pilot, lambda: "p99_ms" not in [c.key for c in grid(app).columns])
    if leave == "quit":
        assert tracer.join(30) and gone(pid)
    if leave == "cover":
        assert second.join(30) and second.pid is not None and gone(second.pid)
