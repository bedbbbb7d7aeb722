"""The ssh fleet judges an array from ``raidtop snapshot --json`` the way the exporter does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from raidtop.fleet.ssh import arrays_from_snapshot
from tests.exporter import procs

AUTO_READ_ONLY = """Personalities : [raid1]
md0 : active (auto-read-only) raid1 sdb1[1] sda1[0]
      1046528 blocks super 1.2 [2/2] [UU]

md1 : active raid1 sdd1[1] sdc1[0]
      1046528 blocks super 1.2 [2/2] [UU]

unused devices: <none>
"""


def test_an_auto_read_only_array_is_read_only_in_the_fleet_not_active(tmp_path) -> None:
    # mdstat alone (no sysfs) is where the state word says "active" and only the flag tells.
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "mdstat").write_text(AUTO_READ_ONLY)
    done = subprocess.run(
        [sys.executable, "-m", "raidtop", "--root", str(tmp_path), "snapshot", "--json", "--interval", "0.1"],
        cwd=procs.REPO,
        env=dict(os.environ, PYTHONPATH=str(procs.REPO)),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    doc = json.loads(done.stdout)
    flags = {a["name"]: (a["state"], a["read_only"], a["auto_read_only"]) for a in doc["arrays"]}
    assert flags == {"md0": ("active", False, True), "md1": ("active", False, False)}
    states = {a.name: a.state for a in arrays_from_snapshot(doc)}
    assert states == {"md0": "read-only", "md1": "active"}


def test_a_snapshot_from_an_older_raidtop_without_the_flags_still_reads() -> None:
    doc = {"arrays": [{"name": "md0", "level": "raid1", "state": "active", "health": "ok", "members": []}]}
    assert [a.state for a in arrays_from_snapshot(doc)] == ["active"]
