"""The Benchmarks screen: composition and message handling.

Workers (:mod:`.workers`) do everything that blocks and post messages
(:mod:`.messages`); keys (:mod:`.keys`) open dialogs and start workers; rows
and lines come from pure functions (:mod:`.rows`) and the plot is a widget
(:mod:`raidtop.widgets.fio_plot`). The screen keeps plain lists and redraws
from them. While fio runs, the app keeps sampling and
:meth:`BenchScreen.apply_snapshot` shows the target's own devices as iostat
sees them next to fio's numbers.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.command import fio_missing_message
from raidtop.actions.fio.compare import (
    SWEEP_KNOBS,
    compare_with_baseline,
    summarise_passes,
    sweep_devices,
    sweep_values,
)
from raidtop.actions.fio.prefs import BenchPrefs
from raidtop.actions.fio.presets import PresetSet
from raidtop.actions.fio.process import KILL_AFTER_S, ProgressPoint
from raidtop.actions.fio.session import Batch
from raidtop.actions.fio.store import RunStore, StoredRun
from raidtop.model.snapshot import Snapshot
from raidtop.screens.dialogs import SweepDialog
from raidtop.screens.bench import messages as msg
from raidtop.screens.bench.keys import BenchKeys
from raidtop.screens.bench.rows import (
    COMPARE_COLUMNS,
    DISK_COLUMNS,
    GROUP_COLUMNS,
    PRESET_COLUMNS,
    RESULT_COLUMNS,
    compare_rows,
    disk_rows,
    group_rows,
    passes_line,
    preset_rows,
    progress_line,
    results_rows,
    run_detail,
    run_summary,
    versus_baseline_line,
)
from raidtop.screens.bench.workers import AUTO, BenchWorkers
from raidtop.widgets.fio_plot import FioProgressPlot
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import TextTable
from raidtop.widgets.key_footer import KeyFooter
from raidtop.live.state import live_state

LIVE_POINTS = 600
"""Seconds of progress the live plot keeps (a 10-minute job)."""


class BenchScreen(BenchWorkers, BenchKeys, Screen[None]):
    """fio presets, a live view of the run next to the target's disks, and the results history."""

    BINDINGS = [
        Binding(
            "enter",
            "run_selected",
            "Run",
            id="bench-run",
            tooltip="Run the highlighted preset (after confirming the fio command); in the history, show a repeat's passes",
        ),
        *(
            Binding(
                str(n),
                f"run_preset({n - 1})",
                f"Run preset {n}",
                show=False,
                id=f"bench-run-{n}",
                tooltip=f"Run the preset listed as {n}",
            )
            for n in range(1, 10)
        ),
        Binding(
            "t",
            "target",
            "Target",
            id="bench-target",
            tooltip="Choose the directory or device to benchmark (remembered)",
        ),
        Binding(
            "u",
            "runtime",
            "Runtime",
            show=False,
            id="bench-runtime",
            tooltip="Cycle the default runtime: 5, 10, 15, 30, 60, 120 s",
        ),
        Binding(
            "r",
            "repeat",
            "Repeat",
            id="bench-repeat",
            tooltip="Run the highlighted preset N times: mean ± stddev and each pass",
        ),
        Binding(
            "w",
            "sweep",
            "Sweep",
            id="bench-sweep",
            tooltip="Run once per scheduler or read_ahead_kb value, then restore it",
        ),
        Binding(
            "x",
            "cancel_run",
            "Stop fio",
            id="bench-cancel",
            tooltip="Stop the running benchmark (fio gets SIGINT; the partial result is kept)",
        ),
        Binding(
            "m",
            "mark_baseline",
            "Baseline",
            id="bench-baseline",
            tooltip="Mark the highlighted run as its preset's baseline",
        ),
        Binding(
            "c",
            "view('compare')",
            "Compare",
            id="bench-compare",
            tooltip="Every run of the baseline's preset against it, % change",
        ),
        Binding(
            "g",
            "view('group')",
            "Passes",
            id="bench-group",
            tooltip="The passes of the highlighted repeat or sweep, with mean ± stddev",
        ),
        Binding("h", "view('results')", "History", show=False, id="bench-history", tooltip="Every stored run"),
        Binding(
            "e",
            "export",
            "Export",
            id="bench-export",
            tooltip="Write the rows in view as CSV and JSON under the data directory",
        ),
        Binding(
            "escape,q", "back", "Back", id="bench-back", tooltip="Return to the dashboard (asks first while fio runs)"
        ),
    ]

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

    # The workers' messages, also reachable as BenchScreen.Refused and so on.
    Loaded = msg.Loaded
    HistoryLoaded = msg.HistoryLoaded
    StackLoaded = msg.StackLoaded
    Planned = msg.Planned
    Refused = msg.Refused
    Progress = msg.Progress
    PassFinished = msg.PassFinished
    BatchFinished = msg.BatchFinished
    Notice = msg.Notice

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
        self.history = history or RunStore()
        self._presets_file = presets_file
        self._fio_arg = fio_path
        self._log = log
        self._prefs_file = prefs_file
        self.presets: PresetSet | None = None
        self.fio: str | None = None
        self.prefs = BenchPrefs()
        self.override = ""
        self.runs: list[StoredRun] = []
        self.view = "results"
        self.group_id: str | None = None
        self.baseline_preset: str | None = None
        self.stack_names: list[str] = []
        self.live_points: deque[ProgressPoint] = deque(maxlen=LIVE_POINTS)
        self.job: msg.Job | None = None
        self.batch: Batch | None = None
        self._pass_index = 0
        self._new_pass = False
        self._loaded = False

    # -------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield PlainStatic(" Benchmarks", id="bench-title")
        with Horizontal(id="bench-top"):
            presets = Panel(id="bench-presets-panel")
            presets.border_title = "Presets"
            presets.border_subtitle = "Enter or 1–9 runs"
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

    def on_mount(self) -> None:
        self.query_one("#bench-presets", TextTable).focus()
        self.watch(self.query_one("#bench-table", TextTable), "cursor_row", self._table_cursor_moved, init=False)
        self._load()

    def on_unmount(self) -> None:
        # fio runs in its own session: quitting raidtop must not leave it writing on.
        if self.batch is not None:
            self.batch.cancel()
            # The worker stores the partial result and removes the test file after
            # fio stops; the process must not end before that (fio gets KILL_AFTER_S).
            self.batch.wait_finished(KILL_AFTER_S + 5)

    # -------------------------------------------------------------- messages

    @on(msg.Loaded)
    def _loaded_message(self, message: msg.Loaded) -> None:
        self.presets, self.fio, self.prefs = message.presets, message.fio, message.prefs
        self._loaded = True
        for problem in message.presets.problems:
            self.notify(problem, title="presets.toml", severity="warning", timeout=10)
        self._show_presets()
        self.refresh_bindings()

    @on(msg.HistoryLoaded)
    def _history_message(self, message: msg.HistoryLoaded) -> None:
        self.runs = message.runs
        if message.group:
            self.group_id = message.group
        if message.view:
            self.view = message.view
        if message.view == "compare" and message.select is not None:
            chosen = next((r for r in self.runs if r.id == message.select), None)
            self.baseline_preset = chosen.preset if chosen else self.baseline_preset
        self._show_table(select=message.select)

    @on(msg.StackLoaded)
    def _stack_message(self, message: msg.StackLoaded) -> None:
        if message.target != self.prefs.target:
            return
        tuning = message.tuning
        self.stack_names = [d.name for d in tuning.devices] if tuning else []
        table = self.query_one("#bench-disks", TextTable)
        if not self.stack_names:
            table.set_rows([], f"no block device under {message.target}")
        else:
            snapshot = live_state(self.app).latest if hasattr(self.app, "live") else None
            if snapshot is not None:
                self.apply_snapshot(snapshot)
            else:
                table.set_rows([], "waiting for the next sample…")

    @on(msg.Planned)
    def _planned_message(self, message: msg.Planned) -> None:
        plan = message.plan
        if message.mode == "sweep":
            defaults = {}
            for knob in SWEEP_KNOBS:
                devices = sweep_devices(plan.tuning, knob)
                defaults[knob] = (devices, list(sweep_values(plan.tuning, knob, devices)) if devices else [])
            if not any(devices for devices, _ in defaults.values()):
                self.notify(
                    f"nothing to sweep: no device under {plan.target.path} has a scheduler or read_ahead_kb",
                    severity="warning",
                    timeout=8,
                )
                return

            def chosen(answer: tuple[str, list[str]] | None) -> None:
                if answer is not None:
                    knob, values = answer
                    self._confirm(
                        msg.Job("sweep", plan, knob=knob, values=tuple(values), devices=tuple(defaults[knob][0]))
                    )

            self.app.push_screen(SweepDialog(plan.preset.name, defaults), chosen)
            return
        self._confirm(msg.Job(message.mode, plan, passes=message.passes))

    @on(msg.Refused)
    def _refused_message(self, message: msg.Refused) -> None:
        self.notify(message.text, title="Not started", severity="error", timeout=12)

    @on(msg.Notice)
    def _notice_message(self, message: msg.Notice) -> None:
        self.notify(message.text, severity=message.severity, timeout=8)  # type: ignore[arg-type]

    @on(msg.Progress)
    def _progress_message(self, message: msg.Progress) -> None:
        if self._new_pass:
            self.live_points.clear()
            self._new_pass = False
        self.live_points.append(message.point)
        self.query_one("#bench-now", PlainStatic).update(progress_line(message.point))
        self.query_one(FioProgressPlot).show_points(list(self.live_points))

    @on(msg.PassFinished)
    def _pass_message(self, message: msg.PassFinished) -> None:
        self._pass_index += 1
        self._new_pass = True
        if message.error:
            self.notify(message.error, severity="warning", timeout=8)
        elif message.record is not None and message.record.message:
            severity = "warning" if message.record.stored is not None else "error"
            self.notify(message.record.message, title="fio", severity=severity, timeout=8)
        self._update_live_title()

    @on(msg.BatchFinished)
    def _batch_message(self, message: msg.BatchFinished) -> None:
        self.job = None
        self.batch = None
        if self.leave_when_stopped:
            self.app.pop_screen()
        for problem in message.problems:
            self.notify(problem, severity="error", timeout=12)
        self._update_title()
        self.refresh_bindings()

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
        self.query_one("#bench-presets", TextTable).set_rows(
            preset_rows(self.presets, self.prefs.runtime_s), "no presets"
        )
        self._update_title()

    def _show_table(self, select: int | None = None) -> None:
        table = self.query_one("#bench-table", TextTable)
        panel = self.query_one("#bench-table-panel", Panel)
        if self.view == "compare":
            baseline = self._baseline()
            table.set_columns(COMPARE_COLUMNS)
            if baseline is None:
                panel.border_title = "Compare"
                table.set_rows([], "no baseline: highlight a run in the history (h) and press m")
            else:
                comparisons = compare_with_baseline(baseline, self.runs)
                panel.border_title = content(
                    f"Compare {baseline.preset}: baseline #{baseline.id} ({baseline.display_label}) vs {len(comparisons)} runs"
                )
                table.set_rows(compare_rows(baseline, comparisons))
        elif self.view == "group":
            runs = [r for r in self.runs if self.group_id and r.group_id == self.group_id]
            table.set_columns(GROUP_COLUMNS)
            if not runs:
                panel.border_title = "Passes"
                table.set_rows([], "no repeat or sweep selected: highlight one of its runs in the history and press g")
            else:
                kind = runs[0].group_kind or "group"
                summary = summarise_passes(runs) if kind == "repeat" else None
                panel.border_title = content(
                    f"{kind.capitalize()} of {runs[0].preset} on {runs[0].target}: {len(runs)} passes"
                )
                table.set_rows(group_rows(runs, summary))
        else:
            table.set_columns(RESULT_COLUMNS)
            panel.border_title = f"Results history ({len(self.runs)} runs)"
            table.set_rows(results_rows(self.runs), "no runs stored yet: pick a preset and press Enter")
        if select is not None:
            table.move_cursor_to_key(str(select))
        elif self.view == "results" and self.runs:
            table.cursor_row = len(self.runs) - 1
        else:
            table.cursor_row = 0
        self._show_detail()

    def _selected_run(self) -> StoredRun | None:
        key = self.query_one("#bench-table", TextTable).cursor_key
        if key is None or not key.isdigit():
            return None
        return next((r for r in self.runs if r.id == int(key)), None)

    def _baseline(self) -> StoredRun | None:
        marked = [r for r in self.runs if r.baseline]
        if self.baseline_preset:
            chosen = [r for r in marked if r.preset == self.baseline_preset]
            if chosen:
                return chosen[-1]
        return marked[-1] if marked else None

    def _table_cursor_moved(self, _row: int) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#bench-detail", PlainStatic)
        run = self._selected_run()
        if run is None:
            # The mean row of a repeat is highlighted (or nothing is): say how steady the passes were.
            group = [r for r in self.runs if r.group_id == self.group_id] if self.view == "group" else []
            detail.update(passes_line(group))
            return
        if self.job is None:
            plot_panel = self.query_one("#bench-plot-panel", Panel)
            plot_panel.border_title = content(f"Run #{run.id}: {run.preset}" + (f" {run.label}" if run.label else ""))
            plot_panel.border_subtitle = "partial" if run.partial else ""
            self.query_one(FioProgressPlot).show_points(list(run.points))
            self.query_one("#bench-now", PlainStatic).update(run_summary(run))
        if self.view == "compare":
            baseline = self._baseline()
            if baseline is not None and baseline.id != run.id:
                detail.update(versus_baseline_line(baseline, run))
                return
        detail.update(run_detail(run))

    def _update_title(self) -> None:
        title = self.query_one("#bench-title", PlainStatic)
        if self._loaded and self.fio is None:
            title.update(f" Benchmarks · {fio_missing_message()}")
            title.add_class("-warning")
            return
        title.remove_class("-warning")
        target = self.prefs.target or "none (press t)"
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
