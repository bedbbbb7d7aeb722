"""Record and replay: replayed snapshots equal the live ones, field by field."""

from __future__ import annotations

import json
import lzma
import time
from pathlib import Path

import pytest

from raidtop.collect.recording.roots import RecordingError, RecordingRoot, RecordingWriter, read_recording
from raidtop.collect.recording.replayer import Replayer
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root

DATA = Path(__file__).resolve().parents[2] / "data"
TREES = [DATA / "ui" / "root1", DATA / "ui" / "root2", DATA / "ui" / "root1"]


def record(path: Path, roots: list[Path] | None = None, frames: int = 3, per_stream: int = 60):
    """Sample (fixture trees in turn, or the live host) while recording; return the live snapshots."""
    clock = iter(range(1_000, 10_000, 10)).__next__ if roots else time.time
    recorder = RecordingRoot(Root(roots[0] if roots else "/"))
    sampler = Sampler(recorder, clock=clock)
    writer = RecordingWriter(path, 1.0, recorder, frames_per_stream=per_stream)
    live = []
    for i in range(frames):
        if roots:
            recorder._inner = Root(roots[i % len(roots)])
        snap = sampler.sample()
        live.append(snap)
        writer.add(snap.time, recorder.take_frame(), events=[{"event": e.event, "array": e.array} for e in snap.events])
        if not roots:
            time.sleep(0.2)
    writer.close()
    return live


def test_fixture_trees_replay_to_equal_snapshots(tmp_path):
    path = tmp_path / "rec.xz"
    live = record(path, TREES, frames=3)
    recording = read_recording(path)
    assert recording.notes == []
    replayer = Replayer(recording)
    replayed = [replayer.snapshot_at(i) for i in range(3)]
    assert replayed == live  # frozen dataclasses: every field, notes included


def test_live_run_replays_to_equal_snapshots(tmp_path):
    path = tmp_path / "live.xz"
    live = record(path, frames=4)
    replayer = Replayer(read_recording(path))
    replayed = [replayer.snapshot_at(i) for i in range(4)]
    assert replayed == live


def test_seek_and_step_land_on_the_right_sample(tmp_path):
    path = tmp_path / "rec.xz"
    live = record(path, TREES, frames=6)
    replayer = Replayer(read_recording(path))
    # Jump forward, step, jump back: each equals what the live run saw then.
    assert replayer.snapshot_at(4) == live[4]
    assert replayer.snapshot_at(5) == live[5]
    assert replayer.snapshot_at(2) == live[2]
    assert replayer.recording.index_at(live[3].time + 1) == 3


def test_a_future_format_is_refused_with_a_message(tmp_path):
    path = tmp_path / "future.xz"
    path.write_bytes(lzma.compress(json.dumps({"format": "raidtop-recording", "version": 99}).encode() + b"\n"))
    with pytest.raises(RecordingError, match="newer raidtop"):
        read_recording(path)
    other = tmp_path / "other.xz"
    other.write_bytes(lzma.compress(b"hello\n"))
    with pytest.raises(RecordingError, match="not a raidtop recording"):
        read_recording(other)


def test_a_truncated_file_replays_up_to_the_damage(tmp_path):
    path = tmp_path / "rec.xz"
    live = record(path, TREES * 10, frames=30, per_stream=5)
    whole = path.read_bytes()
    cut = tmp_path / "cut.xz"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    recording = read_recording(cut)
    assert recording.notes and "ends early" in recording.notes[0]
    assert 0 < len(recording.frames) < 30
    replayer = Replayer(recording)
    for i in range(len(recording.frames)):
        assert replayer.snapshot_at(i) == live[i]


def test_only_changes_are_stored(tmp_path):
    path = tmp_path / "rec.xz"
    record(path, [DATA / "ui" / "root1"], frames=5)
    frames = read_recording(path).frames
    # Same tree five times: after the first frame nothing changed.
    assert len(frames[0].delta) > 10
    assert all(f.delta == {} for f in frames[1:])
