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
keeps the last :data:`HISTORY_S` seconds of progress, rebuilds md's ring of
marks from the ``sync_speed`` readings (:func:`raidtop.collect.md.marks.fit_marks`:
their jumps and their decay date the marks to a tenth of a second) and runs
md's loop forward (:func:`raidtop.collect.md.throttle.project_finish`): issue at the disks' pace up to
``done(mark) + limit * (whole seconds + 1)``, there sleep 500 ms, take a mark
at the first check 3 s after the last. The disks' pace is the rate over the
last stretch of at least :data:`CAPACITY_SPAN_S` in which progress stayed
below md's allowance; while md holds the sync it is unknown and taken as
unlimited (the limit sets the pace). Before raidtop has seen a window of its
own, the past is filled in with the kernel's ``sync_speed``, md's own average
over that window, so there is an estimate from the first reading
(:attr:`MdSync.eta_basis` says which).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.md.marks import (
    MARK_STEP_S,
    MARKS,
    WINDOW_S,
    fit_marks,
    interpolate,
    past_of,
    replay_marks,
)
from raidtop.collect.md.throttle import OVERSHOOT_SHARE, RESYNC_IN_FLIGHT_KIB, project_finish
from raidtop.model.md import MdArray, MdSync, RaidSpeedLimit

PHASE_RANGE_S = (-1.5, 1.5)
"""How far the marks' phase may be off when the sync's start was not seen."""
HELD_FRACTION = 0.9
"""A window average at or above this share of the limit means md is holding the sync back."""
CAPACITY_SPAN_S = 2.0
"""Seconds md must run below its allowance before its pace counts as the disks'."""
HISTORY_S = 75.0
OWN_SPAN_S = 10.0
"""Seconds of raidtop's own progress readings before the ETA stops leaning on md's window."""
SPEED_WINDOW_S = MARK_STEP_S * (MARKS + 1)
"""The Speed column is the progress over this many seconds (33 s): md's speed window at its
longest (ten 3 s marks, the oldest up to one step old), so every burst and every sleep of md's
throttle falls inside it and the figure never reads 0 while the sync advanced."""
STALL_AFTER_S = 60.0
"""A sync whose completed count has not moved for this long is STALLED. md's own throttle never
pauses longer than its window (at most 33 s, after a limit is lowered: about 21 s for
3000 → 1000 KiB/s in the VM), so a minute is nearly twice the longest legitimate pause and still
short enough for an admin to hear of a hung member within a minute or two."""
STALL_AFTER_COARSE_S = 360.0
"""The same without /proc/mdstat: sysfs ``sync_completed`` moves only every 1/16 of the device or
every 5 minutes (md's UPDATE_FREQUENCY), so only a longer silence means anything."""
MIN_HELD_FRACTION = 1.25
"""Under competing I/O md keeps the sync near ``sync_speed_min``: a window average below this
multiple of the minimum, with the array busy, is held there."""
FIT_FRACTION = 0.25
"""Below this share of the limit the marks change nothing: no fit."""
FULL_FIT_EVERY = 10
FREE_SHARE = 0.5
"""md runs free when progress is this many seconds of the limit (or the in-flight I/O) below its allowance."""


@frozen_dataclass
class Forecast:
    """What one reading adds to a running sync."""

    eta_s: float | None
    basis: str | None
    """``raidtop`` (its own readings span a speed window) or ``md-window`` (seeded with sync_speed)."""
    rate_kib_s: float | None
    stalled_s: float | None
    """Seconds without progress once past the stall threshold, else ``None``."""
    capacity_kib_s: float | None
    held_by: str | None = None
    held_limit_kib_s: float | None = None


