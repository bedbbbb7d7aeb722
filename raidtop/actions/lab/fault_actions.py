"""The lab's faults as member actions, so the Lab screen's fault keys go through the one member-action flow.

:class:`FaultActions` is a :class:`~raidtop.actions.member_actions.MemberActions`
for one fault chosen in the Lab screen's dialog: ``fault`` puts the member behind
it, ``clear_fault`` takes the member (the lab's dm device) back onto its loop.
Both are planned by :mod:`raidtop.actions.lab.dmfault`, whose exact commands the
confirmation shows and the lab's runner runs (shown and logged).
"""

from __future__ import annotations

import shlex

from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.dmfault import FaultPlan, plan_clear, plan_fault
from raidtop.actions.lab.dmtables import FaultSpec
from raidtop.actions.lab.members import run_lab_plan
from raidtop.actions.member_actions import ActionRefused

FAULT_VERBS = ("fault", "clear_fault")


class FaultActions:
    """Put a lab member behind ``spec`` (``fault``) or take it out of its fault (``clear_fault``).

    Args:
        lab: the lab whose arrays and runner are used.
        spec: the fault to set up; ``None`` when only clearing.
        live_only: refuse to run on anything but the live system (tests on a fixture root say False).
    """

    simulated = False
    """Real dm devices: every step is confirmed with its commands."""

    def __init__(self, lab: Lab, spec: FaultSpec | None, *, live_only: bool = True) -> None:
        self.lab = lab
        self.spec = spec
        self._live_only = live_only

    def handles(self, array: str) -> bool:
        """On the live system (the guard says which arrays are the lab's, when planning)."""
        return self.lab.root.is_live or not self._live_only

    def offered(self, array: str) -> frozenset[str]:
        """``fault`` when a fault was chosen, and always ``clear_fault``."""
        return frozenset(FAULT_VERBS if self.spec is not None else ("clear_fault",))

    def plan(self, verb: str, array: str, member: str | None) -> FaultPlan:
        """The checked plan; ActionRefused with the reason."""
        if not member:
            raise ActionRefused("highlight the member first")
        if verb == "fault" and self.spec is not None:
            return plan_fault(self.lab, array, member, self.spec)
        if verb == "clear_fault":
            return plan_clear(self.lab, array, member)
        raise ActionRefused(f"the lab's faults have no action called {verb}")

    def command(self, verb: str, array: str, member: str | None) -> str:
        """Every command, one per line, as the confirmation shows them."""
        return "\n".join(shlex.join(argv) for argv in self.plan(verb, array, member).commands)

    def run(self, verb: str, array: str, member: str | None) -> str:
        """Plan again (things change while a dialog is open) and run it through the lab's runner."""
        return run_lab_plan(self.lab, lambda: self.plan(verb, array, member).execute, live_only=self._live_only)
