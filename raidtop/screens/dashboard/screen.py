"""The dashboard: arrays, disks, CPU, memory/VM and sensors on one screen.

Wide terminals show the panels side by side; below 100×30 they fold into tabs
and Tab switches which one is visible. One table has focus and only it shows
a cursor; ``d``, ``x``, ``t`` and the member keys act on its highlighted row.
"""

from __future__ import annotations

from dataclasses import replace

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Tab, Tabs

from raidtop.live.history import History
from raidtop.model.snapshot import Snapshot
from raidtop.screens.dashboard.rows import fit_rows
from raidtop.screens.member_flow import MemberFlow
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.cpu_panel import CpuPanel
from raidtop.widgets.disks_panel import DisksPanel
from raidtop.widgets.key_footer import KeyFooter
from raidtop.widgets.notes_bar import NotesBar
from raidtop.widgets.panel import Panel
from raidtop.widgets.processes_panel import ProcessesPanel
from raidtop.widgets.sensors_panel import SensorsPanel
from raidtop.widgets.status_bar import StatusBar
from raidtop.widgets.text_table import TextTable
from raidtop.widgets.time_bar import TimeBar
from raidtop.widgets.vm_panel import VmPanel

NARROW_WIDTH = 100
NARROW_HEIGHT = 30
WIDE_WIDTH = 180
PANEL_TABS = (("arrays", "Arrays"), ("disks", "Disks"), ("cpu", "CPU"), ("vm", "Memory"), ("sensors", "Sensors"))
PANEL_KEYS = (
    ("1", "arrays", "Arrays"),
    ("2", "members", "Members"),
    ("3", "disks", "Disks"),
    ("4", "cpu", "CPU"),
    ("5", "vm", "Memory/Sensors"),
)
"""btop-style panel hotkeys: 2 is the member grid, 5 alternates Memory and Sensors."""


LIVE_SYSTEM_ACTIONS = frozenset({"tuning", "bench", "lab"})
"""Dashboard actions that change the real machine; hidden and refused in the demo."""


