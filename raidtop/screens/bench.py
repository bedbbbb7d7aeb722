"""The Benchmarks screen: fio presets, live progress, history, compare, repeat, sweep, export.

Everything that blocks (planning a run, fio itself, the SQLite history,
exports) runs in thread workers that reach the UI only through
``post_message``; the screen keeps plain lists and redraws from them.
While fio runs, the app keeps sampling and :meth:`BenchScreen.apply_snapshot`
shows the target's own devices as iostat sees them next to fio's numbers.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotext as plt
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label, RadioButton, RadioSet, Static

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.session import Batch, BenchPlan, FioMissing, RunRecord, execute, plan_run, run_repeat
from raidtop.actions.fio.command import find_fio, fio_missing_message
from raidtop.actions.fio.compare import (
    SWEEP_KNOBS,
    Comparison,
    RepeatSummary,
    SweepStep,
    compare_with_baseline,
    run_sweep,
    settings_text,
    summarise_passes,
    sweep_devices,
    sweep_values,
    write_exports,
)
from raidtop.actions.fio.guards import TargetRefused
from raidtop.actions.fio.store import RunStore, StoredRun
from raidtop.actions.fio.prefs import BenchPrefs, load_prefs, save_prefs
from raidtop.actions.fio.presets import PresetSet, load_presets, next_runtime
from raidtop.actions.fio.process import KILL_AFTER_S, ProgressPoint
from raidtop.actions.fio.stack import TuningState, capture_tuning
from raidtop.config import xdg_dir
from raidtop.format import DASH
from raidtop.model import Snapshot
from raidtop.screens.confirm import ConfirmDialog
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import Column, Row, TextTable

AUTO: Any = object()
"""Sentinel: find fio on PATH."""
LIVE_POINTS = 600
"""Seconds of progress the live plot keeps (a 10-minute job)."""

# ---------------------------------------------------------------- formatting


def fmt_iops(value: float | None) -> str:
    """``912``, ``31.2k``, ``1.24M``."""
    if value is None:
        return DASH
    if value < 10_000:
        return f"{value:,.0f}"
    if value < 1_000_000:
        return f"{value / 1e3:.1f}k"
    return f"{value / 1e6:.2f}M"


def fmt_mb(value: float | None) -> str:
    """MB/s with three significant digits."""
    if value is None:
        return DASH
    if value < 10:
        return f"{value:.2f}"
    if value < 1000:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def fmt_lat(us: float | None) -> str:
    """A latency in the unit that keeps it short: ``412µs``, ``1.93ms``, ``2.01s``."""
    if us is None:
        return DASH
    if us < 1000:
        return f"{us:.0f}µs"
    if us < 10_000:
        return f"{us / 1e3:.2f}ms"
    if us < 1_000_000:
        return f"{us / 1e3:.1f}ms"
    return f"{us / 1e6:.2f}s"


def fmt_pct(pct: float | None) -> str:
    """``+4.1%``; empty when undefined."""
    return "" if pct is None else f"{pct:+.1f}%"


def change_tone(better: bool | None, pct: float | None) -> str | None:
    """How a change is coloured: small ones dim, gains good, losses warn or crit."""
    if pct is None or better is None or abs(pct) < 1.0:
        return "dim"
    if better:
        return "good"
    return "warn" if abs(pct) < 10 else "crit"


def _direction_cells(run: StoredRun) -> tuple[list[str], list[str | None]]:
    cells: list[str] = []
    tones: list[str | None] = []
    result = run.result
    for name in ("read", "write"):
        d = result.direction(name) if result else None
        active = d is not None and d.active
        cells += [fmt_iops(d.iops if active else None), fmt_mb(d.mb_s if active else None),
                  fmt_lat(d.lat_mean_us if active else None), fmt_lat(d.lat_p99_us if active else None)]
        tones += [None if active else "dim"] * 4
    return cells, tones


def run_summary(run: StoredRun) -> str:
    """``read 31.2k IOPS 128.0 MB/s 1.93ms p99 10.4ms · write …``: one line for the plot panel."""
    result = run.result
    if result is None:
        return run.message or "no result"
    parts = []
    for name in ("read", "write"):
        d = result.direction(name)
        if d.active:
            parts.append(f"{name} {fmt_iops(d.iops)} IOPS {fmt_mb(d.mb_s)} MB/s {fmt_lat(d.lat_mean_us)} p99 {fmt_lat(d.lat_p99_us)}")
    return " · ".join(parts) or "no I/O"


RESULT_COLUMNS = [
    Column("flag", "", 2, "left"),
    Column("id", "#", 5, "left"),
    Column("when", "When", 12, "left"),
    Column("preset", "Preset", 13, "left"),
    Column("label", "Label", 15, "left"),
    Column("r_iops", "r IOPS", 8),
    Column("r_mb", "r MB/s", 8),
    Column("r_lat", "r lat", 8),
    Column("r_p99", "r p99", 8),
    Column("w_iops", "w IOPS", 8),
    Column("w_mb", "w MB/s", 8),
    Column("w_lat", "w lat", 8),
    Column("w_p99", "w p99", 8),
]
"""Results: per direction IOPS, MB/s, mean and p99 latency."""


def run_flag(run: StoredRun) -> tuple[str, str | None]:
    """``★`` for a baseline, ``~`` for a partial run."""
    if run.baseline:
        return "★", "accent"
    if run.partial:
        return "~", "warn"
    return "", None


def results_rows(runs: list[StoredRun]) -> list[Row]:
    """One row per run, newest last."""
    rows = []
    for run in runs:
        flag, flag_tone = run_flag(run)
        cells, tones = _direction_cells(run)
        when = time.strftime("%m-%d %H:%M", time.localtime(run.started))
        rows.append(
            Row(
                str(run.id),
                (flag, str(run.id), when, run.preset, run.label or "", *cells),
                (flag_tone, "dim", "dim", None, "accent" if run.label else None, *tones),
            )
        )
    return rows


COMPARE_COLUMNS = [
    Column("flag", "", 2, "left"),
    Column("id", "#", 5, "left"),
    Column("label", "Run", 22, "left"),
    Column("r_iops", "r IOPS", 14),
    Column("w_iops", "w IOPS", 14),
    Column("r_mb", "r MB/s", 14),
    Column("w_mb", "w MB/s", 14),
    Column("r_p99", "r p99", 15),
    Column("w_p99", "w p99", 15),
]
"""Compare: absolute value and % change against the baseline, per metric."""
_COMPARE_METRICS = (
    ("read_iops", fmt_iops), ("write_iops", fmt_iops), ("read_mb_s", fmt_mb), ("write_mb_s", fmt_mb),
    ("read_lat_p99_us", fmt_lat), ("write_lat_p99_us", fmt_lat),
)


def compare_rows(baseline: StoredRun, comparisons: list[Comparison]) -> list[Row]:
    """The baseline's own values, then every other run with its % change."""
    from raidtop.actions.fio.compare import metric_values

    base_values = metric_values(baseline.result)
    rows = [
        Row(
            str(baseline.id),
            ("★", str(baseline.id), baseline.label or "baseline", *(fmt(base_values[k]) for k, fmt in _COMPARE_METRICS)),
            ("accent", "dim", "accent", *(["accent"] * len(_COMPARE_METRICS))),
        )
    ]
    for comp in comparisons:
        cells: list[str] = []
        tones: list[str | None] = []
        for key, fmt in _COMPARE_METRICS:
            change = comp.change(key)
            if change.after is None:
                cells.append(DASH)
                tones.append("dim")
            else:
                cells.append(f"{fmt(change.after)} {fmt_pct(change.pct)}".strip())
                tones.append(change_tone(change.better, change.pct))
        flag, flag_tone = run_flag(comp.run)
        rows.append(Row(str(comp.run.id), (flag, str(comp.run.id), comp.run.label or f"#{comp.run.id}", *cells),
                        (flag_tone, "dim", None, *tones)))
    return rows


