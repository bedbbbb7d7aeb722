"""The lab registry: written before each resource exists, atomically, and trusted only after checking.

A crash at any step of creation must leave enough on record for teardown to
find everything; a registry that lists devices no longer attached (after a
reboot) or numbers now used by someone else must be handled without
touching what is not the lab's.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from raidtop.actions.lab.registry import (
    ArrayRecord,
    ImageRecord,
    LabRegistry,
    RegistryDamaged,
    state_from_json,
    state_to_json,
)
from raidtop.actions.lab.spec import LabSpec
from raidtop.actions.lab.registry import lab_registry_path
from raidtop.actions.lab_registry import is_lab_device

from tests.actions.lab.lab_tree import LabTree


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


@pytest.fixture
def tree(tmp_path: Path) -> LabTree:
    return LabTree(tmp_path)


def test_each_creation_step_is_on_record_before_it_happens(tree: LabTree):
    seen = {}

    def look(step: str) -> None:
        # What a crash right now would leave behind.
        state = tree.lab.state()
        image = state.images[-1] if state.images else None
        seen[step] = (
            image.state if image else None,
            image.loop if image else None,
            Path(image.path).exists() if image else None,
            image.inode is not None if image else None,
        )

    tree.lab.new_disk("md100", 16 << 20, on_step=look)
    # Recorded before the file existed; inode and "attaching" recorded before losetup;
    # after losetup but before the registry write, the loop name is still unknown.
    assert seen["image-recorded"] == ("planned", None, False, False)
    assert seen["loop-attaching"] == ("attaching", None, True, True)
    assert seen["loop-attached"] == ("attaching", None, True, True)
    final = tree.lab.state().images[0]
    assert (final.state, final.loop) == ("attached", "loop20")


def test_create_records_the_array_under_its_name_before_mdadm_runs(tree: LabTree):
    states = {}

    def look(step: str) -> None:
        array = tree.lab.state().arrays[0]
        states.setdefault(step, array.state)

    record = tree.lab.create(LabSpec("raid1", 2, 16 << 20), on_step=look)
    assert states["array-recorded"] == "creating" and states["array-creating"] == "creating"
    assert states["array-created"] == "creating"  # mdadm has returned; the crash window teardown must cover
    assert record.state == "active" and record.name == "md100"
    create = tree.runner.ran("mdadm")[0]
    assert create[:4] == ["mdadm", "--create", "/dev/md100", "--run"] and create[-2:] == ["/dev/loop20", "/dev/loop21"]


def test_a_crash_between_losetup_and_the_registry_write_is_cleaned_by_path_and_inode(tree: LabTree):
    class Crash(BaseException):
        pass

    def crash(step: str) -> None:
        if step == "loop-attached":
            raise Crash

    with pytest.raises(Crash):
        tree.lab.new_disk("md100", 16 << 20, on_step=crash)
    image = tree.lab.state().images[0]
    assert (image.state, image.loop) == ("attaching", None)
    # Another loop device holds a file of the same name elsewhere: not the lab's.
    tree.loop("loop5", "/elsewhere/md100-0.img")
    report = tree.lab.teardown()
    assert tree.runner.ran("losetup")[-1] == ["losetup", "-d", "/dev/loop20"]
    assert ["losetup", "-d", "/dev/loop5"] not in tree.runner.commands
    assert report.clean and not Path(image.path).exists()
    assert tree.lab.state().empty


def test_a_registry_listing_devices_no_longer_attached_is_cleaned_up(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    # A reboot: no md100, no loop devices; the image files are still there.
    for loop in loops:
        tree.detach(loop)
    md = tree.root / "sys" / "block" / "md100"
    (md / "md").rename(tree.root / "md-gone")
    views = tree.lab.views()
    assert not views[0].running and views[0].gone_loops == tuple(loops)
    report = tree.lab.teardown()
    assert report.clean
    assert "md100 was not running" in report.gone
    assert f"{loops[0]} was already detached" in report.gone
    assert not tree.runner.ran("mdadm") and not tree.runner.ran("losetup")
    assert list((tree.lab_dir / "images").iterdir()) == []
    assert tree.lab.state().empty


def test_teardown_leaves_a_reused_loop_number_alone(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    (tree.root / "sys" / "block" / "md100" / "md").rename(tree.root / "md-gone")
    tree.loop(loops[0], "/home/someone/vm.img")
    report = tree.lab.teardown()
    assert ["losetup", "-d", f"/dev/{loops[0]}"] not in tree.runner.commands
    assert ["losetup", "-d", f"/dev/{loops[1]}"] in tree.runner.commands
    assert any(f"{loops[0]} now holds /home/someone/vm.img" in line for line in report.gone)


def test_teardown_leaves_an_array_that_now_holds_a_real_disk(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    tree.sys.disk("sdb", major=8)
    tree.sys.hold("sdb", "md100")
    report = tree.lab.teardown()
    assert not tree.runner.ran("mdadm")
    assert any("md100 left running: it holds sdb" in line for line in report.kept)
    # Its disks stay too: they are in use by the array that was left running.
    assert not tree.runner.ran("losetup")
    assert tree.lab.state().array("md100") is not None and len(tree.lab.state().images) == 2
    assert not report.clean and all(Path(tree.lab.state().image_on_loop(loop).path).exists() for loop in loops)


def test_teardown_stops_then_detaches_then_deletes_in_that_order(tree: LabTree):
    loops = tree.lab_raid("md100", "raid5", 3)
    report = tree.lab.teardown()
    order = [c[0] + " " + c[1] for c in tree.runner.commands]
    assert order == ["mdadm --stop"] + ["losetup -d"] * 3
    assert report.clean and tree.lab.state().empty
    logged = [e.command for e in tree.log.read("lab")]
    assert logged[-1].startswith("rm -f ") and f"losetup -d /dev/{loops[0]}" in logged
    # The torn-down array's timeline is kept in the history.
    assert [name for name, _level, _events in tree.lab.store.timelines()] == ["md100"]


def test_a_damaged_registry_is_reported_not_treated_as_empty(tree: LabTree):
    tree.lab.registry.path.write_text('{"images": [{"path": 3')
    with pytest.raises(RegistryDamaged, match="registry.json is damaged \\(it is not JSON\\)"):
        tree.lab.teardown()
    assert tree.runner.commands == []


def test_a_failed_write_keeps_the_old_registry_whole(tree: LabTree, monkeypatch):
    tree.image("md100", 0, "loop3")
    before = tree.lab.registry.path.read_text()

    def broken_rename(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", broken_rename)
    with pytest.raises(OSError), tree.lab.registry.edit() as draft:
        draft.drop_image(str(tree.lab_dir / "images" / "md100-0.img"))
    monkeypatch.undo()
    assert tree.lab.registry.path.read_text() == before
    assert [p.name for p in tree.lab_dir.iterdir() if p.name.startswith(".registry.")] == []


def test_concurrent_edits_lose_nothing(tmp_path: Path):
    registry = LabRegistry(tmp_path / "lab")

    def add(start: int) -> None:
        for index in range(start, start + 20):
            with LabRegistry(tmp_path / "lab").edit() as draft:
                draft.put_image(ImageRecord(f"/lab/{index}.img", 1, float(index)))

    threads = [threading.Thread(target=add, args=(n * 100,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(registry.read().images) == 80


def test_the_document_round_trips_and_the_fio_guards_trust_only_it(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    doc = json.loads(tree.lab.registry.path.read_text())
    assert state_from_json(doc) == tree.lab.state()
    assert state_to_json(tree.lab.state()) == doc
    # No second list of devices to trust: the guards read the images and arrays themselves.
    assert set(doc) == {"version", "images", "arrays"}
    path = tree.lab.registry.path
    assert is_lab_device(loops[0], path=path, root=tree.root)
    assert is_lab_device("md100", path=path, root=tree.root)
    tree.sys.disk("sdb", major=8)
    tree.sys.hold("sdb", "md100")
    assert not is_lab_device("md100", path=path, root=tree.root)


def test_the_fio_guards_find_the_lab_registry_by_default(tree: LabTree, monkeypatch):
    loops = tree.lab_raid("md100", "raid1", 2)
    monkeypatch.setenv("RAIDTOP_LAB_DIR", str(tree.lab_dir))
    assert lab_registry_path() == tree.lab.registry.path
    assert is_lab_device(loops[0], root=tree.root) and is_lab_device("md100", root=tree.root)


def test_an_unknown_image_state_is_damage(tmp_path: Path):
    with pytest.raises(ValueError, match=r"images\[0\].state is not one of planned"):
        state_from_json({"images": [{"path": "/x.img", "size_bytes": 1, "created": 1.0, "state": "melted"}]})
    assert state_from_json(
        {
            "arrays": [
                {
                    "name": "md100",
                    "level": "raid1",
                    "raid_disks": 2,
                    "disk_size_bytes": 1,
                    "created": 1.0,
                    "future_field": 1,
                }
            ]
        }
    ).arrays[0] == ArrayRecord("md100", "raid1", 2, 1, 1.0)


def test_teardown_unmounts_what_the_lab_mounted_before_stopping(tree: LabTree):
    tree.lab_raid("md100", "raid1", 2)
    with tree.lab.registry.edit() as draft:
        draft.update_array("md100", mount_point="/mnt/lab", mounted=True)
    number = (tree.root / "sys" / "block" / "md100" / "dev").read_text().strip()
    tree.sys.mount(number, "/mnt/lab", "/dev/md100")
    report = tree.lab.teardown()
    assert [c[:2] for c in tree.runner.commands[:2]] == [["umount", "/mnt/lab"], ["mdadm", "--stop"]]
    assert report.done[:2] == ("unmounted /mnt/lab", "stopped md100")


def test_a_mount_point_now_used_by_something_else_is_not_unmounted(tree: LabTree):
    tree.lab_raid("md100", "raid1", 2)
    with tree.lab.registry.edit() as draft:
        draft.update_array("md100", mount_point="/mnt/lab", mounted=True)
    tree.sys.mount("8:1", "/mnt/lab", "/dev/sda1")
    report = tree.lab.teardown()
    assert not tree.runner.ran("umount")
    assert "/mnt/lab was not mounted from md100" in report.gone
