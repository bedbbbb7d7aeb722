"""Process and cgroup I/O counters at two samples become rates (pidstat -d, and io.stat per device).

A process is the same process in both samples only with the same PID *and*
start time; a reused PID starts over without a rate. When a parent reaps a
child the kernel adds the child's whole counters to the parent's
/proc/PID/io (wait_task_zombie), so a shell looping over ``dd`` would jump by
every finished dd's bytes; what the child had done when last seen is taken
off its parent's change (only the child's last interval stays with the parent). A cgroup's counters are
recursive under v2, so its own share is its rate minus its children's
(each side a rate over the same interval, so a child that ended does not
make its parent's own share jump).
"""

from __future__ import annotations

from operator import attrgetter

from raidtop.model.disk_columns import DiskCounterColumns
from raidtop.model.snapshot import RawSample
from raidtop.model.processes import CgroupReading, IoAttribution, ProcCounters, ProcessIO, UnitIO

KERNEL_UNIT = "kernel"


def process_rates(
    prev: tuple[ProcCounters, ...] | None,
    cur: tuple[ProcCounters, ...],
    interval_s: float | None,
    earlier: tuple[ProcessIO, ...] = (),
) -> tuple[ProcessIO, ...]:
    """Every process with its rates, busiest first; rates ``None`` for a process new since ``prev``.

    ``earlier`` is this function's result for ``prev``: a process idle then and now (the reader
    kept its very object) keeps its row, so a host of sleeping processes costs a lookup each.
    """
    before = {p.pid: p for p in prev} if prev is not None else {}
    idle_rows = {row.pid: row for row in earlier if row.read_b_s == row.write_b_s == row.syscr_s == row.syscw_s == 0.0}
    reaped = _reaped_by_parent(prev, cur)
    busy: list[ProcessIO] = []
    idle: list[ProcessIO] = []
    for p in cur:
        old = before.get(p.pid)
        if old is p and interval_s:
            # Idle: the reader kept the same object, so last time's row (built from it) still holds.
            row = idle_rows.get(p.pid)
            if row is None:
                row = ProcessIO(p.pid, p.comm, p.user, _unit(p), p.kernel, 0.0, 0.0, 0.0, 0.0)
            idle.append(row)
            continue
        rates: tuple[float | None, ...]
        if old is None or old.start != p.start or not interval_s or interval_s <= 0:
            rates = (None, None, None, None)
        else:
            deltas: tuple[int, ...] = (
                p.read_bytes - old.read_bytes,
                p.write_bytes - old.write_bytes,
                p.syscr - old.syscr,
                p.syscw - old.syscw,
            )
            inherited = reaped.get(p.pid)
            if inherited is not None and min(deltas) >= 0:
                deltas = tuple(max(0, d - i) for d, i in zip(deltas, inherited, strict=True))
            rates = tuple(d / interval_s if d >= 0 else None for d in deltas)
        (busy if any(rates) else idle).append(ProcessIO(p.pid, p.comm, p.user, _unit(p), p.kernel, *rates))
    # Rates are never negative: every row with one above zero sorts before all the rest, which tie
    # on everything but the PID.
    busy.sort(key=lambda r: (-r.total_b_s, -((r.syscr_s or 0.0) + (r.syscw_s or 0.0)), r.pid))
    idle.sort(key=_pid)
    return (*busy, *idle)


def _unit(p: ProcCounters) -> str:
    return KERNEL_UNIT if p.kernel else unit_name(p.cgroup)


_pid = attrgetter("pid")


def _reaped_by_parent(
    prev: tuple[ProcCounters, ...] | None, cur: tuple[ProcCounters, ...]
) -> dict[int, tuple[int, ...]]:
    """Parent PID -> the counters, as last seen, of its children that ended since ``prev``."""
    if prev is None:
        return {}
    alive = {(p.pid, p.start) for p in cur}
    reaped: dict[int, list[int]] = {}
    for old in prev:
        if old.ppid and (old.pid, old.start) not in alive:
            total = reaped.setdefault(old.ppid, [0, 0, 0, 0])
            for i, value in enumerate((old.read_bytes, old.write_bytes, old.syscr, old.syscw)):
                total[i] += value
    return {pid: tuple(values) for pid, values in reaped.items()}


