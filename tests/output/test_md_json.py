"""The md snapshot JSON has exactly issue 3's keys, and the md modules stay free of Textual."""

from __future__ import annotations

import json
import subprocess
import sys

from raidtop.output.md_json import array_to_json, md_to_json, speed_limit_to_json
from raidtop.model.md import MdArray, MdEvent, MdMember, MdSync, RaidSpeedLimit

ARRAY_KEYS = [
    "name",
    "level",
    "state",
    "health",
    "raid_disks",
    "degraded",
    "size_kib",
    "chunk_kib",
    "layout",
    "metadata",
    "bitmap",
    "members",
    "sync",
    "mismatch_cnt",
    "sync_speed_min",
    "sync_speed_max",
    "stripe_cache_size",
]
MEMBER_KEYS = ["name", "slot", "roles", "errors"]
SYNC_KEYS = [
    "action",
    "percent",
    "done_kib",
    "total_kib",
    "speed_kib_s",
    "eta_s_kernel",
    "eta_s",
    "eta_basis",
    "rate_kib_s",
    "stalled",
]


def test_schema_keys_in_order():
    array = MdArray(
        "md0",
        "raid1",
        "clean",
        "ok",
        members=(MdMember("sda", 0, ("in_sync",), 0),),
        sync=MdSync("check", 1.0, 1, 100, 5, 20.0, 19.5),
        uuid="not in the schema",
    )
    doc = md_to_json([array], RaidSpeedLimit(1000, 200000), [MdEvent(1.0, "md0", "CheckStarted")])
    assert list(doc) == ["arrays", "raid_speed_limit", "events"]
    entry = doc["arrays"][0]
    # The snapshot adds the flags and issue 23's clocks.
    assert list(entry) == ARRAY_KEYS + [
        "read_only",
        "auto_read_only",
        "sparse_by_design",
        "degraded_since",
        "degraded_since_basis",
    ]
    assert entry["read_only"] is False and entry["auto_read_only"] is False
    assert list(array_to_json(array)) == ARRAY_KEYS  # issue 3's schema itself is unchanged
    assert list(entry["members"][0]) == MEMBER_KEYS
    assert list(entry["sync"]) == SYNC_KEYS + ["stalled_s", "held_by", "held_limit_kib_s"]
    assert list(array_to_json(array)["sync"]) == SYNC_KEYS
    assert doc["raid_speed_limit"] == {"min": 1000, "max": 200000}
    assert doc["events"] == [{"time": 1.0, "array": "md0", "event": "CheckStarted", "member": None, "expected": False}]
    json.dumps(doc)


def test_unknown_values_are_null():
    entry = array_to_json(MdArray("md9", None, None, "inactive"))
    assert entry["sync"] is None and entry["members"] == []
    assert all(entry[k] is None for k in ARRAY_KEYS if k not in ("name", "health", "members"))
    assert speed_limit_to_json(None) == {"min": None, "max": None}


def test_md_modules_do_not_import_textual():
    modules = ["raidtop.model.md", "raidtop.output.md_json"] + [
        f"raidtop.collect.md.{m}" for m in ("read", "mdstat", "sysfs", "level", "events", "eta", "mdadm_export")
    ]
    code = f"import sys; import {', '.join(modules)}; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
