"""RaidtopApp: themes, global keys, and the one sampler worker."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
import time
from typing import Iterable

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen

from raidtop.collect.mdevents import mismatch_verdict, rings_bell
from raidtop.collect.sampler import Sampler
from raidtop.config import Config, next_interval, xdg_dir
from raidtop.replay_control import ReplayPosition, parse_jump
from raidtop.hangup import catch_exit_signals, detach_from_terminal
from raidtop.threads import DaemonExecutor
from raidtop.collect.udev_watch import BlockDeviceWatcher
from raidtop.messages import DeviceEvent, SnapshotReady
from raidtop.model import Snapshot
from raidtop.model_md import MdEvent
from raidtop.untrusted import plain
from raidtop.widgets.shown_text import ControlFilter

EVENT_SEVERITY = {
    "Fail": "error",
    "FailSpare": "error",
    "DegradedArray": "error",
    "ArrayFailed": "error",
    "DeviceDisappeared": "error",
    "SparesMissing": "warning",
}


def describe_event(event: MdEvent) -> str:
    """One sentence for a notification or the timeline."""
    member = f" {event.member}" if event.member else ""
    words = {
        "Fail": f"member{member} failed",
        "FailSpare": f"spare{member} failed while being rebuilt onto",
        "SpareActive": f"spare{member} is now in sync",
        "DegradedArray": "array is degraded",
        "ArrayFailed": "array failed: it has lost data or refuses writes",
        "DeviceDisappeared": "array disappeared",
        "NewArray": "new array",
        "RebuildStarted": "rebuild started",
        "RebuildFinished": "rebuild finished",
        "CheckStarted": "check started",
        "CheckFinished": "check finished",
        "SparesMissing": f"spare{member} removed",
    }
    text = words.get(event.event) or (f"rebuild passed {event.event[7:]}%" if event.event.startswith("Rebuild") else event.event)
    return text + (f" — {event.detail}" if event.detail else "")
from raidtop.screens.dashboard import DashboardScreen
from raidtop.screens.help import HelpScreen
from raidtop.themes import DEFAULT_THEME, load_themes


class RaidtopApp(App[None]):
    """The raidtop dashboard."""

    TITLE = "raidtop"
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave raidtop"),
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="List every key"),
        Binding("p", "toggle_pause", "Pause", id="pause", tooltip="Stop or resume sampling"),
        Binding("plus,equals_sign", "interval(1)", "Slower", id="interval-up", tooltip="Sample less often (longer interval)"),
        Binding("minus,underscore", "interval(-1)", "Faster", id="interval-down", tooltip="Sample more often (shorter interval)"),
        Binding("T", "next_theme", "Theme", show=False, id="next-theme", tooltip="Switch to the next raidtop theme"),
        Binding("R", "toggle_recording", "Record", show=False, id="record", tooltip="Start or stop recording what raidtop reads (for --replay)"),
        Binding("full_stop", "replay_step(1)", "Step", id="replay-step", tooltip="Replay: show the next sample"),
        Binding("comma", "replay_step(-1)", "Back", id="replay-back", tooltip="Replay: show the previous sample"),
        Binding("greater_than_sign", "replay_speed(1)", "Faster", id="replay-faster", tooltip="Replay: play faster (up to 60×)"),
        Binding("less_than_sign", "replay_speed(-1)", "Slower", id="replay-slower", tooltip="Replay: play slower (down to 1×)"),
        Binding("j", "replay_jump", "Jump", id="replay-jump", tooltip="Replay: jump to a time (+30s, -2m, 50%, 14:05)"),
    ]
    REPLAY_ACTIONS = {"replay_step", "replay_speed", "replay_jump"}

    def __init__(self, config: Config | None = None, recording=None) -> None:
        """``recording``: the parsed ``config.replay`` when the caller has read it already."""
        super().__init__()
        self.config = config or Config()
        self.interval = self.config.interval
        self.paused = False
        # Modes and screens are imported when used: each import costs time
        # before the first frame (measured in bench/tui_cost.py).
        self.demo = None
        if self.config.demo:
            from raidtop.demo.controller import DemoController

            self.demo = DemoController()
            self.sampler = Sampler(self.demo.root)
        else:
            self.sampler = Sampler(self.config.root)
        self.replayer = None
        self.replay_position = ReplayPosition()
        self._seek_to: int | None = None
        if self.config.replay is not None:
            from raidtop.collect.replayer import Replayer, load_for_replay

            self.replayer = Replayer(recording if recording is not None else load_for_replay(self.config.replay))
        self.recorder = None
        """(RecordingRoot, RecordingWriter) while recording."""
        # The lab acts only on the live system (never on a replay or the demo).
        self.lab = None
        self.lab_actions = None
        self._lab_lock = threading.Lock()
        """Made on first use (see member_actions): the lab is not needed for the first frame."""
        self._wake = asyncio.Event()
        self.device_events_seen = 0
        self.device_events_note = "device events not watched"
        self._theme_problems: list[str] = []
        self._register_themes()

    # -------------------------------------------------------------- text out

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Every notification, from every screen and widget, as plain text.

        Messages carry paths, device names and kernel errors; with Textual's
        default markup a ``[/]`` in one raised MarkupError and left a blank,
        unresponsive screen. ``markup`` is accepted and ignored for that reason.
        """
        super().notify(plain(message, multiline=True), title=plain(title), severity=severity, timeout=timeout, markup=False)

    def get_line_filters(self):
        """Textual's filters plus the one that keeps control characters off the terminal."""
        return [*super().get_line_filters(), self._control_filter]

    _control_filter = ControlFilter()

    # -------------------------------------------------------------- set-up

    def _register_themes(self) -> None:
        loaded = load_themes()
        for theme in loaded.themes:
            self.register_theme(theme)
        self._theme_problems = loaded.problems
        wanted = self.config.theme or DEFAULT_THEME
        if wanted in self.available_themes:
            self.theme = wanted
        else:
            self._theme_problems.append(f"theme {wanted!r} not found; using the default")
            if DEFAULT_THEME in self.available_themes:
                self.theme = DEFAULT_THEME

    def on_mount(self) -> None:
        # Every thread (the sampler's, to_thread's, Textual's thread workers) is
        # a daemon nobody joins: a read stuck in the kernel cannot block `q`.
        self._threads = DaemonExecutor()
        asyncio.get_running_loop().set_default_executor(self._threads)
        # SIGHUP/SIGTERM take q's exit, so screens unmount and cancel fio and lab jobs.
        self._release_signals = catch_exit_signals(asyncio.get_running_loop(), self.end_on_signal)
        root = self.config.root
        # The last two path parts name a fixture or recording without leaking
        # the absolute checkout path (which would make screenshots differ).
        label = socket.gethostname() if str(root) == "/" else "root " + "/".join(root.resolve().parts[-2:])
        self.dashboard = DashboardScreen(label, self.interval)
        self.push_screen(self.dashboard)
        for problem in self._theme_problems:
            self.notify(problem, title="Theme", severity="warning", timeout=8)

    def member_actions(self, array: str):
        """Who may fail/remove/add members of ``array`` (demo or lab), or ``None``.

        Reads the lab registry: the member flow calls it from thread workers only.
        """
        if self.demo is not None and self.demo.handles(array):
            return self.demo
        if self.demo is None and self.config.replay is None:
            with self._lab_lock:  # called from the member flow's workers, which may overlap
                if self.lab_actions is None:
                    from raidtop.actions.lab.core import Lab
                    from raidtop.actions.lab.members import LabMemberActions

                    self.lab = Lab(root=self.config.root)
                    self.lab_actions = LabMemberActions(self.lab)
            if self.lab_actions.handles(array):
                return self.lab_actions
        return None

    def dashboard_ready(self) -> None:
        """Called by the dashboard once its panels exist: start sampling."""
        if self.demo is not None:
            status = self.dashboard.query_one("#status")
            status.badge = "DEMO — SIMULATED"
            status.host = f"{self.demo.sim.name} is simulated; the rest is {self.demo.base_description}"
            self.dashboard.query_one("#arrays").expand_for_actions(self.demo.sim.name)
            if self.config.autostart_sampler:
                self.run_sampler()
            return
        if self.replayer is not None:
            self._prepare_replay()
            if self.config.autostart_sampler:
                self.run_replay()
            return
        if self.config.autostart_sampler:
            # "At start" on the Tuning screen means raidtop's start, not the screen's.
            from raidtop.actions.tuning import session_for

            self.run_worker(session_for(self.config.root).capture_start, thread=True, group="tuning-start", exit_on_error=False)
            self.run_sampler()
            self._watcher = BlockDeviceWatcher(self.sampler.root, self._device_event_from_thread)
            reason = self._watcher.start()
            self.device_events_note = reason or f"watching {self._watcher.source} block device events"

    def _device_event_from_thread(self, action: str, device: str) -> None:
        # pyudev calls from its own thread; post_message is the thread-safe way in.
        self.post_message(DeviceEvent(action, device))

    @on(DeviceEvent)
    def _device_event(self, message: DeviceEvent) -> None:
        self.device_events_seen += 1
        self.sample_now()

    # -------------------------------------------------------------- hang-up

    exit_signal: int | None = None
    """The signal that ended raidtop (SIGHUP, SIGTERM), or None."""

    def end_on_signal(self, signum: int) -> None:
        """Leave as ``q`` does (screens unmount, so fio and lab jobs are cancelled); exit 128+signum."""
        if self.exit_signal is not None:
            return
        self.exit_signal = signum
        if signum == signal.SIGHUP:
            detach_from_terminal()
        self.exit(return_code=128 + signum)

    def on_unmount(self) -> None:
        release = getattr(self, "_release_signals", None)
        if release is not None:
            release()
        watcher = getattr(self, "_watcher", None)
        if watcher is not None:
            watcher.stop()
        if self.recorder is not None:
            self.recorder[1].close()

    # -------------------------------------------------------------- sampling

    @work(exclusive=True, group="sampler", exit_on_error=False)
    async def run_sampler(self) -> None:
        """Sample, post, sleep the rest of the interval; never two at once.

        The blocking reads run in a daemon thread; awaiting them inside this
        one long-lived worker is what keeps collections from overlapping.
        """
        while True:
            started = time.monotonic()
            if not self.paused:
                try:
                    snapshot = await asyncio.get_running_loop().run_in_executor(self._threads, self._sample_once)
                except Exception as exc:  # a bug in a reader must not stop the dashboard
                    self.notify(f"sampling failed: {exc!r}", severity="error", timeout=10)
                else:
                    self.post_message(SnapshotReady(snapshot))
            self._wake.clear()
            remaining = self.interval - (time.monotonic() - started)
            if remaining > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=remaining)
                except asyncio.TimeoutError:
                    pass

    def _sample_once(self) -> Snapshot:
        """One sample (in the worker thread), stored too while recording."""
        if self.demo is not None:
            self.demo.tick()
        snapshot = self.sampler.sample()
        recording = self.recorder
        if recording is not None:
            root, writer = recording
            events = [{"array": e.array, "event": e.event, "member": e.member} for e in snapshot.events]
            writer.add(snapshot.time, root.take_frame(), events=events, actions=self._pending_actions())
        return snapshot

    def _pending_actions(self) -> list[dict]:
        """Actions logged since the last frame, so replays can mark them."""
        actions, self._actions_since_frame = getattr(self, "_actions_since_frame", []), []
        return actions

    def note_action(self, kind: str, command: str) -> None:
        """Screens that change the system call this so recordings mark the change."""
        pending = getattr(self, "_actions_since_frame", [])
        pending.append({"time": time.time(), "kind": kind, "command": command})
        self._actions_since_frame = pending

    # -------------------------------------------------------------- replay

    def _prepare_replay(self) -> None:
        recording = self.replayer.recording
        status = self.dashboard.query_one("#status")
        status.badge = "REPLAY"
        status.host = f"replay of {plain(recording.header.get('host', '?'))}"
        bar = self.dashboard.query_one("#time-bar")
        bar.display = True
        bar.start, bar.end = recording.start, recording.end
        markers = []
        for frame in recording.frames:
            markers += [(frame.time, e.get("event", "?")) for e in frame.events]
            markers += [(frame.time, a.get("kind", "action")) for a in frame.actions]
        bar.markers = tuple(markers)
        for note in recording.notes:
            self.notify(plain(note), title="Recording", severity="warning", timeout=10, markup=False)

    @work(exclusive=True, group="sampler", exit_on_error=False)
    async def run_replay(self) -> None:
        """Show recorded frames at the recording's pace times the speed."""
        replayer = self.replayer
        position = self.replay_position
        frames = replayer.recording.frames
        if not frames:
            self.notify("the recording has no samples to replay", severity="error", markup=False)
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
                except asyncio.TimeoutError:
                    pass
                await self._show_frame(position.index + 1)
            else:
                if position.playing:
                    position.playing = False
                    self._update_time_bar()
                self._wake.clear()
                await self._wake.wait()

    async def _show_frame(self, index: int) -> None:
        try:
            snapshot = await asyncio.to_thread(self.replayer.snapshot_at, index)
        except Exception as exc:  # a recorded input no reader expected must not end the replay
            self.replay_position.index = max(0, min(index, len(self.replayer) - 1))
            self._update_time_bar()
            self.notify(plain(f"sample {index + 1} cannot be shown: {exc!r}"), title="Recording",
                        severity="error", timeout=10, markup=False)
            return
        self.replay_position.index = self.replayer.index
        self._update_time_bar()
        self.post_message(SnapshotReady(snapshot))

    def _update_time_bar(self) -> None:
        bar = self.dashboard.query_one("#time-bar")
        frames = self.replayer.recording.frames
        bar.position = frames[self.replay_position.index].time if frames else 0.0
        bar.playing = self.replay_position.playing
        bar.speed = self.replay_position.speed

    def action_replay_step(self, step: int) -> None:
        """Show the next (or previous) recorded sample and pause."""
        self.replay_position.playing = False
        self._seek_to = max(0, self.replay_position.index + step)
        self.sample_now()

    def action_replay_speed(self, direction: int) -> None:
        """Play faster or slower."""
        (self.replay_position.faster if direction > 0 else self.replay_position.slower)()
        self._update_time_bar()

    def action_replay_jump(self) -> None:
        """Ask for a time and jump there."""
        from raidtop.screens.dialogs import AskDialog

        recording = self.replayer.recording
        bar = self.dashboard.query_one("#time-bar")

        def jump(text: str | None) -> None:
            if not text:
                return
            target = parse_jump(text, recording.start, recording.end, bar.position)
            if target is None:
                self.notify(plain(f"cannot read {text!r} as a time: try +30s, -2m, 50% or 14:05"), severity="warning", markup=False)
                return
            self._seek_to = recording.index_at(target)
            self.sample_now()

        self.push_screen(AskDialog("Jump to (+30s, -2m, 50%, 14:05, or seconds from start):", "+60s"), jump)

    def action_toggle_recording(self) -> None:
        """Start or stop recording the raw inputs into the XDG data dir."""
        if self.recorder is not None:
            root, writer = self.recorder
            self.recorder = None
            self.sampler.root = root._inner
            writer.close()
            self.dashboard.query_one("#status").badge = ""
            self.notify(plain(f"recorded {writer.frames} samples to {writer.path} ({writer.size_bytes} bytes)"),
                        title="Recording", timeout=10, markup=False)
            return
        from raidtop.collect.recording import RecordingRoot, RecordingWriter

        directory = xdg_dir("data") / "recordings"
        stamp = time.strftime("raidtop-%Y%m%d-%H%M%S")
        root = RecordingRoot(self.sampler.root)
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            # The writer never reuses a name: a second recording in the same second gets -2.
            for attempt in range(1, 10):
                path = directory / (f"{stamp}.xz" if attempt == 1 else f"{stamp}-{attempt}.xz")
                if not os.path.lexists(path):
                    break
            writer = RecordingWriter(path, self.interval, root)
        except OSError as exc:
            self.notify(plain(f"cannot record: {exc}"), severity="error", markup=False)
            return
        self.sampler.root = root
        self.recorder = (root, writer)
        self.dashboard.query_one("#status").badge = "REC"
        self.notify(plain(f"recording to {path}"), title="Recording", timeout=5, markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.REPLAY_ACTIONS:
            return self.replayer is not None
        if action == "toggle_recording":
            return self.replayer is None and self.demo is None
        return True

    def sample_now(self) -> None:
        """Cut the current wait short (a device event, an interval change)."""
        self._wake.set()

    @on(SnapshotReady)
    def _show_snapshot(self, message: SnapshotReady) -> None:
        self.apply_snapshot(message.snapshot)

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Show ``snapshot`` on every screen that watches it, in one repaint."""
        previous_alerts = self.dashboard.last_snapshot.degraded_alerts if self.dashboard.last_snapshot else frozenset()
        try:
            with self.batch_update():
                self.dashboard.apply_snapshot(snapshot)
                screen = self.screen
                if screen is not self.dashboard and hasattr(screen, "apply_snapshot"):
                    screen.apply_snapshot(snapshot)
        except NoMatches:
            # A snapshot that lands while the app shuts down finds no panels.
            return
        self._announce(snapshot, previous_alerts)

    def _announce(self, snapshot: Snapshot, previous_alerts: frozenset[str]) -> None:
        """Turn md events into notifications and, for failures, the bell."""
        ring = False
        arrays = {a.name: a for a in snapshot.arrays}
        for event in snapshot.events:
            text = describe_event(event)
            array = arrays.get(event.array)
            if event.event == "CheckFinished" and array is not None:
                verdict = mismatch_verdict(
                    array.level, array.mismatch_cnt, size_kib=array.size_kib, last_sync_action=array.last_sync_action
                )
                if verdict is not None:
                    text = f"{text}: {verdict.text}"
            severity = "information" if event.expected else EVENT_SEVERITY.get(event.event, "information")
            self.notify(text, title=f"{event.array}: {event.event}", severity=severity, timeout=10 if severity == "error" else 5)
            ring = ring or rings_bell(event)
        for name in sorted(previous_alerts - snapshot.degraded_alerts):
            if any(a.name == name for a in snapshot.arrays):
                self.notify(f"{name} is whole again; the degraded alert is cleared.", title=name, timeout=8)
        if ring and self.config.bell:
            self.bell()

    # -------------------------------------------------------------- actions

    def action_help(self) -> None:
        """Show every key."""
        screen = self.screen if not isinstance(self.screen, HelpScreen) else self.dashboard
        sections = [("Global", list(self.BINDINGS)), (type(screen).__name__.removesuffix("Screen"), list(screen.BINDINGS))]
        from raidtop.widgets.text_table import TextTable

        sections.append(("Tables", list(TextTable.BINDINGS) + [Binding("enter", "select", "Open row", id="table-open", tooltip="Expand or open the highlighted row")]))
        sections.append(("Palette", [Binding("ctrl+p", "command_palette", "Command palette", id="palette", tooltip="Search every command")]))
        self.push_screen(HelpScreen(sections))

    def action_next_theme(self) -> None:
        """Cycle through raidtop's themes (built-in and user files)."""
        names = sorted(n for n in self.available_themes if n.startswith("raidtop-")) or sorted(self.available_themes)
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]
        self.notify(f"theme: {self.theme}", timeout=2)

    def action_toggle_pause(self) -> None:
        """Stop or resume sampling (in a replay: pause or play)."""
        if self.replayer is not None:
            self.replay_position.playing = not self.replay_position.playing
            self._update_time_bar()
            self.sample_now()
            return
        self.paused = not self.paused
        self.dashboard.query_one("#status").paused = self.paused
        if not self.paused:
            self.sample_now()

    def action_interval(self, direction: int) -> None:
        """Lengthen (+1) or shorten (-1) the sampling interval."""
        self.interval = next_interval(self.interval, direction)
        self.dashboard.query_one("#status").interval = self.interval
        self.notify(f"sampling every {self.interval:g} s", timeout=2)
        self.sample_now()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key is also a command-palette entry."""
        yield from super().get_system_commands(screen)
        seen: set[str] = set()
        for owner in (self, screen):
            for binding in owner.BINDINGS:
                if not isinstance(binding, Binding) or binding.id in seen:
                    continue
                seen.add(binding.id or binding.action)
                target = owner

                def run(action: str = binding.action, target=target) -> None:
                    self.call_later(self.run_action, action, target)

                yield SystemCommand(binding.description, binding.tooltip or binding.description, run)
