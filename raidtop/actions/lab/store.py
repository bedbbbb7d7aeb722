"""What outlives a lab array: measured rebuilds, finished timelines, study tables and experiments.

``lab.sqlite`` next to the registry. The registry forgets an array at
teardown; its timeline and every rebuild measured on it stay here, and so
does every study's table.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict
from pathlib import Path

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.registry import ArrayRecord, RebuildRecord
from raidtop.safeio import open_store

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rebuilds (
    id INTEGER PRIMARY KEY,
    array_name TEXT NOT NULL, level TEXT NOT NULL, raid_disks INTEGER, disk_size_bytes INTEGER,
    kind TEXT NOT NULL, member TEXT, started REAL NOT NULL, finished REAL NOT NULL,
    seconds REAL NOT NULL, resolution_s REAL
);
CREATE TABLE IF NOT EXISTS arrays (
    id INTEGER PRIMARY KEY,
    array_name TEXT NOT NULL, level TEXT NOT NULL, raid_disks INTEGER, disk_size_bytes INTEGER,
    created REAL, torn_down REAL, timeline TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS studies (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, finished REAL, params TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS study_rows (
    study_id INTEGER NOT NULL REFERENCES studies(id), position INTEGER NOT NULL, row TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS experiments (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, started REAL NOT NULL, finished REAL, document TEXT NOT NULL
);
"""


@frozen_dataclass
class StoredRebuild:
    """One row of the rebuilds table."""

    array: str
    level: str
    raid_disks: int | None
    disk_size_bytes: int | None
    kind: str
    member: str | None
    started: float
    finished: float
    seconds: float
    resolution_s: float | None


class LabStore:
    """The lab's SQLite store: rebuilds, finished timelines, study tables.

    Every call opens and closes its own connection, so any thread may use it.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = open_store(self.path, "rebuilds")
        connection.executescript(_SCHEMA)
        return connection

    def add_rebuild(self, array: ArrayRecord, rebuild: RebuildRecord) -> None:
        """Store one measured rebuild of ``array``."""
        with self._connect() as db:
            db.execute(
                "INSERT INTO rebuilds (array_name, level, raid_disks, disk_size_bytes, kind, member, started, finished,"
                " seconds, resolution_s) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    array.name,
                    array.level,
                    array.raid_disks,
                    array.disk_size_bytes,
                    rebuild.kind,
                    rebuild.member,
                    rebuild.started,
                    rebuild.finished,
                    rebuild.seconds,
                    rebuild.resolution_s,
                ),
            )

    def rebuilds(self, array: str | None = None) -> list[StoredRebuild]:
        """Every stored rebuild (of ``array``), oldest first."""
        query = (
            "SELECT array_name, level, raid_disks, disk_size_bytes, kind, member, started, finished, seconds,"
            " resolution_s FROM rebuilds"
        )
        args: tuple = ()
        if array is not None:
            query += " WHERE array_name = ?"
            args = (array,)
        with self._connect() as db:
            return [StoredRebuild(*row) for row in db.execute(query + " ORDER BY id", args)]

    def add_array(self, array: ArrayRecord, torn_down: float | None = None) -> None:
        """Keep a torn-down array's timeline."""
        timeline = json.dumps([asdict(e) for e in array.timeline])
        with self._connect() as db:
            db.execute(
                "INSERT INTO arrays (array_name, level, raid_disks, disk_size_bytes, created, torn_down, timeline)"
                " VALUES (?,?,?,?,?,?,?)",
                (
                    array.name,
                    array.level,
                    array.raid_disks,
                    array.disk_size_bytes,
                    array.created,
                    torn_down if torn_down is not None else time.time(),
                    timeline,
                ),
            )

    def timelines(self) -> list[tuple[str, str, list[dict]]]:
        """(array, level, events) of every torn-down array, oldest first."""
        with self._connect() as db:
            rows = db.execute("SELECT array_name, level, timeline FROM arrays ORDER BY id").fetchall()
        return [(name, level, json.loads(text)) for name, level, text in rows]

    def add_study(self, params: dict, rows: list[dict], started: float, finished: float) -> int:
        """Store a study's table; returns its id."""
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO studies (started, finished, params) VALUES (?,?,?)",
                (started, finished, json.dumps(params)),
            )
            study_id = _row_id(cursor)
            db.executemany(
                "INSERT INTO study_rows (study_id, position, row) VALUES (?,?,?)",
                [(study_id, i, json.dumps(row)) for i, row in enumerate(rows)],
            )
        return study_id

    def study(self, study_id: int | None = None) -> tuple[dict, list[dict]] | None:
        """(params, rows) of a study (the latest when ``study_id`` is None)."""
        with self._connect() as db:
            if study_id is None:
                found = db.execute("SELECT id, params FROM studies ORDER BY id DESC LIMIT 1").fetchone()
            else:
                found = db.execute("SELECT id, params FROM studies WHERE id = ?", (study_id,)).fetchone()
            if found is None:
                return None
            rows = db.execute("SELECT row FROM study_rows WHERE study_id = ? ORDER BY position", (found[0],)).fetchall()
        return json.loads(found[1]), [json.loads(r[0]) for r in rows]

    def add_experiment(self, document: dict, experiment_id: int | None = None) -> int:
        """Store one experiment's JSON document (:meth:`ExperimentResult.to_dict`); returns its id.

        With ``experiment_id`` (from :meth:`reserve_experiment`) that row's document is replaced.
        """
        with self._connect() as db:
            if experiment_id is not None:
                cursor = db.execute(
                    "UPDATE experiments SET kind = ?, started = ?, finished = ?, document = ? WHERE id = ?",
                    (document["kind"], document["started"], document["finished"], json.dumps(document), experiment_id),
                )
                if cursor.rowcount:
                    return experiment_id
            cursor = db.execute(
                "INSERT INTO experiments (kind, started, finished, document) VALUES (?,?,?,?)",
                (document["kind"], document["started"], document["finished"], json.dumps(document)),
            )
            return _row_id(cursor)

    def reserve_experiment(self, kind: str, started: float) -> int:
        """An id for an experiment that is starting (its fio runs carry it in the Benchmarks history).

        The row holds a stopped, empty document until :meth:`add_experiment`
        replaces it, so a run killed outright still lists as stopped.
        """
        placeholder = {"kind": kind, "started": started, "finished": started, "stopped": True, "params": {}, "rows": []}
        return self.add_experiment(placeholder)

    def experiments(self, experiment_id: int | None = None) -> list[dict]:
        """Every stored experiment document (only ``experiment_id``'s when given), oldest first, ids filled in."""
        query, args = "SELECT id, document FROM experiments", tuple[int, ...]()
        if experiment_id is not None:
            query, args = query + " WHERE id = ?", (experiment_id,)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY id", args).fetchall()
        found = []
        for row_id, text in rows:
            try:
                document = json.loads(text)
            except ValueError:
                continue  # one damaged row must not hide the others
            if isinstance(document, dict):
                found.append({**document, "id": row_id})
        return found


def _row_id(cursor: sqlite3.Cursor) -> int:
    """The id SQLite gave the row just inserted."""
    if cursor.lastrowid is None:
        raise sqlite3.DatabaseError("the insert gave no row id")
    return cursor.lastrowid
