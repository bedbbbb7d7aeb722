"""Numbers from outside are finite and bounded; a store opens no planted link (issue 24's attacks)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from raidtop.actions.fio.store import HistoryUnavailable, RunStore
from raidtop.collect.smart.parse import parse_smartctl
from raidtop.untrusted import count, finite

REPO = Path(__file__).resolve().parents[1]
ATTACK = REPO / "tests" / "data" / "smartctl" / "attack" / "nvme-percentage-used-1e999.json"


@pytest.mark.parametrize("raw", ["+Inf", "-Inf", "NaN", float("inf"), float("nan"), 10**400, "1e999", True, None, [1]])
def test_no_infinity_nan_or_giant_is_a_number(raw) -> None:
    assert finite(raw) is None and count(raw) is None


def test_counts_are_whole_and_not_negative() -> None:
    assert count("3") == 3 and count(2.0) == 2 and count(-1) is None and count(2.5) is None
    assert count(2**63) == 2**63 and count(2**63 + 2**20) is None and count(70000, 65536) is None
    assert finite("1.5e3", 0, 2000) == 1500.0 and finite("-0.5", 0) is None


def test_smart_from_json_with_percentage_used_1e999_is_no_traceback() -> None:
    doc = json.loads(ATTACK.read_text())
    assert doc["nvme_smart_health_information_log"]["percentage_used"] == float("inf")
    health = parse_smartctl(doc, "nvme0", 0.0)
    assert health.percentage_used is None and health.state == "read"
    done = subprocess.run(
        [sys.executable, "-m", "raidtop", "smart", "--from-json", str(ATTACK), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    (disk,) = json.loads(done.stdout)["disks"]
    assert disk["disk"] == "nvme0" and disk["percentage_used"] is None


def test_a_planted_bench_sqlite_link_is_refused_and_the_other_database_untouched(tmp_path) -> None:
    other = tmp_path / "other-app.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)")
    before = other.read_bytes()
    planted = tmp_path / "raidtop" / "bench.sqlite"
    planted.parent.mkdir()
    planted.symlink_to(other)
    with pytest.raises(HistoryUnavailable, match="symbolic link"):
        RunStore(planted).ensure_writable()
    assert other.read_bytes() == before
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["accounts"]


def test_another_programs_database_at_the_path_is_left_alone(tmp_path) -> None:
    path = tmp_path / "bench.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
    with pytest.raises(HistoryUnavailable, match="another program's database"):
        RunStore(path).ensure_writable()
    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["accounts"]


def test_a_fifo_at_the_path_is_refused_without_blocking(tmp_path) -> None:
    import os

    path = tmp_path / "bench.sqlite"
    os.mkfifo(path)
    with pytest.raises(HistoryUnavailable, match="FIFO|fifo|pipe"):
        RunStore(path).ensure_writable()


def test_lab_sqlite_refuses_another_programs_database_and_a_link(tmp_path) -> None:
    from raidtop.actions.lab.store import LabStore
    from raidtop.safeio import UnsafeFile

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
    with pytest.raises(UnsafeFile, match="another program's database"):
        LabStore(other).rebuilds()
    link = tmp_path / "lab" / "lab.sqlite"
    link.parent.mkdir()
    link.symlink_to(other)
    with pytest.raises(UnsafeFile, match="symbolic link"):
        LabStore(link).rebuilds()
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["accounts"]
