"""The lab guard's own functions (raidtop.actions.lab.guard) at the cases the verb tests pass by.

test_lab_guard.py drives every verb through LabMemberActions; here the guard
is called directly on the same fixture trees: a member listed only in
``slaves``, a registry entry naming a file outside the images folder, an
array still being created, the images a checked array maps, the member
checks, and a root given as a plain path string.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from raidtop.actions.lab.guard import check_array, check_member, kernel_members, lab_image_of, refusal_for_device
from raidtop.actions.lab.records import ArrayRecord, LabState
from raidtop.actions.member_actions import ActionRefused

from tests.actions.lab.lab_tree import LabTree


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


@pytest.fixture
def tree(tmp_path: Path) -> LabTree:
    return LabTree(tmp_path)


def test_kernel_members_reads_slaves_and_md_entries_from_a_path_root(tree: LabTree):
    tree.lab_raid("md100", "raid1", 2)
    # A device the kernel lists only as a slave (no md/dev-* entry yet) is a member too.
    tree.sys.disk("sdz", major=8)
    tree.sys.hold("sdz", "md100")
    assert kernel_members("md100", str(tree.root)) == ("loop3", "loop4", "sdz")
    assert kernel_members("md7", str(tree.root)) is None


def test_a_real_disk_listed_only_as_a_slave_refuses_the_array(tree: LabTree):
    tree.lab_raid("md100", "raid1", 2)
    tree.sys.disk("sdz", major=8)
    tree.sys.hold("sdz", "md100")
    with pytest.raises(ActionRefused, match="md100 has member sdz, which is not a loop device"):
        check_array("md100", tree.lab.state(), str(tree.root))


def test_a_checked_array_maps_each_member_to_its_image(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    state = tree.lab.state()
    checked = check_array("md100", state, str(tree.root))
    assert checked.record.name == "md100" and checked.members == tuple(loops)
    assert checked.images == {loop: state.image_on_loop(loop) for loop in loops}
    assert all(image is not None for image in checked.images.values())


def test_an_array_still_being_created_is_refused(tree: LabTree):
    tree.lab_raid("md100", "raid1", 2)
    state = tree.lab.state()
    creating = replace(state, arrays=tuple(replace(a, state="creating") for a in state.arrays))
    with pytest.raises(ActionRefused, match="md100 is still being created"):
        check_array("md100", creating, tree.root)


def test_a_registry_image_outside_the_images_folder_is_not_the_labs(tree: LabTree, tmp_path: Path):
    # The registry names a file outside the lab's folder, and loop5 really is attached
    # to it with the recorded inode: the registry is not trusted about where images live.
    outside = tmp_path / "lab" / "elsewhere.img"
    outside.write_bytes(b"")
    tree.loop("loop5", str(outside))
    image = tree.image("md100", 0, "loop3")
    state = tree.lab.state()
    planted = replace(image, path=str(outside), loop="loop5", inode=outside.stat().st_ino)
    state = replace(state, images=state.images + (planted,))
    assert lab_image_of("loop5", state, tree.root) is None
    assert refusal_for_device("loop5", "md100", state, tree.root) == (
        f"md100 has member loop5, which the registry says holds {outside}, outside the lab's images folder; "
        "the lab acts only on its own loop devices"
    )
    assert lab_image_of("loop3", state, tree.root) == image
    assert refusal_for_device("loop3", "md100", state, tree.root) is None


def test_an_image_without_a_recorded_inode_is_not_trusted(tree: LabTree):
    image = tree.image("md100", 0, "loop3")
    state = tree.lab.state()
    state = replace(state, images=tuple(replace(i, inode=None) for i in state.images))
    assert lab_image_of("loop3", state, tree.root) is None
    assert lab_image_of("loop3", tree.lab.state(), tree.root) == image


def test_a_detached_loop_is_not_the_labs(tree: LabTree):
    tree.image("md100", 0, "loop3")
    tree.detach("loop3")
    assert lab_image_of("loop3", tree.lab.state(), tree.root) is None
    assert "a loop device raidtop's lab did not create" in refusal_for_device(
        "loop3", "md100", tree.lab.state(), tree.root
    )


def test_check_member_needs_a_member_of_the_array(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    checked = check_array("md100", tree.lab.state(), tree.root)
    assert check_member(checked, loops[0], "fail") == loops[0]
    assert check_member(checked, f"/dev/{loops[1]}", "remove") == loops[1]
    for missing in (None, ""):
        with pytest.raises(ActionRefused, match="^fail needs a member: highlight one of md100's disks$"):
            check_member(checked, missing, "fail")
    with pytest.raises(ActionRefused, match="^loop9 is not a member of md100$"):
        check_member(checked, "/dev/loop9", "fail")


def test_an_unregistered_or_stopped_array_is_refused(tree: LabTree):
    state = LabState(
        arrays=(ArrayRecord("md100", "raid1", 2, 16 << 20, 1.0, "active"),), images_dir=str(tree.lab_dir / "images")
    )
    with pytest.raises(ActionRefused, match="md100 is not running"):
        check_array("md100", state, tree.root)
    with pytest.raises(ActionRefused, match="md5 was not created by raidtop's lab"):
        check_array("md5", state, tree.root)
