"""The SQLite results history: what a run stores and how it comes back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from raidtop.actions.fio.store import RunStore, default_history_path

from tests.fio_samples import fio_json, md_tuning, ramp


@pytest.fixture
def history(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "bench.sqlite")


def test_the_database_lives_in_the_xdg_data_dir(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_history_path() == tmp_path / "raidtop" / "bench.sqlite"


def test_a_run_comes_back_with_its_json_tuning_and_points(history: RunStore):
    text = fio_json(read_iops=5000, write_iops=5000)
    stored = history.add(
        preset="rand-rw",
        target="/dev/md127",
        target_kind="device",
        started=1700000000.5,
        duration_s=11.2,
        runtime_s=10,
        fio_json=text,
        tuning=md_tuning("mq-deadline", sync_running=True),
        fio_version="fio-3.33",
        kernel="6.1.0",
        engine="libaio",
        command="fio --name=rand-rw …",
        points=ramp(5000),
    )
    again = history.get(stored.id)
    assert again == stored
    assert again.fio_json == text
    assert again.result.read.iops == 5000 and again.result.write.iops == 5000
    assert again.tuning == md_tuning("mq-deadline", sync_running=True)
    assert again.tuning.arrays[0].sync_running
    assert again.points == ramp(5000)
    assert (again.fio_version, again.kernel, again.engine, again.started) == (
        "fio-3.33",
        "6.1.0",
        "libaio",
        1700000000.5,
    )
    assert not again.partial and again.group_id is None and again.display_label == f"#{stored.id}"
    assert again.settings["loop3.scheduler"] == "mq-deadline"
    assert again.settings["fio.ioengine"] == "libaio"


def test_partial_runs_and_groups_are_kept(history: RunStore):
    for n in (1, 2, 3):
        history.add(
            preset="rand-read",
            target="/t",
            started=n,
            fio_json=fio_json(read_iops=1000 * n),
            tuning=md_tuning(),
            group_id="g1",
            group_kind="repeat",
            pass_no=n,
            label=f"pass {n}/3",
            partial=n == 3,
            message="cancelled" if n == 3 else None,
        )
    history.add(preset="rand-read", target="/t", started=9, fio_json=fio_json(read_iops=1), tuning=md_tuning())
    passes = history.group("g1")
    assert [(r.pass_no, r.partial, r.label) for r in passes] == [
        (1, False, "pass 1/3"),
        (2, False, "pass 2/3"),
        (3, True, "pass 3/3"),
    ]
    assert passes[2].message == "cancelled"
    assert [r.started for r in history.runs(limit=2)] == [3, 9]
    assert len(history.runs(preset="rand-read")) == 4 and history.runs(preset="seq-read") == []


def test_one_baseline_per_preset(history: RunStore):
    a = history.add(preset="rand-read", target="/t", started=1, fio_json=fio_json(read_iops=1), tuning=md_tuning())
    b = history.add(preset="rand-read", target="/t", started=2, fio_json=fio_json(read_iops=2), tuning=md_tuning())
    c = history.add(preset="seq-read", target="/t", started=3, fio_json=fio_json(read_iops=3), tuning=md_tuning())
    history.set_baseline(a.id)
    history.set_baseline(c.id)
    history.set_baseline(b.id)
    assert history.baseline("rand-read").id == b.id
    assert history.baseline("seq-read").id == c.id
    assert not history.get(a.id).baseline
    history.clear_baseline("rand-read")
    assert history.baseline("rand-read") is None
    assert history.set_baseline(999) is None


def test_labels_and_deletes(history: RunStore):
    run = history.add(preset="p", target="/t", started=1, fio_json=fio_json(read_iops=1), tuning=md_tuning())
    history.set_label(run.id, "after raising read_ahead")
    assert history.get(run.id).display_label == "after raising read_ahead"
    history.delete(run.id)
    assert history.get(run.id) is None


def test_a_damaged_row_still_loads_with_a_message(history: RunStore):
    run = history.add(preset="p", target="/t", started=1, fio_json=fio_json(read_iops=1), tuning=md_tuning())
    with sqlite3.connect(history.path) as conn:
        conn.execute(
            "UPDATE runs SET fio_json = ?, tuning_json = ?, points_json = ? WHERE id = ?",
            ('{"jobs": [', "not json", "[{", run.id),
        )
    again = history.get(run.id)
    assert again.result is None and "truncated" in again.message
    assert again.tuning.notes == ("stored tuning state is unreadable",)
    assert again.points == ()
