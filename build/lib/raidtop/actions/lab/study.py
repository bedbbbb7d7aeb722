"""The RAID-level study: the classic "compare RAID 0/1/5 on loop devices" in one command.

For each level: create a lab array, wait for its initial build, run the
``rand-read`` and ``rand-write`` fio presets on it, fail a disk, remove it,
add a fresh one, time the rebuild, tear the array down. The table (IOPS and
MB/s both ways, rebuild time, usable capacity, failures tolerated) is
printed, stored in the lab history and can be written as CSV.

fio is reached through one function, :func:`run_fio_preset`, built on
:mod:`raidtop.actions.fio` (presets, guards, runner, results); tests and the
screen may pass another with the same signature.
"""

from __future__ import annotations

import csv
import io
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.lab.guard import kernel_members
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.lab.spec import MIN_DISKS, LabSpec, human_size, level_name
from raidtop.actions.lab.timeline import format_seconds
from raidtop.actions.member_actions import ActionRefused
from raidtop.safeio import atomic_write

DEFAULT_LEVELS = ("raid0", "raid1", "raid5")
DEFAULT_DISKS = {"raid0": 2, "raid1": 2, "raid4": 3, "raid5": 3, "raid6": 4, "raid10": 4}
"""Disks per level when ``--disks`` is not given: the smallest array that shows the level."""
DEFAULT_DISK_BYTES = 64 << 20
DEFAULT_RUNTIME_S = 5
READ_PRESET = "rand-read"
WRITE_PRESET = "rand-write"
CSV_FIELDS = ("level", "disks", "disk_size_bytes", "read_iops", "write_iops", "read_mb_s", "write_mb_s",
              "rebuild_s", "usable_bytes", "failures_tolerated", "note")


@dataclass(frozen=True, slots=True)
class FioFigures:
    """What one fio run measured in the direction that matters."""

    iops: float
    mb_s: float
    command: str


class FioRun(Protocol):
    """Runs one preset on a raw lab device (the study's only use of fio)."""

    def __call__(self, preset: str, device: str, runtime_s: int, registry: Path) -> FioFigures: ...


def run_fio_preset(preset: str, device: str, runtime_s: int, registry: Path) -> FioFigures:
    """Run the fio preset ``preset`` on the lab device ``device`` through raidtop's fio module."""
    from raidtop.actions.fio.session import FioMissing, execute, plan_run
    from raidtop.actions.fio.guards import TargetRefused
    from raidtop.actions.fio.store import RunStore
    from raidtop.actions.fio.presets import load_presets

    presets = load_presets()
    chosen = presets.get(preset)
    if chosen is None:
        raise LabError(f"fio preset {preset} is not defined")
    try:
        plan = plan_run(chosen, device, presets=presets, runtime_s=runtime_s, registry=registry)
    except (FioMissing, TargetRefused) as exc:
        raise LabError(str(exc)) from None
    record = execute(plan, RunStore())
    result = record.outcome.result
    if result is None:
        raise LabError(f"fio {preset} on {device} produced no result: {record.message or 'no output'}")
    direction = result.write if chosen.writes else result.read
    return FioFigures(direction.iops, direction.mb_s, plan.command.display)


@dataclass(frozen=True, slots=True)
class StudyParams:
    """What to compare."""

    levels: tuple[str, ...] = DEFAULT_LEVELS
    disks: int | None = None
    """Disks for every level (raised to a level's minimum); ``None``: :data:`DEFAULT_DISKS`."""
    disk_size_bytes: int = DEFAULT_DISK_BYTES
    runtime_s: int = DEFAULT_RUNTIME_S


@dataclass(frozen=True, slots=True)
class StudyRow:
    """One level's line of the table."""

    level: str
    disks: int
    disk_size_bytes: int
    read_iops: float | None = None
    write_iops: float | None = None
    read_mb_s: float | None = None
    write_mb_s: float | None = None
    rebuild_s: float | None = None
    rebuild_resolution_s: float = 0.0
    usable_bytes: int | None = None
    failures_tolerated: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class StudyResult:
    """The whole study."""

    params: StudyParams
    rows: tuple[StudyRow, ...]
    started: float
    finished: float
    study_id: int | None = None
    commands: tuple[str, ...] = field(default=())
    """The fio commands that ran, in order."""


def parse_levels(text: str) -> tuple[str, ...]:
    """``0,1,5`` → (raid0, raid1, raid5)."""
    return tuple(level_name(part.strip()) for part in text.split(",") if part.strip())


def disks_for(level: str, wanted: int | None) -> tuple[int, str]:
    """Disks to use for ``level`` and a note when ``wanted`` had to be raised."""
    if wanted is None:
        return DEFAULT_DISKS[level], ""
    if wanted < MIN_DISKS[level]:
        return MIN_DISKS[level], f"{level} needs {MIN_DISKS[level]} disks; used {MIN_DISKS[level]}"
    return wanted, ""


def failures_tolerated(level: str, disks: int) -> str:
    """How many disks the level survives losing, in words that fit a column."""
    if level == "raid0":
        return "0"
    if level == "raid1":
        return str(disks - 1)
    if level in ("raid4", "raid5"):
        return "1"
    if level == "raid6":
        return "2"
    # near=2: one disk always; one per mirror pair when the right ones fail.
    return f"1 (≤{disks // 2})"


