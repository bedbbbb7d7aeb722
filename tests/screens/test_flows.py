"""The screens' flows are owned objects that talk to the UI by messages, not mixins.

Tuning changes, benchmarks and the lab's jobs each run in an object the screen
owns (an invisible widget with its own workers and nested messages, like the
member-action flow); a worker reaches the UI only by ``post_message``. These
checks fail when a screen grows a mixin again or a worker calls into the UI
thread another way.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from raidtop.screens.bench.data import BenchData
from raidtop.screens.bench.run_flow import BenchRun
from raidtop.screens.bench.screen import BenchScreen
from raidtop.screens.lab.experiment_jobs import ExperimentJobs
from raidtop.screens.lab.jobs import LabJobs
from raidtop.screens.lab.screen import LabScreen
from raidtop.screens.member_flow import MemberFlow
from raidtop.screens.tuning.flow import TuningChangeFlow
from raidtop.screens.tuning.reads import TuningReader
from raidtop.screens.tuning.screen import TuningScreen

PACKAGE = Path(__file__).resolve().parents[2] / "raidtop"
FLOW_ROOMS = ("screens/tuning", "screens/bench", "screens/lab", "screens/member_flow.py")


@pytest.mark.parametrize("screen", [TuningScreen, BenchScreen, LabScreen])
def test_a_screen_inherits_nothing_of_raidtops_own(screen):
    ours = [c.__qualname__ for c in screen.__mro__[1:] if c.__module__.startswith("raidtop.")]
    assert ours == [], f"{screen.__name__} mixes in {ours}: make it an object the screen owns"


@pytest.mark.parametrize(
    "flow", [TuningChangeFlow, TuningReader, BenchData, BenchRun, LabJobs, ExperimentJobs, MemberFlow]
)
def test_a_flow_is_an_invisible_widget_of_its_own(flow):
    ours = [c.__qualname__ for c in flow.__mro__[1:] if c.__module__.startswith("raidtop.")]
    assert ours == [], f"{flow.__name__} inherits {ours}"
    assert f"{flow.__name__} {{ display: none; }}" in flow.DEFAULT_CSS


def test_workers_in_the_flow_rooms_reach_the_ui_only_by_messages():
    files = [
        p
        for room in FLOW_ROOMS
        for p in sorted((PACKAGE / room).rglob("*.py") if "." not in room else [PACKAGE / room])
    ]
    assert len(files) > 10
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if re.search(r"\bcall_from_thread\b", line)
    ]
    assert offenders == [], "use post_message and a handler instead of call_from_thread: " + ", ".join(offenders)
