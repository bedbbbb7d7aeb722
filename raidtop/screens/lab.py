"""The Lab screen: build md arrays on loop devices, break them, watch them rebuild.

The form on the left describes an array; ``n`` creates it (after a dialog
showing the commands). The right side lists the lab's arrays, the members
of the highlighted one and its timeline (created, resync done, failed,
removed, added, recovery start and finish, with the measured rebuild time).
The member keys act on the highlighted array and member, each confirmed
with its exact command. The bottom pane shows every command the lab runs,
as it runs.

Everything that blocks (mdadm, losetup, fio, reading the registry, sysfs)
runs in thread workers that reach the screen through ``post_message``; the
command log is fed by a runner listener the same way. On a machine without
md (or without mdadm, or without root) the screen says what is missing and
how to get it, and offers ``raidtop --demo``.
"""

from __future__ import annotations

import shlex
import threading
import time
from collections import deque

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from raidtop.actions.action_log import LoggedAction
from raidtop.actions.lab.core import Lab, LabArrayView, LabError, LabUnavailable
from raidtop.actions.lab.members import ARRAY_VERBS, LabMemberActions
from raidtop.actions.lab.preflight import DEMO_HINT, LabEnvironment
from raidtop.actions.lab.commands import CommandEvent, LabCommandFailed
from raidtop.actions.lab.spec import (
    CHUNK_CHOICES_KIB,
    DEFAULT_CHUNK_KIB,
    LEVELS,
    LabSpec,
    SpecError,
    human_size,
    parse_size,
    validate,
)
from raidtop.actions.lab.study import StudyParams, StudyResult, format_table, run_study, write_csv
from raidtop.actions.lab.timeline import describe, format_rebuild
from raidtop.actions.member_actions import ActionRefused
from raidtop.model import Snapshot
from raidtop.screens.confirm import ConfirmDialog
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import Column, Row, TextTable

ARRAY_COLUMNS = [
    Column("name", "Array", 7, "left"),
    Column("level", "Level", 7, "left"),
    Column("disks", "Disks", 6),
    Column("size", "Disk", 8),
    Column("state", " State", 13, "left"),
    Column("pattern", "[UU]", 8, "left"),
    Column("sync", "Sync", 13, "left"),
    Column("rebuild", "Rebuild", 10),
    Column("created", "Created", 10),
]
MEMBER_COLUMNS = [
    Column("member", "Member", 8, "left"),
    Column("slot", "Slot", 5),
    Column("roles", " Roles", 28, "left"),
    Column("image", "Image", 40, "left"),
]
TIMELINE_COLUMNS = [
    Column("time", "Time", 9, "left"),
    Column("since", "+s", 8),
    Column("event", " Event", 100, "left"),
]
LOG_COLUMNS = [
    Column("time", "Time", 9, "left"),
    Column("result", "Result", 8, "left"),
    Column("command", "Command", 140, "left"),
]
LOG_ROWS = 200
VERB_WORDS = {
    "fail": "Fail", "remove": "Remove", "add": "Add a fresh disk to", "re_add": "Re-add to", "add_spare": "Add a spare to",
    "replace": "Replace", "check": "Check", "repair": "Repair", "speed_limit": "Change the rebuild speed limit of",
}


def _clock(when: float | None) -> str:
    return "" if when is None else time.strftime("%H:%M:%S", time.localtime(when))


def array_row(view: LabArrayView) -> Row:
    """One lab array: level, disks, state as the kernel shows it, sync, last rebuild."""
    record, md = view.record, view.md
    if record.state == "creating":
        state, tone = "creating", "warn"
    elif not view.running:
        state, tone = "not running", "crit"
    elif md is None:
        state, tone = "running", None
    else:
        state = md.health
        tone = {"ok": "good", "degraded": "warn", "failed": "crit"}.get(md.health)
    sync = ""
    if md is not None and md.sync is not None:
        pct = "" if md.sync.percent is None else f" {md.sync.percent:.0f}%"
        sync = f"{md.sync.action}{pct}"
    cells = (record.name, record.level, str(record.raid_disks), human_size(record.disk_size_bytes), " " + state,
             md.status_string or "" if md else "", sync, format_rebuild(record.last_rebuild), _clock(record.created))
    return Row(record.name, cells, (None, None, None, "dim", tone, "warn" if md and md.status and "_" in md.status else None,
                                    "accent", "good" if record.last_rebuild else "dim", "dim"))


