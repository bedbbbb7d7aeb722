"""The member verbs and the one key map for them, as plain data.

The demo, the dashboard's member grid and the Lab screen offer the same
verbs on the same keys; this module is where both are written down. It
imports nothing from Textual, so actions (which say what a verb does) and
widgets (which turn a key into a verb) can both read it.
"""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


VERBS = ("fail", "remove", "add", "re_add", "add_spare", "replace", "check", "repair", "speed_limit")
"""Everything a member key may ask for; an implementation may refuse any."""

ARRAY_VERBS = frozenset({"add", "re_add", "add_spare", "check", "repair", "speed_limit"})
"""Verbs that act on the array as a whole: they need no highlighted member."""


@frozen_dataclass
class MemberKey:
    """One verb's key, footer label and tooltip."""

    verb: str
    key: str
    description: str
    tooltip: str
    show: bool = True

    @property
    def binding_id(self) -> str:
        """The binding id users remap (the same on every screen that offers the verb)."""
        return "member-" + self.verb.replace("_", "-")


MEMBER_KEYS = (
    MemberKey("fail", "f", "Fail", "Fail the highlighted member (mdadm --fail)"),
    MemberKey("remove", "r", "Remove", "Remove the highlighted faulty or spare member (mdadm --remove)"),
    MemberKey("add", "a", "Add", "Add a fresh disk to the array (mdadm --add)"),
    MemberKey("re_add", "E", "Re-add", "Put a removed lab disk back (mdadm --re-add)"),
    MemberKey("add_spare", "w", "Spare", "Add a fresh disk as a spare (mdadm --add-spare)"),
    MemberKey("replace", "c", "Replace", "Copy the highlighted member onto a spare, then fail it (mdadm --replace)"),
    MemberKey("check", "k", "Check", "Start a check: read everything, count mismatches (md/sync_action)"),
    MemberKey(
        "repair", "K", "Repair", "Start a repair: rewrite mismatched parity or copies (md/sync_action)", show=False
    ),
    MemberKey("speed_limit", "L", "Speed", "Cycle the rebuild speed limit: 1000, 10000, 50000 KiB/s, system default"),
)
"""One key per verb, used by the demo, the dashboard and the Lab screen alike.

Upper case where a lower-case letter already means something on the
dashboard (``e`` events, ``s`` sort, ``x`` explain): a member key shadows
the dashboard's key while a changeable array is highlighted, so those are
kept for the verbs users reach for first (f, r, a).
"""

VERB_WORDS = {
    "fail": "Fail",
    "remove": "Remove",
    "add": "Add a fresh disk to",
    "re_add": "Re-add to",
    "add_spare": "Add a spare to",
    "replace": "Replace",
    "check": "Check",
    "repair": "Repair",
    "speed_limit": "Change the rebuild speed limit of",
    "fault": "Put a device-mapper fault under",
    "clear_fault": "Take out of its fault, back onto its loop device:",
}
"""How a confirmation's title starts for each verb."""


def verb_title(verb: str, array: str, member: str | None) -> str:
    """The confirmation's question, e.g. ``Fail loop2 of md101?``."""
    target = f"{member} of {array}" if member and verb not in ARRAY_VERBS else array
    return f"{VERB_WORDS.get(verb, verb)} {target}?"


def verb_name(verb: str) -> str:
    """The verb in words: ``add_spare`` → ``add spare``."""
    return verb.replace("_", " ")
