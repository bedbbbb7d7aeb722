"""The RAID-level study's figures: one row per level per run, mean ± sd per level, the table and the CSV.

Every figure is declared once in :data:`FIGURES` (its key carries its unit:
``_iops``, ``_mib_s`` for MiB/s, 2^20 bytes per second from fio's
``bw_bytes``, ``_us``, ``_s``); the per-run row, the per-level statistics,
the table and the CSV columns all follow from it. The standard deviation
is the sample one (n − 1), as ``raidtop bench --runs`` reports it; with a
single run there is none.
"""

from __future__ import annotations

import csv
import io
import statistics
from dataclasses import field, fields
from raidtop.model.frozen import frozen_dataclass
from raidtop.model.units import counted


@frozen_dataclass
class Figure:
    """One measured quantity of the study."""

    key: str
    """The per-run field and the CSV column stem, unit included."""
    title: str
    """The table's header (``None`` in :attr:`in_table` keeps it out of the table)."""
    digits: int
    in_table: bool = True


FIGURES = (
    Figure("read_iops", "Read IOPS", 0),
    Figure("write_iops", "Write IOPS", 0),
    Figure("read_mib_s", "Read MiB/s", 1),
    Figure("write_mib_s", "Write MiB/s", 1),
    Figure("read_lat_avg_us", "Read avg µs", 0, False),
    Figure("read_lat_p99_us", "Read p99 µs", 0, False),
    Figure("write_lat_avg_us", "Write avg µs", 0, False),
    Figure("write_lat_p99_us", "Write p99 µs", 0, False),
    Figure("rebuilding_write_iops", "Write IOPS rebuilding", 0),
    Figure("rebuilding_write_lat_avg_us", "Write avg µs rebuilding", 0, False),
    Figure("rebuilding_load_s", "Seconds measured rebuilding", 1, False),
    Figure("rebuild_s", "Rebuild s", 2),
)
FIGURE_KEYS = tuple(f.key for f in FIGURES)


@frozen_dataclass
class StudyRun:
    """One level in one run: what it measured, and the fio commands that measured it."""

    run: int
    level: str
    disks: int
    disk_size_bytes: int
    chunk_KiB: int | None = None
    usable_bytes: int | None = None
    failures_tolerated: str = ""
    read_iops: float | None = None
    write_iops: float | None = None
    read_mib_s: float | None = None
    write_mib_s: float | None = None
    read_lat_avg_us: float | None = None
    read_lat_p99_us: float | None = None
    write_lat_avg_us: float | None = None
    write_lat_p99_us: float | None = None
    rebuilding_write_iops: float | None = None
    """The write workload while the array rebuilds: the mean of fio's per-second reports after the add."""
    rebuilding_write_lat_avg_us: float | None = None
    """Their mean completion latency (fio's per-second reports carry no percentiles)."""
    rebuilding_load_s: float | None = None
    """The seconds those reports cover: shorter than the window when the rebuild ended first."""
    rebuild_s: float | None = None
    """The idle rebuild: a member failed, removed, a fresh disk added, nothing else running."""
    rebuild_resolution_s: float = 0.0
    read_command: str = ""
    write_command: str = ""
    rebuilding_command: str = ""
    note: str = ""


