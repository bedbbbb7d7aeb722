"""``raidtop bench`` end to end with a fake fio on PATH."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from raidtop.actions.fio.history import BenchHistory
from raidtop.cli import bench

from ..fake_fio import make_fake_fio


def run_bench(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="raidtop")
    bench.register(parser.add_subparsers(dest="command"))
    try:
        args = parser.parse_args(["bench", *argv])
    except SystemExit as stop:  # numeric options are checked by argparse (raidtop.cli.options)
        return stop.code
    return args.func(args)


@pytest.fixture
def env(tmp_path: Path, monkeypatch) -> Path:
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    fake = make_fake_fio(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    target = tmp_path / "target"
    target.mkdir()
    return target


def test_list_shows_every_preset_with_its_runtime(env: Path, capsys):
    assert run_bench("--list") == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == ["seq-read", "seq-write", "rand-read", "rand-write", "rand-rw", "certification"]
    assert "30 s" in out[-1] and "15 s" in out[0]


def test_repeated_runs_print_json_with_mean_and_stddev_and_are_stored(env: Path, capsys, tmp_path: Path):
    code = run_bench("rand-read", "--target", str(env), "--runs", "2", "--runtime", "3", "--size", "1M", "--json")
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    assert doc["preset"] == "rand-read" and doc["engine"] == "libaio"
    assert "--runtime=3" in doc["command"] and "--size=1M" in doc["command"]
    assert [r["metrics"]["read_iops"] for r in doc["runs"]] == [2000.0, 2000.0]  # (1000+2000+3000)/3 s
    assert doc["summary"]["read_iops"] == {"mean": 2000.0, "stddev": 0.0, "values": [2000.0, 2000.0]}
    assert "running: " in captured.err
    stored = BenchHistory(tmp_path / "data" / "raidtop" / "bench.sqlite").runs()
    assert [r.label for r in stored] == ["pass 1/2", "pass 2/2"]
    assert stored[0].group_id == stored[1].group_id is not None
    assert not (env / "raidtop-bench.dat").exists()


def test_a_text_run_prints_the_numbers(env: Path, capsys):
    assert run_bench("rand-rw", "--target", str(env), "--runtime", "2", "--size", "1M") == 0
    out = capsys.readouterr().out
    assert "result: read 1,500 IOPS 6.1 MB/s lat 0.50 ms p99 0.88 ms; write 1,500 IOPS" in out
    assert "stored as #1" in out


def test_refusals_exit_2_with_the_reason(env: Path, capsys):
    assert run_bench("rand-read", "--target", str(env / "missing")) == 2
    assert "does not exist" in capsys.readouterr().err
    assert run_bench("no-such-preset", "--target", str(env)) == 2
    assert "choose one of seq-read" in capsys.readouterr().err
    assert run_bench("rand-read") == 2
    assert run_bench("rand-read", "--target", str(env), "--runs", "0") == 2


def test_without_fio_the_package_is_named(env: Path, capsys, monkeypatch, tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert run_bench("rand-read", "--target", str(env)) == 2
    assert "install the 'fio' package" in capsys.readouterr().err


def test_ctrl_c_stops_fio_keeps_the_partial_result_and_exits_130(env: Path, tmp_path: Path):
    import os
    import signal
    import subprocess
    import sys
    import time

    started = tmp_path / "fio-started"
    script = (
        "import argparse, sys\n"
        "from raidtop.cli import bench\n"
        "parser = argparse.ArgumentParser(prog='raidtop')\n"
        "bench.register(parser.add_subparsers(dest='command'))\n"
        "args = parser.parse_args(sys.argv[1:])\n"
        "sys.exit(args.func(args))\n"
    )
    environ = dict(os.environ, FAKE_FIO_TICK="0.3", FAKE_FIO_STARTED=str(started))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "bench", "rand-read", "--target", str(env), "--runtime", "100", "--size", "1M"],
        cwd=Path(__file__).resolve().parents[2], env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # Wait until the fake fio is ready for SIGINT, as a user's Ctrl-C would find it.
        for _ in range(400):
            if started.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert started.exists(), proc.stderr.read() if proc.poll() is not None else "fio never started"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "[partial: cancelled" in out
    runs = BenchHistory(tmp_path / "data" / "raidtop" / "bench.sqlite").runs()
    assert len(runs) == 1 and runs[0].partial
