"""The ETA model's edges (raidtop.collect.mdeta), each against an answer worked out by hand.

test_md_eta.py checks accuracy within tolerances on real recordings, and tolerances hide
wrong arithmetic. Here every expected value is derived in a comment from md's rule (its
rate since the mark ten back, ``work / (whole seconds + 1)``, stays at or below the limit).
"""

from __future__ import annotations

import pytest

from raidtop.collect.mdeta import (CAPACITY_SPAN_S, DEFAULT_STEP_S, PHASE_RANGE_S, RATE_SPAN_S, SIM_TICK_S,
                                   STALL_SPAN_S, EtaTracker, SyncModel, limit_in_force, project_finish)
from raidtop.model_md import MdArray, MdSync, RaidSpeedLimit

# A sync that began at t = 50 s and ran at 1000 KiB/s: 50 000 KiB done at
# 100 s, 60 000 at 110 s ("now"). md's marks every 3.25 s from 50 s (the
# step raidtop assumes: a 3 s mark taken at the next check, 0.5 s apart);
# at 110 s the 18th mark (108.5 s) is the newest and md measures from the
# 8th, at 76 s with 26 000 KiB done. It allows
#   26 000 + 1000 × (floor(110 − 76) + 1) = 61 000 KiB
# before it sleeps: 1000 KiB of room at 110 s.
HISTORY = [(100.0, 50_000.0), (105.0, 55_000.0), (110.0, 60_000.0)]
ROOM_END = 61_000.0


def test_the_models_constants():
    # md_do_sync: a mark every 3 s, taken at the first check after it (checks 0.5 s apart).
    assert DEFAULT_STEP_S == 3.25
    assert SIM_TICK_S == 0.05
    assert PHASE_RANGE_S == (-1.5, 1.5)
    assert (RATE_SPAN_S, STALL_SPAN_S, CAPACITY_SPAN_S) == (1.0, 2.0, 2.0)


# --- the end of a sync ------------------------------------------------------------

@pytest.mark.parametrize("limit", [500.0, 1000.0, None, 0.0])
@pytest.mark.parametrize("capacity", [None, 2000.0])
def test_a_sync_at_its_end_has_zero_left(limit, capacity):
    assert project_finish([(0.0, 0.0), (10.0, 5000.0)], 5000.0, limit, capacity) == 0.0
    assert project_finish([(10.0, 5000.0)], 5000.0, limit, capacity) == 0.0
    assert project_finish(HISTORY, 60_000.0, limit, capacity) == 0.0


def test_progress_past_the_total_or_within_the_in_flight_io_has_zero_left():
    assert project_finish(HISTORY, 59_000.0, 500.0, None) == 0.0
    # raid1 keeps 2048 KiB in flight ahead of done: the last 2048 KiB are already issued.
    assert project_finish(HISTORY, 62_048.0, 500.0, None, in_flight=2048.0) == 0.0
    assert project_finish(HISTORY, 62_048.0, None, 1000.0, in_flight=2047.0) == pytest.approx(0.001)


def test_the_model_at_a_syncs_last_reading():
    model = SyncModel()
    for t in range(3):
        model.update(float(t), MdSync("resync", 50.0, 500 * t, 1500, 500), limit=500.0)
    final = model.update(3.0, MdSync("resync", 100.0, 1500, 1500, 500), limit=500.0)
    assert final.eta_s == 0.0 and final.basis == "md-window" and final.rate_kib_s == 500.0


def test_without_a_limit_the_disks_pace_decides():
    # 12 345 KiB left at 1000 KiB/s: 12.345 s.
    assert project_finish(HISTORY, 72_345.0, None, 1000.0) == pytest.approx(12.345, abs=1e-9)
    assert project_finish(HISTORY, 72_345.0, 0.0, 1000.0) == pytest.approx(12.345, abs=1e-9)
    assert project_finish(HISTORY, 72_345.0, None, None) is None  # nothing to go on
    assert project_finish(HISTORY, 72_345.0, None, 0.0) is None
    assert project_finish(HISTORY, 72_345.0, None, -5.0) is None