@frozen_dataclass
class LevelStats:
    """One level over every run: mean and sample standard deviation of each figure."""

    level: str
    disks: int
    runs: int
    chunk_KiB: int | None
    usable_bytes: int | None
    failures_tolerated: str
    rebuild_resolution_s: float
    """The coarsest resolution of the rebuild times (how late a finish may have been seen)."""
    mean: dict[str, float | None] = field(default_factory=dict)
    sd: dict[str, float | None] = field(default_factory=dict)
    """``None`` with fewer than two values."""
    note: str = ""

    @classmethod
    def from_dict(cls, doc: dict) -> LevelStats:
        """Inverse of ``asdict``; raises ValueError for a document it cannot read."""
        try:
            return cls(
                str(doc["level"]),
                int(doc["disks"]),
                int(doc["runs"]),
                doc.get("chunk_KiB"),
                doc.get("usable_bytes"),
                str(doc.get("failures_tolerated", "")),
                float(doc.get("rebuild_resolution_s") or 0.0),
                {str(k): v for k, v in (doc.get("mean") or {}).items()},
                {str(k): v for k, v in (doc.get("sd") or {}).items()},
                str(doc.get("note", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a study summary row cannot be read: {exc}") from None


def summarize(runs) -> tuple[LevelStats, ...]:
    """Per level (in the order they ran), mean and sd of every figure over the runs that measured it."""
    out = []
    for level in dict.fromkeys(r.level for r in runs):
        mine = [r for r in runs if r.level == level]
        mean: dict[str, float | None] = {}
        sd: dict[str, float | None] = {}
        for key in FIGURE_KEYS:
            values = [getattr(r, key) for r in mine if getattr(r, key) is not None]
            mean[key] = round(statistics.fmean(values), 3) if values else None
            sd[key] = round(statistics.stdev(values), 3) if len(values) > 1 else None
        notes = list(dict.fromkeys(r.note for r in mine if r.note))
        last = mine[-1]
        out.append(
            LevelStats(
                level,
                last.disks,
                len(mine),
                last.chunk_KiB,
                last.usable_bytes,
                last.failures_tolerated,
                max(r.rebuild_resolution_s for r in mine),
                mean,
                sd,
                "; ".join(notes),
            )
        )
    return tuple(out)


# ---------------------------------------------------------------- the table


def mean_sd(mean: float | None, sd: float | None, digits: int) -> str:
    """``82,900 ± 1,234``; the mean alone without an sd, ``—`` without a mean."""
    if mean is None:
        return "—"
    text = f"{mean:,.{digits}f}"
    return text if sd is None else f"{text} ± {sd:,.{digits}f}"


def study_table(summary, params: dict[str, str] | None = None) -> str:
    """The levels side by side: every shown figure as mean ± sd over the runs, notes underneath."""
    from raidtop.actions.lab.spec import human_size

    shown = [f for f in FIGURES if f.in_table]
    body = [("Level", "Disks", *(f.title for f in shown), "Usable", "Tolerates")]
    for row in summary:
        cells = []
        for figure in shown:
            if figure.key.startswith("rebuild") and row.level == "raid0":
                cells.append("n/a")
            else:
                cells.append(mean_sd(row.mean.get(figure.key), row.sd.get(figure.key), figure.digits))
        body.append(
            (
                row.level,
                str(row.disks),
                *cells,
                human_size(row.usable_bytes) if row.usable_bytes else "—",
                row.failures_tolerated,
            )
        )
    widths = [max(len(line[i]) for line in body) for i in range(len(body[0]))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))) for line in body
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    runs = max((r.runs for r in summary), default=0)
    resolution = max((r.rebuild_resolution_s for r in summary), default=0.0)
    lines.append(
        f"mean ± sample sd over {counted(runs, 'run')}; MiB/s = 2^20 bytes/s; rebuild times to ±{resolution:.2f} s"
    )
    if params:
        lines.append(
            "fio: "
            + ", ".join(
                f"{k} {params[k]}" for k in ("bs", "iodepth", "numjobs", "engine", "runtime_s", "ramp_s") if k in params
            )
            + f"; filled first: {params.get('fill', '?')}; kernel {params.get('kernel', '?')}"
        )
    lines += [f"{r.level}: {r.note}" for r in summary if r.note]
    return "\n".join(lines)


# ---------------------------------------------------------------- CSV

CSV_HEAD = ("level", "disks", "disk_size_bytes", "chunk_KiB", "usable_bytes", "failures_tolerated", "runs")
CSV_TAIL = (
    "rebuild_resolution_s",
    "fio_bs",
    "fio_iodepth",
    "fio_numjobs",
    "fio_engine",
    "fio_runtime_s",
    "fio_ramp_s",
    "filled",
    "started_utc",
    "kernel",
    "speed_limit_min_KiBps",
    "speed_limit_max_KiBps",
    "note",
)
CSV_FIELDS = CSV_HEAD + tuple(f"{key}_{what}" for key in FIGURE_KEYS for what in ("mean", "sd")) + CSV_TAIL
"""The study CSV's header, one line per level (the README lists it)."""
_FROM_PARAMS = {
    "fio_bs": "bs",
    "fio_iodepth": "iodepth",
    "fio_numjobs": "numjobs",
    "fio_engine": "engine",
    "fio_runtime_s": "runtime_s",
    "fio_ramp_s": "ramp_s",
    "filled": "fill",
    "started_utc": "started_utc",
    "kernel": "kernel",
    "speed_limit_min_KiBps": "speed_limit_min",
    "speed_limit_max_KiBps": "speed_limit_max",
}


def study_csv(summary, params: dict[str, str], disk_size_bytes: int) -> str:
    """One line per level: the context, then ``<figure>_mean`` and ``<figure>_sd`` for every figure."""
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    writer.writerow(CSV_FIELDS)
    for row in summary:
        values = [
            row.level,
            row.disks,
            disk_size_bytes,
            _raw(row.chunk_KiB),
            _raw(row.usable_bytes),
            row.failures_tolerated,
            row.runs,
        ]
        for key in FIGURE_KEYS:
            values += [_raw(row.mean.get(key)), _raw(row.sd.get(key))]
        values += [f"{row.rebuild_resolution_s:.3f}"] + [params.get(_FROM_PARAMS[c], "") for c in CSV_TAIL[1:-1]]
        values.append(row.note)
        writer.writerow(values)
    return handle.getvalue()


def _raw(value) -> str:
    if value is None:
        return ""
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def run_fields() -> tuple[str, ...]:
    """The per-run row's fields (the JSON's ``rows``)."""
    return tuple(f.name for f in fields(StudyRun))
