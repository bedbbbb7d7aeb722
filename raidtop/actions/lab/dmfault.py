"""Put a lab member behind a device-mapper fault (delay, flakey, error or unreadable range), and take it out again.

The member leaves the array and comes back on the dm device over the same loop
(mdadm --fail, --remove, dmsetup create, mdadm --add); clearing is the reverse.
With a write-intent bitmap md re-adds the device and resyncs only what changed;
without one it rebuilds it. Everything goes through the guard (only the lab's own
arrays of its own loop devices and its own dm devices over them), is planned as
the exact commands first (what the confirmation shows and what runs), and runs
through the lab's :class:`~raidtop.actions.lab.commands.CommandRunner` (shown and logged).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.dmtables import (
    FaultRefused,
    FaultSpec,
    check_spec,
    device_mapper_missing,
    dm_loop_under,
    dm_name_for,
    dm_table,
    dust_blocks,
    dust_missing,
    kernel_text,
)
from raidtop.actions.lab.guard import check_array, check_member
from raidtop.actions.lab.loopdev import is_loop_name
from raidtop.actions.member_actions import ActionRefused
from raidtop.collect.source import SourceError


@frozen_dataclass
class FaultPlan:
    """A fault set up or cleared, checked and ready: the exact commands and how to run them."""

    verb: str
    """``fault`` or ``clear``."""
    array: str
    member: str
    commands: tuple[tuple[str, ...], ...]
    execute: Callable[[], str]

    @property
    def command(self) -> str:
        """Every command, as one shell line, for the confirmation."""
        return " && ".join(shlex.join(argv) for argv in self.commands)


def attribute(lab: Lab, path: str) -> str:
    """A sysfs attribute's text (``""`` when there is none); ActionRefused naming it when something else is there.

    A fault is planned from what these files say: what is no attribute file is refused in
    its own words (:func:`~raidtop.actions.lab.dmtables.kernel_text`).
    """
    try:
        return kernel_text(lab.root, path)
    except SourceError as exc:
        raise ActionRefused(f"{exc}; no fault is planned from it") from None


def loop_sectors(lab: Lab, loop: str) -> int:
    """The loop device's size in 512-byte sectors, from sysfs; 0 when unknown."""
    text = attribute(lab, f"/sys/block/{loop}/size").strip()
    return int(text) if text.isdigit() and len(text) < 19 else 0


def plan_fault(lab: Lab, array: str, member: str, spec: FaultSpec) -> FaultPlan:
    """Plan putting ``member`` (a lab loop device of ``array``) behind ``spec``; ActionRefused otherwise."""
    checked = check_array(array.removeprefix("/dev/"), lab.state(), lab.root)
    name = checked.record.name
    member = check_member(checked, member, "fault")
    if not is_loop_name(member):
        raise ActionRefused(f"{member} is already behind a fault: clear it first")
    if checked.record.level == "raid0":
        raise ActionRefused("raid0 has no redundancy: taking a member out to put it behind a fault loses the array")
    missing = device_mapper_missing(lab.root)
    if missing is not None:
        raise ActionRefused(missing)
    try:
        table = dm_table(check_spec(spec, loop_sectors(lab, member)), f"/dev/{member}", loop_sectors(lab, member))
        dm = dm_name_for(name, member)
    except FaultRefused as exc:
        raise ActionRefused(str(exc)) from None
    if spec.kind == "unreadable":
        _check_unreadable(lab, name, member, spec)
    concise = f"{dm},,,rw," + ",".join(table.splitlines())
    commands: tuple[tuple[str, ...], ...] = (
        ("mdadm", f"/dev/{name}", "--fail", f"/dev/{member}"),
        ("mdadm", f"/dev/{name}", "--remove", f"/dev/{member}"),
        ("dmsetup", "create", "--concise", concise),
        # Without udev (a rescue shell, a minimal guest) nothing makes /dev/mapper/NAME: mknodes does.
        ("dmsetup", "mknodes", dm),
    )
    if spec.kind == "unreadable":
        # The list is armed before md sees the device: the bitmap re-add then writes only what changed.
        commands += tuple(("dmsetup", "message", dm, "0", "addbadblock", str(b)) for b in dust_blocks(spec))
        commands += (("dmsetup", "message", dm, "0", "enable"),)
    commands += (("mdadm", f"/dev/{name}", "--add", f"/dev/mapper/{dm}"),)

    def execute() -> str:
        when = time.time()
        for argv in commands:
            lab.runner.run(list(argv), array=name)
        lab.record_event(name, "fault", member, f"{spec.kind}: {spec.describe()}", when=when)
        lab.observe(name)
        return " && ".join(shlex.join(argv) for argv in commands)

    return FaultPlan("fault", name, member, commands, execute)


def _check_unreadable(lab: Lab, array: str, member: str, spec: FaultSpec) -> None:
    """Refuse an ``unreadable`` range md would rewrite at once or could not come back over."""
    missing = dust_missing(lab.root)
    if missing is not None:
        raise ActionRefused(missing)
    md = f"/sys/block/{array}/md"
    if (attribute(lab, f"{md}/bitmap/location") or "none").strip() == "none":
        raise ActionRefused(
            f"{array} has no write-intent bitmap: md would rebuild {member} as it comes back, and that rewrite "
            "repairs the unreadable range at once (create the lab array with --bitmap)"
        )
    offset = attribute(lab, f"{md}/dev-{member}/offset").strip()
    if not offset.isdigit() or len(offset) > 18:
        raise ActionRefused(f"{member}'s data offset is unreadable ({md}/dev-{member}/offset)")
    if spec.start < int(offset):
        raise ActionRefused(
            f"the unreadable range must start in {member}'s data area, at sector {offset} or later: before it "
            "are md's superblock and bitmap, which md must read to take the member back"
        )


def plan_clear(lab: Lab, array: str, member: str) -> FaultPlan:
    """Plan taking ``member`` (the lab dm device, ``dm-N``) out of ``array`` and back onto its loop."""
    checked = check_array(array.removeprefix("/dev/"), lab.state(), lab.root)
    name = checked.record.name
    member = check_member(checked, member, "clear")
    under = dm_loop_under(member, lab.root)
    if under is None:
        raise ActionRefused(f"{member} is not behind a lab fault")
    dm, loop = under
    roles = attribute(lab, f"/sys/block/{name}/md/dev-{member}/state").strip().split(",")
    commands: tuple[tuple[str, ...], ...] = (("dmsetup", "mknodes", dm),)
    if "faulty" not in roles:
        commands += (("mdadm", f"/dev/{name}", "--fail", f"/dev/mapper/{dm}"),)
    commands += (
        ("mdadm", f"/dev/{name}", "--remove", f"/dev/mapper/{dm}"),
        ("dmsetup", "remove", dm),
        ("mdadm", f"/dev/{name}", "--add", f"/dev/{loop}"),
    )

    def execute() -> str:
        when = time.time()
        for argv in commands:
            lab.runner.run(list(argv), array=name)
        lab.record_event(name, "fault cleared", loop, dm, when=when)
        lab.observe(name)
        return " && ".join(shlex.join(argv) for argv in commands)

    return FaultPlan("clear", name, member, commands, execute)
