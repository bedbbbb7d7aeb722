"""The faults course's own writes and reads against what may sit at their paths: a link, a FIFO.

Step 3 writes md's member flags (``echo writemostly > …/dev-LEG/state``) and reads the
array with O_DIRECT; the experiments write fresh data to it. Each is done in raidtop,
under the lab's root (tests/actions/lab/lab_tree.py's, a runner that runs nothing), so
real links and FIFOs planted there are what it meets. Each refusal must be one
sentence in the lab's failure, logged; a link's target keeps its content; a FIFO never
blocks (each attempt runs in a thread given a generous bound, and the FIFO is opened
from here afterwards so a blocked attempt cannot outlive the test).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from raidtop.actions.experiments.course_results import CourseParams
from raidtop.actions.experiments.course_session import CourseSession, _member_flag, _read_direct
from raidtop.actions.experiments.experiment import Control, write_mib
from raidtop.actions.lab.commands import LabCommandFailed

from tests.actions.lab.lab_tree import LabTree
from tests.conftest import ended_within
from tests.actions.lab.test_lab_teardown_trust import holds, sentinel_file


@pytest.fixture
def tree(tmp_path: Path) -> LabTree:
    tree = LabTree(tmp_path)
    tree.lab_raid("md100", "raid1", 3)
    return tree


def course(tree: LabTree) -> CourseSession:
    return CourseSession(tree.lab, "md100", CourseParams(), Control(), lambda _text: None, lambda *_a: (set(), ""))


def refusal(attempt: Callable[[], object], fifo: Path | None = None) -> str:
    """What ``attempt`` was refused with; it must end (a FIFO must not block it) within a generous bound."""
    failed = ended_within(attempt, fifo)
    assert isinstance(failed, BaseException), "not refused"
    assert isinstance(failed, LabCommandFailed), failed
    return str(failed)


def logged(tree: LabTree) -> str:
    last = tree.log.read("lab")[-1]
    return f"{last.command} -> {last.result}"


def test_write_mostly_through_a_linked_state_attribute_is_refused_and_the_target_kept(tree: LabTree, tmp_path: Path):
    state = tree.root / "sys" / "block" / "md100" / "md" / "dev-loop4" / "state"
    victim = tmp_path / "victim"
    value = sentinel_file(victim)
    state.unlink()
    state.symlink_to(victim)
    said = refusal(lambda: _member_flag(course(tree), "loop4", "writemostly"))
    assert said == (
        "echo writemostly > /sys/block/md100/md/dev-loop4/state: is a symbolic link; raidtop does not write through it"
    )
    assert holds(victim, value) and state.is_symlink()
    assert logged(tree).endswith("-> is a symbolic link; raidtop does not write through it")


def test_write_mostly_into_a_fifo_is_refused_without_blocking(tree: LabTree):
    state = tree.root / "sys" / "block" / "md100" / "md" / "dev-loop4" / "state"
    state.unlink()
    os.mkfifo(state)
    said = refusal(lambda: _member_flag(course(tree), "loop4", "writemostly"), state)
    assert said.endswith("/dev-loop4/state: is a FIFO, not an attribute file; not written")


def test_the_arrays_data_is_never_written_through_a_link_at_its_device_node(tree: LabTree, tmp_path: Path):
    victim = tmp_path / "victim"
    value = sentinel_file(victim)
    (tree.root / "dev" / "md100").symlink_to(victim)
    said = refusal(lambda: write_mib(tree.lab, "md100", 1, Control()))
    assert said.endswith(
        ": /dev/md100 is a symbolic link, not the block device the kernel lists for md100; nothing written"
    )
    assert holds(victim, value)
    assert "nothing written" in logged(tree)


@pytest.mark.parametrize("doing", ["written", "read"])
def test_a_fifo_at_the_arrays_device_node_is_refused_without_blocking(tree: LabTree, doing: str):
    node = tree.root / "dev" / "md100"
    os.mkfifo(node)
    if doing == "written":
        said = refusal(lambda: write_mib(tree.lab, "md100", 1, Control()), node)
    else:
        said = refusal(lambda: _read_direct(course(tree), 0, 4096), node)
    assert said.endswith(f": /dev/md100 is a FIFO, not the block device the kernel lists for md100; nothing {doing}")


def test_a_plain_file_at_the_arrays_device_node_is_left_as_it_was(tree: LabTree):
    node = tree.root / "dev" / "md100"
    value = sentinel_file(node)
    said = refusal(lambda: write_mib(tree.lab, "md100", 1, Control()))
    assert said.endswith(
        ": /dev/md100 is another file, not the block device the kernel lists for md100; nothing written"
    )
    assert holds(node, value)


def test_the_courses_results_file_replaces_a_fifo_or_a_link_without_blocking_or_writing_through(tmp_path: Path):
    from raidtop.actions.experiments.results import ExperimentResult, write_csv

    from tests.actions.experiments.test_faults_course import ROWS

    result = ExperimentResult("faults-course", {"steps": "slow,flakey,unreadable"}, ROWS)
    fifo, link, victim = tmp_path / "fifo.csv", tmp_path / "link.csv", tmp_path / "victim"
    os.mkfifo(fifo)
    value = sentinel_file(victim)
    link.symlink_to(victim)
    for path in (fifo, link):
        done = threading.Thread(target=write_csv, args=(result, path), daemon=True)
        done.start()
        done.join(20)
        if done.is_alive():
            os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
            pytest.fail(f"writing the results blocked on {path}")
        assert path.is_file() and not path.is_symlink() and "marked slow: dm-0" in path.read_text()
    assert holds(victim, value)
