"""The Tuning screen's change flow: value dialog → confirmation with the exact command → write in a
worker → notification; undo and undo-all the same way. A mixin of :class:`TuningScreen`, which
supplies ``session``, ``_arrays``, ``_highlighted_knob`` and ``refresh_view``.
"""

from __future__ import annotations

import time

from textual import work
from textual.message import Message

from raidtop.actions.tuning import SPEED_KNOBS, ChangeResult, Knob, Plan, Refusal
from raidtop.actions.tuning.eta import EtaPrediction
from raidtop.screens.dialogs import CommandDialog, ConfirmDialog
from raidtop.screens.tuning_dialogs import ChangeDialog
from raidtop.screens.tuning_rows import describe_prediction


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
        lines = [("Run with sudo: " if self.session.needs_sudo else "Will run: ")
                 + (plan.sudo_command if self.session.needs_sudo else plan.command), *plan.notes]
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
            self.notify(f"{knob.target} {knob.attr} is read-only: the kernel does not allow changing it here.",
                        title="Read-only", severity="warning")
            return
        self.app.push_screen(ChangeDialog(knob, lambda text: self._preview(knob, text)),
                             callback=lambda value: self._value_chosen(knob, value))

    def _value_chosen(self, knob: Knob, value: str | None) -> None:
        if value is None:
            return
        plan = self.session.plan(knob.target, knob.attr, value)
        if isinstance(plan, Refusal):
            self.notify(plan.message, title="Refused", severity="error", timeout=8)
            return
        if plan.noop:
            self.notify(f"{knob.target} {knob.attr} is already {plan.new}; nothing written.", title="Unchanged")
            return
        if self.session.needs_sudo and not self.session.can_write(plan):
            self.app.push_screen(CommandDialog(
                f"Changing {plan.target} {plan.attr} needs root",
                [plan.sudo_command],
                "raidtop is not running as root, so it does not write. Run the command above, or restart "
                f"raidtop with sudo. (Or: sudo raidtop tune {plan.target} {plan.attr} {plan.new!r})",
            ))
            return
        predictions = self._predictions(plan.target, plan.attr, plan.new)
        details = [f"Writes {plan.new} to {plan.path} (now {plan.old}), reads it back and logs the change.",
                   *plan.notes, *("Predicted: " + describe_prediction(p) for p in predictions)]
        self.app.push_screen(
            ConfirmDialog(f"Change {plan.target} {plan.attr} to {plan.new}?", plan.command, "\n".join(details), plan.warning),
            callback=lambda yes: self._apply(plan, predictions) if yes else None,
        )

    @work(thread=True, group="tuning-write", exit_on_error=False)
    def _apply(self, plan: Plan, predictions: list[EtaPrediction]) -> None:
        # The write, its read-back and the log line run here; the UI only shows the result.
        result = self.session.apply(plan)
        if result.changed_system and predictions:
            moved = {p.array for p in predictions}
            self.session.effects.start(result.time, plan.target, plan.attr, plan.new,
                                       [a for a in self._arrays() if a.name in moved], predictions)
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

    def _confirm_plans(self, title: str, plans: list[Plan | Refusal], what: str) -> None:
        refused = [p for p in plans if isinstance(p, Refusal)]
        ready = [p for p in plans if isinstance(p, Plan)]
        if not ready:
            self.notify(refused[0].message if refused else "nothing to do", title=title, severity="warning")
            return
        if self.session.needs_sudo and not all(self.session.can_write(p) for p in ready):
            self.app.push_screen(CommandDialog(f"{title}: needs root", [p.sudo_command for p in ready if not p.noop]
                                               or [ready[0].sudo_command], "Run these commands with sudo."))
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
        last = changes[-1]
        what = (f"Restores {last.target} {last.attr} to {last.old} (set to {last.new} at "
                f"{time.strftime('%H:%M:%S', time.localtime(last.time))}).")
        self._confirm_plans("Undo the last change?", self.session.plan_undo(last), what)

    def action_undo_all(self) -> None:
        """Put every changed knob back to its value at start (after confirmation)."""
        plans = self.session.plan_undo_all()
        if not plans:
            self.notify("Every setting is at its value at start.", title="Undo all")
            return
        self._confirm_plans("Undo every change of this session?", plans,
                            "Puts each setting changed in this session back to its value at start (schedulers first).")
