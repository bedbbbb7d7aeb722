"""The faults course's session (the array, its legs as md's reader sees them, faults set and cleared) and step 3.

Step 3, unreadable sectors, is the longest: a leg behind dm-dust over two
4 KiB blocks, a ``check`` that rewrites them, then the range armed again and
a direct read sent to that leg (its siblings write-mostly), which md repairs
and counts in the leg's ``errors``.
"""

from __future__ import annotations

import mmap
import os
import re
import time

from raidtop.actions.experiments.course_results import COURSE_STEPS, CourseParams, CourseRow, Judge
from raidtop.actions.experiments.experiment import Control, wait_idle
from raidtop.actions.lab.array_device import open_array_device
from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.lab.dmfault import plan_clear, plan_fault
from raidtop.actions.lab.dmtables import DUST_SECTORS, FaultSpec, dust_blocks, lab_dm_devices
from raidtop.actions.lab.guard import check_array
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.member_actions import ActionRefused
from raidtop.actions.tuning.sysfs_write import write_attribute
from raidtop.collect.md.read import read_md
from raidtop.model.md import MdArray, MdMember

UNREADABLE_INTO = 8192
"""Sectors into the leg's data area where the unreadable range starts (past md's metadata, 4 KiB-aligned)."""
UNREADABLE_SECTORS = 2 * DUST_SECTORS
BACK_TIMEOUT_S = 300.0
LESSON = COURSE_STEPS[2].lesson


class CourseSession:
    """One course run's shared pieces: the lab, the array, the parameters, the control, the printer."""

    def __init__(self, lab: Lab, name: str, params: CourseParams, control: Control, say, judge: Judge) -> None:
        self.lab, self.name, self.params, self.control, self.say, self.judge = lab, name, params, control, say, judge
        self.md = f"/sys/block/{name}/md"

    def member(self, device: str) -> MdMember | None:
        """``device`` as raidtop's md reader sees it now."""
        array = self.array()
        return next((m for m in array.members if m.name == device), None) if array is not None else None

    def members(self) -> list[str]:
        """The array's members now (kernel names: ``loop3``, ``dm-0``)."""
        array = self.array()
        return [m.name for m in array.members] if array is not None else []

    def array(self) -> MdArray | None:
        """The array as raidtop's md reader sees it now, or ``None`` when it is gone."""
        return next((a for a in read_md(self.lab.root).arrays if a.name == self.name), None)

    def fault(self, leg: str, spec: FaultSpec) -> tuple[str, str]:
        """Put ``leg`` behind ``spec`` through the lab's plan; (md's name for it ``dm-N``, the dm name)."""
        try:
            plan_fault(self.lab, self.name, leg, spec).execute()
        except ActionRefused as exc:
            raise LabError(str(exc)) from None
        found = next(((dev, dm) for dev, dm, loop in lab_dm_devices(self.lab.root) if loop == leg), None)
        if found is None:
            raise LabError(f"the dm device over {leg} did not appear")
        # A flakey leg may fail before it is whole again (its down time can come during the resync).
        self.back(whole=spec.kind != "flakey")
        return found

    def clear(self, device: str) -> None:
        """Take ``device`` out of its fault and back onto its loop, as ``raidtop lab clear`` does."""
        try:
            plan_clear(self.lab, self.name, device).execute()
        except ActionRefused as exc:
            raise LabError(str(exc)) from None
        self.back(whole=True)

    def back(self, whole: bool) -> None:
        """Wait until md is idle (and, ``whole``, no leg missing: the re-add's resync has run)."""
        deadline = time.monotonic() + BACK_TIMEOUT_S
        wait_idle(self.lab, self.name, self.control)
        while whole and time.monotonic() < deadline:
            array = self.array()
            if array is None or not array.degraded:
                return
            self.control.sleep(0.1)
            wait_idle(self.lab, self.name, self.control)

    def sysfs_int(self, attr: str) -> int | None:
        text = (self.lab.root.read_optional(f"{self.md}/{attr}") or "").strip()
        return int(text) if text.isdigit() and len(text) < 19 else None

    def dust_count(self, dm: str) -> int | None:
        """Blocks in dm-dust's bad-block list (``dmsetup message … countbadblocks``)."""
        event = self.lab.runner.run(["dmsetup", "message", dm, "0", "countbadblocks"], check=False, array=self.name)
        found = re.search(r"countbadblocks: ([0-9]{1,9}) badblock", f"{event.output} {event.error}")
        return int(found.group(1)) if found else None