@pytest.mark.parametrize("left, expected", [
    (20.0, 0.020),       # inside the first 50 ms tick
    (50.0, 0.050),       # exactly one tick
    (1234.0, 1.234),     # 24 whole ticks and 34 ms of the 25th
])
def test_a_finish_inside_a_tick_is_exact(left, expected):
    # A limit far above the disks: md never sleeps, 1000 KiB/s all the way.
    assert project_finish(HISTORY, 60_000.0 + left, 1e9, 1000.0) == pytest.approx(expected, abs=1e-3)


# --- histories that do not start at 0 ----------------------------------------------------

def test_a_history_not_starting_at_0_dates_mds_marks_from_its_own_rate():
    # Within md's room (see HISTORY): the disks' 10 000 KiB/s decide, 900 KiB in 0.09 s.
    assert project_finish(HISTORY, 60_900.0, 1000.0, 10_000.0) == pytest.approx(0.09, abs=1e-3)
    # 1000 KiB reach the room's end at 110.10 s; md sleeps 0.5 s and checks: at
    # 110.6 floor(34.6) still allows 61 000; at 111.1 floor(35.1) allows 62 000,
    # and 500 KiB more take 0.05 s: 1.15 s. The model steps 50 ms ticks, so a
    # sleep may end one tick late (float sums of ticks): ±0.05 s per sleep.
    # Float sums of 50 ms ticks can only make a sleep end late, never early.
    assert 1.15 - 1e-9 <= project_finish(HISTORY, 61_500.0, 1000.0, 10_000.0) <= 1.25 + 1e-9


def test_a_sync_ending_exactly_where_md_stops_it_ends_there():
    # 61 000 is exactly md's allowance: reached after 1000 KiB at 10 000 KiB/s, 0.1 s.
    assert project_finish(HISTORY, ROOM_END, 1000.0, 10_000.0) == pytest.approx(0.1, abs=1e-3)


def test_a_single_reading_takes_the_limit_as_the_rate_before_it():
    # One reading, 60 000 KiB at 110 s, no rate given: md ran at its limit before,
    # so it began at 50 s: the same marks and room as HISTORY, 900 KiB in 0.09 s.
    assert project_finish([HISTORY[-1]], 60_900.0, 1000.0, 10_000.0) == pytest.approx(0.09, abs=1e-3)


def test_the_historys_own_rate_not_the_limit_dates_the_marks():
    # Limit 2000 but 1000 KiB/s seen: begun at 50 s, md measures from 76 s (26 000 KiB):
    # allowed 26 000 + 2000 × 35 = 96 000. 30 000 KiB at 100 000 KiB/s: 0.3 s, never held.
    # (Taking the limit as the past rate would date the start at 75 s: room to 72 000 only.)
    assert project_finish(HISTORY, 90_000.0, 2000.0, 100_000.0) == pytest.approx(0.3, abs=1e-3)


def test_a_limit_of_1_kib_s_is_a_limit():
    # 1000 KiB at 1 KiB/s (md's whole second adds at most 1/30): at least 1000 / (31/30) s.
    assert project_finish(HISTORY, 61_000.0, 1.0, 1000.0) > 1000 * 30 / 31
    assert project_finish(HISTORY, 60_001.0, None, 0.5) == pytest.approx(2.0, abs=1e-9)  # a slow disk is a pace


def test_in_flight_io_moves_mds_allowance_by_a_quarter():
    # 2048 KiB in flight: the end is 2048 earlier (total − in_flight), and md lets
    # completions run 0.25 × 2048 = 512 KiB past its allowance: room to 61 512.
    # 62 048 + 1400 − 2048 = 61 400 KiB to reach: 1400 KiB at 10 000 KiB/s, 0.14 s.
    assert project_finish(HISTORY, 63_448.0, 1000.0, 10_000.0, in_flight=2048.0) == pytest.approx(0.14, abs=1e-3)


