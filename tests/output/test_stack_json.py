"""The stack and the full-filesystem sentences in the snapshot JSON."""

from __future__ import annotations

import json
from pathlib import Path

from raidtop.collect.source import Root
from raidtop.collect.stack.poller import StackPoller
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray
from raidtop.output.snapshot_json import snapshot_json

ROOT = Root(Path(__file__).resolve().parents[1] / "data" / "stack" / "md-lvm")


def test_a_degraded_sample_carries_its_stack_and_sentence_into_json() -> None:
    snap = Snapshot(time=1.0, interval_s=1.0, arrays=(MdArray("md0", "raid1", "clean", "degraded", raid_disks=2),))
    snap = StackPoller(usage={"/": (100, 99)}.get).apply(ROOT, snap)
    doc = json.loads(json.dumps(snapshot_json(snap)))
    assert doc["full_filesystems"] == ["md0 is degraded and its filesystem / (ext4 on vg0-root) is 99 % full"]
    assert doc["stack"]["dm-0"]["usage"] == {"size_bytes": 100, "used_bytes": 99, "avail_bytes": None}
    assert doc["stack"]["md0"]["holders"] == ["dm-0", "dm-1"] and doc["stack"]["md0"]["under"] == ["sda2", "sdb1"]


def test_a_healthy_sample_has_no_stack() -> None:
    doc = snapshot_json(Snapshot(time=1.0, interval_s=1.0))
    assert doc["stack"] is None and doc["full_filesystems"] == []