class DashboardScreen(Screen[None]):
    """The main screen; it applies each snapshot to every panel in one batch."""

    # Textual would focus the first focusable widget, the hidden panel tabs, and
    # on_mount then moved focus on: two restyles of both before the first frame.
    AUTO_FOCUS = "#array-table"

    BINDINGS = [
        Binding(
            "tab",
            "next_panel(1)",
            "Next panel",
            id="next-panel",
            tooltip="Move focus to the next panel (in narrow terminals: show it)",
            priority=True,
        ),
        Binding(
            "shift+tab",
            "next_panel(-1)",
            "Prev panel",
            show=False,
            id="prev-panel",
            tooltip="Move focus to the previous panel",
            priority=True,
        ),
        Binding("s", "sort", "Sort", id="sort", tooltip="Sort the focused panel by its next column"),
        Binding(
            "S",
            "sort_reverse",
            "Reverse",
            show=False,
            id="sort-reverse",
            tooltip="Reverse the sort order of the focused panel",
        ),
        Binding(
            "f", "filter", "Filter", id="filter", tooltip="Show only devices whose name/model/serial contains a text"
        ),
        Binding(
            "a",
            "toggle_all",
            "All devs",
            id="show-all",
            tooltip="Show or hide partitions and never-used loop/ram/zram devices",
        ),
        Binding("n", "notes", "Notes", show=False, id="notes", tooltip="List what the last sample could not read"),
        Binding(
            "d",
            "array_detail",
            "Array detail",
            id="array-detail",
            tooltip="Open the detail screen of the highlighted md array",
        ),
        Binding("e", "events", "Events", id="events", tooltip="Show the md event timeline of this session"),
        Binding(
            "u",
            "stack",
            "Stack",
            id="stack",
            tooltip="The storage stack: what sits on each disk and array, up to mountpoints and usage",
        ),
        Binding(
            "A",
            "audit",
            "Audit",
            id="audit",
            tooltip="Rebuild readiness: each array's findings, evidence and fix (raidtop audit)",
        ),
        Binding(
            "h",
            "smart",
            "Health",
            id="smart-health",
            tooltip="SMART health of the highlighted disk or member: every attribute, raw values, self-test",
        ),
        Binding(
            "B",
            "demo_disk_bad",
            "Make a disk go bad",
            id="demo-disk-bad",
            tooltip="Demo only: give a survivor of the demo array 8 pending sectors (raises the rebuild-risk banner)",
        ),
        Binding(
            "x",
            "explain",
            "Explain",
            id="explain",
            tooltip="Show the formulas and raw counter deltas behind the highlighted row",
        ),
        Binding("t", "tuning", "Tune", id="tuning", tooltip="Open the Tuning screen for the highlighted disk or array"),
        Binding(
            "b",
            "bench",
            "Benchmarks",
            id="bench",
            tooltip="fio presets, live benchmark runs, results history and comparisons",
        ),
        Binding(
            "l",
            "lab",
            "Lab",
            id="lab",
            tooltip="Failure lab: build md arrays on loop devices, fail disks, time rebuilds",
        ),
        *(
            Binding(
                key,
                f"focus_panel({panel!r})",
                label,
                show=False,
                id=f"panel-{panel}",
                tooltip=f"Focus the {label} panel",
            )
            for key, panel, label in PANEL_KEYS
        ),
        # A panel hotkey (after 1–5: help joins them into one row), shown in the footer:
        # btop's digits toggle its boxes too.
        Binding(
            "6",
            "toggle_processes",
            "Processes",
            id="processes",
            tooltip="Show or hide who is doing I/O: processes, their units, their share of each array",
        ),
    ]

    DEFAULT_CSS = """
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

    def __init__(self, host_label: str, interval: float = 1.0) -> None:
        self._active = "arrays"
        # The active panel's class from the start: added in on_mount it restyled
        # every panel once more before the first frame (perf/RESULTS.md).
        super().__init__(classes=f"-show-{self._active}")
        self._host_label = host_label
        self._interval = interval
        self.history = History()
        self.last_snapshot: Snapshot | None = None
        self._resumed_once = False

    def compose(self) -> ComposeResult:
        # Layout classes before the first styling pass: set after mount, each
        # restyled whole panels before the first frame (perf/RESULTS.md).
        self._layout_classes(self.app.size.width, self.app.size.height)
        status = StatusBar(id="status")
        status.host = self._host_label
        status.interval = self._interval
        yield status
        bar = TimeBar(id="time-bar")
        bar.display = False
        yield bar
        if self.has_class("-narrow"):
            yield self._panel_tabs()
        yield ArraysPanel(id="arrays", classes="panel")
        yield DisksPanel(id="disks", classes="panel")
        with Horizontal(id="bottom"):
            yield CpuPanel(id="cpu", classes="panel")
            yield ProcessesPanel(id="processes", classes="panel")
            with Vertical(id="side"):
                yield VmPanel(id="vm", classes="panel")
                yield SensorsPanel(id="sensors", classes="panel")
        yield NotesBar(id="notes-bar")
        yield KeyFooter()
        # The Arrays panel's member keys end here: planned, confirmed and run off the UI thread.
        yield MemberFlow(self.app.member_actions, id="member-flow")

    def on_mount(self) -> None:
        self.query_one(ArraysPanel).focus_table()
        if self.last_snapshot is not None:
            # One came before the panels existed (a test feeding one at once): show
            # it once they have their sizes, which decide the columns that fit.
            self.call_after_refresh(lambda: self._show(self.last_snapshot))
        # Only now can a snapshot be shown, so only now may sampling start; after
        # the first paint, so the sampler and udev thread don't delay it.
        self.app.call_after_refresh(self.app.dashboard_ready)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler. The first resume comes straight
        # after every widget was styled as it mounted; restyling the whole page
        # again cost a sixth of the first frame. Later resumes (back from a
        # detail screen, maybe after a theme change) restyle as usual.
        if not self._resumed_once:
            self._resumed_once = True
            event.refresh_styles = False

    def on_resize(self) -> None:
        self._layout_classes(self.size.width, self.size.height)
        if self.has_class("-narrow") and not self.query("#panel-tabs"):
            self.mount(self._panel_tabs(), before="#arrays")
        self.call_after_refresh(self._fit_rows)

    def _fit_rows(self) -> None:
        fit_rows(
            self.query_one(ArraysPanel),
            self.query_one(DisksPanel),
            self.query_one("#bottom"),
            self.last_snapshot,
            self.has_class("-narrow"),
            self.has_class("-wide"),
        )

    def _panel_tabs(self) -> Tabs:
        # Made only once the terminal is narrow: at full size the tabs are hidden,
        # and their ten widgets cost 8 ms of the first frame.
        return Tabs(
            *(Tab(label, id=f"tab-{key}") for key, label in PANEL_TABS), id="panel-tabs", active=f"tab-{self._active}"
        )

    def _layout_classes(self, width: int, height: int) -> None:
        narrow = width < NARROW_WIDTH or height < NARROW_HEIGHT
        self.set_class(narrow, "-narrow")
        # Room for CPU, Memory and Sensors side by side.
        self.set_class(not narrow and width >= WIDE_WIDTH, "-wide")

    # -------------------------------------------------------------- data

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Show ``snap`` in every panel (the caller wraps this in batch_update)."""
        self.last_snapshot = snap
        self.history.add(snap)
        if self.is_mounted:
            self._show(snap)

    def _show(self, snap: Snapshot) -> None:
        arrays = self.query_one(ArraysPanel)
        arrays.show(snap)
        # An open member grid says who loads its array: the cgroup tree is read while one is open.
        wanted = self.app.units_wanted_by
        self.app.units_wanted_by = wanted | {"members"} if arrays.expanded else wanted - {"members"}
        if snap.arrays:
            self.query_one(MemberFlow).survey([a.name for a in snap.arrays])
        self.query_one(DisksPanel).show(snap, self.history)
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

    @on(ArraysPanel.MemberVerb)
    def _member_verb(self, message: ArraysPanel.MemberVerb) -> None:
        self.query_one(MemberFlow).request(message.verb, message.array, message.member)

    # -------------------------------------------------------------- panels

    def _panels(self) -> list[Panel]:
        return [self.query_one(f"#{key}", Panel) for key, _ in PANEL_TABS]

    def _focused_panel(self) -> Panel | None:
        focused = self.focused
        while focused is not None and not isinstance(focused, Panel):
            focused = focused.parent  # type: ignore[assignment]
        return focused

    def show_panel(self, key: str) -> None:
        """Make ``key``'s panel the active one (visible when narrow) and focus it."""
        self.remove_class(f"-show-{self._active}")
        self._active = key
        self.add_class(f"-show-{key}")
        for tabs in self.query(Tabs):
            if tabs.active != f"tab-{key}":
                tabs.active = f"tab-{key}"
        self.query_one(f"#{key}", Panel).focus_table()

    def action_focus_panel(self, key: str) -> None:
        """Focus a panel by its hotkey (1–5); ``members`` is the Arrays panel's member grid."""
        if key == "members":
            self.show_panel("arrays")
            self.query_one(ArraysPanel).focus_members()
            return
        panel = self._focused_panel()
        if key == "vm" and panel is not None and panel.id == "vm":
            key = "sensors"  # 5 again: the panel that shares Memory's column
        self.show_panel(key)

    def action_next_panel(self, step: int) -> None:
        """Focus the next (or previous) panel."""
        keys = [key for key, _ in PANEL_TABS]
        panel = self._focused_panel()
        current = panel.id if panel is not None and panel.id in keys else self._active
        self.show_panel(keys[(keys.index(current) + step) % len(keys)])

    @on(Tabs.TabActivated, "#panel-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        key = event.tab.id.removeprefix("tab-") if event.tab and event.tab.id else "disks"
        if key != self._active:
            self.show_panel(key)

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
        panel = self._focused_panel()
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
        if action == "array_detail":
            # Greyed out (not hidden) so users learn the key exists.
            snap = self.last_snapshot
            return True if snap is not None and snap.arrays else None
        if action == "demo_disk_bad":
            return getattr(self.app, "demo", None) is not None
        if action in LIVE_SYSTEM_ACTIONS and getattr(self.app, "demo", None) is not None:
            # Tuning, fio and the lab act on the real machine: not from a screen that says SIMULATED.
            return False
        return True

    def action_array_detail(self) -> None:
        """Open the detail screen of the highlighted array."""
        from raidtop.screens.array_detail import ArrayDetailScreen

        name = self._focused_array()
        if name is None and self.last_snapshot and self.last_snapshot.arrays:
            name = self.last_snapshot.arrays[0].name
        if name is not None:
            self.app.push_screen(ArrayDetailScreen(name))

    def action_explain(self) -> None:
        """Explain the highlighted row of the focused panel."""
        from raidtop.screens.explain import ExplainScreen, explanation_for

        snap = self.last_snapshot
        panel = self._focused_panel()
        if snap is None or panel is None:
            return
        focused = self.focused
        table = focused if isinstance(focused, TextTable) else panel.query_one(TextTable)
        build = explanation_for(panel.id, table.id, table.cursor_key)
        result = build(snap) if build is not None else None
        if result is None:
            self.notify("nothing to explain here: pick a row in Arrays, Disks, CPU or Memory", timeout=4)
            return
        # Paused or replaying, the figures still follow what the dashboard shows.
        self.app.push_screen(ExplainScreen(result, build, snap.time))

    def action_smart(self) -> None:
        """Open the SMART screen for the highlighted disk (Disks) or member's disk (member grid)."""
        from raidtop.screens.smart import SmartScreen, disk_of_row

        table = self.focused
        snap = self.last_snapshot
        disk = disk_of_row(table.id, table.cursor_key, snap) if isinstance(table, TextTable) and snap else None
        if disk is None:
            self.notify(
                "highlight a disk in Disks, or a member in the member grid (Enter on an array), then press h", timeout=4
            )
            return
        self.app.push_screen(SmartScreen(disk))

    def action_demo_disk_bad(self) -> None:
        """Demo only: a survivor of the demo array gets 8 pending sectors."""
        said = self.app.demo.smart.go_bad()
        self.notify(said, title="Demo", timeout=6)
        self.app.sample_now()

    def action_tuning(self) -> None:
        """Open the Tuning screen on the highlighted disk or array."""
        from raidtop.screens.tuning.screen import TuningScreen

        panel = self._focused_panel()
        if panel is not None and panel.id == "disks":
            self.app.push_screen(TuningScreen(device=panel.query_one(TextTable).cursor_key))
        else:
            self.app.push_screen(TuningScreen(array=self._focused_array()))

    def _focused_array(self) -> str | None:
        """The array of the focused row (the arrays table's or the member grid's)."""
        return self.query_one(ArraysPanel).selected_array

    def running_work(self) -> list[str]:
        """What would be cut short by quitting now (a member action the user confirmed)."""
        return self.query_one(MemberFlow).running_work()

    def action_toggle_processes(self) -> None:
        """Show or hide the Processes panel; /proc is walked only while it is shown."""
        shown = self.app.show_processes = self.query_one(ProcessesPanel).toggle(self.last_snapshot)
        self.set_class(shown, "-processes")
        self.app.sample_now()
        if not shown and self._focused_panel() is None:
            self.show_panel(self._active)

    def action_bench(self) -> None:
        """Open the Benchmarks screen."""
        from raidtop.screens.bench.screen import BenchScreen

        self.app.push_screen(BenchScreen())

    def action_lab(self) -> None:
        """Open the failure lab."""
        from raidtop.screens.lab.screen import LabScreen

        self.app.push_screen(LabScreen())

    def action_audit(self) -> None:
        """Open the Audit screen."""
        from raidtop.screens.audit import AuditScreen

        self.app.push_screen(AuditScreen())

    def action_events(self) -> None:
        """Show this session's md events."""
        from raidtop.screens.events import EventsScreen

        self.app.push_screen(EventsScreen())

    def action_stack(self) -> None:
        """Show the storage stack, lsblk-like, with state and usage."""
        from raidtop.screens.stack import StackScreen

        self.app.push_screen(StackScreen())

    def action_notes(self) -> None:
        """List every note of the last snapshot."""
        from raidtop.screens.dialogs import NotesScreen

        self.app.push_screen(NotesScreen(self.last_snapshot.notes if self.last_snapshot else ()))
