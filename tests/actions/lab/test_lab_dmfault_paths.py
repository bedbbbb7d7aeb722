"""The lab's fault plans against what may sit where they read: a FIFO, a link to /dev/zero.

A plan is built from sysfs and /proc under the lab's root (the member's size, device-mapper
in /proc/misc, md's bitmap, the member's data offset, its state) before anything runs. A FIFO
would block a plain read for ever and a link to /dev/zero never end it; taken as "absent",
either would make a wrong sentence ("no write-intent bitmap", "no device-mapper"). Each must
be refused at once, in the file's own words, with nothing run. Each attempt runs in a thread
given a generous bound; the FIFO is opened from here afterwards so none outlives the test.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from raidtop.actions.lab.dmfault import plan_clear, plan_fault
from raidtop.actions.lab.dmtables import NO_DEVICE_MAPPER, FaultSpec, device_mapper_missing
from raidtop.actions.member_actions import ActionRefused

from tests.actions.lab.lab_tree import LabTree
from tests.conftest import ended_within
from tests.actions.lab.test_lab_dmfault import dusty, faulted

UNREADABLE = FaultSpec("unreadable", start=8192, length=16)


@pytest.fixture
def tree(tmp_path) -> LabTree:
    return LabTree(tmp_path)


def refused(attempt: Callable[[], object], fifo: Path | None = None) -> str:
    """The sentence ``attempt`` was refused with; it must end within a generous bound."""
    outcome = ended_within(attempt, fifo)
    assert isinstance(outcome, ActionRefused), outcome
    return str(outcome)


def plant(path: Path, kind: str) -> None:
    if path.exists():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


WHAT = {
    "fifo": "is a FIFO, not a regular file; not read",
    "zero": "is a character device, not a regular file; not read",
}


@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize(
    "where",
    ["/sys/block/loop4/size", "/sys/block/md100/md/bitmap/location", "/sys/block/md100/md/dev-loop4/offset"],
)
def test_a_fault_is_not_planned_from_a_fifo_or_an_endless_file(tree: LabTree, where: str, kind: str):
    dusty(tree)
    path = tree.root / where.lstrip("/")
    plant(path, kind)
    said = refused(lambda: plan_fault(tree.lab, "md100", "loop4", UNREADABLE), path)
    assert said == f"{where}: {WHAT[kind]}; no fault is planned from it"
    assert tree.runner.commands == []


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_clear_is_not_planned_from_a_fifo_for_the_members_state(tree: LabTree, kind: str):
    md = faulted(tree, "raidtop-lab-md100-loop4")
    plant(md / "dev-dm-0" / "state", kind)
    said = refused(lambda: plan_clear(tree.lab, "md100", "dm-0"), md / "dev-dm-0" / "state")
    assert said == f"/sys/block/md100/md/dev-dm-0/state: {WHAT[kind]}; no fault is planned from it"
    assert tree.runner.commands == []


def test_proc_misc_that_is_no_file_is_said_not_taken_for_no_device_mapper(tree: LabTree):
    dusty(tree)
    misc = tree.root / "proc" / "misc"
    plant(misc, "fifo")
    said = refused(lambda: plan_fault(tree.lab, "md100", "loop4", FaultSpec("delay", delay_ms=25)), misc)
    assert said == f"cannot tell whether this kernel has device-mapper: /proc/misc: {WHAT['fifo']}"
    assert tree.runner.commands == []
    misc.unlink()  # absent: the kernel has none, as before
    assert device_mapper_missing(tree.root) == NO_DEVICE_MAPPER


@pytest.mark.parametrize("where", ["/proc/sys/kernel/osrelease", "/lib/modules/6.1.0-56-amd64/modules.builtin"])
def test_a_kernel_whose_module_lists_are_no_files_is_said_not_taken_for_no_dm_dust(tree: LabTree, where: str):
    dusty(tree)
    (tree.root / "sys" / "module" / "dm_dust").rmdir()  # not loaded: the module lists decide
    (tree.root / "proc" / "sys" / "kernel").mkdir(parents=True)
    (tree.root / "proc" / "sys" / "kernel" / "osrelease").write_text("6.1.0-56-amd64\n")
    (tree.root / "lib" / "modules" / "6.1.0-56-amd64").mkdir(parents=True)
    path = tree.root / where.lstrip("/")
    plant(path, "fifo")
    said = refused(lambda: plan_fault(tree.lab, "md100", "loop4", UNREADABLE), path)
    assert said == f"cannot tell whether this kernel has dm-dust: {where}: {WHAT['fifo']}"
    assert tree.runner.commands == []
