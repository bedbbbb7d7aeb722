"""Guards: which raw devices fio may touch, and the lab registry behind them.

Fixture trees (tests/actions/fio_sysfs.py) stand in for /sys and /proc; the
live tests repeat the important refusals on real loop devices.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from raidtop.actions.fio.guards import TargetRefused, check_device, check_target, device_in_use, parse_size
from raidtop.actions.lab.registry import ImageRecord, RegistryDamaged
from raidtop.actions.lab_registry import is_lab_device

from tests.actions.fio_sysfs import FakeSys
from tests.actions.lab.lab_tree import LabTree


@pytest.fixture
def sysfs(tmp_path: Path) -> FakeSys:
    return FakeSys(tmp_path / "root")


def test_an_idle_device_is_not_in_use(sysfs: FakeSys):
    sysfs.disk("loop3")
    assert device_in_use(sysfs.root, "loop3") is None


def test_a_mounted_device_is_in_use(sysfs: FakeSys):
    number = sysfs.disk("loop3")
    sysfs.mount(number, "/mnt/scratch", "/dev/loop3")
    assert device_in_use(sysfs.root, "loop3") == "loop3 is mounted on /mnt/scratch"


def test_a_mount_found_by_its_source_counts_too(sysfs: FakeSys):
    # btrfs shows an anonymous 0:NN device number; only the source names the device.
    sysfs.disk("loop3")
    sysfs.mount("0:55", "/srv", "/dev/loop3", "btrfs")
    assert device_in_use(sysfs.root, "loop3") == "loop3 is mounted on /srv"


def test_a_disk_with_a_mounted_partition_is_in_use(sysfs: FakeSys):
    sysfs.disk("sdb", major=8)
    number = sysfs.partition("sdb", "sdb2")
    sysfs.mount(number, "/home", "/dev/sdb2")
    assert device_in_use(sysfs.root, "sdb") == "sdb (partition sdb2) is mounted on /home"
    sysfs.partition("sdb", "sdb3")
    # A partition is judged on its own: its mounted sibling does not matter.
    assert device_in_use(sysfs.root, "sdb3") is None


def test_an_md_member_is_in_use_by_sysfs_holders(sysfs: FakeSys):
    sysfs.disk("loop4")
    sysfs.disk("md0", major=9)
    sysfs.hold("loop4", "md0")
    assert device_in_use(sysfs.root, "loop4") == "loop4 is a member of md array md0"


def test_an_md_member_is_in_use_by_proc_mdstat(sysfs: FakeSys):
    sysfs.disk("loop5")
    sysfs.mdstat(
        "Personalities : [raid1]\nmd9 : active raid1 loop5[1] loop6[0]\n"
        "      1024 blocks [2/2] [UU]\n\nunused devices: <none>\n"
    )
    assert device_in_use(sysfs.root, "loop5") == "loop5 is a member of md array md9 (/proc/mdstat)"


def test_a_partition_held_by_device_mapper_is_in_use(sysfs: FakeSys):
    sysfs.disk("sdc", major=8)
    sysfs.partition("sdc", "sdc1")
    sysfs.disk("dm-0", major=253)
    sysfs.hold("sdc1", "dm-0")
    assert device_in_use(sysfs.root, "sdc") == "sdc (partition sdc1) is in use by dm-0"


def test_a_swap_device_is_in_use(sysfs: FakeSys):
    sysfs.disk("zram0", major=252)
    sysfs.swap("/dev/zram0")
    assert device_in_use(sysfs.root, "zram0") == "zram0 is in use as swap"


def test_a_device_in_use_is_refused_even_with_an_override(sysfs: FakeSys):
    number = sysfs.disk("loop3")
    sysfs.mount(number, "/mnt/x", "/dev/loop3")
    with pytest.raises(TargetRefused, match="mounted on /mnt/x"):
        check_device(
            "/dev/loop3", "loop3", allow_raw_device="loop3", root=sysfs.root, registry=sysfs.root / "none.json"
        )


def test_a_raw_device_needs_the_lab_or_an_override_naming_it(sysfs: FakeSys, tmp_path: Path):
    sysfs.disk("loop3")
    registry = tmp_path / "lab.json"
    with pytest.raises(TargetRefused, match="raidtop's lab did not create"):
        check_device("/dev/loop3", "loop3", root=sysfs.root, registry=registry)
    with pytest.raises(TargetRefused, match="the override names loop4"):
        check_device("/dev/loop3", "loop3", allow_raw_device="loop4", root=sysfs.root, registry=registry)
    allowed = check_device("/dev/loop3", "loop3", allow_raw_device="loop3", root=sysfs.root, registry=registry)
    assert (allowed.kind, allowed.device, allowed.override, allowed.lab, allowed.shown_filename) == (
        "device",
        "loop3",
        True,
        False,
        "/dev/loop3",
    )


def test_a_lab_device_needs_no_override(tmp_path: Path):
    tree = LabTree(tmp_path)
    tree.image("md100", 0, "loop3")
    target = check_device("/dev/loop3", "loop3", root=tree.root, registry=tree.lab.registry.path)
    assert target.lab and not target.override


# ---------------------------------------------------------------- lab registry
# The guard trusts only the lab's own registry (real registry state written by
# the lab's code), and only what the kernel confirms: the loop device holds an
# image in the lab's images folder, by path and by inode.


@pytest.fixture
def tree(tmp_path: Path) -> LabTree:
    return LabTree(tmp_path)


def test_a_reused_loop_number_is_not_a_lab_device(tree: LabTree):
    tree.image("md100", 0, "loop3")
    tree.loop("loop3", "/home/someone/vm.img")
    assert not is_lab_device("loop3", path=tree.lab.registry.path, root=tree.root)


def test_an_unlinked_backing_file_still_matches_while_the_kernel_holds_that_inode(tree: LabTree):
    image = tree.image("md100", 0, "loop3")
    tree.loop("loop3", image.path + " (deleted)")
    assert is_lab_device("/dev/loop3", path=tree.lab.registry.path, root=tree.root)


def test_an_entry_without_an_inode_is_not_trusted(tree: LabTree):
    image = tree.image("md100", 0, "loop3")
    with tree.lab.registry.edit() as draft:
        draft.update_image(image.path, inode=None)
    assert not is_lab_device("loop3", path=tree.lab.registry.path, root=tree.root)
    with pytest.raises(TargetRefused, match="raidtop's lab did not create"):
        check_device("/dev/loop3", "loop3", root=tree.root, registry=tree.lab.registry.path)


def test_an_entry_outside_the_images_folder_is_not_trusted_even_with_its_inode(tree: LabTree, tmp_path: Path):
    outside = tmp_path / "someone.img"
    outside.write_bytes(b"someone's data")
    inside_root = tree.root / str(tmp_path).lstrip("/") / "someone.img"
    inside_root.parent.mkdir(parents=True, exist_ok=True)
    inside_root.hardlink_to(outside)  # the fixture root sees the same inode at the same path
    tree.loop("loop3", str(outside))
    with tree.lab.registry.edit() as draft:
        draft.put_image(ImageRecord(str(outside), 14, 1.0, "md100", "attached", outside.stat().st_ino, "loop3"))
    assert not is_lab_device("loop3", path=tree.lab.registry.path, root=tree.root)


def test_an_md_array_is_lab_only_while_all_its_members_are(tree: LabTree):
    tree.lab_raid("md127", "raid1", 2)
    assert is_lab_device("md127", path=tree.lab.registry.path, root=tree.root)
    # Someone added a real disk to the array: no longer a lab array.
    tree.sys.disk("sdz", major=8)
    tree.sys.hold("sdz", "md127")
    assert not is_lab_device("md127", path=tree.lab.registry.path, root=tree.root)


def test_an_md_array_the_registry_does_not_hold_is_not_a_lab_device(tree: LabTree):
    tree.image("md100", 0, "loop3")
    tree.md("md5", "raid1", {"loop3": ("in_sync", "0")}, registered=False)
    assert not is_lab_device("md5", path=tree.lab.registry.path, root=tree.root)


def test_a_damaged_registry_means_no_lab_devices(tree: LabTree):
    tree.image("md100", 0, "loop3")
    path = tree.lab.registry.path
    assert is_lab_device("loop3", path=path, root=tree.root)
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    assert not is_lab_device("loop3", path=path, root=tree.root)
    path.write_text(text.replace('"inode": ', '"inode": "').replace(',\n   "loop"', '",\n   "loop"'))
    with pytest.raises(RegistryDamaged, match=r"images\[0\]\.inode is a string, not a whole number"):
        tree.lab.state()
    assert not is_lab_device("loop3", path=path, root=tree.root)


# ---------------------------------------------------------------- directories


def test_a_directory_target_names_the_test_file_in_raidtops_own_directory(tmp_path: Path):
    target = check_target(tmp_path, size="1M")
    assert (target.kind, target.path, target.test_file) == (
        "directory",
        str(tmp_path),
        str(tmp_path / "raidtop-bench.d" / "raidtop-bench.dat"),
    )
    st = os.stat(tmp_path)
    assert target.identity == (st.st_dev, st.st_ino)
    assert os.listdir(tmp_path) == [], "checking creates nothing"


def test_free_space_is_checked_on_the_directorys_own_filesystem(tmp_path: Path):
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    with pytest.raises(TargetRefused, match=r"not enough free space for a .* test file \(.* free"):
        check_target(tmp_path, size=free + 1)
    assert check_target(tmp_path, size="16M").kind == "directory"


def test_missing_and_odd_targets_are_refused(tmp_path: Path):
    with pytest.raises(TargetRefused, match="does not exist"):
        check_target(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(TargetRefused, match="neither a directory nor a block device"):
        check_target(tmp_path / "file")
    with pytest.raises(TargetRefused, match="no target"):
        check_target("")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_directory_is_refused(tmp_path: Path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(TargetRefused, match="not writable"):
            check_target(tmp_path, size="1M")
    finally:
        tmp_path.chmod(0o700)


def test_sizes_use_fio_units():
    assert parse_size("64M") == 64 * 1024**2
    assert parse_size("1g") == 1024**3
    assert parse_size("512KiB") == 512 * 1024
    assert parse_size("4096") == 4096
    with pytest.raises(ValueError):
        parse_size("big")
