"""What the dashboard hears from the app's flows, and what it asks of the app.

The recorder, the replay player and the demo stage post the first kind to
the dashboard, which sets its own widgets; the dashboard posts the second
kind, which bubble to the app. Nobody outside the dashboard touches its
widgets.
"""

from __future__ import annotations

from textual.message import Message

from raidtop.latency.summary import MemberLatency


class SourceChanged(Message):
    """The status line's badge and host: what the numbers come from (REC, REPLAY, DEMO).

    ``None`` leaves that part as it is.
    """

    def __init__(self, badge: str | None = None, host: str | None = None) -> None:
        super().__init__()
        self.badge = badge
        self.host = host


class ReplayLoaded(Message):
    """A recording is about to play: show the time bar with its span and its event and action marks."""

    def __init__(self, start: float, end: float, markers: tuple[tuple[float, str], ...]) -> None:
        super().__init__()
        self.start = start
        self.end = end
        self.markers = markers


class ReplayMoved(Message):
    """The replay's position, play state or speed changed."""

    def __init__(self, position: float, playing: bool, speed: float) -> None:
        super().__init__()
        self.position = position
        self.playing = playing
        self.speed = speed

    def can_replace(self, message: Message) -> bool:
        # Fast play moves many times a frame: only the newest place matters.
        return isinstance(message, ReplayMoved)


class SamplingChanged(Message):
    """Sampling was paused or resumed, or its interval changed."""

    def __init__(self, paused: bool, interval: float) -> None:
        super().__init__()
        self.paused = paused
        self.interval = interval


class ShowMembers(Message):
    """Open ``array``'s member grid, where the member keys act (the demo's array, the lab's "members")."""

    def __init__(self, array: str) -> None:
        super().__init__()
        self.array = array


class DashboardShown(Message):
    """The dashboard painted its first frame: sampling may start (bubbles to the app)."""


class SampleWanted(Message):
    """What is on screen changed what a sample reads: take one now (bubbles to the app)."""


class DemoDiskBad(Message):
    """Demo only: give a survivor of the demo array pending sectors (bubbles to the app).

    ``highlighted`` is the member under the cursor: never the one that goes bad, as the next key fails it.
    """

    def __init__(self, highlighted: str | None) -> None:
        super().__init__()
        self.highlighted = highlighted


class StageSet(Message):
    """The demo's stage: its simulated array, presenter mode on or off, and where the rest of the numbers come from.

    In presenter mode the dashboard shows only ``array``, its narration and the steps' keys.
    """

    def __init__(self, array: str, present: bool, source: str) -> None:
        super().__init__()
        self.array = array
        self.present = present
        self.source = source


class LatencyChanged(Message):
    """The member grid's latency columns: this interval's p50/p99/max per device (``None``: no distribution)."""

    def __init__(self, latencies: dict[str, MemberLatency] | None) -> None:
        super().__init__()
        self.latencies = latencies
