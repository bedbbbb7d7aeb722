"""The ETA model's edges (raidtop.collect.md.eta), each against an answer worked out by hand.

test_md_eta.py checks accuracy within tolerances on real recordings, and tolerances hide
wrong arithmetic. Here every expected value is derived in a comment from md's rule (its
rate since the mark ten back, ``work / (whole seconds + 1)``, stays at or below the limit).
"""

from __future__ import annotations

import pytest

from raidtop.collect.md.eta import (
    CAPACITY_SPAN_S,
    PHASE_RANGE_S,
    SPEED_WINDOW_S,
    STALL_AFTER_S,
    STALL_AFTER_COARSE_S,
)
from raidtop.collect.md.throttle import DEFAULT_STEP_S, SIM_TICK_S, project_finish

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
    # md's speed window: 10 marks 3 s apart, so at its longest 11 steps of 3 s.
    assert SPEED_WINDOW_S == 33.0
    # A stall: a minute without progress (md never pauses longer than its 33 s window);
    # six minutes where only sysfs's coarse sync_completed is read.
    assert (STALL_AFTER_S, STALL_AFTER_COARSE_S, CAPACITY_SPAN_S) == (60.0, 360.0, 2.0)


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


def test_without_a_limit_the_disks_pace_decides():
    # 12 345 KiB left at 1000 KiB/s: 12.345 s.
    assert project_finish(HISTORY, 72_345.0, None, 1000.0) == pytest.approx(12.345, abs=1e-9)
    assert project_finish(HISTORY, 72_345.0, 0.0, 1000.0) == pytest.approx(12.345, abs=1e-9)
    assert project_finish(HISTORY, 72_345.0, None, None) is None  # nothing to go on
    assert project_finish(HISTORY, 72_345.0, None, 0.0) is None
    assert project_finish(HISTORY, 72_345.0, None, -5.0) is None


@pytest.mark.parametrize(
    "left, expected",
    [
        (20.0, 0.020),  # inside the first 50 ms tick
        (50.0, 0.050),  # exactly one tick
        (1234.0, 1.234),  # 24 whole ticks and 34 ms of the 25th
    ],
)
def test_a_finish_inside_a_tick_is_exact(left, expected):
    # A limit far above the disks: md never sleeps, 1000 KiB/s all the way.
    assert project_finish(HISTORY, 60_000.0 + left, 1e9, 1000.0) == pytest.approx(expected, abs=1e-3)


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
