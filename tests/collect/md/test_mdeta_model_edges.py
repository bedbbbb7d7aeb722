"""The ETA model over readings (raidtop.collect.md.eta's SyncModel, limit_in_force, EtaTracker) at its edges.

As test_mdeta_edges.py for project_finish: every expected value is worked out by hand in a
comment from md's rule (its rate since the mark ten back, ``work / (whole seconds + 1)``,
stays at or below the limit) or from the readings' arithmetic, never taken from the code.
"""

from __future__ import annotations

import pytest

from raidtop.collect.md.eta import EtaTracker, SyncModel, limit_in_force
from raidtop.collect.md.throttle import SIM_TICK_S
from raidtop.model.md import MdArray, MdSync, RaidSpeedLimit


def test_the_model_at_a_syncs_last_reading():
    model = SyncModel()
    for t in range(3):
        model.update(float(t), MdSync("resync", 50.0, 500 * t, 1500, 500), limit=500.0)
    final = model.update(3.0, MdSync("resync", 100.0, 1500, 1500, 500), limit=500.0)
    assert final.eta_s == 0.0 and final.basis == "md-window" and final.rate_kib_s == 500.0


def sync(done, speed=None, total=100_000, action="resync"):
    return MdSync(action, 100 * done / total, done, total, speed)


def test_a_missing_sync_speed_under_a_limit_waits_for_progress_then_uses_its_own():
    # mdstat alone (no sync_speed) under a limit far above the pace: 1000 KiB/s from
    # 100 s to 120 s, then 3000 KiB/s; done(t) = 50 000 + 1000 (t − 100) up to 120 s,
    # 70 000 + 3000 (t − 120) after.
    def done(t):
        return 50_000 + 1000 * (t - 100) if t <= 120 else 70_000 + 3000 * (t - 120)

    model = SyncModel()
    first = model.update(100.0, sync(done(100), total=10**6), limit=1e6)
    # No md window average and one reading: nothing to go on.
    assert (first.eta_s, first.basis, first.rate_kib_s, first.stalled_s) == (None, None, None, None)
    second = model.update(101.0, sync(done(101), total=10**6), limit=1e6)
    # Its own pace, 1000 KiB/s, far below the limit: 949 000 KiB left in 949 s, still
    # on md's side of the basis (watched 1 s < OWN_SPAN_S = 10 s).
    assert second.basis == "md-window" and second.eta_s == pytest.approx(949.0, abs=0.01)
    assert second.rate_kib_s == 1000.0 and second.stalled_s is None
    forecasts = {t: model.update(float(t), sync(done(t), total=10**6), limit=1e6) for t in range(102, 141)}
    # The basis turns to raidtop's own once it has watched OWN_SPAN_S: at 110 s, not 109 s.
    assert (forecasts[109].basis, forecasts[110].basis) == ("md-window", "raidtop")
    # Under a speed window (33 s) of readings and no sync_speed: all that was seen,
    # at 132 s (70 000 + 36 000 − 50 000) / 32 = 1750.
    assert forecasts[132].rate_kib_s == 1750.0
    # At 140 s the window reaches back to the reading at 107 s (57 000 KiB):
    # (70 000 + 60 000 − 57 000) / 33 = 2212.12, not the whole history's 80 000 / 40 = 2000.
    assert forecasts[140].rate_kib_s == pytest.approx(73_000 / 33)
    # Free all along, so the disks' pace is the whole free stretch's, 80 000 / 40 = 2000:
    # 870 000 KiB left in 435 s.
    assert forecasts[140].eta_s == pytest.approx(435.0, abs=0.01)


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


def test_the_rate_uses_the_reading_exactly_one_window_old():
    # sync_speed 777 throughout, no limit. SPEED_WINDOW_S = 33 s.
    model = SyncModel()
    for t, done in [(0.0, 0), (0.5, 500), (30.0, 30_000)]:
        model.update(t, sync(done, 777), limit=None)
    # At 32.95 s no reading is 33 s old: md's own sync_speed (the readings' average
    # would be 35 000 / 32.95 = 1062).
    assert model.update(32.95, sync(35_000, 777), limit=None).rate_kib_s == 777.0
    # At 33 s the first reading is exactly 33 s old: 36 300 / 33 = 1100.
    assert model.update(33.0, sync(36_300, 777), limit=None).rate_kib_s == 1100.0
    # At 33.5 s the newest reading at least 33 s old is the one at 0.5 s (exactly 33 s):
    # (40 100 − 500) / 33 = 1200, not 40 100 / 33.5 = 1197 from the one at 0 s.
    assert model.update(33.5, sync(40_100, 777), limit=None).rate_kib_s == 1200.0