class SyncModel:
    """One array's sync: recent progress, the limit in force, the disks' capacity."""

    __slots__ = ("_key", "_history", "_capacity", "_free_since", "_first_time", "_clock", "_moved_at")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything; the next reading starts over."""
        self._key: tuple[str, int] | None = None
        # (time, done KiB, limit in force, md's window average) per reading
        self._history: deque[tuple[float, float, float | None, float | None]] = deque()
        self._first_time = 0.0
        self._clock: tuple[float, float] | None = None
        self._capacity: float | None = None
        self._free_since: tuple[float, float] | None = None
        self._moved_at: float | None = None

    @property
    def history(self) -> list[tuple[float, float]]:
        """``(time, done_kib)`` over the last :data:`HISTORY_S` seconds."""
        return [(t, d) for t, d, _, _ in self._history]

    @property
    def capacity_kib_s(self) -> float | None:
        """The disks' pace over the last stretch md did not hold back; ``None`` before one."""
        return self._capacity if self._capacity and self._capacity > 0 else None

    def update(
        self,
        time: float,
        sync: MdSync | None,
        limit: float | None,
        in_flight: float = 0.0,
        *,
        minimum: float | None = None,
        busy: bool = False,
        excused: bool = False,
        stall_after: float = STALL_AFTER_S,
    ) -> Forecast | None:
        """Feed one reading taken at ``time``; ``None`` when no sync with counts runs.

        ``minimum`` is the ``sync_speed_min`` in force, ``busy`` whether the
        array served other I/O in the interval (md then holds the sync near
        its minimum), ``excused`` whether something other than a fault
        explains a sync that does not move (a limit of 0, a frozen sync, a
        read-only array), ``stall_after`` the silence that makes a stall.
        """
        if sync is None or not sync.running or sync.done_kib is None or not sync.total_kib:
            self.reset()
            return None
        key = (sync.action, sync.total_kib)
        if key != self._key or (self._history and sync.done_kib < self._history[-1][1]):
            self.reset()
            self._key, self._first_time = key, time
        if self._history and time <= self._history[-1][0]:
            return None  # a replayed or repeated reading adds nothing
        kernel = float(sync.speed_kib_s) if sync.speed_kib_s else None
        if self._moved_at is None or (self._history and sync.done_kib > self._history[-1][1]):
            self._moved_at = time
        self._history.append((time, float(sync.done_kib), limit, kernel))
        while len(self._history) > 2 and self._history[1][0] < time - HISTORY_S:
            self._history.popleft()
        history = self.history
        own = time - self._first_time >= OWN_SPAN_S
        back = None if own else kernel
        back_rate = self._history[0][3] or self._average()
        pace = kernel or self._average()
        # Far below its maximum md's marks change nothing: spare the fit.
        clock = None
        if limit and pace >= FIT_FRACTION * limit:
            readings = [(t, d, k) for t, d, _, k in self._history]
            # While md runs free the marks barely matter: refine the last fit,
            # searching afresh now and then; while it holds back, every time.
            near = self._clock if self._free_since is not None and len(readings) % FULL_FIT_EVERY else None
            clock = self._clock = fit_marks(readings, back_rate, near) or fit_marks(readings, back_rate)
        free = self._free(clock, time, limit, kernel, back_rate, in_flight)
        if not free:
            self._free_since = None
        elif self._free_since is None:
            self._free_since = (time, float(sync.done_kib))
        elif time - self._free_since[0] >= CAPACITY_SPAN_S:
            # The whole stretch md let run, not its single intervals: one
            # reading's jump to md's allowance ends a stretch, so a per-interval
            # average would keep only the slow ones.
            t0, d0 = self._free_since
            self._capacity = (sync.done_kib - d0) / (time - t0)
        if self._capacity is not None and not free:
            # While md holds the sync, what it achieves over CAPACITY_SPAN_S is a pace the disks
            # reached: a free stretch measured earlier (a slow start, a load since gone) is no ceiling.
            reached = self._rate(time, CAPACITY_SPAN_S)
            if reached is not None and reached > self._capacity:
                self._capacity = reached
        moved = history[-1][1] > history[0][1]
        if (len(history) < 2 or not moved) and back is None:
            eta = None  # nothing to go on: no speed from md, no progress seen
        else:
            capacity = self.capacity_kib_s
            raised = len(self._history) > 1 and self._history[-2][2] != limit
            if capacity is None and free and not raised:
                # Below what md allows (and not just because the limit rose
                # this moment), its window average is the disks' pace.
                capacity = kernel or self._average() or None
            eta = project_finish(
                history,
                float(sync.total_kib),
                limit,
                capacity,
                back if back is not None else back_rate,
                in_flight=in_flight,
                clock=clock,
            )
        rate = self.window_rate(time, kernel)
        still = time - (self._moved_at if self._moved_at is not None else time)
        stalled_s = still if still >= stall_after and not excused else None
        if stalled_s is not None:
            eta = None  # no pace to project: the sync is not moving
        basis = None if eta is None else ("raidtop" if own else "md-window")
        held_by, held_limit = self._holder(time, kernel, limit, minimum, busy)
        return Forecast(eta, basis, rate, stalled_s, self.capacity_kib_s, held_by, held_limit)

    def window_rate(self, time: float, kernel: float | None) -> float | None:
        """Progress over :data:`SPEED_WINDOW_S`; md's ``sync_speed`` (the same window's
        average) until raidtop's readings span it, then raidtop's own."""
        own = self._rate(time, SPEED_WINDOW_S)
        if own is not None:
            return own
        if kernel is not None:
            return kernel
        # Neither a full window nor md's figure (mdstat-only, first readings): what was seen.
        (t0, d0, _, _), (t1, d1, _, _) = self._history[0], self._history[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 else None

    def _holder(
        self, time: float, kernel: float | None, limit: float | None, minimum: float | None, busy: bool
    ) -> tuple[str | None, float | None]:
        """Which limit holds the sync back now, and its value; ``(None, None)`` when none does."""
        if self._held(time, kernel, limit):
            return "sync_speed_max", limit
        average = kernel if kernel is not None else self._rate(time, SPEED_WINDOW_S)
        if busy and minimum and average is not None and average <= MIN_HELD_FRACTION * minimum:
            return "sync_speed_min", minimum
        return None, None

    def _free(
        self,
        clock: tuple[float, float] | None,
        time: float,
        limit: float | None,
        kernel: float | None,
        back_rate: float,
        in_flight: float,
    ) -> bool:
        """True when md is not holding the sync back: the disks set its pace."""
        if not limit:
            return True
        if clock is None:
            return not self._held(time, kernel, limit)
        marks = replay_marks(clock[0], clock[1], time, past_of(self.history, back_rate))
        slack = marks.allowed(time, limit) + OVERSHOOT_SHARE * in_flight - self._history[-1][1]
        return slack > max(in_flight, FREE_SHARE * limit)

    def _held(self, time: float, kernel: float | None, limit: float | None) -> bool:
        """True when md's window average (sync_speed, else our own) is at the limit."""
        if not limit:
            return False
        average = kernel
        if average is None:
            history = self.history
            start = max(history[0][0], time - WINDOW_S)
            done_then = interpolate([t for t, _ in history], [d for _, d in history], start)
            average = (history[-1][1] - done_then) / (time - start + 1)
        return average >= HELD_FRACTION * limit

    def _average(self) -> float:
        (t0, d0, _, _), (t1, d1, _, _) = self._history[0], self._history[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 else 0.0

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


def minimum_in_force(array: MdArray, system: RaidSpeedLimit | None) -> float | None:
    """The minimum md keeps this array's sync at under competing I/O (KiB/s)."""
    low = array.sync_speed_min if array.sync_speed_min is not None else (system.min if system else None)
    return None if low is None else float(low)


def stall_excused(array: MdArray, limit: float | None) -> bool:
    """True when the array is not meant to move: a limit of 0, a frozen sync, a read-only array."""
    return (
        (limit is not None and limit <= 0)
        or array.sysfs_sync_action == "frozen"
        or array.read_only
        or array.auto_read_only
        or array.state in ("readonly", "read-auto")
    )


class EtaTracker:
    """One :class:`SyncModel` per array, filling the ETA and achieved-rate fields of :class:`MdSync`."""

    def __init__(self) -> None:
        self._models: dict[str, SyncModel] = {}

    def apply(
        self,
        arrays: Sequence[MdArray],
        time: float,
        system: RaidSpeedLimit | None = None,
        busy: frozenset[str] = frozenset(),
    ) -> list[MdArray]:
        """Return the arrays with their forecasts set; forgets arrays that vanished.

        ``busy`` names the arrays that served other I/O since the last reading.
        """
        out = []
        for array in arrays:
            model = self._models.get(array.name)
            if model is None:
                model = self._models[array.name] = SyncModel()
            limit = limit_in_force(array, system)
            forecast = model.update(
                time,
                array.sync,
                limit,
                RESYNC_IN_FLIGHT_KIB.get(array.level or "", 0),
                minimum=minimum_in_force(array, system),
                busy=array.name in busy,
                excused=stall_excused(array, limit),
                stall_after=STALL_AFTER_S if array.source != "sysfs" else STALL_AFTER_COARSE_S,
            )
            if array.sync is not None and forecast is not None:
                array = replace(
                    array,
                    sync=replace(
                        array.sync,
                        eta_s=None if forecast.eta_s is None else round(forecast.eta_s, 1),
                        eta_basis=forecast.basis,
                        rate_kib_s=None if forecast.rate_kib_s is None else round(forecast.rate_kib_s, 1),
                        stalled=forecast.stalled_s is not None,
                        stalled_s=None if forecast.stalled_s is None else round(forecast.stalled_s, 1),
                        held_by=forecast.held_by,
                        held_limit_kib_s=forecast.held_limit_kib_s,
                        capacity_kib_s=None if forecast.capacity_kib_s is None else round(forecast.capacity_kib_s, 1),
                        recent=tuple((round(t, 3), int(d)) for t, d in model.history),
                    ),
                )
            out.append(array)
        names = {a.name for a in arrays}
        for name in [n for n in self._models if n not in names]:
            del self._models[name]
        return out
