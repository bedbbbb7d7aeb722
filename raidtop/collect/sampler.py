"""The Sampler: read every source, isolate each one's failures, build a Snapshot.

One ``Sampler`` keeps the previous raw sample, so each call to :meth:`sample`
returns rates over the time since the last call. It never raises for bad
system input: whatever could not be read becomes a note on the snapshot.

Readers read; they do not judge. What is judged from a sample (SmartWarning
events, rebuild risks) is a step the layer above hands in as ``judgement``
(:func:`raidtop.presentation.judgement.judged_sampler`), so nothing here
imports from above the readers.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from collections.abc import Callable, Mapping
from typing import Any, Protocol
from array import array

from raidtop.collect import native, rates
from raidtop.collect.blockinfo import identify, identify_kind
from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import DiskstatsParser
from raidtop.collect.hwmon import SensorReader
from raidtop.collect.md.track import MdTracker
from raidtop.collect.processes import ProcessWatch
from raidtop.collect.rates.processes import io_attribution
from raidtop.collect.memory import (
    parse_loadavg,
    parse_meminfo,
    parse_pressure,
    parse_uptime,
    parse_vmstat,
)
from raidtop.collect.smart.link import SmartLink
from raidtop.collect.smart.poller import SmartPoller
from raidtop.collect.dmraid.reader import DmRaidReader
from raidtop.collect.stack.poller import StackPoller
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.model.disk_columns import DiskCounterColumns, DiskRows
from raidtop.model.processes import IoAttribution
from raidtop.model.snapshot import (
    CpuUsage,
    DiskIdentity,
    DiskIO,
    RawSample,
    Snapshot,
    StatCounters,
)

_PSI_RESOURCES = ("io", "memory", "cpu")
_NO_DISKS = DiskCounterColumns([], [], [], {})


class Judgement(Protocol):
    """A step that adds to each snapshot what is judged from it, with memory between samples."""

    def apply(self, snap: Snapshot) -> Snapshot:
        """``snap`` with what is judged from it added."""

    def reset(self) -> None:
        """Forget what was remembered (a new baseline)."""


class Sampler:
    """Reads a root's /proc and /sys and turns consecutive reads into rates."""

    def __init__(
        self,
        root: Root | str | os.PathLike[str] = "/",
        clock: Callable[[], float] = time.time,
        read_sensors_every: int = 1,
        smart: SmartPoller | None = None,
        identify_per_sample: int | None = None,
        md_expected_members: Mapping[str, int] | None = None,
        judgement: Judgement | None = None,
    ) -> None:
        """``identify_per_sample``: walk at most this many devices' full identity
        (udev database, model, serial) per sample, so thousands of devices do
        not delay the first snapshot; the others show their name and kind
        until their turn. ``None``: all at once. ``md_expected_members``: array
        name or UUID -> members its owner expects (:mod:`raidtop.collect.md.sparse`).
        ``judgement``: applied to each snapshot last (None: the readings alone).
        """
        self.root = as_root(root)
        self._smart = SmartLink(smart)
        self._clock = clock
        self._diskstats = DiskstatsParser()
        self._identify_per_sample = identify_per_sample
        # name -> (major, minor, identity, whether the identity is the full walk's)
        self._identities: dict[str, tuple[int, int, DiskIdentity, bool]] = {}
        self._identities_pending = False
        self._previous: RawSample | None = None
        self._identity_result: dict[str, DiskIdentity] | None = None
        # (the disks of the last sample, their rows, the positions that moved): see _disk_rows
        self._last_disks: tuple[DiskCounterColumns, DiskRows, list[int]] | None = None
        self._last_io: IoAttribution | None = None
        """The last snapshot's process rows: an idle process keeps its row."""
        self._page_kb = os.sysconf("SC_PAGE_SIZE") / 1024.0
        self._md = MdTracker(md_expected_members)
        self.stack = StackPoller()
        self.dm_raid = DmRaidReader()
        self._sensors = SensorReader()
        self.judgement = judgement
        """What is judged from each snapshot (SmartWarning events, rebuild risks), or None."""
        self.processes = ProcessWatch()
        """Who does I/O; the app switches its reads on while they are shown."""

    @property
    def smart(self) -> SmartPoller | None:
        """The SMART poller whose latest results each snapshot carries (None: SMART off)."""
        return self._smart.poller

    # -------------------------------------------------------------- reading

    def read(self) -> RawSample:
        """Read every source once; failures become notes, never exceptions."""
        root = self.root
        notes: list[str] = []

        def parsed(path: str, parser, default=None):
            try:
                value, more = parser(root.read_text(path))
            except SourceError as exc:
                notes.append(str(exc))
                return default
            notes.extend(more)
            return value

        uptime = parsed("/proc/uptime", parse_uptime)
        disks = parsed("/proc/diskstats", self._diskstats.parse, _NO_DISKS)
        # The same devices as the read before (counters aside): what follows from the device list stands.
        same_devices = disks is self._diskstats.devices and self._diskstats.same_devices
        stat = parsed("/proc/stat", parse_stat)
        meminfo = parsed("/proc/meminfo", parse_meminfo)
        vm = parsed("/proc/vmstat", parse_vmstat)
        loadavg = parsed("/proc/loadavg", parse_loadavg)
        pressure = []
        for resource in _PSI_RESOURCES:
            text = root.read_optional(f"/proc/pressure/{resource}")
            if text is not None:
                value, more = parse_pressure(resource, text)
                notes.extend(more)
                if value is not None:
                    pressure.append(value)
        sensors, more = self._sensors.read(root)
        notes.extend(more)
        md, md_thread_names, md_thread_ticks = self._md.read(root, same_devices)
        notes.extend(md.notes)
        dm_arrays, more = self.dm_raid.read(root)
        notes.extend(more)
        if dm_arrays:  # LVM RAID volumes are arrays like md's, through the same tracker
            md = replace(md, arrays=md.arrays + tuple(dm_arrays))
        processes, cgroups, cgroups_absent = self.processes.read(root, notes)
        return RawSample(
            time=self._clock(),
            uptime_s=uptime,
            disks=disks,
            identities=self._identify(disks, same_devices),
            stat=stat,
            meminfo=meminfo,
            vm=vm,
            loadavg=loadavg,
            pressure=tuple(pressure),
            sensors=tuple(sensors),
            md=md,
            md_thread_names=md_thread_names,
            md_thread_ticks=md_thread_ticks,
            processes=processes,
            cgroups=cgroups,
            cgroups_absent=cgroups_absent,
            notes=tuple(notes),
        )

    def _identify(self, disks: DiskCounterColumns, same_devices: bool) -> dict[str, DiskIdentity]:
        parser = self._diskstats
        if same_devices and not self._identities_pending and self._identity_result is not None:
            # The same devices as last time (the steady state): the same identities.
            return self._identity_result
        known = self._identities
        budget = self._identify_per_sample
        pending = False
        result: dict[str, DiskIdentity] = {}
        for name, major, minor in zip(disks.names, disks.majors, disks.minors):
            entry = known.get(name)
            new = entry is None or entry[0] != major or entry[1] != minor
            if entry is None or new or not entry[3]:
                if budget is None or budget > 0:
                    # A device not walked yet (or a new device under an old name): walk sysfs once.
                    entry = (major, minor, identify(self.root, name, major, minor), True)
                    budget = None if budget is None else budget - 1
                elif entry is None or new:
                    entry = (major, minor, identify_kind(self.root, name), False)
                pending = pending or not entry[3]
                known[name] = entry
            result[name] = entry[2]
        if len(known) > len(result):
            for gone in set(known) - set(result):
                del known[gone]
        self._identities_pending = pending
        # Only a result for the parser's own list can be reused by the next read.
        self._identity_result = result if disks is parser.devices else None
        return result

    # -------------------------------------------------------------- rates

    def advance(self, raw: RawSample) -> Snapshot:
        """Turn ``raw`` into rates against the previous sample, then keep it."""
        prev = self._previous
        # Offline CPUs keep their last counters as the reference for when they return.
        carried = rates.carry_offline_cpus(prev.stat if prev else None, raw.stat) if raw.stat else raw.stat
        self._previous = raw if carried is raw.stat else replace(raw, stat=carried)
        notes = list(raw.notes)
        since_boot = prev is None
        interval = _interval(prev, raw, notes)

        disks = self._disk_rows(prev, raw, interval, notes)

        cpus: tuple[CpuUsage, ...] = ()
        if raw.stat is not None:
            # A previous sample without /proc/stat is no reference: no CPU row has a rate yet.
            reference = (prev.stat or StatCounters(cpus=())) if prev else None
            cpus = rates.cpu_usages(reference, raw.stat)
        vm = rates.vm_stat(
            prev.stat if prev else None,
            raw.stat,
            prev.vm if prev else None,
            raw.vm,
            raw.meminfo,
            interval,
            self._page_kb,
            raw.loadavg,
            raw.pressure,
            since_boot=since_boot,
        )
        arrays, events, alerts, md_threads = self._md.advance(prev, raw, interval)
        smart, disk_of = self._smart.readings(self.root, raw, arrays, self._diskstats.same_devices, notes)
        snapshot = Snapshot(
            raw=raw,
            raw_previous=prev,
            time=raw.time,
            interval_s=interval,
            since_boot=since_boot,
            disks=disks,
            cpus=cpus,
            vm=vm,
            sensors=raw.sensors,
            arrays=arrays,
            raid_speed_limit=raw.md.speed_limit if raw.md else None,
            md_absence=raw.md.absence if raw.md else None,
            events=events,
            degraded_alerts=alerts,
            md_threads=md_threads,
            smart=smart,
            smart_disk_of=disk_of,
            io=io_attribution(prev, raw, interval, self._last_io),
            notes=tuple(notes),
        )
        self._last_io = snapshot.io
        # Beside the md events: SmartWarning and the rebuild risk need this sample's arrays and SMART readings.
        return snapshot if self.judgement is None else self.judgement.apply(snapshot)

    def _disk_rows(self, prev: RawSample | None, raw: RawSample, interval: float | None, notes: list[str]) -> DiskRows:
        """Every device's ``iostat -x`` rates, in ``raw``'s order, as columns (rows made on demand)."""
        cur = DiskCounterColumns.of(raw.disks)
        identities = raw.identities
        last, self._last_disks = self._last_disks, None
        if interval is None:
            # Still list every device, each rate unknown ("—"), rather than an empty panel.
            return DiskRows(cur, {}, identities)
        old = DiskCounterColumns.of(prev.disks) if prev is not None else None
        parser = self._diskstats
        changed = parser.changed if cur is parser.devices and parser.same_devices else None
        if last is not None and old is last[0] and changed is not None and identities is last[1].identities:
            # The steady state: only devices that moved now or last time cost any work (a row
            # object at least: an idle device keeps its row).
            redo = sorted({*changed, *last[2]})
            before_rates: Any = last[1].rates
            updated = None
            if interval > 0 and native.disk_rates is not None:
                # The compiled rates do every device in less time than Python patches a tenth.
                updated = rates.disk_rate_columns(old, cur, interval)
            elif interval > 0 and len(redo) * 4 <= len(cur):
                updated = rates.updated_rate_columns(old, cur, interval, before_rates, redo)
            if updated is not None:
                columns, unknown = updated
                rows = DiskRows(cur, columns, identities)
                rows.carry(last[1], redo)
                self._note_reset(cur, unknown, None, notes)
                self._last_disks = (cur, rows, sorted({*changed, *unknown}))
                return rows
        if _irregular(cur) or (old is not None and _irregular(old)):
            return DiskRows.of(cur, _rows_one_by_one(old, cur, interval, identities, notes), identities)
        before: list[int | None] | None = None
        if old is not None and old.names != cur.names:
            where = {name: i for i, name in enumerate(old.names)}
            before = [where.get(name) for name in cur.names]
            notes.extend(
                f"{name}: appeared during the interval; rates from the next sample"
                for name, b in zip(cur.names, before)
                if b is None
            )
            notes.extend(f"{gone}: disappeared during the interval" for gone in where.keys() - set(cur.names))
        columns, unknown = rates.disk_rate_columns(old, cur, interval, before)
        if old is not None and interval > 0:
            self._note_reset(cur, unknown, before, notes)
        rows = DiskRows(cur, columns, identities)
        if old is not None and changed is not None and before is None and interval > 0:
            self._last_disks = (cur, rows, sorted({*changed, *unknown}))
        return rows

    @staticmethod
    def _note_reset(cur: DiskCounterColumns, unknown: list[int], before: list[int | None] | None, notes: list[str]):
        """A note for each device whose counters went back (not for one that just appeared)."""
        notes.extend(
            f"{cur.names[i]}: counters went backwards (device reset?); no rate this interval"
            for i in unknown
            if before is None or before[i] is not None
        )

    def sample(self) -> Snapshot:
        """Read now and return rates since the previous call (since boot the first time)."""
        return self.stack.apply(self.root, self.advance(self.read()))

    def reset(self) -> None:
        """Forget the previous sample: the next one averages since boot again."""
        self._previous = None
        self._last_disks = None
        self._last_io = None
        self._md.reset()
        if self.judgement is not None:
            self.judgement.reset()
        self.processes.reset()