def test_a_stall_is_flagged_after_exactly_a_minute_without_progress():
    # Progress up to 2 s, then none; md still reports 1000 KiB/s (its window average
    # lags), which hides nothing. STALL_AFTER_S = 60 s: stalled from 62 s.
    model = SyncModel()
    readings = [(0.0, 0), (1.0, 1000), (2.0, 2000)] + [(float(t), 2000) for t in range(7, 61, 5)]
    for t, done in readings:
        forecast = model.update(t, sync(done, 1000), limit=None)
        assert forecast.stalled_s is None
    early = model.update(61.95, sync(2000, 1000), limit=None)
    assert early.stalled_s is None and early.eta_s is not None  # 59.95 s without progress
    stalled = model.update(62.0, sync(2000, 1000), limit=None)
    assert stalled.stalled_s == 60.0 and stalled.eta_s is None and stalled.basis is None
    assert model.update(70.0, sync(2000, 1000), limit=None).stalled_s == 68.0
    # Progress again: no stall.
    moving = model.update(71.0, sync(2001, 1000), limit=None)
    assert moving.stalled_s is None and moving.eta_s is not None


def test_a_stall_needs_no_sync_speed():
    # mdstat alone, no limit: the same minute without progress is a stall (from 62 s).
    model = SyncModel()
    for t, done in [(0.0, 0), (1.0, 1000), (2.0, 2000), (30.0, 2000), (61.9, 2000)]:
        assert model.update(t, sync(done), limit=None).stalled_s is None
    assert model.update(62.0, sync(2000), limit=None).stalled_s == 60.0


def _stall_run(array_of, times):
    tracker = EtaTracker()
    return {t: tracker.apply([array_of(done)], t)[0].sync for t, done in times}


STALL_TIMES = [(0.0, 0), (1.0, 1000), (2.0, 2000), (30.0, 2000), (61.95, 2000), (62.0, 2000)]


def test_the_tracker_flags_a_stall_a_minute_after_the_last_progress_in_mdstat():
    def array(done):
        return MdArray(
            "md5", "raid5", "active", "ok", sync=MdSync("resync", None, done, 100_000, 1000), source="mdstat"
        )

    syncs = _stall_run(array, STALL_TIMES)
    assert (syncs[61.95].stalled, syncs[61.95].stalled_s) == (False, None)
    assert (syncs[62.0].stalled, syncs[62.0].stalled_s, syncs[62.0].eta_s) == (True, 60.0, None)


@pytest.mark.parametrize(
    "excuse",
    [
        {"sync_speed_max": 0},
        {"sysfs_sync_action": "frozen"},
        {"read_only": True},
        {"auto_read_only": True},
        {"state": "readonly"},
        {"state": "read-auto"},
    ],
)
def test_a_sync_that_is_not_meant_to_move_is_never_stalled(excuse):
    # A limit of 0, a frozen sync, a read-only array: the silence is explained.
    fields = {"state": "active", **excuse}
    state = fields.pop("state")

    def array(done):
        return MdArray(
            "md5", "raid5", state, "ok", sync=MdSync("resync", None, done, 100_000, 1000), source="mdstat", **fields
        )

    syncs = _stall_run(array, STALL_TIMES + [(500.0, 2000)])
    assert not any(s.stalled or s.stalled_s is not None for s in syncs.values())


def test_from_sysfs_alone_a_stall_takes_six_minutes():
    # sysfs's sync_completed moves only every 1/16 of the device or 5 minutes:
    # STALL_AFTER_COARSE_S = 360 s, so stalled from 362 s, not at 62 s or 361.95 s.
    def array(done):
        return MdArray("md5", "raid5", "active", "ok", sync=MdSync("resync", None, done, 100_000, 1000), source="sysfs")

    times = STALL_TIMES + [(t, 2000) for t in (120.0, 200.0, 300.0, 361.95, 362.0)]
    syncs = _stall_run(array, times)
    assert not any(syncs[t].stalled for t in (62.0, 300.0, 361.95))
    assert (syncs[362.0].stalled, syncs[362.0].stalled_s) == (True, 360.0)


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


def test_limit_in_force_each_source():
    system = RaidSpeedLimit(1000, 200_000)
    md0 = MdArray("md0", "raid1", "active", "ok")
    assert limit_in_force(md0, system) == 200_000.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=5000), system) == 5000.0
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=500), system) == 1000.0
    assert (
        limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=500, sync_speed_min=100), system) == 500.0
    )
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


