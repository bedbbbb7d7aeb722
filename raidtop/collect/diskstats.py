"""Parse /proc/diskstats.

psutil's ``disk_io_counters`` drops field 11 (weighted time in queue, ``rq_ticks``)
which ``aqu-sz`` needs, and the discard/flush fields, so raidtop reads the file.
"""

from __future__ import annotations

from typing import cast

from raidtop.model.snapshot import DiskCounters

# Field counts the kernel has printed: 14 (before 4.18; old kernels printed 7
# for partitions, which carry too little for iostat -x), 18 (discards, 4.18)
# and 20 (flushes, 5.5).
_MIN_FIELDS = 14
_KERNEL_FIELD_COUNTS = frozenset({14, 18, 20})


class DiskstatsParser:
    """Parses /proc/diskstats, reusing the result for lines that did not change.

    On a machine with thousands of mostly idle devices, most lines are
    byte-identical between samples; remembering the last parse of each line
    turns the common case into one dict lookup per line.
    """

    def __init__(self) -> None:
        # line -> its counters, for every usable line of the last read
        self._previous: dict[str, DiskCounters] = {}
        # the subset of those lines whose field count the kernel never prints
        self._odd: frozenset[str] = frozenset()
        # name -> (major, minor) of the devices of the last read
        self._numbers: dict[str, tuple[int, int]] = {}
        self.devices: list[DiskCounters] = []
        """The devices the last :meth:`parse` returned."""
        self.same_devices = False
        """True when those are the same names and numbers as the read before (counters aside)."""

    def parse(self, text: str) -> tuple[list[DiskCounters], list[str]]:
        """Return the devices in ``text`` and notes on lines that could not be used."""
        lines = text.splitlines()
        table = self._previous
        odd: frozenset[str] | set[str] = self._odd
        notes: list[str] = []
        unusable = False
        # Set and map operations run in C: with thousands of devices, only the
        # lines that changed since the last read cost any Python work.
        fresh = set(lines).difference(table)
        if fresh:
            table, grown = dict(table), set(odd)
            for line in [line for line in lines if line in fresh]:
                parts = line.split()
                counters = _parse_fields(parts, line, notes) if parts else None
                if counters is None:
                    unusable = True
                    continue
                table[line] = counters
                if len(parts) not in _KERNEL_FIELD_COUNTS:
                    grown.add(line)
            odd = grown
        found = list(map(table.get, lines))
        if unusable:
            kept = [(line, counters) for line, counters in zip(lines, found) if counters is not None]
            self._previous = dict(kept)
            disks = [counters for _, counters in kept]
        else:
            disks = cast(list[DiskCounters], found)  # every line parsed: no None among them
            self._previous = dict(zip(lines, disks))
        self._note_devices(disks, [table[line] for line in fresh if line in table])
        odd_lines = 0
        if odd:
            odd_lines = sum(line in odd for line in lines)
            odd = odd.intersection(self._previous)
        self._odd = frozenset(odd)
        if odd_lines:
            # Said once per read (not per line, and also for cached lines) so a
            # future kernel's longer lines give one steady note, not a flood.
            notes.append(
                f"/proc/diskstats: {odd_lines} line(s) with a field count the kernel does not print "
                "(14, 18 or 20); read the fields raidtop knows"
            )
        if not disks and not notes:
            notes.append("/proc/diskstats: no devices listed")
        return disks, notes

    def _note_devices(self, disks: list[DiskCounters], changed: list[DiskCounters]) -> None:
        """Work out :attr:`same_devices` from the lines that changed, not from every device."""
        numbers = self._numbers
        same = len(disks) == len(self.devices) and all(numbers.get(c.name) == (c.major, c.minor) for c in changed)
        if not same:
            self._numbers = {d.name: (d.major, d.minor) for d in disks}
        self.devices, self.same_devices = disks, same


def parse_diskstats(text: str) -> tuple[list[DiskCounters], list[str]]:
    """Parse a whole /proc/diskstats text (stateless convenience)."""
    return DiskstatsParser().parse(text)


def _parse_fields(parts: list[str], line: str, notes: list[str]) -> DiskCounters | None:
    if len(parts) < _MIN_FIELDS:
        notes.append(f"/proc/diskstats: short line skipped: {line.strip()[:60]!r}")
        return None
    try:
        numbers = list(map(int, parts[3:]))
        major, minor = int(parts[0]), int(parts[1])
    except ValueError:
        notes.append(f"/proc/diskstats: non-numeric line skipped: {line.strip()[:60]!r}")
        return None
    if min(numbers) < 0:
        notes.append(f"/proc/diskstats: negative counter in line for {parts[2]!r}, skipped")
        return None
    if not parts[2].isprintable() or parts[2] in (".", "..") or parts[2].startswith("/"):
        # The name becomes a sysfs path; a damaged one must not point elsewhere.
        notes.append(f"/proc/diskstats: unusable device name {parts[2][:30]!r}, line skipped")
        return None
    n = len(numbers)
    if n >= 17:
        return DiskCounters(major, minor, parts[2], *numbers[:17])  # every field of kernel 5.5+
    return DiskCounters(
        major,
        minor,
        parts[2],
        *numbers[:11],
        *(numbers[11:15] if n >= 15 else (None, None, None, None)),
        *(numbers[15:17] if n >= 17 else (None, None)),
    )
