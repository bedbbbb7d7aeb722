"""The timeline and rebuild times, from successive looks at an array."""

from __future__ import annotations

from dataclasses import replace

from raidtop.actions.lab.registry import ArrayRecord, TimelineEvent, Watch
from raidtop.actions.lab.timeline import ArrayStatus, describe, format_seconds, observe

T0 = 1_700_000_000.0


def created(redundant: bool = True) -> ArrayRecord:
    """An array right after mdadm --create ran at T0, as the lab records it."""
    watch = Watch(T0, rebuild_kind="initial" if redundant else None, pending_since=T0 if redundant else None)
    return ArrayRecord(
        "md100", "raid5", 3, 16 << 20, T0, "active", timeline=(TimelineEvent(T0, "created"),), watch=watch
    )


def status(sync=None, degraded=0, members=("loop3", "loop4", "loop5"), faulty=(), mismatch=0) -> ArrayStatus:
    return ArrayStatus(True, sync, degraded, tuple(members), tuple(faulty), mismatch)


def kinds(record: ArrayRecord) -> list[str]:
    return [e.kind for e in record.timeline]


def test_the_initial_build_is_timed_from_the_create_command_whatever_md_calls_it():
    # mdadm builds raid5 by recovering onto the last disk: still the initial sync.
    record = observe(created(), status("recover", degraded=1), T0 + 0.2)
    record = observe(record, status("recover", degraded=1), T0 + 1.0)
    record = observe(record, status(None), T0 + 2.5)
    assert kinds(record) == ["created", "resync_start", "resync_done"]
    assert record.timeline[1].time == T0  # from the command, not from the first look
    assert "recovering onto its last disk" in record.timeline[1].detail
    (rebuild,) = record.rebuilds
    assert (rebuild.kind, rebuild.seconds, rebuild.resolution_s) == ("resync", 2.5, 1.5)
    assert record.last_rebuild is None  # the initial build is not a rebuild
    assert describe(record.timeline[2], record) == "resync done in 2.5 s"


def test_a_recovery_after_add_is_timed_from_the_add():
    record = observe(created(), status(None), T0 + 5)
    record = observe(record, status(None, degraded=1, members=("loop4", "loop5")), T0 + 10)
    # What the lab's add wrote: a recovery onto loop6 is expected, timed from T0 + 11.
    record = replace(
        record, watch=replace(record.watch, rebuild_kind="recovery", pending_since=T0 + 11, rebuild_member="loop6")
    )
    record = observe(record, status("recover", degraded=1, members=("loop4", "loop5", "loop6")), T0 + 11.1)
    record = observe(record, status("recover", members=("loop4", "loop5", "loop6")), T0 + 13.95)
    record = observe(record, status(None, members=("loop4", "loop5", "loop6")), T0 + 14.0)
    assert kinds(record)[-2:] == ["recovery_start", "recovery_done"]
    rebuild = record.last_rebuild
    assert (rebuild.kind, rebuild.member, rebuild.seconds) == ("recovery", "loop6", 3.0)
    assert describe(record.timeline[-1], record) == "recovery done in 3.0 s"


def test_a_sync_that_ran_entirely_between_two_looks_is_a_bound():
    record = created()
    record = observe(record, status(None), T0 + 30)
    assert kinds(record) == ["created", "resync_start", "resync_done"]
    rebuild = record.rebuilds[0]
    assert rebuild.seconds == 30 and rebuild.resolution_s == 30
    assert format_seconds(rebuild.seconds, rebuild.resolution_s) == "≤ 30.0 s"


def test_raid0_has_no_initial_sync():
    record = observe(created(redundant=False), status(None), T0 + 1)
    assert kinds(record) == ["created"] and record.rebuilds == ()


def test_a_member_the_kernel_fails_is_recorded_once():
    record = observe(created(), status(None), T0 + 1)
    record = observe(record, status(None, degraded=1, faulty=("loop4",)), T0 + 2)
    record = observe(record, status(None, degraded=1, faulty=("loop4",)), T0 + 3)
    assert [(e.kind, e.member, e.detail) for e in record.timeline if e.kind == "failed"] == [
        ("failed", "loop4", "marked faulty by the kernel")
    ]


def test_what_the_lab_wrote_itself_is_not_written_again():
    record = observe(created(redundant=False), status(None), T0 + 1)
    record = replace(
        record,
        timeline=record.timeline
        + (TimelineEvent(T0 + 2, "failed", "loop4"), TimelineEvent(T0 + 3, "removed", "loop4")),
    )
    record = observe(record, status(None, degraded=1, members=("loop3", "loop5")), T0 + 3.5)
    assert [(e.kind, e.member) for e in record.timeline[1:]] == [("failed", "loop4"), ("removed", "loop4")]


def test_a_check_reports_its_mismatch_count():
    record = observe(created(), status(None), T0 + 1)
    record = observe(record, status("check"), T0 + 2)
    record = observe(record, status(None, mismatch=128), T0 + 4)
    assert kinds(record)[-2:] == ["check_start", "check_done"]
    assert describe(record.timeline[-1]) == "check done — mismatch_cnt 128"
    assert record.last_rebuild is None


def test_a_recovery_that_stops_while_still_degraded_is_not_a_rebuild():
    record = observe(created(), status(None), T0 + 1)
    record = observe(record, status("recover", degraded=1), T0 + 2)
    record = observe(record, status(None, degraded=1), T0 + 3)
    assert kinds(record)[-1] == "recovery_stopped" and record.last_rebuild is None


def test_an_array_that_disappears_is_noted():
    record = observe(created(), status(None), T0 + 1)
    record = observe(record, ArrayStatus(False), T0 + 2)
    assert kinds(record)[-1] == "stopped"


def test_durations_read_naturally():
    assert format_seconds(3.21) == "3.2 s"
    assert format_seconds(64) == "1 min 04 s"
    assert format_seconds(None) == "—"
    assert format_seconds(2.0, resolution_s=0.05) == "2.0 s"
