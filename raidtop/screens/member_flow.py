"""The one member-action flow: plan in a worker, confirm the exact command, run in a worker, report.

The dashboard (its Arrays panel) and the Lab screen both host a
:class:`MemberFlow`; a member key ends up in :meth:`MemberFlow.request`
whichever screen it was pressed on, and the demo's simulated array, the
lab's arrays and ``raidtop lab`` all sit behind the same
:class:`~raidtop.actions.member_actions.MemberActions` contract.

Planning reads sysfs and the lab registry (the guard), so it runs in a
thread worker like the action itself; the worker reaches the UI only by
posting a message to this widget, which is invisible and lives in the
screen it serves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

from textual import on, work
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from raidtop.actions.member_actions import ActionRefused, MemberActions
from raidtop.model.member_verbs import verb_name, verb_title

Resolver = Callable[[str], "MemberActions | None"]
"""Who may act on an array (``None``: nobody); may read files, so it is called in workers only."""
NOT_OURS = "raidtop changes only the demo's simulated array and lab arrays; {array} is neither"


class ActionWitness(Protocol):
    """What the app does after a member action: mark it in a recording and sample at once."""

    def note_action(self, kind: str, command: str) -> None:
        """Mark ``command`` in the recording (if one runs)."""
        ...

    def sample_now(self) -> None:
        """Take the next sample now instead of at the next tick."""
        ...


class MemberFlow(Widget):
    """Runs member verbs for the screen it is mounted in.

    Args:
        resolve: the MemberActions for an array name, or ``None``.
    """

    DEFAULT_CSS = "MemberFlow { display: none; }"

    class Offered(Message):
        """Which verbs each array offers now (``{array: verbs}``), for check_action."""

        def __init__(self, offers: dict[str, frozenset[str]]) -> None:
            super().__init__()
            self.offers = offers

    class Started(Message):
        """The user confirmed; the action is running."""

        def __init__(self, verb: str, array: str) -> None:
            super().__init__()
            self.verb = verb
            self.array = array

    class Finished(Message):
        """An action ended (``ok`` false: refused or failed, ``text`` says why)."""

        def __init__(self, verb: str, array: str, text: str, ok: bool) -> None:
            super().__init__()
            self.verb = verb
            self.array = array
            self.text = text
            self.ok = ok

    class _Planned(Message):
        def __init__(self, actions: MemberActions, verb: str, array: str, member: str | None, command: str) -> None:
            super().__init__()
            self.actions, self.verb, self.array, self.member, self.command = actions, verb, array, member, command

    class _Refused(Message):
        def __init__(self, verb: str, array: str, reason: str) -> None:
            super().__init__()
            self.verb, self.array, self.reason = verb, array, reason

    class _Ran(Message):
        def __init__(self, verb: str, array: str, command: str, simulated: bool) -> None:
            super().__init__()
            self.verb, self.array, self.command, self.simulated = verb, array, command, simulated

    def __init__(self, resolve: Resolver, **kwargs) -> None:
        super().__init__(**kwargs)
        self._resolve = resolve
        self._offers: dict[str, frozenset[str]] | None = None
        self._runs: dict = {}
        """Each confirmed action's worker and what it does, in words."""

    # -------------------------------------------------------------- what is offered

    def survey(self, arrays: list[str]) -> None:
        """Find out (in a worker) which verbs ``arrays`` offer; posts Offered when that changed."""
        self._survey(tuple(arrays))

    @work(thread=True, exclusive=True, group="member-survey", exit_on_error=False)
    def _survey(self, arrays: tuple[str, ...]) -> None:
        offers = {}
        for array in arrays:
            actions = self._resolve(array)
            verbs = actions.offered(array) if actions is not None else frozenset()
            if verbs:
                offers[array] = verbs
        if not get_current_worker().is_cancelled:
            self.post_message(self._SurveyDone(offers))

    class _SurveyDone(Message):
        def __init__(self, offers: dict[str, frozenset[str]]) -> None:
            super().__init__()
            self.offers = offers

    @on(_SurveyDone)
    def _survey_done(self, message: _SurveyDone) -> None:
        message.stop()
        if message.offers != self._offers:
            self._offers = message.offers
            self.post_message(self.Offered(message.offers))

    def running_work(self) -> list[str]:
        """The confirmed actions still running, in words (quitting asks first while there are any)."""
        self._runs = {worker: what for worker, what in self._runs.items() if not worker.is_finished}
        return list(self._runs.values())

    # -------------------------------------------------------------- plan, confirm, run

    def request(self, verb: str, array: str, member: str | None, actions: MemberActions | None = None) -> None:
        """Plan ``verb`` in a worker; a refusal is a notification, a plan a confirmation.

        ``actions`` acts instead of the resolver's choice: the lab's faults, which carry the fault chosen.
        """
        self._plan(verb, array, member, actions)

    @work(thread=True, exclusive=True, group="member-plan", exit_on_error=False)
    def _plan(self, verb: str, array: str, member: str | None, given: MemberActions | None) -> None:
        # The guard reads sysfs and the registry: here, never on the UI thread.
        actions = given if given is not None else self._resolve(array)
        try:
            if actions is None:
                raise ActionRefused(NOT_OURS.format(array=array))
            command = actions.command(verb, array, member)
        except ActionRefused as exc:
            self.post_message(self._Refused(verb, array, str(exc)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self._Planned(actions, verb, array, member, command))

    @on(_Planned)
    def _planned(self, message: _Planned) -> None:
        message.stop()
        actions, verb, array, member = message.actions, message.verb, message.array, message.member
        if actions.simulated:
            # The demo changes nothing real: it acts at once, through the same worker.
            self._start(actions, verb, array, member)
            return

        def confirmed(answer: bool | None) -> None:
            if answer:
                self._start(actions, verb, array, member)

        from raidtop.screens.dialogs import ConfirmDialog  # when first asked: not on the first frame's path

        self.app.push_screen(ConfirmDialog(verb_title(verb, array, member), message.command), confirmed)

    def _start(self, actions: MemberActions, verb: str, array: str, member: str | None) -> None:
        self.post_message(self.Started(verb, array))
        worker = self._run(actions, verb, array, member)
        self._runs[worker] = f"{verb_name(verb)} on {array}"

    @work(thread=True, group="member-action", exit_on_error=False)
    def _run(self, actions: MemberActions, verb: str, array: str, member: str | None) -> None:
        # mdadm can take seconds; run() checks the guard again (things change while a dialog is open).
        try:
            command = actions.run(verb, array, member)
        except ActionRefused as exc:
            self.post_message(self._Refused(verb, array, str(exc)))
            return
        self.post_message(self._Ran(verb, array, command, actions.simulated))

    @on(_Refused)
    def _refused(self, message: _Refused) -> None:
        message.stop()
        self.notify(message.reason, title=f"{verb_name(message.verb)} refused", severity="warning", timeout=8)
        self.post_message(self.Finished(message.verb, message.array, message.reason, False))

    @on(_Ran)
    def _ran(self, message: _Ran) -> None:
        message.stop()
        suffix = " (simulated)" if message.simulated else ""
        self.notify(message.command, title=f"{verb_name(message.verb)} on {message.array}{suffix}", timeout=6)
        # Recordings mark the change; the next sample shows (and the event timeline records) its effect now.
        app = cast(ActionWitness, self.app)
        app.note_action("lab", message.command)
        app.sample_now()
        self.post_message(self.Finished(message.verb, message.array, message.command, True))
