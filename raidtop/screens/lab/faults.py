"""The Lab screen's fault keys: which fault, on the highlighted member, then the one member-action flow.

``F`` first checks (in a worker: it reads /proc/misc) that the kernel has
device-mapper, and refuses with a sentence where it has not; then one dialog
asks for the fault in one line (``delay 25``, ``flakey 20,5``, ``error
2048+16``, ``unreadable 8192+16``), and the member-action flow plans it
(:mod:`raidtop.actions.lab.dmfault`), shows the exact commands for
confirmation, runs them through the lab's runner (shown in the Commands pane,
logged) and reports. ``C`` takes the highlighted member (the lab's dm device)
out of its fault and back onto its loop device, through the same flow.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.dmtables import FAULT_FORMS, FaultRefused, device_mapper_missing, parse_fault_line
from raidtop.actions.lab.fault_actions import FaultActions
from raidtop.actions.member_actions import MemberActions

FAULT_BINDINGS = [
    Binding(
        "F",
        "fault('fault')",
        "Fault",
        id="lab-fault",
        tooltip="Put the member behind a dm delay, flakey, error or unreadable fault (asks which; shows the commands)",
    ),
    Binding(
        "C",
        "fault('clear_fault')",
        "Clear fault",
        id="lab-fault-clear",
        tooltip="Take the highlighted member out of its fault and back onto its loop device (shows the commands)",
    ),
]
Request = Callable[[str, str, str | None, MemberActions], None]
"""The member flow's request: verb, array, member, the actions that plan and run it."""


def fault_problem(line: str) -> str | None:
    """What is wrong with a fault written in the dialog, or ``None``."""
    try:
        parse_fault_line(line)
    except FaultRefused as exc:
        return str(exc)
    return None


class LabFaults(Widget):
    """Asks which fault for the highlighted member and hands it to the member-action flow.

    Args:
        lab: the lab (its root says whether the kernel has device-mapper).
        request: the member flow's :meth:`~raidtop.screens.member_flow.MemberFlow.request`.
        live_only: the actions refuse anything but the live system (False: tests on a fixture root).
    """

    DEFAULT_CSS = "LabFaults { display: none; }"

    class _Checked(Message):
        def __init__(self, array: str, member: str, missing: str | None) -> None:
            super().__init__()
            self.array, self.member, self.missing = array, member, missing

    def __init__(self, lab: Lab, request: Request, *, live_only: bool, **kwargs) -> None:
        super().__init__(**kwargs)
        self._lab = lab
        self._request = request
        self._live_only = live_only

    def ask(self, verb: str, array: str, member: str | None) -> None:
        """``fault``: check device-mapper, ask which fault, plan it; ``clear_fault``: plan taking it out."""
        if not member:
            self.notify("highlight a member first (Tab to the Members table)", severity="warning")
            return
        if verb == "clear_fault":
            self._request(verb, array, member, FaultActions(self._lab, None, live_only=self._live_only))
            return
        self._check(array, member)

    @work(thread=True, exclusive=True, group="lab-fault-check", exit_on_error=False)
    def _check(self, array: str, member: str) -> None:
        self.post_message(self._Checked(array, member, device_mapper_missing(self._lab.root)))

    @on(_Checked)
    def _checked(self, message: _Checked) -> None:
        message.stop()
        if message.missing is not None:
            self.notify(message.missing, title="fault refused", severity="warning", timeout=10)
            return
        array, member = message.array, message.member

        def chosen(line: str | None) -> None:
            if line:
                spec = parse_fault_line(line)
                self._request("fault", array, member, FaultActions(self._lab, spec, live_only=self._live_only))

        from raidtop.screens.dialogs import AskDialog  # when first asked: not on the first frame's path

        self.app.push_screen(
            AskDialog(
                f"Put {member} of {array} behind which fault? ({FAULT_FORMS})",
                "delay 25  |  flakey 20,5  |  error 2048+16  |  unreadable 8192+16",
                validate=fault_problem,
                input_id="lab-fault-input",
                width=80,
            ),
            chosen,
        )
