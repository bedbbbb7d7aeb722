"""The Benchmarks screen: composition, keys and drawing (see :mod:`raidtop.screens.bench` for its parts).

Everything that blocks runs in two owned objects that post messages,
:class:`~.data.BenchData` and :class:`~.run_flow.BenchRun`. While fio runs,
:meth:`BenchScreen.apply_snapshot` shows the target's devices as iostat sees them next to fio's numbers.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.command import fio_missing_message
from raidtop.actions.fio.prefs import BenchPrefs
from raidtop.actions.fio.presets import PresetSet, next_runtime, preset_keys
from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.store import RunStore, StoredRun
from raidtop.model.snapshot import Snapshot
from raidtop.screens.bench.bindings import BENCH_BINDINGS
from raidtop.screens.bench.data import AUTO, BenchData
from raidtop.screens.bench.dialogs import passes_dialog, target_dialog
from raidtop.screens.bench.history import ResultsView
from raidtop.screens.bench.job import Job
from raidtop.screens.bench.rows import (
    DISK_COLUMNS,
    PRESET_COLUMNS,
    RESULT_COLUMNS,
    disk_rows,
    preset_rows,
    progress_line,
)
from raidtop.screens.bench.run_flow import BenchRun
from raidtop.widgets.fio_plot import FioProgressPlot
from raidtop.widgets.key_footer import KeyFooter
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import TextTable
from raidtop.screens.host import screen_host

LIVE_POINTS = 600
"""Seconds of progress the live plot keeps (a 10-minute job)."""


class BenchScreen(Screen[None]):
    """fio presets, a live view of the run next to the target's disks, and the results history."""

    BINDINGS = BENCH_BINDINGS
    DEFAULT_CSS = """
    BenchScreen #bench-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    BenchScreen #bench-title.-warning { color: $text-error; }
    BenchScreen #bench-top { height: 20; }
    BenchScreen #bench-presets-panel { width: 48; }
    BenchScreen #bench-right { width: 1fr; }
    BenchScreen #bench-plot-panel { height: 1fr; }
    BenchScreen #bench-plot { height: 1fr; background: $surface; }
    BenchScreen #bench-now { height: 1; color: $text-accent; background: $surface; }
    BenchScreen #bench-disks-panel { height: 7; }
    BenchScreen #bench-table-panel { height: 1fr; }
    BenchScreen #bench-detail { height: 2; color: $text-muted; background: $panel; }
    """

    def __init__(
        self,
        *,
        history: RunStore | None = None,
        presets_file: Path | None = None,
        fio_path: str | None = AUTO,
        log: ActionLog | None = None,
        prefs_file: Path | None = None,
    ) -> None:
        super().__init__()
        store = history or RunStore()
        self._data = BenchData(store, presets_file=presets_file, fio_path=fio_path, prefs_file=prefs_file)
        self._run = BenchRun(store, log)
        self._results = ResultsView(self)
        self.presets: PresetSet | None = None
        self.fio: str | None = None
        self.prefs = BenchPrefs()
        self.override = ""
        self.stack_names: list[str] = []
        self.live_points: deque[ProgressPoint] = deque(maxlen=LIVE_POINTS)
        self._pass_index = 0
        self._new_pass = False
        self._loaded = False
        self.leave_when_stopped = False
        """True once the user chose to stop fio and go back: the screen leaves when the run ends."""

    @property
    def job(self) -> Job | None:
        """The benchmark running now."""
        return self._run.job

    @property
    def runs(self) -> list[StoredRun]:
        """Every stored run, oldest first."""
        return self._results.runs

    @property
    def view(self) -> str:
        """What the results table shows: ``results``, ``compare`` or ``group``."""
        return self._results.view

    # -------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield PlainStatic(" Benchmarks", id="bench-title")
        with Horizontal(id="bench-top"):
            presets = Panel(id="bench-presets-panel")
            presets.border_title = "Presets"
            presets.border_subtitle = f"Enter or {preset_keys()} runs"
            with presets:
                table = TextTable(PRESET_COLUMNS, id="bench-presets")
                table.placeholder = "loading presets…"
                yield table
            with Vertical(id="bench-right"):
                plot = Panel(id="bench-plot-panel")
                plot.border_title = "Live"
                with plot:
                    yield FioProgressPlot(id="bench-plot")
                    yield PlainStatic("", id="bench-now")
                disks = Panel(id="bench-disks-panel")
                disks.border_title = "Target's devices (iostat -x, live)"
                with disks:
                    table = TextTable(DISK_COLUMNS, id="bench-disks")
                    table.placeholder = "no target yet"
                    yield table
        results = Panel(id="bench-table-panel")
        results.border_title = "Results"
        with results:
            table = TextTable(RESULT_COLUMNS, id="bench-table")
            table.placeholder = "no runs stored yet"
            yield table
        yield PlainStatic("", id="bench-detail")
        yield KeyFooter()
        yield self._data
        yield self._run

    def on_mount(self) -> None:
        self.query_one("#bench-presets", TextTable).focus()
        self.watch(self.query_one("#bench-table", TextTable), "cursor_row", self._table_cursor_moved, init=False)
        self._data.load()

    def on_unmount(self) -> None:
        self._run.shutdown()

    # -------------------------------------------------------------- what the data and the run report

    @on(BenchData.Loaded)
    def _loaded_message(self, message: BenchData.Loaded) -> None:
        self.presets, self.fio, self.prefs = message.presets, message.fio, message.prefs
        self._loaded = True
        for problem in message.presets.problems:
            self.notify(problem, title="presets.toml", severity="warning", timeout=10)
        self._show_presets()
        self.refresh_bindings()

    @on(BenchData.HistoryLoaded)
    def _history_message(self, message: BenchData.HistoryLoaded) -> None:
        self._results.take(message.runs, message.select, message.view, message.group)
        self._results.show(running=self.job is not None, select=message.select)

    @on(BenchData.StackLoaded)
    def _stack_message(self, message: BenchData.StackLoaded) -> None:
        if message.target != self.prefs.target:
            return
        tuning = message.tuning
        self.stack_names = [d.name for d in tuning.devices] if tuning else []
        table = self.query_one("#bench-disks", TextTable)
        if not self.stack_names:
            table.set_rows([], f"no block device under {message.target}")
        else:
            snapshot = screen_host(self).live.latest if hasattr(self.app, "live") else None
            if snapshot is not None:
                self.apply_snapshot(snapshot)
            else:
                table.set_rows([], "waiting for the next sample…")

    @on(BenchRun.Started)
    def _started(self) -> None:
        self._pass_index = 0
        self._new_pass = True
        self.live_points.clear()
        self.query_one(FioProgressPlot).show_points([], "waiting for fio's first report")  # not the last run's chart
        self.query_one("#bench-now", PlainStatic).update("starting fio…")
        self._update_title()
        self._update_live_title()
        self.refresh_bindings()

    @on(BenchRun.Progress)
    def _progress_message(self, message: BenchRun.Progress) -> None:
        if self._new_pass:
            self.live_points.clear()
            self._new_pass = False
        self.live_points.append(message.point)
        self.query_one("#bench-now", PlainStatic).update(progress_line(message.point))
        self.query_one(FioProgressPlot).show_points(list(self.live_points))

    @on(BenchRun.PassFinished)
    def _pass_message(self, message: BenchRun.PassFinished) -> None:
        self._pass_index += 1
        self._new_pass = True
        if message.error:
            self.notify(message.error, severity="warning", timeout=8)
        elif message.record is not None and message.record.message:
            severity: SeverityLevel = "warning" if message.record.stored is not None else "error"
            self.notify(message.record.message, title="fio", severity=severity, timeout=8)
        self._update_live_title()

    @on(BenchRun.Finished)
    def _batch_message(self, message: BenchRun.Finished) -> None:
        if self.leave_when_stopped:
            self.app.pop_screen()
        for problem in message.problems:
            self.notify(problem, severity="error", timeout=12)
        self._update_title()
        self.refresh_bindings()
        view = "group" if message.group else "results"
        self._data.reload_history(select=message.last_id, view=view, group=message.group)

    # -------------------------------------------------------------- keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While fio runs only Stop is offered; while idle Stop is hidden."""
        if action == "cancel_run":
            return self.job is not None
        return self.job is None or action not in ("run_selected", "run_preset", "repeat", "sweep", "target")

    def _selected_preset(self) -> str | None:
        return self.query_one("#bench-presets", TextTable).cursor_key

    def _can_start(self) -> bool:
        if not self._loaded:
            return False
        if self.fio is None:
            self.notify(fio_missing_message(), severity="error", timeout=10)
            return False
        if self.job is not None:
            self.notify("a benchmark is running: x stops it", severity="warning")
            return False
        if not self.prefs.target:
            self.notify("choose a target first: press t", severity="warning")
            return False
        return True

    def _plan(self, name: str, mode: str, passes: int = 1) -> None:
        """Hand preset ``name`` to the flow, which plans, confirms and runs it."""
        if self.presets is not None:
            self._run.request(self.presets, name, self.prefs, self.override, self.fio, mode, passes)

    def action_run_selected(self) -> None:
        """Enter: run the highlighted preset; in the history, open a repeat's or sweep's passes."""
        if self.focused is self.query_one("#bench-table", TextTable):
            run = self._results.selected_run()
            if self.view == "results" and run is not None and run.group_id:
                self.action_view("group")
            return
        name = self._selected_preset()
        if name is not None and self._can_start():
            self._plan(name, "single")

    def action_run_preset(self, index: int) -> None:
        """Run the preset listed at ``index`` (0-based)."""
        if self.presets is None or not 0 <= index < len(self.presets.presets):
            return
        self.query_one("#bench-presets", TextTable).cursor_row = index
        if self._can_start():
            self._plan(self.presets.presets[index].name, "single")

    def action_repeat(self) -> None:
        """Ask for a pass count, then run the highlighted preset that many times."""
        name = self._selected_preset()
        if name is None or not self._can_start():
            return

        def chosen(count: str | None) -> None:
            if count is not None:
                self._plan(name, "repeat", int(count))

        self.app.push_screen(passes_dialog(name), chosen)

    def action_sweep(self) -> None:
        """Plan the highlighted preset, then ask which knob to sweep."""
        name = self._selected_preset()
        if name is not None and self._can_start():
            self._plan(name, "sweep")

    def action_cancel_run(self) -> None:
        """Stop fio (SIGINT): the partial result is stored and marked."""
        self._run.stop("stopping fio: the partial result will be kept")

    def action_target(self) -> None:
        """Ask for the target; it is remembered in the config directory."""

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None or not answer[0]:  # an empty target keeps the current one
                return
            path, override = answer
            self.override = override
            self.prefs = BenchPrefs(path, self.prefs.runtime_s)
            self._data.save_prefs(self.prefs)
            self.stack_names = []
            self.query_one("#bench-disks", TextTable).set_rows([], "reading the device stack…")
            self._data.load_stack(path)
            self._update_title()

        self.app.push_screen(target_dialog(self.prefs.target or "", self.override), chosen)

    def action_runtime(self) -> None:
        """Cycle the runtime of presets without their own (certification keeps its 30 s)."""
        current = self.prefs.runtime_s or (self.presets.default_runtime_s if self.presets else 15)
        self.prefs = BenchPrefs(self.prefs.target, next_runtime(current))
        self._data.save_prefs(self.prefs)
        self._show_presets()
        self.notify(f"presets without their own runtime now run {self.prefs.runtime_s} s", timeout=3)

    def action_mark_baseline(self) -> None:
        """Make the highlighted run its preset's baseline and show the comparison."""
        run = self._results.selected_run()
        if run is None:
            self.notify("highlight a run in the history first", severity="warning")
            return
        if run.partial:
            self.notify("a partial run makes a poor baseline; marked anyway", severity="warning")
        self._results.baseline_preset = run.preset
        self._data.set_baseline(run.id)

    def action_view(self, view: str) -> None:
        """Show the history, the comparison or the passes of the highlighted group."""
        self._results.choose(view)
        self._results.show(running=self.job is not None)

    def action_export(self) -> None:
        """Export the runs in view as CSV and JSON."""
        runs = self._results.in_view()
        if not runs:
            self.notify("nothing to export", severity="warning")
            return
        self._data.export(runs, time.strftime(f"bench-{self.view}-%Y%m%d-%H%M%S"))

    def running_work(self) -> list[str]:
        """What quitting now would stop (asked about first)."""
        return self._run.running_work()

    def action_back(self) -> None:
        """Leave for the dashboard; while fio runs, ask, stop it, and leave once its result is stored."""
        if self.job is None:
            self.app.pop_screen()
        else:
            self._run.ask_to_stop(self._leave_when_stopped)

    def _leave_when_stopped(self) -> None:
        self.leave_when_stopped = True

    # -------------------------------------------------------------- showing

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Show the target's devices as this sample saw them (the app calls this every sample)."""
        if not self.stack_names:
            return
        rows = disk_rows(snapshot, self.stack_names)
        self.query_one("#bench-disks", TextTable).set_rows(rows, "the target's devices are not in this sample")

    def _show_presets(self) -> None:
        if self.presets is None:
            return
        rows = preset_rows(self.presets, self.prefs.runtime_s)
        self.query_one("#bench-presets", TextTable).set_rows(rows, "no presets")
        self._update_title()

    def _table_cursor_moved(self, _row: int) -> None:
        self._results.show_detail(running=self.job is not None)

    def _update_title(self) -> None:
        title = self.query_one("#bench-title", PlainStatic)
        if self._loaded and self.fio is None:
            title.update(f" Benchmarks · {fio_missing_message()}")
            title.add_class("-warning")
            return
        title.remove_class("-warning")
        target = self.prefs.target or "none yet"
        runtime = self.prefs.runtime_s or (self.presets.default_runtime_s if self.presets else 15)
        running = f" · running {self.job.plan.preset.name}" if self.job else ""
        title.update(f" Benchmarks · target {target} (t) · default runtime {runtime} s (u){running}")

    def _update_live_title(self) -> None:
        panel = self.query_one("#bench-plot-panel", Panel)
        if self.job is None:
            return
        label = self.job.pass_label(self._pass_index)
        panel.border_title = content(f"Live: {self.job.plan.preset.name} {label}".rstrip())
        panel.border_subtitle = "x stops fio"
