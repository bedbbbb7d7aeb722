"""Compare runs, summarise repeats, sweep one knob, export.

- **Compare**: a baseline against every other run of the same preset: the %
  change of each metric and the settings that differ between the two.
- **Repeat**: mean ± sample standard deviation over the passes of a runs-group.
- **Sweep**: one run per value of one queue knob, in :mod:`raidtop.actions.fio.sweep`
  (re-exported here).
- **Export**: CSV (label, RAID level, read/write IOPS, read/write MiB/s,
  settings) and JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import time
from pathlib import Path
from typing import TextIO
from collections.abc import Iterable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.store import StoredRun
from raidtop.actions.fio.results import FioResult
from raidtop.safeio import atomic_write
from raidtop.actions.fio.sweep import (  # noqa: F401  (the sweep's old home; screens and tests import it from here)
    DEFAULT_READ_AHEAD_KB,
    SWEEP_KNOBS,
    SweepOutcome,
    SweepStep,
    run_sweep,
    sweep_devices,
    sweep_values,
)

# ---------------------------------------------------------------- metrics


@frozen_dataclass
class Metric:
    """One figure a run is judged by."""

    key: str
    label: str
    direction: str
    """``read`` or ``write``."""
    field: str
    """``iops``, ``mib_s``, ``lat_mean_us`` or ``lat_p99_us``."""
    higher_is_better: bool


METRICS: tuple[Metric, ...] = (
    Metric("read_iops", "read IOPS", "read", "iops", True),
    Metric("write_iops", "write IOPS", "write", "iops", True),
    Metric("read_mib_s", "read MiB/s", "read", "mib_s", True),
    Metric("write_mib_s", "write MiB/s", "write", "mib_s", True),
    Metric("read_lat_mean_us", "read mean latency µs", "read", "lat_mean_us", False),
    Metric("read_lat_p99_us", "read p99 latency µs", "read", "lat_p99_us", False),
    Metric("write_lat_mean_us", "write mean latency µs", "write", "lat_mean_us", False),
    Metric("write_lat_p99_us", "write p99 latency µs", "write", "lat_p99_us", False),
)
METRIC_BY_KEY = {m.key: m for m in METRICS}


def metric_values(result: FioResult | None) -> dict[str, float | None]:
    """Every metric of a result; ``None`` for a direction that did no I/O."""
    values: dict[str, float | None] = {}
    for metric in METRICS:
        direction = result.direction(metric.direction) if result is not None else None
        if direction is None or not direction.active:
            values[metric.key] = None
        else:
            values[metric.key] = getattr(direction, metric.field)
    return values


def pct_change(before: float | None, after: float | None) -> float | None:
    """``(after - before) / before`` in percent; ``None`` when undefined."""
    if before is None or after is None or before == 0:
        return None
    return (after - before) / before * 100.0


# ---------------------------------------------------------------- compare


@frozen_dataclass
class MetricChange:
    """One metric, baseline against another run."""

    key: str
    before: float | None
    after: float | None
    pct: float | None
    better: bool | None
    """True when the change is an improvement (more IOPS, less latency); ``None`` when unchanged or undefined."""


@frozen_dataclass
class SettingChange:
    """A setting whose value differs between baseline and run (``None``: absent)."""

    key: str
    before: str | None
    after: str | None


@frozen_dataclass
class Comparison:
    """A run set against the baseline."""

    baseline: StoredRun
    run: StoredRun
    changes: tuple[MetricChange, ...]
    settings: tuple[SettingChange, ...]

    def change(self, key: str) -> MetricChange:
        """The change of one metric by key."""
        return next(c for c in self.changes if c.key == key)


def settings_diff(before: dict[str, str], after: dict[str, str]) -> tuple[SettingChange, ...]:
    """Every key whose value differs, sorted by key."""
    keys = sorted(set(before) | set(after))
    return tuple(SettingChange(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k))


def compare_runs(baseline: StoredRun, run: StoredRun) -> Comparison:
    """``run`` against ``baseline``."""
    base, other = metric_values(baseline.result), metric_values(run.result)
    changes = []
    for metric in METRICS:
        pct = pct_change(base[metric.key], other[metric.key])
        better = None if pct is None or pct == 0 else (pct > 0) == metric.higher_is_better
        changes.append(MetricChange(metric.key, base[metric.key], other[metric.key], pct, better))
    return Comparison(baseline, run, tuple(changes), settings_diff(baseline.settings, run.settings))


def compare_with_baseline(baseline: StoredRun, runs: Iterable[StoredRun]) -> list[Comparison]:
    """Every other run of the baseline's preset against it, oldest first."""
    return [compare_runs(baseline, r) for r in runs if r.preset == baseline.preset and r.id != baseline.id]


# ---------------------------------------------------------------- repeat


