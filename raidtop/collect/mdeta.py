"""raidtop's own sync ETA: smoothed from progress over the last minutes.

The kernel's ``finish=`` divides what is left by the rate over its last few
sync marks (seconds), so it swings whenever other I/O competes or the
speed limits kick in. raidtop estimates the rate as an exponentially
weighted ratio of *work done* to *time spent*::

    work  <- work  * exp(-dt / tau) + d(done_kib)
    span  <- span  * exp(-dt / tau) + dt
    rate   = work / span,   eta = (total_kib - done_kib) / rate

Why this rather than an EWMA of per-interval speeds or a least-squares fit:

* Weighting by time spent makes it independent of the sampling interval: a
  missed or late sample merges into the next one instead of counting as a
  burst, which an EWMA of speeds gets wrong.
* It starts exactly as the cumulative average (the least noisy estimate
  from a few samples) and becomes a sliding window of about ``tau`` seconds,
  so it needs no warm-up special case and no window buffer (a fit over a
  window keeps every sample and jumps when an outlier leaves the window).
* One jittery interval moves the rate by about dt/tau of its deviation, so
  with tau = 120 s a second-long spike of +30 % moves the ETA by a quarter
  of a percent.

The estimate resets when the sync action or its denominator changes, or
when progress goes backwards (a restarted sync), and is ``None`` until
``min_span_s`` of progress has been seen.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from raidtop.model_md import MdArray, MdSync


class EtaEstimator:
    """Smoothed time-to-finish for one array's sync."""

    __slots__ = ("tau_s", "min_span_s", "_key", "_last_time", "_last_done", "_work", "_span", "_seen_s")

    def __init__(self, tau_s: float = 120.0, min_span_s: float = 10.0) -> None:
        self.tau_s = tau_s
        self.min_span_s = min_span_s
        self.reset()

    def reset(self) -> None:
        """Forget everything; the next sample starts a new estimate."""
        self._key: tuple[str, int] | None = None
        self._last_time = 0.0
        self._last_done = 0
        self._work = 0.0
        self._span = 0.0
        self._seen_s = 0.0

    def update(self, time: float, sync: MdSync | None) -> float | None:
        """Feed one reading taken at ``time`` (seconds); return the ETA in seconds or ``None``."""
        if sync is None or not sync.running or sync.done_kib is None or not sync.total_kib:
            self.reset()
            return None
        key = (sync.action, sync.total_kib)
        if key != self._key or sync.done_kib < self._last_done:
            self.reset()
            self._key, self._last_time, self._last_done = key, time, sync.done_kib
            return None
        dt = time - self._last_time
        if dt > 0:
            decay = math.exp(-dt / self.tau_s)
            self._work = self._work * decay + (sync.done_kib - self._last_done)
            self._span = self._span * decay + dt
            self._seen_s += dt
            self._last_time, self._last_done = time, sync.done_kib
        if self._seen_s < self.min_span_s or self._work <= 0:
            return None
        rate_kib_s = self._work / self._span
        return max(0.0, (sync.total_kib - sync.done_kib) / rate_kib_s)

    @property
    def rate_kib_s(self) -> float | None:
        """The smoothed rate behind the ETA, for plots; ``None`` before there is one."""
        if self._span <= 0 or self._work <= 0:
            return None
        return self._work / self._span


class EtaTracker:
    """One :class:`EtaEstimator` per array, filling :attr:`MdSync.eta_s`."""

    def __init__(self, tau_s: float = 120.0, min_span_s: float = 10.0) -> None:
        self.tau_s = tau_s
        self.min_span_s = min_span_s
        self._estimators: dict[str, EtaEstimator] = {}

    def apply(self, arrays: Sequence[MdArray], time: float) -> list[MdArray]:
        """Return the arrays with ``sync.eta_s`` set; forgets arrays that vanished."""
        out = []
        for array in arrays:
            estimator = self._estimators.get(array.name)
            if estimator is None:
                estimator = self._estimators[array.name] = EtaEstimator(self.tau_s, self.min_span_s)
            eta = estimator.update(time, array.sync)
            if array.sync is not None and eta is not None:
                array = replace(array, sync=replace(array.sync, eta_s=round(eta, 1)))
            out.append(array)
        names = {a.name for a in arrays}
        for name in [n for n in self._estimators if n not in names]:
            del self._estimators[name]
        return out
