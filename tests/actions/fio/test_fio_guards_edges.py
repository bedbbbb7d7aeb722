"""The fio guard at its boundaries (raidtop.actions.fio.guards).

test_fio_guards.py covers each refusal on fixture trees; here: every size
unit and the 1 MiB minimum exactly, an override naming the device by a
path (a real block-device node made for the test, a path that does not
exist, a regular file), a raw device target found through the fixture's
/sys/dev/block. Expected values are written out by hand.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from raidtop.actions.fio import guards
from raidtop.actions.fio.guards import (
    MIN_SIZE,
    TargetRefused,
    as_root,
    check_target,
    device_in_use,
    parse_size,
    same_device,
)

from tests.actions.fio_sysfs import FakeSys

file_bytes = guards.test_file_bytes  # imported by its own name, pytest would collect it as a test


@pytest.fixture
def sysfs(tmp_path: Path) -> FakeSys:
    return FakeSys(tmp_path / "root")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1", 1),
        ("1b", 1),
        ("2k", 2048),
        ("2KiB", 2048),
        ("3m", 3 * 1048576),
        (" 3 MB ", 3 * 1048576),
        ("1g", 1073741824),
        ("1t", 1099511627776),
        ("1T", 1099511627776),
        ("1p", 1125899906842624),
        ("1.5k", 1536),
        ("0.5m", 524288),
    ],
)
def test_every_fio_unit(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "k", "1x", "-1k", "1 k b", "1e3"])
def test_what_is_not_a_size(text):
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


def test_the_minimum_test_file_is_exactly_1_mib():
    assert MIN_SIZE == 1048576
    assert file_bytes(1048576) == 1048576
    assert file_bytes("1M") == 1048576
    assert file_bytes("1024k") == 1048576
    with pytest.raises(
        TargetRefused,
        match=r"^the test-file size must be at least 1M \(a smaller file measures "
        r"the page cache\), not 1048575$",
    ):
        file_bytes(1048575)
    with pytest.raises(TargetRefused, match=r"at least 1M .*, not '1023k'$"):
        file_bytes("1023k")


def test_a_size_that_is_not_one_is_refused_in_words():
    with pytest.raises(TargetRefused, match=r"^the test-file size must look like 512M or 2G, not 'lots'$"):
        file_bytes("lots")


def block_node(tmp_path: Path, name: str, number: str) -> Path:
    major, minor = map(int, number.split(":"))
    node = tmp_path / name
    os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
    return node


def test_an_override_naming_the_device(sysfs: FakeSys, tmp_path: Path):
    root = as_root(sysfs.root)
    number = sysfs.disk("loop3")
    other = sysfs.disk("loop4")
    assert same_device(root, "loop3", "loop3") is True and same_device(root, "loop4", "loop3") is False
    # A path to a block node (as /dev/disk/by-id links are): the device numbers decide, not the name.
    assert same_device(root, str(block_node(tmp_path, "by-id-disk", number)), "loop3") is True
    assert same_device(root, str(block_node(tmp_path, "loop3", other)), "loop3") is False
    # A path that does not exist: its last component names the device.
    assert same_device(root, "/dev/gone/loop3", "loop3") is True
    assert same_device(root, "/dev/gone/loop4", "loop3") is False
    # A path to something that is not a block device never names one.
    (tmp_path / "plain").write_text("")
    assert same_device(root, str(tmp_path / "plain"), "plain") is False


def test_a_raw_device_target_is_found_through_sys_dev_block(sysfs: FakeSys, tmp_path: Path):
    node = block_node(tmp_path, "disk", sysfs.disk("loop3"))
    target = check_target(node, allow_raw_device="loop3", root=sysfs.root, registry=tmp_path / "none.json")
    assert (target.kind, target.device, target.override, target.path) == ("device", "loop3", True, str(node))
    unknown = block_node(tmp_path, "unknown", "7:250")
    with pytest.raises(TargetRefused, match=r"the kernel does not list this block device in /sys/dev/block$"):
        check_target(unknown, allow_raw_device="loop3", root=sysfs.root, registry=tmp_path / "none.json")


def test_a_swap_partition_counts_for_its_disk_and_swap_files_do_not(sysfs: FakeSys):
    sysfs.disk("sdb", major=8)
    sysfs.partition("sdb", "sdb2")
    (sysfs.root / "proc" / "swaps").write_text(
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
        "/swapfile                               file\t\t1048572\t\t0\t\t-2\n"
        "/dev/sdb2                               partition\t1048572\t\t0\t\t-3\n"
    )
    assert device_in_use(sysfs.root, "sdb") == "sdb (partition sdb2) is in use as swap"
    (sysfs.root / "proc" / "swaps").write_text(
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sdb file 1 0 -2\nbroken\n"
    )
    assert device_in_use(sysfs.root, "sdb") is None


def test_a_partition_of_an_md_member_disk(sysfs: FakeSys):
    sysfs.disk("sdc", major=8)
    sysfs.partition("sdc", "sdc1")
    sysfs.mdstat(
        "Personalities : [raid1]\nmd9 : active raid1 sdc1[1] sdd1[0]\n      1024 blocks [2/2] [UU]\n\n"
        "unused devices: <none>\n"
    )
    assert device_in_use(sysfs.root, "sdc") == "sdc (partition sdc1) is a member of md array md9 (/proc/mdstat)"
    assert device_in_use(sysfs.root, "sdc1") == "sdc1 is a member of md array md9 (/proc/mdstat)"


def test_swap_paths_under_a_fixture_root_are_not_resolved_on_the_host(sysfs: FakeSys, tmp_path: Path):
    # A recorded /proc/swaps names paths of the recorded machine: a link of the same
    # name on this host must not decide what they are.
    sysfs.disk("sdb", major=8)
    (tmp_path / "sdb").write_text("")
    (tmp_path / "by-label").symlink_to(tmp_path / "sdb")
    sysfs.swap(str(tmp_path / "by-label"))
    assert device_in_use(sysfs.root, "sdb") is None


def test_a_whole_disk_used_as_swap_is_named_as_the_disk(sysfs: FakeSys):
    sysfs.disk("sdb", major=8)
    sysfs.partition("sdb", "sdb1")
    sysfs.swap("/dev/sdb")
    assert device_in_use(sysfs.root, "sdb") == "sdb is in use as swap"


def test_an_override_by_path_under_a_root_given_as_text(sysfs: FakeSys, tmp_path: Path):
    from raidtop.actions.fio.guards import check_device

    node = block_node(tmp_path, "by-id-disk", sysfs.disk("loop3"))
    target = check_device(
        "/dev/loop3", "loop3", allow_raw_device=str(node), root=str(sysfs.root), registry=tmp_path / "none.json"
    )
    assert target.override and target.device == "loop3"


def test_a_target_path_through_a_non_directory_is_refused_with_the_systems_words(tmp_path: Path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(TargetRefused, match=f"^{tmp_path}/file/x: Not a directory$"):
        check_target(tmp_path / "file" / "x")


def test_a_directory_a_benchmark_holds_is_refused(tmp_path: Path):
    import fcntl

    held = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(TargetRefused, match=f"another raidtop benchmark is running on {tmp_path}"):
            check_target(tmp_path, size="1M")
    finally:
        os.close(held)
    assert check_target(tmp_path, size="1M").kind == "directory"


def test_a_directory_reached_through_a_linked_parent_carries_its_real_path(tmp_path: Path):
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    through = check_target(tmp_path / "link" / "sub", size="1M")
    assert (through.path, through.real_path) == (str(tmp_path / "link" / "sub"), str(tmp_path / "real" / "sub"))
    assert check_target(tmp_path / "real" / "sub", size="1M").real_path is None