@frozen_dataclass
class MetricStats:
    """Mean and sample standard deviation of one metric over passes."""

    key: str
    values: tuple[float, ...]
    mean: float | None
    stddev: float | None
    """Sample standard deviation (n − 1); 0.0 for a single pass."""

    @property
    def cv_pct(self) -> float | None:
        """Coefficient of variation: stddev as a percentage of the mean."""
        if self.mean in (None, 0) or self.stddev is None:
            return None
        return self.stddev / self.mean * 100


@frozen_dataclass
class RepeatSummary:
    """The passes of a repeat and their statistics."""

    runs: tuple[StoredRun, ...]
    """Complete passes, the ones the statistics cover."""
    skipped: tuple[StoredRun, ...]
    """Partial passes, listed but left out of the statistics."""
    stats: tuple[MetricStats, ...]

    def stat(self, key: str) -> MetricStats:
        """One metric's statistics by key."""
        return next(s for s in self.stats if s.key == key)


def summarise_passes(runs: Iterable[StoredRun]) -> RepeatSummary:
    """Mean ± stddev over the complete runs (partial ones are skipped)."""
    runs = list(runs)
    complete = tuple(r for r in runs if not r.partial and r.result is not None)
    skipped = tuple(r for r in runs if r not in complete)
    stats = []
    for metric in METRICS:
        values = tuple(v for v in (metric_values(r.result)[metric.key] for r in complete) if v is not None)
        if not values:
            stats.append(MetricStats(metric.key, (), None, None))
            continue
        mean = statistics.fmean(values)
        stddev = statistics.stdev(values) if len(values) > 1 else 0.0
        stats.append(MetricStats(metric.key, values, mean, stddev))
    return RepeatSummary(complete, skipped, tuple(stats))


# ---------------------------------------------------------------- export

EXPORT_COLUMNS = ("label", "RAID level", "read IOPS", "write IOPS", "read MiB/s", "write MiB/s", "settings")
"""The CSV header."""


def run_label(run: StoredRun) -> str:
    """``rand-read scheduler=none`` or ``rand-read #12``."""
    return f"{run.preset} {run.display_label}" + (" (partial)" if run.partial else "")


def settings_text(settings: dict[str, str]) -> str:
    """``key=value; key=value`` sorted by key."""
    return "; ".join(f"{k}={v}" for k, v in sorted(settings.items()))


def export_row(run: StoredRun) -> dict[str, str]:
    """One CSV row (values as text)."""
    values = metric_values(run.result)

    def fmt(key: str, digits: int) -> str:
        value = values[key]
        return f"{value if value is not None else 0.0:.{digits}f}"

    return {
        "label": run_label(run),
        "RAID level": run.tuning.raid_level or "",
        "read IOPS": fmt("read_iops", 1),
        "write IOPS": fmt("write_iops", 1),
        "read MiB/s": fmt("read_mib_s", 2),
        "write MiB/s": fmt("write_mib_s", 2),
        "settings": settings_text(run.settings),
    }


def export_csv(runs: Iterable[StoredRun], handle: TextIO | None = None) -> str:
    """Write the CSV to ``handle`` (if given) and return it as text."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for run in runs:
        writer.writerow(export_row(run))
    text = buffer.getvalue()
    if handle is not None:
        handle.write(text)
    return text


def export_document(runs: Iterable[StoredRun]) -> list[dict]:
    """The JSON export: one object per run with metrics, settings and provenance."""
    out = []
    for run in runs:
        metrics = {
            k: (None if v is None or math.isnan(v) else round(v, 3)) for k, v in metric_values(run.result).items()
        }
        out.append(
            {
                "id": run.id,
                "label": run_label(run),
                "preset": run.preset,
                "target": run.target,
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(run.started)),
                "partial": run.partial,
                "group_id": run.group_id,
                "group_kind": run.group_kind,
                "pass": run.pass_no,
                "raid_level": run.tuning.raid_level,
                "fio_version": run.fio_version,
                "kernel": run.kernel,
                "engine": run.engine,
                "command": run.command,
                "metrics": metrics,
                "settings": run.settings,
                "md": [
                    {
                        "name": a.name,
                        "level": a.level,
                        "chunk_kib": a.chunk_kib,
                        "members": list(a.members),
                        "state": a.state,
                        "sync_running": a.sync_running,
                    }
                    for a in run.tuning.arrays
                ],
            }
        )
    return out


def export_json(runs: Iterable[StoredRun]) -> str:
    """The JSON export as text."""
    return json.dumps(export_document(runs), indent=1)


def write_exports(runs: Iterable[StoredRun], directory: Path, stem: str | None = None) -> tuple[Path, Path]:
    """Write ``<stem>.csv`` and ``<stem>.json`` into ``directory``; return both paths."""
    runs = list(runs)
    directory.mkdir(parents=True, exist_ok=True)
    stem = stem or time.strftime("bench-%Y%m%d-%H%M%S")
    csv_path, json_path = directory / f"{stem}.csv", directory / f"{stem}.json"
    # The one atomic writer: a link planted at either name is replaced, not followed.
    atomic_write(csv_path, export_csv(runs), 0o644)
    atomic_write(json_path, export_json(runs) + "\n", 0o644)
    return csv_path, json_path
