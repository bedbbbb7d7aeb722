"""The Lab screen: build md arrays on loop devices, break them, watch them rebuild.

The form on the left describes an array; ``n`` creates it (after a dialog
showing the commands). The right side lists the lab's arrays, the members
of the highlighted one and its timeline (created, resync done, failed,
removed, added, recovery start and finish, with the measured rebuild time).
The member keys act on the highlighted array and member, each confirmed
with its exact command. The bottom pane shows every command the lab runs,
as it runs.

Everything that blocks (mdadm, losetup, fio, reading the registry, sysfs)
runs in thread workers that reach the screen through ``post_message``:
:class:`~raidtop.screens.lab.jobs.LabJobs` for the lab's own jobs, the shared
:class:`~raidtop.screens.member_flow.MemberFlow` for member keys. The
command log is fed by a runner listener the same way. Rows are built in
:mod:`raidtop.screens.lab.rows` and drawn by :class:`~raidtop.screens.lab.tables.LabTables`,
an object the screen owns; the form is :mod:`raidtop.screens.lab.form`. On a
machine without md (or without mdadm, or without root) the screen says what
is missing and how to get it, and offers ``raidtop --demo``.
"""

from __future__ import annotations


from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.members import LIVE_ONLY, LabMemberActions
from raidtop.actions.lab.preflight import LabEnvironment
from raidtop.actions.experiments.results import result_table
from raidtop.actions.experiments.study import StudyParams
from raidtop.model.member_verbs import ARRAY_VERBS, verb_name
from raidtop.model.md import MdArray
from raidtop.model.snapshot import Snapshot
from raidtop.screens.dialogs import ReportDialog
from raidtop.screens.lab.bindings import LAB_BINDINGS
from raidtop.screens.lab.faults import LabFaults
from raidtop.screens.lab.form import LabForm
from raidtop.screens.lab.jobs import LabJobs
from raidtop.screens.lab.tables import LabTables
from raidtop.screens.lab.rows import (
    environment_banner,
    ARRAY_COLUMNS,
    LOG_COLUMNS,
    MEMBER_COLUMNS,
    TIMELINE_COLUMNS,
)
from raidtop.screens.member_flow import MemberFlow
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import TextTable
from raidtop.widgets.key_footer import KeyFooter
from raidtop.screens.dashboard.messages import ShowMembers
from raidtop.screens.host import screen_host