def test_a_history_not_starting_at_0_without_a_limit_in_sight():
    # Same progress seen from 100 s; 5000 KiB left at the disks' 2000 KiB/s, the limit far above.
    assert project_finish(HISTORY, 65_000.0, 1e7, 2000.0) == pytest.approx(2.5, abs=1e-3)


def test_the_rate_before_the_history_sets_mds_marks():
    # back_rate 500: the sync began at 100 − 50 000 / 500 = 0 s; marks at 3.25 k,
    # the 33rd (107.25 s) newest, md measuring from the 23rd: 74.75 s, when
    # 50 000 − 500 × 25.25 = 37 375 KiB were done. Allowed at 110 s:
    # 37 375 + 1000 × (floor(35.25) + 1) = 73 375: 5000 KiB at 10 000 KiB/s, 0.5 s.
    assert project_finish(HISTORY, 65_000.0, 1000.0, 10_000.0, back_rate=500.0) == pytest.approx(0.5, abs=1e-3)
    # With the history's own rate (1000) the room ends at 61 000: far longer.
    assert project_finish(HISTORY, 65_000.0, 1000.0, 10_000.0) > 3.0


def test_md_s_clock_given_replaces_the_one_implied():
    # Marks from 50.5 s every 3 s: the 19th (107.5 s) newest, md measuring from
    # the 9th, 77.5 s, 27 500 KiB done: allowed 27 500 + 1000 × (32 + 1) = 60 500.
    assert project_finish(HISTORY, 60_400.0, 1000.0, 10_000.0, clock=(50.5, 3.0)) == pytest.approx(0.04, abs=1e-3)
    assert project_finish(HISTORY, 60_800.0, 1000.0, 10_000.0, clock=(50.5, 3.0)) > 0.5


def test_the_phase_shifts_the_implied_marks():
    # phase 0: room to 61 000, 800 KiB at 10 000 KiB/s = 0.08 s.
    assert project_finish(HISTORY, 60_800.0, 1000.0, 10_000.0) == pytest.approx(0.08, abs=1e-3)
    # phase +0.5: marks from 50.5 s every 3.25 s, md measuring from 76.5 s
    # (26 500 KiB): room to 26 500 + 1000 × 34 = 60 500, reached at 110.05;
    # sleep to 110.55, where floor(34.05) + 1 = 35 allows 61 500: 300 KiB more, 0.58 s.
    assert project_finish(HISTORY, 60_800.0, 1000.0, 10_000.0, phase=0.5) == pytest.approx(0.58, abs=0.051)


def test_a_long_throttled_sync_runs_at_the_limit_plus_mds_whole_second():
    # Far from the end md holds the sync to limit × (window + 1) / window over
    # its 30–33 s window: between 1000 × 31/30 and 1000 × 34/33 KiB/s.
    history = [(float(t), 1000.0 * t) for t in range(0, 61)]
    eta = project_finish(history, 60_000.0 + 600_000.0, 1000.0, None)
    assert 600_000 / (1000 * 34 / 30) <= eta <= 600_000 / 1000


# --- the model over readings ---------------------------------------------------------------

def sync(done, speed=None, total=100_000, action="resync"):
    return MdSync(action, 100 * done / total, done, total, speed)


def test_a_missing_sync_speed_under_a_limit_waits_for_progress_then_uses_its_own():
    model = SyncModel()
    first = model.update(100.0, sync(50_000), limit=1e6)
    # No md window average and one reading: nothing to go on.
    assert (first.eta_s, first.basis, first.rate_kib_s) == (None, None, None)
    second = model.update(101.0, sync(51_000), limit=1e6)
    # Its own pace, 1000 KiB/s, far below the limit: 49 000 KiB in 49 s.
    assert second.basis == "md-window" and second.eta_s == pytest.approx(49.0, abs=0.01)
    assert second.rate_kib_s == 1000.0 and not second.stalled


