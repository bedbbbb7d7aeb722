"""Turn a recording back into snapshots, sequentially or from any point."""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable

from raidtop.collect.recording.roots import Recording, RecordingError, ReplayRoot, read_recording
from raidtop.collect.sampler import Sampler
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdEvent

PRIME_FRAMES = 30
"""Frames replayed before a jump target, so rates, events and ETAs have history."""


def load_for_replay(path: str | os.PathLike[str]) -> Recording:
    """The recording at ``path``, or an empty one whose note says why it cannot be replayed.

    For callers that must keep running (the app): the command line refuses an
    unusable recording before the app starts, with the same sentence.
    """
    try:
        return read_recording(path)
    except RecordingError as exc:
        return Recording({}, [], [f"nothing to replay: {exc}"])


class Replayer:
    """Runs the ordinary Sampler over recorded frames.

    Stepping forward reuses the sampler (exactly what the live run did);
    any other move rebuilds it a few frames before the target.
    """

    def __init__(self, recording: Recording, sampler: Callable[..., Sampler] = Sampler) -> None:
        """``sampler`` builds each sampler, ``sampler(root, clock=...)``: the judged one
        (:func:`raidtop.presentation.judgement.judged_replayer`) replays SmartWarning events
        and rebuild risks as the live run showed them."""
        self.recording = recording
        self._make_sampler = sampler
        self.root = ReplayRoot("replay")
        self.index = -1
        self._sampler: Sampler | None = None
        self._now = recording.start
        # The live run's events, as it recorded them (recording_lines checked each
        # field: plain text or None), in time order: what happened up to a position
        # does not depend on how one got there.
        self._events = sorted(
            (
                MdEvent(frame.time, e.get("array") or "?", e.get("event") or "?", e.get("member"), e.get("detail"))
                for frame in recording.frames
                for e in frame.events
            ),
            key=lambda event: event.time,
        )
        self._event_times = [e.time for e in self._events]

    def __len__(self) -> int:
        return len(self.recording.frames)

    def snapshot_at(self, index: int) -> Snapshot:
        """The snapshot the live run computed at frame ``index``."""
        if not self.recording.frames:
            raise IndexError("the recording has no frames")
        index = max(0, min(index, len(self.recording.frames) - 1))
        if self._sampler is not None and index == self.index + 1:
            return self._advance(index)
        start = max(0, index - PRIME_FRAMES)
        self._sampler = self._make_sampler(self.root, clock=lambda: self._now)
        self.root.state = self.recording.state_at(start - 1) if start > 0 else {}
        for i in range(start, index):
            self.index = i - 1
            self._advance(i)
        self.index = index - 1
        return self._advance(index)

    def events_until(self, when: float) -> list[MdEvent]:
        """Every recorded event up to time ``when`` (a frame's time), oldest first.

        Scrubbing back and forth replayed priming frames whose events were
        added again, and a jump skipped the events before its priming window;
        the event list is this function of the position instead.
        """
        return self._events[: bisect.bisect_right(self._event_times, when)]

    def _advance(self, index: int) -> Snapshot:
        frame = self.recording.frames[index]
        self.root.state.update(frame.delta)
        self._now = frame.time
        self.index = index
        assert self._sampler is not None  # snapshot_at makes one before advancing any frame
        return self._sampler.sample()
