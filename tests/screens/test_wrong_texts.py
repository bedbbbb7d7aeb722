"""Issue 15's wrong texts, each checked at its cause: explain's [n/m], "none" as a sync action,
the detail plot's axis and legend, and replay events that depended on how one got to a position."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.demo.controller import BUNDLED_REBUILD
from raidtop.presentation.explain import explain_array
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray, MdSync
from raidtop.live.history import SyncPoint
from raidtop.screens.array_detail import detail_rows, sync_plot


def test_explain_shows_n_over_m_with_the_subtraction_it_makes():
    array = MdArray(name="md0", level="raid5", state="clean", health="ok", raid_disks=3, degraded=0)
    line = explain_array(Snapshot(time=1.0, interval_s=1.0, arrays=(array,)), "md0").lines[0]
    assert line.result == "[3/3]"
    assert line.numbers == "3 / (3 − 0)"  # it said "3 / 0" for [3/3]


def test_the_detail_never_prints_none_as_a_sync_action():
    recovering = MdArray(
        name="md0",
        level="raid5",
        state="active",
        health="degraded",
        raid_disks=3,
        degraded=1,
        mismatch_cnt=0,
        last_sync_action=None,
        sync=MdSync(action="recover", percent=34.0),
    )
    idle = MdArray(
        name="md0",
        level="raid5",
        state="clean",
        health="ok",
        raid_disks=3,
        degraded=0,
        mismatch_cnt=0,
        last_sync_action=None,
    )
    for array, said in ((recovering, "recover (running now)"), (idle, "no sync has run since the array was assembled")):
        rows = {row.key: row.cells[1] for row in detail_rows(array, None)}
        assert rows["Last sync action"] == said
        text = " ".join(cell for row in detail_rows(array, None) for cell in row.cells)
        assert " none" not in text and "a none" not in text
    verdict = " ".join(row.cells[1] for row in detail_rows(recovering, None) if row.key.startswith("verdict"))
    assert "counted during a recover" in verdict and verdict.endswith(".")  # whole sentence, not cut


def test_the_sync_plot_shows_whole_right_axis_labels_and_a_plain_legend():
    points = [SyncPoint(100.0 + i, "recover", i * 1.5, 20000.0 + i * 100, 100.0) for i in range(60)]
    text = sync_plot(points, 60, 14, (80, 160, 210), (230, 190, 120)).plain
    assert "⅃" not in text and "L ⢕" not in text  # plotext's side glyphs in its legend
    assert text.splitlines()[0].startswith("━ speed MiB/s")
    right = [line.split()[-1] for line in text.splitlines()[1:-2] if line.rstrip().endswith("%")]
    assert right and right[0] == "88%" and right[-1] == "0%"  # it printed "88." and "0.0"


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # bounded wait for the replay worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


def md6_events(app) -> list[tuple[float, str, str | None]]:
    return [(e.time, e.event, e.member) for e in app.live.history.events_of("md6")]


async def test_replay_events_are_a_function_of_the_position():
    app = RaidtopApp(Config(replay=BUNDLED_REBUILD))
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        await pilot.press("p")
        await pilot.press("j")
        await pilot.press("backspace", "backspace", "backspace", *"50%", "enter")
        recording = app.player.replayer.recording
        middle = recording.index_at((recording.start + recording.end) / 2)
        await _wait(
            pilot,
            lambda: app.live.replay.index == middle and app.live.latest.time == recording.frames[middle].time,
        )
        at_middle = md6_events(app)
        assert [e[1] for e in at_middle][:3] == ["Fail", "DegradedArray", "RebuildStarted"]
        for key in ("comma", "comma", "full_stop", "full_stop", "comma", "full_stop"):
            target = app.live.replay.index + (1 if key == "full_stop" else -1)
            await pilot.press(key)
            await _wait(pilot, lambda target=target: app.live.latest.time == recording.frames[target].time)
        assert app.live.replay.index == middle
        assert md6_events(app) == at_middle  # no doubles after scrubbing back and forth


def test_the_sync_plot_legend_renders_in_a_widget():
    # The legend's colour was the string "rgb(80, 160, 210)", which Rich cannot parse (it splits at spaces):
    # the detail screen of a syncing array crashed when its plot first had points.
    from textual.content import Content

    points = [SyncPoint(100.0 + i, "recover", i * 1.5, 20000.0 + i * 100, 100.0) for i in range(30)]
    content = Content.from_rich_text(sync_plot(points, 60, 14, (80, 160, 210), (230, 190, 120)))
    assert "speed MiB/s" in content.plain
