"""The lab touches nothing but its own loop devices: guard tests on fixture trees.

Every destructive verb is tried on arrays with a real disk (sd, nvme), a
foreign loop device, a reused loop number or no lab record; each must be
refused with the reason, and no command may run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.actions.lab.members import LAB_VERBS, LabMemberActions, next_speed_limit
from raidtop.actions.member_actions import ActionRefused

from tests.actions.lab.lab_tree import LabTree


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    """Nothing may reach the user's real action log or lab directory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


@pytest.fixture
def tree(tmp_path: Path) -> LabTree:
    return LabTree(tmp_path)


def actions_for(tree: LabTree) -> LabMemberActions:
    return LabMemberActions(tree.lab, cache_s=0, live_only=False)


def refusal(actions: LabMemberActions, verb: str, array: str, member: str | None) -> str:
    with pytest.raises(ActionRefused) as caught:
        actions.command(verb, array, member)
    with pytest.raises(ActionRefused) as caught_run:
        actions.run(verb, array, member)
    assert str(caught_run.value) == str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("real_disk", ["sdb", "nvme0n1"])
def test_an_array_with_a_real_disk_is_refused_for_every_verb(tree: LabTree, real_disk: str):
    loops = ["loop3", "loop4"]
    for index, loop in enumerate(loops):
        tree.image("md100", index, loop)
    # The registry believes md100 is the lab's; the kernel says a real disk is in it.
    tree.md("md100", "raid5", {"loop3": ("in_sync", "0"), "loop4": ("in_sync", "1"), real_disk: ("in_sync", "2")})
    actions = actions_for(tree)
    for verb in LAB_VERBS:
        for member in ("loop3", real_disk):
            reason = refusal(actions, verb, "md100", member)
            assert f"md100 has member {real_disk}, which is not a loop device (a real disk)" in reason, (verb, reason)
    assert tree.runner.commands == []


