"""``raidtop --replay`` and ``raidtop record`` from the command line, end to end.

Every refusal is one sentence on stderr and a non-zero exit, never a
traceback; hostile inputs (a FIFO, a device, a folder named ``[``, an
interval of NaN) run in a child process with a time limit, so a regression
shows as a failure instead of a hung suite. Writing never touches what is
already there: sentinels on a file, a symlink's target and a real loop
device are checked after each refusal.
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from raidtop.collect.recording.roots import read_recording
from raidtop.collect.recording.replayer import Replayer

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
SENTINEL = b"raidtop sentinel: must survive\n"


def raidtop(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "raidtop", *args], capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env
    )


def assert_one_sentence(result: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("raidtop: "), result.stderr
    for word in words:
        assert word in lines[0]


# --------------------------------------------------------------- replay


def test_replay_of_a_fifo_a_device_and_a_directory_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "rec.xz"
    os.mkfifo(fifo)
    assert_one_sentence(raidtop("--replay", str(fifo)), 2, "FIFO")
    assert_one_sentence(raidtop("--replay", "/dev/zero"), 2, "character device")
    assert_one_sentence(raidtop("--replay", str(tmp_path)), 2, "directory")
    assert_one_sentence(raidtop("--replay", str(tmp_path / "missing.xz")), 2, "No such file")


def test_replay_of_something_else_is_refused_in_one_sentence(tmp_path):
    folder = tmp_path / "[" / "[/]"
    folder.mkdir(parents=True)
    (folder / "text.xz").write_text("hello\n")
    assert_one_sentence(raidtop("--replay", str(folder / "text.xz")), 2, "not a raidtop recording", "[/]")
    (folder / "escape\x1b]0;x\x07.xz").write_bytes(lzma.compress(b"{}\n"))
    result = raidtop("--replay", str(folder / "escape\x1b]0;x\x07.xz"))
    assert_one_sentence(result, 2, "not a raidtop recording")
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr


def test_the_command_line_reads_the_recording_once_and_hands_it_to_the_app(tmp_path, monkeypatch):
    from raidtop import __main__ as cli
    from raidtop import safeio
    from raidtop.app.raidtop_app import RaidtopApp
    from tests.collect.recording.test_recording import TREES, record

    path = tmp_path / "rec.xz"
    record(path, TREES, frames=3)
    opened, started = [], []
    real_read = safeio.read_bounded

    def counting_read(name, *args, **kwargs):
        opened.append(Path(name))
        return real_read(name, *args, **kwargs)

    monkeypatch.setattr("raidtop.collect.recording.read.read_bounded", counting_read)
    monkeypatch.setattr(RaidtopApp, "run", lambda app: started.append(app))
    # The dashboard starts only on a terminal; the app's run is replaced, so pretend one.
    for stream in ("stdin", "stdout"):
        monkeypatch.setattr(getattr(sys, stream), "isatty", lambda: True)
    assert cli.main(["--replay", str(path)]) == 0
    assert opened == [path]
    (app,) = started
    assert len(app.player.replayer.recording.frames) == 3


# --------------------------------------------------------------- record


@pytest.mark.parametrize(
    "flags", [["--interval", "nan"], ["--interval", "inf"], ["--interval", "0.1", "--duration", "nan"]]
)
def test_record_refuses_a_timing_that_would_loop_forever(tmp_path, flags):
    out = tmp_path / "r.xz"
    result = raidtop("record", "-o", str(out), *flags, "--root", str(DATA / "ui" / "root1"), timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert not out.exists()


def test_the_record_loop_itself_refuses_nan(tmp_path):
    # The parser may refuse NaN first; the loop must not depend on it.
    from raidtop.cli import record

    args = argparse.Namespace(output=tmp_path / "r.xz", interval=math.nan, duration=None, root=DATA / "ui" / "root1")
    assert record.run(args) == 2
    assert not args.output.exists()


def test_record_never_writes_over_a_file_or_through_a_link(tmp_path):
    existing = tmp_path / "precious.db"
    existing.write_bytes(SENTINEL)
    link = tmp_path / "link.xz"
    link.symlink_to(existing)
    dangling = tmp_path / "dangling.xz"
    dangling.symlink_to(tmp_path / "created-through-link")
    root = str(DATA / "ui" / "root1")
    for target in (existing, link, dangling):
        result = raidtop("record", "-o", str(target), "--interval", "0.1", "--duration", "0.1", "--root", root)
        assert_one_sentence(result, 1, "cannot write")
    assert existing.read_bytes() == SENTINEL
    assert not (tmp_path / "created-through-link").exists()


def test_record_never_writes_to_a_block_device(loop_device):
    with open(loop_device, "r+b") as handle:
        handle.write(SENTINEL)
    result = raidtop(
        "record", "-o", loop_device, "--interval", "0.1", "--duration", "0.1", "--root", str(DATA / "ui" / "root1")
    )
    assert_one_sentence(result, 1, "already exists")
    with open(loop_device, "rb") as handle:
        assert handle.read(len(SENTINEL)) == SENTINEL


def test_a_real_record_run_replays_every_sample(tmp_path):
    out = tmp_path / "live.xz"
    result = raidtop("record", "-o", str(out), "--interval", "0.2", "--duration", "1.5")
    assert result.returncode == 0, result.stderr
    assert "recorded" in result.stderr
    recording = read_recording(out)
    assert recording.notes == [] and len(recording.frames) >= 5
    assert recording.frames[0].full and any(key.startswith("f:/proc/diskstats") for key in recording.frames[0].delta)
    assert json.loads(json.dumps(recording.header))["format"] == "raidtop-recording"
    replayer = Replayer(recording)
    snapshots = [replayer.snapshot_at(i) for i in range(len(recording.frames))]
    assert [s.time for s in snapshots] == [f.time for f in recording.frames]


# --------------------------------------------------------------- the bundled recording by name


def test_builtin_names_the_shipped_rebuild_for_every_command_that_replays(tmp_path):
    from raidtop.cli import options
    from raidtop.demo.bundled import BUNDLED_REBUILD

    # The name, not a path into a clone: the same words work after pipx install.
    assert options.recording("builtin:rebuild") == BUNDLED_REBUILD
    assert BUNDLED_REBUILD.is_relative_to(REPO / "raidtop")  # package data, shipped in the wheel
    assert options.recording("rec.xz") == Path("rec.xz")
    (tmp_path / "textfile").mkdir()
    served = raidtop("exporter", "--replay", "builtin:rebuild", "--textfile", str(tmp_path / "textfile"), "--once")
    assert served.returncode == 0, served.stderr
    assert 'raidtop_md_info{array="md6",' in (tmp_path / "textfile" / "raidtop.prom").read_text()


def test_an_unknown_builtin_name_lists_the_ones_that_exist():
    assert_one_sentence(raidtop("--replay", "builtin:nope"), 2, "'nope'", "builtin:rebuild")
    result = raidtop("exporter", "--replay", "builtin:rebuil", "--once")
    assert result.returncode == 2 and "builtin:rebuild" in result.stderr and "Traceback" not in result.stderr
