"""The md event table: every event a detector raises is declared, and every layer reads the same entry."""

from __future__ import annotations

import re
from pathlib import Path

from raidtop.collect.md import events as md_events_reader
from raidtop.model.md import MdEvent
from raidtop.model.md_events import BELL_EVENTS, EVENT_KINDS, event_kind, event_sentence, rings_bell
from raidtop.presentation.md_announcements import describe_event

_RAIDTOP = Path(md_events_reader.__file__).resolve().parents[2]


def test_every_event_a_detector_raises_is_in_the_table():
    # The names written out in MdEvent(...) calls, plus those _sync_events builds from "Rebuild"/"Check".
    raised = {f"{kind}{end}" for kind in ("Rebuild", "Check") for end in ("Started", "Finished")}
    # md's detectors read (collect); SMART's warning is judged (presentation/smart_events.py).
    detectors = [*(_RAIDTOP / "collect").rglob("*.py"), *(_RAIDTOP / "presentation").rglob("*.py")]
    for path in detectors:
        raised |= set(re.findall(r'MdEvent\([^()]*?"([A-Z][A-Za-z]+)"', path.read_text()))
    assert {"Fail", "NewArray", "SmartWarning", "SyncStalled"} <= raised
    assert raised <= set(EVENT_KINDS)
    assert {f"Rebuild{step}" for step in md_events_reader.MILESTONES} <= set(EVENT_KINDS)


def test_the_bell_rings_for_bad_news_nobody_asked_for():
    assert {"Fail", "DegradedArray", "ArrayFailed", "SmartWarning", "SyncStalled"} == BELL_EVENTS
    assert md_events_reader.BELL_EVENTS is BELL_EVENTS
    assert rings_bell(MdEvent(0.0, "md0", "Fail", "sdb"))
    assert not rings_bell(MdEvent(0.0, "md0", "Fail", "sdb", expected=True))
    assert not rings_bell(MdEvent(0.0, "md0", "RebuildFinished"))


def test_sentences_name_the_member_and_keep_its_text_as_is():
    assert event_sentence(MdEvent(0.0, "md0", "FailSpare", "sd{c}")) == "spare sd{c} failed while being rebuilt onto"
    assert event_sentence(MdEvent(0.0, "md0", "Fail")) == "member failed"
    assert describe_event(MdEvent(0.0, "md0", "Rebuild60", detail="x")) == "rebuild passed 60% — x"


def test_an_unknown_event_is_plain_news():
    assert event_sentence(MdEvent(0.0, "md0", "Rebuild23")) == "rebuild passed 23%"
    odd = event_kind("SomethingNew")
    assert (odd.sentence, odd.severity, odd.bell, odd.tone, odd.failure) == (
        "SomethingNew",
        "information",
        False,
        None,
        False,
    )


def test_failures_are_errors_and_errors_are_not_quiet():
    for kind in EVENT_KINDS.values():
        # An error is a failure everywhere: red in the timeline, a red marker on the time bar.
        assert kind.failure == (kind.severity == "error"), kind.name
        if kind.failure:
            assert kind.tone == "crit", kind.name
        if kind.tone == "good":
            assert kind.severity == "information" and not kind.bell, kind.name
