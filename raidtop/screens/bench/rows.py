"""The Benchmarks screen's tables and lines, as pure functions of stored runs and samples.

No Textual and no I/O: each function turns runs, comparisons or a snapshot
into :class:`~raidtop.widgets.text_table.Row` tuples or one line of text, so
the screen only decides which to show and tests can check them directly.
Tones name theme colours (``good``, ``warn``, ``crit``, ``dim``, ``accent``).
"""

from __future__ import annotations

import time

from raidtop.model.disk_columns import disks_by_name
from raidtop.actions.fio.compare import (
    Comparison,
    RepeatSummary,
    compare_runs,
    metric_values,
    settings_text,
    summarise_passes,
)
from raidtop.actions.fio.presets import KEYED_PRESETS, PresetSet
from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.store import StoredRun
from raidtop.presentation.disk_fields import DISK_FIELDS
from raidtop.presentation.format import DASH, fmt_iops, fmt_lat, fmt_mib, fmt_pct
from raidtop.model.snapshot import Snapshot
from raidtop.widgets.text_table import Column, Row


def change_tone(better: bool | None, pct: float | None) -> str | None:
    """How a change is coloured: small ones dim, gains good, losses warn or crit."""
    if pct is None or better is None or abs(pct) < 1.0:
        return "dim"
    if better:
        return "good"
    return "warn" if abs(pct) < 10 else "crit"


def run_flag(run: StoredRun) -> tuple[str, str | None]:
    """``★`` for a baseline, ``~`` for a partial run."""
    if run.baseline:
        return "★", "accent"
    if run.partial:
        return "~", "warn"
    return "", None


def run_summary(run: StoredRun) -> str:
    """``read 31.2k IOPS 128.0MiB/s 1.93ms p99 10.4ms · write …``: one line for the plot panel."""
    result = run.result
    if result is None:
        return run.message or "no result"
    parts = []
    for name in ("read", "write"):
        d = result.direction(name)
        if d.active:
            parts.append(
                f"{name} {fmt_iops(d.iops)} IOPS {fmt_mib(d.mib_s)}MiB/s "
                f"{fmt_lat(d.lat_mean_us)} p99 {fmt_lat(d.lat_p99_us)}"
            )
    return " · ".join(parts) or "no I/O"


def progress_line(point: ProgressPoint) -> str:
    """The live line under the plot: seconds, then each active direction's rates."""
    parts = [f"{point.t_s:4.0f} s"]
    for name, iops, bw, lat in (
        ("read", point.read_iops, point.read_bw_bytes_s, point.read_lat_us),
        ("write", point.write_iops, point.write_bw_bytes_s, point.write_lat_us),
    ):
        if iops > 0:
            parts.append(f"{name} {fmt_iops(iops)} IOPS {fmt_mib(bw / 2**20)}MiB/s {fmt_lat(lat)}")
    return "  ".join(parts)


PRESET_COLUMNS = [
    Column("key", "", 3, "left"),
    Column("name", "Preset", 14, "left"),
    Column("what", "Job", 24, "left"),
    Column("time", "Time", 5),
]


def preset_rows(presets: PresetSet, runtime_s: int | None) -> list[Row]:
    """One row per preset; the first :data:`KEYED_PRESETS` carry the digit that runs them."""
    rows = []
    for index, preset in enumerate(presets.presets):
        key = str(index + 1) if index < KEYED_PRESETS else ""
        rows.append(
            Row(
                preset.name,
                (key, preset.name, preset.summary, f"{presets.runtime_of(preset, default=runtime_s)}s"),
                ("accent", None, "dim", "dim"),
            )
        )
    return rows


RESULT_COLUMNS = [
    Column("flag", "", 2, "left"),
    Column("id", "#", 5, "left"),
    Column("when", "When", 12, "left"),
    Column("preset", "Preset", 13, "left"),
    Column("label", "Label", 15, "left"),
    Column("r_iops", "r IOPS", 8),
    Column("r_mb", "r MiB/s", 8),
    Column("r_lat", "r lat", 8),
    Column("r_p99", "r p99", 8),
    Column("w_iops", "w IOPS", 8),
    Column("w_mb", "w MiB/s", 8),
    Column("w_lat", "w lat", 8),
    Column("w_p99", "w p99", 8),
]
"""Results: per direction IOPS, MiB/s, mean and p99 latency."""


def _direction_cells(run: StoredRun) -> tuple[list[str], list[str | None]]:
    cells: list[str] = []
    tones: list[str | None] = []
    result = run.result
    for name in ("read", "write"):
        d = result.direction(name) if result else None
        shown = d if d is not None and d.active else None
        active = shown is not None
        cells += [
            fmt_iops(shown.iops if shown else None),
            fmt_mib(shown.mib_s if shown else None),
            fmt_lat(shown.lat_mean_us if shown else None),
            fmt_lat(shown.lat_p99_us if shown else None),
        ]
        tones += [None if active else "dim"] * 4
    return cells, tones


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
    Column("r_mb", "r MiB/s", 14),
    Column("w_mb", "w MiB/s", 14),
    Column("r_p99", "r p99", 15),
    Column("w_p99", "w p99", 15),
]
"""Compare: absolute value and % change against the baseline, per metric."""
_COMPARE_METRICS = (
    ("read_iops", fmt_iops),
    ("write_iops", fmt_iops),
    ("read_mib_s", fmt_mib),
    ("write_mib_s", fmt_mib),
    ("read_lat_p99_us", fmt_lat),
    ("write_lat_p99_us", fmt_lat),
)


