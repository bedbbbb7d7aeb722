"""The Tuning screen's change flow: value dialog → confirmation with the exact command → write in a
worker → notification; undo and undo-all the same way; the change log and the rules to make changes
permanent. A mixin of :class:`TuningScreen`, which supplies ``session``, ``_arrays``,
``_highlighted_knob`` and ``refresh_view``.

Planning reads the knob from sysfs, ``can_write`` asks the file system, the
log and the udev database are files: every one of them runs in a thread
worker, which hands what it found to the UI thread with ``call_from_thread``.
The UI thread only shows dialogs and notifications.
"""

from __future__ import annotations

import time

from textual import work
from textual.message import Message

from raidtop.actions.tuning import SPEED_KNOBS, ChangeResult, Knob, Plan, Refusal
from raidtop.actions.tuning.eta import EtaPrediction
from raidtop.actions.tuning.rules import default_paths, settings_from_knobs, sysctl_conf, udev_rules
from raidtop.screens.dialogs import CommandDialog, ConfirmDialog
from raidtop.screens.tuning.dialogs import ChangeDialog, ChangeLogScreen, PersistDialog
from raidtop.screens.tuning.rows import describe_prediction, log_rows


class TuningWritten(Message):
    """A write worker finished: what each change did."""

    def __init__(self, results: tuple[ChangeResult, ...]) -> None:
        super().__init__()
        self.results = results


