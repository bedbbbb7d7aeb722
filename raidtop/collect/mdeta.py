"""raidtop's sync ETA: md's own throttle, simulated forward from the progress seen.

How md paces a sync (md_do_sync, checked against 6.1 in the realmd VM):
every 3 s it takes a mark and measures from the one ten marks back (the
marks all start at the sync's start, so for 33 s the window is the whole
sync, then it reaches back 30–33 s); before each chunk it computes the rate
since that mark, ``work / (whole seconds + 1)``, and sleeps while that is above the maximum
(``sync_speed_max``, else ``speed_limit_max``; never below the minimum).
``sync_speed`` in sysfs is that same window average. So:

* at a constant limit a sync runs at the limit, a few percent above it;
* after the limit is **lowered**, md stalls until the fast progress has left
  its window (about 20 s for 3000 → 1000 KiB/s) and only then crawls on,
  while ``sync_speed`` still reads about the old limit;
* after it is **raised**, md runs flat out until the window allows no more
  (a burst), then at the new limit.

A smoothed rate gets all three wrong for tens of seconds. raidtop instead
keeps the last :data:`HISTORY_S` seconds of progress and simulates md's rule
forward (:func:`project_finish`): progress can grow at most at the disks'
capacity, and at most to ``done(mark) + limit * (t - mark + 1)``. The
capacity is a time-weighted average of the rate over intervals md did *not*
throttle (its window average below :data:`HELD_FRACTION` of the limit):
while md holds a sync at its limit the disks' speed is unknown, and unknown
capacity is taken as unlimited (the limit sets the pace). Before raidtop has
seen a window of its own, the past is filled in with the kernel's
``sync_speed``, md's own average over that window, so there is an estimate
from the first reading (:attr:`MdSync.eta_basis` says which).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace

from raidtop.model_md import MdArray, MdSync, RaidSpeedLimit

MARK_STEP_S = 3.0
MARKS = 10
"""md_do_sync's SYNC_MARK_STEP (3 s) and SYNC_MARKS (10)."""
WINDOW_S = MARK_STEP_S * (MARKS + 0.5)
"""md's speed window on average once the sync is older than it (30–33 s)."""
PHASE_RANGE_S = (-1.5, 1.5)
"""How far the marks' phase may be off when the sync's start was not seen."""
HELD_FRACTION = 0.9
"""A window average at or above this share of the limit means md is holding the sync back."""
CAPACITY_TAU_S = 30.0
"""How fast the capacity estimate forgets (seconds)."""
HISTORY_S = 40.0
OWN_SPAN_S = 10.0
"""Seconds of raidtop's own progress readings before the ETA stops leaning on md's window."""
RATE_SPAN_S = 1.0
"""The displayed speed is the progress over at least this many seconds."""
STALL_SPAN_S = 2.0
SIM_STEP_S = 0.5
RESYNC_IN_FLIGHT_KIB = {"raid1": 2048, "raid10": 2048}
"""Sync I/O md keeps in flight ahead of the completed position mdstat shows:
raid1.c and raid10.c allow RESYNC_DEPTH (32) requests of RESYNC_BLOCK_SIZE
(64 KiB). md's throttle counts it when issued, so the last 2 MiB finish
about as soon as the issuing reaches the end (seen in the VM: 2–3 s early
at 1000 KiB/s)."""


def _interpolate(times: Sequence[float], values: Sequence[float], t: float) -> float:
    i = bisect_left(times, t)
    if i <= 0:
        return values[0]
    if i >= len(times):
        return values[-1]
    t0, t1 = times[i - 1], times[i]
    if t1 == t0:
        return values[i]
    return values[i - 1] + (values[i] - values[i - 1]) * (t - t0) / (t1 - t0)


