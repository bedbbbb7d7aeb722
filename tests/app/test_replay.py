"""Pilot tests: --replay stepping, seeking and speed; recording from the app with R."""

from __future__ import annotations


from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.recording.roots import read_recording
from raidtop.config import Config
from raidtop.live.replay_position import parse_jump
from tests.collect.recording.test_recording import TREES, record

from tests.conftest import DATA


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # a bounded wait for the worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


async def test_replay_steps_seeks_and_changes_speed(tmp_path):
    path = tmp_path / "rec.xz"
    live = record(path, TREES * 4, frames=12)
    app = RaidtopApp(Config(replay=path))
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        assert app.dashboard.query_one("#status").badge == "REPLAY"
        assert app.dashboard.query_one("#time-bar").display
        await pilot.press("p")  # pause
        assert not app.live.replay.playing
        here = app.live.replay.index
        await pilot.press("full_stop")
        await _wait(pilot, lambda: app.live.replay.index == here + 1)
        assert app.live.latest == live[here + 1]
        await pilot.press("comma")
        await _wait(pilot, lambda: app.live.replay.index == here)
        assert app.live.latest == live[here]
        await pilot.press("j")
        await pilot.press(*"50%", "enter")
        await _wait(
            pilot,
            lambda: app.live.replay.index == read_recording(path).index_at((live[0].time + live[-1].time) / 2),
        )
        assert app.live.latest == live[app.live.replay.index]
        await pilot.press("greater_than_sign", "greater_than_sign")
        assert app.live.replay.speed == 5.0
        await pilot.press("less_than_sign")
        assert app.live.replay.speed == 2.0


async def test_replay_plays_to_the_end_and_stops(tmp_path):
    path = tmp_path / "rec.xz"
    record(path, TREES, frames=4)
    app = RaidtopApp(Config(replay=path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*["greater_than_sign"] * 5)  # 60×: the 10 s gaps pass quickly
        await _wait(pilot, lambda: app.live.replay.index == 3 and not app.live.replay.playing)
        assert app.live.replay.index == 3


async def finished_recording(app: RaidtopApp) -> None:
    """Wait for the recorder's worker to finish the file (the sampler's worker never completes)."""
    # Not wait_for_complete([]): an empty list means every worker, the sampler's included.
    for worker in [w for w in app.workers if w.group == "recorder"]:
        await worker.wait()


async def test_recording_key_writes_a_replayable_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    app = RaidtopApp(Config(root=DATA / "root1", interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("R")
        await _wait(pilot, lambda: app.session_recorder.active is not None)  # the file is created in a worker
        writer = app.session_recorder.active[1]
        await _wait(pilot, lambda: writer.frames >= 2)
        await pilot.press("R")
        assert app.session_recorder.active is None
        await finished_recording(app)
    recording = read_recording(writer.path)
    assert len(recording.frames) >= 2 and recording.notes == []
    assert any(key.startswith("f:/proc/diskstats") for key in recording.frames[0].delta)


def test_parse_jump_forms():
    start, end = 1000.0, 2000.0
    assert parse_jump("+30s", start, end, 1500.0) == 1530.0
    assert parse_jump("-2m", start, end, 1500.0) == 1380.0
    assert parse_jump("50%", start, end, 1200.0) == 1500.0
    assert parse_jump("90", start, end, 1200.0) == 1090.0
    assert parse_jump("+1h", start, end, 1500.0) == end  # clamped
    assert parse_jump("soon", start, end, 1500.0) is None


async def test_a_noted_action_lands_in_the_recording_and_one_before_it_does_not(tmp_path, monkeypatch):
    """The recorder marks changes to the system for the replay's time bar, only while it records."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    app = RaidtopApp(Config(root=DATA / "root1", interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        app.note_action("lab", "mdadm --fail /dev/md9 /dev/loop9  # before recording")
        await pilot.press("R")
        await _wait(pilot, lambda: app.session_recorder.active is not None)
        writer = app.session_recorder.active[1]
        await _wait(pilot, lambda: writer.frames >= 1)
        app.note_action("lab", "mdadm --fail /dev/md9 /dev/loop9")
        noted_at = writer.frames
        # Two more frames: the one in flight may have taken its actions just before the note.
        await _wait(pilot, lambda: writer.frames >= noted_at + 2, tries=2400)
        assert writer.frames >= noted_at + 2
        await pilot.press("R")
        await finished_recording(app)
    actions = [a for frame in read_recording(writer.path).frames for a in frame.actions]
    assert [a["command"] for a in actions] == ["mdadm --fail /dev/md9 /dev/loop9"]
    assert actions[0]["kind"] == "lab"
