"""The contract between the Arrays panel's member keys and whoever may act on an array.

The demo's simulated array and the lab's loop-device arrays implement it; any
other array has no MemberActions, so the keys do nothing there.
"""

from __future__ import annotations

from typing import Protocol

VERBS = ("fail", "remove", "add", "re_add", "add_spare", "replace", "check", "repair", "speed_limit")
"""Everything a member key may ask for; an implementation may refuse any."""

ARRAY_VERBS = frozenset({"add", "re_add", "add_spare", "check", "repair", "speed_limit"})
"""Verbs that act on the array as a whole: they need no highlighted member."""


class ActionRefused(Exception):
    """The action is not allowed or failed; ``str()`` says why, in words."""


class MemberActions(Protocol):
    """Acts on members of the arrays it :meth:`handles`."""

    simulated: bool
    """True when nothing real changes (the demo): no confirmation is asked."""

    def handles(self, array: str) -> bool:
        """True for arrays this object may change."""

    def command(self, verb: str, array: str, member: str | None) -> str:
        """The exact command :meth:`run` would run, to show before confirming."""

    def run(self, verb: str, array: str, member: str | None) -> str:
        """Do it; return the command that ran. Raise ActionRefused with the reason."""
