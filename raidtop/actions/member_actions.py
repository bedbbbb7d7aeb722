"""The contract between the member keys and whoever may act on an array.

The demo's simulated array and the lab's loop-device arrays implement it; any
other array has no MemberActions, so the keys do nothing there. The screens
drive it through one flow (:mod:`raidtop.screens.member_flow`): ``offered``
and ``command`` in a thread worker, a confirmation showing the command, then
``run`` in a thread worker.
"""

from __future__ import annotations

from typing import Protocol

from raidtop.model.member_verbs import ARRAY_VERBS, VERBS

__all__ = ["ARRAY_VERBS", "VERBS", "ActionRefused", "MemberActions"]


class ActionRefused(Exception):
    """The action is not allowed or failed; ``str()`` says why, in words."""


class MemberActions(Protocol):
    """Acts on members of the arrays it :meth:`handles`."""

    simulated: bool
    """True when nothing real changes (the demo): no confirmation is asked."""

    def handles(self, array: str) -> bool:
        """True for arrays this object may change."""

    def offered(self, array: str) -> frozenset[str]:
        """The verbs worth a key on ``array`` (empty when it is not handled).

        May read files: call it off the UI thread.
        """

    def command(self, verb: str, array: str, member: str | None) -> str:
        """The exact command :meth:`run` would run, to show before confirming."""

    def run(self, verb: str, array: str, member: str | None) -> str:
        """Do it; return the command that ran. Raise ActionRefused with the reason."""
