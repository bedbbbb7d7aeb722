"""``raidtop bench`` end to end with a fake fio on PATH."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.store import RunStore
from raidtop.cli import bench

from tests.fake_fio import make_fake_fio


def build_parser_run(*argv: str) -> int:
    """Run ``raidtop bench`` through the real command line, usage errors included."""
    from raidtop.__main__ import main

    try:
        return main(["bench", *argv])
    except SystemExit as stop:  # argparse's exit, as the console script would see it
        return stop.code


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
    assert [line.split()[0] for line in out] == [
        "seq-read",
        "seq-write",
        "rand-read",
        "rand-write",
        "rand-rw",
        "certification",
    ]
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
    # The same handoff sentence as the screen's confirmation: which argument fio gets instead.
    assert "  Handoff: fio runs the command above with --filename=/proc/self/fd/N/raidtop-bench.dat" in captured.err
    stored = RunStore(tmp_path / "data" / "raidtop" / "bench.sqlite").runs()
    assert [r.label for r in stored] == ["pass 1/2", "pass 2/2"]
    assert stored[0].group_id == stored[1].group_id is not None
    assert os.listdir(env) == []


def test_a_text_run_prints_the_numbers(env: Path, capsys):
    assert run_bench("rand-rw", "--target", str(env), "--runtime", "2", "--size", "1M") == 0
    out = capsys.readouterr().out
    assert "result: read 1,500 IOPS 5.9 MiB/s lat 0.50 ms p99 0.88 ms; write 1,500 IOPS" in out
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


SCRIPT = (
    "import argparse, sys\n"
    "from raidtop.cli import bench\n"
    "parser = argparse.ArgumentParser(prog='raidtop')\n"
    "bench.register(parser.add_subparsers(dest='command'))\n"
    "args = parser.parse_args(sys.argv[1:])\n"
    "sys.exit(args.func(args))\n"
)


def _ignore_sigint() -> None:
    # What a shell does to a background job without job control: SIGINT ignored, inherited.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _fio_children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


@pytest.mark.parametrize(
    ("signum", "inherit_ignored_sigint"),
    [
        (signal.SIGINT, False),
        (signal.SIGINT, True),
        (signal.SIGTERM, False),
        (signal.SIGHUP, False),
    ],
)
def test_a_stop_signal_stops_fio_keeps_the_partial_result_and_exits_128_plus_n(
    env: Path, tmp_path: Path, signum: int, inherit_ignored_sigint: bool
):
    started = tmp_path / "fio-started"
    environ = dict(os.environ, FAKE_FIO_TICK="0.3", FAKE_FIO_STARTED=str(started))
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, "bench", "rand-read", "--target", str(env), "--runtime", "100", "--size", "1M"],
        cwd=Path(__file__).resolve().parents[2],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ignore_sigint if inherit_ignored_sigint else None,
    )
    try:
        # Wait until the fake fio is ready for SIGINT, as a user's Ctrl-C would find it.
        for _ in range(400):
            if started.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert started.exists(), proc.stderr.read() if proc.poll() is not None else "fio never started"
        assert (env / "raidtop-bench.d" / "raidtop-bench.dat").exists(), "fio's file is in raidtop's directory"
        fio_pids = _fio_children(proc.pid)
        assert fio_pids
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, err
    assert "[partial: cancelled" in out
    runs = RunStore(tmp_path / "data" / "raidtop" / "bench.sqlite").runs()
    assert len(runs) == 1 and runs[0].partial
    assert os.listdir(env) == [], "the test file and raidtop's directory are gone"
    assert [e.result for e in ActionLog(tmp_path / "state" / "raidtop" / "actions.log").read("fio")] == [
        runs[0].message
    ]
    assert not [pid for pid in fio_pids if Path(f"/proc/{pid}").exists()], "no fio left"


def test_an_unwritable_history_is_refused_before_fio_runs(env: Path, tmp_path: Path, monkeypatch, capsys):
    started = tmp_path / "fio-started"
    monkeypatch.setenv("FAKE_FIO_STARTED", str(started))
    blocker = tmp_path / "a-file"
    blocker.write_text("sentinel")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    assert run_bench("rand-read", "--target", str(env), "--runtime", "2", "--size", "1M") == 2
    err = capsys.readouterr().err
    assert f"the results history {blocker}/raidtop/bench.sqlite cannot be written" in err
    assert len(err.strip().splitlines()) == 1
    assert not started.exists() and blocker.read_text() == "sentinel" and os.listdir(env) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # Caught when the options are parsed (raidtop.cli.options)...
        (("--size", "0"), "--size: expected a size from 4K to 1P"),
        (("--runtime", "100000"), "--runtime: expected seconds per pass from 1 to 86400"),
        # ...and by the fio guard for what parses but is still no test file.
        (("--size", "512K"), "test-file size must be at least 1M"),
    ],
)
def test_nonsense_jobs_are_refused_in_one_sentence(env: Path, capsys, argv, message):
    assert build_parser_run("rand-read", "--target", str(env), *argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert os.listdir(env) == []


def test_an_oversized_preset_is_skipped_with_a_sentence(env: Path, tmp_path: Path, capsys):
    config = tmp_path / "config" / "raidtop"
    config.mkdir(parents=True)
    (config / "presets.toml").write_text('[preset.huge]\nrw = "read"\nbs = "4k"\niodepth = 1\nnumjobs = 100000\n')
    assert run_bench("huge", "--target", str(env)) == 2
    err = capsys.readouterr().err
    assert "preset 'huge': numjobs must be from 1 to 64, not 100000; skipped" in err
    assert "no preset 'huge'" in err
