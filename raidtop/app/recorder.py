"""Records what raidtop reads, frame by frame, into the XDG data dir (the app's R key)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.message import Message

from raidtop.app.sampling import Sampling
from raidtop.config import xdg_dir
from raidtop.model.snapshot import Snapshot
from raidtop.screens.dashboard.messages import SourceChanged
from raidtop.untrusted import plain

if TYPE_CHECKING:  # the recording module is imported when a recording starts
    from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter


class Recorder:
    """Starts and stops a recording and adds one frame per sample while it runs.

    Recording wraps the sampler's root in a RecordingRoot, so the frame holds
    exactly the bytes the readers saw; stopping puts the plain root back.
    The REC badge is a message to the dashboard.

    Args:
        app: the app whose workers open and finish the file, and which says where it is.
        sampling: the app's sampling, whose sampler's root is wrapped.
        to_dashboard: posts a message to the dashboard.
    """

    def __init__(self, app: App[None], sampling: Sampling, to_dashboard: Callable[[Message], object]) -> None:
        self.app = app
        self._sampling = sampling
        self._to_dashboard = to_dashboard
        self.active: tuple[RecordingRoot, RecordingWriter] | None = None
        """(RecordingRoot, RecordingWriter) while recording."""
        self._actions_since_frame: list[dict] = []
        self._switching = False
        """True while a worker creates or finishes the file."""
        self._finished = threading.Event()
        self._finished.set()

    def toggle(self) -> None:
        """Start recording, or stop and say where the file is.

        Creating, finishing and fsyncing the file run in a thread worker (a slow
        disk must not freeze the screen); a second R while one is under way waits for it.
        """
        app = self.app
        if self._switching:
            return
        self._switching = True
        if self.active is not None:
            root, writer = self.active
            # Stop taking frames at once; the file is finished in the worker.
            self.active = None
            self._sampling.sampler.root = root._inner
            self._to_dashboard(SourceChanged(badge=""))
            self._finished.clear()
            app.run_worker(self._finish(writer), group="recorder", exit_on_error=False)
            return
        app.run_worker(self._start(), group="recorder", exit_on_error=False)

    async def _finish(self, writer: RecordingWriter) -> None:
        # An async worker on the event loop hands the file work to a thread and awaits it, so
        # the answer lands back on the UI thread without call_from_thread (which can block at exit).
        try:
            await asyncio.to_thread(writer.close)
        finally:
            self._finished.set()
        self._announce(
            plain(f"recorded {writer.frames} samples to {writer.path} ({writer.size_bytes} bytes)"), "information"
        )

    async def _start(self) -> None:
        result = await asyncio.to_thread(self._open)
        if isinstance(result, str):
            self._announce(result, "error")
        else:
            self._started(*result)

    def _open(self) -> tuple[RecordingRoot, RecordingWriter] | str:
        """Create the recording file (in a thread); the root and writer, or why not."""
        from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter

        sampling = self._sampling
        directory = xdg_dir("data") / "recordings"
        stamp = time.strftime("raidtop-%Y%m%d-%H%M%S")
        root = RecordingRoot(sampling.sampler.root)
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            # The writer never reuses a name: a second recording in the same second gets -2.
            for attempt in range(1, 10):
                path = directory / (f"{stamp}.xz" if attempt == 1 else f"{stamp}-{attempt}.xz")
                if not os.path.lexists(path):
                    break
            writer = RecordingWriter(path, sampling.interval, root)
        except OSError as exc:
            return plain(f"cannot record: {exc}")
        return root, writer

    def _started(self, root: RecordingRoot, writer: RecordingWriter) -> None:
        self._sampling.sampler.root = root
        self.active = (root, writer)
        self._to_dashboard(SourceChanged(badge="REC"))
        self._switching = False
        self.app.notify(f"recording to {writer.path}", title="Recording", timeout=5)

    def _announce(self, text: str, severity: str) -> None:
        self._switching = False
        if severity == "error":
            self.app.notify(text, severity="error")
        else:
            self.app.notify(text, title="Recording", timeout=10)

    def add_frame(self, snapshot: Snapshot) -> None:
        """Store what ``snapshot`` was read from (called in the sampler thread)."""
        active = self.active
        if active is None:
            return
        root, writer = active
        events = [{"array": e.array, "event": e.event, "member": e.member} for e in snapshot.events]
        writer.add(snapshot.time, root.take_frame(), events=events, actions=self._take_actions())

    def _take_actions(self) -> list[dict]:
        # Swapped, not cleared: the UI thread may append while the sampler thread reads.
        actions, self._actions_since_frame = self._actions_since_frame, []
        return actions

    def note_action(self, kind: str, command: str) -> None:
        """Mark a change to the system in the next frame, so a replay shows it."""
        if self.active is None:
            return  # kept only while recording: otherwise the list would grow for the whole session
        self._actions_since_frame.append({"time": time.time(), "kind": kind, "command": command})

    def close(self) -> None:
        """Finish the file on the way out (and let a stop under way finish its file)."""
        if self.active is not None:
            self.active[1].close()
        self._finished.wait(timeout=30)
