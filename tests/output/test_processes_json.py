"""snapshot --json: processes, io_attribution, and io_by_unit on each disk (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.output.snapshot_json import snapshot_json

HOST = Path(__file__).resolve().parent.parent / "data" / "processes" / "host-v1"


def test_json_has_processes_and_units_per_device():
    sampler = Sampler(HOST / "t1")
    sampler.processes.want_processes = True
    sampler.sample()
    sampler.root = Root(HOST / "t2")
    doc = json.loads(json.dumps(snapshot_json(sampler.sample())))
    assert doc["io_attribution"] == {"level": "per device", "source": "cgroup v1 blkio.throttle"}
    top = doc["processes"][0]
    assert (top["comm"], top["unit"], top["user"], top["kernel"]) == ("dd", "raidtop-probe", "root", False)
    loop0 = next(d for d in doc["disks"] if d["name"] == "loop0")
    assert [u["unit"] for u in loop0["io_by_unit"]] == ["/raidtop-probe"] and loop0["io_by_unit"][0]["write_b_s"] > 0


def test_json_without_processes_says_null():
    sampler = Sampler(HOST / "t1")
    doc = snapshot_json(sampler.sample())
    assert doc["processes"] is None and doc["io_attribution"] is None
    assert all(d["io_by_unit"] is None for d in doc["disks"])
