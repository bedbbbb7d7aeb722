"""The faults course: a slow disk, a flakey disk and unreadable sectors, one numbered step each.

A teacher runs ``raidtop lab faults-course`` as root on a machine with md and
device-mapper. It makes a lab raid1 of three 32 MiB disks with an internal
bitmap and walks the steps, each through the lab's own fault plans (the
commands shown and logged as they run), each ending in what md showed:

1. slow disk: a leg behind dm-``delay``; fio writes 4 KiB blocks to the array
   (every write goes to every leg, so the slow one delays them all; a read
   would be served by any leg); the legs' latency is measured by raidtop's
   bpftrace tracer where it runs (p50/p99), by diskstats' average await
   otherwise, and the slow leg named by the member grid's own judgement
   (passed in as ``judge``: the rule lives in the presentation layer);
2. flakey disk: a leg behind dm-``flakey``; writes until md fails it (its
   state and ``errors`` through raidtop's md reader), then the leg put back;
3. unreadable sectors: a leg behind dm-``dust`` over two 4 KiB blocks; a
   ``check`` rewrites them from a good leg (``mismatch_cnt``, dust's list
   emptied); then, the range armed again and the other legs write-mostly,
   a direct read sent to that leg: md rewrites the sectors and counts them
   in the leg's ``errors`` (as measured on the 6.1 kernel, 8 per 4 KiB page).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from raidtop.actions.experiments.course_results import COURSE_STEPS, CourseParams, CourseRow, Judge
from raidtop.actions.experiments.course_session import (
    UNREADABLE_INTO,
    UNREADABLE_SECTORS,
    CourseSession,
    n,
    roles,
    unreadable_step,
)
from raidtop.actions.experiments.course_trace import measure_latency
from raidtop.actions.experiments.experiment import Control, ExperimentStopped, tuning_in_force, wait_idle, write_mib
from raidtop.actions.experiments.results import ExperimentResult, store_result
from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.lab.dmtables import FaultSpec
from raidtop.actions.lab.loopdev import is_loop_name
from raidtop.collect.md.level import natural_key

STEP_KEYS = tuple(s.key for s in COURSE_STEPS)


def parse_steps(text: str) -> tuple[str, ...]:
    """``slow,unreadable`` → the steps in course order; LabError naming the unknown one."""
    from raidtop.actions.lab.spec import SpecError

    asked = [w.strip().lower() for w in str(text).split(",") if w.strip()]
    unknown = [w for w in asked if w not in STEP_KEYS]
    if unknown or not asked:
        raise SpecError(f"--steps takes some of {','.join(STEP_KEYS)}; not {','.join(unknown) or 'nothing'}")
    return tuple(k for k in STEP_KEYS if k in asked)


def course_missing(lab: Lab, params: CourseParams) -> list[str]:
    """What the kernel lacks for these steps beyond the lab itself: device-mapper, dm-dust (sentences)."""
    from raidtop.actions.lab.dmtables import device_mapper_missing, dust_missing

    missing = [m for m in (device_mapper_missing(lab.root),) if m is not None]
    if "unreadable" in params.steps and (dust := dust_missing(lab.root)) is not None:
        missing.append(f"{dust} (or leave that step out: --steps slow,flakey)")
    return missing


def outline(lab: Lab, params: CourseParams) -> list[str]:
    """What the course will do, step by step, for ``--dry-run`` (no I/O): md1NN and loopA.. stand in."""
    lines = ["# the course's array:", *lab.preview_create(params.spec())]
    fio = f"fio randwrite bs 4K iodepth 16 for {params.runtime_s} s on /dev/md1NN (raidtop's fio runner)"
    unreadable = f"unreadable <data offset + {UNREADABLE_INTO}>+{UNREADABLE_SECTORS}"
    plans = {
        "slow": [
            f"raidtop lab fault md1NN loopC --delay {params.delay_ms}",
            f"{fio}, the legs traced (bpftrace) or their diskstats compared",
            "raidtop lab clear md1NN dm-N",
        ],
        "flakey": [
            f"raidtop lab fault md1NN loopB --flakey {params.up_s},{params.down_s}",
            "dd if=/dev/urandom of=/dev/md1NN bs=1M count=1 conv=fsync   # each second until md fails the leg",
            "raidtop lab clear md1NN dm-N",
        ],
        "unreadable": [
            f"raidtop lab fault md1NN loopA --{unreadable}",
            "echo check > /sys/block/md1NN/md/sync_action",
            "dmsetup message raidtop-lab-md1NN-loopA 0 addbadblock <block>   # the range armed again",
            "echo writemostly > /sys/block/md1NN/md/dev-loopB/state   # and loopC: reads go to loopA",
            "dd if=/dev/md1NN of=/dev/null bs=4096 count=2 iflag=direct   # over the range",
            "raidtop lab clear md1NN dm-N",
        ],
    }
    for step in COURSE_STEPS:
        if step.key in params.steps:
            lines += [f"# step {step.number}: {step.title} — {step.lesson}", *plans[step.key]]
    return lines + ["raidtop lab teardown md1NN"]


def run_faults_course(
    lab: Lab, params: CourseParams, judge: Judge, control: Control | None = None, say=None
) -> ExperimentResult:
    """Create the course's array, walk the steps, tear it down whatever happens; the result is kept."""
    control = control or Control()
    say = say or (lambda _text: None)
    steps = [s for s in COURSE_STEPS if s.key in params.steps]
    control.total = 3 + len(steps)
    started = time.time()
    rows: list[CourseRow] = []
    tuning: dict[str, str] = {}
    stopped = False
    try:
        control.step("creating a raid1 of 3 lab disks with an internal bitmap")
        name = lab.create(params.spec()).name
        try:
            control.step(f"waiting for {name}'s initial build")
            wait_idle(lab, name, control)
            tuning = tuning_in_force(lab, name, **params.as_text())
            course = CourseSession(lab, name, params, control, say, judge)
            legs = sorted((m for m in course.members() if is_loop_name(m)), key=natural_key)
            if len(legs) < 3:
                raise LabError(f"{name} has {len(legs)} loop legs, not 3")
            for step in steps:
                control.step(f"step {step.number}: {step.title}")
                say(f"\n== step {step.number}/{len(COURSE_STEPS)}: {step.title} ==")
                say(f"   look at: {step.lesson}")
                # Each step on its own leg: a leg a step put back has just been resynced.
                made = STEP_RUNS[step.key](course, legs[{"slow": 2, "flakey": 1, "unreadable": 0}[step.key]])
                for row in made:
                    say(f"-> {row.shown}")
                rows += made
        finally:
            control.step(f"tearing down {name}", check=False)
            lab.teardown([name])
    except ExperimentStopped:
        stopped = True
    result = ExperimentResult(
        "faults-course", params.as_text(), tuple(rows), tuning, started, time.time(), stopped=stopped
    )
    return store_result(lab.store, result)


