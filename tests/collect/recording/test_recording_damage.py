"""Reading recordings that are long, damaged, hostile or not files at all.

Each test reproduces a failure found against the earlier reader: it read only
the first 64 KiB of compressed data, decompressed a bomb without limit,
crashed on absurd frames, refused a whole file for one flipped bit and let
escape sequences through. Recordings are made by raidtop's own recorder on a
busy copy of a fixture tree (tests/collect/recording/recording_maker.py).
"""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from raidtop.collect.recording.roots import RecordingError, read_recording
from raidtop.collect.recording.replayer import Replayer
from tests.collect.recording.recording_maker import START, record_busy, stream_offsets

REPO = Path(__file__).resolve().parents[3]
HEADER = {"format": "raidtop-recording", "version": 1, "host": "test", "interval_s": 1.0}


@pytest.fixture(scope="module")
def ten_minutes(tmp_path_factory):
    """A recording shaped like ``raidtop record --duration 600``: 599 samples in 10 streams."""
    directory = tmp_path_factory.mktemp("ten-minutes")
    path = directory / "ten-minutes.xz"
    live = record_busy(path, directory, frames=599)
    return path, live


def _lines_file(path: Path, lines: list, per_stream: int | None = None) -> Path:
    """Write JSON lines (or raw strings) as one xz stream, or one per ``per_stream`` lines."""
    encoded = [(line if isinstance(line, str) else json.dumps(line)).encode() + b"\n" for line in lines]
    step = per_stream or len(encoded)
    path.write_bytes(b"".join(lzma.compress(b"".join(encoded[i : i + step])) for i in range(0, len(encoded), step)))
    return path


def _frame(i: int, **extra) -> dict:
    return {
        "t": START + i,
        "d": {"f:/proc/loadavg": f"0.{i:02d} 0.00 0.00 1/100 {i}\n"},
        "events": [],
        "actions": [],
        **extra,
    }


# --------------------------------------------------------------- every stream


def test_a_ten_minute_recording_replays_every_frame(ten_minutes):
    path, live = ten_minutes
    data = path.read_bytes()
    assert len(stream_offsets(data)) == 10
    assert len(data) > 200_000  # far past the 64 KiB the old reader decoded
    recording = read_recording(path)
    assert recording.notes == []  # in particular no false "ends early"
    assert len(recording.frames) == 599
    replayer = Replayer(recording)
    assert [replayer.snapshot_at(i) for i in range(599)] == live


