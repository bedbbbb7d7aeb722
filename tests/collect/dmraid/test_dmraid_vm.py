"""The VM capture: an LVM raid1 leg failed with the dm error target and refreshed, beside lvs; the real stack."""

from __future__ import annotations

import ast
import itertools
import json
import os
from pathlib import Path

from raidtop.collect.bounded_run import Ran
from raidtop.collect.dmraid.reader import DmRaidReader
from raidtop.collect.dmraid.status import parse_status
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.collect.stack.tree import read_stack

DATA = Path(__file__).resolve().parents[2] / "data"
VM = DATA / "dmraid" / "vm"
STEPS = ("0-healthy", "1-leg-error", "2-refreshed")


def _lvs(step: str) -> dict:
    # The capture ran lvs with 2>&1: lvm's WARNING line sits inside the JSON; it is not part of it.
    text = "\n".join(line for line in (VM / f"lvs.{step}.json").read_text().splitlines() if "WARNING:" not in line)
    doc = json.loads(text)
    return next(lv for lv in doc["report"][0]["lv"] if lv["lv_name"] == "mirror")


def test_raidtop_and_lvs_agree_at_each_step(tmp_path) -> None:
    (tmp_path / "sys/module/dm_raid").mkdir(parents=True)
    feed = iter((VM / f"status.{step}").read_bytes() for step in STEPS)
    clock = itertools.count(1000, 5)
    sampler = Sampler(tmp_path, clock=lambda: float(next(clock)))
    sampler.dm_raid = DmRaidReader(run=lambda argv: Ran(0, next(feed), b""))
    for step in STEPS:
        snap = sampler.sample()
        (array,) = snap.arrays
        lvs = _lvs(step)
        # lvs' health word is empty when whole; "refresh needed" while the kernel marks the leg D.
        assert (array.health == "ok") == (lvs["lv_health_status"] == "")
        assert array.sync is None and lvs["raid_sync_action"] == "idle" and lvs["copy_percent"] == "100.00"
        if step == "1-leg-error":
            assert lvs["lv_health_status"] == "refresh needed"
            assert array.status == "U_" and array.members[1].is_faulty
            assert [(e.event, e.member) for e in snap.events] == [
                ("Fail", "vgr-mirror_rimage_1"),
                ("DegradedArray", None),
            ]
        if step == "2-refreshed":
            assert [e.event for e in snap.events] == ["SpareActive"]


def test_every_other_target_is_skipped() -> None:
    arrays, notes = parse_status((VM / "dmsetup-status-all.0").read_text())
    assert [a.name for a in arrays] == ["vgr-mirror"] and notes == []


def tree_from_dump(base: Path, dump: Path = DATA / "stack" / "vm-sysfs.txt", mountinfo: str = "") -> None:
    """Rebuild the guest's sysfs from the dump: links, dev, size, dm files, holders, slaves, md/."""
    rows = []
    for line in dump.read_text().splitlines():
        head, _, rest = line.partition(" [")
        name, link, dev, size, _part, _start, dm_name, dm_uuid = head.split(" ")
        holders_text, _, tail = rest.partition("] ")
        slaves_text, _, md = tail.rpartition(" ")
        rows.append(
            (
                name,
                link,
                dev,
                size,
                dm_name,
                dm_uuid,
                ast.literal_eval("[" + holders_text + "]"),
                ast.literal_eval(slaves_text),
                md == "True",
            )
        )
    for name, link, dev, size, dm_name, dm_uuid, *_ in rows:
        d = base / "sys/class/block" / link
        d = Path(os.path.normpath(d))
        (d / "holders").mkdir(parents=True)
        (d / "slaves").mkdir()
        (d / "dev").write_text(dev + "\n")
        (d / "size").write_text(size + "\n")
        if dm_name != "None":
            (d / "dm").mkdir()
            (d / "dm/name").write_text(dm_name + "\n")
            (d / "dm/uuid").write_text(dm_uuid + "\n")
        (base / "sys/class/block").mkdir(parents=True, exist_ok=True)
        (base / "sys/class/block" / name).symlink_to(link)
    for _name, link, _dev, _size, _n, _u, holders, slaves, md in rows:
        d = Path(os.path.normpath(base / "sys/class/block" / link))
        if md:
            (d / "md").mkdir()
        for h in holders:
            (d / "holders" / h).symlink_to(f"../../{h}")
        for s in slaves:
            (d / "slaves" / s).symlink_to(f"../../{s}")
    (base / "proc/self").mkdir(parents=True)
    (base / "proc/self/mountinfo").write_text(mountinfo)


def _lsblk(node: dict) -> tuple:
    kind = "raid" if node["type"].startswith("raid") else node["type"]
    return (node["kname"], kind, node["size"], tuple(sorted(_lsblk(c) for c in node.get("children", ()))))


def _ours(stack, name: str) -> tuple:
    node = stack.nodes[name]
    return (node.name, node.kind, node.size_bytes, tuple(sorted(_ours(stack, h) for h in node.holders)))


def test_the_guest_tree_reads_as_the_guest_lsblk_read_it(tmp_path) -> None:
    tree_from_dump(tmp_path)
    stack = read_stack(Root(tmp_path))
    oracle = json.loads((DATA / "stack" / "vm-lsblk.json").read_text())["blockdevices"]
    assert sorted(_ours(stack, r) for r in stack.roots()) == sorted(_lsblk(d) for d in oracle)
    assert stack.nodes["dm-0"].label == "vgmd-root" and stack.nodes["dm-0"].under == ("md0",)


def test_ext4_on_lvm_on_md_mounted_in_the_guest(tmp_path) -> None:
    vm = DATA / "dmraid" / "vm-rebuild"
    tree_from_dump(tmp_path, vm / "sysfs.txt", (vm / "mountinfo").read_text())
    stack = read_stack(Root(tmp_path), usage={"/mnt/root": (26464256, 20986880, 3129344)}.get)  # the guest's df -B1
    oracle = json.loads((vm / "lsblk.json").read_text())["blockdevices"]
    assert sorted(_ours(stack, r) for r in stack.roots()) == sorted(_lsblk(d) for d in oracle)
    root_lv = stack.nodes["dm-0"]
    assert (root_lv.label, root_lv.fstype, root_lv.mountpoints, root_lv.under) == (
        "vgmd-root",
        "ext4",
        ("/mnt/root",),
        ("md0",),
    )
    assert root_lv.usage.df_pct == 88  # what the guest's df printed
