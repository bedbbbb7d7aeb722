"""Bounded per-device histories behind the sparklines (no I/O, no Textual)."""

from __future__ import annotations

from collections import deque

from raidtop.model import Snapshot


class History:
    """Keeps the last ``length`` throughput values of each device.

    Devices that disappear are forgotten so a long session on a machine with
    churning loop devices does not grow without bound.
    """

    def __init__(self, length: int = 120) -> None:
        self.length = length
        self._throughput: dict[str, deque[float]] = {}

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

    def throughput(self, name: str) -> list[float]:
        """The device's recent read+write kB/s, oldest first."""
        series = self._throughput.get(name)
        return list(series) if series else []
