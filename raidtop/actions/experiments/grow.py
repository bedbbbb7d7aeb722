"""Grow or convert a lab array: more disks (mdadm --grow --raid-devices) or another level (--level).

Only the lab's own arrays (:func:`~raidtop.actions.lab.guard.check_array`).
A level change comes first (raid1 → raid5 on two disks is a takeover md does
at once), then fresh lab disks are added as spares and the array is
reshaped onto them. A reshape that changes the number of data disks gets a
backup file for its critical section: a fresh name in the lab's images
folder, put on record before mdadm creates it (so a teardown after a crash
deletes it) and removed when the reshape is done. The reshape's progress,
speed and ETA are md's own (``/proc/mdstat``, ``md/sync_*``), live on the
dashboard; its duration goes into the array's timeline.
"""

from __future__ import annotations

import os
import shlex
import time

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.experiments.experiment import Control, ExperimentStopped, wait_idle
from raidtop.actions.lab.guard import check_array
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.lab.records import ImageRecord
from raidtop.actions.experiments.results import ExperimentResult, GrowRow, store_result
from raidtop.actions.lab.spec import MAX_DISKS, MIN_DISKS, SpecError, level_name
from raidtop.actions.lab.timeline import format_seconds
from raidtop.actions.member_actions import ActionRefused
from raidtop.model.units import counted

CONVERSIONS = {
    ("raid1", "raid5"),
    ("raid5", "raid6"),
    ("raid4", "raid5"),
    ("raid5", "raid4"),
    ("raid0", "raid5"),
    ("raid6", "raid5"),
}
"""Level changes ``mdadm --grow --level`` makes on a running array (the lab offers these)."""


@frozen_dataclass
class GrowPlan:
    """What :func:`run_grow` will do, as commands to show before anything runs."""

    array: str
    level_from: str
    level_to: str
    disks_from: int
    disks_to: int
    commands: tuple[str, ...]


def plan_grow(lab: Lab, array: str, disks: int | None = None, level: str | None = None) -> GrowPlan:
    """Check ``array`` is the lab's and the change is one md makes; raise SpecError or LabError with why."""
    name = array.removeprefix("/dev/")
    try:
        checked = check_array(name, lab.state(), lab.root)
    except ActionRefused as exc:
        raise LabError(str(exc)) from None
    current = (lab.root.read_optional(f"/sys/block/{name}/md/level") or checked.record.level).strip()
    raid_disks = int((lab.root.read_optional(f"/sys/block/{name}/md/raid_disks") or "0").strip() or 0)
    target_level = level_name(level) if level else current
    target_disks = raid_disks if disks is None else disks
    if target_level == current and target_disks == raid_disks:
        raise SpecError(f"{name} already is {current} on {counted(raid_disks, 'disk')}: nothing to change")
    if target_level != current and (current, target_level) not in CONVERSIONS:
        raise SpecError(
            f"the lab converts {', '.join(f'{a} → {b}' for a, b in sorted(CONVERSIONS))}; "
            f"not {current} → {target_level}"
        )
    if target_disks < raid_disks:
        raise SpecError(f"the lab only grows: {name} has {counted(raid_disks, 'disk')}, not fewer")
    if not max(MIN_DISKS.get(target_level, 2), 2) <= target_disks <= MAX_DISKS and target_disks != raid_disks:
        raise SpecError(f"{target_level} in the lab takes {MIN_DISKS.get(target_level, 2)} to {MAX_DISKS} disks")
    commands = []
    if target_level != current:
        commands.append(shlex.join(["mdadm", "--grow", f"/dev/{name}", f"--level={target_level.removeprefix('raid')}"]))
    for _ in range(target_disks - raid_disks):
        commands.append(
            f"truncate -s {checked.record.disk_size_bytes} {lab.registry.images_dir}/{name}-N.img && "
            f"mdadm /dev/{name} --add-spare $(losetup --find --show …)"
        )
    if target_disks != raid_disks:
        commands.append(shlex.join(_grow_disks_argv(name, target_disks, _backup_path(lab, name))))
    return GrowPlan(name, current, target_level, raid_disks, target_disks, tuple(commands))


