"""md events become sentences, severities and the bell (raidtop.presentation.md_announcements, no Textual)."""

from __future__ import annotations

from dataclasses import replace

from raidtop.collect.sampler import Sampler
from raidtop.presentation.md_announcements import announcements, describe_event
from raidtop.model.md import MdEvent

from tests.collect.md.test_md_events import MDSTAT_SEQUENCE, write_root


def test_a_failure_is_an_error_that_rings_and_the_recovery_clears_the_alert(tmp_path):
    roots = [write_root(tmp_path / str(i), {"proc/mdstat": text}) for i, text in enumerate(MDSTAT_SEQUENCE)]
    sampler = Sampler(roots[0], clock=iter(range(1000, 2000, 10)).__next__)
    said_all, rang, previous = [], [], frozenset()
    for root in roots:
        sampler.root = type(sampler.root)(root)
        snapshot = sampler.sample()
        said, ring = announcements(snapshot, previous)
        said_all += said
        rang.append(ring)
        previous = snapshot.degraded_alerts
    fail = next(a for a in said_all if a.title == "md0: Fail")
    assert fail.severity == "error" and fail.timeout == 10
    assert any(rang)
    whole = [a for a in said_all if "whole again" in a.text]
    assert len(whole) == 1 and whole[0].title == "md0"


def test_an_expected_event_is_information_and_a_vanished_array_is_not_whole_again(tmp_path):
    sampler = Sampler(write_root(tmp_path / "empty", {"proc/mdstat": "Personalities : \nunused devices: <none>\n"}))
    snapshot = sampler.sample()
    said, ring = announcements(snapshot, frozenset({"md0"}))
    assert said == [] and ring is False
    event = MdEvent(time=0.0, array="md0", event="Fail", member="sdb", expected=True)
    assert describe_event(event) == "member sdb failed"
    said, ring = announcements(replace(snapshot, events=(event,)), frozenset())
    assert [(a.text, a.severity) for a in said] == [("member sdb failed", "information")]
    assert ring is False