GROUP_COLUMNS = [
    Column("flag", "", 2, "left"),
    Column("id", "#", 5, "left"),
    Column("label", "Pass", 18, "left"),
    Column("r_iops", "r IOPS", 15),
    Column("r_mb", "r MB/s", 14),
    Column("r_lat", "r lat", 14),
    Column("w_iops", "w IOPS", 15),
    Column("w_mb", "w MB/s", 14),
    Column("w_lat", "w lat", 14),
]
"""Repeat and sweep: each pass, then mean ± stddev."""
_GROUP_METRICS = (
    ("read_iops", fmt_iops), ("read_mb_s", fmt_mb), ("read_lat_mean_us", fmt_lat),
    ("write_iops", fmt_iops), ("write_mb_s", fmt_mb), ("write_lat_mean_us", fmt_lat),
)


def group_rows(runs: list[StoredRun], summary: RepeatSummary | None) -> list[Row]:
    """Each pass of a repeat or sweep; for a repeat, a last row with mean ± stddev."""
    from raidtop.actions.fio.compare import metric_values

    rows = []
    for run in runs:
        values = metric_values(run.result)
        flag, flag_tone = run_flag(run)
        rows.append(Row(str(run.id), (flag, str(run.id), run.label or "", *(fmt(values[k]) for k, fmt in _GROUP_METRICS)),
                        (flag_tone, "dim", "accent", *(None if values[k] is not None else "dim" for k, _ in _GROUP_METRICS))))
    if summary is not None and len(summary.runs) > 1:
        cells = []
        for key, fmt in _GROUP_METRICS:
            stat = summary.stat(key)
            cells.append(DASH if stat.mean is None else f"{fmt(stat.mean)}±{fmt(stat.stddev)}")
        rows.append(Row("mean", ("", "", f"mean ± sd (n={len(summary.runs)})", *cells), (None, None, "good", *(["good"] * len(cells)))))
    return rows


DISK_COLUMNS = [
    Column("name", "Device", 9, "left"),
    Column("r_s", "r/s", 7),
    Column("w_s", "w/s", 7),
    Column("rmb", "rMB/s", 7),
    Column("wmb", "wMB/s", 7),
    Column("r_await", "r_await", 8),
    Column("w_await", "w_await", 8),
    Column("aqu", "aqu-sz", 7),
    Column("util", "%util", 6),
]


