"""The Tuning screen's change flow: value dialog → confirmation with the exact command → write in a
worker → notification; undo and undo-all the same way; the change log and the rules to make changes
permanent.

:class:`TuningChangeFlow` is an invisible widget mounted in the Tuning screen,
shaped like :class:`~raidtop.screens.member_flow.MemberFlow`: it owns the
session it writes through and its workers. Planning reads the knob from
sysfs, ``can_write`` asks the file system, the log and the udev database are
files: every one of them runs in a thread worker that ends by posting one of
this widget's messages; the UI thread only shows dialogs and notifications.
After each write it posts :class:`TuningChangeFlow.Written`, which bubbles to
the screen so it re-reads the knobs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import on, work
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widget import Widget

from raidtop.actions.tuning import SPEED_KNOBS, ChangeResult, Knob, Plan, Refusal, TuningSession
from raidtop.actions.tuning.eta import EtaPrediction
from raidtop.actions.tuning.rules import default_paths, settings_from_knobs, sysctl_conf, udev_rules
from raidtop.model.md import MdArray
from raidtop.screens.dialogs import CommandDialog, ConfirmDialog
from raidtop.screens.tuning.dialogs import ChangeDialog, ChangeLogScreen, PersistDialog
from raidtop.screens.tuning.rows import describe_prediction, log_rows
from raidtop.widgets.text_table import Row

Plans = list[Plan | Refusal]


class TuningChangeFlow(Widget):
    """Changing, undoing and announcing; every write runs in a ``tuning-write`` thread worker.

    Args:
        session: the tuning session every plan and write goes through.
        arrays: the md arrays as last sampled (for ETA predictions); called in workers too.
    """

    DEFAULT_CSS = "TuningChangeFlow { display: none; }"

    class Written(Message):
        """A write worker finished and the user was told: what each change did."""

        def __init__(self, results: tuple[ChangeResult, ...]) -> None:
            super().__init__()
            self.results = results

    class _Planned(Message):
        def __init__(self, plan: Plan | Refusal, writable: bool, predictions: list[EtaPrediction]) -> None:
            super().__init__()
            self.plan, self.writable, self.predictions = plan, writable, predictions

    class _UndoPlanned(Message):
        def __init__(self, title: str, plans: Plans, what: str, writable: bool) -> None:
            super().__init__()
            self.title, self.plans, self.what, self.writable = title, plans, what, writable

    class _Wrote(Message):
        def __init__(self, results: tuple[ChangeResult, ...]) -> None:
            super().__init__()
            self.results = results

    class _Said(Message):
        def __init__(self, text: str, title: str) -> None:
            super().__init__()
            self.text, self.title = text, title

    class _LogRead(Message):
        def __init__(self, rows: list[Row], path: str) -> None:
            super().__init__()
            self.rows, self.path = rows, path

    class _RulesBuilt(Message):
        def __init__(self, rules: str, sysctl: str, rules_path: str, sysctl_path: str) -> None:
            super().__init__()
            self.rules, self.sysctl, self.rules_path, self.sysctl_path = rules, sysctl, rules_path, sysctl_path

    def __init__(self, session: TuningSession, arrays: Callable[[], list[MdArray]], **kwargs) -> None:
        super().__init__(**kwargs)
        self.session = session
        self._arrays = arrays

    # -------------------------------------------------------------- one change

    def _predictions(self, target: str, attr: str, value: str) -> list[EtaPrediction]:
        if attr not in SPEED_KNOBS:
            return []
        return self.session.predict(self._arrays(), target, attr, value)

    def preview(self, knob: Knob, text: str) -> tuple[str | None, list[str]]:
        """What changing ``knob`` to ``text`` would run and predict (the value dialog calls it in a worker)."""
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

    def change(self, knob: Knob) -> None:
        """Ask for a new value of ``knob``, then plan, confirm and write it."""
        if not knob.writable:
            self.notify(
                f"{knob.target} {knob.attr} is read-only: the kernel does not allow changing it here.",
                title="Read-only",
                severity="warning",
            )
            return

        def chosen(value: str | None) -> None:
            if value is not None:
                self._plan_change(knob, value)

        self.app.push_screen(ChangeDialog(knob, lambda text: self.preview(knob, text)), callback=chosen)

    @work(thread=True, group="tuning-plan", exit_on_error=False)
    def _plan_change(self, knob: Knob, value: str) -> None:
        # Planning reads the knob (and the arrays' limits for the prediction) from sysfs.
        plan = self.session.plan(knob.target, knob.attr, value)
        if isinstance(plan, Refusal) or plan.noop:
            self.post_message(self._Planned(plan, True, []))
            return
        writable = not self.session.needs_sudo or self.session.can_write(plan)
        self.post_message(self._Planned(plan, writable, self._predictions(plan.target, plan.attr, plan.new)))

    @on(_Planned)
    def _confirm_change(self, message: _Planned) -> None:
        message.stop()
        plan, predictions = message.plan, message.predictions
        if isinstance(plan, Refusal):
            self.notify(plan.message, title="Refused", severity="error", timeout=8)
            return
        if plan.noop:
            self.notify(f"{plan.target} {plan.attr} is already {plan.new}; nothing written.", title="Unchanged")
            return
        if not message.writable:
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

        def answered(yes: bool | None) -> None:
            if yes:
                self._apply(plan, predictions)

        title = f"Change {plan.target} {plan.attr} to {plan.new}?"
        self.app.push_screen(ConfirmDialog(title, plan.command, "\n".join(details), plan.warning), callback=answered)

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
        self.post_message(self._Wrote((result,)))

    @on(_Wrote)
    def _announce(self, message: _Wrote) -> None:
        message.stop()
        for result in message.results:
            if result.status == "unchanged" and result.is_undo:
                continue
            severity: SeverityLevel = (
                "information" if result.ok else ("warning" if result.status == "mismatch" else "error")
            )
            self.notify(result.message, title="Tuning", severity=severity, timeout=6 if result.ok else 10)
            if result.log_error:
                self.notify(result.log_error, title="Change log", severity="warning", timeout=10)
        self.post_message(self.Written(message.results))

    # -------------------------------------------------------------- undo

    def undo(self) -> None:
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
        self.post_message(self._UndoPlanned("Undo the last change?", plans, what, self._writable(plans)))

    def _writable(self, plans: Plans) -> bool:
        """Whether this process may write every planned file; asks the file system (worker only)."""
        return not self.session.needs_sudo or all(self.session.can_write(p) for p in plans if isinstance(p, Plan))

    def undo_all(self) -> None:
        """Put every changed knob back to its value at start (after confirmation)."""
        self._plan_undo_all()

    @work(thread=True, group="tuning-plan", exit_on_error=False)
    def _plan_undo_all(self) -> None:
        plans = self.session.plan_undo_all()
        if not plans:
            self.post_message(self._Said("Every setting is at its value at start.", "Undo all"))
            return
        what = "Puts each setting changed in this session back to its value at start (schedulers first)."
        self.post_message(self._UndoPlanned("Undo every change of this session?", plans, what, self._writable(plans)))

    @on(_UndoPlanned)
    def _confirm_plans(self, message: _UndoPlanned) -> None:
        message.stop()
        title, plans = message.title, message.plans
        refused = [p for p in plans if isinstance(p, Refusal)]
        ready = [p for p in plans if isinstance(p, Plan)]
        if not ready:
            self.notify(refused[0].message if refused else "nothing to do", title=title, severity="warning")
            return
        if not message.writable:
            self.app.push_screen(
                CommandDialog(
                    f"{title}: needs root",
                    [p.sudo_command for p in ready if not p.noop] or [ready[0].sudo_command],
                    "Run these commands with sudo.",
                )
            )
            return
        commands = [p.command + ("   # only if the scheduler switch moved it" if p.noop else "") for p in ready]
        details = [message.what, *(f"Refused: {p.message}" for p in refused)]
        warning = " ".join(p.warning for p in ready if p.warning)

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_plans(plans)

        self.app.push_screen(ConfirmDialog(title, "\n".join(commands), "\n".join(details), warning), callback=answered)

    @work(thread=True, group="tuning-write", exit_on_error=False)
    def _run_plans(self, plans: Plans) -> None:
        self.post_message(self._Wrote(tuple(self.session.apply(p) for p in plans)))

    @on(_Said)
    def _said(self, message: _Said) -> None:
        message.stop()
        self.notify(message.text, title=message.title)

    # -------------------------------------------------------------- log and rules

    def show_log(self) -> None:
        """Show the tuning change log (read in a worker)."""
        self._read_change_log()

    @work(thread=True, exclusive=True, group="tuning-log", exit_on_error=False)
    def _read_change_log(self) -> None:
        self.post_message(self._LogRead(log_rows(self.session.logged_changes()), str(self.session.log.path)))

    @on(_LogRead)
    def _log_read(self, message: _LogRead) -> None:
        message.stop()
        self.app.push_screen(ChangeLogScreen(message.rows, message.path))

    def make_permanent(self) -> None:
        """Generate udev rules and a sysctl.d snippet for the changes in effect (built in a worker)."""
        self._build_rules()

    @work(thread=True, exclusive=True, group="tuning-rules", exit_on_error=False)
    def _build_rules(self) -> None:
        # net_changes re-reads each changed knob; the udev rules read the udev database for stable names.
        knobs = self.session.net_changes()
        if not knobs:
            text = "No change of this session is in effect: nothing to make permanent."
            self.post_message(self._Said(text, "Make permanent"))
            return
        settings = settings_from_knobs(knobs)
        rules_path, sysctl_path = default_paths()
        rules = udev_rules(settings, self.session.root)
        self.post_message(self._RulesBuilt(rules, sysctl_conf(settings), str(rules_path), str(sysctl_path)))

    @on(_RulesBuilt)
    def _rules_built(self, message: _RulesBuilt) -> None:
        message.stop()
        self.app.push_screen(PersistDialog(message.rules, message.sysctl, message.rules_path, message.sysctl_path))
