"""The model's stall and speed window where the first edge tests leave a line unpinned
(raidtop.collect.md.eta, issue 23's model; found by tests/mutation/mutate.py).

Expected values are worked out by hand in the comments, never by the code under test.
"""

from __future__ import annotations

import pytest

from raidtop.collect.md.eta import EtaTracker, SyncModel, stall_excused
from raidtop.model.md import MdArray, MdSync


def raid5(done):
    return MdArray("md5", "raid5", "active", "ok", sync=MdSync("resync", None, done, 100_000, 1000), source="mdstat")


def test_the_tracker_shows_the_stall_to_a_tenth_of_a_second():
    # Last progress at 2 s; at 62.06 s it has stood for 60.06 s, shown as 60.1.
    tracker = EtaTracker()
    for t, done in [(0.0, 0), (1.0, 1000), (2.0, 2000), (30.0, 2000), (62.06, 2000)]:
        result = tracker.apply([raid5(done)], t)
    assert result[0].sync.stalled and result[0].sync.stalled_s == 60.1


def test_a_minimum_alone_does_not_hold_a_sync_the_array_is_taken_as_idle():
    # 1000 KiB/s at a minimum of 1000 (1000 ≤ 1.25 × 1000), but nobody said the array
    # was busy (busy defaults to False): no competing I/O, nothing holds it.
    model = SyncModel()
    for t in range(3):
        forecast = model.update(float(t), MdSync("recover", None, 1000 * t, 10**6, 1000), 200_000.0, minimum=1000.0)
    assert (forecast.held_by, forecast.held_limit_kib_s) == (None, None)


@pytest.mark.parametrize("done_at_3, capacity", [(3000, 1000.0), (1200, 500.0)])
def test_a_faster_pace_reached_while_md_holds_the_sync_raises_the_capacity(done_at_3, capacity):
    # mdstat alone at 0 s and 2 s under a limit of 1000: md's window average rebuilt
    # from them is 1000 / (2 + 1) = 333 < 900, so md runs free: the capacity is the
    # stretch's 1000 KiB / 2 s = 500. At 3 s sync_speed reads 1000 (≥ 90 % of the limit,
    # one kernel reading: no marks to fit), so md holds the sync; over the last
    # CAPACITY_SPAN_S (back to the reading at 0 s, 3 s old) it reached done / 3 KiB/s:
    # 3000 / 3 = 1000 > 500 raises the capacity; 1200 / 3 = 400 leaves it at 500.
    model = SyncModel()
    model.update(0.0, MdSync("resync", None, 0, 10**6), limit=1000.0)
    assert model.update(2.0, MdSync("resync", None, 1000, 10**6), limit=1000.0).capacity_kib_s == 500.0
    forecast = model.update(3.0, MdSync("resync", None, done_at_3, 10**6, 1000), limit=1000.0)
    assert forecast.capacity_kib_s == capacity and model.capacity_kib_s == capacity


def test_no_progress_seen_and_no_sync_speed_gives_no_eta_even_under_a_limit():
    # mdstat alone, the count the same at 0 s and 1 s, a limit of 1000: no pace of md's
    # and none seen, so no ETA (rather than one from the limit alone); not yet a stall.
    model = SyncModel()
    model.update(0.0, MdSync("resync", None, 1000, 10**6), limit=1000.0)
    forecast = model.update(1.0, MdSync("resync", None, 1000, 10**6), limit=1000.0)
    assert (forecast.eta_s, forecast.basis, forecast.stalled_s) == (None, None, None)


@pytest.mark.parametrize("now", [105, 140])
def test_without_sync_speed_md_s_average_is_rebuilt_over_its_window(now):
    # mdstat alone, 1100 KiB/s from 100 s, a limit of 1000 (no kernel readings: no
    # marks to fit). md's average is the progress since max(first reading, now − 31.5 s)
    # over the whole seconds + 1:
    #   at 105 s: 5500 / (105 − 100 + 1) = 916.7 ≥ 900, held;
    #   at 140 s: from 108.5 s (9350 KiB): (44 000 − 9350) / (140 − 108.5 + 1) = 1066.2, held.
    model = SyncModel()
    for t in range(100, now + 1):
        forecast = model.update(float(t), MdSync("resync", None, 1100 * (t - 100), 10**7), limit=1000.0)
    assert (forecast.held_by, forecast.held_limit_kib_s) == ("sync_speed_max", 1000.0)


def test_a_limit_of_1_kib_s_excuses_no_stall():
    md0 = MdArray("md0", "raid1", "active", "ok")
    assert stall_excused(md0, 0.0) and not stall_excused(md0, 1.0) and not stall_excused(md0, None)


def test_the_tracker_shows_the_capacity_to_a_tenth():
    # No limit: md runs free; 1000 KiB over the 3 s stretch is 333.33, shown as 333.3.
    tracker = EtaTracker()
    for t, done in [(0.0, 0), (3.0, 1000)]:
        result = tracker.apply([raid5(done)], t)
    assert result[0].sync.capacity_kib_s == 333.3
