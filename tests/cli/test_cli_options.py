"""Every numeric option of every command: a finite value in range, or one line and exit 2.

Reproduces issue 11 item 8: ``snapshot --interval inf`` raised OverflowError,
``record --interval nan`` busy-looped, and a 100,000-digit tune value raised
ValueError (Python's int string conversion limit) in ``raidtop tune`` and on
the Tuning screen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from raidtop.__main__ import build_parser

from tests.actions.tuning.test_tuning_validation import tuning_root

DATA = Path(__file__).resolve().parent.parent / "data"
PROJECT = Path(__file__).resolve().parents[2]
HUGE = "9" * 100_000


def raidtop(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "raidtop", *args], capture_output=True, text=True, timeout=60, cwd=PROJECT, **kwargs
    )


# (argv before the value, the option) for every numeric option raidtop has.
NUMERIC_OPTIONS = [
    ((), "--interval"),
    ((), "--port"),
    (("snapshot", "--json"), "--interval"),
    (("record", "-o", "/nonexistent/x.xz"), "--interval"),
    (("record", "-o", "/nonexistent/x.xz"), "--duration"),
    (("bench", "rand-read"), "--runs"),
    (("bench", "rand-read"), "--runtime"),
    (("bench", "rand-read"), "--size"),
    (("lab", "create", "--level", "5"), "--disks"),
    (("lab", "create", "--level", "5", "--disks", "3"), "--size"),
    (("lab", "create", "--level", "5", "--disks", "3"), "--chunk"),
    (("lab", "wait", "md0"), "--timeout"),
    (("lab", "study"), "--disks"),
    (("lab", "study"), "--size"),
    (("lab", "study"), "--runtime"),
]
BAD_VALUES = ["inf", "-inf", "nan", "1e400", "-1", "0", HUGE, "12abc", "\x1b[31m5"]


@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda v: v if len(v) < 12 else f"{len(v)}-chars")
@pytest.mark.parametrize(
    ("before", "option"), NUMERIC_OPTIONS, ids=lambda p: " ".join(p) if isinstance(p, tuple) else p
)
def test_bad_numbers_are_one_line_and_exit_2(capsys, before, option, value):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([*before, option, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    (line,) = err.splitlines()
    assert option in line and "expected" in line
    # The echoed value is cut short and stripped of control characters.
    assert len(line) < 240 and "\x1b" not in line


def test_lab_speed_limit_is_a_bounded_number_or_system(capsys):
    parser = build_parser()
    assert parser.parse_args(["lab", "speed", "md0", "System"]).limit == "system"
    assert parser.parse_args(["lab", "speed", "md0", "0500"]).limit == "500"
    for value in ("0", HUGE, "2147483648", "fast"):
        with pytest.raises(SystemExit):
            parser.parse_args(["lab", "speed", "md0", value])
        (line,) = capsys.readouterr().err.splitlines()
        assert "KiB/s" in line and "'system'" in line


def test_good_numbers_still_parse():
    parser = build_parser()
    assert parser.parse_args(["--interval", "0.5", "--port", "8080"]).port == 8080
    args = parser.parse_args(["bench", "rand-read", "--runs", "3", "--runtime", "10", "--size", "1M"])
    assert (args.runs, args.runtime, args.size) == (3, 10, "1M")
    args = parser.parse_args(["lab", "create", "--level", "5", "--disks", "3", "--size", "32M", "--chunk", "128"])
    assert (args.disks, args.size, args.chunk) == (3, "32M", 128)
    assert parser.parse_args(["record", "-o", "x", "--duration", "86400"]).duration == 86400.0


def test_snapshot_interval_inf_is_refused_end_to_end():
    result = raidtop("snapshot", "--json", "--interval", "inf", "--root", str(DATA / "ui" / "root1"))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "--interval" in result.stderr and "'inf'" in result.stderr


def test_record_interval_nan_is_refused_and_writes_nothing(tmp_path):
    out = tmp_path / "r.xz"
    # Before: nan compared false everywhere, so the loop never slept or stopped.
    result = raidtop("record", "-o", str(out), "--interval", "nan", "--root", str(DATA / "ui" / "root1"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert not out.exists()


def test_a_level_of_5000_digits_is_refused_not_a_traceback():
    result = raidtop("lab", "--lab-dir", "/nonexistent", "create", "--level", "9" * 5000, "--disks", "3")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "raid levels" in result.stderr


def test_a_100000_digit_tune_value_is_a_sentence_and_writes_nothing(tmp_path):
    root = tuning_root(tmp_path)
    queue = root / "sys" / "block" / "sda" / "queue"
    before = {p.name: p.read_bytes() for p in queue.iterdir() if p.is_file()}
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    result = raidtop("tune", "sda", "nr_requests", HUGE, "--root", str(root), env=env)
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert "100000-digit number is above the maximum 2048" in line
    assert {p.name: p.read_bytes() for p in queue.iterdir() if p.is_file()} == before
    assert not (tmp_path / "state" / "raidtop" / "actions.log").exists()


def test_the_tuning_screens_path_refuses_huge_and_foreign_digits(tmp_path):
    # The Tuning screen validates through TuningSession.plan, as raidtop tune does.
    from raidtop.actions.tuning import Refusal, TuningSession

    session = TuningSession(tuning_root(tmp_path))
    for value, says in (
        (HUGE, "above the maximum"),
        ("0" * 5000 + "128", None),
        ("١٢٨", "not a whole number"),
        ("12\x1b[2J", "not a whole number"),
    ):
        plan = session.plan("sda", "nr_requests", value)
        if says is None:  # leading zeros are not digits of the value
            assert not isinstance(plan, Refusal) and plan.new == "128"
            continue
        assert isinstance(plan, Refusal) and says in plan.message, plan
        assert len(plan.message) < 200 and "\x1b" not in plan.message


@pytest.mark.parametrize(
    ("typed", "seconds"), [("5s", 5.0), ("2m", 120.0), ("1.5h", 5400.0), ("1d", 86400.0), (" 90 ", 90.0)]
)
def test_durations_take_the_units_the_replay_jump_takes(typed, seconds):
    # `record --duration 5s` was refused while the replay's `j` accepted "+30s".
    assert build_parser().parse_args(["record", "-o", "x", "--duration", typed]).duration == seconds
    assert build_parser().parse_args(["--interval", "2s"]).interval == 2.0


@pytest.mark.parametrize("value", ["5x", "s", "5ss", "2m30s", "400d", "0s", "infs", "1e3s"])
def test_a_duration_with_a_bad_unit_or_out_of_range_is_one_line(capsys, value):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["record", "-o", "x", "--duration", value])
    assert stop.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--duration" in line and "5s, 2m, 1h" in line and repr(value.strip()) in line
