"""The faults course's result: one row per step (what was done, what md and raidtop showed) and its table.

The row keeps the figures the sentence was made from (the slow members and
the basis they were judged on, the leg's state and ``errors`` before and
after, ``mismatch_cnt``, the unreadable blocks left in dm-dust's list), so a
stored course can be checked, not only read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments import defaults
from raidtop.actions.lab.spec import LabSpec, human_size
from raidtop.latency.summary import MemberLatency
from raidtop.model.md import MdArray
from raidtop.model.snapshot import DiskIO

Judge = Callable[[MdArray, Mapping[str, DiskIO], Mapping[str, MemberLatency]], tuple[set[str], str]]
"""The member grid's slow-member rule (presentation.member_latency.slow_members_judged), passed in from above."""


@frozen_dataclass
class CourseStep:
    """One step as the course prints it."""

    key: str
    number: int
    title: str
    lesson: str


COURSE_STEPS = (
    CourseStep(
        "slow",
        1,
        "slow disk",
        "in raidtop's member grid the slow leg carries the slow mark, its p99 far above its siblings' "
        "(the grid's subtitle says the basis: p99 from bpftrace, or the average await without it)",
    ),
    CourseStep(
        "flakey",
        2,
        "flakey disk",
        "on the dashboard the array turns degraded and the leg faulty: md fails a disk whose writes fail, "
        "it does not count them as corrected errors",
    ),
    CourseStep(
        "unreadable",
        3,
        "unreadable sectors",
        "a check rewrites unreadable sectors from a good copy (mismatch_cnt in the array detail); a read "
        "that hits them is repaired too, and the member's errors column counts those sectors",
    ),
)


@frozen_dataclass
class CourseParams:
    """What the course does; the defaults keep it under a couple of minutes."""

    steps: tuple[str, ...] = defaults.COURSE_STEPS
    delay_ms: int = defaults.COURSE_DELAY_MS
    up_s: int = defaults.COURSE_FLAKEY_S[0]
    down_s: int = defaults.COURSE_FLAKEY_S[1]
    runtime_s: int = defaults.COURSE_RUNTIME_S
    disk_size_bytes: int = defaults.COURSE_DISK_BYTES
    trace: bool = True
    """Measure with raidtop's bpftrace tracer where it runs (False: diskstats' average await only)."""

    def as_text(self) -> dict[str, str]:
        """The parameters as the history stores them."""
        return {
            "steps": ",".join(self.steps),
            "delay_ms": str(self.delay_ms),
            "flakey": f"{self.up_s},{self.down_s}",
            "runtime_s": str(self.runtime_s),
            "size": human_size(self.disk_size_bytes),
        }

    def spec(self) -> LabSpec:
        """The course's array: raid1 of three disks with an internal bitmap (a leg comes back by a re-add)."""
        return LabSpec("raid1", defaults.COURSE_DISKS, self.disk_size_bytes, bitmap=True)


@frozen_dataclass
class CourseRow:
    """One step of ``raidtop lab faults-course``."""

    step: str
    """``1``, ``2``, ``3a`` (the check), ``3b`` (the read)."""
    title: str
    done: str
    """What the step did, in words (the exact commands are printed as they run and in the action log)."""
    shown: str
    """What md (its sysfs files, read by raidtop's md reader) and raidtop's judgement showed."""
    member: str = ""
    """The leg behind the fault, as md names it (``dm-N``)."""
    slow: str = ""
    """Step 1: the members the member grid's rule marks slow, comma-separated."""
    basis: str = ""
    """Step 1: ``p99`` (bpftrace's distributions) or ``await`` (diskstats' averages)."""
    state: str = ""
    """md's ``dev-*/state`` of the leg when the step looked."""
    errors_before: int | None = None
    errors_after: int | None = None
    mismatch_cnt: int | None = None
    unreadable_left: int | None = None
    """Blocks still in dm-dust's bad-block list after the step (0: the range reads again)."""
    lesson: str = ""


def course_table(rows) -> str:
    """Per step: what was done, and under it what md and raidtop showed; each step's lesson at the end.

    Two lines a step rather than three columns: the sentences are long, and a class's terminal is not wide.
    """
    lines = ["Step  What was done", "      → what md / raidtop showed", "----  " + "-" * 40]
    for row in rows:
        lines += [f"{row.step:<4}  {row.title}: {row.done}", f"      → {row.shown}"]
    lessons = list(dict.fromkeys(f"{r.step[:1]}. {r.lesson}" for r in rows if r.lesson))
    return "\n".join(lines + ([""] + lessons if lessons else []))
