"""Alignment checked against what exists: cases that flag and cases that don't."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from raidtop.collect.source import Root
from raidtop.collect.stack.mounts import parse_mountinfo
from raidtop.collect.stack.tree import read_stack
from raidtop.model.md import MdArray
from raidtop.presentation.stack_alignment import misalignments

ROOT = Root(Path(__file__).resolve().parents[1] / "data" / "stack" / "md-lvm")
MD1 = MdArray("md1", "raid5", "clean", "ok", raid_disks=3, chunk_kib=512, layout="left-symmetric")
MD0 = MdArray("md0", "raid1", "clean", "ok", raid_disks=2)


def test_a_misaligned_partition_flags_and_an_aligned_one_with_the_right_stripe_does_not() -> None:
    stack = read_stack(ROOT)
    found = misalignments(stack, {"md0": MD0, "md1": MD1})
    # md1p2 starts at sector 2099201: 1049600.5 KiB; md1p1 at 2048 (1 MiB) with ext4 stripe=256 (1 MiB): fine.
    assert found == {"md1p2": "start 1049600.5 KiB not on md1's 1024 KiB stripe"}
    assert "md1p1" not in found
    # raid1 does not stripe: the xfs with sunit/swidth on md0's LUKS is not judged.
    assert "dm-2" not in found


def test_a_wrong_ext4_stripe_flags() -> None:
    stack = read_stack(ROOT)
    node = replace(stack.nodes["md1p1"], fs_options="rw,stripe=128")
    stack = replace(stack, nodes={**stack.nodes, "md1p1": node})
    assert misalignments(stack, {"md1": MD1})["md1p1"] == "ext4 stripe=128 (512 KiB) ≠ stripe 1024 KiB"


def test_an_ext4_stripe_that_matches_at_another_block_size_is_not_flagged() -> None:
    # Seen in the VM: mkfs.ext4 on a 16 MiB LV on a 128 KiB stripe made 1 KiB blocks and stripe=128.
    stack = read_stack(ROOT)
    for options, flagged in (("rw,stripe=1024", False), ("rw,stripe=512", False), ("rw,stripe=300", True)):
        node = replace(stack.nodes["md1p1"], fs_options=options)
        got = misalignments(replace(stack, nodes={**stack.nodes, "md1p1": node}), {"md1": MD1})
        assert ("md1p1" in got) is flagged, options


def test_xfs_su_sw_against_the_array() -> None:
    stack = read_stack(ROOT)
    for options, flagged in (("rw,sunit=1024,swidth=2048", False), ("rw,sunit=128,swidth=256", True)):
        node = replace(stack.nodes["md1p1"], fstype="xfs", fs_options=options)
        got = misalignments(replace(stack, nodes={**stack.nodes, "md1p1": node}), {"md1": MD1})
        assert ("md1p1" in got) is flagged


def test_mountinfo_keeps_the_super_options() -> None:
    (mount,) = parse_mountinfo("32 22 259:0 / /data rw,relatime shared:30 - ext4 /dev/md1p1 rw,stripe=256\n")["259:0"]
    assert mount.options == "rw,stripe=256"
