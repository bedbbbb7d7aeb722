"""The narration line: every md event's sentence in plain words, filled in for the array's level."""

from __future__ import annotations

import re

import pytest

from raidtop.model.md import MdArray, MdEvent, MdMember
from raidtop.model.md_events import EVENT_KINDS
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.narration import event_narration, narrate, redundancy_words, state_narration


def array(level: str = "raid5", names=("loop20", "loop21", "loop22"), health: str = "ok") -> MdArray:
    members = tuple(MdMember(name, slot=i, roles=("in_sync",)) for i, name in enumerate(names))
    return MdArray(name="md9", level=level, state="clean", health=health, members=members)


@pytest.mark.parametrize("name", sorted(EVENT_KINDS))
def test_every_event_narrates_in_words_with_nothing_left_to_fill(name):
    for level in ("raid1", "raid5", "raid6", "raid10", None):
        said = event_narration(MdEvent(0.0, "md9", name, "loop21"), level)
        assert said and not re.search(r"[{}]", said), said
        assert "_" not in said.replace("sync_action", "")


def test_where_a_lost_disk_is_rebuilt_from_follows_the_level():
    fail = MdEvent(0.0, "md9", "DegradedArray")
    assert "from parity" in event_narration(fail, "raid5")
    assert "from the other mirror" in event_narration(fail, "raid1")
    assert redundancy_words("raid0") == "its redundancy"
    assert "loop21" in event_narration(MdEvent(0.0, "md9", "Fail", "loop21"), "raid5")


def test_the_line_stays_until_the_array_does_something_new_and_a_removal_is_told():
    before = array()
    quiet = Snapshot(time=1.0, interval_s=1.0, arrays=(before,))
    first = narrate(quiet, "md9", None)
    assert first == state_narration(before) and "one disk may fail" in first
    assert narrate(quiet, "md9", "what md did last", before) == "what md did last"
    failed = Snapshot(time=2.0, interval_s=1.0, arrays=(before,), events=(MdEvent(2.0, "md9", "Fail", "loop20"),))
    assert narrate(failed, "md9", "what md did last", before).startswith("md marked loop20 faulty")
    removed = array(names=("loop21", "loop22"), health="degraded")
    said = narrate(Snapshot(time=3.0, interval_s=1.0, arrays=(removed,)), "md9", "old", before)
    assert said.startswith("loop20 was removed") and "degraded" in said
    assert narrate(quiet, "md7", None) is None
