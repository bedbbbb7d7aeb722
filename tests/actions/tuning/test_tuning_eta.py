"""The speed-limit ETA model (see raidtop.actions.tuning.eta) and the observed effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import TuningSession
from raidtop.actions.tuning.eta import (
    SETTLE_S,
    ArrayLimits,
    EffectTracker,
    Limits,
    predict_eta,
    predictions_for_change,
)
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray, MdSync

from tests.actions.tuning.test_tuning_validation import tuning_root

REMAINING = 1_000_000  # KiB per device


def syncing(name: str, speed: int, done: int = 0, total: int = REMAINING) -> MdArray:
    return MdArray(
        name,
        "raid5",
        "active",
        "degraded",
        raid_disks=3,
        sync=MdSync("recover", percent=0.0, done_kib=done, total_kib=total, speed_kib_s=speed),
    )


def test_held_at_the_maximum_the_new_maximum_sets_the_pace():
    # 195000 KiB/s against a 200000 KiB/s ceiling: md is pausing, the disks could do more.
    lower = predict_eta("md0", "recover", REMAINING, 195_000, Limits(1000, 200_000), Limits(1000, 50_000))
    assert lower.predicted_kib_s == 50_000 and not lower.optimistic
    # Not 1e6 / 50 000 = 20 s: md first stalls until its ~30 s window has drained
    # the faster progress, then runs a few percent above its limit.
    assert 20.0 < lower.eta_s < 30.0
    low, high = lower.eta_range_s
    assert low <= lower.eta_s <= high and high - low < 3.0
    higher = predict_eta("md0", "recover", REMAINING, 195_000, Limits(1000, 200_000), Limits(1000, 400_000))
    assert higher.predicted_kib_s == 400_000 and higher.optimistic
    assert "if the disks keep up" in higher.basis
    # Raised: a burst until md's window is full, so faster than remaining / new limit;
    # the slow end of the range is disks that cannot go faster than now.
    assert higher.eta_s < 1e6 / 400_000
    assert higher.eta_range_s[1] == pytest.approx(1e6 / 195_000, rel=0.01)
    assert "between" in higher.uncertainty


def test_below_the_limit_the_disks_set_the_pace():
    p = predict_eta("md0", "recover", REMAINING, 40_000, Limits(1000, 200_000), Limits(1000, 500_000))
    assert p.predicted_kib_s == 40_000 and p.eta_s == pytest.approx(25.0)
    assert p.current_eta_s == pytest.approx(25.0) and "the disks set the pace" in p.basis
    # …unless the new maximum is below what the disks deliver.
    capped = predict_eta("md0", "recover", REMAINING, 40_000, Limits(1000, 200_000), Limits(1000, 10_000))
    assert capped.predicted_kib_s == 10_000 and "below the observed rate" in capped.basis


def test_near_the_minimum_md_is_yielding_and_the_new_minimum_sets_the_pace():
    p = predict_eta("md0", "resync", REMAINING, 1_020, Limits(1000, 200_000), Limits(50_000, 200_000))
    assert p.predicted_kib_s == 50_000 and p.optimistic and "yields to other I/O" in p.basis


def test_a_minimum_above_the_maximum_wins():
    # md never pauses below its minimum, even when that is above the maximum.
    p = predict_eta("md0", "recover", REMAINING, 195_000, Limits(1000, 200_000), Limits(100_000, 50_000))
    assert p.predicted_kib_s == 100_000


def test_a_global_change_moves_only_arrays_that_follow_it():
    arrays = [syncing("md0", 195_000), syncing("md1", 195_000)]
    limits = {
        "md0": ArrayLimits(None, None, 1000, 200_000),  # follows the system limits
        "md1": ArrayLimits(None, 300_000, 1000, 200_000),
    }  # has its own maximum
    (p,) = predictions_for_change(arrays, limits, "raid", "speed_limit_max", "100000")
    assert p.array == "md0" and p.predicted_kib_s == 100_000
    # An array's own knob moves only that array; "system" puts it back on the global value.
    (q,) = predictions_for_change(arrays, limits, "md1", "sync_speed_max", "system")
    assert q.array == "md1" and q.predicted_kib_s == 195_000  # below both caps: the disks decide
    held = [syncing("md1", 295_000)]  # held at its own 300000 maximum
    (r,) = predictions_for_change(held, limits, "md1", "sync_speed_max", "system")
    assert r.predicted_kib_s == 200_000 and not r.optimistic


def test_session_predictions_read_the_limits_from_sysfs(tmp_path: Path):
    session = TuningSession(tuning_root(tmp_path), ActionLog(tmp_path / "log"), privileged=True)
    limits = session.array_limits(["md6"])
    assert limits["md6"] == ArrayLimits(None, None, 1000, 200_000)
    session.set("md6", "sync_speed_max", "30000")
    assert session.array_limits(["md6"])["md6"].effective == Limits(1000, 30_000)
    (p,) = session.predict([syncing("md6", 29_000)], "md6", "sync_speed_max", "10000")
    # ~18-20 s stall (md sleeps 500 ms between checks), then ~10 350 K/s
    assert p.predicted_kib_s == 10_000 and 96.0 < p.eta_s < 104.0
    assert session.predict([syncing("md6", 29_000)], "md6", "stripe_cache_size", "1024") == []


def test_the_effect_is_followed_after_the_change():
    tracker = EffectTracker()
    before = syncing("md0", 195_000)
    (effect,) = tracker.start(100.0, "md0", "sync_speed_max", "50000", [before])
    assert "waiting for the next sample" in effect.summary()
    tracker.observe(Snapshot(time=90.0, interval_s=1.0, arrays=(syncing("md0", 190_000),)))  # before the change
    tracker.observe(Snapshot(time=105.0, interval_s=1.0, arrays=(syncing("md0", 120_000),)))
    assert effect.latest_kib_s == 120_000 and effect.settling
    tracker.observe(Snapshot(time=100.0 + SETTLE_S + 1, interval_s=1.0, arrays=(syncing("md0", 51_000),)))
    assert len(effect.after) == 2 and not effect.settling
    assert effect.summary() == "md0: 195000 KiB/s before sync_speed_max=50000 → 51000 KiB/s 31 s after"
