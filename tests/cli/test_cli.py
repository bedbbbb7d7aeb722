"""The command line: --version, --help, and `snapshot --json` on fixture roots."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from raidtop import __version__

DATA = Path(__file__).resolve().parent.parent / "data"


def raidtop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "raidtop", *args], capture_output=True, text=True, timeout=60)


def test_version_and_help():
    assert raidtop("--version").stdout.strip() == f"raidtop {__version__}"
    help_text = raidtop("--help").stdout
    assert "--root" in help_text and "snapshot" in help_text


def test_snapshot_json_on_a_recorded_root():
    result = raidtop("snapshot", "--json", "--interval", "0.05", "--root", str(DATA / "ui" / "root1"))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["version"] == 2
    assert {"disks", "cpus", "vm", "sensors", "notes", "arrays", "raid_speed_limit", "events"} <= doc.keys()
    sda = next(d for d in doc["disks"] if d["name"] == "sda")
    # The same tree twice: nothing moved, so every rate is zero and every average undefined.
    assert sda["r_s"] == 0.0 and sda["r_await_ms"] is None
    assert doc["cpus"][0]["cpu"] == "all"
    assert any(s["label"] == "Core 0" and s["value"] == 54.0 for s in doc["sensors"])
    assert doc["arrays"] == [] and doc["md_absence"].startswith("No md driver")


def test_snapshot_json_from_mdstat_alone(tmp_path):
    root = tmp_path / "r"
    (root / "proc").mkdir(parents=True)
    shutil.copy(DATA / "md" / "mdstat" / "nicolargo-pymdstat__mdstat.05", root / "proc" / "mdstat")
    result = raidtop("snapshot", "--json", "--interval", "0.05", "--root", str(root))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    (array,) = doc["arrays"]
    assert array["name"] == "md127" and array["health"] == "degraded"
    assert array["sync"]["action"] == "recover" and array["sync"]["percent"] == 12.65  # from the counts, not 12.6
    assert array["sync"]["eta_s_kernel"] == 7650.0
    assert [e["event"] for e in doc["events"]] == ["DegradedArray"]
    # Every file but mdstat is missing: each says so instead of failing.
    assert any("/proc/diskstats" in note for note in doc["notes"])


def test_bad_root_is_a_clear_error(tmp_path):
    result = raidtop("snapshot", "--json", "--root", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert "not a directory" in result.stderr


def test_replay_of_a_future_format_is_refused(tmp_path):
    import lzma

    path = tmp_path / "future.xz"
    path.write_bytes(lzma.compress(json.dumps({"format": "raidtop-recording", "version": 7}).encode() + b"\n"))
    result = raidtop("--replay", str(path))
    assert result.returncode == 2
    assert "newer raidtop" in result.stderr


def test_record_writes_samples(tmp_path):
    out = tmp_path / "r.xz"
    result = raidtop(
        "record", "-o", str(out), "--interval", "0.1", "--duration", "0.35", "--root", str(DATA / "ui" / "root1")
    )
    assert result.returncode == 0, result.stderr
    assert "recorded" in result.stderr
    from raidtop.collect.recording.roots import read_recording

    assert len(read_recording(out).frames) >= 3
