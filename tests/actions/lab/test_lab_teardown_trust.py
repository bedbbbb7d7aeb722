"""Teardown and the bench guard trust a registry entry only when the real files and loop devices agree.

Attacks that once worked: a registry naming a file outside the lab's images
folder (with that file's inode) got it deleted; a registry naming a loop
device someone else attached got it detached; an entry without an inode was
trusted by the fio guard. Each test plants the attack with real files and,
where it needs one, a real loop device it attaches itself, then checks a
sentinel on every file and device the lab must not touch. Each test detaches
exactly the devices it attached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.guards import TargetRefused, check_target
from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.loopdev import loop_backing
from raidtop.actions.lab.registry import ImageRecord
from raidtop.actions.lab.commands import LabCommandFailed
from raidtop.actions.lab_registry import is_lab_device
from raidtop.cli import lab as lab_cli

from tests.actions.lab.lab_tree import LabTree

SIZE = 8 << 20


def sentinel_file(path: Path) -> bytes:
    """A sparse file starting with a value unique to this test; returns that value."""
    value = f"SENTINEL {path} {os.getpid()}\n".encode()
    path.write_bytes(value)
    os.truncate(path, SIZE)
    return value


def holds(path: Path, value: bytes) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(value)) == value


def record(path: Path, loop: str | None = None, state: str = "attached") -> ImageRecord:
    return ImageRecord(str(path), SIZE, 1_700_000_000.0, "md100", state, path.stat().st_ino, loop)


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path / "lab", log=ActionLog(tmp_path / "actions.log"))


@pytest.fixture
def losetup(tmp_path: Path):
    """Attach files outside the lab, as someone else would; detach exactly those afterwards."""
    if os.geteuid() != 0 or shutil.which("losetup") is None or not os.path.exists("/dev/loop-control"):
        pytest.skip("needs root, losetup and the loop driver")
    mine: list[str] = []

    def attach(path: Path) -> str:
        out = subprocess.run(["losetup", "--find", "--show", str(path)], check=True, capture_output=True, text=True)
        mine.append(out.stdout.strip())
        return os.path.basename(mine[-1])

    try:
        yield attach
    finally:
        for device in mine:
            backing = loop_backing(device)
            if backing is not None and backing.path.startswith(str(tmp_path)):
                subprocess.run(["losetup", "-d", device], check=False)


# ---------------------------------------------------------------- files


def test_teardown_never_deletes_a_file_outside_the_images_folder(lab: Lab, tmp_path: Path, capsys):
    victim = tmp_path / "someone" / "data.img"
    victim.parent.mkdir()
    value = sentinel_file(victim)
    with lab.registry.edit() as draft:
        draft.put_image(record(victim, state="attaching"))  # the right inode, the wrong place
    code = lab_cli.main(["--lab-dir", str(lab.lab_dir), "teardown"])
    out = capsys.readouterr().out
    assert holds(victim, value)
    assert code == 1 and f"LEFT: {victim} is not in the lab's images folder {lab.registry.images_dir}" in out
    # Never the lab's: the entry is forgotten, so the next teardown is clean.
    assert lab.state().empty and lab.teardown().clean


def test_teardown_never_follows_a_link_in_the_images_folder(lab: Lab, tmp_path: Path):
    victim = tmp_path / "victim.img"
    value = sentinel_file(victim)
    lab.registry.images_dir.mkdir(parents=True)
    link = lab.registry.images_dir / "md100-0.img"
    link.symlink_to(victim)
    with lab.registry.edit() as draft:
        draft.put_image(record(link, state="attaching"))  # stat follows the link: the victim's inode
    report = lab.teardown()
    assert holds(victim, value) and link.is_symlink()
    assert any("md100-0.img is a symbolic link" in line for line in report.kept) and not report.clean


def test_teardown_refuses_an_images_folder_swapped_for_a_link(lab: Lab, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "md100-0.img"
    value = sentinel_file(victim)
    lab.lab_dir.mkdir()
    lab.registry.images_dir.symlink_to(elsewhere)
    with lab.registry.edit() as draft:
        draft.put_image(record(lab.registry.images_dir / "md100-0.img", state="attaching"))
    report = lab.teardown()
    assert holds(victim, value)
    assert any("cannot be opened safely" in line for line in report.kept) and not report.clean


def test_a_new_disk_is_never_created_through_a_linked_images_folder(tmp_path: Path):
    tree = LabTree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tree.lab_dir / "images").rmdir()
    (tree.lab_dir / "images").symlink_to(elsewhere)
    with pytest.raises(LabCommandFailed, match="symbolic link"):
        tree.lab.new_disk("md100", SIZE)
    assert list(elsewhere.iterdir()) == [] and not tree.runner.ran("losetup")


def test_a_recorded_image_that_is_another_file_now_is_left(lab: Lab, tmp_path: Path):
    lab.registry.images_dir.mkdir(parents=True)
    image = lab.registry.images_dir / "md100-0.img"
    value = sentinel_file(image)
    made = tmp_path / "the-file-the-lab-made.img"  # kept alive, so its inode is not reused
    sentinel_file(made)
    with lab.registry.edit() as draft:
        draft.put_image(ImageRecord(str(image), SIZE, 1.0, "md100", "attaching", made.stat().st_ino))
    report = lab.teardown()
    assert holds(image, value) and any("is another file now" in line for line in report.kept)


# ---------------------------------------------------------------- loop devices


def test_teardown_never_detaches_a_loop_device_someone_else_attached(lab: Lab, tmp_path: Path, losetup):
    victim = tmp_path / "vm.img"
    value = sentinel_file(victim)
    theirs = losetup(victim)
    ours = lab.new_disk("md100", SIZE)  # the lab's own disk, which teardown must still remove
    decoy = lab.registry.images_dir / "md100-1.img"
    sentinel_file(decoy)
    with lab.registry.edit() as draft:
        draft.put_image(record(victim, theirs))  # their file, their device, the right inode
        draft.put_image(record(decoy, theirs))  # a lab image that claims their device
    report = lab.teardown()
    assert loop_backing(theirs).path == str(victim) and holds(Path(f"/dev/{theirs}"), value) and holds(victim, value)
    assert f"detached {ours.loop}" in report.done and loop_backing(ours.loop) is None
    assert f"detached {theirs}" not in report.done
    assert any(line.startswith(f"{victim} is not in the lab's images folder") for line in report.kept)
    assert f"{theirs} now holds {victim}, not the lab's {decoy}: left alone" in report.gone
    assert not Path(ours.path).exists() and not decoy.exists()


def test_the_bench_guard_trusts_only_an_image_in_the_folder_with_its_inode(lab: Lab, tmp_path: Path, losetup):
    disk = lab.new_disk("md100", SIZE)
    try:
        device = f"/dev/{disk.loop}"
        assert is_lab_device(disk.loop, path=lab.registry.path)
        assert check_target(device, registry=lab.registry.path).lab
        with lab.registry.edit() as draft:
            draft.update_image(disk.path, inode=None)
        assert not is_lab_device(disk.loop, path=lab.registry.path)
        with pytest.raises(TargetRefused, match="raidtop's lab did not create"):
            check_target(device, registry=lab.registry.path)
    finally:
        with lab.registry.edit() as draft:
            draft.update_image(disk.path, inode=os.stat(disk.path).st_ino)
        assert lab.teardown().clean


def test_the_bench_guard_refuses_a_device_the_registry_names_outside_the_folder(lab: Lab, tmp_path: Path, losetup):
    victim = tmp_path / "vm.img"
    value = sentinel_file(victim)
    theirs = losetup(victim)
    with lab.registry.edit() as draft:
        draft.put_image(record(victim, theirs))
    assert not is_lab_device(theirs, path=lab.registry.path)
    with pytest.raises(TargetRefused, match="raidtop's lab did not create"):
        check_target(f"/dev/{theirs}", registry=lab.registry.path)
    assert holds(Path(f"/dev/{theirs}"), value)


def test_an_image_made_just_before_a_crash_is_deleted_only_while_it_is_still_planned(lab: Lab, tmp_path: Path):
    # Killed between creating the file and recording its inode: the file is the lab's (O_EXCL, its own folder).
    lab.registry.images_dir.mkdir(parents=True)
    planned = lab.registry.images_dir / "md100-0.img"
    sentinel_file(planned)
    unknown = lab.registry.images_dir / "md100-1.img"
    value = sentinel_file(unknown)
    with lab.registry.edit() as draft:
        draft.put_image(ImageRecord(str(planned), SIZE, 1.0, "md100", "planned"))
        draft.put_image(ImageRecord(str(unknown), SIZE, 1.0, "md100", "attached", None, None))
    report = lab.teardown()
    assert not planned.exists() and f"deleted {planned}" in report.done
    # Past "planned" the inode is always on record; without it the lab cannot tell the file is its own.
    assert holds(unknown, value) and any("never recorded its inode" in line for line in report.kept)