def member_rows(view: LabArrayView) -> list[Row]:
    """Members of one lab array, then its lab disks that are no longer members (re-add candidates)."""
    images = {i.loop: i for i in view.images if i.loop}
    rows = []
    seen = set()
    members = view.md.members if view.md is not None else ()
    for member in sorted(members, key=lambda m: (m.slot is None, m.slot or 0, m.name)):
        seen.add(member.name)
        image = images.get(member.name)
        roles = ",".join(member.roles) or "(unknown)"
        tone = "crit" if member.is_faulty else "warn" if member.is_spare else "good"
        rows.append(Row(member.name, (member.name, "" if member.slot is None else str(member.slot), " " + roles,
                                      image.path.rsplit("/", 1)[-1] if image else "not a lab disk"),
                        (None, None, tone, "dim" if image else "crit")))
    for loop, image in images.items():
        if loop in seen or image.state != "attached":
            continue
        gone = loop in view.gone_loops
        rows.append(Row(loop, (loop, "", " (gone)" if gone else " (removed: re-add with e)", image.path.rsplit("/", 1)[-1]),
                        ("dim", None, "dim", "dim")))
    return rows


def timeline_rows(view: LabArrayView) -> list[Row]:
    """The array's timeline, oldest first, with seconds since it was created."""
    record = view.record
    rows = []
    for index, event in enumerate(record.timeline):
        tone = {"failed": "crit", "removed": "warn", "recovery_done": "good", "resync_done": "good",
                "replace_done": "good", "recovery_start": "accent", "resync_start": "accent"}.get(event.kind)
        rows.append(Row(f"{index}", (_clock(event.time), f"+{event.time - record.created:.1f}", " " + describe(event, record)),
                        ("dim", "dim", tone)))
    return rows


def log_row(index: int, event: CommandEvent) -> Row:
    """One command of the log pane."""
    if event.ok is None:
        result, tone = "running", "accent"
    elif event.ok:
        result, tone = "ok", "good"
    else:
        result, tone = "failed", "crit"
    text = event.command if event.ok is not False else f"{event.command}   ← {event.error}"
    return Row(str(index), (_clock(event.started), result, text), ("dim", tone, None))


def logged_to_event(entry: LoggedAction) -> CommandEvent:
    """An action-log line as a finished command (the log pane starts with the lab's recent history)."""
    ok = entry.result == "ok"
    return CommandEvent(entry.command, entry.time, entry.time, ok, "", "" if ok else entry.result)