def project_finish(
    history: Sequence[tuple[float, float]],
    total: float,
    limit: float | None,
    capacity: float | None,
    back_rate: float | None = None,
    phase: float = 0.0,
    in_flight: float = 0.0,
) -> float | None:
    """Seconds until progress reaches ``total``, simulating md's window throttle.

    ``history`` is ``(time, done)`` oldest first, the last entry being now;
    ``limit`` the maximum in force (KiB/s), ``None`` when unknown;
    ``capacity`` the disks' rate, ``None`` for unknown (unlimited);
    ``back_rate`` the rate assumed before the first entry (md's window
    average), else the history's own average; ``phase`` shifts md's marks
    (for a range); ``in_flight`` KiB are issued
    ahead of ``done`` (:data:`RESYNC_IN_FLIGHT_KIB`). ``None`` when nothing moves.
    """
    now, done = history[-1]
    total = max(done, total - in_flight)
    remaining = total - done
    if remaining <= 0:
        return 0.0
    cap = capacity if capacity and capacity > 0 else math.inf
    if limit is None or limit <= 0:
        return remaining / cap if cap < math.inf else None
    steady = min(cap, limit * (WINDOW_S + 0.5) / WINDOW_S)
    first_t, first_d = history[0]
    if back_rate is None:
        back_rate = (done - first_d) / (now - first_t) if now > first_t else steady
    # md's marks start with the sync: in its first ~30 s the window is shorter
    # and the allowance with it. Before the first reading, progress is taken
    # as linear at back_rate, which also dates the start.
    started = (first_t - first_d / back_rate if back_rate > 0 else first_t - 10 * WINDOW_S) + phase
    times = [t for t, _ in history]
    dones = [d for _, d in history]

    def past(t: float) -> float:
        if t < first_t:
            return max(0.0, first_d - back_rate * (first_t - t))
        return _interpolate(times, dones, t)

    sim_t, sim_d = [now], [done]
    t, d = now, done
    horizon = now + 2 * WINDOW_S + 2
    while t < horizon:
        t_next = t + SIM_STEP_S
        base_t = _mark(t_next, started)
        base = past(base_t) if base_t <= now else _interpolate(sim_t, sim_d, base_t)
        allowed = base + limit * (math.floor(t_next - base_t) + 1)
        d_next = max(d, min(d + cap * SIM_STEP_S, allowed))
        if d_next >= total:
            return t - now + SIM_STEP_S * (total - d) / (d_next - d)
        t, d = t_next, d_next
        sim_t.append(t)
        sim_d.append(d)
    if steady <= 0:
        return None
    return t - now + (total - d) / steady


def _mark(t: float, started: float) -> float:
    """The mark md measures from at ``t``: ten 3 s steps back, never before the start."""
    steps = math.floor((t - started) / MARK_STEP_S)
    return started + MARK_STEP_S * max(0, steps - MARKS)


@dataclass(frozen=True, slots=True)
class Forecast:
    """What one reading adds to a running sync."""

    eta_s: float | None
    basis: str | None
    """``raidtop`` (its own readings span a speed window) or ``md-window`` (seeded with sync_speed)."""
    rate_kib_s: float | None
    stalled: bool
    capacity_kib_s: float | None


