"""raidtop's smoothed sync ETA: it must move smoothly where finish= jumps.

Bounds are on how much the estimate changes between steps and how close it
is to the true remaining time, never on wall-clock timing.
"""

from __future__ import annotations

import random

from raidtop.collect.mdeta import EtaEstimator, EtaTracker
from raidtop.model_md import MdArray, MdSync

TOTAL_KIB = 100_000_000  # a 100 GB member
MEAN_SPEED = 100_000  # KiB/s


def jittery_run(seed: int, seconds: int, interval: float = 1.0, jitter: float = 0.3):
    """(time, sync, kernel-style eta, true remaining seconds) for a steady sync with noisy per-step speed."""
    rng = random.Random(seed)
    done = 0
    steps = []
    for step in range(int(seconds / interval)):
        time = step * interval
        speed = MEAN_SPEED * rng.uniform(1 - jitter, 1 + jitter)
        if step:
            done += int(speed * interval)
        remaining = TOTAL_KIB - done
        # finish= divides what is left by the rate of the last few seconds.
        kernel_eta = remaining / speed
        sync = MdSync("recover", done * 100 / TOTAL_KIB, done, TOTAL_KIB, int(speed), kernel_eta)
        steps.append((time, sync, kernel_eta, remaining / MEAN_SPEED))
    return steps


def test_eta_moves_smoothly_while_finish_jumps():
    for seed in range(5):
        estimator = EtaEstimator()
        previous = previous_kernel = None
        worst = worst_kernel = 0.0
        for time, sync, kernel_eta, truth in jittery_run(seed, 600):
            eta = estimator.update(time, sync)
            if time >= 30:
                assert eta is not None
                # One second later the ETA should be one second less, give or take 1.5 %.
                worst = max(worst, abs(eta - (previous - 1.0)) / eta)
                worst_kernel = max(worst_kernel, abs(kernel_eta - (previous_kernel - 1.0)) / kernel_eta)
            if time >= 60:
                assert abs(eta - truth) / truth < 0.10
            previous, previous_kernel = eta, kernel_eta
        assert worst < 0.015, seed
        assert worst_kernel > 10 * worst, seed


def test_sampling_interval_does_not_change_the_estimate():
    fine = EtaEstimator()
    coarse = EtaEstimator()
    eta_fine = eta_coarse = None
    for time, sync, _, _ in jittery_run(1, 300, interval=1.0, jitter=0.0):
        eta_fine = fine.update(time, sync)
        if time % 5 == 0:
            eta_coarse = coarse.update(time, sync)
    assert abs(eta_fine - eta_coarse) / eta_fine < 0.01


def test_no_estimate_before_enough_progress():
    estimator = EtaEstimator(min_span_s=10.0)
    etas = [estimator.update(t, MdSync("resync", None, 1000 * t, 1_000_000)) for t in range(12)]
    assert etas[:10] == [None] * 10
    assert etas[11] is not None and abs(etas[11] - (1_000_000 - 11_000) / 1000) < 1e-6


def test_reset_on_action_change_and_on_progress_going_back():
    estimator = EtaEstimator(min_span_s=2.0)
    for t in range(5):
        estimator.update(float(t), MdSync("resync", None, 1000 * t, 100_000))
    assert estimator.update(5.0, MdSync("resync", None, 5000, 100_000)) is not None
    assert estimator.update(6.0, MdSync("check", None, 6000, 100_000)) is None  # action changed
    assert estimator.update(7.0, MdSync("check", None, 7000, 100_000)) is None  # fresh, 1 s seen
    assert estimator.update(9.0, MdSync("check", None, 9000, 100_000)) is not None
    assert estimator.update(10.0, MdSync("check", None, 10, 100_000)) is None  # went backwards
    assert estimator.update(11.0, None) is None
    assert estimator.rate_kib_s is None


def test_a_pause_grows_the_eta_without_jumping():
    estimator = EtaEstimator()
    done = 0
    for t in range(120):
        done = 1000 * t
        eta_running = estimator.update(float(t), MdSync("recover", None, done, 1_000_000))
    etas = [estimator.update(float(t), MdSync("recover", None, done, 1_000_000)) for t in range(120, 180)]
    assert all(b > a for a, b in zip([eta_running] + etas, etas))
    assert etas[-1] < 3 * eta_running  # a minute's pause is not treated as a stop


def test_waiting_sync_has_no_eta():
    assert EtaEstimator().update(0.0, MdSync("delayed")) is None


def test_tracker_fills_eta_and_forgets_vanished_arrays():
    tracker = EtaTracker(min_span_s=2.0)

    def arrays(t, with_md1=True):
        out = [MdArray("md0", "raid1", "active", "ok", sync=MdSync("resync", None, 1000 * t, 100_000))]
        if with_md1:
            out.append(MdArray("md1", "raid1", "clean", "ok"))
        return out

    for t in range(3):
        result = tracker.apply(arrays(t), float(t))
    assert result[0].sync.eta_s == 98.0  # 98 000 KiB left at 1000 KiB/s
    assert result[1].sync is None
    tracker.apply(arrays(3, with_md1=False), 3.0)
    assert sorted(tracker._estimators) == ["md0"]