def disk_rows(snapshot: Snapshot, names: list[str]) -> list[Row]:
    """iostat -x rows of the target's devices, in stack order."""
    by_name = {d.name: d for d in snapshot.disks}

    def f(value: float | None, digits: int = 1) -> str:
        if value is None:
            return DASH
        # Keep big rates inside the column: 35845 r/s, not 35845.3 cut to 35845.
        return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.{digits}f}"

    rows = []
    for name in names:
        d = by_name.get(name)
        if d is None:
            continue
        util_tone = "crit" if (d.util_pct or 0) >= 90 else ("warn" if (d.util_pct or 0) >= 60 else None)
        rows.append(Row(name, (name, f(d.r_s), f(d.w_s), f(d.rkb_s / 1000 if d.rkb_s is not None else None),
                               f(d.wkb_s / 1000 if d.wkb_s is not None else None), f(d.r_await_ms, 2), f(d.w_await_ms, 2),
                               f(d.aqu_sz, 2), f(d.util_pct)),
                        ("accent", None, None, None, None, None, None, None, util_tone)))
    return rows


def _short(value: float) -> str:
    """An axis label of at most four characters: ``9.5``, ``617``, ``1.2k``, ``31k``, ``1.2M``."""
    for limit, scale, suffix in ((1e9, 1e6, "M"), (1e6, 1e3, "k")):
        if value >= limit / 1000:
            number = value / scale
            return f"{number:.1f}{suffix}" if number < 10 else f"{number:.0f}{suffix}"
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _ticks(values: list[float], count: int = 3) -> tuple[list[float], list[str]]:
    low, high = min(values), max(values)
    if high == low:
        return [low], [_short(low)]
    ticks = [low + (high - low) * i / (count - 1) for i in range(count)]
    return ticks, [_short(t) for t in ticks]


def progress_plot(points: list[ProgressPoint], width: int, height: int, colours: tuple[tuple, tuple, tuple]) -> Text:
    """Throughput (IOPS on the left axis, MB/s on the right) over read and write latency, per second.

    A job's block size is fixed, so IOPS and MB/s trace the same line: one
    line, two scales. Two separate figures are stacked because plotext's
    subplots share one size setting and misplace axes at small heights. Tick
    labels are set here, short; the right-hand ones carry a trailing space
    because without a frame plotext starts them one column late and cuts
    their last character.
    """
    if len(points) < 2:
        return Text("the plot starts after fio's second status report" if points else "no run yet: pick a preset and press Enter",
                    style="italic")
    iops_rgb, write_rgb, read_rgb = colours
    xs = [p.t_s for p in points]
    width = max(30, width)
    top_height = max(5, height * 3 // 5)
    iops = [p.iops for p in points]
    mb = [p.mb_s for p in points]
    plt.clear_figure()
    plt.plotsize(width, top_height)
    plt.theme("clear")
    plt.frame(False)
    plt.plot(xs, mb, color=iops_rgb, marker="braille", yside="right")
    plt.plot(xs, iops, label="IOPS (left) · MB/s (right)", color=iops_rgb, marker="braille")
    ticks, labels = _ticks(iops)
    plt.yticks(ticks, [label.rjust(5) for label in labels], yside="left")
    ticks, labels = _ticks(mb)
    plt.yticks(ticks, [label + " " for label in labels], yside="right")
    plt.xticks([])
    top = plt.build()
    plt.clear_figure()
    plt.plotsize(width, max(4, height - top_height))
    plt.theme("clear")
    plt.frame(False)
    every: list[float] = []
    for name, rgb, attr in (("read", read_rgb, "read_lat_us"), ("write", write_rgb, "write_lat_us")):
        lat = [(p.t_s, getattr(p, attr) / 1000) for p in points if getattr(p, attr) is not None]
        if lat:
            plt.plot([t for t, _ in lat], [v for _, v in lat], label=f"{name} latency ms", color=rgb, marker="braille")
            every += [v for _, v in lat]
    if every:
        ticks, labels = _ticks(every, 2)
        plt.yticks(ticks, [label.rjust(5) for label in labels], yside="left")
    plt.xlabel("seconds")
    bottom = plt.build()
    return Text.from_ansi(top.rstrip("\n") + "\n" + bottom)


# ---------------------------------------------------------------- dialogs


class TargetDialog(ModalScreen[tuple[str, str] | None]):
    """Ask for the target (a directory or a block device) and an optional raw-device override."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="bench-target-cancel", tooltip="Keep the current target")]
    DEFAULT_CSS = """
    TargetDialog { align: center middle; }
    TargetDialog > Vertical { width: 84; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1; }
    TargetDialog Label { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, current: str, override: str) -> None:
        super().__init__()
        self._current = current
        self._override = override

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Benchmark target: a directory (fio writes a test file there) or a block device")
            yield Input(value=self._current, placeholder="/srv/bench or /dev/loop7", id="bench-target-input")
            yield Label("Raw device not created by raidtop's lab? Type its name here to allow fio to destroy its data:")
            yield Input(value=self._override, placeholder="e.g. loop7 (leave empty for directories and lab devices)", id="bench-override-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = self.query_one("#bench-target-input", Input).value.strip()
        override = self.query_one("#bench-override-input", Input).value.strip()
        self.dismiss((path, override) if path else None)

    def action_cancel(self) -> None:
        """Close without changing the target."""
        self.dismiss(None)


class CountDialog(ModalScreen[int | None]):
    """Ask how many passes a repeat makes."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="bench-count-cancel", tooltip="Do not repeat")]
    DEFAULT_CSS = """
    CountDialog { align: center middle; }
    CountDialog > Vertical { width: 60; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1; }
    CountDialog Label { color: $text-muted; }
    """

    def __init__(self, preset: str, default: int = 5) -> None:
        super().__init__()
        self._preset = preset
        self._default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(content(f"Repeat {self._preset}: how many passes? (tuning guides use 5)"))
            yield Input(value=str(self._default), type="integer", id="bench-count-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            count = int(event.value)
        except ValueError:
            count = 0
        if 1 <= count <= 100:
            self.dismiss(count)
        else:
            self.notify("give a number of passes from 1 to 100", severity="warning")

    def action_cancel(self) -> None:
        """Close without repeating."""
        self.dismiss(None)


class SweepDialog(ModalScreen[tuple[str, list[str]] | None]):
    """Choose the knob to sweep and its values (prefilled with what the device offers)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="bench-sweep-cancel", tooltip="Do not sweep")]
    DEFAULT_CSS = """
    SweepDialog { align: center middle; }
    SweepDialog > Vertical { width: 84; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1; }
    SweepDialog Label { color: $text-muted; }
    SweepDialog RadioSet { width: 100%; }
    """

    def __init__(self, preset: str, defaults: dict[str, tuple[list[str], list[str]]]) -> None:
        super().__init__()
        self._preset = preset
        self._defaults = defaults
        self._knob = next((k for k in SWEEP_KNOBS if defaults.get(k, ([], []))[0]), SWEEP_KNOBS[0])

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(content(f"Sweep {self._preset}: one run per value; the original value is restored afterwards"))
            with RadioSet(id="bench-sweep-knob"):
                for knob in SWEEP_KNOBS:
                    devices = self._defaults.get(knob, ([], []))[0]
                    where = f" on {', '.join(devices)}" if devices else " (no device offers it)"
                    yield RadioButton(content(f"{knob}{where}"), value=knob == self._knob, name=knob, disabled=not devices)
            yield Label("Values (space-separated), Enter to continue:")
            yield Input(value=" ".join(self._defaults.get(self._knob, ([], []))[1]), id="bench-sweep-values")

    @on(RadioSet.Changed)
    def _knob_changed(self, event: RadioSet.Changed) -> None:
        self._knob = event.pressed.name or SWEEP_KNOBS[0]
        self.query_one("#bench-sweep-values", Input).value = " ".join(self._defaults.get(self._knob, ([], []))[1])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        values = event.value.split()
        if len(values) < 2:
            self.notify("a sweep needs at least two values", severity="warning")
            return
        self.dismiss((self._knob, values))

    def action_cancel(self) -> None:
        """Close without sweeping."""
        self.dismiss(None)


