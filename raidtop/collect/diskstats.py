"""Parse /proc/diskstats.

psutil's ``disk_io_counters`` drops field 11 (weighted time in queue, ``rq_ticks``)
which ``aqu-sz`` needs, and the discard/flush fields, so raidtop reads the file.
"""

from __future__ import annotations

from array import array
from itertools import compress, repeat
from operator import ne
from types import ModuleType
from typing import cast

from raidtop.collect import native
from raidtop.model.disk_columns import COUNTER_FIELDS, DiskCounterColumns
from raidtop.model.snapshot import DiskCounters

# Field counts the kernel has printed: 14 (before 4.18; old kernels printed 7
# for partitions, which carry too little for iostat -x), 18 (discards, 4.18)
# and 20 (flushes, 5.5).
_MIN_FIELDS = 14
_KERNEL_FIELD_COUNTS = frozenset({14, 18, 20})
_DOTS = frozenset({".", ".."})
_NOT_PLAIN = ("+", "_", " -", "\t-", "\n-")
_U64 = 1 << 64


class DiskstatsParser:
    """Parses /proc/diskstats into columns, doing Python work only where lines changed.

    A kernel prints every line with the same field count. Where the compiled
    parse is installed (``native.diskstats_parse``), such a read is scanned
    once in C into one array per field, and the lines that changed are found
    there. Without it, the common read is split once and sliced into one
    column per field, the conversions running in C (``map``, ``array``); when
    few lines changed since the last read (a machine with thousands of mostly
    idle devices), only those are parsed and written into copies of the last
    columns. Anything irregular (a
    damaged line, a field count the kernel never prints) goes line by line
    and says what it skipped.
    """

    def __init__(self) -> None:
        self._text: str | None = None  # the last read (None before the first)
        self._lines: list[str] | None = None  # its lines, when the Python path read it
        self._data: bytes | None = None  # its counters as the C parse laid them out, when that read it
        self._notes: list[str] = []
        self._names_checked: tuple[str, ...] | None = None  # the C parse's names that passed _usable_names
        self.devices: DiskCounterColumns = DiskCounterColumns([], [], [], {})
        """The devices the last :meth:`parse` returned."""
        self.same_devices = False
        """True when those are the same names and numbers as the read before (counters aside)."""
        self.changed: list[int] | None = None
        """Positions whose line differs from the read before (``None``: not known, take all)."""

    def parse(self, text: str) -> tuple[DiskCounterColumns, list[str]]:
        """Return the devices in ``text`` and notes on lines that could not be used."""
        before = self.devices
        if text == self._text:
            self.same_devices, self.changed = True, []
            return before, list(self._notes)  # nothing moved: the same object, the same notes
        self._text = text
        if native.diskstats_parse is not None and self._compiled_read(text, native.diskstats_parse):
            return self.devices, []
        self._data = None
        lines = text.splitlines()
        old_lines, self._lines = self._lines, None
        if lines == old_lines:
            self.same_devices, self.changed, self._lines = True, [], lines
            return before, list(self._notes)
        disks = None
        self.changed = None
        if old_lines is not None and len(lines) == len(old_lines) and not self._notes:
            changed = list(compress(range(len(lines)), map(ne, lines, old_lines)))
            if len(changed) * 4 <= len(lines):
                disks = _patched(before, changed, [lines[i] for i in changed])
                self.changed = changed if disks is not None else None
        if disks is None:
            disks = _regular(lines, text)
        notes: list[str] = []
        if disks is None:
            disks = DiskCounterColumns.of(_line_by_line(lines, notes))
        if not len(disks) and not notes:
            notes.append("/proc/diskstats: no devices listed")
        self.same_devices = (
            disks.names == before.names and disks.majors == before.majors and disks.minors == before.minors
        )
        self.devices, self._lines, self._notes = disks, lines, notes
        return disks, list(notes)

    def _compiled_read(self, text: str, compiled: ModuleType) -> bool:
        """Read a regular ``text`` with the C parse; ``False`` (nothing kept) for anything it declines."""
        parsed = compiled.parse(text)
        if parsed is None:
            return False
        width, names, data = parsed
        count = len(names)
        view, size = memoryview(data), count * 8
        numbers = []
        for k in range(width - 1):
            column = array("Q")
            column.frombytes(view[k * size : (k + 1) * size])
            numbers.append(column)
        before, old_data = self.devices, self._data
        if before.names is self._names_checked and tuple(names) == before.names:
            # The names this parse checked last time (the steady state): checked already.
            disks = DiskCounterColumns(numbers[0], numbers[1], before.names, dict(zip(COUNTER_FIELDS, numbers[2:])))
        else:
            checked = _checked(names, numbers)
            if checked is None:
                return False
            disks = checked
        self._names_checked = disks.names
        self.same_devices = (
            disks.names == before.names and disks.majors == before.majors and disks.minors == before.minors
        )
        self.changed = compiled.changed_rows(data, old_data, count) if self.same_devices and old_data else None
        self.devices, self._data, self._lines, self._notes = disks, data, None, []
        return True


def parse_diskstats(text: str) -> tuple[DiskCounterColumns, list[str]]:
    """Parse a whole /proc/diskstats text (stateless convenience)."""
    return DiskstatsParser().parse(text)


