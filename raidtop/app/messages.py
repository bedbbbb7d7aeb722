"""Messages that carry data from the sampler worker (and the uevent watcher) to the app."""

from __future__ import annotations

from textual.message import Message

from raidtop.latency.histogram import Log2Histogram
from raidtop.model.snapshot import Snapshot


class SnapshotReady(Message):
    """A new snapshot; a newer one replaces a stale one still in the queue."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def can_replace(self, message: Message) -> bool:
        # A burst of samples (after a stall) must not build a backlog.
        return isinstance(message, SnapshotReady)


class SamplingFailed(Message):
    """A sample raised (a bug in a reader): said in a notification, and sampling goes on."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class DeviceEvent(Message):
    """A block device was added, removed or changed (from udev or the kernel)."""

    def __init__(self, action: str, device: str) -> None:
        super().__init__()
        self.action = action
        self.device = device


class LatencySampled(Message):
    """One interval's latency histograms per device from the shared tracer (``None``: none any more)."""

    def __init__(self, hists: dict[str, Log2Histogram] | None) -> None:
        super().__init__()
        self.hists = hists


class LatencySaid(Message):
    """A sentence of the latency feed: what it loads into the kernel, or why nothing (a warning: it stopped)."""

    def __init__(self, text: str, warning: bool) -> None:
        super().__init__()
        self.text = text
        self.warning = warning
