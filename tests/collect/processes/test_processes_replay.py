"""A recording with processes replays the same Processes panel at each frame (issue 26)."""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter, read_recording
from raidtop.collect.recording.replayer import Replayer
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root

HOST = Path(__file__).resolve().parents[2] / "data" / "processes" / "host-v1"


def test_replay_reads_processes_exactly_at_the_frames_the_live_run_did(tmp_path):
    path = tmp_path / "rec.xz"
    recorder = RecordingRoot(Root(HOST / "t1"))
    clock = iter(range(1_000, 10_000, 10)).__next__
    sampler = Sampler(recorder, clock=clock)
    writer = RecordingWriter(path, 1.0, recorder)
    live = []
    # Panel hidden, shown for two frames, hidden again.
    for tree, shown in (("t1", False), ("t1", True), ("t2", True), ("t2", False)):
        recorder._inner = Root(HOST / tree)
        sampler.processes.want_processes = shown
        snap = sampler.sample()
        live.append(snap)
        writer.add(snap.time, recorder.take_frame())
    writer.close()
    assert [s.io is not None for s in live] == [False, True, True, False]
    assert live[2].io.processes[0].comm == "dd"

    replayer = Replayer(read_recording(path))
    replayed = [replayer.snapshot_at(i) for i in range(4)]
    assert replayed == live  # io included: processes, units per device, the level
    # Jumping straight to a frame (a fresh sampler primed from the start) gives it too.
    assert Replayer(read_recording(path)).snapshot_at(2).io == live[2].io


def test_a_recording_without_processes_has_no_w_key(tmp_path):
    path = tmp_path / "rec.xz"
    recorder = RecordingRoot(Root(HOST / "t1"))
    sampler = Sampler(recorder)
    writer = RecordingWriter(path, 1.0, recorder)
    snap = sampler.sample()
    frame = recorder.take_frame()
    assert not any(key.startswith("w:") for key in frame)  # older raidtops read it as before
    writer.add(snap.time, frame)
    writer.close()