def _interval(prev: RawSample | None, raw: RawSample, notes: list[str]) -> float | None:
    """Seconds between samples from /proc/uptime, as sysstat measures it."""
    if prev is None:
        return raw.uptime_s
    if prev.uptime_s is not None and raw.uptime_s is not None:
        if raw.uptime_s > prev.uptime_s:
            # /proc/uptime has two decimals: round away the float subtraction's
            # noise so rates divide by the same 0.01 s steps as sysstat's.
            return round(raw.uptime_s - prev.uptime_s, 2)
        if raw.uptime_s < prev.uptime_s:
            notes.append("/proc/uptime went backwards (a reboot, or another machine's recording): no rates")
            return None
    wall = raw.time - prev.time
    if wall > 0:
        notes.append("/proc/uptime unusable; interval taken from the wall clock")
        return wall
    return None


def _irregular(disks: DiskCounterColumns) -> bool:
    """True when some devices have a counter others lack (lines of different kernels' lengths)."""
    return any(
        column is not None and not isinstance(column, array) and None in column for column in disks.counters.values()
    )


def _rows_one_by_one(
    old: DiskCounterColumns | None,
    cur: DiskCounterColumns,
    interval: float,
    identities: Mapping[str, DiskIdentity],
    notes: list[str],
) -> list[DiskIO]:
    """An irregular read's rows, device by device (no real kernel prints one)."""
    before = {d.name: d for d in old} if old is not None else {}
    rows = []
    for disk in cur:
        previous = before.get(disk.name)
        row = rates.disk_io(previous, disk, interval, identities.get(disk.name))
        if old is not None and previous is None:
            notes.append(f"{disk.name}: appeared during the interval; rates from the next sample")
            unknown: dict[str, Any] = dict.fromkeys(rates.DISK_RATE_FIELDS)
            row = replace(row, **unknown)
        elif row.r_s is None and previous is not None:
            notes.append(f"{disk.name}: counters went backwards (device reset?); no rate this interval")
        rows.append(row)
    if old is not None:
        notes.extend(f"{gone}: disappeared during the interval" for gone in before.keys() - set(cur.names))
    return rows
