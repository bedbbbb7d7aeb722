"""Parse /proc/diskstats.

psutil's ``disk_io_counters`` drops field 11 (weighted time in queue, ``rq_ticks``)
which ``aqu-sz`` needs, and the discard/flush fields, so raidtop reads the file.
"""

from __future__ import annotations

from raidtop.model import DiskCounters

# Field counts the kernel has printed: 14 (before 4.18; old kernels printed 7
# for partitions, which carry too little for iostat -x), 18 (discards, 4.18)
# and 20 (flushes, 5.5).
_MIN_FIELDS = 14


class DiskstatsParser:
    """Parses /proc/diskstats, reusing the result for lines that did not change.

    On a machine with thousands of mostly idle devices, most lines are
    byte-identical between samples; remembering the last parse of each line
    turns the common case into one dict lookup per line.
    """

    def __init__(self) -> None:
        self._previous: dict[str, DiskCounters] = {}

    def parse(self, text: str) -> tuple[list[DiskCounters], list[str]]:
        """Return the devices in ``text`` and notes on lines that could not be used."""
        previous = self._previous
        current: dict[str, DiskCounters] = {}
        disks: list[DiskCounters] = []
        notes: list[str] = []
        for line in text.splitlines():
            counters = previous.get(line)
            if counters is None:
                if not line.strip():
                    continue
                counters = _parse_line(line, notes)
                if counters is None:
                    continue
            current[line] = counters
            disks.append(counters)
        self._previous = current
        return disks, notes


def parse_diskstats(text: str) -> tuple[list[DiskCounters], list[str]]:
    """Parse a whole /proc/diskstats text (stateless convenience)."""
    return DiskstatsParser().parse(text)


def _parse_line(line: str, notes: list[str]) -> DiskCounters | None:
    parts = line.split()
    if len(parts) < _MIN_FIELDS:
        notes.append(f"/proc/diskstats: short line skipped: {line.strip()[:60]!r}")
        return None
    try:
        numbers = [int(p) for p in parts[3:]]
        major, minor = int(parts[0]), int(parts[1])
    except ValueError:
        notes.append(f"/proc/diskstats: non-numeric line skipped: {line.strip()[:60]!r}")
        return None
    if any(n < 0 for n in numbers):
        notes.append(f"/proc/diskstats: negative counter in line for {parts[2]}, skipped")
        return None
    n = len(numbers)
    return DiskCounters(
        major,
        minor,
        parts[2],
        *numbers[:11],
        *(numbers[11:15] if n >= 15 else (None, None, None, None)),
        *(numbers[15:17] if n >= 17 else (None, None)),
    )
