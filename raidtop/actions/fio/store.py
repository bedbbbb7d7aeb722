"""The results history: every benchmark run, in SQLite under the XDG data dir.

Each row keeps the full fio JSON (so nothing is lost to a parser that later
learns more), fio's version, the kernel, when it started, whether it is
partial, the runs-group a repeat or sweep pass belongs to, the per-second
progress points, and the tuning in force for the target's device stack
(:class:`~raidtop.actions.fio.stack.TuningState`, as JSON).

A connection is opened per call: calls come from worker threads, and
SQLite connections must not cross threads.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path
from collections.abc import Iterator

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.results import FioResult, parse_fio_json
from raidtop.actions.fio.stack import TuningState
from raidtop.config import xdg_dir
from raidtop.safeio import open_store

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    preset TEXT NOT NULL,
    target TEXT NOT NULL,
    target_kind TEXT,
    started REAL NOT NULL,
    duration_s REAL,
    runtime_s INTEGER,
    fio_version TEXT,
    kernel TEXT,
    engine TEXT,
    engine_note TEXT,
    command TEXT,
    partial INTEGER NOT NULL DEFAULT 0,
    message TEXT,
    group_id TEXT,
    group_kind TEXT,
    pass_no INTEGER,
    label TEXT,
    baseline INTEGER NOT NULL DEFAULT 0,
    fio_json TEXT NOT NULL,
    tuning_json TEXT NOT NULL,
    points_json TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS runs_preset ON runs (preset, id);
CREATE INDEX IF NOT EXISTS runs_group ON runs (group_id);
"""
_COLUMNS = (
    "id, preset, target, target_kind, started, duration_s, runtime_s, fio_version, kernel, engine, engine_note, "
    "command, partial, message, group_id, group_kind, pass_no, label, baseline, fio_json, tuning_json, points_json"
)


def default_history_path() -> Path:
    """``$XDG_DATA_HOME/raidtop/bench.sqlite``."""
    return xdg_dir("data") / "bench.sqlite"


def new_group_id() -> str:
    """A fresh runs-group id for a repeat or a sweep."""
    return uuid.uuid4().hex[:12]


@frozen_dataclass
class StoredRun:
    """One run as the history holds it, its fio JSON already parsed."""

    id: int
    preset: str
    target: str
    started: float
    fio_json: str
    tuning: TuningState
    result: FioResult | None
    """``None`` when the stored JSON no longer parses (then ``message`` says why)."""
    target_kind: str | None = None
    duration_s: float | None = None
    runtime_s: int | None = None
    fio_version: str | None = None
    kernel: str | None = None
    engine: str | None = None
    engine_note: str | None = None
    command: str | None = None
    partial: bool = False
    message: str | None = None
    group_id: str | None = None
    group_kind: str | None = None
    """``repeat`` or ``sweep`` for a pass of one, else ``None``."""
    pass_no: int | None = None
    label: str | None = None
    baseline: bool = False
    points: tuple[ProgressPoint, ...] = ()

    @property
    def display_label(self) -> str:
        """The label, or ``#id`` when it has none."""
        return self.label or f"#{self.id}"

    @property
    def settings(self) -> dict[str, str]:
        """The flat tuning settings plus the engine (which also changes results)."""
        flat = dict(self.tuning.settings())
        if self.engine:
            flat["fio.ioengine"] = self.engine
        return flat


class HistoryUnavailable(Exception):
    """The history cannot be written; ``str()`` says where and why in one sentence."""


