"""RaidtopApp: the live state and the flows that feed it (sampling, replay, recording, demo), global keys, themes."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.css.query import NoMatches
from textual.message import Message
from textual.notifications import Notify, SeverityLevel
from textual.screen import Screen

from raidtop.actions.member_actions import MemberActions
from raidtop.app import startup_gc
from raidtop.app.hangup import catch_exit_signals, leave_on_signal
from raidtop.app.latency_link import latency_feed
from raidtop.app.leaving import leave_or_ask
from raidtop.app.keys import APP_BINDINGS, REPLAY_ACTIONS
from raidtop.app.messages import LatencySaid, LatencySampled, SamplingFailed, SnapshotReady
from raidtop.app.notices import Notice, NoticeDesk
from raidtop.app.palette import PROVIDERS, key_commands
from raidtop.app.quiet_driver import quiet_driver_class
from raidtop.app.recorder import Recorder
from raidtop.app.sampling import Sampling, sampler_for
from raidtop.app.terminal_app import TerminalApp
from raidtop.app.theme_choice import next_theme, register_themes
from raidtop.collect.source import as_root
from raidtop.config import Config
from raidtop.live.replay_position import ReplayPosition
from raidtop.live.state import LiveState
from raidtop.model.snapshot import Snapshot
from raidtop.screens.dashboard import messages as dashboard_messages
from raidtop.screens.dashboard.screen import DashboardScreen
from raidtop.threads import DaemonExecutor
from raidtop.untrusted import plain

if TYPE_CHECKING:  # imported only when --demo, --replay or the lab is asked for, the sampler after the first frame
    from raidtop.app.demo_stage import DemoStage
    from raidtop.app.replay_player import ReplayPlayer
    from raidtop.collect.sampler import Sampler
    from raidtop.actions.lab.core import Lab
    from raidtop.actions.lab.members import LabMemberActions
    from raidtop.collect.recording.read import Recording
    from raidtop.demo.controller import DemoController


class RaidtopApp(TerminalApp[None]):
    """The raidtop dashboard.

    It owns the live state (:class:`LiveState`) and the flows that feed it or
    change what it shows: sampling, the replay player, the recorder, the demo
    stage and the notice desk. Each is an object with its own state; they
    reach the dashboard only by messages.

    Args:
        config: what to watch and how.
        recording: the parsed ``config.replay`` when the caller has read it already.
        demo: the demo's controller (tests pass one on their own clock); made here for ``config.demo``.
    """

    TITLE = "raidtop"
    BINDINGS: ClassVar[list[BindingType]] = [*APP_BINDINGS]
    COMMANDS = PROVIDERS
    # Textual's toast has a blank line above and below its text: two of them took 10 of 24 lines.
    CSS = """
    Toast { padding: 0 1; margin-top: 0; max-width: 50%; }
    ToastRack { margin-bottom: 1; }
    """
    dashboard: DashboardScreen
    """The dashboard, made on mount; the screen every snapshot goes to."""

    def __init__(
        self, config: Config | None = None, recording: Recording | None = None, demo: DemoController | None = None
    ) -> None:
        super().__init__(driver_class=quiet_driver_class())
        self.config = config or Config()
        # Modes and screens are imported when used: each import costs time
        # before the first frame (measured in perf/tui_cost.py).
        if demo is None and self.config.demo:
            from raidtop.demo.controller import DemoController

            demo = DemoController(play_recording=self.config.demo_recording)
        self.demo = demo
        sampler, self.config_notes = sampler_for(self.config, demo)
        self.live = LiveState(simulated=demo is not None)
        """What raidtop last read and what came before: handed to the dashboard, read by every screen."""
        self.sampling = Sampling(self, sampler, self.config.interval, self.live, self._record_frame, demo)
        self.player: ReplayPlayer | None = None
        """Plays --replay's recording in the sampler's place."""
        if self.config.replay is not None:
            from raidtop.collect.recording.replayer import load_for_replay
            from raidtop.presentation.judgement import judged_replayer

            from raidtop.app.replay_player import ReplayPlayer

            replayer = judged_replayer(recording if recording is not None else load_for_replay(self.config.replay))
            self.live.replay = ReplayPosition()
            self.player = ReplayPlayer(self, replayer, self.live.replay, self.sampling.wake, self._to_dashboard)
        self.latency = latency_feed(self, self.config, demo is not None)
        """The one latency tracer's owner; the views register what they show."""
        self.session_recorder = Recorder(self, self.sampling, self._to_dashboard)
        self.demo_stage: DemoStage | None = None
        if demo is not None:
            from raidtop.app.demo_stage import DemoStage

            self.demo_stage = DemoStage(self, demo, self.sampling, self._to_dashboard)
        # The lab acts only on the live system (never on a replay or the demo).
        self.lab: Lab | None = None
        self.lab_actions: LabMemberActions | None = None
        self._lab_lock = threading.Lock()
        """Made on first use (see member_actions): the lab is not needed for the first frame."""
        self._theme_problems = register_themes(self, self.config.theme)
        self.notices = NoticeDesk(self, self._toast)

    @property
    def sampler(self) -> Sampler:
        """The sampler (a fresh one after a demo reset)."""
        return self.sampling.sampler

    @sampler.setter
    def sampler(self, sampler: Sampler) -> None:
        self.sampling.sampler = sampler

    def get_default_screen(self) -> DashboardScreen:
        # The dashboard is the bottom of the stack: pushed over Textual's empty
        # default screen it was styled twice before the first frame.
        root = self.config.root
        # The last two path parts name a fixture or recording without leaking
        # the absolute checkout path (which would make screenshots differ).
        # abspath, not resolve: the label is text, and following links is I/O on the event loop.
        shown = Path(os.path.abspath(root)).parts[-2:]
        label = socket.gethostname() if str(root) == "/" else "root " + "/".join(shown)
        self.dashboard = DashboardScreen(label, self.live, self.member_actions, self.sampling.interval)
        return self.dashboard

    def on_mount(self) -> None:
        # Every thread (the sampler's, to_thread's, Textual's thread workers) is
        # a daemon nobody joins: a read stuck in the kernel cannot block `q`.
        self._threads = DaemonExecutor()
        asyncio.get_running_loop().set_default_executor(self._threads)
        self.sampling.executor = self._threads
        # SIGHUP/SIGTERM take q's exit, so screens unmount and cancel fio and lab jobs.
        self._release_signals = catch_exit_signals(asyncio.get_running_loop(), self.end_on_signal)
        self.screen_change_signal.subscribe(self, self.notices.screen_changed)
        if self._theme_problems:
            # One pop-up for all of them: two are shown at most, and each line matters.
            self.notify("\n".join(self._theme_problems), title="Theme", severity="warning", timeout=8)
        if self.config_notes:
            self.notify("\n".join(self.config_notes), title="Config", severity="warning", timeout=8, markup=False)

    def member_actions(self, array: str) -> MemberActions | None:
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

                    self.lab = Lab(root=as_root(self.config.root))
                    self.lab_actions = LabMemberActions(self.lab)
            if self.lab_actions.handles(array):
                return self.lab_actions
        return None

    def on_dashboard_shown(self) -> None:
        self.dashboard_ready()  # looked up by name, so perf/experiments/app_patches.py can wrap it

    def dashboard_ready(self) -> None:
        """The dashboard painted its first frame: collect garbage again, start sampling."""
        startup_gc.resume()
        if self.demo_stage is not None:
            self.demo_stage.show(self.config.present)
            if self.config.autostart_sampler:
                self.sampling.start()
            return
        if self.player is not None:
            self.player.prepare()
            if self.config.autostart_sampler:
                self.player.start()
            return
        if self.config.autostart_sampler:
            self.sampling.start()
            # What the first frame need not wait for: importing pyudev on the event loop held it back
            # by up to 0.3 s on a loaded machine (perf/RESULTS.md).
            watch = partial(self.sampling.watch_devices, self.post_message)
            self.run_worker(watch, thread=True, group="start-up", exit_on_error=False)

    def sample_now(self) -> None:
        """Cut the sampler's wait short (a device event, a change of what is shown, a change made)."""
        self.sampling.sample_now()

    def _record_frame(self, snapshot: Snapshot) -> None:
        # In the sampler thread: the recorder stores what this sample was read from.
        self.session_recorder.add_frame(snapshot)

    def _to_dashboard(self, message: Message) -> None:
        """Post ``message`` to the dashboard (the flows' one way to change what it shows)."""
        self.dashboard.post_message(message)

    def on_sample_wanted(self) -> None:
        self.sample_now()

    def on_device_event(self) -> None:
        self.sampling.device_event()

    @on(SamplingFailed)
    def _sampling_failed(self, message: SamplingFailed) -> None:
        self.notify(message.text, severity="error", timeout=10)

    @on(LatencySampled)
    def _latency_sampled(self, message: LatencySampled) -> None:
        self.live.latency.add(message.hists, time.time())
        self._to_dashboard(dashboard_messages.LatencyChanged(self.live.latency.latest))

    @on(LatencySaid)
    def _latency_said(self, message: LatencySaid) -> None:
        self.notify(message.text, severity="warning" if message.warning else "information", timeout=12)

    @on(dashboard_messages.ShowMembers)
    def _show_members(self, message: dashboard_messages.ShowMembers) -> None:
        # From another screen (the lab's "members"): the dashboard opens the grid.
        self._to_dashboard(dashboard_messages.ShowMembers(message.array))

    @on(dashboard_messages.DemoDiskBad)
    def _demo_disk_bad(self, message: dashboard_messages.DemoDiskBad) -> None:
        if self.demo_stage is not None:
            self.demo_stage.disk_bad(message.highlighted)

    # -------------------------------------------------------------- hang-up

    exit_signal: int | None = None
    """The signal that ended raidtop (SIGHUP, SIGTERM), or None."""

    def end_on_signal(self, signum: int) -> None:
        """Leave as ``q`` does (screens unmount, so fio and lab jobs are cancelled); exit 128+signum."""
        if self.exit_signal is None:
            self.exit_signal = signum
            leave_on_signal(self, signum)

    def on_unmount(self) -> None:
        release = getattr(self, "_release_signals", None)
        if release is not None:
            release()
        self.sampling.stop()
        self.latency.stop()
        self.session_recorder.close()

    def note_action(self, kind: str, command: str) -> None:
        """Screens that change the system call this so recordings mark the change."""
        self.session_recorder.note_action(kind, command)

    def action_toggle_recording(self) -> None:
        """Start or stop recording the raw inputs into the XDG data dir."""
        self.session_recorder.toggle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in REPLAY_ACTIONS:
            return self.player is not None
        if action in ("demo", "demo_speed"):
            return self.demo_stage is not None and self.demo_stage.offers(action, parameters)
        if action == "toggle_recording":
            return self.player is None and self.demo is None
        return True

    @on(SnapshotReady)
    def _show_snapshot(self, message: SnapshotReady) -> None:
        self.apply_snapshot(message.snapshot)

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Make ``snapshot`` the live state's latest and show it on every screen that watches it, in one repaint."""
        previous_alerts = self.live.add(snapshot)
        if self.player is not None:
            self.live.set_events(self.player.replayer.events_until(snapshot.time))
        try:
            with self.batch_update():
                self.dashboard.apply_snapshot(snapshot)
                screen = self.screen
                if screen is not self.dashboard and hasattr(screen, "apply_snapshot"):
                    screen.apply_snapshot(snapshot)
        except NoMatches:
            # A snapshot that lands while the app shuts down finds no panels.
            return
        # In the demo only the simulated array speaks: the recording's events are history (still in the timeline).
        heard = self.demo_stage.after_snapshot() if self.demo_stage is not None else None
        if self.notices.announce(snapshot, previous_alerts, heard) and self.config.bell:
            self.bell()

    # -------------------------------------------------------------- actions

    def action_help(self) -> None:
        """Show every key of every context."""
        # Dialogs and help are imported when first used: not on the first frame's path.
        from raidtop.screens.help import HelpScreen, context_sections

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(context_sections(APP_BINDINGS)))

    async def action_quit(self) -> None:
        """Leave raidtop; ask first while fio or a confirmed lab/member action is running."""
        leave_or_ask(self)

    def action_next_theme(self) -> None:
        """Cycle through raidtop's themes (built-in and user files)."""
        self.theme = next_theme(self)
        self.notify(f"theme: {self.theme}", timeout=2)

    def action_toggle_pause(self) -> None:
        """Stop or resume sampling (in a replay: pause or play)."""
        if self.player is not None:
            self.player.toggle_playing()
            return
        self.sampling.toggle_pause()
        self._to_dashboard(dashboard_messages.SamplingChanged(self.sampling.paused, self.sampling.interval))

    def action_interval(self, direction: int) -> None:
        """Lengthen (+1) or shorten (-1) the sampling interval."""
        self.sampling.change_interval(direction)
        self._to_dashboard(dashboard_messages.SamplingChanged(self.sampling.paused, self.sampling.interval))
        self.notify(f"sampling every {self.sampling.interval:g} s", timeout=2)

    def action_replay_step(self, step: int) -> None:
        """Show the next (or previous) recorded sample and pause."""
        if self.player is not None:
            self.player.step(step)

    def action_replay_speed(self, direction: int) -> None:
        """Play faster or slower."""
        if self.player is not None:
            self.player.change_speed(direction)

    def action_replay_jump(self) -> None:
        """Ask for a time and jump there."""
        if self.player is not None:
            self.player.ask_jump()

    def action_demo(self, verb: str, *arguments: int) -> None:
        """A demo key: reset, presenter mode, the rebuild's speed (:class:`DemoStage`)."""
        if self.demo_stage is not None and self.demo_stage.offers("demo", (verb,)):
            getattr(self.demo_stage, verb)(*arguments)

    def action_demo_speed(self, direction: int) -> None:
        """Slow down (-1) or speed up (+1) the simulated array's rebuild."""
        self.action_demo("change_speed", direction)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key is also a command-palette entry."""
        yield from super().get_system_commands(screen)
        yield from key_commands(self, screen)

    # -------------------------------------------------------------- notices

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification, from every screen and widget, as plain text, through the notice desk.

        Messages carry paths, device names and kernel errors; with Textual's
        default markup a ``[/]`` in one raised MarkupError and left a blank,
        unresponsive screen. ``markup`` is accepted and ignored for that reason.
        """
        self.notices.offer(Notice(plain(message, multiline=True), plain(title), severity, timeout))

    def _toast(self, notice: Notice) -> None:
        super().notify(
            notice.message, title=notice.title, severity=notice.severity, timeout=notice.timeout, markup=False
        )

    def _on_notify(self, event: Notify) -> None:
        super()._on_notify(event)
        self.notices.trim()

    def action_toggle_mute(self) -> None:
        """Mute or unmute md event pop-ups (the timeline keeps them)."""
        self.notices.muted = not self.notices.muted
        self.notify(
            "event pop-ups muted: e shows the timeline" if self.notices.muted else "event pop-ups on", timeout=3
        )