def unreadable_spec(offset: int) -> FaultSpec:
    """Two dust blocks :data:`UNREADABLE_INTO` sectors into a leg whose data starts at sector ``offset``."""
    start = -(-(offset + UNREADABLE_INTO) // DUST_SECTORS) * DUST_SECTORS
    return FaultSpec("unreadable", start=start, length=UNREADABLE_SECTORS)


def unreadable_step(course: CourseSession, leg: str) -> list[CourseRow]:
    offset = course.sysfs_int(f"dev-{leg}/offset")
    if offset is None:
        raise LabError(f"{leg}'s data offset is unreadable ({course.md}/dev-{leg}/offset)")
    spec = unreadable_spec(offset)
    start = spec.start
    device, dm = course.fault(leg, spec)
    where = f"sectors {start}–{start + UNREADABLE_SECTORS - 1} of {leg}"
    rows: list[CourseRow] = []
    try:
        armed = course.dust_count(dm)
        before = course.member(device)
        try:
            LabMemberActions(course.lab, cache_s=0).run("check", course.name, None)
        except ActionRefused as exc:
            raise LabError(str(exc)) from None
        wait_idle(course.lab, course.name, course.control)
        mismatch, left, after = course.sysfs_int("mismatch_cnt"), course.dust_count(dm), course.member(device)
        rows.append(
            CourseRow(
                "3a",
                "unreadable sectors, a check",
                f"{where} unreadable (dm-dust, {n(armed)} blocks of 4 KiB; as {device}); "
                f"echo check > {course.md}/sync_action",
                f"mismatch_cnt {n(mismatch)}: md read a good leg and rewrote the window; dust's list "
                f"{n(armed)} → {n(left)} blocks{': the range reads again' if left == 0 else ''}",
                device,
                state=roles(after),
                errors_before=before.errors if before else None,
                errors_after=after.errors if after else None,
                mismatch_cnt=mismatch,
                unreadable_left=left,
                lesson=LESSON,
            )
        )
        rows.append(_read_variant(course, leg, device, dm, spec, offset))
    finally:
        course.clear(device)
    return rows


def _read_variant(course: CourseSession, leg: str, device: str, dm: str, spec: FaultSpec, offset: int) -> CourseRow:
    """The range armed again, the other legs write-mostly, a direct read: md repairs it and counts errors."""
    runner = course.lab.runner
    for block in dust_blocks(spec):
        runner.run(["dmsetup", "message", dm, "0", "addbadblock", str(block)], array=course.name)
    armed = course.dust_count(dm)
    others = [m for m in course.members() if m != device]
    before = course.member(device)
    try:
        for other in others:
            _member_flag(course, other, "writemostly")
        _read_direct(course, (spec.start - offset) * 512, spec.length * 512)
        after = course.member(device)
    finally:
        for other in others:
            _member_flag(course, other, "-writemostly", check=False)
    left = course.dust_count(dm)
    errors = (before.errors if before else None, after.errors if after else None)
    gained = errors[1] - errors[0] if errors[0] is not None and errors[1] is not None else None
    return CourseRow(
        "3b",
        "unreadable sectors, a read",
        f"the range armed again ({n(armed)} blocks), {', '.join(others)} write-mostly; a direct read of it "
        f"through {course.name}",
        f"{device} errors {n(errors[0])} → {n(errors[1])} ({'+' if gained and gained > 0 else ''}{n(gained)} "
        f"sectors md read elsewhere, rewrote and counted as corrected); dust's list {n(armed)} → {n(left)}",
        device,
        state=roles(after),
        errors_before=errors[0],
        errors_after=errors[1],
        unreadable_left=left,
        lesson=LESSON,
    )


def _member_flag(course: CourseSession, member: str, flag: str, check: bool = True) -> None:
    """``echo FLAG > …/dev-MEMBER/state`` (md's member flags are no tuning knob: written as mdadm does)."""
    path = f"{course.md}/dev-{member}/state"
    course.lab.runner.python(
        f"echo {flag} > {path}",
        lambda: write_attribute(str(course.lab.root.resolve(path)), flag),
        check=check,
        array=course.name,
    )


def _read_direct(course: CourseSession, offset: int, length: int) -> None:
    """Read ``length`` bytes at ``offset`` of the lab array with O_DIRECT (shown and logged as dd)."""
    name = course.name
    try:
        check_array(name, course.lab.state(), course.lab.root)
    except ActionRefused as exc:
        raise LabError(str(exc)) from None
    command = f"dd if=/dev/{name} of=/dev/null bs=512 skip={offset // 512} count={length // 512} iflag=direct"

    def read() -> None:
        fd = open_array_device(course.lab, name, os.O_RDONLY | os.O_DIRECT, "read")
        try:
            buffer = mmap.mmap(-1, length)  # page-aligned, as O_DIRECT needs
            try:
                os.preadv(fd, [buffer], offset)
            finally:
                buffer.close()
        finally:
            os.close(fd)

    course.lab.runner.python(command, read, array=name)


def n(value: int | None) -> str:
    """A figure or ``?`` when it could not be read."""
    return "?" if value is None else str(value)


def roles(member: MdMember | None) -> str:
    """md's ``dev-*/state`` words of ``member`` (``gone`` when md no longer lists it)."""
    return ",".join(member.roles) if member is not None else "gone"