class TuningChangeFlow:
    """Changing, undoing and announcing; every write runs in a ``tuning-write`` thread worker."""

    def _predictions(self, target: str, attr: str, value: str) -> list[EtaPrediction]:
        if attr not in SPEED_KNOBS:
            return []
        return self.session.predict(self._arrays(), target, attr, value)

    def _preview(self, knob: Knob, text: str) -> tuple[str | None, list[str]]:
        plan = self.session.plan(knob.target, knob.attr, text)
        if isinstance(plan, Refusal):
            return plan.message, []
        if plan.noop:
            return None, [f"{knob.attr} is already {plan.new}: nothing to change."]
        lines = [
            ("Run with sudo: " if self.session.needs_sudo else "Will run: ")
            + (plan.sudo_command if self.session.needs_sudo else plan.command),
            *plan.notes,
        ]
        lines += ["Predicted: " + describe_prediction(p) for p in self._predictions(knob.target, knob.attr, plan.new)]
        if plan.warning:
            lines.append("Warning: " + plan.warning)
        return None, lines

    def action_change(self) -> None:
        """Ask for a new value of the highlighted knob."""
        knob = self._highlighted_knob()
        if knob is None:
            return
        if not knob.writable:
            self.notify(
                f"{knob.target} {knob.attr} is read-only: the kernel does not allow changing it here.",
                title="Read-only",
                severity="warning",
            )
            return
        self.app.push_screen(
            ChangeDialog(knob, lambda text: self._preview(knob, text)),
            callback=lambda value: self._value_chosen(knob, value),
        )

    def _value_chosen(self, knob: Knob, value: str | None) -> None:
        if value is not None:
            self._plan_change(knob, value)

    @work(thread=True, group="tuning-plan", exit_on_error=False)
    def _plan_change(self, knob: Knob, value: str) -> None:
        # Planning reads the knob (and the arrays' limits for the prediction) from sysfs.
        plan = self.session.plan(knob.target, knob.attr, value)
        if isinstance(plan, Refusal) or plan.noop:
            self.app.call_from_thread(self._confirm_change, plan, True, [])
            return
        writable = not self.session.needs_sudo or self.session.can_write(plan)
        self.app.call_from_thread(
            self._confirm_change, plan, writable, self._predictions(plan.target, plan.attr, plan.new)
        )

    def _confirm_change(self, plan: Plan | Refusal, writable: bool, predictions: list[EtaPrediction]) -> None:
        if isinstance(plan, Refusal):
            self.notify(plan.message, title="Refused", severity="error", timeout=8)
            return
        if plan.noop:
            self.notify(f"{plan.target} {plan.attr} is already {plan.new}; nothing written.", title="Unchanged")
            return
        if not writable:
            self.app.push_screen(
                CommandDialog(
                    f"Changing {plan.target} {plan.attr} needs root",
                    [plan.sudo_command],
                    "raidtop is not running as root, so it does not write. Run the command above, or restart "
                    f"raidtop with sudo. (Or: sudo raidtop tune {plan.target} {plan.attr} {plan.new!r})",
                )
            )
            return
        details = [
            f"Writes {plan.new} to {plan.path} (now {plan.old}), reads it back and logs the change.",
            *plan.notes,
            *("Predicted: " + describe_prediction(p) for p in predictions),
        ]
        self.app.push_screen(
            ConfirmDialog(
                f"Change {plan.target} {plan.attr} to {plan.new}?", plan.command, "\n".join(details), plan.warning
            ),
            callback=lambda yes: self._apply(plan, predictions) if yes else None,
        )

    @work(thread=True, group="tuning-write", exit_on_error=False)
    def _apply(self, plan: Plan, predictions: list[EtaPrediction]) -> None:
        # The write, its read-back and the log line run here; the UI only shows the result.
        result = self.session.apply(plan)
        if result.changed_system and predictions:
            moved = {p.array for p in predictions}
            self.session.effects.start(
                result.time,
                plan.target,
                plan.attr,
                plan.new,
                [a for a in self._arrays() if a.name in moved],
                predictions,
            )
        self.post_message(TuningWritten((result,)))

    def on_tuning_written(self, message: TuningWritten) -> None:
        """A write worker finished: tell the user, then re-read."""
        self._announce(list(message.results))
        self.refresh_view()

    def _announce(self, results: list[ChangeResult]) -> None:
        for result in results:
            if result.status == "unchanged" and result.is_undo:
                continue
            severity = "information" if result.ok else ("warning" if result.status == "mismatch" else "error")
            self.notify(result.message, title="Tuning", severity=severity, timeout=6 if result.ok else 10)
            if result.log_error:
                self.notify(result.log_error, title="Change log", severity="warning", timeout=10)

    def _confirm_plans(self, title: str, plans: list[Plan | Refusal], what: str, writable: bool) -> None:
        refused = [p for p in plans if isinstance(p, Refusal)]
        ready = [p for p in plans if isinstance(p, Plan)]
        if not ready:
            self.notify(refused[0].message if refused else "nothing to do", title=title, severity="warning")
            return
        if not writable:
            self.app.push_screen(
                CommandDialog(
                    f"{title}: needs root",
                    [p.sudo_command for p in ready if not p.noop] or [ready[0].sudo_command],
                    "Run these commands with sudo.",
                )
            )
            return
        commands = [p.command + ("   # only if the scheduler switch moved it" if p.noop else "") for p in ready]
        details = [what, *(f"Refused: {p.message}" for p in refused)]
        warning = " ".join(p.warning for p in ready if p.warning)
        self.app.push_screen(
            ConfirmDialog(title, "\n".join(commands), "\n".join(details), warning),
            callback=lambda yes: self._run_plans(plans) if yes else None,
        )

    @work(thread=True, group="tuning-write", exit_on_error=False)
    def _run_plans(self, plans: list[Plan | Refusal]) -> None:
        self.post_message(TuningWritten(tuple(self.session.apply(p) for p in plans)))

    def action_undo(self) -> None:
        """Revert the last change of this session (after confirmation)."""
        changes = self.session.undoable
        if not changes:
            self.notify("Nothing to undo in this session.", title="Undo")
            return
        self._plan_undo(changes[-1])

    @work(thread=True, group="tuning-plan", exit_on_error=False)
    def _plan_undo(self, last: ChangeResult) -> None:
        what = (
            f"Restores {last.target} {last.attr} to {last.old} (set to {last.new} at "
            f"{time.strftime('%H:%M:%S', time.localtime(last.time))})."
        )
        plans = self.session.plan_undo(last)
        self.app.call_from_thread(self._confirm_plans, "Undo the last change?", plans, what, self._writable(plans))

    def _writable(self, plans: list[Plan | Refusal]) -> bool:
        """Whether this process may write every planned file; asks the file system (worker only)."""
        return not self.session.needs_sudo or all(self.session.can_write(p) for p in plans if isinstance(p, Plan))

    def action_undo_all(self) -> None:
        """Put every changed knob back to its value at start (after confirmation)."""
        self._plan_undo_all()

    @work(thread=True, group="tuning-plan", exit_on_error=False)
    def _plan_undo_all(self) -> None:
        plans = self.session.plan_undo_all()
        if not plans:
            self.app.call_from_thread(self.notify, "Every setting is at its value at start.", title="Undo all")
            return
        self.app.call_from_thread(
            self._confirm_plans,
            "Undo every change of this session?",
            plans,
            "Puts each setting changed in this session back to its value at start (schedulers first).",
            self._writable(plans),
        )

    # -------------------------------------------------------------- log and rules

    def action_change_log(self) -> None:
        """Show the tuning change log (read in a worker)."""
        self._read_change_log()

    @work(thread=True, exclusive=True, group="tuning-log", exit_on_error=False)
    def _read_change_log(self) -> None:
        rows = log_rows(self.session.logged_changes())
        self.app.call_from_thread(self.app.push_screen, ChangeLogScreen(rows, str(self.session.log.path)))

    def action_generate_rules(self) -> None:
        """Generate udev rules and a sysctl.d snippet for the changes in effect (built in a worker)."""
        self._build_rules()

    @work(thread=True, exclusive=True, group="tuning-rules", exit_on_error=False)
    def _build_rules(self) -> None:
        # net_changes re-reads each changed knob; the udev rules read the udev database for stable names.
        knobs = self.session.net_changes()
        if not knobs:
            self.app.call_from_thread(
                self.notify,
                "No change of this session is in effect: nothing to make permanent.",
                title="Make permanent",
            )
            return
        settings = settings_from_knobs(knobs)
        rules_path, sysctl_path = default_paths()
        dialog = PersistDialog(
            udev_rules(settings, self.session.root), sysctl_conf(settings), str(rules_path), str(sysctl_path)
        )
        self.app.call_from_thread(self.app.push_screen, dialog)
