"""Run in the guest: raidtop's own sampler on the live kernel while an LVM raid1 leg fails and recovers.

At each step raidtop samples (its dm-raid reader runs the real ``dmsetup``)
and ``lvs`` is asked right after; both land in ``$RESULTS/dmraid.json`` for
the host test to compare. The leg is failed by loading the dm ``error``
target over ``vgr-mirror_rimage_1`` and repaired by restoring its linear
table and ``lvchange --refresh``.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.collect.stack.tree import read_stack

LVM_CONFIG = (
    'devices{obtain_device_list_from_udev=0 external_device_info_source="none" scan_lvs=0} '
    'activation{udev_sync=0 udev_rules=0 monitoring=0}'
)


def sh(*argv: str, text_in: str | None = None) -> str:
    return subprocess.run(argv, input=text_in, capture_output=True, text=True, timeout=60, check=True).stdout


def lvs() -> dict:
    out = sh(
        "lvm",
        "lvs",
        "--config",
        LVM_CONFIG,
        "--reportformat",
        "json",
        "-o",
        "lv_name,lv_health_status,raid_sync_action,raid_mismatch_count,copy_percent",
        "vgr/mirror",
    )
    return json.loads(out)["report"][0]["lv"][0]


def main() -> None:
    sampler = Sampler("/")
    steps: list[dict] = []

    def step(label: str) -> dict:
        snap = sampler.sample()
        arrays = [a for a in snap.arrays if a.source == "dm-raid"]
        row = {
            "label": label,
            "lvs": lvs(),
            "events": [[e.event, e.member] for e in snap.events if e.array == "vgr-mirror"],
            "notes": [n for n in snap.notes if "dm" in n],
            "array": None
            if not arrays
            else {
                "health": arrays[0].health,
                "status": arrays[0].status,
                "faulty": [m.name for m in arrays[0].members if m.is_faulty],
                "sync": None
                if arrays[0].sync is None
                else [arrays[0].sync.action, arrays[0].sync.percent, arrays[0].sync.eta_s],
            },
        }
        steps.append(row)
        return row

    step("healthy")
    leg = "vgr-mirror_rimage_1"
    table = sh("dmsetup", "table", leg).strip()
    size = sh("blockdev", "--getsz", f"/dev/mapper/{leg}").strip()
    sh("dmsetup", "suspend", leg)
    sh("dmsetup", "load", leg, "--table", f"0 {size} error")
    sh("dmsetup", "resume", leg)
    subprocess.run(
        ["dd", "if=/dev/urandom", "of=/dev/mapper/vgr-mirror", "bs=1M", "count=48", "oflag=direct"],
        capture_output=True,
        timeout=120,
    )
    step("leg-error")
    sh("dmsetup", "suspend", leg)
    sh("dmsetup", "load", leg, "--table", table)
    sh("dmsetup", "resume", leg)
    sh("lvm", "lvchange", "--config", LVM_CONFIG, "--refresh", "vgr/mirror")
    for i in range(60):
        row = step(f"recover-{i}")
        if row["array"] and row["array"]["sync"] is None and row["array"]["health"] == "ok":
            break
        time.sleep(2)
    Path(os.environ["RESULTS"], "dmraid.json").write_text(json.dumps(steps, indent=1))
    stack = read_stack(Root("/"))
    Path(os.environ["RESULTS"], "stack.json").write_text(json.dumps({k: asdict(v) for k, v in stack.nodes.items()}))


if __name__ == "__main__":
    main()