def test_own_pace_and_rate_over_readings_two_seconds_apart():
    model = SyncModel()
    model.update(100.0, sync(50_000), limit=1e6)
    forecast = model.update(102.0, sync(52_000), limit=1e6)
    # 2000 KiB in 2 s: 1000 KiB/s, far below the limit: 48 000 KiB in 48 s.
    assert forecast.rate_kib_s == 1000.0 and forecast.eta_s == pytest.approx(48.0, abs=0.01)


def test_at_the_reading_the_limit_rose_md_s_average_is_not_the_disks_pace():
    # md's window average (500) was its old limit's doing: at 1 s under the new limit
    # of 5000 md allows 5000 × (1 + 1) = 10 000 KiB since the start: the last
    # 5000 KiB go at once (within the first tick), not in 5000 / 500 = 10 s.
    model = SyncModel()
    model.update(0.0, sync(0, 500, total=5500), limit=1000.0)
    assert model.update(1.0, sync(500, 500, total=5500), limit=5000.0).eta_s < SIM_TICK_S


def test_a_limit_of_0_is_0():
    assert limit_in_force(MdArray("md0", "raid1", "active", "ok", sync_speed_max=0), None) == 0.0


def test_the_tracker_leaves_a_waiting_sync_alone_and_rounds_to_a_tenth():
    tracker = EtaTracker()
    waiting = MdArray("md0", "raid1", "active", "ok", sync=MdSync("delayed"))
    assert tracker.apply([waiting], 0.0) == [waiting]
    for t, done in [(0.0, 0), (3.0, 1000)]:
        result = tracker.apply([MdArray("md5", "raid5", "active", "ok", sync=MdSync("resync", None, done, 10**6))], t)
    # 1000 KiB in 3 s: 333.33 KiB/s, shown as 333.3.
    assert result[0].sync.rate_kib_s == 333.3


@pytest.mark.parametrize("speed, held", [(1250, True), (1251, False)])
def test_competing_io_holds_a_sync_up_to_a_quarter_above_its_minimum(speed, held):
    # Busy, sync_speed_min 1000: md's window average at or below 1.25 × 1000 = 1250 is
    # held there; the maximum (200 000) is far off (1250 < 90 % of it).
    model = SyncModel()
    for t in range(3):
        forecast = model.update(float(t), sync(speed * t, speed), limit=200_000.0, minimum=1000.0, busy=True)
    expected = ("sync_speed_min", 1000.0) if held else (None, None)
    assert (forecast.held_by, forecast.held_limit_kib_s) == expected


def test_held_at_the_minimum_needs_a_minimum_and_a_busy_array():
    model = SyncModel()
    forecast = model.update(0.0, sync(0, 1000), limit=200_000.0, minimum=None, busy=True)
    assert (forecast.held_by, forecast.held_limit_kib_s) == (None, None)
    forecast = model.update(1.0, sync(1000, 1000), limit=200_000.0, minimum=0.0, busy=True)
    assert (forecast.held_by, forecast.held_limit_kib_s) == (None, None)


def test_without_sync_speed_the_minimums_hold_is_judged_over_a_whole_window():
    # mdstat alone, 1000 KiB/s, busy, minimum 1000: before 33 s of readings there is no
    # window average to judge (nothing named); from 33 s the window's 33 000 / 33 = 1000
    # ≤ 1250 is held.
    model = SyncModel()
    held = {
        t: model.update(float(t), sync(1000 * t, total=10**6), limit=200_000.0, minimum=1000.0, busy=True).held_by
        for t in range(34)
    }
    assert held[32] is None and held[33] == "sync_speed_min"


@pytest.mark.parametrize(
    "array_min, system, busy, expected",
    [
        (1000, None, True, ("sync_speed_min", 1000.0)),
        (None, RaidSpeedLimit(1000, 200_000), True, ("sync_speed_min", 1000.0)),
        (None, None, True, (None, None)),
        (1000, None, False, (None, None)),
    ],
)
def test_the_tracker_names_the_minimum_from_the_array_or_the_system(array_min, system, busy, expected):
    # 1000 KiB/s with a minimum of 1000 (the array's, else the system's), the array
    # busy: held at the minimum (1000 ≤ 1.25 × 1000); not busy or no minimum: nothing.
    tracker = EtaTracker()
    for t in range(3):
        array = MdArray(
            "md5",
            "raid5",
            "active",
            "ok",
            sync=MdSync("recover", None, 1000 * t, 10**6, 1000),
            sync_speed_max=200_000,
            sync_speed_min=array_min,
        )
        result = tracker.apply([array], float(t), system, busy=frozenset({"md5"} if busy else ()))
    assert (result[0].sync.held_by, result[0].sync.held_limit_kib_s) == expected
