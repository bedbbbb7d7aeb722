"""md's window throttle run forward: when a sync at a given limit reaches its end.

The simulation behind raidtop's sync ETA (:mod:`raidtop.collect.md.eta`
explains md's throttle and how its marks are rebuilt from the readings):
md issues at the disks' pace up to ``done(mark) + limit * (whole seconds +
1)``, sleeps :data:`~raidtop.collect.md.marks.SLEEP_S` there, and takes a
mark at the first check :data:`~raidtop.collect.md.marks.MARK_STEP_S`
after the last.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from raidtop.collect.md.marks import MARK_STEP_S, MARKS, SLEEP_S, past_of, replay_marks, start_of

SIM_TICK_S = 0.05
"""The simulation's step: fine enough for md's 0.5 s sleeps, coarse enough to run every tick."""
DEFAULT_STEP_S = MARK_STEP_S + SLEEP_S / 2
"""md's mark step when its marks could not be fitted: a check lands on average half a sleep late."""
OVERSHOOT_SHARE = 0.25
"""Share of the in-flight sync I/O by which completions overshoot md's allowance
(it checks completed work, and what was issued before the check still lands;
calibrated on the VM recordings, see perf/RESULTS.md)."""
RESYNC_IN_FLIGHT_KIB = {"raid1": 2048, "raid10": 2048}
"""Sync I/O md keeps in flight ahead of the completed position mdstat shows:
raid1.c and raid10.c allow RESYNC_DEPTH (32) requests of RESYNC_BLOCK_SIZE
(64 KiB). md's throttle counts it when issued, so the last 2 MiB finish
about as soon as the issuing reaches the end (seen in the VM: 2–3 s early
at 1000 KiB/s)."""


def project_finish(
    history: Sequence[tuple[float, float]],
    total: float,
    limit: float | None,
    capacity: float | None,
    back_rate: float | None = None,
    phase: float = 0.0,
    in_flight: float = 0.0,
    clock: tuple[float, float] | None = None,
) -> float | None:
    """Seconds until progress reaches ``total``, simulating md's window throttle.

    ``history`` is ``(time, done)`` oldest first, the last entry being now;
    ``limit`` the maximum in force (KiB/s), ``None`` when unknown;
    ``capacity`` the disks' rate, ``None`` for unknown (unlimited);
    ``back_rate`` the rate assumed before the first entry (md's window
    average), else the history's own average; ``clock`` md's marks as
    ``(start, step)`` (:func:`fit_marks`), else taken from the start the
    history implies, shifted by ``phase`` (for a range); ``in_flight`` KiB
    are issued ahead of ``done`` (:data:`RESYNC_IN_FLIGHT_KIB`). ``None``
    when nothing moves.
    """
    now, done = history[-1]
    total = max(done, total - in_flight)
    remaining = total - done
    if remaining <= 0:
        return 0.0
    cap = capacity if capacity and capacity > 0 else math.inf
    if limit is None or limit <= 0:
        return remaining / cap if cap < math.inf else None
    first_t, first_d = history[0]
    if back_rate is None:
        back_rate = (done - first_d) / (now - first_t) if now > first_t else limit
    start, step = clock if clock is not None else (start_of(history, back_rate), DEFAULT_STEP_S)
    marks = replay_marks(start + phase, step, now, past_of(history, back_rate))
    # Forward in ticks: md issues at the disks' pace up to what its window
    # allows; there it sleeps SLEEP_S and checks again, taking a mark when
    # the last is MARK_STEP_S old.
    t, d, wake = now, done, now
    horizon = now + 2 * MARKS * step + 10
    while t < horizon:
        d_next = d
        if t >= wake:
            if t >= marks.last + MARK_STEP_S:
                marks.step(t, d)
            allowed = marks.allowed(t, limit) + OVERSHOOT_SHARE * in_flight
            if d >= allowed:
                wake = t + SLEEP_S
            else:
                d_next = min(d + cap * SIM_TICK_S, allowed)
        if d_next >= total:
            return t - now + SIM_TICK_S * (total - d) / (d_next - d)
        t, d = t + SIM_TICK_S, d_next
    window = MARKS * step + step / 2
    steady = min(cap, limit * (window + 1) / window)
    return t - now + (total - d) / steady
