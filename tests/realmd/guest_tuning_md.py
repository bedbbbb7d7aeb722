"""Run inside the VM: change md speed limits and stripe_cache_size through raidtop's tuning code.

Writes tuning.json into $RESULTS: for each phase, the limit in force and the
sync progress rate the kernel reported (sync_completed over time).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import TuningSession
from raidtop.collect.md.read import read_md

RESULTS = Path(os.environ["RESULTS"])


def completed_kib(md: str) -> int | None:
    """Sync progress as raidtop reads it (mdstat's fine-grained count)."""
    array = next((a for a in read_md("/").arrays if a.name == md), None)
    return None if array is None or array.sync is None else array.sync.done_kib


def rate_over(md: str, seconds: float) -> float | None:
    """KiB/s the sync progressed over ``seconds`` (None if it finished meanwhile)."""
    start, t0 = completed_kib(md), time.monotonic()
    time.sleep(seconds)
    end, t1 = completed_kib(md), time.monotonic()
    if start is None or end is None:
        return None
    return (end - start) / (t1 - t0)


def loops(count: int, mib: int) -> list[str]:
    devices = []
    Path("/tmp/tuning-disks").mkdir(exist_ok=True)
    for i in range(count):
        image = f"/tmp/tuning-disks/d{i}.img"
        subprocess.run(["truncate", "-s", f"{mib}M", image], check=True)
        devices.append(
            subprocess.run(
                ["losetup", "--find", "--show", image], check=True, capture_output=True, text=True
            ).stdout.strip()
        )
    return devices


def create(md: str, level: str, devices: list[str]) -> None:
    subprocess.run(
        [
            "mdadm",
            "--create",
            f"/dev/{md}",
            "--run",
            f"--level={level}",
            "--metadata=1.2",
            f"--raid-devices={len(devices)}",
            *devices,
        ],
        input="yes\n" * 4,
        text=True,
        check=True,
        capture_output=True,
    )


def main() -> None:
    session = TuningSession("/", log=ActionLog(RESULTS / "actions.log"))
    out: dict = {"phases": []}
    # A slow global ceiling first, so the resync is still running when we measure.
    out["global"] = session.set("raid", "speed_limit_max", "2000").status
    create("md0", "raid1", loops(2, 160))
    time.sleep(1.0)
    # The fast limit stays well below what TCG can do, so the resync is
    # still running while it is measured.
    for limit, window, settle in (("1000", 3.0, 1.0), ("20000", 1.0, 0.5)):
        change = session.set("md0", "sync_speed_max", limit)
        time.sleep(settle)  # md re-reads the limit at its next throttle check
        out["phases"].append(
            {
                "limit": int(limit),
                "status": change.status,
                "readback": change.readback,
                "rate_kib_s": rate_over("md0", window),
            }
        )
    back = session.set("md0", "sync_speed_max", "system")
    out["back_to_system"] = {"status": back.status, "readback": back.readback}
    subprocess.run(["mdadm", "--stop", "/dev/md0"], capture_output=True)
    create("md1", "raid5", loops(3, 16))
    stripe = session.set("md1", "stripe_cache_size", "4096")
    out["stripe"] = {
        "status": stripe.status,
        "readback": stripe.readback,
        "sysfs": Path("/sys/block/md1/md/stripe_cache_size").read_text().strip(),
    }
    refused = session.set("md1", "stripe_cache_size", "5")
    out["stripe_too_small"] = {"status": refused.status, "message": refused.message}
    out["log_lines"] = len(ActionLog(RESULTS / "actions.log").read())
    (RESULTS / "tuning.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