# ---------------------------------------------------------------- screen


@dataclass(frozen=True)
class _Job:
    """What the confirm dialog is asked about: one run, a repeat or a sweep."""

    mode: str
    """``single``, ``repeat`` or ``sweep``."""
    plan: BenchPlan
    passes: int = 1
    knob: str | None = None
    values: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()

    def pass_label(self, index: int) -> str:
        """What the live panel calls pass ``index`` (0-based)."""
        if self.mode == "repeat":
            return f"pass {index + 1}/{self.passes}"
        if self.mode == "sweep" and index < len(self.values):
            return f"{self.knob}={self.values[index]} ({index + 1}/{len(self.values)})"
        return ""


class BenchScreen(Screen[None]):
    """fio presets, a live view of the run next to the target's disks, and the results history."""

    BINDINGS = [
        Binding("enter", "run_selected", "Run", id="bench-run",
                tooltip="Run the highlighted preset (after confirming the fio command); in the history, show a repeat's passes"),
        *(Binding(str(n), f"run_preset({n - 1})", f"Run preset {n}", show=False, id=f"bench-run-{n}",
                  tooltip=f"Run the preset listed as {n}") for n in range(1, 10)),
        Binding("t", "target", "Target", id="bench-target", tooltip="Choose the directory or device to benchmark (remembered)"),
        Binding("u", "runtime", "Runtime", show=False, id="bench-runtime", tooltip="Cycle the default runtime: 5, 10, 15, 30, 60, 120 s"),
        Binding("r", "repeat", "Repeat", id="bench-repeat", tooltip="Run the highlighted preset N times: mean ± stddev and each pass"),
        Binding("w", "sweep", "Sweep", id="bench-sweep", tooltip="Run once per scheduler or read_ahead_kb value, then restore it"),
        Binding("x", "cancel_run", "Stop fio", id="bench-cancel", tooltip="Stop the running benchmark (fio gets SIGINT; the partial result is kept)"),
        Binding("m", "mark_baseline", "Baseline", id="bench-baseline", tooltip="Mark the highlighted run as its preset's baseline"),
        Binding("c", "view('compare')", "Compare", id="bench-compare", tooltip="Every run of the baseline's preset against it, % change"),
        Binding("g", "view('group')", "Passes", id="bench-group", tooltip="The passes of the highlighted repeat or sweep, with mean ± stddev"),
        Binding("h", "view('results')", "History", show=False, id="bench-history", tooltip="Every stored run"),
        Binding("e", "export", "Export", id="bench-export", tooltip="Write the rows in view as CSV and JSON under the data directory"),
        Binding("escape", "back", "Back", show=False, id="bench-back", tooltip="Return to the dashboard"),
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

    class Loaded(Message):
        """Presets, fio and the remembered choices are known."""

        def __init__(self, presets: PresetSet, fio: str | None, prefs: BenchPrefs) -> None:
            super().__init__()
            self.presets = presets
            self.fio = fio
            self.prefs = prefs

    class HistoryLoaded(Message):
        """The stored runs, oldest first."""

        def __init__(self, runs: list[StoredRun], select: int | None = None, view: str | None = None, group: str | None = None) -> None:
            super().__init__()
            self.runs = runs
            self.select = select
            self.view = view
            self.group = group

    class StackLoaded(Message):
        """The target's device stack (for the iostat rows)."""

        def __init__(self, target: str, tuning: TuningState | None) -> None:
            super().__init__()
            self.target = target
            self.tuning = tuning

    class Planned(Message):
        """A run was checked and its command built: ask the user."""

        def __init__(self, mode: str, plan: BenchPlan, passes: int = 1) -> None:
            super().__init__()
            self.mode = mode
            self.plan = plan
            self.passes = passes

    class Refused(Message):
        """The run may not start; ``text`` says why."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Progress(Message):
        """One per-second point of the running fio job."""

        def __init__(self, point: ProgressPoint) -> None:
            super().__init__()
            self.point = point

    class PassFinished(Message):
        """One run (or sweep step) ended."""

        def __init__(self, record: RunRecord | None, error: str | None = None) -> None:
            super().__init__()
            self.record = record
            self.error = error

    class BatchFinished(Message):
        """The single run, repeat or sweep is over."""

        def __init__(self, job: _Job, last_id: int | None, group: str | None, problems: tuple[str, ...]) -> None:
            super().__init__()
            self.job = job
            self.last_id = last_id
            self.group = group
            self.problems = problems

    class Notice(Message):
        """Something to tell the user from a worker."""

        def __init__(self, text: str, severity: str = "information") -> None:
            super().__init__()
            self.text = text
            self.severity = severity

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
        self.job: _Job | None = None
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
                table = TextTable([Column("key", "", 3, "left"), Column("name", "Preset", 14, "left"),
                                   Column("what", "Job", 24, "left"), Column("time", "Time", 5)], id="bench-presets")
                table.placeholder = "loading presets…"
                yield table
            with Vertical(id="bench-right"):
                plot = Panel(id="bench-plot-panel")
                plot.border_title = "Live"
                with plot:
                    yield Static(id="bench-plot")
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
        yield Footer()

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

    # -------------------------------------------------------------- workers

    @work(thread=True, exit_on_error=False, group="bench-load")
    def _load(self) -> None:
        presets = load_presets(self._presets_file)
        fio = find_fio() if self._fio_arg is AUTO else self._fio_arg
        prefs = load_prefs(self._prefs_file)
        self.post_message(self.Loaded(presets, fio, prefs))
        self._load_history_now()
        if prefs.target:
            self._load_stack_now(prefs.target)

    def _load_history_now(self, select: int | None = None, view: str | None = None, group: str | None = None) -> None:
        try:
            runs = self.history.runs(limit=500)
        except Exception as exc:  # sqlite3.Error, OSError: show it, keep the screen usable
            self.post_message(self.Notice(f"results history unreadable: {exc}", "error"))
            runs = []
        self.post_message(self.HistoryLoaded(runs, select, view, group))

    @work(thread=True, exit_on_error=False, group="bench-db")
    def _reload_history(self, select: int | None = None, view: str | None = None, group: str | None = None) -> None:
        self._load_history_now(select, view, group)

    def _load_stack_now(self, target: str) -> None:
        try:
            tuning = capture_tuning(target)
        except Exception:  # noqa: BLE001 - a vanished device: the panel just stays empty
            tuning = None
        self.post_message(self.StackLoaded(target, tuning))

    @work(thread=True, exit_on_error=False, group="bench-stack")
    def _load_stack(self, target: str) -> None:
        self._load_stack_now(target)

    @work(thread=True, exit_on_error=False, group="bench-plan")
    def _plan(self, preset_name: str, mode: str, passes: int = 1) -> None:
        assert self.presets is not None
        preset = self.presets.get(preset_name)
        if preset is None:
            self.post_message(self.Refused(f"no preset {preset_name!r}"))
            return
        try:
            plan = plan_run(preset, self.prefs.target or "", presets=self.presets, runtime_s=self.prefs.runtime_s,
                            allow_raw_device=self.override or None, fio=self.fio)
        except (TargetRefused, FioMissing) as exc:
            self.post_message(self.Refused(str(exc)))
            return
        self.post_message(self.Planned(mode, plan, passes))

    @work(thread=True, exit_on_error=False, group="bench-run")
    def _execute(self, job: _Job, batch: Batch) -> None:
        log = self._log or ActionLog()
        problems: list[str] = []
        last_id = group = None

        def on_point(point: ProgressPoint) -> None:
            self.post_message(self.Progress(point))

        try:
            if job.mode == "single":
                record = execute(job.plan, self.history, batch=batch, log=log, on_point=on_point)
                self.post_message(self.PassFinished(record))
                last_id = record.stored.id if record.stored else None
            elif job.mode == "repeat":
                records = run_repeat(job.plan, self.history, job.passes, batch=batch, log=log, on_point=on_point,
                                     on_pass=lambda _n, rec: self.post_message(self.PassFinished(rec)))
                stored = [r.stored for r in records if r.stored]
                last_id = stored[-1].id if stored else None
                group = stored[-1].group_id if stored else None
            else:
                def on_step(step: SweepStep) -> None:
                    self.post_message(self.PassFinished(step.record, step.error))

                outcome = run_sweep(job.plan, self.history, job.knob or "scheduler", job.values, devices=list(job.devices),
                                    batch=batch, log=log, on_point=on_point, on_step=on_step)
                problems.extend(outcome.restore_errors)
                problems.extend(s.error for s in outcome.steps if s.error)
                runs = outcome.runs
                last_id = runs[-1].id if runs else None
                group = outcome.group_id if runs else None
        except Exception as exc:  # a bug or an OSError must end the run visibly, never silently
            problems.append(f"benchmark failed: {exc!r}")
        finally:
            batch.finish()
        self.post_message(self.BatchFinished(job, last_id, group, tuple(problems)))
        self._load_history_now(select=last_id, view="group" if group else "results", group=group)

    @work(thread=True, exit_on_error=False, group="bench-db")
    def _set_baseline(self, run_id: int) -> None:
        stored = self.history.set_baseline(run_id)
        self._load_history_now(select=run_id, view="compare")
        if stored is not None:
            self.post_message(self.Notice(f"run #{run_id} is now the baseline of {stored.preset}"))

    @work(thread=True, exit_on_error=False, group="bench-export")
    def _export(self, runs: list[StoredRun], stem: str) -> None:
        try:
            csv_path, json_path = write_exports(runs, xdg_dir("data") / "exports", stem)
        except OSError as exc:
            self.post_message(self.Notice(f"export failed: {exc}", "error"))
            return
        self.post_message(self.Notice(f"exported {len(runs)} runs to {csv_path} and {json_path.name}"))

    @work(thread=True, exit_on_error=False, group="bench-prefs")
    def _save_prefs(self, prefs: BenchPrefs) -> None:
        try:
            save_prefs(prefs, self._prefs_file)
        except OSError as exc:
            self.post_message(self.Notice(f"could not remember the target: {exc}", "warning"))

    # -------------------------------------------------------------- messages

    @on(Loaded)
    def _loaded_message(self, message: Loaded) -> None:
        self.presets, self.fio, self.prefs = message.presets, message.fio, message.prefs
        self._loaded = True
        for problem in message.presets.problems:
            self.notify(problem, title="presets.toml", severity="warning", timeout=10)
        self._show_presets()
        self.refresh_bindings()

    def _show_presets(self) -> None:
        presets = self.presets
        if presets is None:
            return
        rows = []
        for index, preset in enumerate(presets.presets):
            key = str(index + 1) if index < 9 else ""
            rows.append(Row(preset.name, (key, preset.name, preset.summary, f"{presets.runtime_of(preset, self.prefs.runtime_s)}s"),
                            ("accent", None, "dim", "dim")))
        self.query_one("#bench-presets", TextTable).set_rows(rows, "no presets")
        self._update_title()

    @on(HistoryLoaded)
    def _history_message(self, message: HistoryLoaded) -> None:
        self.runs = message.runs
        if message.group:
            self.group_id = message.group
        if message.view:
            self.view = message.view
        if message.view == "compare" and message.select is not None:
            chosen = next((r for r in self.runs if r.id == message.select), None)
            self.baseline_preset = chosen.preset if chosen else self.baseline_preset
        self._show_table(select=message.select)

    @on(StackLoaded)
    def _stack_message(self, message: StackLoaded) -> None:
        if message.target != self.prefs.target:
            return
        tuning = message.tuning
        self.stack_names = [d.name for d in tuning.devices] if tuning else []
        table = self.query_one("#bench-disks", TextTable)
        if not self.stack_names:
            table.set_rows([], f"no block device under {message.target}")
        else:
            snapshot = self.app.dashboard.last_snapshot if hasattr(self.app, "dashboard") else None
            if snapshot is not None:
                self.apply_snapshot(snapshot)
            else:
                table.set_rows([], "waiting for the next sample…")

    @on(Planned)
    def _planned_message(self, message: Planned) -> None:
        plan = message.plan
        if message.mode == "sweep":
            defaults = {}
            for knob in SWEEP_KNOBS:
                devices = sweep_devices(plan.tuning, knob)
                defaults[knob] = (devices, list(sweep_values(plan.tuning, knob, devices)) if devices else [])
            if not any(devices for devices, _ in defaults.values()):
                self.notify(f"nothing to sweep: no device under {plan.target.path} has a scheduler or read_ahead_kb",
                            severity="warning", timeout=8)
                return

            def chosen(answer: tuple[str, list[str]] | None) -> None:
                if answer is not None:
                    knob, values = answer
                    self._confirm(_Job("sweep", plan, knob=knob, values=tuple(values), devices=tuple(defaults[knob][0])))

            self.app.push_screen(SweepDialog(plan.preset.name, defaults), chosen)
            return
        self._confirm(_Job(message.mode, plan, passes=message.passes))

    @on(Refused)
    def _refused_message(self, message: Refused) -> None:
        self.notify(message.text, title="Not started", severity="error", timeout=12)

    @on(Notice)
    def _notice_message(self, message: Notice) -> None:
        self.notify(message.text, severity=message.severity, timeout=8)  # type: ignore[arg-type]

    @on(Progress)
    def _progress_message(self, message: Progress) -> None:
        if self._new_pass:
            self.live_points.clear()
            self._new_pass = False
        self.live_points.append(message.point)
        p = message.point
        parts = [f"{p.t_s:4.0f} s"]
        for name, iops, bw, lat in (("read", p.read_iops, p.read_bw_bytes_s, p.read_lat_us),
                                    ("write", p.write_iops, p.write_bw_bytes_s, p.write_lat_us)):
            if iops > 0:
                parts.append(f"{name} {fmt_iops(iops)} IOPS {fmt_mb(bw / 1e6)} MB/s {fmt_lat(lat)}")
        self.query_one("#bench-now", Static).update("  ".join(parts))
        self._draw_plot(list(self.live_points))

    @on(PassFinished)
    def _pass_message(self, message: PassFinished) -> None:
        self._pass_index += 1
        self._new_pass = True
        if message.error:
            self.notify(message.error, severity="warning", timeout=8)
        elif message.record is not None and message.record.message:
            severity = "warning" if message.record.stored is not None else "error"
            self.notify(message.record.message, title="fio", severity=severity, timeout=8)
        self._update_live_title()

    @on(BatchFinished)
    def _batch_message(self, message: BatchFinished) -> None:
        self.job = None
        self.batch = None
        for problem in message.problems:
            self.notify(problem, severity="error", timeout=12)
        self._update_title()
        self.refresh_bindings()

    # -------------------------------------------------------------- live data

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Show the target's devices as this sample saw them (the app calls this every sample)."""
        if not self.stack_names:
            return
        rows = disk_rows(snapshot, self.stack_names)
        self.query_one("#bench-disks", TextTable).set_rows(rows, "the target's devices are not in this sample")

    def _draw_plot(self, points: list[ProgressPoint]) -> None:
        plot = self.query_one("#bench-plot", Static)
        theme = self.app.current_theme
        colours = (
            Color.parse(theme.primary).rgb,
            Color.parse(theme.accent or theme.secondary or theme.primary).rgb,
            Color.parse(theme.warning or theme.primary).rgb,
        )
        width, height = plot.size
        plot.update(progress_plot(points, width or 60, height or 10, colours))

    # -------------------------------------------------------------- tables

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
                panel.border_title = content(f"Compare {baseline.preset}: baseline #{baseline.id} ({baseline.display_label}) vs {len(comparisons)} runs")
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
                panel.border_title = content(f"{kind.capitalize()} of {runs[0].preset} on {runs[0].target}: {len(runs)} passes")
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
        detail = self.query_one("#bench-detail", Static)
        run = self._selected_run()
        if run is None:
            if self.view == "group":
                runs = [r for r in self.runs if r.group_id == self.group_id]
                summary = summarise_passes(runs) if runs and runs[0].group_kind == "repeat" else None
                if summary is not None and summary.runs:
                    stat = summary.stat("read_iops") if summary.stat("read_iops").mean is not None else summary.stat("write_iops")
                    cv = stat.cv_pct
                    detail.update(f" {stat.key.replace('_', ' ')}: mean {fmt_iops(stat.mean)} ± {fmt_iops(stat.stddev)}"
                                  f"{f' ({cv:.1f}% of the mean)' if cv is not None else ''} over {len(summary.runs)} complete passes")
                    return
            detail.update("")
            return
        if self.job is None:
            plot_panel = self.query_one("#bench-plot-panel", Panel)
            plot_panel.border_title = content(f"Run #{run.id}: {run.preset}" + (f" {run.label}" if run.label else ""))
            plot_panel.border_subtitle = "partial" if run.partial else ""
            self._draw_plot(list(run.points))
            self.query_one("#bench-now", Static).update(run_summary(run))
        if self.view == "compare":
            baseline = self._baseline()
            if baseline is not None and baseline.id != run.id:
                from raidtop.actions.fio.compare import compare_runs

                diff = compare_runs(baseline, run).settings
                text = "; ".join(f"{d.key}: {d.before or '-'} → {d.after or '-'}" for d in diff) or "same settings as the baseline"
                detail.update(f" #{run.id} vs baseline #{baseline.id}: {text}")
                return
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.started))
        head = f" #{run.id} {run.preset} on {run.target} at {when}, {run.fio_version or 'fio'} {run.engine or ''}"
        if run.partial:
            head += f" · partial: {run.message or 'stopped early'}"
        detail.update(head + "\n " + (settings_text(run.settings) or "no tuning recorded"))

    # -------------------------------------------------------------- titles

    def _update_title(self) -> None:
        title = self.query_one("#bench-title", Static)
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

    # -------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While fio runs only Stop is offered; while idle Stop is hidden."""
        if action == "cancel_run":
            return self.job is not None
        if action in ("run_selected", "run_preset", "repeat", "sweep", "target") and self.job is not None:
            return False
        return True

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

    def action_run_selected(self) -> None:
        """Enter: run the highlighted preset; in the history, open a repeat's or sweep's passes."""
        if self.focused is self.query_one("#bench-table", TextTable):
            run = self._selected_run()
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

        def chosen(count: int | None) -> None:
            if count is not None:
                self._plan(name, "repeat", count)

        self.app.push_screen(CountDialog(name), chosen)

    def action_sweep(self) -> None:
        """Plan the highlighted preset, then ask which knob to sweep."""
        name = self._selected_preset()
        if name is not None and self._can_start():
            self._plan(name, "sweep")

    def _confirm(self, job: _Job) -> None:
        plan = job.plan
        details = plan.details
        if job.mode == "repeat":
            details += f"\nRepeat: {job.passes} passes, then mean ± stddev"
        elif job.mode == "sweep":
            files = ", ".join(f"/sys/block/{d}/queue/{job.knob}" for d in job.devices)
            details += f"\nSweep:   {job.knob} = {', '.join(job.values)} written to {files}; the original value is restored afterwards"
        title = plan.title if job.mode == "single" else f"{job.mode.capitalize()} fio preset {plan.preset.name} on {plan.target.path}?"

        def answered(yes: bool | None) -> None:
            if yes:
                self._start(job)

        self.app.push_screen(ConfirmDialog(title, plan.command.display, details, plan.warning), answered)

    def _start(self, job: _Job) -> None:
        if self.job is not None:
            return
        self.job = job
        self.batch = Batch()
        self._pass_index = 0
        self._new_pass = True
        self.live_points.clear()
        self.query_one("#bench-now", Static).update("starting fio…")
        self._update_title()
        self._update_live_title()
        self.refresh_bindings()
        self._execute(job, self.batch)

    def action_cancel_run(self) -> None:
        """Stop fio (SIGINT): the partial result is stored and marked."""
        if self.batch is not None:
            self.batch.cancel()
            self.notify("stopping fio: the partial result will be kept", timeout=4)

    def action_target(self) -> None:
        """Ask for the target; it is remembered in the config directory."""

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            path, override = answer
            self.override = override
            self.prefs = BenchPrefs(path, self.prefs.runtime_s)
            self._save_prefs(self.prefs)
            self.stack_names = []
            self.query_one("#bench-disks", TextTable).set_rows([], "reading the device stack…")
            self._load_stack(path)
            self._update_title()

        self.app.push_screen(TargetDialog(self.prefs.target or "", self.override), chosen)

    def action_runtime(self) -> None:
        """Cycle the default runtime (presets with their own runtime keep it)."""
        current = self.prefs.runtime_s or (self.presets.default_runtime_s if self.presets else 15)
        self.prefs = BenchPrefs(self.prefs.target, next_runtime(current))
        self._save_prefs(self.prefs)
        self._show_presets()
        self.notify(f"runs last {self.prefs.runtime_s} s (an explicit preset runtime wins)", timeout=3)

    def action_mark_baseline(self) -> None:
        """Make the highlighted run its preset's baseline and show the comparison."""
        run = self._selected_run()
        if run is None:
            self.notify("highlight a run in the history first", severity="warning")
            return
        if run.partial:
            self.notify("a partial run makes a poor baseline; marked anyway", severity="warning")
        self.baseline_preset = run.preset
        self._set_baseline(run.id)

    def action_view(self, view: str) -> None:
        """Show the history, the comparison or the passes of the highlighted group."""
        if view == "group":
            run = self._selected_run()
            if run is not None and run.group_id:
                self.group_id = run.group_id
        if view == "compare":
            run = self._selected_run()
            if run is not None and any(r.baseline and r.preset == run.preset for r in self.runs):
                self.baseline_preset = run.preset
        self.view = view
        self._show_table()

    def action_export(self) -> None:
        """Export the runs in view as CSV and JSON."""
        if self.view == "compare" and (baseline := self._baseline()) is not None:
            runs = [baseline] + [r for r in self.runs if r.preset == baseline.preset and r.id != baseline.id]
        elif self.view == "group":
            runs = [r for r in self.runs if r.group_id == self.group_id]
        else:
            runs = list(self.runs)
        if not runs:
            self.notify("nothing to export", severity="warning")
            return
        self._export(runs, time.strftime(f"bench-{self.view}-%Y%m%d-%H%M%S"))

    def action_back(self) -> None:
        """Leave for the dashboard (not while fio runs: its result would have nowhere to go)."""
        if self.job is not None:
            self.notify("a benchmark is running: x stops it, then Esc leaves", severity="warning")
            return
        self.app.pop_screen()