def run_study(
    lab: Lab,
    params: StudyParams,
    *,
    fio: FioRun = run_fio_preset,
    on_progress: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    wait_timeout: float = 900.0,
    actions=None,
) -> StudyResult:
    """Run the study level by level; each array is torn down before the next starts.

    Raises:
        LabError: a level could not be measured (the arrays made so far are torn down).
    """
    say = on_progress or (lambda _text: None)
    started = time.time()
    rows: list[StudyRow] = []
    commands: list[str] = []
    actions = actions or LabMemberActions(lab)
    for level in params.levels:
        if cancel is not None and cancel.is_set():
            break
        disks, note = disks_for(level, params.disks)
        say(f"{level}: creating {disks} × {human_size(params.disk_size_bytes)}")
        record = lab.create(LabSpec(level, disks, params.disk_size_bytes))
        name = record.name
        try:
            lab.wait_idle(name, wait_timeout)
            size_text = lab.root.read_optional(f"/sys/block/{name}/size")
            usable = int(size_text) * 512 if size_text and size_text.strip().isdigit() else None
            say(f"{level}: fio {READ_PRESET} on /dev/{name} for {params.runtime_s} s")
            read = fio(READ_PRESET, f"/dev/{name}", params.runtime_s, lab.registry.path)
            say(f"{level}: fio {WRITE_PRESET} on /dev/{name} for {params.runtime_s} s")
            write = fio(WRITE_PRESET, f"/dev/{name}", params.runtime_s, lab.registry.path)
            commands += [read.command, write.command]
            rebuild_s, resolution = None, 0.0
            if level == "raid0":
                note = "; ".join(filter(None, [note, "no redundancy: a failed disk loses the array, nothing to rebuild"]))
            else:
                lab.wait_idle(name, wait_timeout)
                victim = (kernel_members(name, lab.root) or ("",))[0]
                say(f"{level}: failing {victim}, removing it, adding a fresh disk")
                try:
                    actions.run("fail", name, victim)
                    actions.run("remove", name, victim)
                    actions.run("add", name, None)
                except ActionRefused as exc:
                    raise LabError(f"{level}: {exc}") from None
                final = lab.wait_idle(name, wait_timeout)
                rebuild = final.last_rebuild if final is not None else None
                if rebuild is not None:
                    rebuild_s, resolution = rebuild.seconds, rebuild.resolution_s
                    say(f"{level}: rebuilt in {format_seconds(rebuild_s, resolution)}")
            rows.append(StudyRow(level, disks, params.disk_size_bytes, read.iops, write.iops, read.mb_s, write.mb_s,
                                 rebuild_s, resolution, usable, failures_tolerated(level, disks), note))
        finally:
            report = lab.teardown([name])
            for line in report.kept:
                say(f"{level}: teardown left {line}")
    finished = time.time()
    study_id = lab.store.add_study(
        {"levels": list(params.levels), "disks": params.disks, "disk_size_bytes": params.disk_size_bytes,
         "runtime_s": params.runtime_s},
        [asdict(r) for r in rows], started, finished,
    )
    return StudyResult(params, tuple(rows), started, finished, study_id, tuple(commands))


# ---------------------------------------------------------------- output

TABLE_HEADER = ("Level", "Disks", "Read IOPS", "Write IOPS", "Read MB/s", "Write MB/s", "Rebuild", "Usable", "Tolerates")


def table_cells(row: StudyRow) -> tuple[str, ...]:
    """One row as the table shows it."""
    def number(value: float | None, digits: int = 0) -> str:
        return "—" if value is None else f"{value:,.{digits}f}"

    rebuild = "n/a" if row.level == "raid0" else format_seconds(row.rebuild_s, row.rebuild_resolution_s)
    return (row.level, str(row.disks), number(row.read_iops), number(row.write_iops), number(row.read_mb_s, 1),
            number(row.write_mb_s, 1), rebuild, human_size(row.usable_bytes) if row.usable_bytes else "—",
            row.failures_tolerated)


def format_table(rows: tuple[StudyRow, ...] | list[StudyRow]) -> str:
    """The study table as aligned text, notes underneath."""
    body = [TABLE_HEADER] + [table_cells(r) for r in rows]
    widths = [max(len(line[i]) for line in body) for i in range(len(TABLE_HEADER))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
             for line in body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines += [f"{r.level}: {r.note}" for r in rows if r.note]
    return "\n".join(lines)


def write_csv(rows: tuple[StudyRow, ...] | list[StudyRow], path: Path) -> Path:
    """Write the table with raw numbers (bytes, seconds) for spreadsheets.

    Through the one atomic writer: as root, a link planted at ``path`` is
    replaced, never written through.
    """
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    writer.writerow(CSV_FIELDS)
    for row in rows:
        writer.writerow([
            row.level, row.disks, row.disk_size_bytes,
            _raw(row.read_iops), _raw(row.write_iops), _raw(row.read_mb_s), _raw(row.write_mb_s),
            _raw(row.rebuild_s), row.usable_bytes if row.usable_bytes is not None else "",
            row.failures_tolerated, row.note,
        ])
    return atomic_write(path, handle.getvalue(), 0o644)


def _raw(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"
