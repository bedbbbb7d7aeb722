"""Latency distributions while a member grid is open: one bpftrace for the members on screen, none otherwise.

:class:`LatencyWatch` is an invisible widget of the dashboard that owns at
most one :class:`~raidtop.latency.tracer.LatencyTracer`. The Arrays panel says
which member devices its open grids show; the watch starts a tracer for them,
restarts it when they change, and stops it when no grid is open, while another
screen covers the dashboard (Tuning, the Lab, an array detail...), when the
screen unmounts (``q``, SIGHUP and SIGTERM end the app through it) — so a
closed grid costs no process and no thread. Before the first start it says,
once, what it loads into the kernel and why; where it cannot (no bpftrace, no
root, no tracefs) it says, once, that the slow mark stays on the average
await. On numbers that are not this machine's live ones (a replay, the demo,
another root) it never starts and says nothing: there is nothing here to trace.
The tracer's thread reaches the UI only through :meth:`post_message`.
"""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget

from raidtop.latency.histogram import Log2Histogram
from raidtop.latency.program import WHAT_IT_LOADS
from raidtop.latency.summary import MemberLatency, summarize
from raidtop.latency.tracer import LatencyTracer, why_unavailable
from raidtop.presentation.member_latency import BASIS_WORDS, BASIS_AWAIT
from raidtop.untrusted import plain


class LatencyWatch(Widget):
    """Samples the shown members' latency distributions with bpftrace, only while a grid shows them.

    Args:
        live_machine: the dashboard shows this machine's live numbers (root ``/``, no replay, no demo).
        interval_s: seconds between histograms (the sampling interval, rounded, 1 to 60).
    """

    DEFAULT_CSS = "LatencyWatch { display: none; }"

    class Sampled(Message):
        """This interval's latency per member device (``None``: no distribution any more)."""

        def __init__(self, latencies: dict[str, MemberLatency] | None) -> None:
            super().__init__()
            self.latencies = latencies

    class Said(Message):
        """A sentence for the user: what is loaded into the kernel, or why nothing is."""

        def __init__(self, text: str, warning: bool = False) -> None:
            super().__init__()
            self.text = text
            self.warning = warning

    def __init__(self, live_machine: bool, interval_s: float, **kwargs) -> None:
        super().__init__(**kwargs)
        self._live_machine = live_machine
        self._interval_s = max(1, min(60, round(interval_s)))
        self._tracer: LatencyTracer | None = None
        self._wanted: frozenset[str] = frozenset()
        self._told = False
        self._suspended = False

    @property
    def tracer(self) -> LatencyTracer | None:
        """The running tracer, if any (tests look at its process)."""
        return self._tracer

    def want(self, devices: frozenset[str]) -> None:
        """Trace exactly ``devices`` from now on (empty: stop)."""
        if devices == self._wanted:
            return
        self._wanted = devices
        if not self._suspended:
            self._restart()

    def suspend(self, suspended: bool) -> None:
        """Another screen covers the dashboard (True): the grid is not seen, so nothing is traced."""
        if suspended != self._suspended:
            self._suspended = suspended
            self._restart()

    def _restart(self) -> None:
        self._stop()
        devices = frozenset() if self._suspended else self._wanted
        if not devices:
            self.post_message(self.Sampled(None))
            return
        if not self._live_machine:
            return  # a replay, the demo or a fixture root: nothing of this machine to trace, nothing to say
        reason = why_unavailable()
        if reason is not None:
            self._say_once(f"No latency distributions: {reason}; {BASIS_WORDS[BASIS_AWAIT]}.", warning=False)
            return
        self._say_once(WHAT_IT_LOADS.format(devices=", ".join(plain(d) for d in sorted(devices))))
        tracer = LatencyTracer(sorted(devices), self._interval_s, self._sampled, self._ended)
        self._tracer = tracer
        tracer.start()

    def _say_once(self, text: str, warning: bool = False) -> None:
        if not self._told:
            self._told = True
            self.post_message(self.Said(text, warning))

    def _stop(self) -> None:
        tracer, self._tracer = self._tracer, None
        if tracer is not None:
            tracer.stop()

    def _sampled(self, hists: dict[str, Log2Histogram]) -> None:
        # The tracer's thread: only post_message is safe from here.
        self.post_message(self.Sampled({name: summarize(h) for name, h in hists.items()}))

    def _ended(self, reason: str) -> None:
        if reason:
            self.post_message(self.Said(f"Latency distributions stopped: {reason}", warning=True))
            self.post_message(self.Sampled(None))

    def on_unmount(self) -> None:
        self._stop()
