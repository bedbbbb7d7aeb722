"""The dashboard: arrays, disks, CPU, memory/VM and sensors on one screen.

Wide terminals show the panels side by side; below 100×30 they fold into tabs
and Tab switches which one is visible. One table has focus and only it shows
a cursor; ``d``, ``x``, ``t`` and the member keys act on its highlighted row.
The app owns the live state and hands it in; the app's flows (recorder,
replay, demo) reach this screen's widgets only through the messages in
:mod:`raidtop.screens.dashboard.messages`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Tabs

from raidtop.screens.cell_updates import install as install_cell_updates
from raidtop.live.state import LiveState
from raidtop.model.snapshot import Snapshot
from raidtop.screens.dashboard import messages
from raidtop.screens.dashboard.keys import DASHBOARD_BINDINGS
from raidtop.screens.dashboard.stage import PRESENT_CSS, Stage
from raidtop.screens.dashboard.panels import PanelFocus
from raidtop.screens.dashboard.rows import fit_rows
from raidtop.screens.dashboard.screen_table import SCREENS, SCREENS_BY_NAME, Highlight
from raidtop.screens.host import screen_host
from raidtop.screens.member_flow import MemberFlow, Resolver
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.cpu_panel import CpuPanel
from raidtop.widgets.disks_panel import DisksPanel
from raidtop.widgets.key_footer import KeyFooter
from raidtop.widgets.notes_bar import NotesBar
from raidtop.widgets.panel import Panel
from raidtop.widgets.processes_panel import ProcessesPanel
from raidtop.widgets.sensors_panel import SensorsPanel
from raidtop.widgets.stage_bar import StageBar
from raidtop.widgets.status_bar import StatusBar
from raidtop.widgets.text_table import TextTable
from raidtop.widgets.text_widths import forget_measured_widths
from raidtop.widgets.time_bar import TimeBar
from raidtop.widgets.vm_panel import VmPanel


class DashboardScreen(Screen[None]):
    """The main screen; it applies each snapshot to every panel in one batch.

    Args:
        host_label: the host name (or the --root directory) for the status line.
        live: the app's live state (the latest snapshot, history, what the sampler should read).
        member_actions: who may act on an array's members (see :class:`MemberFlow`).
        interval: seconds between samples, for the status line.
    """

    # Textual would focus the first focusable widget, the hidden panel tabs, and
    # on_mount then moved focus on: two restyles of both before the first frame.
    AUTO_FOCUS = "#array-table"

    # The demo's refusals answer only their key (no footer, help or palette entry): see check_action.
    BINDINGS: ClassVar[list[BindingType]] = [*DASHBOARD_BINDINGS, *(e.refusal() for e in SCREENS if e.live_system)]

    DEFAULT_CSS = (
        """
    DashboardScreen { layout: vertical; overflow: hidden hidden; }
    DashboardScreen #status { dock: top; }
    DashboardScreen #panel-tabs { display: none; height: 2; }
    DashboardScreen #disks { height: 1fr; min-height: 5; }
    DashboardScreen #bottom { height: 1fr; min-height: 8; }
    DashboardScreen #cpu { width: 1fr; min-width: 40; }
    DashboardScreen #side { width: 44; }
    DashboardScreen #sensors { height: 1fr; min-height: 4; }
    DashboardScreen.-wide #side { layout: horizontal; width: 100; }
    DashboardScreen.-wide #vm { width: 46; height: 1fr; }
    DashboardScreen.-wide #sensors { width: 1fr; }

    DashboardScreen.-narrow #panel-tabs { display: block; }
    DashboardScreen.-narrow Panel { display: none; }
    DashboardScreen.-narrow #bottom { height: 1fr; }
    DashboardScreen.-narrow #cpu, DashboardScreen.-narrow #side { width: 1fr; min-width: 0; }
    DashboardScreen.-narrow.-show-arrays #arrays { display: block; height: 1fr; max-height: 100%; }
    DashboardScreen.-narrow.-show-arrays #bottom { display: none; }
    DashboardScreen.-narrow.-show-disks #disks { display: block; height: 1fr; max-height: 100%; }
    DashboardScreen.-narrow #disks TextTable { height: 1fr; }
    DashboardScreen.-narrow.-show-disks #bottom { display: none; }
    DashboardScreen.-narrow.-show-cpu #cpu { display: block; }
    DashboardScreen.-narrow.-show-cpu #side { display: none; }
    DashboardScreen.-narrow.-show-vm #vm { display: block; height: 1fr; }
    DashboardScreen.-narrow.-show-sensors #sensors { display: block; }
    DashboardScreen.-processes #cpu, DashboardScreen.-processes #side { display: none; }
    DashboardScreen.-narrow.-processes #arrays, DashboardScreen.-narrow.-processes #disks { display: none; }
    DashboardScreen.-narrow.-processes #bottom { display: block; height: 1fr; }
    DashboardScreen.-narrow.-processes #panel-tabs { display: none; }
    DashboardScreen.-narrow ProcessesPanel.-on { display: block; }
    """
        + PRESENT_CSS
    )

    def __init__(self, host_label: str, live: LiveState, member_actions: Resolver, interval: float = 1.0) -> None:
        self.panels = PanelFocus(self)
        # The active panel's class from the start: added in on_mount it restyled
        # every panel once more before the first frame (perf/RESULTS.md).
        super().__init__(classes=f"-show-{self.panels.active}")
        install_cell_updates(self)  # each tick's changed cells reach the terminal, not whole rows
        self._host_label = host_label
        self._interval = interval
        self.live = live
        self._member_actions = member_actions
        self._resumed_once = False
        self._grid_devices: frozenset[str] = frozenset()
        """The member devices the open grids show: the latency feed is told again when the screen comes back."""
        self.stage = Stage(self)
        """The demo's stage: presenter mode, the narration, the steps' keys."""

    def compose(self) -> ComposeResult:
        # Layout classes before the first styling pass: set after mount, each
        # restyled whole panels before the first frame (perf/RESULTS.md).
        self.panels.layout_classes(self.app.size.width, self.app.size.height)
        status = StatusBar(id="status")
        status.host = self._host_label
        status.interval = self._interval
        yield status
        bar = TimeBar(id="time-bar")
        bar.display = False
        yield bar
        if self.has_class("-narrow"):
            yield self.panels.tabs()
        yield ArraysPanel(id="arrays", classes="panel")
        yield DisksPanel(id="disks", classes="panel")
        with Horizontal(id="bottom"):
            yield CpuPanel(id="cpu", classes="panel")
            yield ProcessesPanel(id="processes", classes="panel")
            with Vertical(id="side"):
                yield VmPanel(id="vm", classes="panel")
                yield SensorsPanel(id="sensors", classes="panel")
        yield NotesBar(id="notes-bar")
        yield StageBar(id="stage-bar")
        yield KeyFooter()
        # The Arrays panel's member keys end here: planned, confirmed and run off the UI thread.
        yield MemberFlow(self._member_actions, id="member-flow")

    def on_mount(self) -> None:
        self.bindings_updated_signal.subscribe(self, self.stage.bindings_changed)
        self.query_one(ArraysPanel).focus_table()
        if self.live.latest is not None:
            # One came before the panels existed (a test feeding one at once): show
            # it once they have their sizes, which decide the columns that fit.
            self.call_after_refresh(self._show_latest)
        # Only now can a snapshot be shown, so only now may sampling start; after
        # the first paint, so the sampler and udev thread don't delay it.
        self.app.call_after_refresh(self.post_message, messages.DashboardShown())

    def on_screen_suspend(self) -> None:
        screen_host(self).latency.release("members")  # a grid under another screen is not seen: no bpftrace

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        screen_host(self).latency.want("members", self._grid_devices)
        # Runs before Screen's own handler. The first resume comes straight
        # after every widget was styled as it mounted; restyling the whole page
        # again cost a sixth of the first frame. Later resumes (back from a
        # detail screen, maybe after a theme change) restyle as usual.
        if not self._resumed_once:
            self._resumed_once = True
            event.refresh_styles = False

    def on_resize(self) -> None:
        self.panels.layout_classes(self.size.width, self.size.height)
        if self.has_class("-narrow") and not self.query("#panel-tabs"):
            self.mount(self.panels.tabs(), before="#arrays")
        self.call_after_refresh(self._fit_rows)

    def _fit_rows(self) -> None:
        if self.stage.fit(self.query_one(ArraysPanel)):
            return
        fit_rows(
            self.query_one(ArraysPanel),
            self.query_one(DisksPanel),
            self.query_one("#bottom"),
            self.live.latest,
            self.has_class("-narrow"),
            self.has_class("-wide"),
        )

    # -------------------------------------------------------------- data

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Show ``snap`` (already the live state's latest) in every panel; the caller wraps this in batch_update."""
        if self.is_mounted:
            self._show(snap)

    def _show_latest(self) -> None:
        if self.live.latest is not None:
            self._show(self.live.latest)

    def _show(self, snap: Snapshot) -> None:
        forget_measured_widths()  # the last sample's numbers are not on screen any more
        arrays = self.query_one(ArraysPanel)
        arrays.show(self.stage.arrays_view(snap))
        self.stage.show(snap)
        # An open member grid says who loads its array: the cgroup tree is read while one is open.
        self.live.want_units("members", bool(arrays.expanded))
        if snap.arrays:
            self.query_one(MemberFlow).survey([a.name for a in snap.arrays])
        self.query_one(DisksPanel).show(snap, self.live.history)
        self.query_one(CpuPanel).show(snap)
        self.query_one(VmPanel).show(snap)
        self.query_one(SensorsPanel).show(snap)
        if self.has_class("-processes"):
            self.query_one(ProcessesPanel).show(snap)
        self.query_one(NotesBar).notes = snap.notes
        self._fit_rows()
        self.query_one(StatusBar).show(snap)

    @on(MemberFlow.Offered)
    def _member_offers(self, message: MemberFlow.Offered) -> None:
        self.query_one(ArraysPanel).set_offers(message.offers)

    @on(ArraysPanel.MembersShown)
    def _members_shown(self, message: ArraysPanel.MembersShown) -> None:
        # The app's one tracer follows the open grids' members, with the array detail's.
        self._grid_devices = message.devices
        screen_host(self).latency.want("members", message.devices)

    @on(messages.LatencyChanged)
    def _latency_changed(self, message: messages.LatencyChanged) -> None:
        message.stop()
        self.query_one(ArraysPanel).set_latencies(message.latencies)

    @on(ArraysPanel.MemberVerb)
    def _member_verb(self, message: ArraysPanel.MemberVerb) -> None:
        self.query_one(MemberFlow).request(message.verb, message.array, message.member)

    # -------------------------------------------------------------- what the app's flows say

    @on(messages.SourceChanged)
    def _source_changed(self, message: messages.SourceChanged) -> None:
        message.stop()  # meant for this screen: the app forwards what bubbles up to it
        status = self.query_one(StatusBar)
        if message.badge is not None:
            status.badge = message.badge
        if message.host is not None:
            status.host = message.host

    @on(messages.SamplingChanged)
    def _sampling_changed(self, message: messages.SamplingChanged) -> None:
        message.stop()
        status = self.query_one(StatusBar)
        status.paused = message.paused
        status.interval = message.interval

    @on(messages.ReplayLoaded)
    def _replay_loaded(self, message: messages.ReplayLoaded) -> None:
        message.stop()
        bar = self.query_one(TimeBar)
        bar.display = True
        bar.start, bar.end = message.start, message.end
        bar.markers = message.markers

    @on(messages.ReplayMoved)
    def _replay_moved(self, message: messages.ReplayMoved) -> None:
        message.stop()
        bar = self.query_one(TimeBar)
        bar.position = message.position
        bar.playing = message.playing
        bar.speed = message.speed

    @on(messages.StageSet)
    def _stage_set(self, message: messages.StageSet) -> None:
        message.stop()
        self.stage.set(message)
        self.call_after_refresh(self._show_latest)  # filtered (or not) and fitted once laid out again

    @on(messages.ShowMembers)
    def _show_members(self, message: messages.ShowMembers) -> None:
        message.stop()
        self.query_one(ArraysPanel).expand_for_actions(message.array)

    # -------------------------------------------------------------- panels

    def action_focus_panel(self, key: str) -> None:
        """Focus a panel by its hotkey (1–5); ``members`` is the Arrays panel's member grid."""
        self.panels.focus(key)

    def action_next_panel(self, step: int) -> None:
        """Focus the next (or previous) panel."""
        self.panels.step(step)

    @on(Tabs.TabActivated, "#panel-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        self.panels.tab_activated(event.tab)

    @on(TextTable.HeaderClicked)
    def _header_clicked(self, event: TextTable.HeaderClicked) -> None:
        panel = event.table.parent
        if isinstance(panel, Panel) and event.column in panel.sort_columns:
            disks = self.query_one(DisksPanel)
            same = panel is disks and disks.view.sort_key == event.column
            panel.sort_by(event.column, reverse=not disks.view.reverse if same else False)

    # -------------------------------------------------------------- actions

    def action_sort(self) -> None:
        """Sort the focused panel (the Disks panel if none is) by its next column."""
        panel = self.panels.focused()
        if panel is None or not panel.sort_columns:
            panel = self.query_one(DisksPanel)
        panel.sort_by()

    def action_sort_reverse(self) -> None:
        """Reverse the Disks panel's sort order."""
        disks = self.query_one(DisksPanel)
        disks.set_view(replace(disks.view, reverse=not disks.view.reverse))

    def action_filter(self) -> None:
        """Ask for a device filter."""
        disks = self.query_one(DisksPanel)

        def apply(value: str | None) -> None:
            if value is not None:
                disks.set_view(replace(disks.view, filter=value))

        from raidtop.screens.dialogs import AskDialog  # when first asked: not on the first frame's path

        self.app.push_screen(
            AskDialog(
                "Show devices whose name, model, serial or by-id contains:",
                "e.g. nvme, sd, md (empty: all)",
                value=disks.view.filter,
                width=60,
            ),
            apply,
        )

    def action_toggle_all(self) -> None:
        """Show or hide partitions and unused loop/ram/zram devices."""
        disks = self.query_one(DisksPanel)
        disks.set_view(replace(disks.view, show_all=not disks.view.show_all))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "demo_disk_bad" or self.stage.hides(action):  # presenter mode hides the other panels' keys
            return self.live.simulated and action == "demo_disk_bad"
        if action == "open" and parameters:
            entry = SCREENS_BY_NAME[str(parameters[0])]
            if entry.live_system and self.live.simulated:
                # Tuning, fio and the lab act on the real machine: not from a screen that says SIMULATED.
                return len(parameters) > 1  # hidden; the key's refusal binding says so in a sentence
            if entry.needs_arrays:
                # Greyed out (not hidden) so users learn the key exists.
                snap = self.live.latest
                return True if snap is not None and snap.arrays else None
        return True

    def action_open(self, name: str, refused: bool = False) -> None:
        """Open a screen of :data:`.screen_table.SCREENS` on what is highlighted (``refused``: say why not)."""
        opened = SCREENS_BY_NAME[name].refused_in_demo if refused else SCREENS_BY_NAME[name].opens(self.highlight())
        if isinstance(opened, str):
            self.notify(opened, timeout=4)
        elif opened is not None:
            self.app.push_screen(opened)

    def highlight(self) -> Highlight:
        """What is highlighted where, for the screen a key opens."""
        panel = self.panels.focused()
        focused = self.focused
        panel_table = next(iter(panel.query(TextTable)), None) if panel is not None else None
        return Highlight(
            snapshot=self.live.latest,
            array=self.query_one(ArraysPanel).selected_array,
            panel=panel.id if panel is not None else None,
            focused_row=(focused.id, focused.cursor_key) if isinstance(focused, TextTable) else None,
            panel_row=(panel_table.id, panel_table.cursor_key) if panel_table is not None else None,
        )

    def action_demo_disk_bad(self) -> None:
        """Demo only: a survivor of the demo array other than the highlighted member gets 8 pending sectors."""
        self.post_message(messages.DemoDiskBad(self.query_one(ArraysPanel).highlighted_member))

    def running_work(self) -> list[str]:
        """What would be cut short by quitting now (a member action the user confirmed)."""
        return self.query_one(MemberFlow).running_work()

    def action_toggle_processes(self) -> None:
        """Show or hide the Processes panel; /proc is walked only while it is shown."""
        shown = self.live.show_processes = self.query_one(ProcessesPanel).toggle(self.live.latest)
        self.set_class(shown, "-processes")
        self.post_message(messages.SampleWanted())
        if not shown and self.panels.focused() is None:
            self.panels.show(self.panels.active)
