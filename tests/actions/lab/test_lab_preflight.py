"""What the lab says when the machine cannot run it: each missing piece in words, with what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.actions.lab.core import Lab, LabUnavailable
from raidtop.actions.lab.preflight import check_environment, personalities
from raidtop.actions.lab.spec import LabSpec
from raidtop.collect.source import Root


def make_root(tmp_path: Path, *, mdstat: str | None = None, modules: str | None = None, loop: bool = True) -> Path:
    root = tmp_path / "root"
    (root / "proc" / "sys" / "kernel").mkdir(parents=True)
    (root / "proc" / "sys" / "kernel" / "osrelease").write_text("6.18.44-fc-v669\n")
    if mdstat is not None:
        (root / "proc" / "mdstat").write_text(mdstat)
    if modules is not None:
        base = root / "lib" / "modules" / "6.18.44-fc-v669"
        base.mkdir(parents=True)
        (base / "modules.dep").write_text(modules)
    if loop:
        (root / "dev").mkdir()
        (root / "dev" / "loop-control").write_text("")
    return root


def test_a_kernel_without_md_is_explained_with_what_to_do(tmp_path: Path):
    env = check_environment(make_root(tmp_path), euid=0, which=lambda name: f"/usr/sbin/{name}")
    assert not env.ready and env.md_missing
    (problem,) = env.problems
    assert problem.message == (
        "this kernel (6.18.44-fc-v669) has no md driver: /proc/mdstat is absent and "
        "/lib/modules/6.18.44-fc-v669 has no md_mod module"
    )
    assert "sudo modprobe md_mod raid0 raid1 raid456 raid10" in problem.fix
    assert "raidtop --demo" in problem.fix


def test_an_md_module_that_is_only_not_loaded_gets_modprobe(tmp_path: Path):
    modules = "kernel/drivers/md/md-mod.ko.xz:\nkernel/drivers/md/raid456.ko.xz: kernel/drivers/md/md-mod.ko.xz\n"
    env = check_environment(make_root(tmp_path, modules=modules), euid=0, which=lambda name: f"/usr/sbin/{name}")
    (problem,) = env.problems
    assert (
        problem.text == "the md driver (md_mod) is not loaded: load it: sudo modprobe md_mod raid0 raid1 raid456 raid10"
    )


def test_missing_tools_loop_driver_and_root_are_each_named(tmp_path: Path):
    root = make_root(tmp_path, mdstat="Personalities : [raid1]\nunused devices: <none>\n", loop=False)
    env = check_environment(root, euid=1000, which=lambda name: None, need_fio=True)
    texts = {p.key: p.text for p in env.problems}
    assert set(texts) == {"mdadm", "losetup", "loop", "root", "fio"}
    assert "sudo apt install mdadm" in texts["mdadm"]
    assert "sudo apt install mount" in texts["losetup"]
    assert texts["loop"] == "the loop driver is not loaded: load it: sudo modprobe loop"
    assert "(you are uid 1000)" in texts["root"] and "sudo raidtop" in texts["root"]
    assert "apt install fio" in texts["fio"]


def test_a_level_whose_personality_cannot_be_loaded_is_named(tmp_path: Path):
    root = make_root(
        tmp_path, mdstat="Personalities : [raid1]\nunused devices: <none>\n", modules="kernel/drivers/md/raid10.ko:\n"
    )
    env = check_environment(root, levels=["raid1", "raid5", "raid10"], euid=0, which=lambda name: f"/usr/sbin/{name}")
    (problem,) = env.problems
    assert problem.key == "md-level"
    assert problem.text == (
        "md is loaded but has no raid5 personality and no raid456 module to load: "
        "load it: sudo modprobe raid456, or use another level"
    )
    assert personalities(Root(root)) == {"raid1"}


def test_a_ready_machine_has_no_problems(tmp_path: Path):
    root = make_root(tmp_path, mdstat="Personalities : [raid1] [raid6] [raid5] [raid4]\nunused devices: <none>\n")
    env = check_environment(root, levels=["raid1", "raid5"], euid=0, which=lambda name: f"/usr/sbin/{name}")
    assert env.ready and env.describe() == "" and env.kernel == "6.18.44-fc-v669"


def test_create_refuses_before_touching_anything(tmp_path: Path):
    lab = Lab(tmp_path / "lab", root=make_root(tmp_path), euid=0, which=lambda name: f"/usr/sbin/{name}")
    with pytest.raises(LabUnavailable, match="has no md driver"):
        lab.create(LabSpec("raid1", 2, 16 << 20))
    assert not (tmp_path / "lab").exists()


@pytest.mark.skipif(Path("/proc/mdstat").exists(), reason="this host has md")
def test_this_host_is_told_it_has_no_md_driver():
    env = check_environment("/", euid=0)
    assert env.md_missing
    assert "has no md driver" in env.describe() or "md driver (md_mod) is not loaded" in env.describe()