def test_a_missing_sync_speed_at_the_limit_is_seen_as_held():
    # 1000 KiB/s under a 1000 limit for 40 s, no sync_speed: md's own window
    # average over the last 31.5 s is 31 500 / 32.5 = 969 ≥ 90 % of the limit,
    # so md holds the sync and the ETA follows the limit, not a free pace.
    model = SyncModel()
    for t in range(41):
        forecast = model.update(100.0 + t, sync(1000 * t, total=1_000_000), limit=1000.0)
    assert forecast.basis == "raidtop"
    # 960 000 KiB left, held to between 1000 and 1000 × 34/30 KiB/s.
    assert 960_000 / (1000 * 34 / 30) <= forecast.eta_s <= 960_000 / 1000 + 1


def test_capacity_is_the_pace_over_a_whole_free_stretch():
    model = SyncModel()
    readings = [(0.0, 0), (1.0, 3000), (1.5, 3500), (2.0, 6000)]
    for t, done in readings:
        forecast = model.update(t, sync(done), limit=1e6)
    # Free from 0 s; at 2 s the stretch is CAPACITY_SPAN_S long: 6000 KiB / 2 s.
    assert forecast.capacity_kib_s == 3000.0
    assert model.capacity_kib_s == 3000.0


def test_no_capacity_before_a_whole_free_stretch():
    model = SyncModel()
    for t, done in [(0.0, 0), (1.0, 3000), (1.9, 5000)]:
        forecast = model.update(t, sync(done), limit=1e6)
    assert forecast.capacity_kib_s is None and model.capacity_kib_s is None


def test_the_rate_uses_the_reading_exactly_one_span_old():
    model = SyncModel()
    for t, done in [(0.0, 0), (0.5, 500), (1.0, 1000)]:
        model.update(t, sync(done, 1000), limit=None)
    # The speed changes at 1.0 s; at 1.5 s the reading exactly 1.0 s old (0.5 s, 500 KiB)
    # is the newest at least a span old: (3000 − 500) / 1.0.
    forecast = model.update(1.5, sync(3000, 1000), limit=None)
    assert forecast.rate_kib_s == 2500.0
    # Under a span of readings: no rate yet.
    young = SyncModel()
    young.update(0.0, sync(0, 1000), None)
    assert young.update(0.9, sync(900, 1000), None).rate_kib_s is None


def test_a_stall_is_flagged_once_it_spans_two_seconds_and_md_reports_a_speed():
    model = SyncModel()
    for t, done in [(0.0, 0), (1.0, 1000), (2.0, 2000), (3.0, 2000), (3.5, 2000)]:
        forecast = model.update(t, sync(done, 1000), limit=1000.0)
    assert not forecast.stalled  # 1.5 s without progress
    assert model.update(4.0, sync(2000, 1000), limit=1000.0).stalled  # exactly 2 s
    quiet = SyncModel()
    for t in range(5):
        forecast = quiet.update(float(t), sync(2000), limit=1000.0)
    assert not forecast.stalled  # no speed from md: nothing says it should move


def test_readings_repeated_or_out_of_order_add_nothing():
    model = SyncModel()
    model.update(1.0, sync(1000), None)
    model.update(2.0, sync(2000), None)
    assert model.update(2.0, sync(2500), None) is None
    assert model.update(1.5, sync(2500), None) is None
    assert model.history == [(1.0, 1000.0), (2.0, 2000.0)]


def test_history_keeps_75_seconds_and_at_least_two_readings():
    model = SyncModel()
    for t in range(0, 200, 10):
        model.update(float(t), sync(t * 100, total=10**7), None)
    assert [t for t, _ in model.history] == [110.0, 120.0, 130.0, 140.0, 150.0, 160.0, 170.0, 180.0, 190.0]
    sparse = SyncModel()
    sparse.update(0.0, sync(0), None)
    sparse.update(500.0, sync(500), None)
    assert len(sparse.history) == 2


def test_the_basis_turns_to_raidtop_after_10_seconds_of_own_readings():
    model = SyncModel()
    bases = [model.update(float(t), sync(1000 * t, 1000), None).basis for t in range(12)]
    assert bases == ["md-window"] * 10 + ["raidtop"] * 2


