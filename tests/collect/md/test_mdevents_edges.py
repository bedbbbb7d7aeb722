"""md events and mismatch verdicts at their boundaries (raidtop.collect.md.events).

The cases the story tests in test_md_events.py pass by: progress known
only as a percent (an mdstat progress line without counts), progress
standing still, a milestone exactly on its step, exactly 1 mismatch sector,
the raid1 mismatch threshold at its boundary, what ends a sync without a
Finished. Expected values are written out by hand.
"""

from __future__ import annotations

import pytest

from raidtop.collect.md.events import AlertState, derive_events, mismatch_verdict, rings_bell
from raidtop.model.md import MdArray, MdEvent, MdMember, MdSync

A = MdMember("sda", 0, ("in_sync",))
B = MdMember("sdb", 1, ("in_sync",))


def raid1(sync=None, members=(A, B), health="ok", state="clean", level="raid1", name="md0", mismatch=None):
    return MdArray(
        name=name,
        level=level,
        state=state,
        health=health,
        raid_disks=2,
        members=tuple(members),
        sync=sync,
        mismatch_cnt=mismatch,
    )


def events(before, after):
    return [(e.event, e.member) for e in derive_events([before], [after], 1.0)]


# --- progress known only as a percent ------------------------------------------


def test_percent_only_progress_going_back_is_a_restart():
    before = raid1(MdSync("resync", 60.0))
    assert events(before, raid1(MdSync("resync", 10.0))) == [("RebuildStarted", None)]


def test_percent_only_progress_standing_still_or_moving_on_continues():
    before = raid1(MdSync("resync", 60.0))
    assert events(before, raid1(MdSync("resync", 60.0))) == []
    assert events(before, raid1(MdSync("resync", 79.9))) == []
    assert events(raid1(MdSync("resync", 59.9)), raid1(MdSync("resync", 60.0))) == [("Rebuild60", None)]


def test_counts_decide_before_the_percent():
    # The percent (rounded by the kernel, or misread) says back; the counts say forward.
    before = raid1(MdSync("resync", 60.0, 600, 1000))
    assert events(before, raid1(MdSync("resync", 10.0, 601, 1000))) == []
    # Counts on one side only: the percents decide.
    assert events(before, raid1(MdSync("resync", 10.0))) == [("RebuildStarted", None)]
    assert events(raid1(MdSync("resync", 60.0)), raid1(MdSync("resync", 61.0, 10, 1000))) == []


def test_counts_standing_still_continue():
    before = raid1(MdSync("resync", 60.0, 600, 1000))
    assert events(before, raid1(MdSync("resync", 60.0, 600, 1000))) == []


def test_no_progress_known_at_all_continues():
    assert events(raid1(MdSync("resync")), raid1(MdSync("resync"))) == []


# --- milestones -----------------------------------------------------------------


@pytest.mark.parametrize(
    "before, after, expected",
    [
        (0.0, 20.0, ["Rebuild20"]),
        (19.99, 20.0, ["Rebuild20"]),
        (39.0, 41.0, ["Rebuild40"]),
        (79.99, 80.0, ["Rebuild80"]),
        (80.0, 99.99, []),
        (79.0, 100.0, []),  # no step past 80: the end is RebuildFinished
        (10.0, 19.99, []),
        (20.0, 20.5, []),
    ],
)
def test_a_milestone_is_raised_once_its_step_is_reached(before, after, expected):
    got = events(raid1(MdSync("recover", before)), raid1(MdSync("recover", after)))
    assert [name for name, _ in got] == expected


def test_checks_and_repairs_raise_no_milestones():
    assert events(raid1(MdSync("check", 10.0)), raid1(MdSync("check", 30.0))) == []
    assert events(raid1(MdSync("repair", 10.0)), raid1(MdSync("repair", 90.0))) == []


def test_a_milestone_needs_both_percents():
    assert events(raid1(MdSync("resync", None, 100, 1000)), raid1(MdSync("resync", 30.0, 300, 1000))) == []
    assert events(raid1(MdSync("resync", 10.0, 100, 1000)), raid1(MdSync("resync", None, 300, 1000))) == []


# --- how a sync ends ------------------------------------------------------------


def test_a_finished_check_with_no_mismatch_has_no_detail():
    for count in (None, 0):
        done = derive_events([raid1(MdSync("check", 99.0))], [raid1(mismatch=count)], 1.0)
        assert [(e.event, e.detail) for e in done] == [("CheckFinished", None)]


def test_a_finished_check_with_1_mismatch_says_so():
    done = derive_events([raid1(MdSync("check", 99.0))], [raid1(mismatch=1)], 1.0)
    assert done[0].detail == "mismatches found: 1 (on raid level raid1)"