def compare_rows(baseline: StoredRun, comparisons: list[Comparison]) -> list[Row]:
    """The baseline's own values, then every other run with its % change."""
    base_values = metric_values(baseline.result)
    rows = [
        Row(
            str(baseline.id),
            (
                "★",
                str(baseline.id),
                baseline.label or "baseline",
                *(fmt(base_values[k]) for k, fmt in _COMPARE_METRICS),
            ),
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
        rows.append(
            Row(
                str(comp.run.id),
                (flag, str(comp.run.id), comp.run.label or f"#{comp.run.id}", *cells),
                (flag_tone, "dim", None, *tones),
            )
        )
    return rows


GROUP_COLUMNS = [
    Column("flag", "", 2, "left"),
    Column("id", "#", 5, "left"),
    Column("label", "Pass", 18, "left"),
    Column("r_iops", "r IOPS", 15),
    Column("r_mb", "r MiB/s", 14),
    Column("r_lat", "r lat", 14),
    Column("w_iops", "w IOPS", 15),
    Column("w_mb", "w MiB/s", 14),
    Column("w_lat", "w lat", 14),
]
"""Repeat and sweep: each pass, then mean ± stddev."""
_GROUP_METRICS = (
    ("read_iops", fmt_iops),
    ("read_mib_s", fmt_mib),
    ("read_lat_mean_us", fmt_lat),
    ("write_iops", fmt_iops),
    ("write_mib_s", fmt_mib),
    ("write_lat_mean_us", fmt_lat),
)


def group_rows(runs: list[StoredRun], summary: RepeatSummary | None) -> list[Row]:
    """Each pass of a repeat or sweep; for a repeat, a last row with mean ± stddev."""
    rows = []
    for run in runs:
        values = metric_values(run.result)
        flag, flag_tone = run_flag(run)
        rows.append(
            Row(
                str(run.id),
                (flag, str(run.id), run.label or "", *(fmt(values[k]) for k, fmt in _GROUP_METRICS)),
                (flag_tone, "dim", "accent", *(None if values[k] is not None else "dim" for k, _ in _GROUP_METRICS)),
            )
        )
    if summary is not None and len(summary.runs) > 1:
        cells = []
        for key, fmt in _GROUP_METRICS:
            stat = summary.stat(key)
            cells.append(DASH if stat.mean is None else f"{fmt(stat.mean)}±{fmt(stat.stddev)}")
        rows.append(
            Row(
                "mean",
                ("", "", f"mean ± sd (n={len(summary.runs)})", *cells),
                (None, None, "good", *(["good"] * len(cells))),
            )
        )
    return rows


DISK_COLUMNS = [
    Column("name", "Device", 9, "left"),
    Column("r_s", "r/s", 7),
    Column("w_s", "w/s", 7),
    Column("rmb", "rMiB/s", 7),
    Column("wmb", "wMiB/s", 7),
    Column("r_await", "r_await", 8),
    Column("w_await", "w_await", 8),
    Column("aqu", "aqu-sz", 7),
    Column("util", "%util", 6),
]


def disk_rows(snapshot: Snapshot, names: list[str]) -> list[Row]:
    """iostat -x rows of the target's devices, in stack order."""
    by_name = disks_by_name(snapshot.disks)

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
        util_tone = DISK_FIELDS["util_pct"].level(d.util_pct)
        rows.append(
            Row(
                name,
                (
                    name,
                    f(d.r_s),
                    f(d.w_s),
                    f(d.rkib_s / 1000 if d.rkib_s is not None else None),
                    f(d.wkib_s / 1000 if d.wkib_s is not None else None),
                    f(d.r_await_ms, 2),
                    f(d.w_await_ms, 2),
                    f(d.aqu_sz, 2),
                    f(d.util_pct),
                ),
                ("accent", None, None, None, None, None, None, None, util_tone),
            )
        )
    return rows


def passes_line(runs: list[StoredRun]) -> str:
    """Under a repeat's passes: the IOPS mean ± stddev and its spread; empty for a sweep."""
    summary = summarise_passes(runs) if runs and runs[0].group_kind == "repeat" else None
    if summary is None or not summary.runs:
        return ""
    stat = summary.stat("read_iops") if summary.stat("read_iops").mean is not None else summary.stat("write_iops")
    cv = stat.cv_pct
    return (
        f" {stat.key.replace('_', ' ')}: mean {fmt_iops(stat.mean)} ± {fmt_iops(stat.stddev)}"
        f"{f' ({cv:.1f}% of the mean)' if cv is not None else ''} over {len(summary.runs)} complete passes"
    )


def versus_baseline_line(baseline: StoredRun, run: StoredRun) -> str:
    """What tuning differs between ``run`` and the baseline, one line."""
    diff = compare_runs(baseline, run).settings
    text = "; ".join(f"{d.key}: {d.before or '-'} → {d.after or '-'}" for d in diff) or "same settings as the baseline"
    return f" #{run.id} vs baseline #{baseline.id}: {text}"


def run_detail(run: StoredRun) -> str:
    """Two lines about a stored run: when, where and with what; then the tuning in force."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.started))
    head = f" #{run.id} {run.preset} on {run.target} at {when}, {run.fio_version or 'fio'} {run.engine or ''}"
    if run.partial:
        head += f" · partial: {run.message or 'stopped early'}"
    return head + "\n " + (settings_text(run.settings) or "no tuning recorded")
