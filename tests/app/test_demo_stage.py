"""The demo's stage: quiet until the teacher acts, the recording plays once when asked, reset and speed keys.

The demo clock is driven by the test (no sleeping): each step moves it one
second and takes the sample the sampler worker would take.
"""

from __future__ import annotations

from textual.geometry import Region

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.demo.controller import DemoController
from raidtop.widgets.text_table import TextTable


class DemoClock:
    """Seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def demo_app(clock: DemoClock, play_recording: bool = False) -> RaidtopApp:
    # The app's own controller, on the test's clock.
    demo = DemoController(clock=clock, play_recording=play_recording)
    app = RaidtopApp(Config(demo=True, demo_recording=play_recording, autostart_sampler=False), demo=demo)
    app.bells = 0

    def bell() -> None:
        app.bells += 1

    app.bell = bell
    return app


async def run_for(app: RaidtopApp, pilot, clock: DemoClock, seconds: int) -> list:
    """Advance the demo ``seconds`` one second at a time; every snapshot shown, in order."""
    snaps = []
    for _ in range(seconds):
        clock.now += 1.0
        snap = app.sampling.sample_once()
        app.apply_snapshot(snap)
        snaps.append(snap)
    await pilot.pause()
    return snaps


async def grid_focused(app, pilot) -> TextTable:
    """The member grid once it has taken the focus (after the refresh that shows its rows; bounded)."""
    grid = app.screen.query_one("#member-table", TextTable)
    # Up to 10 s: the rows come from the sampling thread, slow on a loaded machine (a bounded wait, not a timing check).
    for _ in range(200):
        if app.focused is grid:
            break
        await pilot.pause(0.05)
    return grid


def stage_bar_text(app) -> str:
    """The stage bar's words as drawn, lines joined, when it is wholly inside the screen."""
    bar = app.screen.query_one("#stage-bar")
    assert bar.display and bar.region.height > 0 and bar.region.bottom <= app.size.height
    strips = bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))
    return " ".join(" ".join(strip.text.split()) for strip in strips).strip()


def md9(app):
    return next(a for a in app.live.latest.arrays if a.name == "md9")


def member_cells(app) -> dict[str, tuple[str, ...]]:
    rows = app.screen.query_one("#member-table", TextTable).rows
    return {r.key.split("/")[1]: r.cells for r in rows if r.key.startswith("md9/")}


async def test_150_seconds_untouched_ring_no_bell_and_add_no_note():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        before = len(app._notifications)
        snaps = await run_for(app, pilot, clock, 150)
        assert app.bells == 0
        assert [s.notes for s in snaps if s.notes] == []
        assert len(app._notifications) == before, [n.message for n in app._notifications]
        # Nothing happens by itself: the recorded md6 stays held at its start, whole.
        assert [e for s in snaps for e in s.events if e.array == "md6"] == []
        assert next(a for a in snaps[-1].arrays if a.name == "md6").health == "ok"
        assert md9(app).health == "ok" and md9(app).sync is None


async def test_the_recording_plays_once_only_when_asked_and_says_so_at_projector_widths():
    clock = DemoClock()
    held = demo_app(clock)
    async with held.run_test(size=(80, 24)) as pilot:
        await run_for(held, pilot, clock, 3)
        assert "held at its start" in stage_bar_text(held) and "--demo-recording plays it" in stage_bar_text(held)
    app = demo_app(clock, play_recording=True)
    async with app.run_test(size=(80, 24)) as pilot:
        snaps = await run_for(app, pilot, clock, 80)
        # Played once: md6 failed once, rebuilt once, and holds whole; no bell for the recording.
        md6 = [e.event for s in snaps for e in s.events if e.array == "md6"]
        assert md6.count("Fail") == 1 and md6.count("RebuildFinished") == 1
        assert "Fail" not in md6[md6.index("SpareActive") :]
        assert next(a for a in snaps[-1].arrays if a.name == "md6").health == "ok"
        assert app.bells == 0
        for width, height in ((80, 24), (100, 30)):
            await pilot.resize_terminal(width, height)
            await pilot.pause()
            # The line that says where md6 comes from is on screen whole (it wraps, never cut).
            shown = stage_bar_text(app)
            assert "a rebuild recorded on a real kernel (realmd-vm), played to its end" in shown, shown


async def test_rebuilding_disk_empty_slot_speed_and_reset():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_for(app, pilot, clock, 1)
        sim = app.demo.sim
        victim = sim.members[1].name
        table = app.screen.query_one("#member-table", TextTable)
        table.focus()
        table.move_cursor_to_key(f"md9/{victim}")
        await pilot.press("f")
        await run_for(app, pilot, clock, 1)
        table.move_cursor_to_key(f"md9/{victim}")
        await pilot.press("r")
        await run_for(app, pilot, clock, 1)
        cells = member_cells(app)
        assert victim not in cells
        assert cells["#1"][1:4] == ("(empty)", "1", " missing: add a disk")  # the gap keeps its row
        await pilot.press("a")
        await run_for(app, pilot, clock, 1)
        await pilot.press("left_square_bracket")  # slower rebuild: a longer ETA
        assert sim.speed_limit_kib_s == 10 * 1024  # 10 MiB/s
        await run_for(app, pilot, clock, 10)
        new = sim.members[-1].name
        percent = md9(app).sync.percent
        assert member_cells(app)[new][3] == f" rebuilding {percent:.0f} %"
        assert md9(app).sync_speed_max == 10 * 1024
        # Fail a second disk: broken; then reset brings back a whole array, quietly.
        table.move_cursor_to_key(f"md9/{sim.members[0].name}")
        await pilot.press("f")
        await run_for(app, pilot, clock, 1)
        assert md9(app).health == "failed"
        bells = app.bells
        await pilot.press("z")
        snaps = await run_for(app, pilot, clock, 3)
        assert md9(app).health == "ok" and md9(app).sync is None
        assert app.bells == bells
        assert [s.notes for s in snaps if s.notes] == []


async def test_the_demo_offers_only_keys_that_work_and_refuses_in_sentences():
    clock = DemoClock()
    app = demo_app(clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_for(app, pilot, clock, 1)
        assert app.check_action("replay_step", (1,)) is False
        assert app.check_action("toggle_recording", ()) is False
        assert app.check_action("demo", ("reset",)) is True
        panel = app.screen.query_one("#arrays")
        panel.query_one("#member-table", TextTable).focus()
        await pilot.pause()
        assert panel.check_action("member", ("add_spare",)) is False
        assert panel.check_action("member", ("fail",)) is True
        from raidtop.actions.member_actions import ActionRefused

        for verb, member in (("add_spare", None), ("fail", "#2")):
            try:
                app.demo.command(verb, "md9", member)
            except ActionRefused as exc:
                assert "_" not in str(exc) and " " in str(exc)
            else:
                raise AssertionError(f"{verb} was not refused")


async def test_the_demo_offers_no_key_that_acts_on_the_real_machine():
    # --demo reads this machine's other panels with root "/": Tuning, fio and the lab would act on it for real.
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config
    from raidtop.screens.dashboard.screen import DashboardScreen

    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for key in ("t", "b", "l"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen), key
        # active_bindings leaves out what check_action hides.
        shown = {binding.id for _node, binding, _enabled, _tip in app.screen.active_bindings.values()}
        assert "explain" in shown  # a key that stays, so the check below sees the dashboard's keys
        assert not shown & {"tuning", "bench", "lab"}