class StudyResultScreen(ModalScreen[None]):
    """The study's table, where it was stored and the CSV written."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close", id="lab-study-close", tooltip="Back to the Lab screen")]
    DEFAULT_CSS = """
    StudyResultScreen { align: center middle; }
    StudyResultScreen > Vertical { width: 110; max-width: 100%; height: auto; max-height: 90%; border: round $primary; background: $surface; padding: 0 1; }
    StudyResultScreen #study-table { background: $panel; color: $text-primary; padding: 0 1; }
    StudyResultScreen #study-where { color: $text-muted; }
    """

    def __init__(self, table: str, where: str) -> None:
        super().__init__()
        self._table = table
        self._where = where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("RAID-level study", classes="title")
            yield PlainStatic(self._table, id="study-table")
            yield PlainStatic(self._where, id="study-where")

    def action_close(self) -> None:
        self.dismiss(None)


class LabScreen(Screen[None]):
    """The failure lab.

    Args:
        lab: the lab to drive; by default the app's (``app.lab``) or a new one on the app's root.
        environment: what the machine lacks, if already known (tests); checked in a worker otherwise.
        read_only: show but change nothing; by default true unless the root is the live system.
    """

    BINDINGS = [
        Binding("escape,q", "back", "Back", id="lab-back", tooltip="Return to the dashboard"),
        Binding("n", "create", "Create", id="lab-create", tooltip="Create the array described in the form (shows the commands first)"),
        Binding("S", "study", "Study", show=False, id="lab-study",
                tooltip="For raid0, raid1 and raid5: create, run fio rand-read and rand-write, fail a disk, time the rebuild, tear down"),
        Binding("t", "teardown", "Teardown", show=False, id="lab-teardown",
                tooltip="Stop every lab array, detach its loop devices, delete its images (asks first)"),
        Binding("f", "verb('fail')", "Fail", id="lab-fail", tooltip="Fail the highlighted member (mdadm --fail)"),
        Binding("r", "verb('remove')", "Remove", id="lab-remove", tooltip="Remove the highlighted faulty or spare member (mdadm --remove)"),
        Binding("a", "verb('add')", "Add", id="lab-add", tooltip="Add a fresh disk: a new image and loop device (mdadm --add)"),
        Binding("e", "verb('re_add')", "Re-add", id="lab-re-add", tooltip="Put a removed lab disk back (mdadm --re-add)"),
        Binding("s", "verb('add_spare')", "Spare", id="lab-add-spare", tooltip="Add a fresh disk as a spare (mdadm --add-spare)"),
        Binding("x", "verb('replace')", "Replace", id="lab-replace", tooltip="Copy the highlighted member onto a spare, then fail it (mdadm --replace)"),
        Binding("k", "verb('check')", "Check", id="lab-check", tooltip="Start a check: read everything, count mismatches (md/sync_action)"),
        Binding("K", "verb('repair')", "Repair", show=False, id="lab-repair", tooltip="Start a repair: rewrite mismatched parity or copies"),
        Binding("L", "verb('speed_limit')", "Speed", id="lab-speed", tooltip="Cycle the rebuild speed limit: 1, 10, 50 MB/s, system default"),
        Binding("m", "members", "Dashboard", show=False, id="lab-members",
                tooltip="Open the highlighted array's members on the dashboard"),
    ]
    DEFAULT_CSS = """
    LabScreen #lab-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    LabScreen #lab-banner { height: auto; background: $panel; color: $text-warning; padding: 0 1; display: none; }
    LabScreen.-unavailable #lab-banner { display: block; }
    LabScreen #lab-form-panel { width: 30; height: 1fr; }
    LabScreen #lab-form { padding: 0 1; scrollbar-size: 1 1; }
    LabScreen #lab-form .form-row { height: 1; margin-bottom: 1; }
    LabScreen #lab-form .form-row Label { width: 7; color: $text-muted; }
    LabScreen #lab-form .form-row Input, LabScreen #lab-form .form-row Select { width: 1fr; }
    LabScreen #lab-form Checkbox { margin-bottom: 1; }
    LabScreen #lab-form Button { width: 100%; margin-bottom: 1; }
    LabScreen #lab-spec-error { color: $text-error; height: auto; }
    LabScreen #lab-right { width: 1fr; }
    LabScreen #lab-arrays-panel { height: auto; max-height: 10; }
    LabScreen #lab-arrays { height: auto; max-height: 8; }
    LabScreen #lab-members-panel { height: auto; max-height: 9; }
    LabScreen #lab-members { height: auto; max-height: 7; }
    LabScreen #lab-timeline-panel { height: 1fr; }
    LabScreen #lab-log-panel { height: 9; }
    LabScreen TextTable { scrollbar-size-horizontal: 0; }
    """

    class Refreshed(Message):
        """The lab's arrays as a worker read them."""

        def __init__(self, views: list[LabArrayView], history: list[CommandEvent] | None = None,
                     error: str | None = None) -> None:
            super().__init__()
            self.views = views
            self.history = history
            self.error = error

    class EnvironmentChecked(Message):
        """What this machine lacks for the lab."""

        def __init__(self, environment: LabEnvironment) -> None:
            super().__init__()
            self.environment = environment

    class CommandLogged(Message):
        """A lab command started or ended (from whichever thread ran it)."""

        def __init__(self, event: CommandEvent) -> None:
            super().__init__()
            self.event = event

    class JobDone(Message):
        """A create, teardown, study or member action finished."""

        def __init__(self, title: str, text: str, severity: str = "information", study: StudyResult | None = None,
                     csv_path: str | None = None) -> None:
            super().__init__()
            self.title = title
            self.text = text
            self.severity = severity
            self.study = study
            self.csv_path = csv_path

    class VerbPlanned(Message):
        """A member action passed the guard: ``command`` is what would run."""

        def __init__(self, verb: str, array: str, member: str | None, command: str) -> None:
            super().__init__()
            self.verb = verb
            self.array = array
            self.member = member
            self.command = command

    class VerbRefused(Message):
        """A member action the lab will not do, and why."""

        def __init__(self, verb: str, reason: str) -> None:
            super().__init__()
            self.verb = verb
            self.reason = reason

    class Progress(Message):
        """A line of study progress."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, lab: Lab | None = None, *, environment: LabEnvironment | None = None,
                 read_only: bool | None = None) -> None:
        super().__init__()
        self._lab = lab
        self._environment = environment
        self._read_only = read_only
        self._views: list[LabArrayView] = []
        self._log: deque[CommandEvent] = deque(maxlen=LOG_ROWS)
        self._busy: str | None = None
        self._selected: str | None = None
        self._actions: LabMemberActions | None = None
        self._cancel = threading.Event()
        self._last_arrays = None
        self._refreshing = False
        self._refresh_again = False
        self._last_error: str | None = None

    # -------------------------------------------------------------- set-up

    @property
    def lab(self) -> Lab:
        """The lab this screen drives."""
        if self._lab is None:
            self._lab = getattr(self.app, "lab", None) or Lab(root=getattr(getattr(self.app, "config", None), "root", "/"))
        return self._lab

    @property
    def actions(self) -> LabMemberActions:
        """Member actions on the lab's arrays."""
        if self._actions is None:
            shared = getattr(self.app, "lab_actions", None)
            # read_only=False given explicitly (tests on a fixture root) lets the actions act there too.
            self._actions = shared if shared is not None and shared.lab is self.lab else \
                LabMemberActions(self.lab, live_only=self._read_only is not False)
        return self._actions

    @property
    def read_only(self) -> bool:
        """True when the screen shows but does not act (a --root tree or a replay)."""
        return not self.lab.root.is_live if self._read_only is None else self._read_only

    @property
    def ready(self) -> bool:
        """True when the lab can create and change arrays here."""
        return not self.read_only and self._environment is not None and self._environment.ready

    def compose(self) -> ComposeResult:
        yield PlainStatic(" Lab", id="lab-title")
        yield PlainStatic("", id="lab-banner")
        with Horizontal():
            form_panel = Panel(id="lab-form-panel")
            form_panel.border_title = "New array"
            with form_panel:
                with VerticalScroll(id="lab-form"):
                    with Horizontal(classes="form-row"):
                        yield Label("Level")
                        yield Select([(f"raid{n}", LEVELS[n]) for n in LEVELS], value="raid5", allow_blank=False,
                                     id="lab-level", compact=True)
                    with Horizontal(classes="form-row"):
                        yield Label("Disks")
                        yield Input("4", id="lab-disks", compact=True, type="integer")
                    with Horizontal(classes="form-row"):
                        yield Label("Size")
                        yield Input("64M", id="lab-size", compact=True, tooltip="Each disk: 64M, 1G…")
                    with Horizontal(classes="form-row"):
                        yield Label("Chunk")
                        yield Select([(f"{c} KiB", c) for c in CHUNK_CHOICES_KIB], value=DEFAULT_CHUNK_KIB,
                                     allow_blank=False, id="lab-chunk", compact=True)
                    with Horizontal(classes="form-row"):
                        yield Label("FS")
                        yield Select([("none", ""), ("ext4", "ext4"), ("xfs", "xfs")], value="", allow_blank=False,
                                     id="lab-fs", compact=True)
                    with Horizontal(classes="form-row"):
                        yield Label("Mount")
                        yield Input("", placeholder="(none)", id="lab-mount", compact=True)
                    yield Checkbox("write-intent bitmap", id="lab-bitmap", compact=True)
                    yield PlainStatic("", id="lab-spec-error")
                    yield Button("Create (n)", id="lab-create-button", variant="primary", compact=True)
                    yield Button("Study (S)", id="lab-study-button", compact=True)
                    yield Button("Teardown (t)", id="lab-teardown-button", variant="warning", compact=True)
            with Vertical(id="lab-right"):
                arrays = Panel(id="lab-arrays-panel")
                arrays.border_title = "Lab arrays"
                with arrays:
                    yield TextTable(ARRAY_COLUMNS, id="lab-arrays")
                members = Panel(id="lab-members-panel")
                members.border_title = "Members"
                with members:
                    yield TextTable(MEMBER_COLUMNS, id="lab-members")
                timeline = Panel(id="lab-timeline-panel")
                timeline.border_title = "Timeline"
                with timeline:
                    yield TextTable(TIMELINE_COLUMNS, id="lab-timeline", show_cursor=False)
        log = Panel(id="lab-log-panel")
        log.border_title = "Commands"
        with log:
            yield TextTable(LOG_COLUMNS, id="lab-log", show_cursor=False)
        yield Footer()

    def on_mount(self) -> None:
        self.lab.runner.add_listener(self._command_from_thread)
        self.watch(self.query_one("#lab-arrays", TextTable), "cursor_row", self._array_moved, init=False)
        title = f" Lab  {self.lab.lab_dir}"
        if self.read_only:
            title += "  (read-only: the lab acts on the live system only)"
        self.query_one("#lab-title", Static).update(title)
        if self._environment is None:
            self._check_environment()
        else:
            self._show_environment(self._environment)
        self._refreshing = True
        self._refresh(None, with_history=True)
        self.query_one("#lab-arrays", TextTable).focus()

    def on_unmount(self) -> None:
        self.lab.runner.remove_listener(self._command_from_thread)
        self._cancel.set()

    def _command_from_thread(self, event: CommandEvent) -> None:
        # Called from the worker that runs the command: post_message is the thread-safe way in.
        self.post_message(self.CommandLogged(event))

    # -------------------------------------------------------------- workers

    @work(thread=True, exclusive=True, group="lab-env", exit_on_error=False)
    def _check_environment(self) -> None:
        self.post_message(self.EnvironmentChecked(self.lab.environment(["raid0", "raid1", "raid5", "raid6", "raid10"])))

    @work(thread=True, group="lab-refresh", exit_on_error=False)
    def _refresh(self, md_arrays, with_history: bool = False) -> None:
        lab = self.lab
        views: list[LabArrayView] = []
        history = None
        error = None
        try:
            if md_arrays is None:
                from raidtop.collect.md import read_md

                md_arrays = read_md(lab.root).arrays
            if not self.read_only:
                # The timeline learns what the kernel did on its own (resync done, recovery finished).
                lab.observe_snapshot(md_arrays)
            if with_history:
                history = [logged_to_event(e) for e in lab.runner.log.read("lab")[-LOG_ROWS:]]
            views = lab.views(md_arrays)
        except Exception as exc:  # a damaged registry: say so, keep the screen alive
            error = str(exc)
            views = list(self._views)
        self.post_message(self.Refreshed(views, history, error))

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """The app's sampler saw the arrays: update the lab's views and timelines from it."""
        self._last_arrays = snapshot.arrays
        self._request_refresh()

    def _request_refresh(self) -> None:
        # One refresh at a time: a slow one is followed by one more, never by a pile.
        if self._refreshing:
            self._refresh_again = True
            return
        self._refreshing = True
        self._refresh(self._last_arrays)

    # -------------------------------------------------------------- messages

    @on(EnvironmentChecked)
    def _environment_checked(self, message: EnvironmentChecked) -> None:
        self._show_environment(message.environment)

    def _show_environment(self, environment: LabEnvironment) -> None:
        self._environment = environment
        banner = self.query_one("#lab-banner", Static)
        if environment.ready:
            self.set_class(False, "-unavailable")
        else:
            lines = ["The lab cannot create or change arrays on this machine:"]
            lines += [f"• {p.text}" for p in environment.problems]
            if not any(DEMO_HINT in p.fix for p in environment.problems):
                lines.append(f"Meanwhile: {DEMO_HINT.removeprefix('meanwhile, ')}.")
            banner.update("\n".join(lines))
            self.set_class(True, "-unavailable")
        self.refresh_bindings()

    @on(Refreshed)
    def _refreshed(self, message: Refreshed) -> None:
        self._refreshing = False
        if self._refresh_again:
            self._refresh_again = False
            self._request_refresh()
        if message.error and message.error != self._last_error:
            self.notify(message.error, title="Lab registry", severity="error", timeout=10)
        self._last_error = message.error
        self._views = message.views
        if message.history is not None:
            # Older commands first, then anything that arrived while the history was read.
            live = list(self._log)
            self._log.clear()
            self._log.extend(message.history)
            self._log.extend(live)
        self._render_all()

    @on(CommandLogged)
    def _command_logged(self, message: CommandLogged) -> None:
        event = message.event
        if event.ok is not None:
            # The end of a command replaces its "running" line.
            for index in range(len(self._log) - 1, -1, -1):
                existing = self._log[index]
                if existing.ok is None and (existing.command, existing.started) == (event.command, event.started):
                    self._log[index] = event
                    break
            else:
                self._log.append(event)
        else:
            self._log.append(event)
        self._render_log()

    @on(Progress)
    def _progress(self, message: Progress) -> None:
        self._set_busy(message.text)

    @on(JobDone)
    def _job_done(self, message: JobDone) -> None:
        self._set_busy(None)
        self.notify(message.text, title=message.title, severity=message.severity, timeout=8)
        if message.study is not None:
            where = f"Stored as study {message.study.study_id} in {self.lab.store.path}"
            if message.csv_path:
                where += f"; CSV: {message.csv_path}"
            self.app.push_screen(StudyResultScreen(format_table(message.study.rows), where))
        self._request_refresh()
        note = getattr(self.app, "note_action", None)
        if note is not None:
            note("lab", message.title)
        sample_now = getattr(self.app, "sample_now", None)
        if sample_now is not None:
            sample_now()

    # -------------------------------------------------------------- rendering

    def _render_all(self) -> None:
        arrays = self.query_one("#lab-arrays", TextTable)
        placeholder = "no lab arrays yet: fill in the form and press n" if not self.read_only else "no lab arrays"
        arrays.set_rows([array_row(v) for v in self._views], placeholder)
        if self._selected:
            arrays.move_cursor_to_key(self._selected)
        self._selected = arrays.cursor_key
        self._render_selected()
        self._render_log()
        self.refresh_bindings()

    def _render_selected(self) -> None:
        view = self._selected_view()
        members = self.query_one("#lab-members", TextTable)
        timeline = self.query_one("#lab-timeline", TextTable)
        if view is None:
            members.set_rows([], "")
            timeline.set_rows([], "")
            self.query_one("#lab-timeline-panel", Panel).border_subtitle = ""
            return
        current = members.cursor_key
        members.set_rows(member_rows(view), "not running" if not view.running else "")
        if current:
            members.move_cursor_to_key(current)
        rows = timeline_rows(view)
        timeline.set_rows(rows, "")
        if rows:
            timeline.scroll_end(animate=False)
        self.query_one("#lab-timeline-panel", Panel).border_subtitle = content(
            f"{view.name}: last rebuild {format_rebuild(view.record.last_rebuild)}"
        )

    def _render_log(self) -> None:
        table = self.query_one("#lab-log", TextTable)
        table.set_rows([log_row(i, e) for i, e in enumerate(self._log)], "no lab commands yet")
        table.scroll_end(animate=False)

    def _set_busy(self, text: str | None) -> None:
        self._busy = text
        self.query_one("#lab-log-panel", Panel).border_subtitle = content(f"running: {text}" if text else "")
        self.refresh_bindings()

    def _selected_view(self) -> LabArrayView | None:
        return next((v for v in self._views if v.name == self._selected), None)

    def _array_moved(self, _old: int, _new: int) -> None:
        self._selected = self.query_one("#lab-arrays", TextTable).cursor_key
        self._render_selected()
        self.refresh_bindings()

    # -------------------------------------------------------------- keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("create", "study"):
            return self.ready and self._busy is None
        if action == "teardown":
            return not self.read_only and self._busy is None and bool(self._views)
        if action == "verb":
            view = self._selected_view()
            if not self.ready or self._busy is not None or view is None or view.record.level == "raid0":
                return False
            return True
        if action == "members":
            return self._selected is not None and hasattr(self.app, "dashboard")
        return True

    def action_back(self) -> None:
        """Back to the dashboard."""
        self.app.pop_screen()

    def _spec_from_form(self) -> LabSpec | None:
        error = self.query_one("#lab-spec-error", Static)
        try:
            disks_text = self.query_one("#lab-disks", Input).value.strip()
            if not disks_text.isdigit():
                raise SpecError("disks must be a whole number")
            fs = self.query_one("#lab-fs", Select).value or None
            mount = self.query_one("#lab-mount", Input).value.strip() or None
            spec = validate(LabSpec(
                self.query_one("#lab-level", Select).value, int(disks_text),
                parse_size(self.query_one("#lab-size", Input).value),
                self.query_one("#lab-chunk", Select).value, self.query_one("#lab-bitmap", Checkbox).value, fs, mount,
            ))
        except SpecError as exc:
            error.update(str(exc))
            return None
        error.update("")
        return spec

    def action_create(self) -> None:
        """Confirm the form's array with its commands, then create it in a worker."""
        spec = self._spec_from_form()
        if spec is None:
            return
        commands = "\n".join(self.lab.preview_create(spec))
        details = ("md1NN is the first free md number from md100; loopA… are the loop devices losetup picks. "
                   "The log below shows the real names as the commands run.")

        def confirmed(answer: bool | None) -> None:
            if answer:
                self._set_busy(f"creating {spec.level} on {spec.disks} × {human_size(spec.disk_size_bytes)}")
                self._create(spec)

        self.app.push_screen(ConfirmDialog(f"Create a {spec.level} lab array?", commands, details), confirmed)

    @on(Button.Pressed, "#lab-create-button")
    def _create_pressed(self) -> None:
        if self.check_action("create", ()):
            self.action_create()
        else:
            self._explain_unavailable()

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def _create(self, spec: LabSpec) -> None:
        try:
            record = self.lab.create(spec)
        except (SpecError, LabUnavailable, LabError, LabCommandFailed, OSError) as exc:
            self.post_message(self.JobDone("Create failed", str(exc), "error"))
            return
        self.post_message(self.JobDone(f"created {record.name}", f"{record.level} /dev/{record.name} is building"))

    def action_study(self) -> None:
        """Confirm and run the RAID-level study (levels 0, 1, 5) with the form's disk size."""
        try:
            size = parse_size(self.query_one("#lab-size", Input).value)
        except SpecError as exc:
            self.query_one("#lab-spec-error", Static).update(str(exc))
            return
        params = StudyParams(disk_size_bytes=size, runtime_s=5)
        plan = (f"for level in {', '.join(params.levels)}:\n"
                f"  create the array (2, 2, 3 disks × {human_size(size)}), wait for its initial sync\n"
                f"  fio --name=rand-read … --filename=/dev/md1NN --runtime={params.runtime_s}\n"
                f"  fio --name=rand-write … --filename=/dev/md1NN --runtime={params.runtime_s}\n"
                "  mdadm --fail, --remove one disk; add a fresh one; time the rebuild\n"
                "  tear the array down")

        def confirmed(answer: bool | None) -> None:
            if answer:
                self._cancel.clear()
                self._set_busy("study starting")
                self._study(params)

        self.app.push_screen(ConfirmDialog("Run the RAID-level study?", plan,
                                           "Every command appears in the log below as it runs.",
                                           "fio writes to the lab's own arrays only; they are destroyed afterwards."),
                             confirmed)

    @on(Button.Pressed, "#lab-study-button")
    def _study_pressed(self) -> None:
        if self.check_action("study", ()):
            self.action_study()
        else:
            self._explain_unavailable()

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def _study(self, params: StudyParams) -> None:
        try:
            result = run_study(self.lab, params, on_progress=lambda text: self.post_message(self.Progress(text)),
                               cancel=self._cancel)
        except (SpecError, LabUnavailable, LabError, LabCommandFailed, OSError) as exc:
            self.post_message(self.JobDone("Study stopped", str(exc), "error"))
            return
        csv_path = self.lab.lab_dir / f"study-{result.study_id}.csv"
        try:
            write_csv(result.rows, csv_path)
        except OSError:
            csv_path = None
        self.post_message(self.JobDone("Study done", f"{len(result.rows)} levels measured", study=result,
                                       csv_path=str(csv_path) if csv_path else None))

    def action_teardown(self) -> None:
        """Confirm, then stop every lab array, detach its loops and delete its images."""
        lines = []
        for view in self._views:
            lines.append(f"mdadm --stop /dev/{view.name}")
        for view in self._views:
            for image in view.images:
                if image.loop:
                    lines.append(f"losetup -d /dev/{image.loop}")
                lines.append(f"rm -f {shlex.quote(image.path)}")
        details = ("Each device is checked against the kernel first: a loop number or md name that now "
                   "belongs to something else is left alone and reported.")

        def confirmed(answer: bool | None) -> None:
            if answer:
                self._set_busy("tearing down the lab")
                self._teardown()

        self.app.push_screen(ConfirmDialog("Tear down the whole lab?", "\n".join(lines) or "(registry only)", details,
                                           "Everything stored on the lab's arrays is lost."), confirmed)

    @on(Button.Pressed, "#lab-teardown-button")
    def _teardown_pressed(self) -> None:
        if self.check_action("teardown", ()):
            self.action_teardown()

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def _teardown(self) -> None:
        try:
            report = self.lab.teardown()
        except Exception as exc:  # a damaged registry, say: report it, never crash the screen
            self.post_message(self.JobDone("Teardown failed", str(exc), "error"))
            return
        if report.clean:
            self.post_message(self.JobDone("Teardown done", f"{len(report.done)} steps; nothing left behind"))
        else:
            self.post_message(self.JobDone("Teardown left things", "\n".join(report.kept), "warning"))

    def action_verb(self, verb: str) -> None:
        """Fail, remove, add… on the highlighted array and member, after confirming the command."""
        view = self._selected_view()
        if view is None:
            return
        member = None if verb in ARRAY_VERBS and verb != "re_add" else self.query_one("#lab-members", TextTable).cursor_key
        if verb == "re_add" and member and any(m.name == member for m in (view.md.members if view.md else ())):
            member = None  # a current member cannot be re-added: let the lab pick the removed disk
        self._plan_verb(verb, view.name, member)

    @work(thread=True, exclusive=True, group="lab-plan", exit_on_error=False)
    def _plan_verb(self, verb: str, array: str, member: str | None) -> None:
        # Planning reads sysfs (the guard), so it runs here; the dialog opens on the main thread.
        try:
            command = self.actions.command(verb, array, member)
        except ActionRefused as exc:
            self.post_message(self.VerbRefused(verb, str(exc)))
            return
        self.post_message(self.VerbPlanned(verb, array, member, command))

    @on(VerbRefused)
    def _verb_refused(self, message: VerbRefused) -> None:
        self.notify(message.reason, title=f"{message.verb.replace('_', ' ')} refused", severity="warning", timeout=8)

    @on(VerbPlanned)
    def _confirm_verb(self, message: VerbPlanned) -> None:
        verb, array, member, command = message.verb, message.array, message.member, message.command
        target = f"{member} of {array}" if member and verb not in ARRAY_VERBS else array

        def confirmed(answer: bool | None) -> None:
            if answer:
                self._set_busy(f"{verb.replace('_', ' ')} on {array}")
                self._run_verb(verb, array, member)

        self.app.push_screen(ConfirmDialog(f"{VERB_WORDS[verb]} {target}?", command), confirmed)

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def _run_verb(self, verb: str, array: str, member: str | None) -> None:
        try:
            command = self.actions.run(verb, array, member)
        except ActionRefused as exc:
            self.post_message(self.JobDone(f"{verb.replace('_', ' ')} refused", str(exc), "warning"))
            return
        self.post_message(self.JobDone(f"{verb.replace('_', ' ')} on {array}", command))

    def action_members(self) -> None:
        """Show the highlighted array's members on the dashboard, where f/r/a act too."""
        name = self._selected
        dashboard = getattr(self.app, "dashboard", None)
        if name is None or dashboard is None:
            return
        self.app.pop_screen()
        dashboard.query_one("#arrays").expand_for_actions(name)

    def _explain_unavailable(self) -> None:
        if self.read_only:
            self.notify("the lab acts on the live system only (not on --root or a replay)", severity="warning")
        elif self._environment is not None and not self._environment.ready:
            self.notify(self._environment.describe(), title="The lab cannot run here", severity="warning", timeout=10)
        elif self._busy:
            self.notify(f"busy: {self._busy}", severity="warning")
