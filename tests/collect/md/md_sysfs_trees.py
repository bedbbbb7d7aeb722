"""md trees written under a test root in a 6.1 kernel's formats, and the JSON expected of an array.

Shared by test_md_sysfs.py and test_md_read.py.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "md"


def member(name, slot, roles, errors=None):
    return {"name": name, "slot": slot, "roles": roles, "errors": errors}


def array(
    name,
    level,
    state,
    health,
    raid_disks,
    degraded,
    size_kib,
    chunk_kib,
    layout,
    metadata,
    bitmap,
    members,
    sync,
    mismatch_cnt,
    sync_speed_min,
    sync_speed_max,
    stripe_cache_size,
):
    return dict(locals())


IN = ["in_sync"]


def write_tree(root: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    """Write ``files`` (path -> content, a newline added as sysfs does) and symlinks."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if content.endswith("\n") or content == "" else content + "\n")
    for rel, target in (links or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
    return root


def md_tree(name: str, attrs: dict[str, str], members: dict[str, dict[str, str]], size_sectors: str | None = None):
    """Files for one /sys/block/<name> directory."""
    base = f"sys/block/{name}"
    files = {f"{base}/md/{k}": v for k, v in attrs.items()}
    links = {}
    for dev, dev_attrs in members.items():
        for k, v in dev_attrs.items():
            files[f"{base}/md/dev-{dev}/{k}"] = v
        links[f"{base}/md/dev-{dev}/block"] = f"../../../../../devices/virtual/block/{dev}"
        slot = dev_attrs.get("slot", "none")
        if slot != "none":
            links[f"{base}/md/rd{slot}"] = f"dev-{dev}"
    if size_sectors is not None:
        files[f"{base}/size"] = size_sectors
    return files, links


# A raid5 of three loop devices rebuilding onto loop2, in the formats of a 6.1 kernel
# (mdadm --create --level=5 starts with sync_action "recover").
RECOVERING_RAID5 = {
    "level": "raid5",
    "array_state": "active",
    "raid_disks": "3",
    "chunk_size": "524288",
    "layout": "2",
    "degraded": "1",
    "sync_action": "recover",
    "last_sync_action": "recover",
    "sync_completed": "32768 / 129024",
    "sync_speed": "16384",
    "sync_speed_min": "1000 (system)",
    "sync_speed_max": "200000 (system)",
    "mismatch_cnt": "0",
    "stripe_cache_size": "256",
    "consistency_policy": "bitmap",
    "component_size": "64512",
    "metadata_version": "1.2",
    "reshape_position": "none",
    "resync_start": "none",
    "uuid": "0a1b2c3d-0000-4000-8000-000000000001",
    "bitmap/location": "+8",
    "bitmap/chunksize": "67108864",
}


RECOVERING_MEMBERS = {
    "loop0": {"state": "in_sync", "slot": "0", "errors": "0"},
    "loop1": {"state": "in_sync,write_mostly", "slot": "1", "errors": "3"},
    "loop2": {"state": "spare", "slot": "2", "errors": "0"},
}


def recovering_root(tmp_path: Path) -> Path:
    files, links = md_tree("md127", RECOVERING_RAID5, RECOVERING_MEMBERS, size_sectors="258048")
    files["proc/sys/dev/raid/speed_limit_min"] = "1000"
    files["proc/sys/dev/raid/speed_limit_max"] = "200000"
    # Write-only attributes are listed but cannot be read; a directory stands in
    # for one here, and the reader must never try to open it.
    root = write_tree(tmp_path / "root", files, links)
    (root / "sys/block/md127/md/new_dev").mkdir()
    (root / "sys/block/md127/md/bitmap/bitmap_set_bits").mkdir()
    return root
