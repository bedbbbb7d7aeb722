"""The app's one latency tracer, shared by every view that shows latency, running only while one is visible.

:class:`LatencyFeed` is owned by the app and owns at most one
:class:`~raidtop.latency.tracer.LatencyTracer` (its process and reader thread).
Views register interest by name ("members" for the dashboard's member grid,
"detail" for the array detail's heat map) with the devices they show and drop
it when they close or are covered; the feed traces the union, restarts the
tracer when the union changes and stops it when nobody is interested, and the
app stops it at exit — so a closed view costs no process and no thread.
Before the first start it says, once, what it loads into the kernel and why;
where it cannot (no bpftrace, no root, no tracefs) it says once why the slow
mark stays on the average await. On numbers that are not this machine's live
ones (a replay, the demo, another root) it never starts and says nothing.

No Textual: the app hands in the two callbacks, which post its messages (the
tracer's thread reaches the UI only that way).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from raidtop.config import Config

from raidtop.latency.histogram import Log2Histogram
from raidtop.presentation.member_latency import BASIS_AWAIT, BASIS_WORDS
from raidtop.untrusted import plain

if TYPE_CHECKING:  # the tracer's module is imported when a view first wants a distribution
    from raidtop.latency.tracer import LatencyTracer

Sampled = Callable[[dict[str, Log2Histogram] | None], object]
"""Called (from any thread) with each interval's histograms by device; ``None``: no distribution any more."""
Said = Callable[[str, bool], object]
"""Called (from any thread) with a sentence for the user and whether it is a warning."""

NOT_LIVE = {
    "replay": "a replay shows recorded numbers: bpftrace measures this machine now, so there is no distribution",
    "demo": "the demo's disks are simulated: there is nothing to trace",
    "root": "the numbers come from another root (--root), not this machine's kernel: nothing to trace",
}
"""Why there is no distribution when the numbers are not this machine's live ones, by what they are."""


def not_live(config: Config, demo: bool) -> str | None:
    """What the app's numbers are when they are not this machine's live ones (a key of :data:`NOT_LIVE`)."""
    if demo:
        return "demo"
    if config.replay is not None:
        return "replay"
    return None if Path(config.root) == Path("/") else "root"


class LatencyFeed:
    """Starts, restarts and stops the shared tracer as the visible latency views come and go.

    Args:
        not_live: ``None`` on this machine's live numbers, else a key of :data:`NOT_LIVE`.
        interval_s: seconds between histograms (the sampling interval, rounded, 1 to 60).
        sampled: where each interval's histograms go (the app posts them as a message).
        said: where the feed's sentences go (the app posts them as a message).
        tracer: makes a tracer (tests may give another; None: :class:`LatencyTracer`).
    """

    def __init__(
        self,
        not_live: str | None,
        interval_s: float,
        sampled: Sampled,
        said: Said,
        tracer: Callable[..., LatencyTracer] | None = None,
    ) -> None:
        self._not_live = not_live
        self._interval_s = max(1, min(60, round(interval_s)))
        self._sampled = sampled
        self._said = said
        self._make_tracer = tracer
        self._wants: dict[str, frozenset[str]] = {}
        self._traced: frozenset[str] = frozenset()
        self._tracer: LatencyTracer | None = None
        self._told = False
        self._reason: str | None = None

    @property
    def tracer(self) -> LatencyTracer | None:
        """The running tracer, if any (tests look at its process)."""
        return self._tracer

    @property
    def interval_s(self) -> int:
        """Seconds per histogram (one heat-map column)."""
        return self._interval_s

    @property
    def devices(self) -> frozenset[str]:
        """What is traced now: every interested view's devices."""
        return self._traced

    def unavailable(self) -> str | None:
        """Why no distribution can be had here, as a sentence; ``None`` when the tracer can run."""
        if self._not_live is not None:
            return NOT_LIVE[self._not_live]
        if self._reason is None:
            from raidtop.latency.tracer import why_unavailable

            self._reason = why_unavailable() or ""
        return self._reason or None

    def want(self, viewer: str, devices: frozenset[str]) -> None:
        """``viewer`` shows the latency of exactly ``devices`` from now on (empty: it shows none)."""
        if devices:
            self._wants[viewer] = devices
        else:
            self._wants.pop(viewer, None)
        self._follow()

    def release(self, viewer: str) -> None:
        """``viewer`` closed or is covered: it shows no latency until it wants some again."""
        self.want(viewer, frozenset())

    def stop(self) -> None:
        """Nobody is interested any more (the app is leaving): end the tracer."""
        self._wants.clear()
        self._traced = frozenset()
        self._stop_tracer()

    def _follow(self) -> None:
        devices = frozenset().union(*self._wants.values())
        if devices == self._traced:
            return
        self._traced = devices
        self._stop_tracer()
        if not devices:
            self._sampled(None)
            return
        if self._not_live is not None:
            return  # nothing of this machine to trace, nothing to say: the views say why when asked
        reason = self.unavailable()
        if reason is not None:
            self._say_once(f"No latency distributions: {reason}; {BASIS_WORDS[BASIS_AWAIT]}.")
            return
        from raidtop.latency.program import WHAT_IT_LOADS
        from raidtop.latency.tracer import LatencyTracer

        self._say_once(WHAT_IT_LOADS.format(devices=", ".join(plain(d) for d in sorted(devices))))
        make: Callable[..., LatencyTracer] = self._make_tracer or LatencyTracer
        tracer = make(sorted(devices), self._interval_s, self._sampled, self._ended)
        self._tracer = tracer
        tracer.start()

    def _say_once(self, text: str) -> None:
        if not self._told:
            self._told = True
            self._said(text, False)

    def _stop_tracer(self) -> None:
        tracer, self._tracer = self._tracer, None
        if tracer is not None:
            tracer.stop()

    def _ended(self, reason: str) -> None:
        # The tracer's thread: the callbacks post messages, the one thread-safe way to the UI.
        if reason:
            self._said(f"Latency distributions stopped: {reason}", True)
            self._sampled(None)