def _grow_disks_argv(name: str, disks: int, backup: str) -> list[str]:
    return ["mdadm", "--grow", f"/dev/{name}", f"--raid-devices={disks}", f"--backup-file={backup}"]


def _backup_path(lab: Lab, name: str) -> str:
    index = 0
    while True:
        path = lab.registry.images_dir / f"{name}-reshape-{index}.backup"
        if not os.path.lexists(path) and lab.state().image(str(path)) is None:
            return str(path)
        index += 1


def run_grow(lab: Lab, plan: GrowPlan, control: Control | None = None, timeout: float = 1800.0) -> ExperimentResult:
    """Carry out ``plan``, wait for each reshape and time it; the array stays (it is the user's lab array)."""
    control = control or Control()
    name = plan.array
    control.total = 2 + (plan.disks_to - plan.disks_from) + (2 if plan.level_to != plan.level_from else 0)
    actions = LabMemberActions(lab, cache_s=0)
    started = time.time()
    rows: list[GrowRow] = []
    stopped = False
    try:
        control.step(f"waiting until {name} is idle")
        wait_idle(lab, name, control, timeout)
        if plan.level_to != plan.level_from:
            argv = ["mdadm", "--grow", f"/dev/{name}", f"--level={plan.level_to.removeprefix('raid')}"]
            control.step(f"{name}: {plan.level_from} → {plan.level_to}")
            rows.append(_reshape(lab, name, argv, f"{plan.level_from} → {plan.level_to}", control, timeout))
        for index in range(plan.disks_to - plan.disks_from):
            control.step(f"{name}: adding fresh disk {index + 1} of {plan.disks_to - plan.disks_from} as a spare")
            try:
                actions.run("add_spare", name, None)
            except ActionRefused as exc:
                raise LabError(str(exc)) from None
        if plan.disks_to != plan.disks_from:
            backup = _backup_path(lab, name)
            # On record before mdadm makes it: a teardown after a crash deletes it (mdadm creates it O_EXCL).
            with lab.registry.edit() as draft:
                draft.put_image(ImageRecord(backup, 0, time.time(), name, "planned"))
            control.step(f"{name}: reshape onto {counted(plan.disks_to, 'disk')}")
            rows.append(
                _reshape(
                    lab,
                    name,
                    _grow_disks_argv(name, plan.disks_to, backup),
                    f"raid-devices {plan.disks_from} → {plan.disks_to}",
                    control,
                    timeout,
                )
            )
            # Only once md is idle: mid-reshape mdadm may still need it; stopped early, teardown deletes it.
            lab.discard_image(backup)
    except ExperimentStopped:
        stopped = True
    from raidtop.actions.experiments.experiment import tuning_in_force

    result = ExperimentResult(
        "grow",
        {"array": name, "level": plan.level_to, "disks": str(plan.disks_to)},
        tuple(rows),
        tuning_in_force(lab, name) if lab.root.exists(f"/sys/block/{name}/md") else {},
        started,
        time.time(),
        stopped=stopped,
        commands=tuple(r.command for r in rows),
    )
    return store_result(lab.store, result)


def _reshape(lab: Lab, name: str, argv: list[str], change: str, control: Control, timeout: float) -> GrowRow:
    """Run one mdadm --grow, wait until md is idle again, record the duration in the timeline."""
    when = time.time()
    lab.runner.run(argv, array=name, timeout=300)
    lab.record_event(name, "grow", detail=f"{change}: {shlex.join(argv)}", when=when)
    wait_idle(lab, name, control, timeout)
    seconds = time.time() - when
    level = (lab.root.read_optional(f"/sys/block/{name}/md/level") or "").strip()
    if level:
        with lab.registry.edit() as draft:
            record = draft.state.array(name)
            if record is not None:
                disks = int((lab.root.read_optional(f"/sys/block/{name}/md/raid_disks") or "0").strip() or 0)
                draft.update_array(name, level=level, raid_disks=disks or record.raid_disks)
    lab.record_event(name, "grown", detail=f"{change} in {format_seconds(seconds)}")
    return GrowRow(name, change, round(seconds, 2), shlex.join(argv))