def _slow(course: CourseSession, leg: str) -> list[CourseRow]:
    p = course.params
    device, _dm = course.fault(leg, FaultSpec("delay", delay_ms=p.delay_ms))
    try:
        measured = measure_latency(course.lab, course.name, course.members(), p.runtime_s, p.trace, course.control)
        array = course.array()
        if array is None:
            raise LabError(f"{course.name} is gone")
        slow, basis = course.judge(array, measured.disks, measured.latencies)
        figures = measured.describe(array, basis)
        named = ", ".join(sorted(slow)) or "no member"
        row = CourseRow(
            "1",
            "slow disk",
            f"{leg} behind dm-delay {p.delay_ms} ms (as {device}); fio randwrite 4K for {p.runtime_s} s on "
            f"{course.name}",
            f"marked slow: {named}, by {figures}",
            device,
            ",".join(sorted(slow)),
            basis,
            roles(course.member(device)),
            lesson=COURSE_STEPS[0].lesson,
        )
    finally:
        course.clear(device)
    return [row]


def _flakey(course: CourseSession, leg: str) -> list[CourseRow]:
    p = course.params
    device, _dm = course.fault(leg, FaultSpec("flakey", up_s=p.up_s, down_s=p.down_s))
    before = course.member(device)
    deadline = time.monotonic() + 3 * (p.up_s + p.down_s)
    written = 0
    while time.monotonic() < deadline and not ((m := course.member(device)) is None or m.is_faulty):
        write_mib(course.lab, course.name, 1, course.control, offset_mib=written % 8)
        written += 1
        course.control.sleep(0.5)
    after = course.member(device)
    array = course.array()
    failed = after is not None and after.is_faulty
    errors = (before.errors if before else None, after.errors if after else None)
    state = roles(after)
    degraded = array.degraded if array is not None else None
    if failed:
        shown = (
            f"md failed {device}: state {state}, errors {n(errors[0])} → {n(errors[1])} (a failed write is "
            f"not a corrected error), {course.name} degraded: {n(degraded)} of 3 legs missing"
        )
    else:
        shown = f"md did not fail {device} in {3 * (p.up_s + p.down_s)} s of writes: state {state}"
    row = CourseRow(
        "2",
        "flakey disk",
        f"{leg} behind dm-flakey up {p.up_s} s, down {p.down_s} s (as {device}); {written} MiB written to "
        f"{course.name}, 1 MiB at a time; then the leg put back",
        shown,
        device,
        state=state,
        errors_before=errors[0],
        errors_after=errors[1],
        lesson=COURSE_STEPS[1].lesson,
    )
    course.clear(device)
    return [row]


STEP_RUNS: dict[str, Callable[[CourseSession, str], list[CourseRow]]] = {
    "slow": _slow,
    "flakey": _flakey,
    "unreadable": unreadable_step,
}