def test_a_sync_that_is_not_running_or_has_no_counts_resets():
    model = SyncModel()
    model.update(0.0, sync(1000), None)
    assert model.update(1.0, MdSync("resync", 50.0), None) is None
    assert model.history == []
    assert model.update(2.0, MdSync("resync", 50.0, 10, 0), None) is None
    assert model.update(3.0, None, None) is None


# --- the limit in force and the tracker ------------------------------------------------

def test_limit_in_force_each_source():
    system = RaidSpeedLimit(1000, 200_000)
    md0 = MdArray("md0", "raid1", "active", "ok")
    assert limit_in_force(md0, system) == 200_000.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=5000), system) == 5000.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=500), system) == 1000.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=500, sync_speed_min=100),
                          system) == 500.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=500), None) == 500.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_min=100), None) is None


def test_the_tracker_rounds_and_counts_in_flight_io_by_level():
    tracker = EtaTracker()
    for t in range(3):
        raid5 = MdArray("md5", "raid5", "active", "ok", sync=MdSync("resync", None, 1000 * t + 1, 100_000, 1000))
        result = tracker.apply([raid5], t + 0.123456)
    # raid5 keeps nothing in flight: (100 000 − 2001) / 1000 KiB/s.
    assert result[0].sync.eta_s == pytest.approx(98.0, abs=0.05)
    assert result[0].sync.recent == ((0.123, 1), (1.123, 1001), (2.123, 2001))
    assert result[0].sync.rate_kib_s == 1000.0 and result[0].sync.stalled is False


def test_beyond_the_simulated_stretch_md_runs_at_its_steady_rate():
    # Past the simulated 75 s the model goes on at md's steady rate: the limit times
    # (window + 1) / window, window = 10 marks of 3.25 s plus half a step = 34.125 s.
    # Two totals past that point differ by 10 000 KiB / that rate exactly.
    history = [(float(t), 1000.0 * t) for t in range(0, 61)]
    near = project_finish(history, 60_000.0 + 500_000.0, 1000.0, None)
    far = project_finish(history, 60_000.0 + 510_000.0, 1000.0, None)
    assert far - near == pytest.approx(10_000 / (1000 * 35.125 / 34.125), abs=1e-6)
    # A disk slower than that sets the pace instead.
    near = project_finish(history, 60_000.0 + 500_000.0, 1000.0, 900.0)
    far = project_finish(history, 60_000.0 + 509_000.0, 1000.0, 900.0)
    assert far - near == pytest.approx(10.0, abs=1e-6)


def test_a_quarter_second_of_phase_moves_md_s_room():
    # HISTORY's marks moved by +0.25 s: md measures from 76.25 s (26 250 KiB),
    # allowed 26 250 + 1000 × (floor(33.75) + 1) = 60 250. At 1000 KiB/s the disks
    # reach it at 110.25 s; md sleeps to 110.75, where floor(34.5) + 1 = 35 allows
    # 61 250: 150 KiB more take 0.15 s, so 0.90 s (a sleep may end one tick late).
    eta = project_finish(HISTORY, 60_400.0, 1000.0, 1000.0, phase=0.25)
    assert 0.90 - 1e-9 <= eta <= 0.95 + 1e-9
    # −0.25 s: allowed 60 750, so 400 KiB at 1000 KiB/s without a wait: 0.4 s.
    assert project_finish(HISTORY, 60_400.0, 1000.0, 1000.0, phase=-0.25) == pytest.approx(0.4, abs=1e-3)


def test_history_is_kept_for_75_seconds():
    model = SyncModel()
    for t in range(101):
        model.update(float(t), sync(t, total=10**6), None)
    # The oldest reading kept is the last one older than 100 − 75 = 25 s.
    assert model.history[0] == (24.0, 24.0) and len(model.history) == 77


@pytest.mark.parametrize("level, in_flight", [("raid1", 2048), ("raid10", 2048), ("raid5", 0), (None, 0)])
def test_the_tracker_counts_each_levels_in_flight_io(level, in_flight):
    tracker = EtaTracker()
    for t in range(3):
        array = MdArray("md0", level, "active", "ok", sync=MdSync("resync", None, 10 * t, 10_000))
        result = tracker.apply([array], float(t))
    # 10 KiB/s, no limit: (10 000 − in flight − 20) / 10, to a tenth of a second.
    assert result[0].sync.eta_s == round((10_000 - in_flight - 20) / 10, 1)


