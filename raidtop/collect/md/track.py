"""md state across samples: ETAs and achieved rates, events, alerts and thread CPU.

The Sampler owns one MdTracker; it keeps what must survive from one sample to
the next so that events are derived exactly once per change.
"""

from __future__ import annotations

from itertools import compress, repeat

import os
from collections.abc import Mapping
from dataclasses import replace

from raidtop.model.disk_columns import DiskCounterColumns
from raidtop.collect.md.read import read_md
from raidtop.collect.md.sysfs import list_md_arrays
from raidtop.collect.md.eta import EtaTracker
from raidtop.collect.md.events import AlertState, derive_events
from raidtop.collect.md.sparse import SparseMemory
from raidtop.collect.md.threads import find_md_threads, read_thread_ticks
from raidtop.collect.source import Root
from raidtop.model.snapshot import MdThreadCpu, RawSample
from raidtop.model.md import MdArray, MdEvent, MdReading

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class MdTracker:
    """Reads md each sample and remembers what events need to compare with."""

    def __init__(self, expected_members: Mapping[str, int] | None = None) -> None:
        """``expected_members``: array name or UUID -> the member count its owner expects (config)."""
        self._expected = dict(expected_members or {})
        self._start()

    def _start(self) -> None:
        self._sparse = SparseMemory(self._expected)
        self._since = DegradedClock()
        self._eta = EtaTracker()
        self._alerts = AlertState()
        self._previous_arrays: list[MdArray] | None = None
        self._threads: dict[int, tuple[str, str]] = {}
        self._thread_key: tuple | None = None
        self._names = MdNames()

    def read(
        self, root: Root, devices_unchanged: bool = False
    ) -> tuple[MdReading, dict[int, tuple[str, str]], dict[int, int]]:
        """Read the arrays and, when there are any, their kernel threads' ticks.

        ``devices_unchanged``: /proc/diskstats listed the same devices as in
        the sample before (see :class:`MdNames`).
        """
        reading = read_md(root, self._names.names(root, devices_unchanged))
        if not reading.arrays:
            self._threads, self._thread_key = {}, None
            return reading, {}, {}
        # Threads come and go with arrays and syncs (mdX_resync only exists
        # while one runs): rescan /proc only when that picture changes.
        key = tuple((a.name, a.sync.action if a.sync else None) for a in reading.arrays)
        if key != self._thread_key:
            self._threads = find_md_threads(root)
            self._thread_key = key
        ticks = read_thread_ticks(root, self._threads)
        return reading, self._threads, ticks

    def advance(
        self, prev: RawSample | None, raw: RawSample, interval_s: float | None
    ) -> tuple[tuple[MdArray, ...], tuple[MdEvent, ...], frozenset[str], tuple[MdThreadCpu, ...]]:
        """Arrays with smoothed ETAs, the events since the last sample, standing alerts, thread CPU."""
        reading = raw.md
        arrays = (
            self._eta.apply(reading.arrays, raw.time, reading.speed_limit, busy_arrays(prev, raw)) if reading else []
        )
        arrays = self._since.apply(self._sparse.apply(arrays), raw.time)
        events = derive_events(self._previous_arrays, arrays, raw.time)
        self._previous_arrays = list(arrays)
        self._alerts, _raised, _cleared = self._alerts.advance(arrays)
        threads = _thread_cpu(prev, raw, interval_s)
        return tuple(arrays), tuple(events), self._alerts.degraded, threads

    def reset(self) -> None:
        """Forget history (the next sample is a new baseline)."""
        self._start()


class MdNames:
    """The md-like names under /sys/block, listed again only when the kernel's devices change.

    Listing /sys/block costs a millisecond a sample at 2000 devices, and an md
    name is there only while its disk is: /proc/diskstats lists every disk the
    kernel has, so while it lists the same devices no array has come or gone.
    The link in /sys/block is made just after the disk shows in diskstats (and
    removed just before), so a listing made in the sample of a change may miss
    it: the listing is kept only once it was made while the devices stood still.
    What an array holds is read every sample all the same.
    """

    def __init__(self) -> None:
        self._kept: list[str] | None = None

    def names(self, root: Root, devices_unchanged: bool) -> list[str]:
        """The names to read arrays from (listed, or kept from a listing made in a steady sample)."""
        if devices_unchanged and self._kept is not None:
            return self._kept
        names = list_md_arrays(root) or []
        self._kept = names if devices_unchanged else None
        return names


class DegradedClock:
    """Since when each array has been without redundancy (degraded or failed).

    md keeps no such time: sysfs has none, and the superblock's update time
    (``mdadm --detail``'s Update Time) moves at every clean/active switch and
    bitmap flush, so it dates the last write, not the loss. raidtop dates the
    loss when it sees it (``observed``); an array already degraded when it
    starts counts from that start (``raidtop-start``), and says so.
    """

    def __init__(self) -> None:
        self._since: dict[str, tuple[float, str]] = {}
        self._seen = False

    def apply(self, arrays: list[MdArray], time: float) -> list[MdArray]:
        """The arrays with :attr:`~MdArray.degraded_since` set on those without redundancy."""
        out = []
        for array in arrays:
            if array.health in ("degraded", "failed"):
                since = self._since.setdefault(array.name, (time, "observed" if self._seen else "raidtop-start"))
                array = replace(array, degraded_since=since[0], degraded_since_basis=since[1])
            else:
                self._since.pop(array.name, None)
            out.append(array)
        names = {a.name for a in arrays}
        for name in [n for n in self._since if n not in names]:
            del self._since[name]
        self._seen = True
        return out


def busy_arrays(prev: RawSample | None, raw: RawSample) -> frozenset[str]:
    """md devices that served reads or writes since the last sample (md then holds a sync near its minimum)."""
    if prev is None or raw.md is None or not raw.md.arrays:
        return frozenset()  # nothing to look up among thousands of devices when there is no array
    before = _md_ios(prev)
    return frozenset(name for name, ios in _md_ios(raw).items() if name in before and ios > before[name])


def _md_ios(raw: RawSample) -> dict[str, int]:
    """Reads plus writes completed by each md device, from the diskstats columns."""
    disks = DiskCounterColumns.of(raw.disks)
    rd, wr = disks.counters["rd_ios"] or (), disks.counters["wr_ios"] or ()
    names = disks.names
    return {names[i]: rd[i] + wr[i] for i in compress(range(len(names)), map(str.startswith, names, repeat("md")))}


def _thread_cpu(prev: RawSample | None, raw: RawSample, interval_s: float | None) -> tuple[MdThreadCpu, ...]:
    """CPU % of one core per md thread: Δ(utime+stime) / (interval × CLK_TCK)."""
    out = []
    before = prev.md_thread_ticks if prev else {}
    for pid, ticks in sorted(raw.md_thread_ticks.items()):
        array, name = raw.md_thread_names.get(pid, ("?", "?"))
        pct = None
        if pid in before and interval_s and ticks >= before[pid]:
            pct = (ticks - before[pid]) / (interval_s * _CLOCK_TICKS) * 100.0
        out.append(MdThreadCpu(array, name, pid, pct))
    return tuple(out)
