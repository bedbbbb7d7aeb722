"""mkfs alignment hints from each level's chunk size and data disks.

The arrays come from prometheus/procfs's sysfs tree (tests/data/md/roots); the
expected values are worked out here from the raw ``chunk_size`` bytes and
``raid_disks``, not from raidtop's parsed model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.actions.alignment import alignment_for, alignment_hint, data_disks, near_copies
from raidtop.collect.md.sysfs import read_md_sysfs

PROCFS_ROOT = Path(__file__).resolve().parents[1] / "data" / "md" / "roots" / "prometheus-procfs"


def raw(array: str, attr: str) -> str:
    return (PROCFS_ROOT / "sys" / "block" / array / "md" / attr).read_text().split()[0]


@pytest.mark.parametrize(
    ("array", "level", "parity_or_copies"),
    [("md0", "raid0", 0), ("md4", "raid4", 1), ("md5", "raid5", 1), ("md6", "raid6", 2), ("md8", "raid5", 1)],
)
def test_striped_levels_against_the_kernels_chunk_size(array, level, parity_or_copies):
    arrays = {a.name: a for a in read_md_sysfs(PROCFS_ROOT)[0]}
    chunk_bytes = int(raw(array, "chunk_size"))
    disks = int(raw(array, "raid_disks"))  # md8 reads "11 (10)" mid-reshape: the new count
    hint = alignment_hint(arrays[array])
    assert hint.level == level
    expected_data = disks - parity_or_copies
    assert hint.data_disks == expected_data
    assert hint.xfs_su_kib * 1024 == chunk_bytes
    assert hint.xfs_sw == expected_data
    assert hint.ext4_stride * 4096 == chunk_bytes
    assert hint.ext4_stripe_width == hint.ext4_stride * expected_data
    assert hint.optimal_io_kib * 1024 == chunk_bytes * expected_data
    assert hint.xfs_command == f"mkfs.xfs -d su={chunk_bytes // 1024}k,sw={expected_data} /dev/{array}"
    assert hint.ext4_command == (
        f"mkfs.ext4 -b 4096 -E stride={chunk_bytes // 4096},"
        f"stripe_width={chunk_bytes // 4096 * expected_data} /dev/{array}"
    )


def test_raid10_without_a_layout_assumes_mdadms_default():
    arrays = {a.name: a for a in read_md_sysfs(PROCFS_ROOT)[0]}
    hint = alignment_hint(arrays["md10"])  # 4 disks, 512 KiB chunks, no layout file in the tree
    assert hint.data_disks == 2 and hint.xfs_sw == 2 and hint.ext4_stripe_width == 256
    assert "assuming mdadm's default near=2" in hint.notes[0]


def test_raid1_has_nothing_to_align():
    arrays = {a.name: a for a in read_md_sysfs(PROCFS_ROOT)[0]}
    hint = alignment_hint(arrays["md1"])  # chunk_size 0
    assert hint.data_disks == 1
    assert hint.ext4_command is None and hint.xfs_command is None
    assert "no stride or stripe options needed" in hint.notes[-1]


@pytest.mark.parametrize(
    ("layout", "disks", "expected"),
    [
        ("near=2", 4, 2),
        ("near=3", 6, 2),
        ("near=2", 3, 3),  # not a multiple: the kernel's raid10_nr_stripes uses all disks
        ("far=2", 4, 4),  # far copies live elsewhere on each disk: the stripe spans all
        ("offset=2", 4, 4),
        ("near=2,far=2", 8, 4),
    ],
)
def test_raid10_data_disks_follow_the_kernels_optimal_io_size(layout, disks, expected):
    count, _how = data_disks("raid10", disks, layout)
    assert count == expected
    assert alignment_for("md0", "raid10", 512, disks, layout).xfs_sw == expected


def test_near_copies_parsing():
    assert near_copies("near=2") == 2 and near_copies("far=3") == 1 and near_copies(None) is None


def test_a_chunk_smaller_than_an_ext4_block_gives_only_xfs():
    hint = alignment_for("md0", "raid0", 2, 4)
    assert hint.ext4_command is None and hint.xfs_command == "mkfs.xfs -d su=2k,sw=4 /dev/md0"
