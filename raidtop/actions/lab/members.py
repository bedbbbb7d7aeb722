"""Member actions on lab arrays: the :class:`~raidtop.actions.member_actions.MemberActions` of the lab.

fail, remove, add (a fresh disk), re_add, add_spare, replace (onto a spare),
check, repair and speed_limit. Each verb is planned from the kernel's view
at that moment (:meth:`LabMemberActions.plan`): the guard first, so an
array with any member that is not one of the lab's loop devices is refused
for every verb; then the verb's own rules (raid0 cannot lose a disk, only a
faulty or spare member can be removed, replace needs a spare). The plan's
``command`` is what the confirm dialog shows and exactly what runs.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.lab.guard import CheckedArray, check_array, check_member, lab_image_of
from raidtop.actions.lab.commands import LabCommandFailed
from raidtop.actions.lab.timeline import read_status
from raidtop.actions.member_actions import ActionRefused
from raidtop.actions.tuning import write_setting
from raidtop.actions.lab.registry import LabRegistry

LAB_VERBS = ("fail", "remove", "add", "re_add", "add_spare", "replace", "check", "repair", "speed_limit")
"""Every verb the lab implements."""
SPEED_STEPS_KIB = (1_000, 10_000, 50_000, None)
"""What ``speed_limit`` cycles ``sync_speed_max`` through; ``None`` is the system default."""
LIVE_ONLY = "the lab acts on the live system only, not on a --root tree or a replay"
"""Why a lab action is refused under ``--root`` or a replay."""
_NO_REDUNDANCY = "raid0 has no redundancy: losing a disk loses the array, so md offers nothing to {verb}"


@frozen_dataclass
class MemberPlan:
    """One verb, checked and ready: the exact command and how to run it."""

    verb: str
    array: str
    member: str | None
    command: str
    execute: Callable[[], str]
    """Runs it; returns the command that ran (with the loop device chosen, for a fresh disk)."""


class LabMemberActions:
    """The lab's member actions, for the Arrays panel, the Lab screen and ``raidtop lab``."""

    simulated = False
    """Real arrays: every action is confirmed with its command."""

    def __init__(self, lab: Lab, cache_s: float = 2.0, *, live_only: bool = True) -> None:
        self.lab = lab
        self._cache_s = cache_s
        self._live_only = live_only
        self._levels: dict[str, str] = {}
        self._checked_at = float("-inf")
        self._stamp: tuple[float, int] | None = None

    # -------------------------------------------------------------- MemberActions

    def handles(self, array: str) -> bool:
        """True for arrays in the lab registry (cached: the UI asks on every key refresh).

        Never under ``--root`` or a replay: an md name there says nothing about this machine.
        """
        if self._live_only and not self.lab.root.is_live:
            return False
        return array in self.lab_arrays()

    def offered(self, array: str) -> frozenset[str]:
        """Every lab verb on a lab array that can lose a disk; nothing on raid0 or anything else."""
        if not self.handles(array) or self._levels.get(array) == "raid0":
            return frozenset()
        return frozenset(LAB_VERBS)

    def command(self, verb: str, array: str, member: str | None) -> str:
        """The exact command :meth:`run` would run now; ActionRefused with the reason otherwise."""
        return self.plan(verb, array, member).command

    def run(self, verb: str, array: str, member: str | None) -> str:
        """Check again (things change while a dialog is open) and do it."""
        return run_lab_plan(self.lab, lambda: self.plan(verb, array, member).execute, live_only=self._live_only)

    # -------------------------------------------------------------- planning

    def lab_arrays(self) -> frozenset[str]:
        """Names of the lab's arrays, re-read when the registry file changed (at most every ``cache_s``)."""
        now = time.monotonic()
        if now - self._checked_at >= self._cache_s:
            self._checked_at = now
            registry: LabRegistry = self.lab.registry
            try:
                info = registry.path.stat()
                stamp = (info.st_mtime, info.st_size)
            except OSError:
                stamp = None
            if stamp != self._stamp:
                self._stamp = stamp
                try:
                    self._levels = {a.name: a.level for a in registry.read().arrays}
                except Exception:  # noqa: BLE001 - an unreadable registry offers no verbs; the guard says why on use
                    self._levels = {}
        return frozenset(self._levels)

    def plan(self, verb: str, array: str, member: str | None) -> MemberPlan:
        """Check ``verb`` on ``array``/``member`` and build its command; ActionRefused with the reason."""
        if verb not in LAB_VERBS:
            raise ActionRefused(f"the lab has no action called {verb}")
        array = array.removeprefix("/dev/")
        checked = check_array(array, self.lab.state(), self.lab.root)
        level = checked.record.level
        if level == "raid0":
            raise ActionRefused(_NO_REDUNDANCY.format(verb=verb.replace("_", " ")))
        return getattr(self, f"_plan_{verb}")(checked, member)

    def _roles(self, array: str, member: str) -> tuple[set[str], str | None]:
        state = self.lab.root.read_optional(f"/sys/block/{array}/md/dev-{member}/state") or ""
        slot = (self.lab.root.read_optional(f"/sys/block/{array}/md/dev-{member}/slot") or "").strip() or None
        return set(state.replace(",", " ").split()), slot

    def _plan_fail(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        name = checked.record.name
        member = check_member(checked, member, "fail")
        roles, _slot = self._roles(name, member)
        if "faulty" in roles:
            raise ActionRefused(f"{member} is already faulty in {name}: remove it (r)")
        argv = ["mdadm", f"/dev/{name}", "--fail", f"/dev/{member}"]

        def execute() -> str:
            when = time.time()
            self.lab.runner.run(argv, array=name)
            self.lab.record_event(name, "failed", member, "by the lab", when=when)
            self.lab.observe(name)
            return shlex.join(argv)

        return MemberPlan("fail", name, member, shlex.join(argv), execute)

    def _plan_remove(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        name = checked.record.name
        member = check_member(checked, member, "remove")
        roles, _slot = self._roles(name, member)
        if "faulty" not in roles and "spare" not in roles:
            raise ActionRefused(f"{member} is an active member of {name}: fail it first (f), then remove it")
        argv = ["mdadm", f"/dev/{name}", "--remove", f"/dev/{member}"]

        def execute() -> str:
            when = time.time()
            self.lab.runner.run(argv, array=name)
            # The loop device stays attached: it can be re-added.
            self.lab.record_event(name, "removed", member, when=when)
            self.lab.observe(name)
            return shlex.join(argv)

        return MemberPlan("remove", name, member, shlex.join(argv), execute)

    def _plan_fresh(self, checked: CheckedArray, verb: str, option: str, event: str) -> MemberPlan:
        name = checked.record.name
        size = checked.record.disk_size_bytes
        path = self.lab._free_image_path(name, self.lab.state())
        quoted = shlex.quote(str(path))
        command = f"truncate -s {size} {quoted} && mdadm /dev/{name} {option} $(losetup --find --show {quoted})"

        def execute() -> str:
            degraded = bool(read_status(name, self.lab.root).degraded)
            image = self.lab.new_disk(name, size)
            argv = ["mdadm", f"/dev/{name}", option, f"/dev/{image.loop}"]
            started = time.time()
            if degraded:
                self.lab.expect_sync(name, "recovery", started, image.loop)
            try:
                self.lab.runner.run(argv, array=name)
            except LabCommandFailed:
                self._discard(image.path)
                raise
            self.lab.record_event(name, event, image.loop, f"fresh disk {path.name}", when=started)
            self.lab.observe(name)
            return (
                f"truncate -s {size} {shlex.quote(image.path)} && losetup --find --show {shlex.quote(image.path)} "
                f"&& {shlex.join(argv)}"
            )

        return MemberPlan(verb, name, None, command, execute)

    def _plan_add(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        return self._plan_fresh(checked, "add", "--add", "added")

    def _plan_add_spare(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        return self._plan_fresh(checked, "add_spare", "--add-spare", "spare_added")

    def _plan_re_add(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        name = checked.record.name
        state = self.lab.state()
        if member:
            member = member.removeprefix("/dev/")
            if member in checked.members:
                raise ActionRefused(f"{member} is still in {name}: remove it first (r), then re-add it")
            candidates = [member]
        else:
            candidates = self._removed_disks(checked)
        usable = [
            m
            for m in candidates
            if (image := lab_image_of(m, state, self.lab.root)) is not None and image.array == name
        ]
        if not usable:
            if member:
                raise ActionRefused(f"{member} is not one of {name}'s lab disks")
            raise ActionRefused(f"{name} has no removed lab disk to re-add: remove one first (f, then r)")
        member = usable[0]
        argv = ["mdadm", f"/dev/{name}", "--re-add", f"/dev/{member}"]

        def execute() -> str:
            started = time.time()
            if read_status(name, self.lab.root).degraded:
                self.lab.expect_sync(name, "recovery", started, member)
            self.lab.runner.run(argv, array=name)
            self.lab.record_event(name, "re_added", member, when=started)
            self.lab.observe(name)
            return shlex.join(argv)

        return MemberPlan("re_add", name, member, shlex.join(argv), execute)

    def _removed_disks(self, checked: CheckedArray) -> list[str]:
        """The array's lab disks that are attached but no longer members, most recently removed first."""
        removed = [e.member for e in reversed(checked.record.timeline) if e.kind == "removed" and e.member]
        attached = [
            i.loop
            for i in self.lab.state().images_of(checked.record.name)
            if i.state == "attached" and i.loop and i.loop not in checked.members
        ]
        ordered = [m for m in dict.fromkeys(removed) if m in attached]
        return ordered + [m for m in attached if m not in ordered]

    def _plan_replace(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        name = checked.record.name
        member = check_member(checked, member, "replace")
        roles, _slot = self._roles(name, member)
        if "in_sync" not in roles or "faulty" in roles:
            raise ActionRefused(
                f"{member} is not an in-sync member of {name}; replace copies a working disk onto a spare"
            )
        spares = []
        for other in checked.members:
            other_roles, slot = self._roles(name, other)
            if "spare" in other_roles and "faulty" not in other_roles and slot in (None, "none"):
                spares.append(other)
        if not spares:
            raise ActionRefused(f"{name} has no spare to replace {member} with: add a spare first")
        spare = spares[0]
        argv = ["mdadm", f"/dev/{name}", "--replace", f"/dev/{member}", "--with", f"/dev/{spare}"]

        def execute() -> str:
            started = time.time()
            self.lab.expect_sync(name, "replace", started, member)
            self.lab.runner.run(argv, array=name)
            self.lab.record_event(name, "replace", member, f"onto {spare}", when=started)
            self.lab.observe(name)
            return shlex.join(argv)

        return MemberPlan("replace", name, member, shlex.join(argv), execute)

    def _plan_sync(self, checked: CheckedArray, action: str) -> MemberPlan:
        name = checked.record.name
        status = read_status(name, self.lab.root)
        if not status.idle:
            raise ActionRefused(f"{name} is busy ({status.sync or 'a sync is pending'}): wait until it is idle")
        return self._md_setting_plan(action, name, "sync_action", action, lambda: self.lab.observe(name))

    def _plan_check(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        return self._plan_sync(checked, "check")

    def _plan_repair(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        return self._plan_sync(checked, "repair")

    def _plan_speed_limit(self, checked: CheckedArray, member: str | None) -> MemberPlan:
        return self.speed_limit_plan(
            checked.record.name,
            next_speed_limit(self.lab.root.read_optional(f"/sys/block/{checked.record.name}/md/sync_speed_max")),
        )

    def speed_limit_plan(self, array: str, kib_s: int | None, attr: str = "sync_speed_max") -> MemberPlan:
        """Set ``array``'s rebuild speed limit to ``kib_s`` KiB/s (``None``: the system default).

        ``attr`` ``sync_speed_min`` sets the floor md keeps even while the array is busy.
        """
        if attr not in ("sync_speed_max", "sync_speed_min"):
            raise ActionRefused(f"{attr} is not a rebuild speed limit")
        array = array.removeprefix("/dev/")
        check_array(array, self.lab.state(), self.lab.root)
        value = "system" if kib_s is None else str(int(kib_s))
        detail = "system default" if kib_s is None else f"{kib_s} KiB/s"
        detail += " (floor)" if attr == "sync_speed_min" else ""
        return self._md_setting_plan(
            "speed_limit", array, attr, value, lambda: self.lab.record_event(array, "speed_limit", detail=detail)
        )

    def _md_setting_plan(
        self, verb: str, array: str, attr: str, value: str, afterwards: Callable[[], object]
    ) -> MemberPlan:
        """A plan that writes one md sysfs setting through the shared sysfs writer, in the lab's runner
        (so it is shown, logged and undoable like any tuning change), then records what happened."""
        command = f"echo {value} > /sys/block/{array}/md/{attr}"

        def execute() -> str:
            self.lab.runner.python(
                command,
                lambda: write_setting(self.lab.root, array, attr, value, by="lab", log=self.lab.runner.log),
                array=array,
            )
            afterwards()
            return command

        return MemberPlan(verb, array, None, command, execute)

    def _discard(self, path: str) -> None:
        # A fresh disk mdadm would not take is of no use: detach and delete it now, as teardown would.
        self.lab.discard_image(path)


def run_lab_plan(lab: Lab, plan: Callable[[], Callable[[], str]], *, live_only: bool) -> str:
    """Plan a lab action and run it; what went wrong becomes ActionRefused with its sentence.

    ``plan`` checks the action and returns its ``execute``, which runs every command through the lab's
    runner (shown and logged there) and returns the command that ran. Planning happens here, not when
    the dialog opened: things change while a dialog is open. A refusal while planning propagates as
    it is; a failed command, a lab error or an OSError while running is refused with ``str(exc)``.
    """
    if live_only and not lab.root.is_live:
        raise ActionRefused(LIVE_ONLY)
    execute = plan()
    try:
        return execute()
    except (LabCommandFailed, LabError, OSError) as exc:
        raise ActionRefused(str(exc)) from None


def next_speed_limit(current: str | None) -> int | None:
    """The step after ``current`` (sysfs ``sync_speed_max``: ``200000 (system)`` or ``5000 (local)``)."""
    text = (current or "").strip()
    local = "(local)" in text
    number = int(text.split()[0]) if text and text.split()[0].isdigit() else None
    if not local or number is None:
        return SPEED_STEPS_KIB[0]
    for index, step in enumerate(SPEED_STEPS_KIB[:-1]):
        if number == step:
            return SPEED_STEPS_KIB[index + 1]
    return next((s for s in SPEED_STEPS_KIB[:-1] if s > number), None)