@pytest.mark.parametrize("speed, capacity", [(900, None), (899, 1000.0)])
def test_md_holds_the_sync_from_90_percent_of_the_limit(speed, capacity):
    # sync_speed at 90 % of the limit or more: md is holding the sync back, its pace
    # is not the disks'. Below it, 2 s of free running teach the capacity: 2000 KiB / 2 s.
    model = SyncModel()
    for t in range(3):
        forecast = model.update(float(t), sync(1000 * t, speed), limit=1000.0)
    assert forecast.capacity_kib_s == capacity


@pytest.mark.parametrize("limit, capacity", [(740.0, None), (741.0, 1000.0)])
def test_without_sync_speed_md_s_window_average_is_rebuilt_from_the_readings(limit, capacity):
    # No sync_speed: md's average at 2 s is 2000 KiB over (2 − 0 + 1) whole seconds,
    # 666.7 KiB/s: held when that is 90 % of the limit or more (limit ≤ 740.7).
    model = SyncModel()
    for t in range(3):
        forecast = model.update(float(t), sync(1000 * t), limit=limit)
    assert forecast.capacity_kib_s == capacity


def test_completions_overshoot_mds_allowance_by_a_quarter_of_the_in_flight_io():
    # As above, room to 61 000 + 512 = 61 512; 61 600 to reach (63 648 − 2048): the
    # disks fill the room at 110.15 s, md sleeps to 110.65 and 111.15 (floor 35:
    # room to 62 512), 88 KiB more at 10 000 KiB/s: 1.2088 s, a sleep one tick late at most.
    eta = project_finish(HISTORY, 63_648.0, 1000.0, 10_000.0, in_flight=2048.0)
    assert 1.2088 - 1e-3 <= eta <= 1.3088 + 1e-3


def test_the_default_phase_is_none():
    # Limit 2000, 1000 KiB/s seen (see above): md measures from 76 s, room to 96 000;
    # marks one second later would leave room to 95 000 only. 35 200 KiB at
    # 100 000 KiB/s: 0.352 s (the model steps 50 ms ticks: within 0.01 s).
    assert project_finish(HISTORY, 95_200.0, 2000.0, 100_000.0) == pytest.approx(0.352, abs=0.01)


def test_a_capacity_below_1_kib_s_is_still_a_capacity():
    # 1 KiB in a free 2 s stretch: 0.5 KiB/s, a (very slow) pace, not "unknown".
    model = SyncModel()
    for t, done in [(0.0, 0), (1.0, 0), (2.0, 1)]:
        forecast = model.update(t, sync(done), limit=1e6)
    assert forecast.capacity_kib_s == 0.5


def test_history_drops_readings_older_than_75_seconds_down_to_two():
    model = SyncModel()
    for t in (0.0, 1.0, 500.0):
        model.update(t, sync(int(t)), None)
    # At 500 s the reading at 0 s is dropped (the next, at 1 s, is past the 75 s too,
    # but two readings are kept for a rate).
    assert model.history == [(1.0, 1.0), (500.0, 500.0)]


def test_at_95_percent_of_the_limit_md_s_marks_show_it_is_not_holding_the_sync():
    # sync_speed 950 under a 1000 limit reads as held (≥ 90 %), but md's marks say
    # otherwise: for its first 33 s they all sit at the sync's start, so md allows
    # 1000 × (whole seconds since the start + 1); at 3 to 5 s that is 1150 to 1250 KiB
    # above the progress, more than half a second of the limit (500): free. The marks
    # are fitted from the 4th reading on (3 s), and 2 s of free running give the pace.
    model = SyncModel()
    capacities = [model.update(float(t), sync(950 * t, 950), limit=1000.0).capacity_kib_s for t in range(6)]
    assert capacities == [None, None, None, None, None, 950.0]
