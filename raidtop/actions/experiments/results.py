"""The results of lab experiments: their rows, the best cell of a sweep, tables, CSV, JSON and the history.

One :class:`ExperimentResult` per run of ``raidtop lab study``, ``sweep``,
``tradeoff``, ``bitmap``, ``grow`` or ``faults-course``: its parameters, the tuning in force and its rows
(one frozen dataclass per kind). :class:`~raidtop.actions.lab.store.LabStore`
keeps them as JSON, so runs made weeks apart can be listed and compared;
this module turns a stored document back into typed rows.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, field, fields
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments.course_results import CourseRow, course_table
from raidtop.actions.experiments.study_results import LevelStats, StudyRun, study_csv, study_table
from raidtop.safeio import atomic_write

SEQUENTIAL = ("read", "write")
"""Patterns whose cells are judged by MiB/s; random ones by IOPS."""
EXPERIMENT_KINDS = ("study", "sweep", "tradeoff", "bitmap", "grow", "faults-course")


@frozen_dataclass
class SweepCell:
    """One fio pattern at one block size on an array of one chunk size."""

    chunk_kib: int
    bs: str
    rw: str
    iops: float
    mib_s: float
    p50_us: float | None = None
    p99_us: float | None = None

    @property
    def score(self) -> float:
        """What the cell is judged by: MiB/s for sequential patterns, IOPS for random ones."""
        return self.mib_s if self.rw in SEQUENTIAL else self.iops


@frozen_dataclass
class TradeoffRow:
    """The load during one rebuild at one speed limit (``limit`` ``baseline``: no rebuild at all)."""

    limit: str
    """KiB/s as typed, ``max``, or ``baseline``."""
    rebuild_s: float | None
    iops: float
    p50_us: float | None
    p99_us: float | None
    load_s: float = 0.0
    """How long the load ran (the rebuild's length, give or take fio's start)."""


@frozen_dataclass
class BitmapRow:
    """One outage: a member removed, ``written_mib`` written, the member put back, the resync timed."""

    bitmap: bool
    written_mib: int
    resync_s: float | None
    how: str = "re-add"
    """``re-add``, or ``add`` when md refused a re-add (no bitmap: a full recovery)."""


@frozen_dataclass
class GrowRow:
    """One reshape of a lab array."""

    array: str
    change: str
    """``raid-devices 3 → 4`` or ``raid1 → raid5``."""
    reshape_s: float | None
    command: str = ""


STUDY_SUMMARY_KEYS = ("levels", "disks", "size", "runs", "runtime_s", "fill")
"""What a study's line in the history shows (its document holds much more)."""
ROW_TYPES = {
    "study": StudyRun,
    "sweep": SweepCell,
    "tradeoff": TradeoffRow,
    "bitmap": BitmapRow,
    "grow": GrowRow,
    "faults-course": CourseRow,
}


@frozen_dataclass
class ExperimentResult:
    """One experiment as run and stored."""

    kind: str
    params: dict[str, str]
    rows: tuple
    tuning: dict[str, str] = field(default_factory=dict)
    """The settings in force (schedulers, read-ahead, md speed limits, chunk…), as ``device.setting``."""
    started: float = 0.0
    finished: float = 0.0
    experiment_id: int | None = None
    stopped: bool = False
    """True when it was stopped early: the rows cover what finished."""
    commands: tuple[str, ...] = ()
    summary: tuple = ()
    """A study's per-level statistics (:class:`~.study_results.LevelStats`), stored as measured."""

    def to_dict(self) -> dict:
        """The JSON document (``raidtop lab results --json`` and the history)."""
        document = {
            "id": self.experiment_id,
            "kind": self.kind,
            "params": self.params,
            "tuning": self.tuning,
            "started": self.started,
            "finished": self.finished,
            "stopped": self.stopped,
            "commands": list(self.commands),
            "rows": [asdict(r) for r in self.rows],
        }
        if self.kind == "study":
            document["summary"] = [asdict(s) for s in self.summary]
        return document

    @classmethod
    def from_dict(cls, doc: dict) -> ExperimentResult:
        """Inverse of :meth:`to_dict`; raises ValueError for a document it cannot read."""
        kind = doc.get("kind")
        if kind not in ROW_TYPES:
            raise ValueError(f"unknown experiment kind {kind!r}")
        row_type = ROW_TYPES[kind]
        names = {f.name for f in fields(row_type)}
        try:
            rows = tuple(
                row_type(**{k: v for k, v in _in_mib(row).items() if k in names}) for row in doc.get("rows") or ()
            )
        except TypeError as exc:
            raise ValueError(f"a {kind} row cannot be read: {exc}") from None
        summary = (
            tuple(
                LevelStats.from_dict({**s, "mean": _in_mib(s.get("mean")), "sd": _in_mib(s.get("sd"))})
                for s in doc.get("summary") or ()
                if isinstance(s, dict)
            )
            if kind == "study"
            else ()
        )
        return cls(
            kind,
            {str(k): str(v) for k, v in (doc.get("params") or {}).items()},
            rows,
            {str(k): str(v) for k, v in (doc.get("tuning") or {}).items()},
            float(doc.get("started") or 0),
            float(doc.get("finished") or 0),
            doc.get("id"),
            bool(doc.get("stopped")),
            tuple(str(c) for c in doc.get("commands") or ()),
            summary,
        )