def test_a_real_disk_that_is_only_a_spare_still_refuses_everything(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    tree.sys.disk("sdc", major=8)
    md = tree.root / "sys" / "block" / "md100" / "md" / "dev-sdc"
    md.mkdir()
    (md / "state").write_text("spare\n")
    (md / "slot").write_text("none\n")
    actions = actions_for(tree)
    for verb in LAB_VERBS:
        assert "has member sdc, which is not a loop device" in refusal(actions, verb, "md100", loops[0])
    assert tree.runner.commands == []


def test_a_foreign_loop_device_in_a_lab_array_is_refused(tree: LabTree):
    tree.image("md100", 0, "loop3")
    tree.loop("loop9", "/home/someone/vm.img")
    tree.md("md100", "raid1", {"loop3": ("in_sync", "0"), "loop9": ("in_sync", "1")})
    actions = actions_for(tree)
    for verb in LAB_VERBS:
        assert "has member loop9, a loop device raidtop's lab did not create" in refusal(
            actions, verb, "md100", "loop3"
        )


def test_a_reused_loop_number_is_not_the_labs(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    # After a reboot loop4 holds someone else's file: same number, other backing file.
    tree.loop(loops[1], "/srv/other.img")
    reason = refusal(actions_for(tree), "fail", "md100", loops[0])
    assert f"has member {loops[1]}, now attached to /srv/other.img, not to the lab's image" in reason


def test_a_recreated_image_with_the_same_path_is_not_the_labs(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    image = tree.lab.state().image_on_loop(loops[0])
    # Same path, new file (made before the old one goes, so the inode cannot be reused).
    Path(image.path + ".new").write_bytes(b"")
    Path(image.path + ".new").replace(image.path)
    reason = refusal(actions_for(tree), "check", "md100", None)
    assert f"has member {loops[0]}, attached to {image.path}, but that file is not the image the lab made" in reason


def test_an_array_the_lab_did_not_create_is_refused(tree: LabTree):
    tree.image("md0", 0, "loop3")
    tree.md("md0", "raid1", {"loop3": ("in_sync", "0")}, registered=False)
    actions = actions_for(tree)
    assert not actions.handles("md0")
    for verb in LAB_VERBS:
        assert "md0 was not created by raidtop's lab" in refusal(actions, verb, "md0", "loop3")


def test_a_registered_array_that_is_no_longer_running_is_refused(tree: LabTree):
    tree.image("md100", 0, "loop3")
    with tree.lab.registry.edit() as draft:
        from raidtop.actions.lab.registry import ArrayRecord

        draft.put_array(ArrayRecord("md100", "raid1", 2, 16 << 20, 1.0, "active"))
    assert "md100 is not running" in refusal(actions_for(tree), "fail", "md100", "loop3")


def test_raid0_has_nothing_to_fail_or_rebuild(tree: LabTree):
    loops = tree.lab_raid("md100", "raid0", 2)
    actions = actions_for(tree)
    for verb in LAB_VERBS:
        assert "raid0 has no redundancy" in refusal(actions, verb, "md100", loops[0])


def test_under_a_fixture_root_the_live_only_actions_handle_nothing(tree: LabTree):
    tree.lab_raid("md100", "raid1", 2)
    live_only = LabMemberActions(tree.lab, cache_s=0)
    assert not live_only.handles("md100")
    with pytest.raises(ActionRefused, match="live system only"):
        live_only.run("check", "md100", None)
    assert actions_for(tree).handles("md100")


# ---------------------------------------------------------------- what is allowed, exactly


def test_commands_on_an_all_lab_array_are_exact(tree: LabTree):
    loops = tree.lab_raid("md100", "raid5", 3)
    actions = actions_for(tree)
    assert actions.command("fail", "md100", loops[1]) == f"mdadm /dev/md100 --fail /dev/{loops[1]}"
    assert actions.command("check", "md100", None) == "echo check > /sys/block/md100/md/sync_action"
    assert actions.command("repair", "/dev/md100", None) == "echo repair > /sys/block/md100/md/sync_action"
    assert actions.command("speed_limit", "md100", None) == "echo 1000 > /sys/block/md100/md/sync_speed_max"
    image = tree.lab_dir / "images" / "md100-3.img"
    assert actions.command("add", "md100", None) == (
        f"truncate -s {16 << 20} {image} && mdadm /dev/md100 --add $(losetup --find --show {image})"
    )
    assert "--add-spare" in actions.command("add_spare", "md100", None)


def test_remove_needs_a_faulty_or_spare_member(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    actions = actions_for(tree)
    assert "active member of md100: fail it first" in refusal(actions, "remove", "md100", loops[0])
    (tree.root / "sys" / "block" / "md100" / "md" / f"dev-{loops[0]}" / "state").write_text("faulty\n")
    assert actions.command("remove", "md100", loops[0]) == f"mdadm /dev/md100 --remove /dev/{loops[0]}"
    assert "already faulty" in refusal(actions, "fail", "md100", loops[0])


def test_replace_needs_a_spare_and_names_it(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    actions = actions_for(tree)
    assert "has no spare to replace" in refusal(actions, "replace", "md100", loops[0])
    tree.image("md100", 2, "loop9")
    md = tree.root / "sys" / "block" / "md100" / "md" / "dev-loop9"
    md.mkdir()
    (md / "state").write_text("spare\n")
    (md / "slot").write_text("none\n")
    tree.sys.hold("loop9", "md100")
    assert (
        actions.command("replace", "md100", loops[0]) == f"mdadm /dev/md100 --replace /dev/{loops[0]} --with /dev/loop9"
    )


def test_re_add_picks_the_disk_removed_last(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    actions = actions_for(tree)
    assert "no removed lab disk to re-add" in refusal(actions, "re_add", "md100", None)
    # loop9 is the lab's, was made for md100, and is attached but not a member.
    tree.image("md100", 2, "loop9")
    tree.lab.record_event("md100", "removed", "loop9")
    assert actions.command("re_add", "md100", None) == "mdadm /dev/md100 --re-add /dev/loop9"
    assert "still in md100: remove it first" in refusal(actions, "re_add", "md100", loops[0])


def test_check_is_refused_while_a_sync_runs(tree: LabTree):
    tree.lab_raid("md100", "raid5", 3)
    (tree.root / "sys" / "block" / "md100" / "md" / "sync_action").write_text("recover\n")
    assert "md100 is busy (recover)" in refusal(actions_for(tree), "check", "md100", None)


def test_running_a_verb_runs_exactly_the_command_shown(tree: LabTree):
    loops = tree.lab_raid("md100", "raid5", 3)
    actions = actions_for(tree)
    shown = actions.command("fail", "md100", loops[2])
    assert actions.run("fail", "md100", loops[2]) == shown
    assert tree.runner.commands == [["mdadm", "/dev/md100", "--fail", f"/dev/{loops[2]}"]]
    timeline = tree.lab.state().array("md100").timeline
    assert [(e.kind, e.member) for e in timeline if e.kind == "failed"] == [("failed", loops[2])]
    # sysfs writes go to the root the lab reads (here the fixture), never elsewhere.
    actions.run("check", "md100", None)
    assert (tree.root / "sys" / "block" / "md100" / "md" / "sync_action").read_text() == "check\n"
    assert tree.log.read("lab")[-1].command == "echo check > /sys/block/md100/md/sync_action"


def test_a_failed_add_discards_the_fresh_disk(tree: LabTree):
    tree.lab_raid("md100", "raid5", 3)
    tree.runner.fail_on.add("mdadm")
    with pytest.raises(ActionRefused, match="failed on purpose"):
        actions_for(tree).run("add", "md100", None)
    # The fresh image was made and attached, then detached and deleted again.
    assert len(tree.runner.ran("losetup")) == 2
    assert not (tree.lab_dir / "images" / "md100-3.img").exists()
    assert tree.lab.state().image(str(tree.lab_dir / "images" / "md100-3.img")) is None


def test_speed_limit_cycles_through_the_steps():
    assert next_speed_limit("200000 (system)") == 1000
    assert next_speed_limit("1000 (local)") == 10000
    assert next_speed_limit("10000 (local)") == 50000
    assert next_speed_limit("50000 (local)") is None
    assert next_speed_limit("7000 (local)") == 10000
    assert next_speed_limit(None) == 1000
