"""The lab's realistic failures: dm tables, the plan's exact commands, the guard and teardown.

The fixture root is tests/actions/lab/lab_tree.py's (a runner that runs nothing); the dm
device over a loop is written as the kernel shows one (``/sys/block/dm-N/dm/name``,
``slaves/<loop>``, Documentation/admin-guide/device-mapper). This host's kernel has
no device-mapper (``/dev/mapper/control``: No such device), so the targets themselves
run in the VM tier, not here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.actions.lab.dmfault import plan_clear, plan_fault
from raidtop.actions.lab.dmtables import (
    NO_DEVICE_MAPPER,
    NO_DUST,
    FaultRefused,
    FaultSpec,
    device_mapper_missing,
    dm_loop_under,
    dm_table,
    dust_missing,
    parse_fault_line,
)
from raidtop.actions.lab.fault_actions import FaultActions
from raidtop.actions.lab.guard import check_array
from raidtop.actions.member_actions import ActionRefused

from tests.actions.lab.lab_tree import LabTree

SECTORS = 32768  # a 16 MiB lab image


@pytest.fixture
def tree(tmp_path) -> LabTree:
    return LabTree(tmp_path)


def sized(tree: LabTree, loops) -> None:
    for loop in loops:
        (tree.root / "sys" / "block" / loop / "size").write_text(f"{SECTORS}\n")


def test_tables_for_each_target():
    assert dm_table(FaultSpec("delay", delay_ms=50), "/dev/loop3", SECTORS) == "0 32768 delay /dev/loop3 0 50"
    assert dm_table(FaultSpec("flakey", up_s=20, down_s=5), "/dev/loop3", SECTORS) == "0 32768 flakey /dev/loop3 0 20 5"
    assert dm_table(FaultSpec("error", start=2048, length=16), "/dev/loop3", SECTORS).splitlines() == [
        "0 2048 linear /dev/loop3 0",
        "2048 16 error",
        "2064 30704 linear /dev/loop3 2064",
    ]
    # A range at either end needs no linear piece on that side.
    assert dm_table(FaultSpec("error", start=0, length=8), "/dev/loop3", SECTORS).splitlines()[0] == "0 8 error"
    assert (
        dm_table(FaultSpec("error", start=SECTORS - 8, length=8), "/dev/loop3", SECTORS).splitlines()[-1]
        == "32760 8 error"
    )


@pytest.mark.parametrize(
    "spec",
    [
        FaultSpec("delay", delay_ms=0),
        FaultSpec("delay", delay_ms=10**6),
        FaultSpec("flakey", up_s=0, down_s=5),
        FaultSpec("error", start=SECTORS - 4, length=8),
        FaultSpec("error", start=0, length=0),
        FaultSpec("crash"),
    ],
)
def test_impossible_faults_are_refused(spec):
    with pytest.raises(FaultRefused):
        dm_table(spec, "/dev/loop3", SECTORS)


def test_fault_plan_runs_fail_remove_create_add_through_the_runner(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    sized(tree, loops)
    plan = plan_fault(tree.lab, "md100", "loop4", FaultSpec("error", start=2048, length=16))
    assert plan.command == (
        "mdadm /dev/md100 --fail /dev/loop4 && mdadm /dev/md100 --remove /dev/loop4 && "
        "dmsetup create --concise 'raidtop-lab-md100-loop4,,,rw,0 2048 linear /dev/loop4 0,2048 16 error,"
        "2064 30704 linear /dev/loop4 2064' && dmsetup mknodes raidtop-lab-md100-loop4 && "
        "mdadm /dev/md100 --add /dev/mapper/raidtop-lab-md100-loop4"
    )
    assert tree.runner.commands == []  # planning runs nothing
    plan.execute()
    assert [c[:3] for c in tree.runner.commands] == [
        ["mdadm", "/dev/md100", "--fail"],
        ["mdadm", "/dev/md100", "--remove"],
        ["dmsetup", "create", "--concise"],
        ["dmsetup", "mknodes", "raidtop-lab-md100-loop4"],
        ["mdadm", "/dev/md100", "--add"],
    ]
    assert "dmsetup create --concise" in tree.log.path.read_text()


def test_the_fault_keys_run_the_plan_shown_and_say_a_failed_command_in_words(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    sized(tree, loops)
    spec = FaultSpec("error", start=2048, length=16)
    with pytest.raises(ActionRefused, match="live system only, not on a --root tree"):
        FaultActions(tree.lab, spec).run("fault", "md100", "loop4")
    actions = FaultActions(tree.lab, spec, live_only=False)
    with pytest.raises(ActionRefused, match="highlight the member first"):
        actions.run("fault", "md100", None)
    assert tree.runner.commands == []  # refused before anything ran
    tree.runner.fail_on.add("dmsetup")
    with pytest.raises(ActionRefused) as caught:
        actions.run("fault", "md100", "loop4")
    assert str(caught.value).startswith("dmsetup create --concise raidtop-lab-md100-loop4,,,rw,0 2048 linear")
    assert str(caught.value).endswith(": dmsetup: failed on purpose")
    assert [c[0] for c in tree.runner.commands] == ["mdadm", "mdadm", "dmsetup"]  # stopped at the failure
    tree.runner.fail_on.clear()
    assert actions.run("fault", "md100", "loop4") == plan_fault(tree.lab, "md100", "loop4", spec).command


def test_a_fault_is_refused_on_raid0_and_on_a_real_disk(tree: LabTree):
    loops = tree.lab_raid("md100", "raid0", 2)
    sized(tree, loops)
    with pytest.raises(ActionRefused, match="raid0 has no redundancy"):
        plan_fault(tree.lab, "md100", "loop3", FaultSpec("delay", delay_ms=50))
    tree.image("md101", 0, "loop7")
    tree.md("md101", "raid1", {"loop7": ("in_sync", "0"), "sdb": ("in_sync", "1")})
    with pytest.raises(ActionRefused, match="not a loop device"):
        plan_fault(tree.lab, "md101", "loop7", FaultSpec("delay", delay_ms=50))
    assert tree.runner.commands == []


def faulted(tree: LabTree, dm_name: str, loop: str = "loop4"):
    """md100 (raid1 of loop3, loop4) with loop4 now behind dm-0 named ``dm_name``."""
    loops = tree.lab_raid("md100", "raid1", 2)
    sized(tree, loops)
    tree.sys.disk("dm-0", major=253)
    dm = tree.root / "sys" / "block" / "dm-0"
    (dm.resolve() / "dm").mkdir()
    (dm / "dm" / "name").write_text(dm_name + "\n")
    tree.sys.hold(loop, "dm-0")
    md = tree.root / "sys" / "block" / "md100" / "md"
    (md / "rd1").unlink()
    (md / "dev-loop4" / "state").write_text("faulty\n")  # a leftover stands in for the removed loop
    (md / "dev-dm-0").mkdir()
    (md / "dev-dm-0" / "state").write_text("in_sync\n")
    (md / "dev-dm-0" / "slot").write_text("1\n")
    tree.sys.hold("dm-0", "md100")
    return md


def test_the_guard_accepts_the_labs_dm_device_over_its_loop_and_clear_reverses_it(tree: LabTree):
    faulted(tree, "raidtop-lab-md100-loop4")
    assert dm_loop_under("dm-0", tree.root) == ("raidtop-lab-md100-loop4", "loop4")
    assert "dm-0" in check_array("md100", tree.lab.state(), tree.root).members
    plan = plan_clear(tree.lab, "md100", "dm-0")
    assert plan.command == (
        "dmsetup mknodes raidtop-lab-md100-loop4 && "
        "mdadm /dev/md100 --fail /dev/mapper/raidtop-lab-md100-loop4 && "
        "mdadm /dev/md100 --remove /dev/mapper/raidtop-lab-md100-loop4 && "
        "dmsetup remove raidtop-lab-md100-loop4 && mdadm /dev/md100 --add /dev/loop4"
    )


def test_a_dm_device_not_named_by_the_lab_is_refused(tree: LabTree):
    faulted(tree, "vg0-data")
    with pytest.raises(ActionRefused, match="dm-0"):
        check_array("md100", tree.lab.state(), tree.root)


def test_teardown_removes_the_labs_dm_devices_before_detaching(tree: LabTree):
    faulted(tree, "raidtop-lab-md100-loop4")
    # The fake runner cannot stop md: the holder link goes here, as mdadm --stop makes it go.
    (tree.root / "sys" / "block" / "dm-0" / "holders" / "md100").unlink()
    report = tree.lab.teardown()
    ran = [" ".join(c) for c in tree.runner.commands]
    assert (
        ran.index("mdadm --stop /dev/md100")
        < ran.index("dmsetup remove raidtop-lab-md100-loop4")
        < ran.index("losetup -d /dev/loop4")
    )
    assert "done: removed raidtop-lab-md100-loop4 (over loop4)" in report.lines()


def test_teardown_keeps_a_dm_device_something_still_holds(tree: LabTree):
    faulted(tree, "raidtop-lab-md100-loop4")
    report = tree.lab.teardown()
    assert not [c for c in tree.runner.commands if c[0] == "dmsetup"]
    assert any("raidtop-lab-md100-loop4 kept: md100 still holds it" in line for line in report.lines())


def test_cli_parses_each_fault_and_refuses_an_array_the_lab_did_not_make(tmp_path):
    import argparse
    import subprocess
    import sys

    from raidtop.cli.lab_faults import spec_from

    def ns(**kw):
        return argparse.Namespace(**{"delay": None, "flakey": None, "error": None, **kw})

    assert spec_from(ns(delay="50")) == FaultSpec("delay", delay_ms=50)
    assert spec_from(ns(flakey="20,5")) == FaultSpec("flakey", up_s=20, down_s=5)
    assert spec_from(ns(error="2048+16")) == FaultSpec("error", start=2048, length=16)
    assert isinstance(spec_from(ns(delay="-1")), str) and isinstance(spec_from(ns(error="2048")), str)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "raidtop",
            "lab",
            "--lab-dir",
            str(tmp_path),
            "fault",
            "md100",
            "loop4",
            "--delay",
            "50",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    assert "fault refused: md100 was not created by raidtop's lab" in run.stderr


def test_a_kernel_without_device_mapper_is_refused_before_anything_is_planned(tree: LabTree):
    loops = tree.lab_raid("md100", "raid1", 2)
    sized(tree, loops)
    (tree.root / "proc" / "misc").write_text("237 loop-control\n")
    with pytest.raises(ActionRefused) as refused:
        plan_fault(tree.lab, "md100", loops[0], FaultSpec("delay", delay_ms=25))
    assert str(refused.value) == NO_DEVICE_MAPPER


def test_this_hosts_kernel_is_judged_from_its_own_proc_misc():
    misc = Path("/proc/misc").read_text()
    listed = any(line.split()[1:2] == ["device-mapper"] for line in misc.splitlines())
    assert (device_mapper_missing("/") is None) == listed


def test_a_fault_written_in_one_line_parses_as_the_cli_options_do():
    assert parse_fault_line("delay 25") == FaultSpec("delay", delay_ms=25)
    assert parse_fault_line("Flakey 20,5") == FaultSpec("flakey", up_s=20, down_s=5)
    assert parse_fault_line("error 2048+16") == FaultSpec("error", start=2048, length=16)
    assert parse_fault_line("unreadable 8192+16") == FaultSpec("unreadable", start=8192, length=16)
    for bad in ("", "delay", "delay -1", "slow 5", "error 2048", "delay 25 ms", "unreadable 8192"):
        with pytest.raises(FaultRefused):
            parse_fault_line(bad)


def dusty(tree: LabTree, *, bitmap: str = "+8", offset: int = 2048) -> list[str]:
    """md100 (raid1 of loop3, loop4) on a kernel with dm-dust loaded, a bitmap and a data offset."""
    loops = tree.lab_raid("md100", "raid1", 2)
    sized(tree, loops)
    (tree.root / "sys" / "module" / "dm_dust").mkdir(parents=True)
    md = tree.root / "sys" / "block" / "md100" / "md"
    (md / "bitmap").mkdir()
    (md / "bitmap" / "location").write_text(bitmap + "\n")
    for loop in loops:
        (md / f"dev-{loop}" / "offset").write_text(f"{offset}\n")
    return loops


def test_unreadable_plan_arms_dust_blocks_before_md_takes_the_member_back(tree: LabTree):
    dusty(tree)
    plan = plan_fault(tree.lab, "md100", "loop4", FaultSpec("unreadable", start=8192, length=16))
    dm = "raidtop-lab-md100-loop4"
    # 4 KiB dust blocks: sectors 8192-8207 are blocks 1024 and 1025; the whole member is one dust target.
    assert [list(argv) for argv in plan.commands] == [
        ["mdadm", "/dev/md100", "--fail", "/dev/loop4"],
        ["mdadm", "/dev/md100", "--remove", "/dev/loop4"],
        ["dmsetup", "create", "--concise", f"{dm},,,rw,0 {SECTORS} dust /dev/loop4 0 4096"],
        ["dmsetup", "mknodes", dm],
        ["dmsetup", "message", dm, "0", "addbadblock", "1024"],
        ["dmsetup", "message", dm, "0", "addbadblock", "1025"],
        ["dmsetup", "message", dm, "0", "enable"],
        ["mdadm", "/dev/md100", "--add", f"/dev/mapper/{dm}"],
    ]
    plan.execute()
    assert [list(c) for c in tree.runner.commands] == [list(argv) for argv in plan.commands]
    assert "dmsetup message raidtop-lab-md100-loop4 0 enable" in tree.log.path.read_text()


@pytest.mark.parametrize(
    ("spec", "refusal"),
    [
        (FaultSpec("unreadable", start=8193, length=16), "whole 4 KiB blocks"),
        (FaultSpec("unreadable", start=8192, length=12), "whole 4 KiB blocks"),
        (FaultSpec("unreadable", start=8192, length=8 * 65), "at most 512 sectors"),
        (FaultSpec("unreadable", start=SECTORS - 8, length=16), "inside the member's"),
        (FaultSpec("unreadable", start=1024, length=8), "data area, at sector 2048"),
    ],
)
def test_unreadable_ranges_md_could_not_take_back_are_refused(tree: LabTree, spec, refusal):
    dusty(tree)
    with pytest.raises(ActionRefused, match=refusal):
        plan_fault(tree.lab, "md100", "loop4", spec)
    assert tree.runner.commands == []


def test_unreadable_needs_a_bitmap_and_a_kernel_with_dm_dust(tree: LabTree):
    dusty(tree, bitmap="none")
    spec = FaultSpec("unreadable", start=8192, length=8)
    with pytest.raises(ActionRefused, match="no write-intent bitmap"):
        plan_fault(tree.lab, "md100", "loop4", spec)
    (tree.root / "sys" / "module" / "dm_dust").rmdir()
    (tree.root / "proc" / "sys" / "kernel").mkdir(parents=True)
    (tree.root / "proc" / "sys" / "kernel" / "osrelease").write_text("6.1.0-56-amd64\n")
    modules = tree.root / "lib" / "modules" / "6.1.0-56-amd64"
    modules.mkdir(parents=True)
    # Debian's 6.1 modules.dep (CONFIG_DM_DUST is not set): delay and flakey, no dust.
    (modules / "modules.dep").write_text(
        "kernel/drivers/md/dm-delay.ko: kernel/drivers/md/dm-mod.ko\n"
        "kernel/drivers/md/dm-flakey.ko: kernel/drivers/md/dm-mod.ko\n"
    )
    assert dust_missing(tree.root) == NO_DUST
    with pytest.raises(ActionRefused) as refused:
        plan_fault(tree.lab, "md100", "loop4", spec)
    assert str(refused.value) == NO_DUST
    with (modules / "modules.dep").open("a") as dep:
        dep.write("kernel/drivers/md/dm-dust.ko: kernel/drivers/md/dm-mod.ko\n")
    assert dust_missing(tree.root) is None


def test_cli_unreadable_dry_run_prints_the_plan_and_runs_nothing(tree: LabTree, capsys):
    import argparse

    from raidtop.cli.lab_faults import _run, spec_from

    dusty(tree)
    ns = argparse.Namespace(delay=None, flakey=None, error=None, unreadable="8192+16")
    spec = spec_from(ns)
    assert spec == FaultSpec("unreadable", start=8192, length=16)
    assert "unreadable takes START+LEN" in spec_from(argparse.Namespace(delay=None, unreadable="8192"))
    assert _run(lambda: plan_fault(tree.lab, "md100", "loop4", spec), True, "fault") == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[2] == f"dmsetup create --concise 'raidtop-lab-md100-loop4,,,rw,0 {SECTORS} dust /dev/loop4 0 4096'"
    assert printed[4:7] == [
        "dmsetup message raidtop-lab-md100-loop4 0 addbadblock 1024",
        "dmsetup message raidtop-lab-md100-loop4 0 addbadblock 1025",
        "dmsetup message raidtop-lab-md100-loop4 0 enable",
    ]
    assert tree.runner.commands == []
