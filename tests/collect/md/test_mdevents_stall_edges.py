"""The SyncStalled event at its edges (raidtop.collect.md.events, issue 23).

One event when a running sync turns STALLED, none while it stays so, and its
detail names where and for how long, or leaves out what is unknown. Expected
texts are written out by hand.
"""

from __future__ import annotations

from raidtop.collect.md.events import derive_events
from raidtop.model.md import MdArray, MdMember, MdSync

A = MdMember("sda", 0, ("in_sync",))
B = MdMember("sdb", 1, ("in_sync",))


def raid1(sync):
    return MdArray(name="md0", level="raid1", state="clean", health="ok", raid_disks=2, members=(A, B), sync=sync)


def stalled(percent=23.4, stalled_s=60.0, done=23_400):
    return MdSync("resync", percent, done, 100_000, stalled=True, stalled_s=stalled_s)


def moving(percent=23.4, done=23_400):
    return MdSync("resync", percent, done, 100_000)


def stall_events(before, after):
    return [
        (e.event, e.detail) for e in derive_events([raid1(before)], [raid1(after)], 1.0) if e.event == "SyncStalled"
    ]


def test_a_sync_turning_stalled_raises_one_event_with_where_and_how_long():
    assert stall_events(moving(), stalled()) == [("SyncStalled", "resync has not moved at 23.4 % for 60 s")]


def test_a_sync_already_stalled_raises_no_second_event():
    assert stall_events(stalled(stalled_s=60.0), stalled(stalled_s=61.0)) == []


def test_a_stall_detail_leaves_out_what_is_unknown():
    assert stall_events(moving(percent=None), stalled(percent=None)) == [
        ("SyncStalled", "resync has not moved for 60 s")
    ]
    assert stall_events(moving(), stalled(stalled_s=None)) == [("SyncStalled", "resync has not moved at 23.4 %")]
