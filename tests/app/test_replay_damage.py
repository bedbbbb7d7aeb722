"""Pilot tests: a damaged or hostile recording shows notes and the app keeps running."""

from __future__ import annotations

import json
import lzma

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.recording.roots import read_recording
from raidtop.config import Config
from tests.collect.recording.recording_maker import START, record_busy, stream_offsets

from tests.app.test_replay import _wait

HOSTILE_HOST = "evil\x1b]0;pwned\x07[bold]host[/]"


def _damaged_recording(tmp_path):
    """Three busy streams, the second with a flipped bit, the header's host an escape sequence,
    and a frame whose time is 1e300 appended as a fourth stream, all under a folder named ``[``."""
    folder = tmp_path / "[" / "[/]"
    folder.mkdir(parents=True)
    path = folder / "damaged.xz"
    record_busy(path, tmp_path, frames=150, per_stream=50)
    data = bytearray(path.read_bytes())
    offsets = stream_offsets(bytes(data))
    data[(offsets[1] + offsets[2]) // 2] ^= 0x04
    # Swap in a header with a hostile host: re-compress the first stream.
    first = lzma.decompress(bytes(data[: offsets[1]])).split(b"\n", 1)
    header = json.loads(first[0])
    header["host"] = HOSTILE_HOST
    head = lzma.compress(json.dumps(header).encode() + b"\n" + first[1])
    tail = lzma.compress(json.dumps({"t": 1e300, "d": {}, "events": ["Fail"]}).encode() + b"\n")
    path.write_bytes(head + bytes(data[offsets[1] :]) + tail)
    return path


async def test_a_damaged_recording_shows_notes_and_replays_the_rest(tmp_path):
    path = _damaged_recording(tmp_path)
    app = RaidtopApp(Config(replay=path))
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        messages = [n.message for n in app._notifications]
        assert any("part 2 of the recording is damaged" in m and "[/]" in m for m in messages)
        assert any("1 damaged sample skipped" in m for m in messages)
        status = app.dashboard.query_one("#status")
        assert status.host == "replay of evil\ufffd]0;pwned\ufffd[bold]host[/]"
        assert len(app.player.replayer) == 100  # streams 1 and 3
        await pilot.press("p")
        await pilot.press("j", *"100%", "enter")
        await _wait(pilot, lambda: app.live.latest.time == START + 149)
        assert app.live.replay.index == 99
        await pilot.press("comma")
        await _wait(pilot, lambda: app.live.latest.time == START + 148)
        assert app.live.replay.index == 98
        screen = app.export_screenshot()
        assert "\x1b]0;" not in screen and "pwned" in screen
        assert app.is_running


async def test_an_unusable_recording_given_to_the_app_is_a_note_not_a_crash(tmp_path):
    folder = tmp_path / "[b]"
    folder.mkdir()
    path = folder / "x.xz"
    path.write_bytes(b"\xfd7zXZ\x00 not really")
    app = RaidtopApp(Config(replay=path))
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: any("no samples" in n.message for n in app._notifications))
        messages = [n.message for n in app._notifications]
        assert any(m.startswith("nothing to replay: ") and "[b]" in m for m in messages)
        await pilot.press("p", "full_stop", "comma", "greater_than_sign")
        await pilot.press("j", *"[/]", "enter")
        await pilot.pause()
        assert any("cannot read '[/]' as a time" in n.message for n in app.notices.offered)
        assert app.is_running


async def test_a_recording_read_by_the_caller_is_not_read_again(tmp_path):
    path = tmp_path / "rec.xz"
    record_busy(path, tmp_path, frames=5)
    recording = read_recording(path)
    path.unlink()  # the app must use what it was handed
    app = RaidtopApp(Config(replay=path), recording=recording)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None)
        assert app.player.replayer.recording is recording
        assert not [n for n in app._notifications if n.severity == "error"]
