"""Plays a recording on the dashboard: step, speed, jump, pause (the app's --replay mode)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from raidtop.app.messages import SnapshotReady
from raidtop.live.replay_position import ReplayPosition, parse_jump
from raidtop.untrusted import plain

if TYPE_CHECKING:  # both imported by the app only when a replay is asked for
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.collect.recording.replayer import Replayer


class ReplayKeys:
    """Mixed into RaidtopApp: the replay keys' actions and what screens ask about the replay."""

    player: ReplayPlayer | None = None

    @property
    def replayer(self):
        """The recording being replayed (``--replay``), or None."""
        return self.player.replayer if self.player is not None else None

    @property
    def replay_position(self) -> ReplayPosition:
        """Where the replay is and how fast it plays."""
        return self.player.position if self.player is not None else ReplayPosition()

    def action_replay_step(self, step: int) -> None:
        """Show the next (or previous) recorded sample and pause."""
        self.player.step(step)

    def action_replay_speed(self, direction: int) -> None:
        """Play faster or slower."""
        self.player.change_speed(direction)

    def action_replay_jump(self) -> None:
        """Ask for a time and jump there."""
        self.player.ask_jump()


class ReplayPlayer:
    """Shows recorded frames at the recording's pace times the speed, in the sampler's place.

    It runs as the app's one "sampler" worker, so a replay and live sampling
    can never both post snapshots. ``wake`` is the app's event that a key (or
    ``sample_now``) sets to cut a wait short.
    """

    def __init__(self, app: RaidtopApp, replayer: Replayer, wake: asyncio.Event) -> None:
        self.app = app
        self.replayer = replayer
        self.position = ReplayPosition()
        self._wake = wake
        self._seek_to: int | None = None

    def prepare(self) -> None:
        """Badge, host line, time bar and the recording's own notes, before the first frame."""
        recording = self.replayer.recording
        status = self.app.dashboard.query_one("#status")
        status.badge = "REPLAY"
        status.host = f"replay of {plain(recording.header.get('host', '?'))}"
        bar = self.app.dashboard.query_one("#time-bar")
        bar.display = True
        bar.start, bar.end = recording.start, recording.end
        markers = []
        for frame in recording.frames:
            markers += [(frame.time, e.get("event", "?")) for e in frame.events]
            markers += [(frame.time, a.get("kind", "action")) for a in frame.actions]
        bar.markers = tuple(markers)
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
        except Exception as exc:  # noqa: BLE001 - a recorded input no reader expected must not end the replay
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
        bar = self.app.dashboard.query_one("#time-bar")
        frames = self.replayer.recording.frames
        bar.position = frames[self.position.index].time if frames else 0.0
        bar.playing = self.position.playing
        bar.speed = self.position.speed

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
        bar = self.app.dashboard.query_one("#time-bar")

        def jump(text: str | None) -> None:
            if not text:
                return
            target = parse_jump(text, recording.start, recording.end, bar.position)
            if target is None:
                self.app.notify(f"cannot read {text!r} as a time: try +30s, -2m, 50% or 14:05", severity="warning")
                return
            self._seek_to = recording.index_at(target)
            self._wake.set()

        self.app.push_screen(AskDialog("Jump to (+30s, -2m, 50%, 14:05, or seconds from start):", "+60s"), jump)
