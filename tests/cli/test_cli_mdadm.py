"""`raidtop snapshot --json` carries mdadm's fields per md array, or why there are none."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.cli.test_cli import raidtop

DATA = Path(__file__).resolve().parent.parent / "data"


def test_a_root_tree_says_mdadm_is_not_run_for_it(tmp_path):
    root = tmp_path / "r"
    (root / "proc").mkdir(parents=True)
    shutil.copy(DATA / "md" / "mdstat" / "nicolargo-pymdstat__mdstat.05", root / "proc" / "mdstat")
    result = raidtop("snapshot", "--json", "--interval", "0.05", "--root", str(root))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["mdadm"]["md127"]["unavailable"].startswith("not the live system")
    assert doc["mdadm"]["md127"]["uuid"] is None and doc["stack"] is not None  # md127 is degraded: the stack was read