def unit_rates(
    prev: CgroupReading | None, cur: CgroupReading, devices: dict[tuple[int, int], str], interval_s: float | None
) -> dict[str, tuple[UnitIO, ...]]:
    """Device name -> each cgroup's own I/O on it, busiest first (idle cgroups left out)."""
    if prev is None or not interval_s or interval_s <= 0 or prev.source != cur.source:
        return {}
    before = {(c.cgroup, c.major, c.minor): c for c in prev.counters}
    # Whole counts first (a parent's own share is exact in integers), rates at the end.
    own: dict[tuple[str, int, int], list[int]] = {}
    for c in cur.counters:
        old = before.get((c.cgroup, c.major, c.minor))
        if old is None:
            continue  # a cgroup or device new since the last sample: from the next one
        deltas = [c.rbytes - old.rbytes, c.wbytes - old.wbytes, c.rios - old.rios, c.wios - old.wios]
        if min(deltas) < 0:
            continue  # counters reset (cgroup recreated under the same name)
        own[(c.cgroup, c.major, c.minor)] = deltas
    if cur.recursive:
        totals = {key: list(values) for key, values in own.items()}
        for (cgroup, major, minor), values in own.items():
            for child in cur.children.get(cgroup, ()):
                child_values = totals.get((child, major, minor))
                if child_values is not None:
                    for i in range(4):
                        values[i] = max(0, values[i] - child_values[i])
    by_device: dict[str, list[UnitIO]] = {}
    for (cgroup, major, minor), (rb, wb, rios, wios) in own.items():
        name = devices.get((major, minor))
        if name is None or not (rb or wb or rios or wios):
            continue
        by_device.setdefault(name, []).append(
            UnitIO(cgroup, rb / interval_s, wb / interval_s, rios / interval_s, wios / interval_s)
        )
    return {
        name: tuple(sorted(units, key=lambda u: (-(u.read_b_s + u.write_b_s), u.unit)))
        for name, units in sorted(by_device.items())
    }


def device_numbers(raw: RawSample) -> dict[tuple[int, int], str]:
    """(major, minor) -> device name, from the sample's diskstats."""
    disks = DiskCounterColumns.of(raw.disks)
    return dict(zip(zip(disks.majors, disks.minors), disks.names))


def unit_name(cgroup: str) -> str:
    """What a cgroup path is called on screen: its last part ("postgresql.service"), "/" for the root."""
    return cgroup.rstrip("/").rpartition("/")[2] or "/"


def io_attribution(
    prev: RawSample | None, raw: RawSample, interval_s: float | None, earlier: IoAttribution | None = None
) -> IoAttribution | None:
    """The snapshot's who-did-I/O part, ``None`` when nothing of it was read this sample.

    ``earlier`` is the result for ``prev`` (its rows of idle processes are kept).
    """
    if raw.processes is None and raw.cgroups is None and not raw.cgroups_absent:
        return None
    processes: tuple[ProcessIO, ...] = ()
    if raw.processes is not None:
        before = prev.processes if prev is not None else None
        earlier_rows = earlier.processes if earlier is not None and before is not None else ()
        processes = process_rates(before, raw.processes, interval_s, earlier_rows)
    if raw.cgroups is not None:
        by_device = unit_rates(prev.cgroups if prev is not None else None, raw.cgroups, device_numbers(raw), interval_s)
        return IoAttribution("per device", raw.cgroups.source, processes, by_device, len(processes))
    if raw.processes is None:
        return IoAttribution("off", raw.cgroups_absent, (), None, 0)
    return IoAttribution("totals", raw.cgroups_absent or "no cgroup I/O accounting", processes, None, len(processes))
