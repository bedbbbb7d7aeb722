"""Ring buffers (bounded deques) behind sparklines, sync plots and the event timeline.

No I/O, no Textual: the app feeds it snapshots, widgets read from it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from raidtop.model import Snapshot
from raidtop.model_md import MdEvent


@dataclass(frozen=True, slots=True)
class SyncPoint:
    """One sample of an array's sync: when, how far, how fast."""

    time: float
    action: str | None
    percent: float | None
    speed_kib_s: float | None
    eta_s: float | None


class History:
    """Keeps the last ``length`` samples per device and per array, and every event.

    Devices and arrays that disappear are forgotten so a long session on a
    machine with churning loop devices does not grow without bound; events
    are kept (up to ``max_events``) because the timeline is the point.
    """

    def __init__(self, length: int = 120, sync_length: int = 3600, max_events: int = 2000) -> None:
        self.length = length
        self._throughput: dict[str, deque[float]] = {}
        self._sync: dict[str, deque[SyncPoint]] = {}
        self._sync_length = sync_length
        self.events: deque[MdEvent] = deque(maxlen=max_events)

    def add(self, snap: Snapshot) -> None:
        """Append one snapshot's values."""
        seen = set()
        for disk in snap.disks:
            seen.add(disk.name)
            series = self._throughput.get(disk.name)
            if series is None:
                series = self._throughput[disk.name] = deque(maxlen=self.length)
            value = disk.throughput_kb_s
            series.append(0.0 if value is None or snap.since_boot else value)
        for gone in self._throughput.keys() - seen:
            del self._throughput[gone]
        arrays = set()
        for array in snap.arrays:
            arrays.add(array.name)
            points = self._sync.setdefault(array.name, deque(maxlen=self._sync_length))
            sync = array.sync
            points.append(
                SyncPoint(
                    snap.time,
                    sync.action if sync else None,
                    sync.percent if sync else None,
                    sync.speed_kib_s if sync else None,
                    sync.eta_s if sync else None,
                )
            )
        for gone in self._sync.keys() - arrays:
            del self._sync[gone]
        self.events.extend(snap.events)

    def set_events(self, events: list[MdEvent]) -> None:
        """Replace the event list (a replay's events follow its position, not the path to it)."""
        self.events = deque(events, maxlen=self.events.maxlen)

    def throughput(self, name: str) -> list[float]:
        """The device's recent read+write kB/s, oldest first."""
        series = self._throughput.get(name)
        return list(series) if series else []

    def sync(self, array: str) -> list[SyncPoint]:
        """The array's sync samples, oldest first."""
        return list(self._sync.get(array, ()))

    def events_of(self, array: str | None = None) -> list[MdEvent]:
        """Events of one array (or all), oldest first."""
        return [e for e in self.events if array is None or e.array == array]
