"""RaidtopApp: themes, global keys, and the one sampler worker."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
from pathlib import Path
from collections.abc import Iterable

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen

from raidtop.app import startup_gc
from raidtop.collect.smart.poller import START_DELAY_S
from raidtop.config import Config, md_expected_members, next_interval
from raidtop.app.hangup import catch_exit_signals, detach_from_terminal
from raidtop.app.demo_stage import DEMO_ACTIONS, DEMO_BINDINGS, DemoStageKeys
from raidtop.presentation.judgement import judged_sampler, smart_poller
from raidtop.presentation.md_announcements import announcements
from raidtop.app.messages import SnapshotReady
from raidtop.model.snapshot import Snapshot
from raidtop.app.recorder import Recorder
from raidtop.app.replay_player import ReplayKeys, ReplayPlayer
from raidtop.screens.dashboard.screen import DashboardScreen
from raidtop.app.sampling_loop import SamplingLoop
from raidtop.themes import DEFAULT_THEME, load_themes
from raidtop.threads import DaemonExecutor
from raidtop.untrusted import plain
from raidtop.app.notices import Notice, NoticeDesk, NoticesMixin
from raidtop.widgets.shown_text import ControlFilter


class RaidtopApp(SamplingLoop, NoticesMixin, DemoStageKeys, ReplayKeys, App[None]):
    """The raidtop dashboard."""

    TITLE = "raidtop"
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave raidtop"),
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="List every key"),
        Binding("p", "toggle_pause", "Pause", id="pause", tooltip="Stop or resume sampling"),
        # + and - change the interval (as in btop): named after it, not after a speed they make the opposite of.
        Binding(
            "plus,equals_sign",
            "interval(1)",
            "Interval +",
            id="interval-up",
            tooltip="Sample less often (longer interval)",
        ),
        Binding(
            "minus,underscore",
            "interval(-1)",
            "Interval -",
            id="interval-down",
            tooltip="Sample more often (shorter interval)",
        ),
        Binding(
            "M",
            "toggle_mute",
            "Mute notices",
            show=False,
            id="mute-notices",
            tooltip="Stop or resume md event pop-ups (the event timeline, e, keeps every event)",
        ),
        Binding("T", "next_theme", "Theme", show=False, id="next-theme", tooltip="Switch to the next raidtop theme"),
        Binding(
            "R",
            "toggle_recording",
            "Record",
            show=False,
            id="record",
            tooltip="Start or stop recording what raidtop reads (for --replay)",
        ),
        Binding("full_stop", "replay_step(1)", "Step", id="replay-step", tooltip="Replay: show the next sample"),
        Binding("comma", "replay_step(-1)", "Back", id="replay-back", tooltip="Replay: show the previous sample"),
        Binding(
            "greater_than_sign",
            "replay_speed(1)",
            "Faster",
            id="replay-faster",
            tooltip="Replay: play faster (up to 60×)",
        ),
        Binding(
            "less_than_sign",
            "replay_speed(-1)",
            "Slower",
            id="replay-slower",
            tooltip="Replay: play slower (down to 1×)",
        ),
        Binding("j", "replay_jump", "Jump", id="replay-jump", tooltip="Replay: jump to a time (+30s, -2m, 50%, 14:05)"),
        *DEMO_BINDINGS,
    ]
    REPLAY_ACTIONS = {"replay_step", "replay_speed", "replay_jump"}
    dashboard: DashboardScreen
    """The dashboard, made on mount; the screen every snapshot goes to."""

    def __init__(self, config: Config | None = None, recording=None) -> None:
        """``recording``: the parsed ``config.replay`` when the caller has read it already."""
        super().__init__()
        self.config = config or Config()
        self.interval = self.config.interval
        self.paused = False
        self.config_notes: list[str] = []
        # Modes and screens are imported when used: each import costs time
        # before the first frame (measured in perf/tui_cost.py).
        self.demo = None
        if self.config.demo:
            from raidtop.demo.controller import DemoController

            self.demo = DemoController()
            self.sampler = judged_sampler(self.demo.root)
        else:
            # SMART only for the live system, when the app samples it (tests feed snapshots by hand).
            live = self.config.replay is None and self.config.autostart_sampler
            # Thousands of devices: their udev/model/serial walk is spread over the first ticks.
            expected, self.config_notes = md_expected_members() if live else ({}, [])
            self.sampler = judged_sampler(
                self.config.root,
                identify_per_sample=256,
                smart=smart_poller(
                    self.config.root, self.config.smart_interval if live else 0.0, start_delay=START_DELAY_S
                ),
                md_expected_members=expected,
            )
        self._wake = asyncio.Event()
        self.player: ReplayPlayer | None = None
        """Plays --replay's recording in the sampler's place."""
        if self.config.replay is not None:
            from raidtop.collect.recording.replayer import load_for_replay
            from raidtop.presentation.judgement import judged_replayer

            replayer = judged_replayer(recording if recording is not None else load_for_replay(self.config.replay))
            self.player = ReplayPlayer(self, replayer, self._wake)
        self.session_recorder = Recorder(self)
        # The lab acts only on the live system (never on a replay or the demo).
        self.lab = None
        self.lab_actions = None
        self._lab_lock = threading.Lock()
        """Made on first use (see member_actions): the lab is not needed for the first frame."""
        self._theme_problems: list[str] = []
        self._register_themes()
        self.notices = NoticeDesk(self, self._toast)

    # -------------------------------------------------------------- text out

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

    def get_default_screen(self) -> DashboardScreen:
        # The dashboard is the bottom of the stack: pushed over Textual's empty
        # default screen it was styled twice before the first frame.
        root = self.config.root
        # The last two path parts name a fixture or recording without leaking
        # the absolute checkout path (which would make screenshots differ).
        # abspath, not resolve: the label is text, and following links is I/O on the event loop.
        shown = Path(os.path.abspath(root)).parts[-2:]
        label = socket.gethostname() if str(root) == "/" else "root " + "/".join(shown)
        self.dashboard = DashboardScreen(label, self.interval)
        return self.dashboard

    def on_mount(self) -> None:
        # Every thread (the sampler's, to_thread's, Textual's thread workers) is
        # a daemon nobody joins: a read stuck in the kernel cannot block `q`.
        self._threads = DaemonExecutor()
        asyncio.get_running_loop().set_default_executor(self._threads)
        # SIGHUP/SIGTERM take q's exit, so screens unmount and cancel fio and lab jobs.
        self._release_signals = catch_exit_signals(asyncio.get_running_loop(), self.end_on_signal)
        self.screen_change_signal.subscribe(self, self.notices.screen_changed)
        if self._theme_problems:
            # One pop-up for all of them: two are shown at most, and each line matters.
            self.notify("\n".join(self._theme_problems), title="Theme", severity="warning", timeout=8)
        if self.config_notes:
            self.notify("\n".join(self.config_notes), title="Config", severity="warning", timeout=8, markup=False)

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
        """Called by the dashboard after its first frame: collect garbage again, start sampling."""
        startup_gc.resume()
        if self.demo is not None:
            self.show_demo_stage()
            if self.config.autostart_sampler:
                self.run_sampler()
            return
        if self.player is not None:
            self.player.prepare()
            if self.config.autostart_sampler:
                self.player.start()
            return
        if self.config.autostart_sampler:
            self.run_sampler()
            self.run_worker(self._start_in_background, thread=True, group="start-up", exit_on_error=False)

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
            # Nobody is left to read the screen: Textual's shutdown writes "restore the
            # terminal" sequences through a bounded queue whose writer thread may have
            # died on EIO, and a put() on it blocked the exit forever (seen in tests).
            driver = self._driver
            if driver is not None:
                driver.write = lambda data: None  # type: ignore[method-assign]
        self.exit(return_code=128 + signum)

    def on_unmount(self) -> None:
        release = getattr(self, "_release_signals", None)
        if release is not None:
            release()
        watcher = getattr(self, "_watcher", None)
        if watcher is not None:
            watcher.stop()
        if getattr(self.sampler, "smart", None) is not None:
            self.sampler.smart.stop()
        self.session_recorder.close()

    def note_action(self, kind: str, command: str) -> None:
        """Screens that change the system call this so recordings mark the change."""
        self.session_recorder.note_action(kind, command)

    # -------------------------------------------------------------- replay and recording

    @property
    def recorder(self):
        """(RecordingRoot, RecordingWriter) while recording, else None."""
        return self.session_recorder.active

    def action_toggle_recording(self) -> None:
        """Start or stop recording the raw inputs into the XDG data dir."""
        self.session_recorder.toggle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.REPLAY_ACTIONS:
            return self.player is not None
        if action in DEMO_ACTIONS:
            return self.demo is not None
        if action == "toggle_recording":
            return self.player is None and self.demo is None
        return True

    @on(SnapshotReady)
    def _show_snapshot(self, message: SnapshotReady) -> None:
        self.apply_snapshot(message.snapshot)

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Show ``snapshot`` on every screen that watches it, in one repaint."""
        previous_alerts = self.dashboard.last_snapshot.degraded_alerts if self.dashboard.last_snapshot else frozenset()
        try:
            with self.batch_update():
                self.dashboard.apply_snapshot(snapshot)
                if self.player is not None:
                    self.dashboard.history.set_events(self.player.replayer.events_until(snapshot.time))
                screen = self.screen
                if screen is not self.dashboard and hasattr(screen, "apply_snapshot"):
                    screen.apply_snapshot(snapshot)
        except NoMatches:
            # A snapshot that lands while the app shuts down finds no panels.
            return
        self._announce(snapshot, previous_alerts)

    def _announce(self, snapshot: Snapshot, previous_alerts: frozenset[str]) -> None:
        """Turn md events into notifications and, for failures, the bell."""
        # In the demo only the simulated array speaks: the recording's events are history (still in the timeline).
        heard = self.demo.handles if self.demo is not None else None
        said, ring = announcements(snapshot, previous_alerts, heard)
        notices = [Notice(plain(a.text, multiline=True), plain(a.title), a.severity, a.timeout) for a in said]
        # Titles read "md0: Fail" or "md0": the array is what comes before the colon.
        self.notices.offer_events(notices, lambda notice: notice.title.partition(":")[0])
        if ring and self.config.bell:
            self.bell()

    # -------------------------------------------------------------- actions

    def action_help(self) -> None:
        """Show every key of every context."""
        # Dialogs and help are imported when first used: not on the first frame's path.
        from raidtop.screens.help import HelpScreen, context_sections

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(context_sections(list(self.BINDINGS))))

    async def action_quit(self) -> None:
        """Leave raidtop; ask first while fio or a confirmed lab/member action is running."""
        running = [work for screen in self.screen_stack for work in getattr(screen, "running_work", list)()]
        if not running:
            self.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        from raidtop.screens.dialogs import ConfirmDialog

        self.push_screen(
            ConfirmDialog(
                "Quit raidtop while this runs?",
                "\n".join(running),
                "fio is stopped (its partial result is kept); an mdadm command already sent finishes in the kernel.",
            ),
            answered,
        )

    def action_next_theme(self) -> None:
        """Cycle through raidtop's themes (built-in and user files)."""
        names = sorted(n for n in self.available_themes if n.startswith("raidtop-")) or sorted(self.available_themes)
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]
        self.notify(f"theme: {self.theme}", timeout=2)

    def action_toggle_pause(self) -> None:
        """Stop or resume sampling (in a replay: pause or play)."""
        if self.player is not None:
            self.player.toggle_playing()
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
