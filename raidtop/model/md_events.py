"""The md events raidtop raises, declared once: how bad each is, whether it rings, its colour and its sentence.

Every layer reads this table: the reader that derives events
(:mod:`raidtop.collect.md.events`) for the bell, the announcer for severity
and sentence, the event timeline for its tone and the replay's time bar
for what counts as a failure. A new event is one entry here plus its
detector.
"""

from __future__ import annotations


from raidtop.model.frozen import frozen_dataclass
from raidtop.model.md import MdEvent

REBUILD_MILESTONES = (20, 40, 60, 80)
"""The percentages a rebuild announces as it passes them (Rebuild20 … Rebuild80)."""


@frozen_dataclass
class EventKind:
    """One kind of md event (``mdadm --monitor``'s name, or raidtop's own)."""

    name: str
    sentence: str
    """What happened, in words; ``{member}`` stands for `` loop3`` (or nothing without a member)."""
    severity: str = "information"
    """The notification's Textual severity: ``error``, ``warning`` or ``information``."""
    bell: bool = False
    """Rings the terminal bell (unless the event was expected)."""
    tone: str | None = None
    """Its colour in the event timeline (``crit``, ``warn``, ``good``), or none."""
    failure: bool = False
    """Marks a failure on the replay's time bar (a red ▼ instead of a green one)."""
    narration: str = ""
    """What md just did and why, in plain words for a class (the demo's presenter mode).

    ``{member}`` stands for `` loop3`` as in :attr:`sentence`, ``{array}`` for the array's name and
    ``{copy}`` for where the array keeps its redundancy ("parity", "the other mirror"), filled in by
    :mod:`raidtop.presentation.narration`. Empty: the :attr:`sentence` says it already.
    """


EVENT_KINDS: dict[str, EventKind] = {
    kind.name: kind
    for kind in (
        EventKind(
            "Fail",
            "member{member} failed",
            "error",
            bell=True,
            tone="crit",
            failure=True,
            narration="md marked{member} faulty and stopped using it: no read or write waits on a failing disk.",
        ),
        EventKind(
            "FailSpare",
            "spare{member} failed while being rebuilt onto",
            "error",
            tone="crit",
            failure=True,
            narration="the disk being rebuilt onto,{member}, failed too: md stops the rebuild; {array} stays degraded.",
        ),
        EventKind(
            "SpareActive",
            "spare{member} is now in sync",
            tone="good",
            narration="{member} now holds its full share: md counts it as a working member.",
        ),
        EventKind(
            "DegradedArray",
            "array is degraded",
            "error",
            bell=True,
            tone="crit",
            failure=True,
            narration=(
                "{array} is degraded but still serves every read and write: md computes the missing disk's "
                "blocks from {copy} on the fly."
            ),
        ),
        EventKind(
            "ArrayFailed",
            "array failed: it has lost data or refuses writes",
            "error",
            bell=True,
            tone="crit",
            failure=True,
            narration="{array} lost more disks than {copy} can make up for: md stops it rather than return wrong data.",
        ),
        EventKind("DeviceDisappeared", "array disappeared", "error", tone="crit", failure=True),
        EventKind("NewArray", "new array"),
        EventKind(
            "RebuildStarted",
            "rebuild started",
            narration="md is rebuilding: it reads the surviving disks and writes the missing blocks, "
            "recomputed from {copy}, onto the new disk.",
        ),
        *(
            EventKind(
                f"Rebuild{step}",
                f"rebuild passed {step}%",
                narration=f"the rebuild is {step}% done; until it ends, {{array}} has no redundancy to spare.",
            )
            for step in REBUILD_MILESTONES
        ),
        EventKind(
            "RebuildFinished",
            "rebuild finished",
            tone="good",
            narration="the rebuild finished: every block has {copy} again, so {array} can lose a disk again.",
        ),
        EventKind("CheckStarted", "check started", narration="md is reading every block to compare it with {copy}."),
        EventKind("CheckFinished", "check finished", tone="good"),
        EventKind(
            "SparesMissing",
            "spare{member} removed",
            "warning",
            narration="{member} was removed: md no longer holds it, and its slot waits for a new disk.",
        ),
        EventKind(
            "SmartWarning",
            "disk{member} health worsened",
            "warning",
            bell=True,
            tone="warn",
            narration="SMART says{member} is wearing out; md does not know yet and keeps using it.",
        ),
        EventKind(
            "SyncStalled",
            "sync STALLED: no progress; look for a member that hangs (dmesg, member await)",
            "warning",
            bell=True,
        ),
        EventKind(
            "DemoReset",
            "demo reset: a whole array again",
            narration="the demo started over: {array} is whole again.",
        ),
    )
}
"""Every event raidtop derives, by name."""

BELL_EVENTS = frozenset(name for name, kind in EVENT_KINDS.items() if kind.bell)
"""Events that ring the terminal bell by default (unless marked expected)."""


def event_kind(name: str) -> EventKind:
    """The entry for ``name``; an unknown name (a recording from another version) is plain news."""
    kind = EVENT_KINDS.get(name)
    if kind is not None:
        return kind
    # mdadm names a rebuild's step by the percent it saw (Rebuild23).
    words = f"rebuild passed {name[7:]}%" if name.startswith("Rebuild") else name
    return EventKind(name, words)


def rings_bell(event: MdEvent) -> bool:
    """True for an event that rings the bell: a bad one nobody asked for."""
    return event_kind(event.event).bell and not event.expected


def event_sentence(event: MdEvent) -> str:
    """One sentence for a notification or the timeline."""
    text = event_kind(event.event).sentence.replace("{member}", f" {event.member}" if event.member else "")
    return text + (f" — {event.detail}" if event.detail else "")