class SyncModel:
    """One array's sync: recent progress, the limit in force, the disks' capacity."""

    __slots__ = ("_key", "_history", "_work", "_span", "_first_time")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything; the next reading starts over."""
        self._key: tuple[str, int] | None = None
        # (time, done KiB, limit in force, md's window average) per reading
        self._history: deque[tuple[float, float, float | None, float | None]] = deque()
        self._work = 0.0
        self._span = 0.0
        self._first_time = 0.0

    @property
    def history(self) -> list[tuple[float, float]]:
        """``(time, done_kib)`` over the last :data:`HISTORY_S` seconds."""
        return [(t, d) for t, d, _, _ in self._history]

    @property
    def capacity_kib_s(self) -> float | None:
        """The rate of the intervals md did not throttle; ``None`` when it throttled them all."""
        return self._work / self._span if self._span > 0 and self._work > 0 else None

    def update(self, time: float, sync: MdSync | None, limit: float | None, in_flight: float = 0.0) -> Forecast | None:
        """Feed one reading taken at ``time``; ``None`` when no sync with counts runs."""
        if sync is None or not sync.running or sync.done_kib is None or not sync.total_kib:
            self.reset()
            return None
        key = (sync.action, sync.total_kib)
        if key != self._key or (self._history and sync.done_kib < self._history[-1][1]):
            self.reset()
            self._key, self._first_time = key, time
        if self._history and time <= self._history[-1][0]:
            return None  # a replayed or repeated reading adds nothing
        previous = self._history[-1] if self._history else None
        kernel = float(sync.speed_kib_s) if sync.speed_kib_s else None
        self._history.append((time, float(sync.done_kib), limit, kernel))
        while len(self._history) > 2 and self._history[1][0] < time - HISTORY_S:
            self._history.popleft()
        if previous is not None:
            self._learn_capacity(previous, time, sync)
        held = self._held(time, kernel, limit)
        history = self.history
        own = time - self._first_time >= OWN_SPAN_S
        back = None if own else kernel
        moved = history[-1][1] > history[0][1]
        if (len(history) < 2 or not moved) and back is None:
            eta = None  # nothing to go on: no speed from md, no progress seen
        else:
            capacity = None if held else self.capacity_kib_s
            if capacity is None and not held and back is not None:
                capacity = back  # below its limit md's window average is the disks' pace
            eta = project_finish(history, float(sync.total_kib), limit, capacity, back, in_flight=in_flight)
        rate = self._rate(time, RATE_SPAN_S)
        recent = self._rate(time, STALL_SPAN_S)
        stalled = recent is not None and recent == 0 and bool(kernel)
        basis = None if eta is None else ("raidtop" if own else "md-window")
        return Forecast(eta, basis, rate, stalled, self.capacity_kib_s)

    def _held(self, time: float, kernel: float | None, limit: float | None) -> bool:
        """True when md's window average (sync_speed, else our own) is at the limit."""
        if not limit:
            return False
        average = kernel
        if average is None:
            history = self.history
            start = max(history[0][0], time - WINDOW_S)
            done_then = _interpolate([t for t, _ in history], [d for _, d in history], start)
            average = (history[-1][1] - done_then) / (time - start + 1)
        return average >= HELD_FRACTION * limit

    def _learn_capacity(self, previous: tuple[float, float, float | None, float | None], time: float,
                        sync: MdSync) -> None:
        t0, d0, limit, kernel = previous
        dt = time - t0
        # An interval that starts throttled says only that the disks are at
        # least this fast: it would drag the capacity down to the limit.
        if dt <= 0 or (limit and (kernel is None or kernel >= HELD_FRACTION * limit)):
            return
        decay = math.exp(-dt / CAPACITY_TAU_S)
        self._work = self._work * decay + (sync.done_kib - d0)
        self._span = self._span * decay + dt

    def _rate(self, time: float, span: float) -> float | None:
        """Δdone/Δt back to the newest reading at least ``span`` seconds old."""
        for t, d, _, _ in reversed(self._history):
            if time - t >= span:
                return (self._history[-1][1] - d) / (time - t)
        return None


def limit_in_force(array: MdArray, system: RaidSpeedLimit | None) -> float | None:
    """The maximum md applies to this array's sync (KiB/s), never below the minimum."""
    high = array.sync_speed_max if array.sync_speed_max is not None else (system.max if system else None)
    low = array.sync_speed_min if array.sync_speed_min is not None else (system.min if system else None)
    if high is None:
        return None
    return float(max(high, low or 0))


class EtaTracker:
    """One :class:`SyncModel` per array, filling the ETA and achieved-rate fields of :class:`MdSync`."""

    def __init__(self) -> None:
        self._models: dict[str, SyncModel] = {}

    def apply(self, arrays: Sequence[MdArray], time: float, system: RaidSpeedLimit | None = None) -> list[MdArray]:
        """Return the arrays with their forecasts set; forgets arrays that vanished."""
        out = []
        for array in arrays:
            model = self._models.get(array.name)
            if model is None:
                model = self._models[array.name] = SyncModel()
            forecast = model.update(time, array.sync, limit_in_force(array, system),
                                    RESYNC_IN_FLIGHT_KIB.get(array.level or "", 0))
            if array.sync is not None and forecast is not None:
                array = replace(array, sync=replace(
                    array.sync,
                    eta_s=None if forecast.eta_s is None else round(forecast.eta_s, 1),
                    eta_basis=forecast.basis,
                    rate_kib_s=None if forecast.rate_kib_s is None else round(forecast.rate_kib_s, 1),
                    stalled=forecast.stalled,
                    capacity_kib_s=None if forecast.capacity_kib_s is None else round(forecast.capacity_kib_s, 1),
                    recent=tuple((round(t, 3), int(d)) for t, d in model.history),
                ))
            out.append(array)
        names = {a.name for a in arrays}
        for name in [n for n in self._models if n not in names]:
            del self._models[name]
        return out
