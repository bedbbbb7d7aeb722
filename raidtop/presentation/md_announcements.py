"""What md events say to the user: a sentence, a severity, and whether the bell rings (no Textual)."""

from __future__ import annotations

from collections.abc import Callable

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.md.events import mismatch_verdict
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdEvent
from raidtop.model.md_events import event_kind, event_sentence, rings_bell


@frozen_dataclass(slots=False)
class Announcement:
    """One notification: its text, title, Textual severity and how long it stays."""

    text: str
    title: str
    severity: str = "information"
    timeout: float = 5


def describe_event(event: MdEvent) -> str:
    """One sentence for a notification or the timeline (the event table's, with its detail)."""
    return event_sentence(event)


def announcements(
    snapshot: Snapshot, previous_alerts: frozenset[str], heard: Callable[[str], bool] | None = None
) -> tuple[list[Announcement], bool]:
    """The notifications ``snapshot``'s md events call for, and whether a failure rings the bell.

    ``previous_alerts`` are the degraded alerts of the sample before: an array
    that left them is announced as whole again. ``heard``, when given, says
    which arrays may be announced at all (the demo: only its simulated one).
    """
    said: list[Announcement] = []
    ring = False
    arrays = {a.name: a for a in snapshot.arrays}
    for event in snapshot.events:
        if heard is not None and not heard(event.array):
            continue
        text = describe_event(event)
        array = arrays.get(event.array)
        if event.event == "CheckFinished" and array is not None:
            verdict = mismatch_verdict(
                array.level, array.mismatch_cnt, size_kib=array.size_kib, last_sync_action=array.last_sync_action
            )
            if verdict is not None:
                text = f"{text}: {verdict.text}"
        # An event raidtop expected (the lab's own fail, a check it started) is news, not an alarm.
        severity = "information" if event.expected else event_kind(event.event).severity
        title = f"{event.array}: {event.event}"
        if event.event == "SmartWarning":
            health = snapshot.smart.get(event.member or "")
            severity = "error" if health is not None and health.verdict == "failing" else severity
            title = f"{event.member}: SmartWarning" + (f" ({event.array})" if event.array else "")
        said.append(Announcement(text, title, severity, 10 if severity == "error" else 5))
        ring = ring or rings_bell(event)
    for name in sorted(previous_alerts - snapshot.degraded_alerts):
        # Only an array still present is "whole again"; one that vanished has its own event.
        if name in arrays and (heard is None or heard(name)):
            said.append(Announcement(f"{name} is whole again; the degraded alert is cleared.", name, timeout=8))
    return said, ring
