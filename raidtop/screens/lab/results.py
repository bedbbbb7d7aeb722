"""The Lab's experiments: every stored study, sweep, trade-off, bitmap study and grow, its table and its plot.

Opened from the Lab screen (``x``). ``s``, ``o`` and ``b`` start a sweep,
a trade-off or a bitmap study with their defaults (confirmed with what they
run; progress shows in the title line; ``X`` stops one, tearing down what it
made). The list is the lab history (``raidtop lab results``); Enter shows one: a sweep as a heat-map per
pattern (chunk × block size, the best cell marked, tones from the theme),
a trade-off as rebuild time against the load's p99 latency (one point per
limit), a bitmap study as resync bars, a RAID-level study as its mean ± sd
table with the levels' IOPS side by side, a grow as its table. The rows and
plot specs are pure functions of a result; reading the history runs in a
worker thread.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer

from raidtop.actions.lab.core import Lab
from raidtop.actions.experiments.results import (
    ExperimentResult,
    best_cells,
    metric_name,
    result_table,
    stored_results,
    summary,
    sweep_grid,
)
from raidtop.screens.lab.experiment_jobs import ExperimentJobs
from raidtop.untrusted import plain
from raidtop.widgets.lab_plots import ExperimentPlot, PlotSpec, Series
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import Column, Row, TextTable

LIST_COLUMNS = [Column("summary", "Experiments (Enter shows one)", 72, "left")]


def list_rows(results: list[ExperimentResult]) -> list[Row]:
    """One row per stored experiment, newest first."""
    return [Row(str(r.experiment_id), (summary(r),), ("warn" if r.stopped else None,)) for r in reversed(results)]


def heat_rows(result: ExperimentResult) -> tuple[list[Column], list[Row]]:
    """A sweep as a heat-map: per pattern a header row, then one row per chunk, cells toned by score."""
    best = best_cells(result.rows)
    patterns = list(dict.fromkeys(c.rw for c in result.rows))
    sizes = list(dict.fromkeys(c.bs for c in result.rows))
    columns = [Column("what", "Pattern / chunk", 18, "left")] + [Column(s, f"bs {s}", 11) for s in sizes]
    rows: list[Row] = []
    for rw in patterns:
        chunks, _sizes, grid = sweep_grid(result.rows, rw)
        top = max((c.score for c in grid.values()), default=0.0) or 1.0
        rows.append(Row(f"{rw}-head", (f"{rw} ({metric_name(rw)})",) + ("",) * len(sizes), ("accent",)))
        for chunk in chunks:
            cells: list[str] = [f"  chunk {chunk}K"]
            tones: list[str | None] = [None]
            for size in sizes:
                cell = grid.get((chunk, size))
                if cell is None:
                    cells.append("—")
                    tones.append("dim")
                    continue
                share = cell.score / top
                digits = 1 if metric_name(rw) == "MiB/s" else 0
                cells.append(f"{cell.score:,.{digits}f}" + ("*" if cell is best[rw] else " "))
                # The theme's tones as the heat: best and near it good, middle warn, far below dim.
                tones.append("good" if share >= 0.8 else "warn" if share >= 0.4 else "dim")
            rows.append(Row(f"{rw}-{chunk}", tuple(cells), tuple(tones)))
    return columns, rows


def plot_spec(result: ExperimentResult) -> PlotSpec:
    """What the plot pane draws for ``result``."""
    if result.kind == "study":
        levels = tuple(s.level for s in result.summary)
        series = tuple(
            Series(label, tuple(range(len(levels))), tuple(s.mean.get(key) or 0.0 for s in result.summary), levels)
            for key, label in (
                ("read_iops", "read IOPS"),
                ("write_iops", "write IOPS"),
                ("rebuilding_write_iops", "write IOPS during a rebuild (raid0: none)"),
            )
        )
        return PlotSpec(series if levels else (), "level (mean of the runs)", "IOPS", "grouped", "no level finished")
    if result.kind == "tradeoff":
        points = [r for r in result.rows if r.limit != "baseline" and r.rebuild_s is not None and r.p99_us]
        base = next((r for r in result.rows if r.limit == "baseline"), None)
        curve: list[Series] = [
            Series(
                "rebuild time vs load p99",
                tuple(r.rebuild_s for r in points),
                tuple(r.p99_us / 1000 for r in points),
                tuple(r.limit for r in points),
            )
        ]
        if base is not None and base.p99_us and points:
            xs = (min(r.rebuild_s for r in points), max(r.rebuild_s for r in points))
            curve.append(Series("baseline p99 (no rebuild)", xs, (base.p99_us / 1000,) * 2))
        return PlotSpec(tuple(curve), "rebuild s", "p99 ms", message="no rebuild finished")
    if result.kind == "bitmap":
        bars: list[Series] = []
        for bitmap in (False, True):
            rows = [r for r in result.rows if r.bitmap is bitmap and r.resync_s is not None]
            bars.append(
                Series(
                    "internal bitmap" if bitmap else "no bitmap",
                    tuple(range(len(rows))),
                    tuple(r.resync_s for r in rows),
                    tuple(f"{r.written_mib}M" for r in rows),
                )
            )
        return PlotSpec(tuple(bars), "MiB written during the outage", "resync s", "bar")
    if result.kind == "sweep":
        lines: list[Series] = []
        for rw in dict.fromkeys(c.rw for c in result.rows):
            chunks, sizes, grid = sweep_grid(result.rows, rw)
            best = best_cells(result.rows)[rw]
            line = [grid[(c, best.bs)] for c in chunks if (c, best.bs) in grid]
            top = max(c.score for c in line) or 1.0
            lines.append(
                Series(
                    f"{rw} bs {best.bs} (% of best)",
                    tuple(range(len(line))),
                    tuple(100 * c.score / top for c in line),
                    tuple(f"{c.chunk_kib}K" for c in line),
                )
            )
        return PlotSpec(tuple(lines), "chunk (in the order swept)", "% of the best cell")
    if result.kind == "faults-course":
        return PlotSpec((), "", "", "empty", "a faults course has no plot: its table says what md showed at each step")
    return PlotSpec((), "", "", "empty", "a grow has no plot: its table shows each reshape's duration")


class LabResultsScreen(Screen[None]):
    """The lab history's experiments: a list, the chosen one's table or heat-map, and its plot."""

    BINDINGS = [
        Binding("escape,q", "back", "Back", id="lab-results-back", tooltip="Return to the Lab screen"),
        Binding("r", "reload", "Reload", id="lab-results-reload", tooltip="Read the lab history again"),
        Binding(
            "s",
            "start('sweep')",
            "Sweep",
            id="lab-results-sweep",
            tooltip="Run the chunk × block-size sweep with its defaults (shows what it runs first)",
        ),
        Binding(
            "o",
            "start('tradeoff')",
            "Trade-off",
            id="lab-results-tradeoff",
            tooltip="Run the rebuild-speed trade-off with its defaults (shows what it runs first)",
        ),
        Binding(
            "b",
            "start('bitmap')",
            "Bitmap",
            id="lab-results-bitmap",
            tooltip="Run the bitmap study with its defaults (shows what it runs first)",
        ),
        Binding(
            "X",
            "stop",
            "Stop",
            id="lab-results-stop",
            tooltip="Stop the running experiment: it tears down what it made and keeps what it measured",
        ),
    ]
    DEFAULT_CSS = """
    LabResultsScreen #lab-results-list-panel { height: auto; max-height: 12; }
    LabResultsScreen #lab-results-list { height: auto; max-height: 10; }
    LabResultsScreen #lab-results-heat { height: auto; max-height: 20; }
    LabResultsScreen #lab-results-table { height: auto; color: $text; }
    LabResultsScreen #lab-results-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    """

    def __init__(self, lab: Lab) -> None:
        super().__init__()
        self.lab = lab
        self._results: list[ExperimentResult] = []
        self.shown: ExperimentResult | None = None

    def compose(self) -> ComposeResult:
        yield PlainStatic("Lab experiments", id="lab-results-title")
        yield ExperimentJobs(self.lab)
        with Vertical():
            with Panel(id="lab-results-list-panel") as panel:
                panel.border_title = "History"
                yield TextTable(LIST_COLUMNS, id="lab-results-list")
            with Horizontal():
                with Panel(id="lab-results-result-panel") as panel:
                    panel.border_title = "Result"
                    yield TextTable([Column("what", "", 18, "left")], id="lab-results-heat", show_cursor=False)
                    yield PlainStatic("", id="lab-results-table")
                with Panel(id="lab-results-plot-panel") as panel:
                    panel.border_title = "Plot"
                    yield ExperimentPlot(id="lab-results-plot")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def action_back(self) -> None:
        """Back to the Lab screen."""
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Start keys while nothing runs, Stop while something does."""
        running = self.query_one(ExperimentJobs).running if self.is_mounted else False
        if action == "start":
            return not running
        if action == "stop":
            return running
        return True

    def action_start(self, kind: str) -> None:
        """Confirm and run one experiment with its defaults."""
        self.query_one(ExperimentJobs).ask(kind)

    def action_stop(self) -> None:
        """Stop the running experiment."""
        self.query_one(ExperimentJobs).stop()

    @on(ExperimentJobs.Progress)
    def _progress(self, message: ExperimentJobs.Progress) -> None:
        self.query_one("#lab-results-title", PlainStatic).update(f"Lab experiments — running: {message.line}")
        self.refresh_bindings()

    @on(ExperimentJobs.Finished)
    def _finished(self, message: ExperimentJobs.Finished) -> None:
        self.query_one("#lab-results-title", PlainStatic).update("Lab experiments")
        self.refresh_bindings()
        if message.error:
            self.notify(
                plain(message.error, multiline=True),
                title=f"The {message.kind} did not run",
                severity="error",
                timeout=10,
                markup=False,
            )
        else:
            state = "stopped early; kept" if message.stopped else "stored"
            self.notify(f"{message.kind} {state} as experiment {message.experiment_id}", markup=False)
        self.action_reload()

    def action_reload(self) -> None:
        """Read the history again (in a worker)."""
        self._load()

    @work(thread=True, exclusive=True, group="lab-results")
    def _load(self) -> None:
        try:
            results = stored_results(self.lab.store)
            problem = ""
        except Exception as exc:  # noqa: BLE001 - an unreadable history is a sentence on screen, not a crash
            results, problem = [], f"the lab history cannot be read: {exc}"
        self.post_message(self.Loaded(results, problem))

    class Loaded(Message):
        """The history worker read the stored experiments (``problem``: why it could not)."""

        def __init__(self, results: list[ExperimentResult], problem: str) -> None:
            super().__init__()
            self.results, self.problem = results, problem

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        results, problem = message.results, message.problem
        self._results = results
        table = self.query_one("#lab-results-list", TextTable)
        table.set_rows(
            list_rows(results), problem or "no experiments yet: raidtop lab study, sweep, tradeoff, bitmap or grow"
        )
        if results:
            self.show_result(results[-1])

    @on(TextTable.RowSelected, "#lab-results-list")
    def _chosen(self, message: TextTable.RowSelected) -> None:
        chosen = next((r for r in self._results if str(r.experiment_id) == message.key), None)
        if chosen is not None:
            self.show_result(chosen)

    def show_result(self, result: ExperimentResult) -> None:
        """Show ``result``'s heat-map (a sweep) or table, and its plot."""
        self.shown = result
        heat = self.query_one("#lab-results-heat", TextTable)
        text = self.query_one("#lab-results-table", PlainStatic)
        if result.kind == "sweep" and result.rows:
            columns, rows = heat_rows(result)
            heat.set_columns(columns)
            heat.set_rows(rows)
            heat.display = True
            text.update("* best cell: MiB/s for read and write, IOPS for randread and randwrite")
        else:
            heat.display = False
            text.update(result_table(result) if result.rows else "no measurement finished")
        self.query_one(ExperimentPlot).show(plot_spec(result))