LEGACY_MB_KEYS = {"mb_s": "mib_s", "read_MBps": "read_mib_s", "write_MBps": "write_mib_s"}
"""Results stored before raidtop wrote IEC units: decimal MB/s under these keys, read back as MiB/s."""


def _in_mib(figures: Any) -> Any:
    """``figures`` (a stored row or a study's mean/sd) with decimal MB/s keys renamed and converted to MiB/s."""
    if not isinstance(figures, dict) or not LEGACY_MB_KEYS.keys() & figures.keys():
        return figures
    out = {k: v for k, v in figures.items() if k not in LEGACY_MB_KEYS}
    for old, new in LEGACY_MB_KEYS.items():
        if old in figures and new not in figures:
            value = figures[old]
            out[new] = value * 1e6 / 2**20 if isinstance(value, (int, float)) else value
    return out


# ---------------------------------------------------------------- the sweep's best cells


def best_cells(cells: tuple[SweepCell, ...] | list[SweepCell]) -> dict[str, SweepCell]:
    """Per pattern, the cell with the highest score (MiB/s sequential, IOPS random); ties: the first."""
    best: dict[str, SweepCell] = {}
    for cell in cells:
        if cell.rw not in best or cell.score > best[cell.rw].score:
            best[cell.rw] = cell
    return best


def sweep_grid(cells, rw: str) -> tuple[list[int], list[str], dict[tuple[int, str], SweepCell]]:
    """Chunks (rows), block sizes (columns) and the cells of pattern ``rw``, in the order they ran."""
    chosen = [c for c in cells if c.rw == rw]
    chunks = list(dict.fromkeys(c.chunk_kib for c in chosen))
    sizes = list(dict.fromkeys(c.bs for c in chosen))
    return chunks, sizes, {(c.chunk_kib, c.bs): c for c in chosen}


def metric_name(rw: str) -> str:
    """``MiB/s`` or ``IOPS``: what a pattern's table shows."""
    return "MiB/s" if rw in SEQUENTIAL else "IOPS"


