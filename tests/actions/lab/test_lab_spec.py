"""Lab array specs: validation in words, and the exact mdadm and mkfs commands."""

from __future__ import annotations

import pytest

from raidtop.actions.lab.spec import LabSpec, SpecError, level_name, mdadm_create_argv, mkfs_argv, parse_size, validate

MIB = 1 << 20


def test_sizes_read_like_disk_sizes():
    assert parse_size("64M") == 64 * MIB
    assert parse_size("1G") == 1 << 30
    assert parse_size("1.5GiB") == 3 << 29
    assert parse_size("32") == 32 * MIB
    with pytest.raises(SpecError, match="try 64M"):
        parse_size("lots")


def test_levels_by_number_or_name():
    assert level_name(5) == level_name("5") == level_name("raid5") == "raid5"
    with pytest.raises(SpecError, match="not 7"):
        level_name(7)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (LabSpec("raid5", 2, 64 * MIB), "raid5 in the lab takes 3 to 16 disks, not 2"),
        (LabSpec("raid6", 3, 64 * MIB), "raid6 in the lab takes 4 to 16 disks, not 3"),
        (LabSpec("raid1", 2, 4 * MIB), "each disk must be between 16 MiB and 64 GiB, not 4 MiB"),
        (LabSpec("raid0", 2, 64 * MIB, chunk_kib=48), "chunk must be one of"),
        (LabSpec("raid1", 2, 64 * MIB, fs="xfs"), "xfs needs at least 300 MiB"),
        (LabSpec("raid1", 2, 64 * MIB, mount_point="/mnt/x"), "a mount point needs a filesystem"),
        (LabSpec("raid1", 2, 64 * MIB, fs="ext4", mount_point="mnt"), "must be an absolute path"),
    ],
)
def test_what_mdadm_or_mkfs_would_refuse_is_said_first(spec: LabSpec, words: str):
    with pytest.raises(SpecError, match=words.replace("(", r"\(")):
        validate(spec)


def test_raid1_has_no_chunk_and_raid0_no_bitmap():
    assert validate(LabSpec("raid1", 2, 64 * MIB, chunk_kib=64)).chunk_kib is None
    assert validate(LabSpec("raid0", 2, 64 * MIB, bitmap=True)).bitmap is False


def test_the_create_command_is_exact():
    spec = validate(LabSpec("raid5", 4, 64 * MIB, 128, bitmap=True))
    assert mdadm_create_argv(spec, "md100", ["loop3", "loop4", "loop5", "loop6"]) == [
        "mdadm",
        "--create",
        "/dev/md100",
        "--run",
        "--metadata=1.2",
        "--level=5",
        "--raid-devices=4",
        "--chunk=128",
        "--bitmap=internal",
        "/dev/loop3",
        "/dev/loop4",
        "/dev/loop5",
        "/dev/loop6",
    ]
    raid0 = validate(LabSpec("raid0", 2, 64 * MIB))
    assert "--bitmap=none" not in mdadm_create_argv(raid0, "md100", ["loop3", "loop4"])
    raid1 = validate(LabSpec("raid1", 2, 64 * MIB))
    assert mdadm_create_argv(raid1, "md100", ["loop3", "loop4"])[5:] == [
        "--level=1",
        "--raid-devices=2",
        "--bitmap=none",
        "/dev/loop3",
        "/dev/loop4",
    ]


def test_filesystems_are_aligned_to_the_stripe():
    # raid5 on 4 disks, 64 KiB chunks: 3 data chunks per stripe; ext4 counts 4 KiB blocks.
    spec = validate(LabSpec("raid5", 4, 512 * MIB, 64, fs="ext4"))
    assert mkfs_argv(spec, "md100") == [
        "mkfs.ext4",
        "-q",
        "-F",
        "-b",
        "4096",
        "-E",
        "stride=16,stripe_width=48",
        "/dev/md100",
    ]
    xfs = validate(LabSpec("raid6", 6, 512 * MIB, 256, fs="xfs"))
    assert mkfs_argv(xfs, "md100") == ["mkfs.xfs", "-q", "-f", "-d", "su=256k,sw=4", "/dev/md100"]
    raid10 = validate(LabSpec("raid10", 4, 512 * MIB, 64, fs="ext4"))
    assert "stride=16,stripe_width=32" in mkfs_argv(raid10, "md100")
    mirror = validate(LabSpec("raid1", 2, 512 * MIB, fs="ext4"))
    assert mkfs_argv(mirror, "md100") == ["mkfs.ext4", "-q", "-F", "/dev/md100"]