def _regular(lines: list[str], text: str) -> DiskCounterColumns | None:
    """Every line split at once and sliced into columns; ``None`` unless every line is regular.

    Regular: the same field count on every line (one the kernel prints),
    counters of ASCII digits below 2**64, names that are not numbers (so a
    line with a field too many or too few shifts a name into a number column
    or a number into the names, and is caught) and that are safe as sysfs names.
    """
    count = len(lines)
    if not count:
        return None
    # int() also takes "+5", "5_0", "-0" and non-ASCII digits: with none of those in
    # the text, the unsigned array's OverflowError is the only check a column needs.
    plain = text.isascii() and not any(mark in text for mark in _NOT_PLAIN) and not text.startswith("-")
    # An ASCII text is split as bytes: int() of a bytes token skips the
    # decoding a str token costs (a third of the parse at thousands of disks).
    tokens: list[bytes] | list[str] = text.encode("ascii").split() if plain else text.split()
    width = len(tokens) // count
    if width not in _KERNEL_FIELD_COUNTS or width * count != len(tokens):
        return None
    names = _names(tokens[2::width])
    numbers: list[array[int]] = []
    for k in (0, 1, *range(3, width)):
        column = tokens[k::width]
        if not plain:
            digits = "".join(cast("list[str]", column))
            if not (digits.isascii() and digits.isdigit()):
                return None
        try:
            numbers.append(array("Q", map(int, column)))
        except (OverflowError, ValueError):  # not a number, negative, or 2**64 or more
            return None
    return _checked(names, numbers)


def _checked(names: list[str], numbers: list[array[int]]) -> DiskCounterColumns | None:
    """The columns of a regular read (majors, minors, then the counters); ``None`` if a name is unusable."""
    if not _usable_names(names):
        return None
    return DiskCounterColumns(numbers[0], numbers[1], names, dict(zip(COUNTER_FIELDS, numbers[2:])))


def _usable_names(names: list[str]) -> bool:
    """Names that are not numbers (so a shifted field is caught), each listed once, and safe as sysfs names."""
    if not "".join(names).isprintable() or any(map(str.isdigit, names)) or not _DOTS.isdisjoint(names):
        return False
    if len(set(names)) != len(names):  # the kernel lists a device once; a damaged file or tree may not
        return False
    return not any(map(str.startswith, names, repeat("/")))  # a name that would be an absolute sysfs path


def _names(tokens: list[bytes] | list[str]) -> list[str]:
    """The name column as text (bytes tokens hold no whitespace, so one join and split decode them all)."""
    if tokens and isinstance(tokens[0], bytes):
        return b" ".join(tokens).decode("ascii").split(" ")
    return cast("list[str]", tokens)


def _patched(before: DiskCounterColumns, changed: list[int], lines: list[str]) -> DiskCounterColumns | None:
    """``before`` with the ``changed`` positions read again from ``lines``; ``None`` if devices moved."""
    if not changed:
        return before
    fresh = _regular(lines, "\n".join(lines))
    if fresh is None:
        return None
    if (
        [before.names[i] for i in changed] != list(fresh.names)
        or [before.majors[i] for i in changed] != list(fresh.majors)
        or [before.minors[i] for i in changed] != list(fresh.minors)
    ):
        return None
    counters: dict[str, array[int] | None] = {}
    for field, old in before.counters.items():
        new = fresh.counters[field]
        if (old is None) != (new is None) or not isinstance(old, array):
            return None
        if new is None:
            counters[field] = None
            continue
        column = array("Q", old)
        for index, value in zip(changed, new):
            column[index] = value
        counters[field] = column
    return DiskCounterColumns(before.majors, before.minors, before.names, counters)


def _line_by_line(lines: list[str], notes: list[str]) -> list[DiskCounters]:
    """The irregular read: each usable line on its own, a note for the rest."""
    disks: list[DiskCounters] = []
    odd_lines = 0
    seen: set[str] = set()
    repeated: list[str] = []
    for line in lines:
        parts = line.split()
        counters = _parse_fields(parts, line, notes) if parts else None
        if counters is None:
            continue
        if counters.name in seen:
            repeated.append(counters.name)
            continue
        seen.add(counters.name)
        disks.append(counters)
        odd_lines += len(parts) not in _KERNEL_FIELD_COUNTS
    if repeated:
        notes.append(
            f"/proc/diskstats: {len(repeated)} device(s) listed more than once ({', '.join(repeated[:3])[:80]}); "
            "the first line of each is read"
        )
    if odd_lines:
        # Said once per read (not per line) so a future kernel's longer lines
        # give one steady note, not a flood.
        notes.append(
            f"/proc/diskstats: {odd_lines} line(s) with a field count the kernel does not print "
            "(14, 18 or 20); read the fields raidtop knows"
        )
    return disks


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
    digits = "".join(parts[3:]) + parts[0] + parts[1]
    if not (digits.isascii() and digits.isdigit()):  # int() also takes "+5", "1_000" and other scripts' digits
        notes.append(f"/proc/diskstats: non-numeric line skipped: {line.strip()[:60]!r}")
        return None
    if max(numbers) >= _U64:
        notes.append(f"/proc/diskstats: counter beyond 64 bits in line for {parts[2][:30]!r}, skipped")
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
