"""What md just did and why, in plain words: the demo's narration line.

The sentences are the md event table's (:attr:`raidtop.model.md_events.EventKind.narration`);
this module fills in the array, the member and where the array keeps its
redundancy, and says what a quiet array is when nothing has happened yet.
"""

from __future__ import annotations

from raidtop.model.md import MdArray, MdEvent
from raidtop.model.md_events import event_kind, event_sentence
from raidtop.model.snapshot import Snapshot
from raidtop.model.units import counted

_COPIES = {
    "raid1": "the other mirror",
    "raid4": "parity",
    "raid5": "parity",
    "raid6": "the two parities",
    "raid10": "the mirror copies",
}


def redundancy_words(level: str | None) -> str:
    """Where an array of ``level`` keeps the copy that stands in for a lost disk, in words."""
    return _COPIES.get(level or "", "its redundancy")


def event_narration(event: MdEvent, level: str | None) -> str:
    """One event in a teacher's words (the event's own sentence when the table has no narration)."""
    kind = event_kind(event.event)
    if not kind.narration:
        return f"{event.array}: {event_sentence(event)}."
    text = kind.narration.replace("{member}", f" {event.member}" if event.member else "")
    text = text.replace("{array}", event.array).replace("{copy}", redundancy_words(level))
    # Device names stay as the kernel spells them ("md9", not "Md9"): no capital first letter.
    return text.strip()


def state_narration(array: MdArray) -> str:
    """What ``array`` is now, for the moment before anything happened (or after it all settled)."""
    working = sum(1 for m in array.members if not m.is_faulty and m.slot is not None)
    copy = redundancy_words(array.level)
    if array.health == "failed":
        return f"{array.name} has failed: it lost more disks than {copy} can make up for."
    if array.sync is not None and array.sync.running:
        percent = "" if array.sync.percent is None else f" ({array.sync.percent:.0f}% done)"
        return f"md is rebuilding {array.name}{percent}, recomputing the missing blocks from {copy}."
    if array.health == "degraded":
        return f"{array.name} is degraded: it serves reads from {copy} until a new disk is added and rebuilt."
    return (
        f"{array.name} is a whole {array.level or 'md array'} of {counted(working, 'disk')}: every block has {copy} "
        "on another disk, so one disk may fail without losing data."
    )


def narrate(snap: Snapshot, array_name: str, before: str | None, previous: MdArray | None = None) -> str | None:
    """The narration after ``snap`` for ``array_name``: its events' sentences, else ``before``.

    ``before`` (the line already shown) stays until the array does something
    new. A change md raises no event for (a faulty disk removed, a spare
    added while nothing is missing) is told from ``previous``, the array as
    the last sample showed it. With nothing shown yet the array's state is
    described. ``None``: the array is not in the snapshot.
    """
    array = next((a for a in snap.arrays if a.name == array_name), None)
    events = [e for e in snap.events if e.array == array_name or (e.event == "SmartWarning" and _member_of(e, array))]
    if events:
        level = array.level if array is not None else None
        said: list[str] = []
        for event in events:
            sentence = event_narration(event, level)
            if sentence not in said:
                said.append(sentence)
        return " ".join(said)
    if array is not None and previous is not None:
        gone = sorted({m.name for m in previous.members} - {m.name for m in array.members})
        came = sorted({m.name for m in array.members} - {m.name for m in previous.members})
        said = [f"{name} was removed: md no longer holds it." for name in gone]
        said += [f"{name} was added as a spare: md rebuilds onto it when a disk is missing." for name in came]
        if said:
            return " ".join([*said, state_narration(array)])
    if before:
        return before
    return state_narration(array) if array is not None else None


def _member_of(event: MdEvent, array: MdArray | None) -> bool:
    # SMART's warning names the disk; the narration follows it when the disk is one of the array's members.
    return array is not None and any(m.name == event.member for m in array.members)
