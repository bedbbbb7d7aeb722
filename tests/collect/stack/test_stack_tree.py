"""The storage stack against lsblk's own reading of the same sysfs tree."""

from __future__ import annotations

import json
from pathlib import Path

from raidtop.collect.source import Root
from raidtop.collect.stack.mounts import parse_mountinfo
from raidtop.collect.stack.tree import above, below, read_stack

DATA = Path(__file__).resolve().parents[2] / "data" / "stack"
ROOT = Root(DATA / "md-lvm")
_TYPES = {"disk": "disk", "part": "part", "lvm": "lvm", "crypt": "crypt"}


def _lsblk_tree(node: dict) -> tuple:
    kind = "raid" if node["type"].startswith("raid") else node["type"]
    mounts = tuple(sorted(m for m in node["mountpoints"] if m))
    return (node["kname"], kind, node["size"], mounts, tuple(_lsblk_tree(c) for c in node.get("children", ())))


def _our_tree(stack, name: str) -> tuple:
    node = stack.nodes[name]
    return (
        node.name,
        node.kind,
        node.size_bytes,
        tuple(sorted(node.mountpoints)),
        tuple(_our_tree(stack, h) for h in node.holders),
    )


def test_the_tree_reads_as_lsblk_reads_it() -> None:
    oracle = json.loads((DATA / "lsblk.json").read_text())["blockdevices"]
    stack = read_stack(ROOT)
    assert stack.roots() == sorted(d["kname"] for d in oracle)
    assert sorted(_our_tree(stack, r) for r in stack.roots()) == sorted(_lsblk_tree(d) for d in oracle)


def test_what_sits_on_an_array_up_to_mountpoints() -> None:
    stack = read_stack(ROOT)
    up = [(depth, n.label, n.kind, n.fstype, n.mountpoints) for depth, n in above(stack, "md0")]
    assert up == [
        (0, "md0", "raid", None, ()),
        (1, "vg0-root", "lvm", "ext4", ("/",)),
        (1, "vg0-secret", "lvm", None, ()),
        (2, "secret", "crypt", "xfs", ("/srv/secret files",)),
    ]


def test_what_an_lv_sits_on_down_to_whole_disks() -> None:
    stack = read_stack(ROOT)
    down = [(depth, n.name) for depth, n in below(stack, "dm-2")]
    assert down == [(0, "dm-2"), (1, "dm-1"), (2, "md0"), (3, "sda2"), (4, "sda"), (3, "sdb1"), (4, "sdb")]


def test_partitions_carry_their_start_and_a_bind_mount_is_one_filesystem() -> None:
    stack = read_stack(ROOT)
    assert stack.nodes["md1p2"].start_sectors == 2099201
    assert stack.nodes["md1p1"].mountpoints == ("/data", "/var/www")
    assert stack.nodes["md1p1"].fstype == "ext4"


def test_usage_is_unknown_on_a_fixture_root_unless_given() -> None:
    assert read_stack(ROOT).nodes["dm-0"].usage is None
    stack = read_stack(ROOT, usage=lambda mp: (1000, 960) if mp == "/" else None)
    assert stack.nodes["dm-0"].usage is not None and stack.nodes["dm-0"].usage.used_pct == 96.0
    # Used beyond the size (a racing statvfs) is clamped, never over 100 %.
    stack = read_stack(ROOT, usage=lambda mp: (1000, 5000))
    assert stack.nodes["dm-0"].usage.used_pct == 100.0


def test_bad_mountinfo_lines_are_skipped_and_escapes_undone() -> None:
    text = (
        "garbage\n"
        "36 35 98:0 /mnt1 /mnt2 rw - ext3\n"  # too few fields after the separator
        "37 35 x:y / /a rw - ext4 /dev/x rw\n"
        "38 35 8:3 / /with\\011tab rw - ext4 /dev/sda3 rw\n"
    )
    assert [(m.dev, m.mountpoint) for ms in parse_mountinfo(text).values() for m in ms] == [("8:3", "/with\ttab")]


def test_a_cycle_in_a_hostile_tree_ends(tmp_path) -> None:
    for name, other in (("dm-0", "dm-1"), ("dm-1", "dm-0")):
        base = tmp_path / "sys/devices/virtual/block" / name
        (base / "holders").mkdir(parents=True)
        (base / "slaves").mkdir()
        (base / "holders" / other).symlink_to(f"../../{other}")
        (base / "slaves" / other).symlink_to(f"../../{other}")
        (tmp_path / "sys/class/block").mkdir(parents=True, exist_ok=True)
        (tmp_path / "sys/class/block" / name).symlink_to(f"../../devices/virtual/block/{name}")
    stack = read_stack(Root(tmp_path))
    assert [n.name for _, n in above(stack, "dm-0")] == ["dm-0", "dm-1"]
    assert "storage stack" in " ".join(stack.notes)  # no mountinfo: said, not raised


def test_the_real_host_reads_without_error() -> None:
    stack = read_stack(Root("/"))
    assert stack.nodes and all(n.size_bytes is None or n.size_bytes >= 0 for n in stack.nodes.values())
