"""The Benchmarks screen's results table: the history, the comparison with a baseline, a group's passes.

:class:`ResultsView` owns what the table shows (the stored runs, which view,
which repeat or sweep, which preset's baseline) and draws it, with the
highlighted run's detail, into the screen it is given. It does no I/O: the
runs come from :class:`~raidtop.screens.bench.data.BenchData`.
"""

from __future__ import annotations

from textual.dom import DOMNode

from raidtop.actions.fio.compare import compare_with_baseline, summarise_passes
from raidtop.actions.fio.store import StoredRun
from raidtop.screens.bench.rows import (
    COMPARE_COLUMNS,
    GROUP_COLUMNS,
    RESULT_COLUMNS,
    compare_rows,
    group_rows,
    passes_line,
    results_rows,
    run_detail,
    run_summary,
    versus_baseline_line,
)
from raidtop.widgets.fio_plot import FioProgressPlot
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import TextTable
from raidtop.model.units import counted


class ResultsView:
    """The results table's state and drawing; no I/O.

    Args:
        host: the screen holding ``#bench-table`` (and the plot and detail lines it fills in).
    """

    def __init__(self, host: DOMNode) -> None:
        self._host = host
        self.runs: list[StoredRun] = []
        """Every stored run, oldest first."""
        self.view = "results"
        """``results`` (the history), ``compare`` (against a baseline) or ``group`` (a repeat's or sweep's passes)."""
        self.group_id: str | None = None
        self.baseline_preset: str | None = None

    def take(self, runs: list[StoredRun], select: int | None, view: str | None, group: str | None) -> None:
        """A fresh read of the store, and which run, view and group to show."""
        self.runs = runs
        if group:
            self.group_id = group
        if view:
            self.view = view
        if view == "compare" and select is not None:
            chosen = next((r for r in self.runs if r.id == select), None)
            self.baseline_preset = chosen.preset if chosen else self.baseline_preset

    def choose(self, view: str) -> None:
        """Switch to ``view``, following the highlighted run's group or preset."""
        if view == "group":
            run = self.selected_run()
            if run is not None and run.group_id:
                self.group_id = run.group_id
        if view == "compare":
            run = self.selected_run()
            if run is not None and any(r.baseline and r.preset == run.preset for r in self.runs):
                self.baseline_preset = run.preset
        self.view = view

    def in_view(self) -> list[StoredRun]:
        """The runs the table shows now (what an export writes)."""
        if self.view == "compare" and (baseline := self.baseline()) is not None:
            return [baseline] + [r for r in self.runs if r.preset == baseline.preset and r.id != baseline.id]
        if self.view == "group":
            return [r for r in self.runs if r.group_id == self.group_id]
        return list(self.runs)

    def selected_run(self) -> StoredRun | None:
        """The highlighted run, if a run (not a mean row) is highlighted."""
        key = self._host.query_one("#bench-table", TextTable).cursor_key
        if key is None or not key.isdigit():
            return None
        return next((r for r in self.runs if r.id == int(key)), None)

    def baseline(self) -> StoredRun | None:
        """The baseline compared against: the chosen preset's, else the latest marked."""
        marked = [r for r in self.runs if r.baseline]
        if self.baseline_preset:
            chosen = [r for r in marked if r.preset == self.baseline_preset]
            if chosen:
                return chosen[-1]
        return marked[-1] if marked else None

    def show(self, *, running: bool, select: int | None = None) -> None:
        """Draw the table for the current view (highlighting run ``select``), then the detail."""
        table = self._host.query_one("#bench-table", TextTable)
        panel = self._host.query_one("#bench-table-panel", Panel)
        if self.view == "compare":
            baseline = self.baseline()
            table.set_columns(COMPARE_COLUMNS)
            if baseline is None:
                panel.border_title = "Compare"
                table.set_rows([], "no baseline: highlight a run in the history (h) and press m")
            else:
                comparisons = compare_with_baseline(baseline, self.runs)
                panel.border_title = content(
                    f"Compare {baseline.preset}: baseline #{baseline.id} ({baseline.display_label})"
                    f" vs {counted(len(comparisons), 'run')}"
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
                passes = counted(len(runs), "pass", "passes")
                panel.border_title = content(f"{kind.capitalize()} of {runs[0].preset} on {runs[0].target}: {passes}")
                table.set_rows(group_rows(runs, summary))
        else:
            table.set_columns(RESULT_COLUMNS)
            panel.border_title = f"Results history ({counted(len(self.runs), 'run')})"
            table.set_rows(results_rows(self.runs), "no runs stored yet: pick a preset and press Enter")
        if select is not None:
            table.move_cursor_to_key(str(select))
        elif self.view == "results" and self.runs:
            table.cursor_row = len(self.runs) - 1
        else:
            table.cursor_row = 0
        self.show_detail(running=running)

    def show_detail(self, *, running: bool) -> None:
        """The highlighted run's detail line; while nothing runs, its plot and summary too."""
        detail = self._host.query_one("#bench-detail", PlainStatic)
        run = self.selected_run()
        if run is None:
            # The mean row of a repeat is highlighted (or nothing is): say how steady the passes were.
            group = [r for r in self.runs if r.group_id == self.group_id] if self.view == "group" else []
            detail.update(passes_line(group))
            return
        if not running:
            plot_panel = self._host.query_one("#bench-plot-panel", Panel)
            plot_panel.border_title = content(f"Run #{run.id}: {run.preset}" + (f" {run.label}" if run.label else ""))
            plot_panel.border_subtitle = "partial" if run.partial else ""
            self._host.query_one(FioProgressPlot).show_points(list(run.points))
            self._host.query_one("#bench-now", PlainStatic).update(run_summary(run))
        if self.view == "compare":
            baseline = self.baseline()
            if baseline is not None and baseline.id != run.id:
                detail.update(versus_baseline_line(baseline, run))
                return
        detail.update(run_detail(run))
