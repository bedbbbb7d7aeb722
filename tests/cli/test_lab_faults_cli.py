"""``raidtop lab fault``'s answer when a plan is refused for what sits where it reads: exit 1, one sentence.

The lab's fixture root (tests/actions/lab/lab_tree.py) with a FIFO in place of the member's
size; the command's own runner (cli/lab_faults.py) prints the refusal, with or without --dry-run.
"""

from __future__ import annotations

import os

import pytest

from raidtop.actions.lab.dmfault import plan_fault
from raidtop.actions.lab.dmtables import FaultSpec
from raidtop.cli.lab_faults import EXIT_FAILED, _run

from tests.actions.lab.lab_tree import LabTree
from tests.actions.lab.test_lab_dmfault import dusty


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_fault_planned_over_a_fifo_is_refused_in_one_sentence_and_nothing_runs(tmp_path, capsys, dry_run):
    tree = LabTree(tmp_path)
    dusty(tree)
    size = tree.root / "sys" / "block" / "loop4" / "size"
    size.unlink()
    os.mkfifo(size)
    code = _run(lambda: plan_fault(tree.lab, "md100", "loop4", FaultSpec("delay", delay_ms=25)), dry_run, "fault")
    out, err = capsys.readouterr()
    assert code == EXIT_FAILED and out == ""
    assert err == (
        "raidtop lab: fault refused: /sys/block/loop4/size: is a FIFO, not a regular file; not read; "
        "no fault is planned from it\n"
    )
    assert tree.runner.commands == []
