"""The app's live state: latest snapshot, history, the degraded alerts of the one before, what screens want read."""

from __future__ import annotations


from raidtop.live.state import LiveState
from raidtop.model.md import MdEvent
from raidtop.model.snapshot import Snapshot


def test_add_makes_the_latest_and_answers_the_alerts_of_the_one_before() -> None:
    live = LiveState()
    first = Snapshot(time=1.0, interval_s=1.0, degraded_alerts=frozenset({"md0"}))
    second = Snapshot(
        time=2.0, interval_s=1.0, events=(MdEvent(2.0, "md0", "RebuildStarted"),), degraded_alerts=frozenset()
    )
    assert live.add(first) == frozenset()
    assert live.add(second) == frozenset({"md0"})  # what the announcer compares against: md0 is whole again
    assert live.latest is second
    assert [e.event for e in live.history.events_of("md0")] == ["RebuildStarted"]


def test_a_replay_sets_the_events_to_its_position() -> None:
    live = LiveState()
    live.add(Snapshot(time=5.0, interval_s=1.0, events=(MdEvent(5.0, "md1", "Fail"),)))
    live.set_events([MdEvent(1.0, "md1", "NewArray")])
    assert [e.event for e in live.history.events_of()] == ["NewArray"]


def test_units_are_wanted_while_anything_shows_them() -> None:
    live = LiveState()
    live.want_units("members", True)
    live.want_units("detail", True)
    live.want_units("members", False)
    assert live.units_wanted_by == frozenset({"detail"})
    live.want_units("detail", False)
    assert not live.units_wanted_by
