"""Recordings of a busy host made by raidtop's own recorder, for reader tests.

The fixture tree ``tests/data/ui/root1`` is copied and its counters
(``/proc/diskstats``, ``/proc/stat``) advance by seeded
random amounts each tick, so every frame changes like a real host's do and
the file compresses like a real recording (about 420 bytes per sample, the
README's figure for a 10-device VM). The real Sampler reads the tree through
a RecordingRoot and the real RecordingWriter writes it; only the clock is
fake, so a 10-minute recording takes seconds.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.model.snapshot import Snapshot

ROOT1 = Path(__file__).resolve().parents[2] / "data" / "ui" / "root1"
START = 1_700_000_000.0
COUNTER_FILES = ("proc/diskstats", "proc/stat")


class BusyTree:
    """A copy of root1 whose counters move every tick."""

    def __init__(self, directory: Path, seed: int = 11) -> None:
        self.path = directory / "busy-root"
        shutil.copytree(ROOT1, self.path)
        self.random = random.Random(seed)

    def tick(self) -> None:
        """Advance every counter by a small random amount, as a working host does."""
        for name in COUNTER_FILES:
            file = self.path / name
            lines = []
            for line in file.read_text().splitlines():
                words = line.split()
                for i, word in enumerate(words):
                    # diskstats: the first three fields are major, minor, name.
                    skip = name == "proc/diskstats" and i < 3
                    # About a third of the counters move each second, a few at a time.
                    if word.isdigit() and not skip and i > 0 and self.random.random() < 0.3:
                        words[i] = str(int(word) + self.random.randrange(1, 8))
                lines.append(" ".join(words))
            file.write_text("\n".join(lines) + "\n")


def record_busy(
    path: Path, directory: Path, frames: int = 600, per_stream: int = 60, interval: float = 1.0
) -> list[Snapshot]:
    """Write ``frames`` samples ``interval`` seconds apart to ``path``; return the live snapshots."""
    tree = BusyTree(directory)
    now = [START]
    recorder = RecordingRoot(Root(tree.path))
    sampler = Sampler(recorder, clock=lambda: now[0])
    writer = RecordingWriter(path, interval, recorder, frames_per_stream=per_stream)
    live = []
    try:
        for i in range(frames):
            now[0] = START + i * interval
            tree.tick()
            snapshot = sampler.sample()
            live.append(snapshot)
            events = [{"array": e.array, "event": e.event, "member": e.member} for e in snapshot.events]
            writer.add(snapshot.time, recorder.take_frame(), events=events)
    finally:
        writer.close()
    return live


def stream_offsets(data: bytes) -> list[int]:
    """Where each xz stream of a recording starts."""
    offsets, at = [], data.find(b"\xfd7zXZ\x00")
    while at >= 0:
        offsets.append(at)
        at = data.find(b"\xfd7zXZ\x00", at + 1)
    return offsets
