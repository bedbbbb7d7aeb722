"""Per-device disk data held in columns, with objects made only for the rows someone asks for.

On a machine with thousands of block devices, making a :class:`DiskCounters`
and a :class:`DiskIO` per device per sample was most of the sampler's cost,
while the screen shows a few dozen rows. Here the counters of one
/proc/diskstats read and the rates of one interval are kept as one array per
field; indexing gives the same frozen dataclasses the layers above always
used (made on first access and kept), so consumers that want objects (the
JSON, the exporter, a row on screen) get them, and consumers that want a
column (the history's sparklines, a sort) read it without any object made.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import fields
from operator import itemgetter, truth
from typing import Any, Protocol, TypeVar, overload

from raidtop.model.snapshot import DISK_RATE_FIELDS, DiskCounters, DiskIdentity, DiskIO, disk_row

COUNTER_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(DiskCounters))[3:]
"""The 17 counters of a diskstats line, in the kernel's order."""

Column = Sequence[Any]

_NONZERO = bytes([0] + [1] * 255)  # bytes.translate table: any nonzero byte becomes 1


class _HasName(Protocol):
    @property
    def name(self) -> str: ...


_Named = TypeVar("_Named", bound=_HasName)


class DiskCounterColumns(Sequence[DiskCounters]):
    """One /proc/diskstats read: major, minor, name and one column per counter.

    A counter column is ``None`` when the kernel does not print that field
    (discards before 4.18, flushes before 5.5). Treat it as immutable.
    """

    __slots__ = ("majors", "minors", "names", "counters", "_made")

    def __init__(
        self, majors: Column, minors: Column, names: Sequence[str], counters: Mapping[str, Column | None]
    ) -> None:
        self.majors = majors
        self.minors = minors
        self.names = tuple(names)
        self.counters: dict[str, Column | None] = {f: counters.get(f) for f in COUNTER_FIELDS}
        self._made: list[DiskCounters | None] = [None] * len(self.names)

    @classmethod
    def of(cls, disks: Sequence[DiskCounters]) -> DiskCounterColumns:
        """``disks`` as columns (returned as is when it already is)."""
        if isinstance(disks, DiskCounterColumns):
            return disks
        made = list(disks)
        columns: dict[str, Column | None] = {}
        for name in COUNTER_FIELDS:
            values = [getattr(d, name) for d in made]
            columns[name] = None if made and all(v is None for v in values) else values
        out = cls([d.major for d in made], [d.minor for d in made], [d.name for d in made], columns)
        out._made = list(made)
        return out

    def column(self, name: str) -> Column | None:
        """The values of one counter for every device (``None``: the kernel does not print it)."""
        return self.counters[name]

    def take(self, positions: Sequence[int]) -> DiskCounterColumns:
        """The devices at ``positions`` only, in that order."""
        if not positions:
            return DiskCounterColumns([], [], [], {f: None if c is None else [] for f, c in self.counters.items()})
        # itemgetter picks in C; with one position it gives the item, not a tuple.
        pick = itemgetter(*positions) if len(positions) > 1 else lambda column: (column[positions[0]],)
        counters = {f: None if c is None else pick(c) for f, c in self.counters.items()}
        return DiskCounterColumns(pick(self.majors), pick(self.minors), pick(self.names), counters)

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> DiskCounters: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[DiskCounters, ...]: ...

    def __getitem__(self, index: int | slice) -> DiskCounters | tuple[DiskCounters, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        made = self._made[index]
        if made is None:
            i = range(len(self.names))[index]
            values: list[Any] = [None if column is None else column[i] for column in self.counters.values()]
            made = self._made[i] = DiskCounters(self.majors[i], self.minors[i], self.names[i], *values)
        return made

    def __iter__(self) -> Iterator[DiskCounters]:
        return map(self.__getitem__, range(len(self.names)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DiskCounterColumns):
            return self.names == other.names and list(self) == list(other)
        if isinstance(other, tuple | list):
            return list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"DiskCounterColumns({len(self)} devices)"


class DiskRows(Sequence[DiskIO]):
    """One interval's ``iostat -x`` rows: rate columns for all devices, a :class:`DiskIO` per row on demand.

    ``rates`` maps every name of :data:`DISK_RATE_FIELDS` to a column (or
    ``None``: unknown for every device). ``made`` holds rows already made
    """

    __slots__ = ("names", "rates", "identities", "_counters", "_made", "made_count")

    def __init__(
        self,
        counters: DiskCounterColumns,
        rates: Mapping[str, Column | None],
        identities: Mapping[str, DiskIdentity],
    ) -> None:
        self._counters = counters
        self.names = counters.names
        self.rates: dict[str, Column | None] = {f: rates.get(f) for f in DISK_RATE_FIELDS}
        self.identities = identities
        self._made: list[DiskIO | None] = [None] * len(self.names)
        self.made_count = 0
        """How many rows were made from the columns (for tests and the bench)."""

    def column(self, name: str) -> Column:
        """One rate for every device, in diskstats order (``None`` where unknown).

        ``throughput_kib_s`` is read plus write KiB/s, what the sparklines plot.
        """
        if name == "throughput_kib_s":
            rkb, wkb = self.column("rkib_s"), self.column("wkib_s")
            return [None if r is None or w is None else r + w for r, w in zip(rkb, wkb)]
        values = self.rates[name]
        return [None] * len(self.names) if values is None else values

    @classmethod
    def of(
        cls, counters: DiskCounterColumns, rows: Sequence[DiskIO], identities: Mapping[str, DiskIdentity]
    ) -> DiskRows:
        """Rows already made one by one (an irregular read), with their columns taken from them."""
        rates = {name: [getattr(row, name) for row in rows] for name in DISK_RATE_FIELDS}
        out = cls(counters, rates, identities)
        out._made = list(rows)
        return out

    def ever_used(self) -> list[bool]:
        """Whether each device has completed any I/O since it appeared."""
        return list(map(truth, self.used_mask()))

    def used_mask(self) -> bytes:
        """One byte per device, 1 if it has completed any I/O since it appeared (:meth:`ever_used`).

        Cheap to make and to compare: a sort that must look again only when a
        device is first used compares this every tick, at thousands of devices.
        """
        columns = self._counters.counters
        present = [c for c in map(columns.get, ("rd_ios", "wr_ios", "dc_ios", "fl_ios")) if c is not None]
        if not present:
            return bytes(len(self.names))
        if not all(isinstance(c, array) and c.typecode == "Q" for c in present):
            # An irregular read: a device may lack a field.
            return bytes(any(values) for values in zip(*present))
        # All in C: each column as one wide integer (8 bytes a device), ORed;
        # then each device's 8 bytes folded into its first, which is nonzero
        # exactly when one of them is (a fold only ever pulls a device's own
        # bytes into its first one), and those first bytes taken.
        merged = 0
        for column in present:
            merged |= int.from_bytes(column, "little")
        merged |= merged >> 32
        merged |= merged >> 16
        merged |= merged >> 8
        return merged.to_bytes(8 * len(self.names), "little")[::8].translate(_NONZERO)

    def carry(self, before: DiskRows, redone: Sequence[int]) -> None:
        """Keep ``before``'s row objects for every device but those at ``redone`` (same devices, same identities)."""
        made = list(before._made)
        for index in redone:
            made[index] = None
        self._made = made

    def kinds(self) -> list[str]:
        """Each device's kind (disk, partition, loop, …)."""
        identities = self.identities
        return [identity.kind if (identity := identities.get(n)) is not None else "disk" for n in self.names]

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> DiskIO: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[DiskIO, ...]: ...

    def __getitem__(self, index: int | slice) -> DiskIO | tuple[DiskIO, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        made = self._made[index]
        if made is None:
            i = range(len(self.names))[index]
            made = self._made[i] = self._make(i)
        return made

    def _make(self, i: int) -> DiskIO:
        self.made_count += 1
        name = self.names[i]
        ident = self.identities.get(name) or DiskIdentity(name, "disk")
        values = {f: None if column is None else column[i] for f, column in self.rates.items()}
        return disk_row(name, ident, values, self._counters[i].ever_used)

    def __iter__(self) -> Iterator[DiskIO]:
        return map(self.__getitem__, range(len(self.names)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DiskRows | tuple | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"DiskRows({len(self)} devices)"


def rate_column(disks: Sequence[DiskIO], name: str) -> Column:
    """One rate of every device, from columns when ``disks`` has them, else from the objects."""
    if isinstance(disks, DiskRows):
        return disks.column(name)
    get: Callable[[DiskIO], Any] = lambda d: getattr(d, name)  # noqa: E731
    return list(map(get, disks))


def disk_named(disks: Sequence[_Named], name: str) -> _Named | None:
    """The device called ``name`` in ``disks`` (rows or counters), making no other device's object."""
    names = getattr(disks, "names", None)
    if isinstance(names, tuple):
        try:
            return disks[names.index(name)]
        except ValueError:
            return None
    return next((d for d in disks if d.name == name), None)


class _ByName(Mapping[str, _Named]):
    """``disks`` looked up by name; an object is made only for the names asked for."""

    __slots__ = ("_disks", "_where")

    def __init__(self, disks: Sequence[_Named], names: tuple[str, ...]) -> None:
        self._disks = disks
        self._where = dict(zip(names, range(len(names))))

    def __getitem__(self, name: str) -> _Named:
        return self._disks[self._where[name]]

    def __contains__(self, name: object) -> bool:
        return name in self._where

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


def disks_by_name(disks: Sequence[_Named]) -> Mapping[str, _Named]:
    """``{d.name: d for d in disks}``, without making every device's object when ``disks`` has columns."""
    names = getattr(disks, "names", None)
    if isinstance(names, tuple):
        return _ByName(disks, names)
    return {d.name: d for d in disks}


def disk_names(disks: Sequence[_Named]) -> Sequence[str]:
    """Every device's name, in order, without making objects when ``disks`` has columns."""
    names = getattr(disks, "names", None)
    return names if isinstance(names, tuple) else [d.name for d in disks]