def _number(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _align(body: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(line[i]) for line in body) for i in range(len(body[0]))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
        for line in body
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def sweep_tables(cells) -> str:
    """One chunk × block-size table per pattern, the best cell marked with ``*``."""
    out: list[str] = []
    best = best_cells(cells)
    for rw in dict.fromkeys(c.rw for c in cells):
        chunks, sizes, grid = sweep_grid(cells, rw)
        metric = metric_name(rw)
        body = [(f"{rw} ({metric})", *[f"bs {s}" for s in sizes])]
        for chunk in chunks:
            row = [f"chunk {chunk}K"]
            for size in sizes:
                cell = grid.get((chunk, size))
                text = "—" if cell is None else _number(cell.score, 1 if metric == "MiB/s" else 0)
                row.append(text + ("*" if cell is not None and cell is best.get(rw) else " "))
            body.append(tuple(row))
        out += _align(body)
        winner = best[rw]
        out.append(
            f"* best {rw}: chunk {winner.chunk_kib}K, bs {winner.bs} "
            f"({_number(winner.score, 1 if metric == 'MiB/s' else 0)} {metric})"
        )
        out.append("")
    return "\n".join(out).rstrip()


def tradeoff_table(rows) -> str:
    """Limit, rebuild time, the load's IOPS and latency, against the baseline."""
    from raidtop.actions.lab.timeline import format_seconds

    base = next((r for r in rows if r.limit == "baseline"), None)
    body = [("Limit KiB/s", "Rebuild", "Load IOPS", "vs baseline", "p50 µs", "p99 µs")]
    for row in rows:
        ratio = "" if base is None or not base.iops or row is base else f"{row.iops / base.iops:.0%}"
        body.append(
            (
                row.limit,
                "—" if row.rebuild_s is None else format_seconds(row.rebuild_s),
                _number(row.iops),
                ratio,
                _number(row.p50_us),
                _number(row.p99_us),
            )
        )
    return "\n".join(_align(body))


def bitmap_table(rows) -> str:
    """Resync time with and without a bitmap, per amount written during the outage."""
    from raidtop.actions.lab.timeline import format_seconds

    body = [("Bitmap", "Written", "Put back by", "Resync")]
    for row in rows:
        body.append(
            (
                "internal" if row.bitmap else "none",
                f"{row.written_mib} MiB",
                row.how,
                "—" if row.resync_s is None else format_seconds(row.resync_s),
            )
        )
    return "\n".join(_align(body))


def grow_table(rows) -> str:
    """The reshapes and how long each took."""
    from raidtop.actions.lab.timeline import format_seconds

    body = [("Array", "Change", "Reshape")]
    body += [(r.array, r.change, "—" if r.reshape_s is None else format_seconds(r.reshape_s)) for r in rows]
    return "\n".join(_align(body))


def result_table(result: ExperimentResult) -> str:
    """The table of any experiment."""
    if result.kind == "study":
        return study_table(result.summary, result.params)
    tables = {"sweep": sweep_tables, "tradeoff": tradeoff_table, "bitmap": bitmap_table, "grow": grow_table}
    return {**tables, "faults-course": course_table}[result.kind](result.rows)


def summary(result: ExperimentResult) -> str:
    """One line for ``raidtop lab results`` and the Lab screen's list."""
    import time

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(result.started)) if result.started else "?"
    shown = STUDY_SUMMARY_KEYS if result.kind == "study" else tuple(result.params)
    params = " ".join(f"{k}={result.params[k]}" for k in shown if k in result.params)
    stopped = " (stopped early)" if result.stopped else ""
    return f"{result.experiment_id or '-':>4}  {when}  {result.kind:<8} {params}{stopped}"


# ---------------------------------------------------------------- exports


def csv_text(result: ExperimentResult) -> str:
    """The rows with raw numbers (seconds, µs, MiB/s), one column per field, and the sweep's best mark."""
    if result.kind == "study":
        return study_csv(result.summary, result.params, int(result.params.get("disk_size_bytes") or 0))
    row_type = ROW_TYPES[result.kind]
    names = [f.name for f in fields(row_type)]
    best = best_cells(result.rows) if result.kind == "sweep" else {}
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    writer.writerow(names + (["metric", "best"] if result.kind == "sweep" else []))
    for row in result.rows:
        values = ["" if getattr(row, n) is None else _raw(getattr(row, n)) for n in names]
        if result.kind == "sweep":
            values += [metric_name(row.rw), "yes" if best.get(row.rw) is row else ""]
        writer.writerow(values)
    return handle.getvalue()


def _raw(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def write_csv(result: ExperimentResult, path: Path) -> Path:
    """Write :func:`csv_text` through the one atomic writer (a link planted at ``path`` is replaced, not followed)."""
    return atomic_write(Path(path), csv_text(result), 0o644)


def json_text(results) -> str:
    """One result, or a list of them, as JSON."""
    if isinstance(results, ExperimentResult):
        return json.dumps(results.to_dict(), indent=1)
    return json.dumps([r.to_dict() for r in results], indent=1)


def store_result(store, result: ExperimentResult) -> ExperimentResult:
    """Keep ``result`` in the lab history (in its reserved row when it has an id); returns it with its id."""
    from dataclasses import replace

    return replace(result, experiment_id=store.add_experiment(result.to_dict(), result.experiment_id))


def stored_results(store, experiment_id: int | None = None) -> list[ExperimentResult]:
    """The experiments in the history (one, by id), oldest first; unreadable documents are skipped."""
    found = []
    for document in store.experiments(experiment_id):
        try:
            found.append(ExperimentResult.from_dict(document))
        except (ValueError, TypeError):
            continue
    return found