def test_a_file_cut_while_being_written_replays_up_to_the_cut_and_says_so(ten_minutes, tmp_path):
    path, live = ten_minutes
    data = path.read_bytes()
    offsets = stream_offsets(data)
    cut = tmp_path / "cut.xz"
    cut.write_bytes(data[: (offsets[6] + offsets[7]) // 2])  # half-way through the seventh stream
    recording = read_recording(cut)
    assert len(recording.notes) == 1 and "ends early" in recording.notes[0]
    assert 360 <= len(recording.frames) < 420
    replayer = Replayer(recording)
    for i in (0, 359, len(recording.frames) - 1):
        assert replayer.snapshot_at(i) == live[i]


# --------------------------------------------------------------- damage


def _flip_bit(data: bytes, offset: int) -> bytes:
    damaged = bytearray(data)
    damaged[offset] ^= 0x10
    return bytes(damaged)


@pytest.mark.parametrize(("stream", "where"), [(0, "middle"), (0, "magic"), (1, "middle"), (5, "middle")])
def test_a_flipped_bit_costs_only_its_stream(ten_minutes, tmp_path, stream, where):
    path, live = ten_minutes
    data = path.read_bytes()
    offsets = stream_offsets(data) + [len(data)]
    damaged = tmp_path / "flipped.xz"
    offset = offsets[stream] + 3 if where == "magic" else (offsets[stream] + offsets[stream + 1]) // 2
    damaged.write_bytes(_flip_bit(data, offset))
    recording = read_recording(damaged)
    lost = set(range(stream * 60, stream * 60 + 60))
    kept = [i for i in range(599) if i not in lost]
    assert [f.time for f in recording.frames] == [live[i].time for i in kept]
    assert any(f"part {stream + 1} of the recording is damaged" in note for note in recording.notes)
    # The stream after the gap starts with every answer, so its samples replay
    # exactly (from its second one: the first has no predecessor for rates).
    replayer = Replayer(recording)
    after_gap = stream * 60
    for j in (after_gap + 1, after_gap + 30, len(kept) - 1):
        assert replayer.snapshot_at(j) == live[kept[j]]


def test_bad_frames_are_skipped_with_a_note_and_the_rest_replays(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    lines = [
        HEADER,
        _frame(0),
        _frame(1, t=1e300),
        _frame(2, t="nan"),
        '{"t": NaN, "d": {}}',
        _frame(3, events=[1, 2]),
        _frame(4, events="Fail"),
        deep,
        '{"t": ' + "9" * 5000 + ', "d": {}}',
        _frame(5, d={"f:/x": 7}),
        _frame(6, d=[]),
        "not json",
        _frame(7),
        _frame(8, t=True),
        _frame(9),
    ]
    recording = read_recording(_lines_file(tmp_path / "bad.xz", lines))
    assert [f.time for f in recording.frames] == [START, START + 7, START + 9]
    (note,) = recording.notes
    assert note.endswith(
        "11 damaged samples skipped (after 22:13:20, …; the first: its time is out of range)".replace(
            "22:13:20", time.strftime("%H:%M:%S", time.localtime(START))
        )
    )
    replayer = Replayer(recording)
    assert replayer.snapshot_at(2).time == START + 9


def test_strings_from_a_recording_are_made_plain(tmp_path):
    title = "\x1b]0;pwned\x07\x9b31m"
    header = dict(HEADER, host=title, raidtop="\x1b[2J")
    frame = _frame(
        0,
        events=[{"array": "md0\x1b[5m", "event": "Fail", "member": "sda\u202e"}],
        actions=[{"kind": "fail\x1b", "command": "mdadm\x07", "time": 1.0}],
    )
    frame["d"]["f:/proc/mdstat"] = {"error": "/proc/mdstat: \x1b]0;x\x07"}
    recording = read_recording(_lines_file(tmp_path / "esc.xz", [header, frame]))
    text = json.dumps(
        [
            recording.header,
            recording.frames[0].events,
            recording.frames[0].actions,
            recording.frames[0].delta["f:/proc/mdstat"],
        ],
        ensure_ascii=False,
    )
    for control in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert control not in text
    assert recording.header["host"] == "\ufffd]0;pwned\ufffd\ufffd31m"


def test_a_future_format_is_still_refused(tmp_path):
    future = _lines_file(tmp_path / "future.xz", [dict(HEADER, version=2), _frame(0)])
    with pytest.raises(RecordingError, match="newer raidtop"):
        read_recording(future)
    for version in (0, "1", True, None):
        with pytest.raises(RecordingError, match="not a raidtop recording"):
            read_recording(_lines_file(tmp_path / "odd.xz", [dict(HEADER, version=version), _frame(0)]))


def test_garbage_between_streams_is_skipped_with_a_note(ten_minutes, tmp_path):
    path, _ = ten_minutes
    data = path.read_bytes()
    offsets = stream_offsets(data)
    spliced = tmp_path / "spliced.xz"
    spliced.write_bytes(data[: offsets[3]] + b"\0" * 8 + b"garbage" + data[offsets[3] :])
    recording = read_recording(spliced)
    assert len(recording.frames) == 599
    assert len(recording.notes) == 1 and "7 bytes after" in recording.notes[0]


# --------------------------------------------------------------- limits


def _rss_after_reading(path: Path) -> tuple[str, int]:
    """Read ``path`` in a fresh interpreter: (outcome, peak RSS in KiB)."""
    script = (
        "import sys\n"
        "from raidtop.collect.recording.roots import RecordingError, read_recording\n"
        "try:\n"
        "    r = read_recording(sys.argv[1]); print('frames', len(r.frames), r.notes)\n"
        "except RecordingError as exc:\n"
        "    print('refused', exc)\n"
        # VmHWM, not ru_maxrss: a child started by vfork+exec inherits its parent's peak in ru_maxrss,
        # so after a long pytest run it reported pytest's size, not the probe's.
        "print(next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    outcome, rss = result.stdout.rsplit("\n", 2)[:2]
    return outcome, int(rss)


def _zeros_stream(megabytes: int, prefix: bytes = b"") -> bytes:
    compressor = lzma.LZMACompressor(preset=0)
    zeros = bytes(1 << 20)
    return (
        compressor.compress(prefix)
        + b"".join(compressor.compress(zeros) for _ in range(megabytes))
        + compressor.flush()
    )


def test_an_xz_bomb_is_stopped_by_the_limits(tmp_path):
    # 3 GB of zeros in ten 300 MB streams, about 460 KB on disk; the first
    # stream starts with a valid header, so the reader must go past it.
    bomb_stream = _zeros_stream(300)
    bomb = tmp_path / "bomb.xz"
    bomb.write_bytes(_zeros_stream(300, prefix=json.dumps(HEADER).encode() + b"\n") + bomb_stream * 9)
    assert bomb.stat().st_size < 600_000
    outcome, rss_kib = _rss_after_reading(bomb)
    assert (
        outcome.startswith("refused")
        and "line longer than 32 MiB" in outcome
        and "nothing is left to replay" in outcome
    )
    assert rss_kib < 400 * 1024  # the old reader reached 6.3 GB


def test_a_bomb_of_tiny_frames_stops_at_the_frame_limit(tmp_path, monkeypatch):
    from raidtop.collect.recording import read as recording_read

    monkeypatch.setattr(recording_read, "MAX_FRAMES", 5_000)
    tiny = json.dumps({"t": START, "d": {}}).encode() + b"\n"
    compressor = lzma.LZMACompressor(preset=0)
    body = compressor.compress(json.dumps(HEADER).encode() + b"\n") + b"".join(
        compressor.compress(tiny * 10_000) for _ in range(2)
    )
    path = tmp_path / "tiny.xz"
    path.write_bytes(body + compressor.flush())
    recording = read_recording(path)
    assert len(recording.frames) == 5_000
    assert len(recording.notes) == 1 and "longer than raidtop replays" in recording.notes[0]


def test_a_stream_of_unreadable_lines_is_abandoned(tmp_path):
    path = tmp_path / "junk.xz"
    head = (json.dumps(HEADER) + "\n" + json.dumps(_frame(0)) + "\n").encode()
    path.write_bytes(
        lzma.compress(head) + lzma.compress(b"{}\n" * 100_000) + lzma.compress(json.dumps(_frame(1)).encode() + b"\n")
    )
    recording = read_recording(path)
    assert [f.time for f in recording.frames] == [START, START + 1]
    assert any("more than 100 unreadable lines" in note for note in recording.notes)


# --------------------------------------------------------------- not files


def test_a_directory_is_refused(tmp_path):
    # FIFOs and devices go through the command line (tests/cli/test_replay_cli.py),
    # in a child process, so a regression hangs a child, not the suite.
    with pytest.raises(RecordingError, match="directory"):
        read_recording(tmp_path)


def test_a_header_only_file_and_an_empty_file_are_refused(tmp_path):
    with pytest.raises(RecordingError, match="holds no samples"):
        read_recording(_lines_file(tmp_path / "header.xz", [HEADER]))
    (tmp_path / "empty.xz").write_bytes(b"")
    with pytest.raises(RecordingError, match="empty"):
        read_recording(tmp_path / "empty.xz")
    (tmp_path / "plain.txt").write_text("hello\n")
    with pytest.raises(RecordingError, match="not xz"):
        read_recording(tmp_path / "plain.txt")


def test_a_stream_that_needs_more_decoder_memory_than_the_limit_is_skipped(ten_minutes, monkeypatch):
    # raidtop's preset 6 needs 9 MiB to decode; with the limit below that every
    # stream is refused by lzma itself, and the reader says why instead of crashing.
    from raidtop.collect.recording import read as recording_read

    path, _ = ten_minutes
    monkeypatch.setattr(recording_read, "LZMA_MEMLIMIT", 1 << 20)
    with pytest.raises(RecordingError, match="needs more than 1 MiB of memory to decompress"):
        read_recording(path)
