"""Plays a recording on the dashboard: step, speed, jump, pause (the app's --replay mode)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.message import Message

from raidtop.app.messages import SnapshotReady
from raidtop.live.replay_position import ReplayPosition, parse_jump
from raidtop.screens.dashboard.messages import ReplayLoaded, ReplayMoved, SourceChanged
from raidtop.untrusted import plain

if TYPE_CHECKING:  # imported by the app only when a replay is asked for
    from raidtop.collect.recording.replayer import Replayer


class ReplayPlayer:
    """Shows recorded frames at the recording's pace times the speed, in the sampler's place.

    It runs as the app's one "sampler" worker, so a replay and live sampling
    can never both post snapshots; snapshots go to the app, the time bar and
    the status line hear from it by messages to the dashboard.

    Args:
        app: the app whose worker this is and to which snapshots are posted.
        replayer: the recording being replayed.
        position: where the replay is (the live state's).
        wake: the app's event that a key (or ``sample_now``) sets to cut a wait short.
        to_dashboard: posts a message to the dashboard.
    """

    def __init__(
        self,
        app: App[None],
        replayer: Replayer,
        position: ReplayPosition,
        wake: asyncio.Event,
        to_dashboard: Callable[[Message], object],
    ) -> None:
        self.app = app
        self.replayer = replayer
        self.position = position
        self._wake = wake
        self._to_dashboard = to_dashboard
        self._seek_to: int | None = None

    def prepare(self) -> None:
        """Badge, host line, time bar and the recording's own notes, before the first frame."""
        recording = self.replayer.recording
        self._to_dashboard(SourceChanged("REPLAY", f"replay of {plain(recording.header.get('host', '?'))}"))
        markers = []
        for frame in recording.frames:
            markers += [(frame.time, e.get("event", "?")) for e in frame.events]
            markers += [(frame.time, a.get("kind", "action")) for a in frame.actions]
        self._to_dashboard(ReplayLoaded(recording.start, recording.end, tuple(markers)))
        for note in recording.notes:
            self.app.notify(note, title="Recording", severity="warning", timeout=10)

    def start(self) -> None:
        """Play from the first frame, as the app's exclusive sampler worker."""
        self.app.run_worker(self._play(), exclusive=True, group="sampler", exit_on_error=False)

    async def _play(self) -> None:
        position = self.position
        frames = self.replayer.recording.frames
        if not frames:
            self.app.notify("the recording has no samples to replay", severity="error")
            return
        await self._show_frame(0)
        while True:
            if self._seek_to is not None:
                target, self._seek_to = self._seek_to, None
                await self._show_frame(target)
                continue
            if position.playing and position.index < len(frames) - 1:
                gap = frames[position.index + 1].time - frames[position.index].time
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=max(0.02, gap / position.speed))
                    continue  # woken by a key: handle the seek or pause first
                except TimeoutError:
                    pass
                await self._show_frame(position.index + 1)
            else:
                if position.playing:
                    position.playing = False
                    self.update_time_bar()
                self._wake.clear()
                await self._wake.wait()

    async def _show_frame(self, index: int) -> None:
        try:
            snapshot = await asyncio.to_thread(self.replayer.snapshot_at, index)
        except Exception as exc:  # noqa: BLE001  a recorded input no reader expected must not end the replay
            self.position.index = max(0, min(index, len(self.replayer) - 1))
            self.update_time_bar()
            self.app.notify(
                f"sample {index + 1} cannot be shown: {exc!r}", title="Recording", severity="error", timeout=10
            )
            return
        self.position.index = self.replayer.index
        self.update_time_bar()
        self.app.post_message(SnapshotReady(snapshot))

    def update_time_bar(self) -> None:
        """Show the position, play state and speed on the dashboard's time bar."""
        position = self.position
        self._to_dashboard(ReplayMoved(self.time_shown(), position.playing, position.speed))

    def time_shown(self) -> float:
        """The recorded time of the frame at the replay's position."""
        frames = self.replayer.recording.frames
        return frames[self.position.index].time if frames else 0.0

    def step(self, step: int) -> None:
        """Show the next (or previous) recorded sample and pause."""
        self.position.playing = False
        self._seek_to = max(0, self.position.index + step)
        self._wake.set()

    def change_speed(self, direction: int) -> None:
        """Play faster (direction > 0) or slower."""
        (self.position.faster if direction > 0 else self.position.slower)()
        self.update_time_bar()

    def toggle_playing(self) -> None:
        """Pause or play."""
        self.position.playing = not self.position.playing
        self.update_time_bar()
        self._wake.set()

    def ask_jump(self) -> None:
        """Ask for a time and jump there."""
        from raidtop.screens.dialogs import AskDialog

        recording = self.replayer.recording

        def jump(text: str | None) -> None:
            if not text:
                return
            target = parse_jump(text, recording.start, recording.end, self.time_shown())
            if target is None:
                self.app.notify(f"cannot read {text!r} as a time: try +30s, -2m, 50% or 14:05", severity="warning")
                return
            self._seek_to = recording.index_at(target)
            self._wake.set()

        self.app.push_screen(AskDialog("Jump to (+30s, -2m, 50%, 14:05, or from the start: 90, 5m):", "+60s"), jump)
