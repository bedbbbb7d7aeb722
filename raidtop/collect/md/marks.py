"""md's ring of speed marks (md_do_sync), rebuilt from the kernel's ``sync_speed`` readings.

md takes a mark (time, work done) when it checks its rate and the last mark
is :data:`MARK_STEP_S` old, keeps ten, and measures its rate from the one
ten marks back: ``work / (whole seconds + 1)``. ``sync_speed`` is the same
work over the whole seconds without the +1, so each reading tells how far
back md's mark lies; :func:`fit_marks` finds the start and step of the marks
that explain them best, for :func:`raidtop.collect.md.eta.project_finish`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Sequence

MARK_STEP_S = 3.0
MARKS = 10
"""md_do_sync's SYNC_MARK_STEP (3 s) and SYNC_MARKS (10)."""
WINDOW_S = MARK_STEP_S * (MARKS + 0.5)
"""md's speed window on average once the sync is older than it (30–33 s)."""
SLEEP_S = 0.5
"""md_do_sync's msleep(500) while over its maximum (6.1): a mark waits for the next check."""
STEP_CHOICES = (3.0, 3.1, 3.2, 3.3, 3.4, 3.5)
FIT_GRID_S = 0.1
FIT_MIN_READINGS = 4
FIT_SPAN_S = 75.0
"""The kernel readings the fit weighs: two windows and more."""


def interpolate(times: Sequence[float], values: Sequence[float], t: float) -> float:
    i = bisect_left(times, t)
    if i <= 0:
        return values[0]
    if i >= len(times):
        return values[-1]
    t0, t1 = times[i - 1], times[i]
    if t1 == t0:
        return values[i]
    return values[i - 1] + (values[i] - values[i - 1]) * (t - t0) / (t1 - t0)


class Marks:
    """md's ring of marks: ``resync`` is the one it measures its rate from."""

    __slots__ = ("ring", "resync", "last")

    def __init__(self, start: float, count: float) -> None:
        # md_do_sync fills all ten with the start; each step hands the
        # oldest to mddev->resync_mark and takes a new one.
        self.ring = deque([(start, count)] * MARKS)
        self.resync = (start, count)
        self.last = start

    def step(self, t: float, count: float) -> None:
        self.resync = self.ring.popleft()
        self.ring.append((t, count))
        self.last = t

    def allowed(self, t: float, limit: float) -> float:
        """The progress at which md's rate, work / (whole seconds + 1), passes ``limit``."""
        mark, count = self.resync
        return count + limit * (math.floor(t - mark) + 1)


def past_of(history: Sequence[tuple[float, float]], back_rate: float) -> Callable[[float], float]:
    """Progress at any past time: the readings, before them a line at ``back_rate``."""
    times = [t for t, _ in history]
    dones = [d for _, d in history]
    first_t, first_d = history[0]

    def past(t: float) -> float:
        if t < first_t:
            return max(0.0, first_d - back_rate * (first_t - t))
        return interpolate(times, dones, t)

    return past


def replay_marks(start: float, step: float, until: float, past: Callable[[float], float]) -> Marks:
    marks = Marks(start, past(start))
    k = 1
    while start + k * step <= until:
        marks.step(start + k * step, past(start + k * step))
        k += 1
    return marks


def start_of(history: Sequence[tuple[float, float]], back_rate: float) -> float:
    """When the sync began, if progress before the first reading was linear at ``back_rate``."""
    first_t, first_d = history[0]
    return first_t - first_d / back_rate if back_rate > 0 else first_t - 10 * WINDOW_S


def fit_marks(
    readings: Sequence[tuple[float, float, float | None]], back_rate: float, near: tuple[float, float] | None = None
) -> tuple[float, float] | None:
    """``(start, step)`` of md's marks that best explain the kernel's ``sync_speed`` readings.

    ``readings`` are ``(time, done, sync_speed)``. sync_speed is md's
    progress since its mark over whole seconds since it, so its jumps and
    its decay while md waits date the marks to a tenth of a second; the step
    is fitted too because md takes a mark only when it next checks, up to a
    :data:`SLEEP_S` late. ``near``, the last fit, narrows the search to its
    neighbours. ``None`` with too few readings.
    """
    usable = [(t, d, s) for t, d, s in readings if s and t >= readings[-1][0] - FIT_SPAN_S]
    if len(usable) < FIT_MIN_READINGS:
        return None
    history = [(t, d) for t, d, _ in readings]
    past = past_of(history, back_rate)
    first_t, now = history[0][0], history[-1][0]
    start = start_of(history, back_rate)
    best: tuple[float, float, float] | None = None
    for step in STEP_CHOICES:
        if start > now - 2 * MARKS * step:
            # A young sync: its start is still in md's marks, search around it.
            starts = [min(first_t, start + FIT_GRID_S * i) for i in range(-30, 16)]
        else:
            # An old one: only the marks' phase matters.
            anchor = first_t - 2 * MARKS * step
            starts = [anchor - FIT_GRID_S * i for i in range(int(step / FIT_GRID_S))]
        if near is not None:
            if abs(step - near[1]) > 0.15:
                continue
            starts = [near[0] + FIT_GRID_S * i for i in range(-3, 4)]
        for candidate in starts:
            cost = _fit_cost(candidate, step, usable, past)
            if best is None or cost < best[0]:
                best = (cost, candidate, step)
    return None if best is None else (best[1], best[2])


def _fit_cost(
    start: float, step: float, usable: Sequence[tuple[float, float, float]], past: Callable[[float], float]
) -> float:
    marks = Marks(start, past(start))
    k, cost = 1, 0.0
    for t, d, speed in usable:
        while start + k * step <= t:
            marks.step(start + k * step, past(start + k * step))
            k += 1
        mark, count = marks.resync
        predicted = (d - count) / max(1, math.floor(t - mark))
        cost += ((predicted - speed) / speed) ** 2
    return cost
