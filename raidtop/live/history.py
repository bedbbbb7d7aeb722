"""Ring buffers (bounded deques) behind sparklines, sync plots and the event timeline.

No I/O, no Textual: the app feeds it snapshots, widgets read from it.
"""

from __future__ import annotations

from array import array as DoubleRing
from collections import deque

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.disk_columns import disk_names, rate_column
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdEvent


@frozen_dataclass
class SyncPoint:
    """One sample of an array's sync: when, how far, how fast."""

    time: float
    action: str | None
    percent: float | None
    speed_kib_s: float | None
    eta_s: float | None


DISK_TREND_SAMPLES = 12
"""How many samples of each device's throughput are kept: what the Disks panel's sparkline shows.

A longer ring would cost memory a device (at 500 devices, 120 samples kept
430 KB that nothing read) and show nothing more.
"""


class History:
    """Keeps the last ``length`` samples per device and per array, and every event.

    Devices and arrays that disappear are forgotten so a long session on a
    machine with churning loop devices does not grow without bound; events
    are kept (up to ``max_events``) because the timeline is the point.
    """

    def __init__(self, length: int = DISK_TREND_SAMPLES, sync_length: int = 3600, max_events: int = 2000) -> None:
        self.length = length
        # One preallocated ring of C doubles per device, all written at the same
        # slot each tick: no per-sample objects kept, whatever the device count.
        self._throughput: dict[str, DoubleRing] = {}
        self._first_tick: dict[str, int] = {}
        self._tick = -1
        self._sync: dict[str, deque[SyncPoint]] = {}
        self._sync_length = sync_length
        self.events: deque[MdEvent] = deque(maxlen=max_events)

    def add(self, snap: Snapshot) -> None:
        """Append one snapshot's values."""
        self._tick += 1
        tick, slot, length = self._tick, self._tick % self.length, self.length
        rings, first = self._throughput, self._first_tick
        # From the columns: no per-device object is made for the history.
        names = disk_names(snap.disks)
        for name, value in zip(names, rate_column(snap.disks, "throughput_kib_s")):
            ring = rings.get(name)
            if ring is None:
                ring = rings[name] = DoubleRing("d", bytes(8 * length))
                first[name] = tick
            ring[slot] = 0.0 if value is None or snap.since_boot else value
        # Every device of this snapshot has a ring now, so more rings means some went.
        if len(rings) > len(names):
            for gone in rings.keys() - set(names):
                del rings[gone], first[gone]
        arrays = set()
        for array in snap.arrays:
            arrays.add(array.name)
            sync = array.sync
            # Only a sync's samples: an idle array's would fill the ring with
            # nothing to plot (3600 a array, 0.5 MB, within half an hour at 0.5 s).
            if sync is None or sync.percent is None:
                continue
            points = self._sync.setdefault(array.name, deque(maxlen=self._sync_length))
            points.append(SyncPoint(snap.time, sync.action, sync.percent, sync.speed_kib_s, sync.eta_s))
        for gone in self._sync.keys() - arrays:
            del self._sync[gone]
        self.events.extend(snap.events)

    def set_events(self, events: list[MdEvent]) -> None:
        """Replace the event list (a replay's events follow its position, not the path to it)."""
        self.events = deque(events, maxlen=self.events.maxlen)

    def throughput(self, name: str) -> list[float]:
        """The device's recent read+write KiB/s, oldest first."""
        return list(self.recent(name, self.length))

    def recent(self, name: str, count: int) -> tuple[float, ...]:
        """The device's last ``count`` (or fewer) read+write KiB/s values, oldest first."""
        ring = self._throughput.get(name)
        if ring is None:
            return ()
        count = min(count, self._tick - self._first_tick[name] + 1, self.length)
        end = self._tick % self.length + 1
        if count <= end:
            return tuple(ring[end - count : end])
        return tuple(ring[end - count :]) + tuple(ring[:end])

    def sync(self, array: str) -> list[SyncPoint]:
        """The array's samples of a sync under way (a percent known), oldest first; the last sync's stay."""
        return list(self._sync.get(array, ()))

    def events_of(self, array: str | None = None) -> list[MdEvent]:
        """Events of one array (or all), oldest first."""
        return [e for e in self.events if array is None or e.array == array]
