"""The md events raidtop raises, declared once: how bad each is, whether it rings, its colour and its sentence.

Every layer reads this table: the reader that derives events
(:mod:`raidtop.collect.md.events`) for the bell, the announcer for severity
and sentence, the event timeline for its tone and the replay's time bar
for what counts as a failure. A new event is one entry here plus its
detector.
"""

from __future__ import annotations

from dataclasses import dataclass

from raidtop.model.md import MdEvent

REBUILD_MILESTONES = (20, 40, 60, 80)
"""The percentages a rebuild announces as it passes them (Rebuild20 … Rebuild80)."""


@dataclass(frozen=True, slots=True)
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


EVENT_KINDS: dict[str, EventKind] = {
    kind.name: kind
    for kind in (
        EventKind("Fail", "member{member} failed", "error", bell=True, tone="crit", failure=True),
        EventKind("FailSpare", "spare{member} failed while being rebuilt onto", "error", tone="crit", failure=True),
        EventKind("SpareActive", "spare{member} is now in sync", tone="good"),
        EventKind("DegradedArray", "array is degraded", "error", bell=True, tone="crit", failure=True),
        EventKind(
            "ArrayFailed",
            "array failed: it has lost data or refuses writes",
            "error",
            bell=True,
            tone="crit",
            failure=True,
        ),
        EventKind("DeviceDisappeared", "array disappeared", "error", tone="crit", failure=True),
        EventKind("NewArray", "new array"),
        EventKind("RebuildStarted", "rebuild started"),
        *(EventKind(f"Rebuild{step}", f"rebuild passed {step}%") for step in REBUILD_MILESTONES),
        EventKind("RebuildFinished", "rebuild finished", tone="good"),
        EventKind("CheckStarted", "check started"),
        EventKind("CheckFinished", "check finished", tone="good"),
        EventKind("SparesMissing", "spare{member} removed", "warning"),
        EventKind("SmartWarning", "disk{member} health worsened", "warning", bell=True, tone="warn"),
        EventKind(
            "SyncStalled",
            "sync STALLED: no progress; look for a member that hangs (dmesg, member await)",
            "warning",
            bell=True,
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