class LabScreen(Screen[None]):
    """The failure lab.

    Args:
        lab: the lab to drive; by default the app's (``app.lab``) or a new one on the app's root.
        environment: what the machine lacks, if already known (tests); checked in a worker otherwise.
        read_only: show but change nothing; by default true unless the root is the live system.
    """

    BINDINGS = LAB_BINDINGS
    DEFAULT_CSS = """
    LabScreen #lab-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    LabScreen #lab-banner { height: auto; background: $panel; color: $text-warning; padding: 0 1; display: none; }
    LabScreen.-unavailable #lab-banner { display: block; }
    LabScreen #lab-right { width: 1fr; }
    LabScreen #lab-arrays-panel { height: auto; max-height: 10; }
    LabScreen #lab-arrays { height: auto; max-height: 8; }
    LabScreen #lab-members-panel { height: auto; max-height: 9; }
    LabScreen #lab-members { height: auto; max-height: 7; }
    LabScreen #lab-timeline-panel { height: 1fr; }
    LabScreen #lab-log-panel { height: 9; }
    LabScreen TextTable { scrollbar-size-horizontal: 0; }
    """

    def __init__(
        self, lab: Lab | None = None, *, environment: LabEnvironment | None = None, read_only: bool | None = None
    ) -> None:
        super().__init__()
        self._lab = lab
        self._environment = environment
        self._read_only = read_only
        self._tables = LabTables(self)
        self._actions: LabMemberActions | None = None
        self._last_arrays: tuple[MdArray, ...] | None = None
        self._refreshing = False
        self._refresh_again = False
        self._last_error: str | None = None

    # -------------------------------------------------------------- set-up

    @property
    def lab(self) -> Lab:
        """The lab this screen drives."""
        if self._lab is None:
            self._lab = screen_host(self).lab or Lab(root=screen_host(self).config.root)
        return self._lab

    @property
    def actions(self) -> LabMemberActions:
        """Member actions on the lab's arrays."""
        if self._actions is None:
            shared = screen_host(self).lab_actions
            # read_only=False given explicitly (tests on a fixture root) lets the actions act there too.
            self._actions = (
                shared
                if shared is not None and shared.lab is self.lab
                else LabMemberActions(self.lab, live_only=self._read_only is not False)
            )
        return self._actions

    @property
    def _jobs(self) -> LabJobs:
        return self.query_one(LabJobs)

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
            yield LabForm(id="lab-form-panel")
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
        yield KeyFooter()
        yield LabJobs(self.lab, read_only=self.read_only, id="lab-jobs")
        # The member keys go through the same flow as the dashboard's; every array here is the lab's.
        yield MemberFlow(lambda _array: self.actions, id="member-flow")
        live_only = self._read_only is not False
        yield LabFaults(self.lab, lambda *a: self.query_one(MemberFlow).request(*a), live_only=live_only)

    def on_mount(self) -> None:
        self.watch(self.query_one("#lab-arrays", TextTable), "cursor_row", self._array_moved, init=False)
        title = f" Lab  {self.lab.lab_dir}"
        if self.read_only:
            title += "  (read-only: the lab acts on the live system only)"
        self.query_one("#lab-title", Static).update(title)
        if self._environment is None:
            self._jobs.check_environment()
        else:
            self._show_environment(self._environment)
        self._refreshing = True
        self._jobs.read_views(None, with_history=True)
        self.query_one("#lab-arrays", TextTable).focus()

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
        self._jobs.read_views(self._last_arrays)

    def _render_all(self) -> None:
        self._tables.render_all(self.read_only, self._environment)
        self.refresh_bindings()

    def _set_busy(self, text: str | None) -> None:
        self._tables.set_busy(text)
        self.refresh_bindings()

    def _array_moved(self, _old: int, _new: int) -> None:
        self._tables.array_moved()
        self.refresh_bindings()

    # -------------------------------------------------------------- messages

    @on(LabJobs.EnvironmentChecked)
    def _environment_checked(self, message: LabJobs.EnvironmentChecked) -> None:
        self._show_environment(message.environment)

    def _show_environment(self, environment: LabEnvironment) -> None:
        self._environment = environment
        banner = self.query_one("#lab-banner", Static)
        if environment.ready:
            self.set_class(False, "-unavailable")
        else:
            banner.update(environment_banner(environment))
            self.set_class(True, "-unavailable")
        # A form that cannot be used must not invite: it stays visible, greyed, and n says why.
        self.query_one(LabForm).disabled = not self.ready
        self._render_all()

    @on(LabJobs.Refreshed)
    def _refreshed(self, message: LabJobs.Refreshed) -> None:
        self._refreshing = False
        if self._refresh_again:
            self._refresh_again = False
            self._request_refresh()
        if message.error and message.error != self._last_error:
            self.notify(message.error, title="Lab registry", severity="error", timeout=10)
        self._last_error = message.error
        self._tables.take_views(message.views, message.history)
        self._render_all()

    @on(LabJobs.CommandLogged)
    def _command_logged(self, message: LabJobs.CommandLogged) -> None:
        self._tables.add_command(message.event)

    @on(LabJobs.Progress)
    def _progress(self, message: LabJobs.Progress) -> None:
        self._set_busy(message.text)

    @on(LabJobs.JobDone)
    def _job_done(self, message: LabJobs.JobDone) -> None:
        self._set_busy(None)
        self.notify(message.text, title=message.title, severity=message.severity, timeout=8)
        if message.study is not None:
            where = f"Stored as experiment {message.study.experiment_id} in {self.lab.store.path} (x: Experiments)"
            if message.csv_path:
                where += f"; CSV: {message.csv_path}"
            self.app.push_screen(ReportDialog("RAID-level study", result_table(message.study), where))
        self._request_refresh()
        screen_host(self).note_action("lab", message.title)
        screen_host(self).sample_now()

    # -------------------------------------------------------------- keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("create", "study"):
            # Where the lab cannot run the key stays live to say why (the action refuses).
            return (self.read_only or self._environment is not None) and self._tables.busy is None
        if action == "teardown":
            return not self.read_only and self._tables.busy is None and bool(self._tables.views)
        if action in ("member", "fault"):
            view = self._tables.selected_view()
            return self.ready and self._tables.busy is None and view is not None and view.record.level != "raid0"
        if action == "members":
            return self._tables.selected is not None and hasattr(self.app, "dashboard")
        return True

    def running_work(self) -> list[str]:
        """The lab action running now, if any (quitting asks first)."""
        return [f"lab: {self._tables.busy}"] if self._tables.busy else []

    def action_back(self) -> None:
        """Back to the dashboard."""
        self.app.pop_screen()

    def action_create(self) -> None:
        """Confirm the form's array with its commands, then create it in a worker."""
        if self._refused():
            return
        spec = self.query_one(LabForm).spec()
        if spec is not None:
            self._jobs.ask_create(spec)

    def action_study(self) -> None:
        """Confirm and run the RAID-level study (levels 0, 1, 5, its defaults) with the form's disk size."""
        if self._refused():
            return
        size = self.query_one(LabForm).disk_size()
        if size is not None:
            self._jobs.ask_study(StudyParams(disk_size_bytes=size))

    def action_teardown(self) -> None:
        """Confirm, then stop every lab array, detach its loops and delete its images."""
        self._jobs.ask_teardown(self._tables.views)

    @on(Button.Pressed, "#lab-create-button, #lab-study-button, #lab-teardown-button")
    def _job_button(self, event: Button.Pressed) -> None:
        job = (event.button.id or "").removeprefix("lab-").removesuffix("-button")
        if self.check_action(job, ()):
            getattr(self, f"action_{job}")()
        elif job != "teardown":
            self._explain_unavailable()

    @on(LabJobs.Started)
    def _job_started(self, message: LabJobs.Started) -> None:
        self._set_busy(message.text)

    def action_member(self, verb: str) -> None:
        """Fail, remove, add… on the highlighted array and member: the shared flow plans, confirms and runs it."""
        view = self._tables.selected_view()
        if view is None:
            return
        member = (
            None if verb in ARRAY_VERBS and verb != "re_add" else self.query_one("#lab-members", TextTable).cursor_key
        )
        if verb == "re_add" and member and any(m.name == member for m in (view.md.members if view.md else ())):
            member = None  # a current member cannot be re-added: let the lab pick the removed disk
        self.query_one(MemberFlow).request(verb, view.name, member)

    def action_fault(self, verb: str) -> None:
        """Put the highlighted member behind a dm fault (asks which) or take it out: the member flow runs it."""
        view = self._tables.selected_view()
        if view is not None:
            self.query_one(LabFaults).ask(verb, view.name, self.query_one("#lab-members", TextTable).cursor_key)

    @on(MemberFlow.Started)
    def _member_started(self, message: MemberFlow.Started) -> None:
        self._set_busy(f"{verb_name(message.verb)} on {message.array}")

    @on(MemberFlow.Finished)
    def _member_finished(self, message: MemberFlow.Finished) -> None:
        # The flow has notified and logged; the lab's tables show the result.
        if self._tables.busy is not None:
            self._set_busy(None)
        self._request_refresh()

    def action_members(self) -> None:
        """Show the highlighted array's members on the dashboard, where f/r/a act too."""
        name = self._tables.selected
        if name is None:
            return
        self.app.pop_screen()
        self.app.post_message(ShowMembers(name))

    def action_experiments(self) -> None:
        """The lab history's experiments (raidtop lab sweep, tradeoff, bitmap, grow), plotted."""
        from raidtop.screens.lab.results import LabResultsScreen

        self.app.push_screen(LabResultsScreen(self.lab))

    def _refused(self) -> bool:
        """True (and the reason told) when nothing can be created here."""
        if not self.ready:
            self._explain_unavailable()
        return not self.ready

    def _explain_unavailable(self) -> None:
        if self.read_only:
            self.notify(LIVE_ONLY, severity="warning")
        elif self._environment is not None and not self._environment.ready:
            self.notify(self._environment.refusal, title="The lab cannot run here", severity="warning", timeout=10)
        elif self._tables.busy:
            self.notify(f"busy: {self._tables.busy}", severity="warning")
