"""A tuning session: read knobs, plan a change, apply it (write, read back, log) and undo it.

Every write of a kernel attribute in raidtop goes through :meth:`TuningSession.apply`:
the Tuning screen, ``raidtop tune``, the fio sweep and the lab's md actions
(:func:`write_setting`). Nothing here raises on a failed write: the kernel's
error becomes a sentence in a :class:`ChangeResult`.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from collections.abc import Iterable

from raidtop.actions.action_log import ActionLog, LoggedAction
from raidtop.actions.tuning.changes import ChangeResult, Plan, Refusal, log_change
from raidtop.actions.tuning.eta import ArrayLimits, EffectTracker, EtaPrediction, array_limits, predictions_for_change
from raidtop.actions.tuning.knobs import (
    SPECS,
    SPEED_KNOBS,
    Knob,
    Target,
    TuningError,
    dev_name,
    shell_command,
    sys_name,
)
from raidtop.actions.tuning.reading import first_int, list_targets, missing_reason, read_knobs
from raidtop.actions.tuning.sysfs_write import describe_write_error, write_attribute
from raidtop.actions.tuning.undo import (
    Touched,
    changed_since,
    close_undone,
    is_request,
    needed_for_undo_all,
    undo_all_restores,
    undo_restores,
)
from raidtop.actions.tuning.validation import SPEED_PAIRS, change_warnings, check_value
from raidtop.collect.source import Root, as_root
from raidtop.model.md import MdArray


class TuningSession:
    """Changes knobs under one root, remembering start values, undo history and results.

    Start values are the values when the session first read a target (the
    Tuning screen's first look, or the read before raidtop's first write to it),
    so raidtop's own changes are never taken for the start. Every write
    attempted, undos and refused writes included, is appended to the
    :class:`ActionLog` with ``kind="tune"``; writes not attempted (invalid, not
    root, already set) are not, except an undo that finds the old value in
    place, logged so :func:`changes_from_log` closes that change.
    """

    def __init__(
        self,
        root: Root | str | os.PathLike[str] = "/",
        log: ActionLog | None = None,
        *,
        privileged: bool | None = None,
        clock=time.time,
    ) -> None:
        self.root = as_root(root)
        self.log = log if log is not None else ActionLog()
        self.privileged = (os.geteuid() == 0) if privileged is None else privileged
        """True when writes to the live system can succeed (root)."""
        self.clock = clock
        self.results: list[ChangeResult] = []
        """Every write attempted or refused in this session, oldest first."""
        self.effects = EffectTracker()
        """Sync rates before and after speed-limit changes, fed by the screen's snapshots."""
        self._start: dict[tuple[str, str], str | None] = {}
        self._undo: list[ChangeResult] = []
        self._touched = Touched()
        # The screen's workers, the lab and a sweep may share this session from several threads.
        self._lock = threading.RLock()

    # -------------------------------------------------------------- reading

    @property
    def needs_sudo(self) -> bool:
        """True when changes to the live system need sudo (not root)."""
        return self.root.is_live and not self.privileged

    def targets(self) -> list[Target]:
        """Every tunable target under the root."""
        return list_targets(self.root)

    def knobs(self, target: str, *, requests: bool = False) -> list[Knob]:
        """The target's knobs with their start values; raises :class:`TuningError` if unknown.

        ``requests`` adds md's ``sync_action`` (see :attr:`KnobSpec.request`).
        """
        knobs = read_knobs(self.root, target, requests=requests)
        out = []
        with self._lock:
            for knob in knobs:
                key = (knob.target, knob.attr)
                if key not in self._start:
                    self._start[key] = knob.value
                out.append(replace(knob, start=self._start[key]))
        return out

    def knob(self, target: str, attr: str) -> Knob | None:
        """One knob, or ``None`` when the target does not have it."""
        return next((k for k in self.knobs(target, requests=is_request(attr)) if k.attr == attr), None)

    def start_value(self, target: str, attr: str) -> str | None:
        """The value at start, if the session has read it."""
        return self._start.get((dev_name(target), attr))

    def _values(self, target: str, *, requests: bool = False) -> dict[str, str | None]:
        try:
            return {k.attr: k.value for k in read_knobs(self.root, target, requests=requests)}
        except TuningError:
            return {}

    # -------------------------------------------------------------- planning

    def plan(
        self, target: str, attr: str, text: str, *, undo_of: float | None = None, undo_all: bool = False
    ) -> Plan | Refusal:
        """Validate ``text`` for ``attr`` of ``target``; nothing is written."""
        target = dev_name(target)
        if attr not in SPECS:
            return Refusal(target, attr, f"{attr!r} is not a knob raidtop changes (known: {', '.join(SPECS)})")
        try:
            knob = self.knob(target, attr)
        except TuningError as exc:
            return Refusal(target, attr, str(exc))
        if knob is None:
            return Refusal(target, attr, missing_reason(self.root, target, attr))
        checked = check_value(knob, text)
        if checked.error is not None or checked.value is None:
            return Refusal(target, attr, checked.error or "refused")
        new = checked.value
        warning, notes = self._warnings(knob, new)
        return Plan(
            target,
            attr,
            knob.path,
            knob.value,
            new,
            shell_command(target, attr, new),
            shell_command(target, attr, new, sudo=True),
            warning,
            notes,
            undo_of,
            undo_all,
        )

    def _warnings(self, knob: Knob, new: str) -> tuple[str, tuple[str, ...]]:
        other = self.knob(knob.target, SPEED_PAIRS[knob.attr]) if knob.attr in SPEED_PAIRS and new.isdigit() else None
        disks = 0
        if knob.attr == "stripe_cache_size":
            disks = first_int(self.root.read_optional(f"/sys/block/{sys_name(knob.target)}/md/raid_disks")) or 0
        return change_warnings(knob, new, other=other, disks=disks)

    # -------------------------------------------------------------- applying

    def can_write(self, plan: Plan) -> bool:
        """True when the file is writable for this process (else: needs root)."""
        return os.access(self.root.resolve(plan.path), os.W_OK)

    def apply(self, plan: Plan | Refusal, *, by: str = "") -> ChangeResult:
        """Write the plan's value, read it back and log it; never raises.

        ``by`` names who asked when it was not the user directly (``fio sweep``,
        ``lab``); it goes into the log line.
        """
        with self._lock:
            # One change at a time: the before/after reads must see only this write.
            return self._apply(plan, by)

    def _apply(self, plan: Plan | Refusal, by: str) -> ChangeResult:
        now = self.clock()
        if isinstance(plan, Refusal):
            result = ChangeResult(now, plan.target, plan.attr, None, "", "", "refused", plan.message)
            self.results.append(result)
            return result
        real = self.root.resolve(plan.path)
        request = is_request(plan.attr)
        before = self._values(plan.target, requests=request)
        current = before.get(plan.attr)
        if current == plan.new:
            result = ChangeResult(
                now,
                plan.target,
                plan.attr,
                current,
                plan.new,
                plan.command,
                "unchanged",
                f"{plan.target} {plan.attr} is already {plan.new}; nothing written",
                current,
                undo_of=plan.undo_of,
                undo_all=plan.undo_all,
            )
            # An undo that finds the old value in place still closes the change in the log.
            return self._record(result, log=result.is_undo, by=by)
        if not os.path.exists(real):
            result = ChangeResult(
                now,
                plan.target,
                plan.attr,
                current,
                plan.new,
                plan.command,
                "failed",
                f"{plan.path} is gone (device removed?)",
                undo_of=plan.undo_of,
                undo_all=plan.undo_all,
            )
            return self._record(result, log=False)
        if not os.access(real, os.W_OK) and not self.privileged:
            result = ChangeResult(
                now,
                plan.target,
                plan.attr,
                current,
                plan.new,
                plan.sudo_command,
                "needs-root",
                f"changing {plan.target} {plan.attr} needs root; run: {plan.sudo_command}",
                current,
                undo_of=plan.undo_of,
                undo_all=plan.undo_all,
            )
            return self._record(result, log=False)
        try:
            write_attribute(real, plan.new)
        except OSError as exc:
            status, words = describe_write_error(exc, plan.attr, privileged=self.privileged)
            command = plan.sudo_command if status == "needs-root" else plan.command
            if status == "needs-root":
                words += f"; run: {plan.sudo_command}"
            after = self._values(plan.target, requests=request)
            result = ChangeResult(
                now,
                plan.target,
                plan.attr,
                current,
                plan.new,
                command,
                status,
                f"{plan.target} {plan.attr} = {plan.new}: {words}",
                after.get(plan.attr),
                undo_of=plan.undo_of,
                undo_all=plan.undo_all,
            )
            return self._record(result, log=status != "needs-root", by=by)
        after = self._values(plan.target, requests=request)
        readback = after.get(plan.attr)
        side = tuple(
            (attr, before.get(attr), value)
            for attr, value in after.items()
            if attr != plan.attr and not is_request(attr) and before.get(attr) != value
        )
        if request:
            # A request reads back what md does now (a short check may be over already).
            status, message = "ok", f"{plan.target} {plan.attr}: {current} → {plan.new} (reads {readback})"
        elif readback == plan.new:
            status, message = "ok", f"{plan.target} {plan.attr}: {current} → {plan.new}"
        else:
            status = "mismatch"
            message = f"{plan.target} {plan.attr}: the kernel accepted {plan.new} but it reads back as {readback}"
        if side:
            message += "; also changed " + ", ".join(f"{a} {b} → {c}" for a, b, c in side)
        result = ChangeResult(
            now,
            plan.target,
            plan.attr,
            current,
            plan.new,
            plan.command,
            status,
            message,
            readback,
            side,
            plan.undo_of,
            plan.undo_all,
        )
        return self._record(result, log=True, by=by)

    def _record(self, result: ChangeResult, *, log: bool, by: str = "") -> ChangeResult:
        if log:
            result = log_change(self.log, result, by)
        self.results.append(result)
        if is_request(result.attr):
            return result  # a request is not a setting: nothing to undo or keep
        if result.changed_system:
            self._touched.add((result.target, result.attr))
            for attr, _before, _after in result.side_effects:
                self._touched.add((result.target, attr))
        if not result.is_undo:
            if result.changed_system:
                self._undo.append(result)
        elif result.ok:
            self._undo = close_undone(self._undo, result.target, result.attr, result.undo_of, result.undo_all)
        return result

    def set(self, target: str, attr: str, text: str, *, by: str = "") -> ChangeResult:
        """Plan and apply in one call (the CLI, the lab and the VM harness use this)."""
        return self.apply(self.plan(target, attr, text), by=by)

    # -------------------------------------------------------------- undo

    @property
    def undoable(self) -> list[ChangeResult]:
        """Changes of this session that can still be undone, oldest first."""
        return list(self._undo)

    def plan_undo(self, change: ChangeResult) -> list[Plan | Refusal]:
        """Plans that put ``change``'s knob (and what changed with it) back as it was."""
        restores = undo_restores(change)
        if isinstance(restores, Refusal):
            return [restores]
        plans = [self.plan(r.target, r.attr, r.value, undo_of=r.undo_of) for r in restores]
        primary = plans[0]
        if isinstance(primary, Plan) and (warning := changed_since(change, self.knob(change.target, change.attr))):
            plans[0] = replace(primary, warning=warning)
        return plans

    def plan_undo_last(self) -> list[Plan | Refusal]:
        """Plans that revert the most recent change of this session ([] when there is none)."""
        return self.plan_undo(self._undo[-1]) if self._undo else []

    def plan_undo_all(self) -> list[Plan | Refusal]:
        """Plans that put every knob touched in this session back to its start value (schedulers first)."""
        restores = undo_all_restores(self._touched, self._start)
        return needed_for_undo_all([self.plan(r.target, r.attr, r.value, undo_all=True) for r in restores])

    def _safe_knob(self, target: str, attr: str) -> Knob | None:
        try:
            return self.knob(target, attr)
        except TuningError:
            return None

    def undo(self, change: ChangeResult) -> list[ChangeResult]:
        """Revert one change (and its side effects); results in write order."""
        return [self.apply(plan) for plan in self.plan_undo(change)]

    def undo_last(self) -> list[ChangeResult]:
        """Revert the most recent change of this session; [] when there is none."""
        return self.undo(self._undo[-1]) if self._undo else []

    def undo_all(self) -> list[ChangeResult]:
        """Put every touched knob back to its start value."""
        return [self.apply(plan) for plan in self.plan_undo_all()]

    # -------------------------------------------------------------- sync speed

    def array_limits(self, arrays: Iterable[str]) -> dict[str, ArrayLimits]:
        """Each array's own sync limits and the system's, as md applies them now."""
        return array_limits(self._safe_knobs, arrays)

    def predict(self, arrays: Iterable[MdArray], target: str, attr: str, value: str) -> list[EtaPrediction]:
        """Predicted rate and ETA of every running sync that setting ``attr`` to ``value`` would move."""
        if attr not in SPEED_KNOBS:
            return []
        arrays = [a for a in arrays if a.sync is not None and a.sync.running]
        if not arrays:
            return []
        return predictions_for_change(arrays, self.array_limits(a.name for a in arrays), dev_name(target), attr, value)

    def _safe_knobs(self, target: str) -> list[Knob]:
        try:
            return self.knobs(target)
        except TuningError:
            return []

    # -------------------------------------------------------------- for rules

    def net_changes(self) -> list[Knob]:
        """Knobs the user set in this session that still differ from their start value.

        Only knobs changed directly count: nr_requests reset by a scheduler switch
        follows the scheduler and is not listed on its own.
        """
        direct: list[tuple[str, str]] = []
        for result in self.results:
            if result.changed_system and (result.target, result.attr) not in direct:
                direct.append((result.target, result.attr))
        knobs = []
        for target, attr in direct:
            if is_request(attr):
                continue
            knob = self._safe_knob(target, attr)
            if knob is not None and knob.value is not None and knob.changed:
                knobs.append(knob)
        return knobs

    def logged_changes(self) -> list[LoggedAction]:
        """Every tune entry of the action log, oldest first."""
        return self.log.read("tune")