class RunStore:
    """The SQLite store of every benchmark run (created on first use; the file is bench.sqlite)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_history_path()
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = open_store(self.path, "runs")
        if not self._ready:
            conn.executescript(_SCHEMA)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.commit()
            self._ready = True
        return conn

    def ensure_writable(self) -> None:
        """Create the history if needed and take (then drop) a write lock; :class:`HistoryUnavailable` if not possible.

        Called before fio runs, so a result is never produced with nowhere to keep it.
        """
        try:
            with closing(self._connect()) as conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.rollback()
        except (OSError, sqlite3.Error) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise HistoryUnavailable(f"the results history {self.path} cannot be written ({reason})") from None

    def add(
        self,
        *,
        preset: str,
        target: str,
        started: float,
        fio_json: str,
        tuning: TuningState,
        target_kind: str | None = None,
        duration_s: float | None = None,
        runtime_s: int | None = None,
        fio_version: str | None = None,
        kernel: str | None = None,
        engine: str | None = None,
        engine_note: str | None = None,
        command: str | None = None,
        partial: bool = False,
        message: str | None = None,
        group_id: str | None = None,
        group_kind: str | None = None,
        pass_no: int | None = None,
        label: str | None = None,
        points: tuple[ProgressPoint, ...] | list[ProgressPoint] = (),
    ) -> StoredRun:
        """Store one run and return it as stored."""
        with closing(self._connect()) as conn, conn:
            cursor = conn.execute(
                "INSERT INTO runs (preset, target, target_kind, started, duration_s, runtime_s, fio_version, kernel, "
                "engine, engine_note, command, partial, message, group_id, group_kind, pass_no, label, fio_json, "
                "tuning_json, points_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    preset,
                    target,
                    target_kind,
                    started,
                    duration_s,
                    runtime_s,
                    fio_version,
                    kernel,
                    engine,
                    engine_note,
                    command,
                    int(partial),
                    message,
                    group_id,
                    group_kind,
                    pass_no,
                    label,
                    fio_json,
                    json.dumps(tuning.to_dict()),
                    json.dumps([p.to_dict() for p in points]),
                ),
            )
            run_id = cursor.lastrowid
        if run_id is None:
            raise sqlite3.DatabaseError("the insert gave no row id")
        stored = self.get(run_id)
        assert stored is not None
        return stored

    def get(self, run_id: int) -> StoredRun | None:
        """One run by id."""
        rows = list(self._select("WHERE id = ?", (run_id,)))
        return rows[0] if rows else None

    def runs(self, preset: str | None = None, limit: int | None = None) -> list[StoredRun]:
        """Runs oldest first (the latest ``limit`` when given), of ``preset`` when given."""
        where, args = ("WHERE preset = ?", [preset]) if preset else ("", [])
        if limit is not None:
            rows = list(self._select(f"{where} ORDER BY id DESC LIMIT ?", (*args, limit)))
            return rows[::-1]
        return list(self._select(f"{where} ORDER BY id", tuple(args)))

    def group(self, group_id: str) -> list[StoredRun]:
        """Every pass of one repeat or sweep, in order."""
        return list(self._select("WHERE group_id = ? ORDER BY id", (group_id,)))

    def baseline(self, preset: str) -> StoredRun | None:
        """The run marked as ``preset``'s baseline, if any."""
        rows = list(self._select("WHERE preset = ? AND baseline = 1 ORDER BY id DESC LIMIT 1", (preset,)))
        return rows[0] if rows else None

    def set_baseline(self, run_id: int) -> StoredRun | None:
        """Mark ``run_id`` as the baseline of its preset (unmarking the previous one)."""
        with closing(self._connect()) as conn, conn:
            row = conn.execute("SELECT preset FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                return None
            conn.execute("UPDATE runs SET baseline = 0 WHERE preset = ?", (row[0],))
            conn.execute("UPDATE runs SET baseline = 1 WHERE id = ?", (run_id,))
        return self.get(run_id)

    def clear_baseline(self, preset: str) -> None:
        """Unmark ``preset``'s baseline."""
        with closing(self._connect()) as conn, conn:
            conn.execute("UPDATE runs SET baseline = 0 WHERE preset = ?", (preset,))

    def set_label(self, run_id: int, label: str | None) -> None:
        """Name a run (``scheduler=none``, ``after raising read_ahead``)."""
        with closing(self._connect()) as conn, conn:
            conn.execute("UPDATE runs SET label = ? WHERE id = ?", (label or None, run_id))

    def delete(self, run_id: int) -> None:
        """Forget one run."""
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    def _select(self, tail: str, args: tuple) -> Iterator[StoredRun]:
        with closing(self._connect()) as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM runs {tail}", args).fetchall()
        for row in rows:
            yield _stored(row)


def _stored(row: tuple) -> StoredRun:
    (
        run_id,
        preset,
        target,
        target_kind,
        started,
        duration_s,
        runtime_s,
        fio_version,
        kernel,
        engine,
        engine_note,
        command,
        partial,
        message,
        group_id,
        group_kind,
        pass_no,
        label,
        baseline,
        fio_json,
        tuning_json,
        points_json,
    ) = row
    parsed = parse_fio_json(fio_json)
    try:
        tuning = TuningState.from_dict(json.loads(tuning_json))
    except (ValueError, TypeError):
        tuning = TuningState(target, target_kind or "?", notes=("stored tuning state is unreadable",))
    try:
        points = tuple(ProgressPoint.from_dict(p) for p in json.loads(points_json))
    except (ValueError, TypeError, KeyError):
        points = ()
    return StoredRun(
        id=run_id,
        preset=preset,
        target=target,
        started=started,
        fio_json=fio_json,
        tuning=tuning,
        result=parsed.result,
        target_kind=target_kind,
        duration_s=duration_s,
        runtime_s=runtime_s,
        fio_version=fio_version,
        kernel=kernel,
        engine=engine,
        engine_note=engine_note,
        command=command,
        partial=bool(partial),
        message=message or parsed.message,
        group_id=group_id,
        group_kind=group_kind,
        pass_no=pass_no,
        label=label,
        baseline=bool(baseline),
        points=points,
    )
