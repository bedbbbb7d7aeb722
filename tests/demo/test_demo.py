"""Pilot test of --demo: fail, remove, add on the simulated array; DEMO shown throughout."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.widgets.text_table import TextTable


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # bounded wait for the sampler worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


def md9(app):
    snap = app.live.latest
    return next(a for a in snap.arrays if a.name == "md9") if snap else None


def member_roles(app) -> dict[str, str]:
    rows = app.screen.query_one("#member-table", TextTable).rows
    return {r.key.split("/")[1]: r.cells[3].strip() for r in rows}


async def test_demo_fail_remove_add_goes_degraded_recovering_clean():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.dashboard.query_one("#status")
        await _wait(pilot, lambda: md9(app) is not None)
        assert status.badge == "DEMO — SIMULATED"
        sim = app.demo.sim
        sim.advance(sim.component_kib)  # let the initial build finish now
        await _wait(pilot, lambda: md9(app).health == "ok" and md9(app).sync is None)
        await _wait(pilot, lambda: app.focused is not None and app.focused.id == "member-table")
        assert app.focused.id == "member-table"
        table = app.screen.query_one("#member-table", TextTable)
        victim = sim.members[1].name
        table.move_cursor_to_key(f"md9/{victim}")
        states = []

        await pilot.press("f")
        await _wait(pilot, lambda: member_roles(app).get(victim) == "faulty")
        states.append(md9(app).health)
        table.move_cursor_to_key(f"md9/{victim}")
        await pilot.press("r")
        await _wait(pilot, lambda: victim not in member_roles(app))
        states.append(md9(app).health)
        await pilot.press("a")
        await _wait(pilot, lambda: md9(app).sync is not None)
        new = sim.members[-1].name
        assert member_roles(app)[new].startswith("rebuilding ")
        states.append("recovering" if md9(app).sync.action == "recover" else md9(app).sync.action)
        sim.advance(sim.component_kib)
        await _wait(pilot, lambda: md9(app).health == "ok")
        states.append(md9(app).health)
        assert member_roles(app)[new] == "in_sync"
        assert states == ["degraded", "degraded", "recovering", "ok"]
        assert status.badge == "DEMO — SIMULATED"
        titles = [n.title for n in app.notices.offered]
        assert "md9: Fail" in titles and "md9: RebuildFinished" in titles


async def test_demo_refuses_what_md_refuses():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: md9(app) is not None)
        app.demo.sim.advance(app.demo.sim.component_kib)
        table = app.screen.query_one("#member-table", TextTable)
        await _wait(pilot, lambda: md9(app).health == "ok")
        table.move_cursor_to_key(f"md9/{app.demo.sim.members[0].name}")
        await pilot.press("r")  # an in-sync member cannot be removed
        # mdadm's answer comes back from the member flow's worker thread.
        await _wait(pilot, lambda: any("busy" in n.message for n in app._notifications))
        assert any("busy" in n.message for n in app._notifications)
        assert md9(app).health == "ok"


async def test_the_demos_desktop_disk_is_marked_slow_in_the_member_grid_by_its_average_wait():
    # Issue 28: the demo shows a slow member. The demo starts no bpftrace, so the mark is the
    # await-based one; the desktop disk (the audit's erc-mismatch) is the slow one.
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(160, 40)) as pilot:
        await _wait(pilot, lambda: md9(app) is not None)
        slow = app.demo.sim.members[2].name

        def marked() -> dict[str, str]:
            rows = app.screen.query_one("#member-table", TextTable).rows
            return {r.key.split("/")[1]: " ".join(r.cells) for r in rows}

        await _wait(pilot, lambda: "⚠" in marked().get(slow, ""))
        grid = marked()
        assert "⚠ slow" in grid[slow]
        assert [name for name, row in grid.items() if "⚠" in row] == [slow]


def _demo_second_sample():
    """A demo on a fixed clock and the sampler's second snapshot of it, one second of load later."""
    from raidtop.collect.sampler import Sampler
    from raidtop.demo.controller import DemoController

    now = [1000.0]
    demo = DemoController(clock=lambda: now[0])
    sampler = Sampler(demo.root)
    sampler.sample()
    now[0] += 1.0
    demo.tick()
    return demo, sampler.sample()


def test_explain_on_a_simulated_member_gives_the_grids_figures():
    """The recording under the demo lists loop20-loop29 too; the simulated lines replace those of the
    same name (the kernel lists a device once): with both, the grid showed 54 r/s and Explain 0."""
    from raidtop.model.disk_columns import disk_named
    from raidtop.presentation.explain import explain_disk

    demo, snap = _demo_second_sample()
    names = [line.split()[2] for line in demo.root.read_text("/proc/diskstats").splitlines()]
    assert len(names) == len(set(names)) and "loop20" in names and "loop29" in names
    member = demo.sim.members[0].name
    row = disk_named(snap.disks, member)
    explained = explain_disk(snap, member)
    assert row is not None and explained is not None and row.r_s
    shown = {line.name: line.result.strip() for line in explained.lines}
    assert shown["r/s"] == f"{row.r_s:.2f}" and float(shown["r/s"]) > 0


def test_a_simulated_member_serving_the_services_is_as_busy_as_its_requests_say():
    """127 IO/s at 0 % util misled: the services' requests now count their time as diskstats does."""
    from raidtop.model.disk_columns import disk_named

    demo, snap = _demo_second_sample()
    row = disk_named(snap.disks, demo.sim.members[0].name)
    assert row is not None and row.r_s and row.w_s and row.r_await_ms and row.w_await_ms
    # Requests one at a time: busy time is the sum of their times (capped at the interval).
    expected = min(100.0, (row.r_s * row.r_await_ms + row.w_s * row.w_await_ms) / 10)
    assert row.util_pct is not None and abs(row.util_pct - expected) <= 1.0, (row.util_pct, expected)


def test_no_demo_disk_is_busier_than_the_time_that_passed():
    """The slow disk showed 100.10 % util, a recovering one more: the sync's and the services' busy time
    were added without a cap between them, and /proc/uptime was the time of the read, not of the counters."""
    from raidtop.collect.sampler import Sampler
    from raidtop.demo.controller import DemoController
    from raidtop.model.disk_columns import disk_names, rate_column

    now = [1000.0037]
    demo = DemoController(clock=lambda: now[0])
    victim = demo.sim.members[0].name
    demo.sim.fail(victim)
    demo.sim.remove(victim)
    demo.sim.add()  # a recovery: its disks are busy with the sync and with the services at once
    sampler = Sampler(demo.root)
    sampler.sample()
    utils: list[float] = []
    # Ticks of a real clock (not whole hundredths: /proc/uptime has two decimals), read a little late.
    for step, late in ((0.5037, 0.05), (0.4991, 0.0), (0.5004, 0.083), (0.5066, 0.011), (0.4958, 0.0)):
        now[0] += step
        demo.tick()
        now[0] += late
        snap = sampler.sample()
        named = zip(disk_names(snap.disks), rate_column(snap.disks, "util_pct"))
        utils += [util for name, util in named if name.startswith("loop") and util is not None]
    assert demo.sim.sync_action is not None
    assert utils and max(utils) <= 100.0, sorted(utils)[-5:]
    assert max(utils) >= 99.0  # the slow disk is saturated: the cap is reached, not avoided
