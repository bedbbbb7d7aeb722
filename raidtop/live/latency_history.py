"""The latency histograms of recent intervals per device: what the heat map draws and the grid summarises.

No I/O, no Textual. The app adds each interval's histograms as the tracer
hands them over; a fixed number of intervals is kept per device, so a long
session costs the same memory as a short one, and a device not seen for that
many intervals is forgotten.
"""

from __future__ import annotations

from collections import deque

from raidtop.latency.histogram import Log2Histogram
from raidtop.latency.summary import Interval, MemberLatency, summarize

INTERVALS = 240
"""Intervals kept per device: four minutes at the default 1 s, wider than any terminal's heat map."""


class LatencyHistory:
    """Per device, the last :data:`INTERVALS` intervals' histograms, and the latest interval's summary.

    Args:
        length: intervals kept per device.
    """

    def __init__(self, length: int = INTERVALS) -> None:
        self.length = max(1, length)
        self._series: dict[str, deque[Interval]] = {}
        self._latest: dict[str, MemberLatency] | None = None
        self._seen: dict[str, int] = {}
        self._tick = 0

    @property
    def latest(self) -> dict[str, MemberLatency] | None:
        """The last interval's p50/p99/max per device; ``None`` while no distribution is sampled."""
        return self._latest

    @property
    def sampling(self) -> bool:
        """A tracer feeds it now (its first interval may still be on its way)."""
        return self._latest is not None

    def add(self, hists: dict[str, Log2Histogram] | None, now: float) -> None:
        """One interval's histograms (``{}``: attached, nothing yet; ``None``: the tracer stopped)."""
        if hists is None:
            self._latest = None
            return
        self._latest = {name: summarize(h) for name, h in hists.items()}
        if not hists:
            return
        self._tick += 1
        for name, hist in hists.items():
            series = self._series.get(name)
            if series is None:
                series = self._series[name] = deque(maxlen=self.length)
            series.append(Interval(now, hist))
            self._seen[name] = self._tick
        # Bounded across devices too: one missing for a whole window of intervals is forgotten.
        for name in [n for n, tick in self._seen.items() if self._tick - tick >= self.length]:
            del self._series[name], self._seen[name]

    def series(self, name: str) -> tuple[Interval, ...]:
        """The device's kept intervals, oldest first (``()`` when never traced)."""
        return tuple(self._series.get(name, ()))