def test_a_sync_that_goes_to_waiting_did_not_finish():
    assert events(raid1(MdSync("resync", 50.0)), raid1(MdSync("delayed"))) == []


def test_a_sync_ended_by_a_failure_did_not_finish():
    failed = MdMember("sdb", 1, ("faulty",))
    assert events(raid1(MdSync("resync", 50.0)), raid1(members=(A, failed), health="degraded")) == [
        ("Fail", "sdb"),
        ("DegradedArray", None),
    ]


def test_a_sync_ended_by_the_array_failing_did_not_finish():
    got = derive_events([raid1(MdSync("resync", 50.0))], [raid1(health="failed", state="broken")], 1.0)
    assert [(e.event, e.detail) for e in got] == [
        ("DegradedArray", None),
        ("ArrayFailed", "array_state broken: writes fail"),
    ]


def test_array_failed_names_the_level_or_says_its_level():
    lost = derive_events([raid1(level="raid5")], [raid1(level="raid5", health="failed")], 1.0)
    assert lost[-1].detail == "more members lost than raid5 tolerates"
    unknown = derive_events([raid1(level=None)], [raid1(level=None, health="failed")], 1.0)
    assert unknown[-1].detail == "more members lost than its level tolerates"


def test_a_degraded_array_that_fails_raises_array_failed_but_not_degraded_again():
    got = events(raid1(health="degraded"), raid1(health="failed"))
    assert got == [("ArrayFailed", None)]
    assert events(raid1(health="failed"), raid1(health="failed")) == []


def test_stopping_and_starting_arrays():
    assert events(raid1(), raid1(health="inactive", state="inactive")) == [("DeviceDisappeared", None)]
    assert events(raid1(health="inactive", state="inactive"), raid1(health="inactive", state="inactive")) == []
    assert events(raid1(health="inactive", state="inactive"), raid1()) == [("NewArray", None)]
    stopped = raid1(health="inactive", state="inactive")
    assert derive_events([stopped], [], 1.0) == []  # reported when it stopped


def test_a_spare_swapped_for_another_raises_nothing_two_removed_name_none():
    spare, other = MdMember("sdc", None, ("spare",)), MdMember("sdd", None, ("spare",))
    assert events(raid1(members=(A, B, spare)), raid1(members=(A, B, other))) == []
    assert events(raid1(members=(A, B, spare, other)), raid1(members=(A, B))) == [("SparesMissing", None)]


def test_a_new_array_already_syncing_starts_its_sync():
    got = derive_events([], [raid1(MdSync("resync", 0.1, 1, 1000))], 1.0)
    assert [(e.event, e.member) for e in got] == [("NewArray", None), ("RebuildStarted", None)]
    got = derive_events([], [raid1(MdSync("check", 0.1, 1, 1000))], 1.0)
    assert [e.event for e in got] == ["NewArray", "CheckStarted"]
    assert [e.event for e in derive_events([], [raid1(MdSync("delayed"))], 1.0)] == ["NewArray"]


def test_percent_known_on_one_side_only_continues():
    assert events(raid1(MdSync("resync")), raid1(MdSync("resync", 30.0))) == []
    assert events(raid1(MdSync("resync", 30.0)), raid1(MdSync("resync"))) == []


def test_a_faulty_member_removed_with_a_spare_names_the_spare():
    faulty = MdMember("sdd", None, ("faulty",))
    spare = MdMember("sdc", None, ("spare",))
    assert events(raid1(members=(A, B, faulty, spare)), raid1(members=(A, B))) == [("SparesMissing", "sdc")]


# --- mdadm --replace ------------------------------------------------------------

OLD = MdMember("sda", 0, ("in_sync", "want_replacement"))
NEW = MdMember("sdc", 0, ("replacement",))
REPLACING = raid1(MdSync("recover", 99.0, 990, 1000), members=(OLD, B, NEW))


def test_a_finished_replace_is_rebuild_finished_then_an_expected_fail():
    done = raid1(members=(MdMember("sda", 0, ("faulty",)), B, MdMember("sdc", 0, ("in_sync",))))
    got = derive_events([REPLACING], [done], 1.0)
    assert [(e.event, e.member, e.detail, e.expected) for e in got] == [
        ("RebuildFinished", None, None, False),
        ("Fail", "sda", "sda replaced by sdc", True),
        ("SpareActive", "sdc", None, False),
    ]


def test_a_member_wanting_replacement_that_fails_with_no_successor_is_a_plain_fail():
    # The replacement is not in sync yet: the old disk's failure is a real one.
    failed = raid1(
        MdSync("recover", 99.5, 995, 1000), health="degraded", members=(MdMember("sda", 0, ("faulty",)), B, NEW)
    )
    got = derive_events([REPLACING], [failed], 1.0)
    assert [(e.event, e.member, e.expected) for e in got] == [("Fail", "sda", False), ("DegradedArray", None, False)]


