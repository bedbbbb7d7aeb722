"""``raidtop smart`` end to end, as a real process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "smartctl"
FAILING = DATA / "derived" / "sata-failing-ST3500418AS.json"
OK = DATA / "corpus" / "WDC_WD20EFRX-68EUZN0_17.json"
NVME = DATA / "corpus" / "nvme-null-INTEL_SSDPE2KX010T8-nvme1.json"


def raidtop(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "raidtop", "smart", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO,
    )


def test_saved_files_are_judged_and_a_bad_one_is_one_line(tmp_path) -> None:
    not_json = tmp_path / "notes.txt"
    not_json.write_text("smartctl 7.3 2022-02-28 r5338\n=== START OF INFORMATION SECTION ===\n")
    other_json = tmp_path / "other.json"
    other_json.write_text('{"fio version": "3.33"}')
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sentinel = OK.read_bytes()
    result = raidtop("--from-json", str(OK), str(not_json), str(other_json), str(fifo), str(NVME))
    assert result.returncode == 1, result.stderr
    errors = result.stderr.strip().splitlines()
    assert errors == [
        f"raidtop: {not_json}: not JSON",
        f"raidtop: {other_json}: not smartctl JSON output (no \"smartctl\" object)",
        f"raidtop: {fifo}: is a FIFO, not a regular file; not read",
    ]
    assert f"{OK}: sdb: OK  WDC WD20EFRX-68EUZN0" in result.stdout and f"{NVME}: nvme1: OK" in result.stdout
    assert "Traceback" not in result.stderr
    assert OK.read_bytes() == sentinel and fifo.exists()


def test_a_failing_disk_exits_3_and_json_has_the_documented_shape(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    result = raidtop("--from-json", str(FAILING), str(OK), str(bad), "--json")
    assert result.returncode == 3
    doc = json.loads(result.stdout)
    assert set(doc) == {"disks", "errors"}
    assert doc["errors"] == [{"file": str(bad), "error": "not JSON"}]
    failing, ok = doc["disks"]
    assert (failing["file"], ok["file"]) == (str(FAILING), str(OK))
    assert failing["verdict"] == "failing" and failing["pending_sectors"] == 8 and failing["passed"] is False
    assert {"severity": "failing", "text": "8 pending sectors", "rule": "ata-pending"} in failing["reasons"]
    assert ok["verdict"] == "ok" and ok["reasons"] == []
    assert ok["unrecoverable_error_bits"] == 1e14


def test_many_files_naming_the_same_disk_say_which_file_each_line_is(tmp_path) -> None:
    # Saved from two machines, both disks are "sdb": without the file the lines cannot be told apart.
    other = tmp_path / "host2-sdb.json"
    shutil.copy(FAILING, other)
    doc = json.loads(other.read_text())
    doc["device"]["name"] = "/dev/sdb"
    other.write_text(json.dumps(doc))
    result = raidtop("--from-json", str(OK), str(other))
    lines = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert lines == [
        f"{OK}: sdb: OK  WDC WD20EFRX-68EUZN0 serial REDACTED",
        f"{other}: sdb: FAILING  ST3500418AS serial REDACTED",
    ]


def test_escape_sequences_from_a_drive_never_reach_the_terminal() -> None:
    result = raidtop("--from-json", str(DATA / "derived" / "messages-KINGSTON_SA400M8120G.json"))
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout and "SA400M8120G" in result.stdout


def test_usage_errors_exit_2_in_one_line() -> None:
    for args in (["../../etc/passwd"], ["zram0", "--from-json", str(OK)], ["/dev/nonexistent0"]):
        result = raidtop(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.skipif(
    os.geteuid() != 0
    or not Path("/sys/block/vda").exists()
    or not shutil.which("smartctl", path=os.environ.get("PATH", "") + ":/usr/sbin"),
    reason="needs root, smartctl and /dev/vda",
)
def test_the_real_smartctl_on_a_virtio_disk() -> None:
    result = raidtop("/dev/vda", "--json")
    assert result.returncode == 0, result.stderr
    (vda,) = json.loads(result.stdout)["disks"]
    assert vda["disk"] == "vda" and vda["state"] == "unsupported" and vda["verdict"] == "unknown"
    plain = raidtop()
    assert plain.returncode == 0 and "vda: unsupported" in plain.stdout