def test_a_successor_must_hold_the_same_slot():
    # sdb, in sync in slot 1, is not sda's successor; sdc in slot 0 not in sync yet.
    failed = raid1(health="degraded", members=(MdMember("sda", 0, ("faulty",)), B, MdMember("sdc", 0, ())))
    got = derive_events([raid1(members=(OLD, B, NEW))], [failed], 1.0)
    assert [(e.event, e.member, e.detail) for e in got] == [("Fail", "sda", None), ("DegradedArray", None, None)]


def test_without_want_replacement_a_member_taking_the_slot_is_no_successor():
    plain = MdMember("sda", 0, ("in_sync",))
    done = raid1(members=(MdMember("sda", 0, ("faulty",)), B, MdMember("sdc", 0, ("in_sync",))))
    got = derive_events([raid1(members=(plain, B, NEW))], [done], 1.0)
    assert [(e.event, e.member, e.expected) for e in got][0] == ("Fail", "sda", False)


def test_a_slotless_member_wanting_replacement_has_no_successor():
    old = MdMember("sda", None, ("in_sync", "want_replacement"))
    done = raid1(members=(MdMember("sda", None, ("faulty",)), B, MdMember("sdc", None, ("in_sync",))))
    got = derive_events([raid1(members=(old, B))], [done], 1.0)
    assert [(e.event, e.member, e.expected) for e in got][0] == ("Fail", "sda", False)


# --- bell and alert state ---------------------------------------------------------


def test_only_unexpected_bad_events_ring_the_bell():
    assert rings_bell(MdEvent(0.0, "md0", "Fail", "sda"))
    assert not rings_bell(MdEvent(0.0, "md0", "Fail", "sda", "sda replaced by sdc", True))
    assert not rings_bell(MdEvent(0.0, "md0", "RebuildFinished"))


def test_alert_state_raises_and_clears_in_natural_order():
    state, raised, cleared = AlertState().advance(
        [raid1(name="md10", health="degraded"), raid1(name="md2", health="failed"), raid1(name="md1")]
    )
    assert (state.degraded, raised, cleared) == (frozenset({"md10", "md2"}), ["md2", "md10"], [])
    state, raised, cleared = state.advance([raid1(name="md10", health="degraded")])
    assert (state.degraded, raised, cleared) == (frozenset({"md10"}), [], ["md2"])


# --- mismatch verdicts ------------------------------------------------------------


def test_exactly_1_mismatch_sector_is_worded_in_the_singular():
    assert mismatch_verdict("raid1", 1).text.startswith("1 sector differs between mirrors. On raid1 this is normal")
    assert mismatch_verdict("raid1", 2).text.startswith("2 sectors differ between mirrors.")
    assert mismatch_verdict("raid5", 1).text.startswith("1 sector where parity does not match the data on raid5")
    assert mismatch_verdict("raid6", 2).text.startswith("2 sectors where parity")


def test_the_mirror_threshold_at_its_boundary():
    # 1 000 000 KiB array: notable above 0.1 % = 1000 KiB = 2000 sectors of 512 bytes.
    at = mismatch_verdict("raid1", 2000, size_kib=1_000_000)
    over = mismatch_verdict("raid1", 2001, size_kib=1_000_000)
    assert at.severity == "info" and over.severity == "warning"
    assert over.text == (
        "2001 sectors differ between mirrors, more than swap or unfinished writes usually "
        "explain on raid1; check whether this array holds swap, then run a repair."
    )
    assert mismatch_verdict("raid10", 10**9).severity == "info"  # size unknown: never notable
    assert mismatch_verdict("multipath", 4001, size_kib=2_000_000).severity == "warning"


@pytest.mark.parametrize(
    "action, suffix",
    [
        (None, ""),
        ("none", ""),
        ("check", ""),
        ("repair", ""),
        ("resync", " (counted during a resync; a check gives a meaningful count)"),
        ("recover", " (counted during a recover; a check gives a meaningful count)"),
    ],
)
def test_the_count_is_qualified_unless_a_check_or_repair_made_it(action, suffix):
    assert mismatch_verdict("raid1", 0, last_sync_action=action).text == f"No mismatches{suffix}."
    assert mismatch_verdict("raid5", 8, last_sync_action=action).text.endswith(f"comes back{suffix}.")


@pytest.mark.parametrize("level", ["raid0", "linear", None, "container"])
def test_levels_without_redundancy_have_no_verdict(level):
    assert mismatch_verdict(level, 8) is None


def test_zero_is_ok_on_every_redundant_level():
    for level in ("raid1", "raid4", "raid5", "raid6", "raid10"):
        assert mismatch_verdict(level, 0).severity == "ok"
